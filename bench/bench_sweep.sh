#!/bin/sh
# bench/bench_sweep.sh BUILD -- `partita sweep` on one process and on 2 MPI
# ranks (`mpirun -np 2`), one search thread per rank in both, so the ratio is
# what MPI adds, for two grids:
#   - plan: 1000 questions (5 models x 2 clusters x 5 device counts x 5
#     global batches x 2 sequence lengths x 2 objectives);
#   - serve: 144 serving questions (2 models, dense and MoE, x 2 clusters x 3
#     device counts x 2 prompt lengths x 2 output lengths x 3 request rates,
#     TTFT and TPOT objectives), split by the serving estimate.
# For each: both wall times, the speed-up, the CPU seconds of each rank and
# whether the two outputs are the same bytes.  Never fails on time; prints
# why it skips the MPI runs when mpirun is absent or the binary was built
# without MPI.  bench/run.sh calls it.
set -u
BUILD=${1:-build}
P="$BUILD/partita"
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
cat >"$TMP/plan.json" <<'JSON'
{"command": "plan",
 "models": ["llama3-8b", "llama2-7b", "mpt-13b", "gpt-22b", "llama3-70b"],
 "clusters": ["dgx-h100", "dgx-a100-80g"],
 "gpus": [8, 16, 32, 64, 128], "global_batch": [64, 128, 256, 512, 1024],
 "seq_len": [2048, 4096], "objective": ["step", "cost"]}
JSON
cat >"$TMP/serve.json" <<'JSON'
{"command": "serve", "models": ["llama3-8b", "mixtral-8x7b"], "clusters": ["dgx-h100", "dgx-a100-80g"],
 "gpus": [8, 16, 32], "isl": [512, 2048], "osl": [64, 128], "rate": [16, 64, 256],
 "ttft_ms": [1000], "tpot_ms": [50]}
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
mpi_ok=1
if ! command -v mpirun >/dev/null 2>&1; then
    mpi_ok=0 why="mpirun is not installed: apt-get install openmpi-bin libopenmpi-dev"
elif ! nm "$BUILD/partita" 2>/dev/null | grep -q 'MPI_Init'; then
    mpi_ok=0 why="$P was built without MPI: install libopenmpi-dev and rebuild"
fi
root=""
[ "$(id -u)" = 0 ] && root="--allow-run-as-root"
status=0

# bench NAME: the grid $TMP/NAME.json on 1 process, then on 2 ranks
bench() {
    name=$1
    t0=$(now)
    python3 "$TMP/cpu.py" "$P" sweep "$TMP/$name.json" --json --threads 1 >"$TMP/one" 2>"$TMP/err1" ||
        { echo "bench: $name sweep failed: $(cat "$TMP/err1")" >&2; status=1; return; }
    t1=$(now)
    n=$(sed -n 's/^  "questions": \([0-9]*\),/\1/p' "$TMP/one")
    python3 -c "import sys; print('%s sweep of %s questions, 1 process, 1 thread: %.1f s' % (sys.argv[1], sys.argv[2], float(sys.argv[4]) - float(sys.argv[3])))" \
        "$name" "$n" "$t0" "$t1"
    if [ $mpi_ok = 0 ]; then
        echo "(2 MPI ranks: skipped, $why)"
        return
    fi
    t2=$(now)
    mpirun $root --oversubscribe -np 2 python3 "$TMP/cpu.py" "$P" sweep "$TMP/$name.json" --json --threads 1 \
        >"$TMP/two" 2>"$TMP/err2" || { echo "bench: $name: mpirun -np 2 sweep failed: $(cat "$TMP/err2")" >&2; status=1; return; }
    t3=$(now)
    python3 - "$name" "$t0" "$t1" "$t2" "$t3" "$TMP/err1" "$TMP/err2" <<'PY'
import sys
name = sys.argv[1]
t0, t1, t2, t3 = map(float, sys.argv[2:6])
cpu = lambda f: [float(l.split()[2]) for l in open(f) if l.startswith("cpu_s ")]
one, two = cpu(sys.argv[6]), cpu(sys.argv[7])
print("%s sweep, 2 MPI ranks (mpirun -np 2), 1 thread each: %.1f s; speed-up over 1 process %.2fx (wall)"
      % (name, t3 - t2, (t1 - t0) / (t3 - t2)))
if one and len(two) == 2:
    print("CPU seconds: 1 process %.1f; ranks %.1f and %.1f: speed-up on 2 free cores %.2fx (1 process's CPU "
          "over the busier rank's)" % (one[0], two[0], two[1], one[0] / max(two)))
PY
    if cmp -s "$TMP/one" "$TMP/two"; then echo "outputs: the same bytes"; else
        echo "bench: $name: outputs differ between 1 and 2 ranks" >&2
        status=1
    fi
}

bench plan
echo
bench serve
# the speed-up is only as good as the free cores: say how busy the machine was
echo "(machine: $(nproc 2>/dev/null || echo '?') CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'))"
exit $status
