#!/bin/sh
# End-to-end `partita validate` on a time-to-train CSV (SPEC section 6): the
# shipped three MLPerf rows (ResNet-50, GNMT, Transformer-big on DGX-1) are
# predicted, time to train and epochs each; on the full file (data/validation) every
# MLPerf V100 row of the three workloads is predicted, and the A100 and H100
# rows too, each with its round's recipe; rows on H100 and GB200 are priced on their
# catalog devices, TPU rows are skipped as not in the catalog; `scale` prices
# a layer graph on an A100 cluster faster than on a V100 one.
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
assert len(t) >= 35, len(t)
# the three MLPerf v0.7 DGX A100 rows (lines 98-100): priced on the A100,
# ResNet-50 with the v0.7 recipe, each within 25% (the issue's held-back bound)
a = [r for r in t if "a100-sxm4-40g" in r["strategy"] and r["line"] <= 101]
assert sorted(r["line"] for r in a) == [98, 99, 100], [r["line"] for r in a]
for r in a:
    assert r["line"] == 100 or "MLPerf v0.7" in r["strategy"], r["strategy"]
    assert abs(r["error"]) < 0.25, (r["line"], r["error"])
# lines 102-108, DGX A100 runs of v0.7 and v1.0 (SSD and ResNet-50) added
# later: all priced on an A100, their epochs within 10% (nothing fitted)
e = {r["line"]: r for r in j["rows"] if r.get("metric") == "epochs_to_target" and "predicted" in r}
for line in range(102, 109):
    r = [x for x in t if x["line"] == line]
    assert len(r) == 1 and "a100-sxm4" in r[0]["strategy"], (line, r)
    assert abs(e[line]["error"]) < 0.10, (line, e[line]["error"])
# the MLPerf v3.0 DGX H100 row (line 101) is priced on the H100 with the v1.0+ recipe
h = [r for r in t if r["line"] == 101]
assert len(h) == 1 and "h100-sxm-80g" in h[0]["strategy"] and "v1.0+" in h[0]["strategy"], h
s = [r for r in j["rows"] if r.get("metric") == "time_to_train_min" and "skipped" in r]
assert not any("V100 rows only" in r["skipped"] for r in s)
PY
# the same ResNet-50 run (MLPerf v3.0 rules, 8 devices, B = 3264) on an A100
# and an H100, and a GB200 NVL72 rack: each priced on its catalog device with
# the v1.0+ recipe (35.32 (1 + 3264 / 48932) = 37.68 epochs at 3264), faster
# on the newer part; the GB200 row's source names no log, so its round comes
# from its system ("MLPerf v4.1"); a TPU row is skipped, saying why
h='source,workload,target,system,accelerator,n_accel,global_batch,epochs_to_target,steps_to_target,time_to_train_min,notes'
{
    echo "$h"
    echo 'mlcommons/training_results_v3.0: a,ResNet-50 v1.5 / ImageNet,top-1 75.9%,MLPerf v3.0 NVIDIA dgxa100,NVIDIA A100-SXM4-80GB,8,3264,,,30,opt=lars'
    echo 'mlcommons/training_results_v3.0: h,ResNet-50 v1.5 / ImageNet,top-1 75.9%,MLPerf v3.0 NVIDIA dgxh100,NVIDIA H100-SXM5-80GB,8,3264,,,13.466,opt=lars'
    echo 'mlcommons results table (no log path): g,ResNet-50 v1.5 / ImageNet,top-1 75.9%,MLPerf v4.1 NVIDIA gb200,NVIDIA GB200,72,9216,,,3,opt=lars'
    echo 'mlcommons/training_results_v1.0: t,ResNet-50 v1.5 / ImageNet,top-1 75.9%,MLPerf v1.0 Google tpu-v4-128,TPU v4,64,4096,,,10,opt=lars'
} >"$tmp/new.csv"
$P validate "$tmp/new.csv" --json >"$tmp/n" 2>"$tmp/err" || bad "validate new-device rows failed: $(cat "$tmp/err")"
python3 - "$tmp/n" <<'PY' || bad "new-device rows: not priced as expected"
import json, sys
rows = {r["line"]: r for r in json.load(open(sys.argv[1]))["rows"] if r["metric"] == "time_to_train_min"}
for line, dev in ((2, "a100-sxm4-80g"), (3, "h100-sxm-80g"), (4, "gb200")):
    r = rows[line]
    assert "predicted" in r and dev in r["strategy"] and "v1.0+" in r["strategy"], r
assert rows[3]["predicted"] < 0.75 * rows[2]["predicted"], (rows[2]["predicted"], rows[3]["predicted"])
assert "not in the catalog" in rows[5]["skipped"], rows[5]
PY
# scale: resnet-50 data parallel on 8 A100 against 8 V100
$P scale resnet-50 --cluster dgx-1-v100 --max-gpus 8 --ilp-nodes 1 --json >"$tmp/sv" 2>"$tmp/err" ||
    bad "scale resnet-50 on V100 failed: $(cat "$tmp/err")"
$P scale resnet-50 --cluster dgx-a100-40g --max-gpus 8 --ilp-nodes 1 --json >"$tmp/sa" 2>"$tmp/err" ||
    bad "scale resnet-50 on A100 failed: $(cat "$tmp/err")"
python3 - "$tmp/sv" "$tmp/sa" <<'PY' || bad "scale: A100 not faster than V100 at 8 GPUs"
import json, sys
v, a = (json.load(open(f)) for f in sys.argv[1:3])
tv = [p["dp_time_s"] for p in v["points"] if p["gpus"] == 8][0]
ta = [p["dp_time_s"] for p in a["points"] if p["gpus"] == 8][0]
assert a["device"] == "a100-sxm4-40g" and ta < 0.7 * tv, (tv, ta)
PY
exit $fail
