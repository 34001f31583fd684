#!/bin/sh
# End-to-end `partita plan`: the full search answers with hundreds of
# thousands of candidates; the plans are the same bytes whatever --threads
# (search_seconds aside, the one number that is a measurement); nothing
# fitting exits 1 with the nearest miss; exports keep the engines' rules;
# bad --space / --fix exit 2.
. "$(dirname "$0")/lib/common.sh" || exit 1

one_t="$P plan gpt-1t --cluster dgx-a100-80g --gpus 3072 --global-batch 3072 --seq-len 2048 --json"
$one_t --threads 1 >"$tmp/t1" 2>"$tmp/err" || bad "gpt-1t plan failed: $(cat "$tmp/err")"
$one_t --threads 2 >"$tmp/t2" 2>"$tmp/err" || bad "gpt-1t plan (2 threads) failed: $(cat "$tmp/err")"
$one_t --threads 3 >"$tmp/t3" 2>"$tmp/err" || bad "gpt-1t plan (3 threads) failed: $(cat "$tmp/err")"
for t in t1 t2 t3; do grep -v '"search_seconds"' "$tmp/$t" >"$tmp/$t.x"; done
cmp -s "$tmp/t1.x" "$tmp/t2.x" || bad "plan output differs between 1 and 2 threads"
cmp -s "$tmp/t1.x" "$tmp/t3.x" || bad "plan output differs between 1 and 3 threads"
n=$(sed -n 's/.*"candidates_evaluated": \([0-9]*\).*/\1/p' "$tmp/t1")
[ -n "$n" ] && [ "$n" -ge 100000 ] || bad "candidates_evaluated is '$n', want >= 100000"
for k in search_seconds plans strategy_string step_time_s tokens_per_s model_tflops_per_gpu mfu hfu \
         memory_GiB device_memory_GiB fits time_s; do
    grep -q "\"$k\"" "$tmp/t1" || bad "plan --json lacks \"$k\""
done
[ "$(grep -c '"strategy_string"' "$tmp/t1")" -eq 5 ] || bad "plan --json does not hold --top 5 plans"

# the human table and --explain
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 --explain \
    >"$tmp/h" 2>"$tmp/err" || bad "plan --explain failed: $(cat "$tmp/err")"
grep -q "why #1 wins" "$tmp/h" || bad "--explain printed no explanation"
grep -q "^ 1  tp=" "$tmp/h" || bad "the table has no plan 1"

# --space and --fix narrow the search
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 --json \
    --space "tp=2 pp=1,2" --fix "zero=3" >"$tmp/s" 2>"$tmp/err" || bad "plan --space failed: $(cat "$tmp/err")"
grep -q '"tp": 2' "$tmp/s" || bad "--space tp=2 not kept"
grep '"zero"' "$tmp/s" | grep -qv '"zero": 3' && bad "--fix zero=3 not kept"

# nothing fits: exit 1, nearest miss on stderr
$P plan llama3.1-405b --cluster dgx-h100 --gpus 8 --global-batch 8 --seq-len 8192 >"$tmp/o" 2>"$tmp/err"
[ $? -eq 1 ] || bad "405B on 8 GPUs: exit status not 1"
grep -q "no strategy fits" "$tmp/err" || bad "405B on 8 GPUs: no nearest-miss message: $(cat "$tmp/err")"

# exports (the SPEC's examples)
$P plan gpt3-175b --cluster dgx-a100-80g --gpus 64 --global-batch 512 --seq-len 2048 \
    --fix "tp=8 pp=8 vpp=3 mbs=1" --export megatron >"$tmp/m" 2>"$tmp/err" || bad "megatron export failed: $(cat "$tmp/err")"
