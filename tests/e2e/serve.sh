#!/bin/sh
# End-to-end `partita serve` and `partita validate` on an inference-runs CSV
# (SPEC section 8, issue 16): validate predicts at least 60 rows of
# data/validation/inference_runs.csv within 15% mean error; the vLLM export
# of the "Done when" example carries the first plan's tensor-parallel size
# and only real vLLM flags; the three exports match their golden files
# (tests/golden/serve/; UPDATE_GOLDEN=1 rewrites them); the JSON has the
# SPEC 8 keys; the same bytes twice; objectives nothing meets answer
# "nothing meets the objectives; the closest is ..." with exit 1; a model
# that fits nowhere exits 1 naming why; bad input exits 2.
. "$(dirname "$0")/lib/common.sh" || exit 1
G=tests/golden/serve

# ---- validate -----------------------------------------------------------------
$P validate data/validation/inference_runs.csv --json >"$tmp/v" 2>"$tmp/err" ||
    bad "validate inference_runs.csv failed: $(cat "$tmp/err")"
python3 - "$tmp/v" <<'PY' || bad "validate inference_runs.csv: not >= 60 rows within 15%"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["predicted_rows"] >= 60, j["predicted_rows"]
assert j["mean_abs_error"] <= 0.15, j["mean_abs_error"]
rows = [r for r in j["rows"] if "predicted" in r]
assert {r["metric"] for r in rows} == {"tokens_per_s", "ttft_ms"}
# every predicted row names its GPU and engine for the per-group report
assert all(r["strategy"].startswith("gpu=") and " engine=" in r["strategy"] for r in rows)
# every row is priced: the L40S ones on l40s-server
sk = [r for r in j["rows"] if "skipped" in r]
assert not sk, sk
assert sum(1 for r in rows if r["strategy"].startswith("gpu=L40S")) == 2
PY

# ---- the "Done when" example ---------------------------------------------------
ARGS="llama3-70b --cluster dgx-h100 --gpus 8 --isl 2048 --osl 256"
$P serve $ARGS --json >"$tmp/j" 2>"$tmp/err" || bad "serve --json failed: $(cat "$tmp/err")"
$P serve $ARGS --json >"$tmp/j2" 2>&1
cmp -s "$tmp/j" "$tmp/j2" || bad "two serve runs differ"
$P serve $ARGS --export vllm >"$tmp/vllm" 2>"$tmp/err" || bad "serve --export vllm failed: $(cat "$tmp/err")"
python3 - "$tmp/j" "$tmp/vllm" <<'PY' || bad "serve: JSON keys or the vllm export are wrong"
import json, re, sys
j = json.load(open(sys.argv[1]))
keys = {"strategy", "strategy_string", "tp", "pp", "ep", "replicas", "batch", "tokens_per_s",
        "tokens_per_s_per_gpu", "ttft_ms", "tpot_ms", "ttft_ms_p", "tpot_ms_p", "meets_slo",
        "memory_GiB", "fits"}
assert j["plans"], "no plans"
for p in j["plans"]:
    assert keys <= set(p), keys - set(p)
    assert set(p["memory_GiB"]) >= {"weights", "kv_cache", "activations", "total"}
    assert p["fits"] and p["tokens_per_s"] > 0
    assert abs(p["tokens_per_s_per_gpu"] * 8 - p["tokens_per_s"]) <= 1e-4 * p["tokens_per_s"]  # 6 digits
tp = j["plans"][0]["tp"]
text = open(sys.argv[2]).read()
cmd = [l for l in text.splitlines() if not l.startswith("#")]
assert cmd[0].startswith("vllm serve meta-llama/"), cmd[0]
flags = re.findall(r"(--[a-z-]+)", " ".join(cmd))
real = {"--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size",
        "--enable-expert-parallel", "--max-num-seqs", "--max-num-batched-tokens", "--kv-cache-dtype",
        "--quantization", "--max-model-len", "--gpu-memory-utilization", "--kv-transfer-config"}
assert set(flags) <= real, set(flags) - real
m = re.search(r"--tensor-parallel-size (\d+)", text)
assert m and int(m.group(1)) == tp, (m, tp)
PY

# ---- golden exports ------------------------------------------------------------
golden() { # NAME CMD...: CMD's stdout against $G/NAME
    name=$1
    shift
    "$@" >"$tmp/g" 2>"$tmp/err" || { bad "$name: exit $?: $(cat "$tmp/err")"; return; }
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then cp "$tmp/g" "$G/$name"; return; fi
    cmp -s "$tmp/g" "$G/$name" || bad "$name differs from $G/$name: $(diff "$G/$name" "$tmp/g" | head -5)"
}
golden llama3-70b.vllm $P serve $ARGS --export vllm
golden llama3-70b.sglang $P serve $ARGS --export sglang
golden llama3-70b.trtllm $P serve $ARGS --export trtllm
golden llama3.1-8b.disagg.vllm $P serve llama3.1-8b --cluster dgx-h100 --gpus 8 --isl 4096 --osl 512 \
    --rate 20 --ttft-ms 1000 --tpot-ms 40 --dtype fp8 --space disagg --export vllm
golden qwen3-235b.sglang $P serve qwen3-235b-a22b --cluster dgx-h100 --gpus 8 --isl 1000 --osl 1000 \
    --dtype fp8 --export sglang
grep -q -- "--disaggregation-mode\|kv_producer" "$G/llama3.1-8b.disagg.vllm" ||
    bad "the disaggregated export has no KV hand-off"

# the --out file holds what stdout would
$P serve $ARGS --export trtllm --out "$tmp/o.sh" >"$tmp/none" 2>&1 || bad "--out failed"
cmp -s "$tmp/o.sh" "$G/llama3-70b.trtllm" || bad "--out differs from stdout"
[ -s "$tmp/none" ] && bad "--out also wrote to stdout"

