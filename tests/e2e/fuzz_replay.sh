#!/bin/sh
# Replays, through each fuzz harness built without libFuzzer (fuzz/replay.c),
# every input the fuzzers kept in fuzz/corpus/NAME/ and the hand-written seeds
# in fuzz/seeds/NAME/: an input that once crashed, hung or broke an invariant
# stays a test (under `make asan` with ASan + UBSan).  `make fuzz` finds more.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
fail=0
for n in hf cluster strategy space csv graph statef; do
    bin=$BUILD/fuzz/replay_$n
    if [ ! -x "$bin" ]; then
        echo "fuzz_replay.sh: $bin is not built (make test builds it)"
        fail=1
        continue
    fi
    set --
    for d in fuzz/corpus/$n fuzz/seeds/$n; do
        [ -d "$d" ] && set -- "$@" "$d"
    done
    if [ $# -eq 0 ]; then
        echo "fuzz_replay.sh: no fuzz/corpus/$n or fuzz/seeds/$n"
        fail=1
        continue
    fi
    "$bin" "$@" || { echo "fuzz_replay.sh: $n failed"; fail=1; }
done
exit $fail
