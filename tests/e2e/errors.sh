#!/bin/sh
# End-to-end bad input: every case exits 2 with a stderr line starting
# "partita: " that names the field (and, for a file, FILE:LINE:COL).
. "$(dirname "$0")/lib/common.sh" || exit 1

# a cluster file with an unknown key ("colour", line 5) and one with a bad value
cat >"$tmp/unknown_key.json" <<'JSON'
{
  "name": "x",
  "device": "h100-sxm-80g",
  "devices": 16,
  "levels": [{"name": "nvlink", "size": 8, "bw_GBps": 450, "colour": "red"},
             {"name": "ib", "size": 16, "bw_GBps": 50}]
}
JSON
sed -e 's/, "colour": "red"//' -e 's/"bw_GBps": 50/"bw_GBps": -5/' "$tmp/unknown_key.json" >"$tmp/bad_bw.json"
# a config.json without hidden_size
grep -v '"hidden_size"' tests/data/hf/llama3-8b.json >"$tmp/config.json"
# a runs CSV whose header lacks measured_value
printf '%s\n' "source,model,params_b,layers,hidden,heads,kv_heads,ffn_hidden,seq_len,vocab,moe_experts,moe_topk,gpu,n_gpus,tp,pp,dp,cp,ep,vpp,micro_batch,global_batch,recompute,seq_parallel,zero_stage,measured_metric,notes" \
    "x,GPT,1,24,2304,24,24,9216,2048,51200,,,A100-SXM4-80GB,32,1,1,32,1,1,,,512,full,no,0,tflops_per_gpu," \
    >"$tmp/runs.csv"

ok="--global-batch 512 --strategy tp=1" # split on purpose where it is used unquoted
expect2 "unknown model" 'unknown model "no-such-model"' \
    "$P" eval no-such-model --cluster dgx-h100 $ok
expect2 "missing --cluster" "--cluster" \
    "$P" eval llama3-8b $ok
expect2 "unknown cluster" '"no-such-cluster" is not a built-in cluster' \
    "$P" eval llama3-8b --cluster no-such-cluster $ok
expect2 "cluster file, unknown key" "$tmp/unknown_key.json:5:" \
    "$P" eval llama3-8b --cluster "$tmp/unknown_key.json" $ok
grep -qE '\.json:5:[0-9]+: levels\[0\]\.colour: unknown key' "$tmp/err" ||
    bad "cluster file, unknown key: no \"FILE:5:COL: levels[0].colour: unknown key\": $(cat "$tmp/err")"
expect2 "cluster file, bad bw_GBps" "$tmp/bad_bw.json:6:" \
    "$P" eval llama3-8b --cluster "$tmp/bad_bw.json" $ok
grep -qE '\.json:6:[0-9]+: levels\[1\]\.bw_GBps: -5' "$tmp/err" ||
    bad "cluster file, bad bw_GBps: no \"FILE:6:COL: levels[1].bw_GBps: -5\": $(cat "$tmp/err")"
expect2 "--gpus 12 on dgx-h100" "devices: 12 is not a multiple of levels[0].size=8" \
    "$P" eval llama3-8b --cluster dgx-h100 --gpus 12 $ok
expect2 "--gpus not a number" '--gpus: "twelve"' \
    "$P" eval llama3-8b --cluster dgx-h100 --gpus twelve $ok
expect2 "--dtype fp4" '--dtype: "fp4"' \
    "$P" eval llama3-8b --cluster dgx-h100 --dtype fp4 $ok
expect2 "--engine colossal" '--engine: "colossal"' \
    "$P" eval llama3-8b --cluster dgx-h100 --engine colossal $ok
expect2 "unknown option" '"--frobnicate"' \
    "$P" eval llama3-8b --cluster dgx-h100 --frobnicate $ok
expect2 "strategy, unknown key" 'strategy:1:6: unknown key "foo"' \
    "$P" eval llama3-8b --cluster dgx-h100 --global-batch 512 --strategy "tp=1 foo=2"
expect2 "strategy, bad value" 'strategy:1:1: recompute=most is not none, selective or full' \
    "$P" eval llama3-8b --cluster dgx-h100 --global-batch 512 --strategy "recompute=most"
# 24 GPUs so that tp=3 leaves a whole dp (on 64, dp=64/3 is refused first)
expect2 "tp=3 for llama3-8b" "tp=3 does not divide num_attention_heads=32" \
    "$P" eval llama3-8b --cluster dgx-h100 --gpus 24 --global-batch 512 --strategy "tp=3"
expect2 "gbs not a multiple" "gbs=64 is not a multiple of mbs*dp=1*128=128" \
    "$P" eval llama3-8b --cluster dgx-h100 --gpus 128 --global-batch 64 --strategy "tp=1"
expect2 "config.json without hidden_size" "$tmp/config.json: hidden_size" \
    "$P" eval "$tmp/config.json" --cluster dgx-h100 $ok
expect2 "validate, missing file" "$tmp/none.csv" \
    "$P" validate "$tmp/none.csv"
expect2 "validate, header lacks a column" "$tmp/runs.csv:1:1: header lacks the column \"measured_value\"" \
    "$P" validate "$tmp/runs.csv"
expect2 "validate, no file" "validate: give a runs CSV" \
    "$P" validate
expect2 "ep on a dense model" "ep=2 needs a mixture-of-experts model; llama3-8b is dense" \
    "$P" eval llama3-8b --cluster dgx-h100 --global-batch 512 --strategy "ep=2"
expect2 "ep not dividing the experts" "ep=3 does not divide the 8 experts" \
    "$P" eval mixtral-8x7b --cluster dgx-h100 --gpus 24 --global-batch 24 --strategy "ep=3"
expect2 "--moe-imbalance below 1" '--moe-imbalance: "0.5" is not a number in [1, 1000]' \
    "$P" eval mixtral-8x7b --cluster dgx-h100 --global-batch 64 --strategy "ep=8" --moe-imbalance 0.5
expect2 "unknown command" 'unknown command "frobnicate"' \
    "$P" frobnicate
exit $fail
