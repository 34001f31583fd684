#!/bin/sh
# End-to-end `partita validate` on a time-to-train CSV (SPEC section 6): the
# shipped three MLPerf rows (ResNet-50, GNMT, Transformer-big on DGX-1) are
# predicted, time to train and epochs each; on the full file (data/validation) every
# MLPerf V100 row of the three workloads is predicted.
. "$(dirname "$0")/lib/common.sh" || exit 1

$P validate tests/data/ttt_small.csv --json >"$tmp/s" 2>"$tmp/err" || bad "validate ttt_small failed: $(cat "$tmp/err")"
python3 - "$tmp/s" <<'PY' || bad "ttt_small: not 3 time-to-train and 3 epochs rows"
import json, sys
j = json.load(open(sys.argv[1]))
m = [r["metric"] for r in j["rows"] if "predicted" in r]
assert m.count("time_to_train_min") == 3 and m.count("epochs_to_target") == 3, m
assert all(r["predicted"] > 0 for r in j["rows"] if "predicted" in r)
PY
# the text ends with a line per metric, not the step-time and memory lines
$P validate tests/data/ttt_small.csv >"$tmp/t" 2>"$tmp/err" || bad "validate ttt_small (text) failed: $(cat "$tmp/err")"
grep -q "^time to train:    3 rows, mean |error|" "$tmp/t" || bad "no time-to-train summary: $(tail -3 "$tmp/t")"
grep -q "^epochs to target: 3 rows, mean |error|" "$tmp/t" || bad "no epochs summary: $(tail -3 "$tmp/t")"
grep -q "^step time / throughput" "$tmp/t" && bad "time-to-train rows summarised as step times"
full=data/validation/time_to_train_runs.csv
    $P validate "$full" --json >"$tmp/f" 2>"$tmp/err" || bad "validate time_to_train_runs failed: $(cat "$tmp/err")"
    python3 - "$tmp/f" <<'PY' || bad "time_to_train_runs: fewer than 31 MLPerf V100 rows predicted"
import json, sys
j = json.load(open(sys.argv[1]))
t = [r for r in j["rows"] if r.get("metric") == "time_to_train_min" and "predicted" in r]
assert len(t) >= 31, len(t)
PY
exit $fail
