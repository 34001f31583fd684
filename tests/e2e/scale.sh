#!/bin/sh
# End-to-end `partita scale`: the JSON keys the issue names, time to train =
# steps x step time at every point, the same bytes twice, the SVG well
# formed and written whole, and bad input refused with exit status 2.
. "$(dirname "$0")/lib/common.sh" || exit 1

$P scale gnmt --cluster dgx-1-v100 --max-gpus 64 --json >"$tmp/a" 2>"$tmp/err" || bad "scale gnmt failed: $(cat "$tmp/err")"
$P scale gnmt --cluster dgx-1-v100 --max-gpus 64 --json >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b" || bad "two runs differ"
python3 - "$tmp/a" <<'PY' || bad "scale gnmt: JSON not as specified"
import json, sys
j = json.load(open(sys.argv[1]))
pts = j["points"]
assert [p["gpus"] for p in pts] == [1, 2, 4, 8, 16, 32, 64], [p["gpus"] for p in pts]
assert "crossover_gpus" in j and "hybrid_gain_at_scale" in j
for p in pts:
    for k in ("dp", "hybrid"):
        c = p[k]
        if c is None:
            continue
        assert abs(c["time_to_train_s"] - c["steps"] * c["step_time_s"]) <= 1e-4 * c["time_to_train_s"]
        assert c["dp"] * c["mp"] == p["gpus"]
    if p["hybrid"] is not None:
        assert p["hybrid_time_s"] == p["hybrid"]["time_to_train_s"] and p["hybrid_strategy"]
assert pts[0]["hybrid"] is None and pts[0]["dp"] is not None
best = min(p["dp_time_s"] for p in pts if p["dp_time_s"])
assert abs(j["best_dp_time_s"] - best) <= 1e-4 * best
mp = j["model_parallel"]
assert [m["devices"] for m in mp] == [2, 4, 8] and all(m["speedup"] > 1 for m in mp)
for m in mp:
    assert m["integer_program"] in ("proven", "too large", "time limit", "node budget"), m
    assert (m["integer_program"] == "proven") == m["proven_optimal"], m
    assert m["integer_program"] != "too large" or m["groups"] > 32, m
PY

# the table and the picture
$P scale biglstm --cluster dgx-1-v100 --max-gpus 16 --stat-eff tests/data/statef/small_cnn.csv \
    --svg "$tmp/s.svg" >"$tmp/t" 2>"$tmp/err" || bad "scale biglstm --svg failed: $(cat "$tmp/err")"
grep -q "hybrid gain at scale" "$tmp/t" || bad "table lacks the gain"
grep -q "proven optimal" "$tmp/t" || bad "biglstm's placements are not proven"
python3 -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" "$tmp/s.svg" || bad "SVG is not well formed"
grep -q "<polyline" "$tmp/s.svg" || bad "SVG has no curve"
ls "$tmp" | grep -q '\.tmp' && bad "a temporary file was left behind"

# bad input: exit status 2 and a message naming what is wrong
refused $P scale gnmt --cluster dgx-1-v100
refused $P scale gnmt --max-gpus 8
refused $P scale gnmt --cluster dgx-1-v100 --max-gpus 0
refused $P scale llama3-8b --cluster dgx-1-v100 --max-gpus 8
grep -q "time-to-train" "$tmp/e" || bad "a transformer name is not pointed at plan --objective time-to-train"
refused $P scale gnmt --cluster dgx-1-v100 --max-gpus 8 --stat-eff tests/data/statef/bad.csv
grep -q "bad.csv:3" "$tmp/e" || bad "the bad stat-eff row is not located: $(cat "$tmp/e")"
refused $P scale gnmt --cluster dgx-1-v100 --max-gpus 8 --stat-eff "$tmp/none.csv"
refused $P scale gnmt --cluster dgx-1-v100 --max-gpus 8 --frobnicate
exit $fail