grep -q -- "--num-layers-per-virtual-pipeline-stage 4" "$tmp/m" || bad "megatron export lacks vpp stage size 4"
grep -q -- "--virtual-pipeline-model-parallel-size" "$tmp/m" && bad "megatron export uses the removed vpp flag"
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 \
    --fix "tp=1 pp=1 zero=3" --export deepspeed --out "$tmp/ds.json" 2>"$tmp/err" || bad "deepspeed export failed: $(cat "$tmp/err")"
python3 - "$tmp/ds.json" <<'PY' || bad "deepspeed batch keys do not multiply out"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["train_batch_size"] == j["train_micro_batch_size_per_gpu"] * j["gradient_accumulation_steps"] * 64
assert j["zero_optimization"]["stage"] == 3
PY
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 \
    --fix "zero=1" --export torchtitan >"$tmp/tt" 2>"$tmp/err"
[ $? -eq 2 ] || bad "torchtitan zero=1 should be refused with status 2"
grep -q "zero" "$tmp/err" || bad "torchtitan refusal does not name zero: $(cat "$tmp/err")"

# mixture of experts: --fix and --space take ep and etp; the Megatron export
# writes the expert flags; DeepSpeed refuses with the reason; a dense model
# refuses ep
$P plan mixtral-8x7b --cluster dgx-h100 --gpus 64 --global-batch 256 --seq-len 4096 \
    --fix "ep=8 etp=1" --space "pp=2,4" --export megatron >"$tmp/moe" 2>"$tmp/err" ||
    bad "mixtral megatron export failed: $(cat "$tmp/err")"
grep -q -- "--num-experts 8" "$tmp/moe" || bad "mixtral export lacks --num-experts 8"
grep -q -- "--expert-model-parallel-size 8" "$tmp/moe" || bad "mixtral export lacks --expert-model-parallel-size 8"
$P plan mixtral-8x7b --cluster dgx-h100 --gpus 64 --global-batch 256 --seq-len 4096 --json \
    --space "ep=4" >"$tmp/moe.json" 2>"$tmp/err" || bad "mixtral --space ep=4 failed: $(cat "$tmp/err")"
grep '"ep"' "$tmp/moe.json" | grep -qv '"ep": 4' && bad "--space ep=4 not kept"
grep -q '"ep_comm"' "$tmp/moe.json" || bad "plan --json lacks time_s.ep_comm"
$P plan mixtral-8x7b --cluster dgx-h100 --gpus 64 --global-batch 256 --seq-len 4096 \
    --export deepspeed >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "expert" "$tmp/err" || bad "deepspeed MoE export: not refused with a reason"
$P plan llama3-8b --cluster dgx-h100 --global-batch 512 --fix "ep=2" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'mixture-of-experts' "$tmp/err" || bad "--fix ep=2 on a dense model: not refused"

# bad input
$P plan llama3-8b --cluster dgx-h100 --global-batch 512 --space "tq=2" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'tq' "$tmp/err" || bad "--space tq=2: not refused by name"
$P plan llama3-8b --cluster dgx-h100 --global-batch 512 --fix "pp=x" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'pp=x' "$tmp/err" || bad "--fix pp=x: not refused by name"
$P plan llama3-8b --cluster dgx-h100 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || bad "plan without --global-batch: status not 2"
# every published Megatron run whose strategy the model says fits: the best
# plan is no slower than the published strategy (a run predicted not to fit is
# outside the search's space)
runs=data/validation/published_runs.csv
    $P validate "$runs" --plans --json >"$tmp/vp" 2>"$tmp/err" || bad "validate --plans failed: $(cat "$tmp/err")"
    python3 - "$tmp/vp" <<'PY' || bad "a best plan is slower than the published strategy"
import json, sys
j = json.load(open(sys.argv[1]))
assert len(j["runs"]) >= 20, len(j["runs"])
assert j["published_fits"] >= 24, j["published_fits"]
assert j["published_fits"] == sum(r["published_fits"] for r in j["runs"])
assert j["best_no_worse"] == j["published_fits"], (j["best_no_worse"], j["published_fits"])
PY
exit $fail
