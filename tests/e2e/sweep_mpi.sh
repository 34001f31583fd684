#!/bin/sh
# `partita sweep` under MPI (issue 20): `mpirun -np 2 partita sweep GRID.json
# --json` prints the same bytes as the same sweep on one process, for a grid
# of 120 questions (3 models x 2 clusters x 4 device counts x 5 batches), and
# so does -np 3 (ranks with unequal shares); the table and the report too;
# and a serving grid of 48 questions ("command": "serve": 2 models x 2
# clusters x 2 device counts x 2 prompt lengths x 3 rates, a TTFT and a TPOT
# objective), split by the serving estimate, the same at -np 2 and 3 (kept
# small: the ASan build runs it too, and serving questions cost 10x plan ones).
# Skipped, saying why, where mpirun is absent or partita was built without
# MPI (the Makefile finds mpicc; see src/cli/cmd_sweep.c).
. "$(dirname "$0")/lib/common.sh" || exit 1

if ! command -v mpirun >/dev/null 2>&1; then
    echo "sweep_mpi.sh: skipped: mpirun is not installed (Debian: apt-get install openmpi-bin libopenmpi-dev)"
    exit 0
fi
if ! nm "$P" 2>/dev/null | grep -q 'MPI_Init'; then
    echo "sweep_mpi.sh: skipped: $P was built without MPI (no mpicc when it was built)"
    exit 0
fi
root=""
[ "$(id -u)" = 0 ] && root="--allow-run-as-root"
# OpenMPI's own allocations outlive MPI_Finalize: not this program's leaks
# (the ASan build runs this test too)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
mpi() { np=$1; shift; timeout 600 mpirun $root --oversubscribe -np "$np" "$@"; }

cat >"$tmp/grid.json" <<'JSON'
{"command": "plan", "models": ["llama3-8b", "mpt-7b", "llama3-70b"], "clusters": ["dgx-h100", "dgx-a100-80g"],
 "gpus": [8, 16, 32, 64], "global_batch": [32, 64, 128, 256, 512], "seq_len": [4096]}
JSON
$P sweep "$tmp/grid.json" --json --threads 1 >"$tmp/one" 2>"$tmp/err" || bad "sweep failed: $(cat "$tmp/err")"
grep -q '^  "questions": 120,$' "$tmp/one" || bad "the grid is not 120 questions: $(head -n 2 "$tmp/one")"
mpi 2 "$P" sweep "$tmp/grid.json" --json --threads 1 >"$tmp/two" 2>"$tmp/err2" || bad "mpirun -np 2 failed: $(cat "$tmp/err2")"
cmp -s "$tmp/one" "$tmp/two" || bad "mpirun -np 2 prints other bytes than one process: $(diff "$tmp/one" "$tmp/two" | head -n 5)"
[ -s "$tmp/err2" ] && bad "mpirun -np 2 wrote to stderr: $(head -n 3 "$tmp/err2")"
mpi 3 "$P" sweep "$tmp/grid.json" --json --threads 1 >"$tmp/three" 2>"$tmp/err3" || bad "mpirun -np 3 failed: $(cat "$tmp/err3")"
cmp -s "$tmp/one" "$tmp/three" || bad "mpirun -np 3 prints other bytes than one process"
# the table and the report, merged on rank 0
$P sweep "$tmp/grid.json" --report "$tmp/r1.html" >"$tmp/t1" 2>&1 || bad "sweep --report failed"
mpi 2 "$P" sweep "$tmp/grid.json" --report "$tmp/r2.html" >"$tmp/t2" 2>&1 || bad "mpirun -np 2 sweep --report failed: $(cat "$tmp/t2")"
cmp -s "$tmp/t1" "$tmp/t2" || bad "mpirun -np 2: the table differs"
cmp -s "$tmp/r1.html" "$tmp/r2.html" || bad "mpirun -np 2: the report differs"
# the serving grid: -np 2 and 3 against one process, the JSON and the report
cat >"$tmp/sgrid.json" <<'JSON'
{"command": "serve", "models": ["llama3-8b", "mpt-7b"], "clusters": ["dgx-h100", "dgx-a100-80g"],
 "gpus": [8, 32], "isl": [512, 2048], "osl": [16], "rate": [100, 400, 1600], "ttft_ms": [1000], "tpot_ms": [40]}
JSON
$P sweep "$tmp/sgrid.json" --json --report "$tmp/sr1.html" >"$tmp/sone" 2>"$tmp/err" || bad "serve sweep failed: $(cat "$tmp/err")"
grep -q '^  "questions": 48,$' "$tmp/sone" || bad "the serving grid is not 48 questions: $(head -n 2 "$tmp/sone")"
grep -q '"meets_slo": false' "$tmp/sone" && grep -q '"meets_slo": true' "$tmp/sone" ||
    bad "the serving grid has not both answers that meet the objective and answers that miss it"
mpi 2 "$P" sweep "$tmp/sgrid.json" --json >"$tmp/stwo" 2>"$tmp/err2" || bad "serve: mpirun -np 2 failed: $(cat "$tmp/err2")"
cmp -s "$tmp/sone" "$tmp/stwo" || bad "serve: mpirun -np 2 prints other bytes than one process: $(diff "$tmp/sone" "$tmp/stwo" | head -n 5)"
[ -s "$tmp/err2" ] && bad "serve: mpirun -np 2 wrote to stderr: $(head -n 3 "$tmp/err2")"
mpi 3 "$P" sweep "$tmp/sgrid.json" --json --report "$tmp/sr3.html" >"$tmp/sthree" 2>"$tmp/err3" ||
    bad "serve: mpirun -np 3 failed: $(cat "$tmp/err3")"
cmp -s "$tmp/sone" "$tmp/sthree" || bad "serve: mpirun -np 3 prints other bytes than one process"
cmp -s "$tmp/sr1.html" "$tmp/sr3.html" || bad "serve: mpirun -np 3: the report differs"
# a bad grid under MPI: exit 2, the message once (rank 0)
printf '{"models": ["llama3-8b"], "clusters": ["dgx-h100"], "gpus": [12], "global_batch": [64]}\n' >"$tmp/bad.json"
mpi 2 "$P" sweep "$tmp/bad.json" >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc -ne 0 ] || bad "mpirun -np 2 with a bad grid: exit 0"
[ "$(grep -c 'gpus\[0\]: 12 does not fit' "$tmp/e")" -eq 1 ] || bad "mpirun -np 2 with a bad grid: the message not once: $(cat "$tmp/e")"
exit $fail