# ---- DWDP and shift parallelism as strategies ---------------------------------------
D="deepseek-r1 --cluster gb200-nvl72 --gpus 72 --isl 8192 --osl 1 --dtype fp4 --top 1 --json"
for mt in 8192 32768; do
    $P serve $D --max-num-tokens $mt --fix "tp=8 ep=8 attn_dp=1 batch=64" >"$tmp/ep$mt" 2>"$tmp/err" || bad "EP $mt: $(cat "$tmp/err")"
    $P serve $D --max-num-tokens $mt --fix "dwdp=1 ep=8 batch=64" >"$tmp/dw$mt" 2>"$tmp/err" || bad "DWDP $mt: $(cat "$tmp/err")"
done
python3 - "$tmp" <<'PY' || bad "DWDP: not slower at 8K tokens a step and faster at 32K than synchronous EP"
import json, sys
t = lambda n: json.load(open(sys.argv[1] + "/" + n))["plans"][0]
for mt, sign in ((8192, -1), (32768, 1)):
    ep, dw = t("ep%d" % mt), t("dw%d" % mt)
    assert dw["strategy"]["dwdp"] == 1 and dw["tp"] == 1 and dw["ep"] == 8, dw["strategy"]
    assert (dw["tokens_per_s"] - ep["tokens_per_s"]) * sign > 0, (mt, ep["tokens_per_s"], dw["tokens_per_s"])
PY
H="llama3-70b --cluster dgx-h200 --gpus 8 --isl 4096 --osl 256 --dtype fp8 --offline --space colocated --top 1"
$P serve $H --fix "tp=8 shift=1" >"$tmp/sh" 2>"$tmp/err" || bad "shift: $(cat "$tmp/err")"
grep -q "shift parallelism (plan 1): steps of [0-9]* tokens or more run as sequence parallelism" "$tmp/sh" ||
    bad "shift: no switch point"
$P serve $H --fix "tp=8 shift=1" --json >"$tmp/sh1" && $P serve $H --fix "tp=8 shift=0" --json >"$tmp/sh0" ||
    bad "shift --json failed"
python3 - "$tmp/sh0" "$tmp/sh1" <<'PY' || bad "shift parallelism does not beat TP only offline"
import json, sys
a, b = (json.load(open(f))["plans"][0] for f in sys.argv[1:])
assert b["strategy"]["shift"] == 1 and a["strategy"]["shift"] == 0
assert b["tokens_per_s"] > a["tokens_per_s"], (a["tokens_per_s"], b["tokens_per_s"])
PY

# goodput under objectives: at least the rate asked, for a plan that meets them at it
$P serve $ARGS --rate 2 --ttft-ms 500 --tpot-ms 50 --json >"$tmp/gp" 2>"$tmp/err" || bad "goodput run: $(cat "$tmp/err")"
python3 - "$tmp/gp" <<'PY' || bad "no goodput >= the rate for a colocated plan that meets the objectives"
import json, sys
ps = [p for p in json.load(open(sys.argv[1]))["plans"] if p["meets_slo"] and not p["strategy"]["disagg"]]
assert ps and all(p["goodput_rps"] >= 2 * 0.9 for p in ps), [p.get("goodput_rps") for p in ps]
PY
$P serve llama3.1-8b --cluster dgx-h100 --gpus 8 --isl 1024 --osl 256 --concurrency 64 --json >"$tmp/cc" 2>"$tmp/err" ||
    bad "--concurrency: $(cat "$tmp/err")"
python3 - "$tmp/cc" <<'PY' || bad "--concurrency queues its users (TTFT of seconds)"
import json, sys
p = json.load(open(sys.argv[1]))["plans"][0]
assert p["ttft_ms"] < 1000, p["ttft_ms"]
PY

# ---- nothing meets the objectives, nothing fits ----------------------------------
$P serve $ARGS --rate 5 --ttft-ms 1 --tpot-ms 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || bad "impossible objectives: exit $rc, want 1"
grep -q "nothing meets the objectives; the closest is tp=" "$tmp/err" || bad "no closest plan named: $(cat "$tmp/err")"
$P serve llama3.1-405b --cluster dgx-h100 --gpus 8 --isl 2048 --osl 256 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || bad "405b bf16 on 8 H100: exit $rc, want 1"
grep -q "needs .* GiB of weights per device" "$tmp/err" || bad "no reason for not fitting: $(cat "$tmp/err")"

# ---- bad input -------------------------------------------------------------------
expect2 "rate 0" '--rate: "0" is not a number' $P serve $ARGS --rate 0
expect2 "no isl" '--isl is required' $P serve llama3-70b --cluster dgx-h100 --gpus 8 --osl 256
expect2 "fp4 on H100" 'fp4' $P serve $ARGS --dtype fp4
expect2 "two loads" 'give one of' $P serve $ARGS --rate 2 --offline
expect2 "bad fix key" 'unknown key "xx"' $P serve $ARGS --fix xx=1
expect2 "bad export" '"tgi" is not vllm' $P serve $ARGS --export tgi
expect2 "unknown option" 'unknown option' $P serve $ARGS --bogus
expect2 "disagg sum" 'does not add up' $P serve $ARGS --fix disagg=2:2
expect2 "max-num-tokens 0" '--max-num-tokens: "0"' $P serve $ARGS --max-num-tokens 0
$P serve --help >"$tmp/h" 2>&1 || bad "serve --help failed"
grep -q -- "--ttft-ms" "$tmp/h" || bad "--help lacks --ttft-ms"
exit $fail
