#!/bin/sh
# bench/bench_sweep.sh BUILD -- `partita sweep` of a 1000-question grid (5
# models x 2 clusters x 5 device counts x 5 global batches x 2 sequence
# lengths x 2 objectives) on one process and on 2 MPI ranks (`mpirun -np 2`),
# one search thread per rank in both, so the ratio is what MPI adds: prints
# both wall times, the speed-up and whether the two outputs are the same
# bytes.  Never fails on time; prints why it skips the MPI run when mpirun is
# absent or the binary was built without MPI.  bench/run.sh calls it.
set -u
BUILD=${1:-build}
P="$BUILD/partita"
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
cat >"$TMP/grid.json" <<'JSON'
{"command": "plan",
 "models": ["llama3-8b", "llama2-7b", "mpt-13b", "gpt-22b", "llama3-70b"],
 "clusters": ["dgx-h100", "dgx-a100-80g"],
 "gpus": [8, 16, 32, 64, 128], "global_batch": [64, 128, 256, 512, 1024],
 "seq_len": [2048, 4096], "objective": ["step", "cost"]}
JSON
# cpu.py CMD...: runs CMD, then writes "cpu_s RANK SECONDS" (its CPU time)
# to stderr: on a machine other jobs share, wall time measures the load, CPU
# time the work, and the largest rank's CPU time bounds the speed-up.
cat >"$TMP/cpu.py" <<'PYEOF'
import os, resource, subprocess, sys
rc = subprocess.run(sys.argv[1:]).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write("cpu_s %s %.3f\n" % (os.environ.get("OMPI_COMM_WORLD_RANK", "0"), r.ru_utime + r.ru_stime))
sys.exit(rc)
PYEOF
now() { date +%s.%N; }
t0=$(now)
python3 "$TMP/cpu.py" "$P" sweep "$TMP/grid.json" --json --threads 1 >"$TMP/one" 2>"$TMP/err1" ||
    { echo "bench: sweep failed: $(cat "$TMP/err1")" >&2; exit 1; }
t1=$(now)
n=$(sed -n 's/^  "questions": \([0-9]*\),/\1/p' "$TMP/one")
python3 -c "import sys; print('sweep of %s questions, 1 process, 1 thread: %.1f s' % (sys.argv[1], float(sys.argv[3]) - float(sys.argv[2])))" "$n" "$t0" "$t1"
if ! command -v mpirun >/dev/null 2>&1; then
    echo "(2 MPI ranks: skipped, mpirun is not installed: apt-get install openmpi-bin libopenmpi-dev)"
    exit 0
fi
if ! nm "$BUILD/partita" 2>/dev/null | grep -q 'MPI_Init'; then
    echo "(2 MPI ranks: skipped, $P was built without MPI: install libopenmpi-dev and rebuild)"
    exit 0
fi
root=""
[ "$(id -u)" = 0 ] && root="--allow-run-as-root"
t2=$(now)
mpirun $root --oversubscribe -np 2 python3 "$TMP/cpu.py" "$P" sweep "$TMP/grid.json" --json --threads 1 \
    >"$TMP/two" 2>"$TMP/err2" || { echo "bench: mpirun -np 2 sweep failed: $(cat "$TMP/err2")" >&2; exit 1; }
t3=$(now)
python3 - "$t0" "$t1" "$t2" "$t3" "$TMP/err1" "$TMP/err2" <<'PY'
import sys
t0, t1, t2, t3 = map(float, sys.argv[1:5])
cpu = lambda f: [float(l.split()[2]) for l in open(f) if l.startswith("cpu_s ")]
one, two = cpu(sys.argv[5]), cpu(sys.argv[6])
print("sweep, 2 MPI ranks (mpirun -np 2), 1 thread each: %.1f s; speed-up over 1 process %.2fx (wall)"
      % (t3 - t2, (t1 - t0) / (t3 - t2)))
if one and len(two) == 2:
    print("CPU seconds: 1 process %.1f; ranks %.1f and %.1f: speed-up on 2 free cores %.2fx (1 process's CPU "
          "over the busier rank's)" % (one[0], two[0], two[1], one[0] / max(two)))
PY
# the speed-up is only as good as the free cores: say how busy the machine was
echo "(machine: $(nproc 2>/dev/null || echo '?') CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'))"
if cmp -s "$TMP/one" "$TMP/two"; then echo "outputs: the same bytes"; else echo "bench: outputs differ between 1 and 2 ranks" >&2; exit 1; fi
