#!/bin/sh
# End-to-end under valgrind: a handful of commands (eval with a simulated step
# and a trace, a small plan, validate, the catalogs, bad input) must run with
# no memory error and no definite leak.  Skipped, saying so, where valgrind is
# not installed; under `make asan` (BUILD=build-asan) it is left to ASan, which
# does not run under valgrind.  About 30 s on the project's 2-core machine.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
P=$BUILD/partita
if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind.sh: valgrind is not installed; skipped (apt-get install valgrind)"
    exit 0
fi
case "$BUILD" in
*asan*) echo "valgrind.sh: $BUILD is built with ASan; skipped"; exit 0 ;;
esac
fail=0
bad() { echo "valgrind.sh: $*"; fail=1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# vg NAME WANT_STATUS CMD...: CMD under valgrind exits WANT_STATUS; a memory
# error or a definite leak makes valgrind exit 1 and print its report.
vg() {
    name=$1
    want=$2
    shift 2
    valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
        --log-file="$tmp/vg.log" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ -s "$tmp/vg.log" ]; then
        bad "$name: valgrind reports:"
        cat "$tmp/vg.log"
    elif [ "$rc" -ne "$want" ]; then
        bad "$name: exit $rc, want $want: $(head -n 3 "$tmp/err")"
    fi
}

cat >"$tmp/bad_cluster.json" <<'JSON'
{"name": "x", "device": "h100-sxm-80g", "devices": 16,
 "levels": [{"name": "nvlink", "size": 8, "bw_GBps": 450, "colour": "red"},
            {"name": "ib", "size": 16, "bw_GBps": 50}]}
JSON

vg "eval --simulate --trace" 0 "$P" eval llama3-8b --cluster dgx-h100 --gpus 64 --seq-len 4096 \
    --global-batch 512 --strategy "tp=2 pp=2 mbs=1" --simulate --json --trace "$tmp/t.json"
vg "eval of a config.json" 0 "$P" eval tests/data/hf/qwen2-0.5b.json --cluster dgx-a100-80g \
    --gpus 8 --global-batch 64 --strategy "tp=2"
vg "plan, small" 0 "$P" plan llama3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 \
    --seq-len 2048 --space "tp=1,2,4 pp=1,2 cp=1" --top 3 --threads 2 --explain
vg "plan --export --out" 0 "$P" plan llama3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 \
    --seq-len 2048 --fix "tp=2 pp=2 cp=1" --export deepspeed --out "$tmp/ds.json"
vg "validate" 0 "$P" validate tests/data/runs_small.csv --json
vg "models" 0 "$P" models
vg "clusters" 0 "$P" clusters
vg "bad cluster file" 2 "$P" eval llama3-8b --cluster "$tmp/bad_cluster.json" \
    --global-batch 512 --strategy "tp=1"
vg "bad strategy" 2 "$P" eval llama3-8b --cluster dgx-h100 --global-batch 512 \
    --strategy "tp=3 foo=1"
vg "missing file" 2 "$P" validate "$tmp/none.csv"
exit $fail
