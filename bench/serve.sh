#!/bin/sh
# bench/serve.sh BUILD -- the serving model's accuracy (`make bench` runs it
# from bench/run.sh): `BUILD/partita validate data/validation/inference_runs.csv
# --json`, digested by python3 (standard library only): mean and worst
# |error| by GPU and by engine release, and on the FIT half (even CSV lines,
# the rows tools/fit_infer.sh fits the engine constants of src/cost/infer.c
# to) against the HELD-OUT half (odd lines).  Then the time one `partita
# serve` search takes.  Never fails on time; fails when validate refuses the
# CSV.
set -u
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
echo "== serving accuracy (validate data/validation/inference_runs.csv) =="
if ! command -v python3 >/dev/null 2>&1; then
    "$BUILD/partita" validate data/validation/inference_runs.csv | tail -3 || exit 1
    exit 0
fi
out=$("$BUILD/partita" validate data/validation/inference_runs.csv --json) || exit 1
printf '%s\n' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
rows = [r for r in j["rows"] if "predicted" in r]
def field(r, k):
    for w in r["strategy"].split():
        if w.startswith(k + "="):
            return w[len(k) + 1:]
    return "?"
def line(name, v):
    e = [abs(r["error"]) for r in v]
    if e:
        print("  %-34s %4d rows  mean |error| %5.1f%%  worst %5.1f%%" % (name, len(e), 100 * sum(e) / len(e), 100 * max(e)))
for key in ("gpu", "engine"):
    print(" by %s:" % key)
    for name in sorted({field(r, key) for r in rows}):
        line(name, [r for r in rows if field(r, key) == name])
print(" by metric:")
for m in sorted({r["metric"] for r in rows}):
    line(m, [r for r in rows if r["metric"] == m])
print(" fit against held out (tools/fit_infer.sh fits the even lines):")
line("fit half (even lines)", [r for r in rows if r["line"] % 2 == 0])
line("held-out half (odd lines)", [r for r in rows if r["line"] % 2 == 1])
line("all", rows)
print("  skipped: %d (%s)" % (j["skipped_rows"], "; ".join(sorted({r["skipped"] for r in j["rows"] if "skipped" in r}))))
'
echo
echo "== serve search time =="
t0=$(date +%s.%N)
"$BUILD/partita" serve deepseek-r1 --cluster gb200-nvl72 --gpus 72 --isl 8192 --osl 1024 --dtype fp8 >/dev/null || exit 1
t1=$(date +%s.%N)
python3 -c "import sys; print('  deepseek-r1 on 72 GB200, 8K in / 1K out: %.2f s' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$t1"
