#!/bin/sh
# End-to-end `partita calibrate` (SPEC section 7).  One public group of runs:
# Megatron-LM's weak-scaling table on H100 (data/validation/published_runs.csv
# lines 132-140, GPT 1.7B on 48 GPUs to 462B on 6144).  Calibrating on three
# of its rows -- the fastest, median and slowest measured step (lines 132,
# 136, 140) -- must write a cluster file that `eval --cluster my.json`
# accepts, and the six other rows must then be predicted within 8% mean.
# Each of those is priced by eval on dgx-h100 and on my.json with the row's
# own model (a GPT-2 config.json of its shape), strategy and sequence length;
# the calibrated prediction of the row's metric is validate's zero-shot one
# scaled by the ratio of the two steps (tflops per GPU is inversely
# proportional to the step), so eval's own pricing of my.json is what is
# measured.  The fit is cross-validated: on these rows leaving one out and
# fitting the other two predicts it worse than the catalog does, so nothing
# is fitted.  The same nine rows as a stack 15% slower than the catalog's
# (every throughput / 1.15, a user's older software) must be learned: a
# constant fitted, the six others then within 8%.  Then: the JSON, --nccl
# with tests/data/nccl/, --prior, a time-to-train CSV, bad input (exit 2
# naming file, line, field and value) and --help.
. "$(dirname "$0")/lib/common.sh" || exit 1
runs=data/validation/published_runs.csv
sed -n '1p;132p;136p;140p' "$runs" >"$tmp/three.csv"
sed -n '1p;133,135p;137,139p' "$runs" >"$tmp/rest.csv"
[ "$(grep -c 'Megatron weak-scaling' "$tmp/three.csv")" -eq 3 ] || bad "published lines 132/136/140 are no longer the weak-scaling rows"
[ "$(grep -c 'Megatron weak-scaling' "$tmp/rest.csv")" -eq 6 ] || bad "published lines 133-139 are no longer the weak-scaling rows"

python3 - "$tmp" <<'PY' || bad "cannot write the slower stack's rows"
import csv, sys
tmp = sys.argv[1]
for name in ("three", "rest"):
    rows = list(csv.reader(open("%s/%s.csv" % (tmp, name))))
    k = rows[0].index("measured_value")
    for r in rows[1:]:
        r[k] = "%.6g" % (float(r[k]) / 1.15)
    csv.writer(open("%s/slow-%s.csv" % (tmp, name), "w", newline="")).writerows(rows)
PY

$P calibrate "$tmp/three.csv" --cluster dgx-h100 --out "$tmp/my.json" >"$tmp/cal.out" 2>"$tmp/cal.err" ||
    bad "calibrate: exit $?: $(cat "$tmp/cal.err")"
grep -q '^calibrate: 3 rows of .* on h100-sxm-80g (cluster dgx-h100)$' "$tmp/cal.out" || bad "no summary line: $(cat "$tmp/cal.out")"
grep -q '^cross-validation (leave-one-out, 3 folds): rms log error of the rows left out, [0-9.]*% fitting 0, [0-9.]*% fitting 1, [0-9.]*% fitting 2: fits 0 ' "$tmp/cal.out" ||
    bad "no cross-validation line fitting nothing: $(cat "$tmp/cal.out")"
grep -q '^gemm_eff .* held: fitting it predicted the rows left out worse$' "$tmp/cal.out" || bad "gemm_eff not held by the cross-validation: $(cat "$tmp/cal.out")"
grep -q '^degrees of freedom: 3 rows - 0 fitted = 3' "$tmp/cal.out" || bad "no degrees of freedom: $(cat "$tmp/cal.out")"
grep -q '^rms log error: before' "$tmp/cal.out" || bad "no residual summary"
[ -s "$tmp/my.json" ] || bad "no cluster file written"
$P calibrate "$tmp/slow-three.csv" --cluster dgx-h100 --out "$tmp/slow.json" >"$tmp/slow.out" 2>&1 ||
    bad "calibrate (slower stack): exit $?: $(cat "$tmp/slow.out")"
grep -q '^cross-validation .*: fits [12] ' "$tmp/slow.out" || bad "the slower stack is not learned: $(cat "$tmp/slow.out")"
grep -q '^gemm_eff .* fitted$' "$tmp/slow.out" || bad "the slower stack: gemm_eff not fitted: $(cat "$tmp/slow.out")"
# the written device's constants are fitted to runs of its own generation:
# eval on it carries no "not fitted" note, and its JSON says so
$P eval llama3-70b --cluster "$tmp/my.json" --gpus 64 --strategy "tp=8 pp=2" --global-batch 128 >"$tmp/ev.out" ||
    bad "eval --cluster my.json: exit $?"
grep -q '^note: .*not fitted' "$tmp/ev.out" && bad "a calibrated device is still called unfitted"
$P eval llama3-70b --cluster "$tmp/my.json" --gpus 64 --strategy "tp=8 pp=2" --global-batch 128 --json |
    python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["device_constants_fitted"] is True and j["device_fitted_on"] == j["device_generation"] == "hopper", j' ||
    bad "eval --json on a calibrated file does not say its constants are fitted on hopper"

for run in ":my.json:rest.csv" "slow-:slow.json:slow-rest.csv"; do
    label=${run%%:*} rest=${run##*:} file=${run#*:}; file=${file%%:*}
    python3 - "$P" "$tmp" "$file" "$rest" "$([ -n "$label" ] && echo "a stack 15% slower" || echo published)" <<'PY' || fail=1
import csv, json, subprocess, sys
P, tmp, cal, rest, label = sys.argv[1:6]
def run(*args):
    r = subprocess.run([P] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        print("calibrate.sh: %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
        sys.exit(1)
    return r.stdout
zero = json.loads(run("validate", tmp + "/" + rest, "--json"))["rows"]
rows = list(csv.DictReader(open(tmp + "/" + rest)))
errs = []
for i, (r, z) in enumerate(zip(rows, zero)):
    cfg = "%s/m%d.json" % (tmp, i)
    json.dump({"model_type": "gpt2", "n_embd": int(r["hidden"]), "n_layer": int(r["layers"]),
               "n_head": int(r["heads"]), "n_inner": int(r["ffn_hidden"] or 4 * int(r["hidden"])), "n_positions": int(r["seq_len"]),
               "vocab_size": int(r["vocab"] or 51200)}, open(cfg, "w"))
    st = "tp=%s pp=%s mbs=%s gbs=%s sp=%d" % (r["tp"], r["pp"], r["micro_batch"] or 1, r["global_batch"],
                                              1 if r["seq_parallel"] == "yes" else 0)
    steps = []
    for c in ("dgx-h100", tmp + "/" + cal):
        out = json.loads(run("eval", cfg, "--cluster", c, "--gpus", r["n_gpus"], "--strategy", st,
                             "--seq-len", r["seq_len"], "--json"))
        steps.append(out["step_time_s"])
    assert r["measured_metric"] == "tflops_per_gpu"
    pred = z["predicted"] * steps[0] / steps[1]
    errs.append(pred / float(r["measured_value"]) - 1)
mean = sum(abs(e) for e in errs) / len(errs)
print("calibrate.sh: 6 held-out weak-scaling rows (%s): mean |error| %.1f%% calibrated (zero-shot %.1f%%): %s" %
      (label, 100 * mean, 100 * sum(abs(z["error"]) for z in zero) / len(zero), " ".join("%+.1f%%" % (100 * e) for e in errs)))
if not mean <= 0.08:
    print("calibrate.sh: held-out mean |error| %.1f%% > 8%%" % (100 * mean))
    sys.exit(1)
PY
done

# plan takes the file too
$P plan llama3-8b --cluster "$tmp/my.json" --gpus 16 --global-batch 64 --top 1 >"$tmp/p.out" 2>&1 ||
    bad "plan does not accept the calibrated cluster file: $(cat "$tmp/p.out")"
grep -q 'dgx-h100-calibrated' "$tmp/p.out" || bad "plan does not name the calibrated cluster: $(cat "$tmp/p.out")"

# --json: the same fit as one object (the slower stack's: one constant fitted)
$P calibrate "$tmp/slow-three.csv" --cluster dgx-h100 --out "$tmp/my2.json" --json >"$tmp/j.out" || bad "calibrate --json: exit $?"
python3 - "$tmp/j.out" <<'PY' || bad "calibrate --json is not the documented object"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["device"] == "h100-sxm-80g" and j["rows_fitted"] == 3, j
names = [p["name"] for p in j["parameters"]]
assert names[:4] == ["gemm_eff", "attn_eff", "mem_eff", "kernel_us"], names
fitted = [p for p in j["parameters"] if p["state"] == "fitted"]
cv = j["cross_validation"]
assert cv["folds"] == 3 and len(cv["rms_log_error_left_out"]) == 3 and cv["fitted"] == len(fitted), cv
assert 1 <= len(fitted) <= 2 and j["fitted"] == len(fitted), j["parameters"]
assert cv["rms_log_error_left_out"][len(fitted)] < cv["rms_log_error_left_out"][0], cv
assert j["degrees_of_freedom"] == 3 - len(fitted)
for p in j["parameters"]:
    assert p["state"] in ("fitted", "held_weak", "held_dof", "held_bound", "held_given", "held_cv"), p
    if p["state"] != "fitted":
        assert p["se"] is None, p
assert len(j["rows"]) == 3 and all(set(r) >= {"line", "measured_step_s", "predicted_before_s", "predicted_after_s"}
                                   for r in j["rows"])
assert j["rms_log_error_after"] < j["rms_log_error_before"]
PY
cmp -s "$tmp/slow.json" "$tmp/my2.json" || bad "--json wrote a different cluster file"

# --nccl: the level each table spans is measured there and held in the fit
$P calibrate "$tmp/three.csv" --cluster dgx-h100 --out "$tmp/n.json" \
    --nccl tests/data/nccl/all_reduce_perf_8xh100.txt --nccl=tests/data/nccl/all_gather_perf_16xh100.txt \
    >"$tmp/n.out" 2>&1 || bad "calibrate --nccl: exit $?: $(cat "$tmp/n.out")"
grep -q '^nccl-tests tests/data/nccl/all_reduce_perf_8xh100.txt: level nvlink: large-message busbw 359.2 GB/s, efficiency 0.80' "$tmp/n.out" ||
    bad "--nccl: no nvlink line: $(cat "$tmp/n.out")"
grep -q '^ib.efficiency .* held: given' "$tmp/n.out" || bad "--nccl: ib not held as given: $(cat "$tmp/n.out")"
$P eval llama3-8b --cluster "$tmp/n.json" --gpus 16 --strategy "tp=2" --global-batch 64 >/dev/null 2>&1 ||
    bad "eval does not accept the --nccl cluster file"

# a time-to-train CSV: E_min and B_noise, and the file scale --stat-eff takes
cat >"$tmp/ttt.csv" <<'EOF'
source,workload,target,system,accelerator,n_accel,global_batch,epochs_to_target,steps_to_target,time_to_train_min,notes
me,ResNet-50 v1.5 / ImageNet,top-1 75.9%,my cluster,H100,8,2048,40.5,,60,
me,ResNet-50 v1.5 / ImageNet,top-1 75.9%,my cluster,H100,16,4096,41.6,,35,
me,ResNet-50 v1.5 / ImageNet,top-1 75.9%,my cluster,H100,32,8192,44.9,,20,
me,ResNet-50 v1.5 / ImageNet,top-1 75.9%,my cluster,H100,64,16384,50.1,,12,
EOF
$P calibrate "$tmp/ttt.csv" --out "$tmp/se.csv" >"$tmp/t.out" 2>&1 || bad "calibrate ttt: exit $?: $(cat "$tmp/t.out")"
grep -q '^e_min .* fitted$' "$tmp/t.out" || bad "ttt: e_min not fitted: $(cat "$tmp/t.out")"
grep -q '^b_noise .* fitted$' "$tmp/t.out" || bad "ttt: b_noise not fitted: $(cat "$tmp/t.out")"
[ "$(head -n 1 "$tmp/se.csv")" = "batch,epochs" ] || bad "ttt: the --stat-eff file lacks its header"
$P scale resnet-50 --cluster dgx-h100 --max-gpus 64 --stat-eff "$tmp/se.csv" >/dev/null 2>&1 ||
    bad "scale does not accept the file calibrate wrote"

# two workloads: --workload chooses; without it, refused
{ cat "$tmp/ttt.csv"; echo 'me,GNMT / WMT16 En-De,BLEU 24.0,my cluster,H100,8,1024,3.0,,10,'; } >"$tmp/ttt2.csv"
refused_saying 'choose one with --workload' $P calibrate "$tmp/ttt2.csv" --out "$tmp/x.csv"
$P calibrate "$tmp/ttt2.csv" --workload ResNet --out "$tmp/se2.csv" >/dev/null 2>&1 || bad "--workload ResNet: exit $?"
cmp -s "$tmp/se.csv" "$tmp/se2.csv" || bad "--workload ResNet fitted other rows than the ResNet-only CSV"

# --prior: the same three rows, a maximum a posteriori fit pulled towards
# the catalog's constants: it says so, it lies nearer the catalog in the
# prior's own measure than the plain fit does (the MAP minimises rows' misfit
# plus that measure, the plain fit the misfit alone, so its measure can be
# no larger; one value need not lie between the two fits when the fitted
# constants trade off, or the plain fit holds one at a bound), and the file
# it writes is one eval accepts
$P calibrate "$tmp/slow-three.csv" --cluster dgx-h100 --out "$tmp/myp.json" --prior >"$tmp/p.out" 2>&1 ||
    bad "calibrate --prior: exit $?: $(cat "$tmp/p.out")"
grep -q '^prior: ln(efficiency) ~ N(ln default, 0.25)' "$tmp/p.out" || bad "--prior does not say its prior: $(cat "$tmp/p.out")"
python3 - "$tmp/slow.out" "$tmp/p.out" <<'PY' || bad "--prior: the prior fit is no nearer the catalog's constants than the plain fit"
import math, sys
def fits(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 4 and (line.rstrip().endswith("fitted") or "held at its bound" in line) and "." in f[1]:
            out[f[0]] = (float(f[1]), float(f[2]))
    return out
def measure(fit):
    # (ln(value/default)/sd)^2 summed, sd 0.25 for the device's constants, 0.35 for a level's
    return sum((math.log(v / d) / (0.35 if k.endswith(".efficiency") else 0.25)) ** 2
               for k, (d, v) in fit.items() if k != "kernel_us")
plain, prior = fits(sys.argv[1]), fits(sys.argv[2])
assert prior, prior
assert measure(prior) <= measure(plain) + 1e-6, (measure(prior), measure(plain), prior, plain)
PY
$P eval llama3-70b --cluster "$tmp/myp.json" --gpus 64 --strategy "tp=8 pp=2" --global-batch 128 >/dev/null 2>&1 ||
    bad "eval --cluster myp.json (calibrate --prior): exit $?"
$P calibrate "$tmp/three.csv" --cluster dgx-h100 --out "$tmp/myp2.json" --prior --json |
    python3 -c 'import json,sys; j=json.load(sys.stdin); p={q["name"]: q for q in j["parameters"]}; assert p["gemm_eff"]["prior_sd"] == 0.25 and p["ib.efficiency"]["prior_sd"] == 0.35 and "prior_sd" not in p["kernel_us"], p' ||
    bad "calibrate --prior --json does not give each efficiency its prior_sd"
$P calibrate "$tmp/three.csv" --cluster dgx-h100 --out "$tmp/myp3.json" --json |
    python3 -c 'import json,sys; j=json.load(sys.stdin); assert all("prior_sd" not in q for q in j["parameters"])' ||
    bad "calibrate --json without --prior gives a prior_sd"
refused_saying 'prior applies to a runs CSV only' $P calibrate "$tmp/ttt.csv" --out "$tmp/x.csv" --prior

# bad input: file, line, field and value; exit 2, nothing written
sed -n '1,2p' "$runs" >"$tmp/bad.csv"
refused_saying 'no priced step-time row on the cluster' $P calibrate "$tmp/bad.csv" --cluster dgx-h100 --out "$tmp/x.json"
printf '# nThread 1 nGpus 8\n        1024           256     float     sum      -1    fast    0.05    0.10      0    20.0    0.05    0.10      0\n' >"$tmp/bad.txt"
refused_saying "bad.txt:2:[0-9]*: .*time.*fast" $P calibrate "$tmp/three.csv" --cluster dgx-h100 --out "$tmp/x.json" --nccl "$tmp/bad.txt"
printf 'source,workload,target,global_batch,epochs_to_target\nme,W,t,1024,many\n' >"$tmp/badt.csv"
refused_saying "badt.csv:2:5: .*epochs_to_target.*many" $P calibrate "$tmp/badt.csv" --out "$tmp/x.csv"
refused_saying 'out FILE.json is required' $P calibrate "$tmp/three.csv" --cluster dgx-h100
refused_saying 'cluster C is required' $P calibrate "$tmp/three.csv" --out "$tmp/x.json"
refused $P calibrate "$tmp/three.csv" --cluster dgx-h100 --out "$tmp/x.json" --bogus
refused $P calibrate "$tmp/three.csv" "$tmp/rest.csv" --cluster dgx-h100 --out "$tmp/x.json"
[ -e "$tmp/x.json" ] && bad "a refused calibrate wrote its output"

# --help
$P calibrate --help >"$tmp/h" 2>&1 || bad "calibrate --help: exit $?"
for o in --cluster --out --nccl --prior --json; do grep -q -- "$o" "$tmp/h" || bad "--help lacks $o"; done
exit $fail
