#!/bin/sh
# End-to-end `partita eval`: the table names the step time, --json equals the
# golden files byte for byte (tests/update-golden.sh lists the cases and
# regenerates them), and the JSON has every key of SPEC section 5.
. "$(dirname "$0")/lib/common.sh" || exit 1

# the table
"$P" eval gpt3-175b --cluster dgx-a100-80g --gpus 1024 --global-batch 1536 --seq-len 2048 \
    --strategy "tp=8 pp=16 mbs=1 recompute=full" >"$tmp/table" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || bad "eval gpt3-175b: exit $rc: $(cat "$tmp/err")"
grep -q "step time" "$tmp/table" || bad "eval gpt3-175b: no \"step time\" in the table"
[ -s "$tmp/err" ] && bad "eval gpt3-175b: wrote to stderr: $(cat "$tmp/err")"
# a strategy the engine's current release does not run is priced, with a note
"$P" eval gpt3-175b --cluster dgx-a100-80g --gpus 64 --global-batch 512 --seq-len 2048 \
    --strategy "tp=8 pp=8 vpp=2 mbs=1 schedule=zb-v" >"$tmp/table" 2>"$tmp/err" || bad "eval zb-v failed: $(cat "$tmp/err")"
grep -q "megatron's current release does not run this strategy" "$tmp/err" || bad "eval zb-v under megatron: no note"
"$P" eval gpt3-175b --cluster dgx-a100-80g --gpus 64 --global-batch 512 --seq-len 2048 --engine torchtitan \
    --strategy "tp=8 pp=8 vpp=2 mbs=1 schedule=zb-v zero=3" >"$tmp/table" 2>"$tmp/err" || bad "eval zb-v torchtitan failed: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && bad "eval zb-v under torchtitan: wrote to stderr: $(cat "$tmp/err")"

# the golden files
if ! BUILD=$BUILD sh tests/update-golden.sh "$tmp/golden" 2>"$tmp/err"; then
    bad "tests/update-golden.sh failed: $(cat "$tmp/err")"
fi
for f in eval_gpt3_175b.json eval_llama3_8b.json eval_deepseek_v3.json; do
    if [ ! -f "tests/golden/$f" ]; then
        bad "tests/golden/$f is missing (run tests/update-golden.sh)"
    elif ! diff -u "tests/golden/$f" "$tmp/golden/$f"; then
        bad "$f differs from tests/golden/$f (if the change is intended: sh tests/update-golden.sh)"
    fi
done

# every key SPEC section 5 lists, in both outputs
for f in eval_gpt3_175b.json eval_llama3_8b.json eval_deepseek_v3.json; do
    j=$tmp/golden/$f
    [ -f "$j" ] || continue
    for k in strategy tp pp dp cp ep etp vpp mbs gbs sp zero recompute schedule offload \
        strategy_string step_time_s tokens_per_s model_tflops_per_gpu mfu hfu \
        memory_GiB weights gradients optimizer activations other total \
        device_memory_GiB fits \
        time_s compute tp_comm cp_comm ep_comm pp_comm dp_comm bubble \
        params_total params_active mtp_layers; do
        grep -q "\"$k\": " "$j" || bad "$f: no key \"$k\""
    done
    # "optimizer" is both a memory part and a time part
    [ "$(grep -c '"optimizer": ' "$j")" -ge 2 ] || bad "$f: \"optimizer\" is not under both memory_GiB and time_s"
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$j" <<'PY' || bad "$f: the JSON does not have SPEC section 5's shape"
import json, sys
o = json.load(open(sys.argv[1]))
want = {
    "strategy": "tp pp dp cp ep etp vpp mbs gbs sp zero recompute schedule offload",
    "memory_GiB": "weights gradients optimizer activations other total",
    "time_s": "compute tp_comm cp_comm ep_comm pp_comm dp_comm bubble optimizer",
}
top = "strategy_string step_time_s tokens_per_s model_tflops_per_gpu mfu hfu device_memory_GiB fits"
ok = True
for k in top.split():
    if k not in o: print("missing", k); ok = False
for k, keys in want.items():
    for kk in keys.split():
        if kk not in o.get(k, {}): print("missing", k + "." + kk); ok = False
for k in "step_time_s tokens_per_s model_tflops_per_gpu mfu hfu device_memory_GiB".split():
    if not isinstance(o.get(k), (int, float)) or o[k] <= 0: print("not a positive number:", k); ok = False
if not isinstance(o.get("fits"), bool): print("fits is not a boolean"); ok = False
sys.exit(0 if ok else 1)
PY
    fi
done
# DeepSeek-V3 (published 52 s on 1024 H100, NVIDIA DGX Cloud benchmark):
# the all-to-all shows in time_s.ep_comm, total and active parameters in the
# head (671B / 37B on the model card)
if command -v python3 >/dev/null 2>&1 && [ -f "$tmp/golden/eval_deepseek_v3.json" ]; then
    python3 - "$tmp/golden/eval_deepseek_v3.json" <<'PY' || bad "eval_deepseek_v3.json: MoE keys"
import json, sys
o = json.load(open(sys.argv[1]))
ok = o["time_s"]["ep_comm"] > 0 and abs(o["step_time_s"] / 52.0 - 1) <= 0.2
ok = ok and abs(o["params_total"] / 671e9 - 1) < 0.01 and abs(o["params_active"] / 37e9 - 1) < 0.02
ok = ok and o["strategy"]["ep"] == 64 and o["strategy"]["etp"] == 1
sys.exit(0 if ok else 1)
PY
fi
# --tp-comm-overlap (Megatron's flag, torchtitan's async TP): the TP time
# falls, the Megatron export writes the flag after --sequence-parallel;
# torchtitan's async TP overlaps the forward only (less TP time than
# without it, more than Megatron's) and its TOML enables it; DeepSpeed (no
# such overlap) is refused with exit status 2
tp1=$($P eval llama3-70b --cluster dgx-h100 --gpus 64 --seq-len 8192 --global-batch 128 --strategy "tp=8 pp=2" \
      --tp-comm-overlap --json 2>&1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["time_s"]["tp_comm"])' 2>/dev/null)
tpn=$($P eval llama3-70b --cluster dgx-h100 --gpus 64 --seq-len 8192 --global-batch 128 --strategy "tp=8 pp=2" \
      --json 2>&1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["time_s"]["tp_comm"])' 2>/dev/null)
python3 -c "import sys; sys.exit(0 if 0 < float('$tp1') < 0.5 * float('$tpn') else 1)" 2>/dev/null ||
    bad "--tp-comm-overlap: tp comm $tp1 s, not under half of $tpn s without it"
$P plan llama3-70b --cluster dgx-h100 --gpus 64 --seq-len 8192 --global-batch 128 --tp-comm-overlap \
   --export megatron >"$tmp/tpo.sh" 2>"$tmp/err" || bad "plan --tp-comm-overlap --export megatron: $(cat "$tmp/err")"
grep -q -- '--sequence-parallel \\$' "$tmp/tpo.sh" && grep -q -- '--tp-comm-overlap \\$' "$tmp/tpo.sh" ||
    bad "plan --tp-comm-overlap --export megatron: no --sequence-parallel and --tp-comm-overlap lines"
expect2 "eval --tp-comm-overlap --engine deepspeed" "DeepSpeed does not overlap tensor-parallel communication" \
    $P eval llama3-70b --cluster dgx-h100 --gpus 64 --global-batch 128 --strategy "tp=8" --engine deepspeed \
    --tp-comm-overlap
tpt() { $P eval llama3-70b --cluster dgx-h100 --gpus 64 --seq-len 8192 --global-batch 128 --engine torchtitan \
      --strategy "tp=8 pp=2 zero=3" "$@" --json 2>&1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["time_s"]["tp_comm"])' 2>/dev/null; }
tt1=$(tpt --tp-comm-overlap); ttn=$(tpt)
python3 -c "import sys; a, n, m = float('$tt1'), float('$ttn'), float('$tp1'); sys.exit(0 if m < a < n else 1)" 2>/dev/null ||
    bad "--tp-comm-overlap --engine torchtitan: tp comm $tt1 s, not between Megatron's $tp1 s and $ttn s without it"
$P plan llama3-70b --cluster dgx-h100 --gpus 64 --seq-len 8192 --global-batch 128 --tp-comm-overlap --fix "tp=8" \
   --export torchtitan >"$tmp/tpo.toml" 2>"$tmp/err" || bad "plan --tp-comm-overlap --export torchtitan: $(cat "$tmp/err")"
grep -q '^enable_async_tensor_parallel = true$' "$tmp/tpo.toml" && grep -q '^enable = true$' "$tmp/tpo.toml" ||
    bad "plan --tp-comm-overlap --export torchtitan: no enable_async_tensor_parallel and compile lines"
# --moe-dispatcher, --moe-a2a-overlap: DeepSeek-V3 with ep=64 over eight DGX
# H100 nodes sends less with DeepEP (once per node, not once per expert) and
# hides most of the rest under compute; the header, the JSON and the
# Megatron export say which; torchtitan has neither
ep_of() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["time_s"]["ep_comm"], d["moe_dispatcher"], d["moe_a2a_overlap"])'; }
dsv3() { $P eval deepseek-v3 --cluster dgx-h100 --gpus 256 --global-batch 4096 \
    --strategy "tp=1 pp=1 ep=64 mbs=1 zero=1 recompute=full" "$@"; }
e0=$(dsv3 --json 2>/dev/null | ep_of)
e1=$(dsv3 --moe-dispatcher deepep --json 2>/dev/null | ep_of)
e2=$(dsv3 --moe-dispatcher deepep --moe-a2a-overlap --json 2>/dev/null | ep_of)
python3 - "$e0" "$e1" "$e2" <<'PY' || bad "--moe-dispatcher/--moe-a2a-overlap: ep comm and keys $e0 / $e1 / $e2"
import sys
(a, da, oa), (b, db, ob), (c, dc, oc) = (x.split() for x in sys.argv[1:])
ok = 0 < float(c) < float(b) < float(a) and (da, db, dc) == ("alltoall", "deepep", "deepep") \
    and (oa, ob, oc) == ("False", "False", "True")
sys.exit(0 if ok else 1)
PY
dsv3 --moe-dispatcher hybridep --moe-a2a-overlap 2>&1 | grep -q "hybridep dispatcher, expert a2a overlap, megatron" ||
    bad "--moe-dispatcher hybridep --moe-a2a-overlap: not in the header"
$P plan mixtral-8x7b --cluster dgx-h100 --gpus 64 --global-batch 256 --moe-dispatcher deepep --moe-a2a-overlap \
   --export megatron --report "$tmp/moe.html" >"$tmp/moe.sh" 2>"$tmp/err" ||
    bad "plan --moe-dispatcher --export megatron: $(cat "$tmp/err")"
grep -q "communication</dt><dd>deepep dispatcher, expert a2a overlap</dd>" "$tmp/moe.html" ||
    bad "plan --moe-dispatcher --report: the report does not name the dispatcher and the overlap"
grep -q -- '--moe-token-dispatcher-type flex \\$' "$tmp/moe.sh" && grep -q -- '--moe-flex-dispatcher-backend deepep \\$' "$tmp/moe.sh" ||
    bad "plan --moe-dispatcher deepep --export megatron: no flex dispatcher lines"
expect2 "eval --moe-dispatcher bad" '--moe-dispatcher: "nccl" is not alltoall, deepep or hybridep' \
    $P eval mixtral-8x7b --cluster dgx-h100 --gpus 64 --global-batch 256 --strategy "ep=8" --moe-dispatcher nccl
expect2 "eval --moe-a2a-overlap --engine torchtitan" "torchtitan has no schedule that overlaps the expert all-to-all" \
    $P eval mixtral-8x7b --cluster dgx-h100 --gpus 64 --global-batch 256 --strategy "ep=8 zero=3" --engine torchtitan \
    --moe-a2a-overlap
expect2 "plan --moe-dispatcher deepep --export torchtitan" "names no deepep dispatcher" \
    $P plan deepseek-v3 --cluster dgx-h100 --gpus 64 --global-batch 64 --moe-dispatcher deepep --mtp 0 --export torchtitan
expect2 "plan deepseek-v3 --engine torchtitan" "cannot run deepseek-v3 with 1 multi-token-prediction depth" \
    $P plan deepseek-v3 --cluster dgx-h100 --gpus 64 --global-batch 64 --engine torchtitan
# --mtp: DeepSeek-V3's config trains one multi-token-prediction depth (the
# model line names it, the FLOPs count it, a pipeline's last stage runs it);
# --mtp 0 plans without it, --mtp 2 with two, which the Megatron export
# writes; 17 is refused by name
dsv3 2>&1 | grep -q "61 layers + 1 MTP depth, hidden 7168" || bad "eval deepseek-v3: the model line does not name its MTP depth"
dsv3 --mtp 0 2>&1 | grep -q "61 layers, hidden 7168" || bad "eval --mtp 0: the model line still names an MTP depth"
tf() { python3 -c 'import json,sys; print(json.load(sys.stdin)["model_tflops_per_gpu"])'; }
t1=$(dsv3 --json 2>/dev/null | tf)
t0=$(dsv3 --mtp 0 --json 2>/dev/null | tf)
python3 -c "import sys; sys.exit(0 if float('$t1') > float('$t0') > 0 else 1)" ||
    bad "eval --mtp: model TFLOP/s with the depth $t1 not above without it $t0"
$P plan deepseek-v3 --cluster dgx-h100 --gpus 1024 --global-batch 8192 --seq-len 4096 --fix "tp=2 pp=16 ep=64 etp=1 mbs=1" \
    --mtp 2 --export megatron >"$tmp/mtp.sh" 2>"$tmp/err" || bad "plan --mtp 2 --export megatron: $(cat "$tmp/err")"
grep -q -- '--mtp-num-layers 2 \\$' "$tmp/mtp.sh" || bad "plan --mtp 2 --export megatron: no --mtp-num-layers 2"
$P plan deepseek-v3 --cluster dgx-h100 --gpus 1024 --global-batch 8192 --seq-len 4096 --fix "tp=2 pp=16 ep=64 etp=1 mbs=1" \
    --mtp 0 --export megatron 2>/dev/null | grep -q -- '--mtp-num-layers' && bad "plan --mtp 0 --export megatron: writes --mtp-num-layers"
expect2 "eval --mtp 17" '--mtp: "17" is not a whole number in [0, 16]' dsv3 --mtp 17
# --doc-len: packed documents.  A 64k sequence of 2k-token documents is
# priced shorter (its attention within the documents), the header and the
# JSON say so, the simulator agrees, the export's note says what the price
# assumed of the data; a zero length is refused
$P eval llama3-8b --cluster dgx-h100 --gpus 8 --seq-len 65536 --doc-len 2048 --strategy "cp=8 gbs=8 recompute=full" \
    >"$tmp/doc.out" 2>&1 || bad "eval --doc-len: $(cat "$tmp/doc.out")"
grep -q '^cluster .*seq 65536 in documents of 2048, bf16' "$tmp/doc.out" || bad "eval --doc-len: no documents in the header: $(cat "$tmp/doc.out")"
python3 - "$P" <<'PY' || bad "eval --doc-len: step, MFU or doc_len not as documented"
import json, subprocess, sys
P = sys.argv[1]
def ev(*extra):
    r = subprocess.run([P, "eval", "llama3-8b", "--cluster", "dgx-h100", "--gpus", "8", "--seq-len", "65536",
                        "--strategy", "cp=8 gbs=8 recompute=full", "--json", "--simulate"] + list(extra),
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)
whole, docs = ev(), ev("--doc-len", "2048")
assert whole["doc_len"] is None and docs["doc_len"] == 2048, (whole["doc_len"], docs["doc_len"])
assert docs["step_time_s"] < 0.5 * whole["step_time_s"], (docs["step_time_s"], whole["step_time_s"])
assert docs["hfu"] <= 1.0
assert abs(docs["simulated_step_time_s"] / docs["step_time_s"] - 1) < 0.03, docs
# a document as long as the sequence is the sequence
assert ev("--doc-len", "65536")["step_time_s"] == whole["step_time_s"]
PY
$P plan llama3-8b --cluster dgx-h100 --gpus 8 --seq-len 65536 --doc-len 2048 --global-batch 8 --export megatron \
    >"$tmp/doc.sh" 2>"$tmp/err" || bad "plan --doc-len --export megatron: $(cat "$tmp/err")"
head -n 1 "$tmp/doc.sh" | grep -q 'attention priced within packed documents of 2048 tokens' ||
    bad "plan --doc-len --export: the note does not say the documents: $(head -n 1 "$tmp/doc.sh")"
expect2 "eval --doc-len 0" 'doc-len: "0" is not a whole number' \
    $P eval llama3-8b --cluster dgx-h100 --gpus 8 --strategy "tp=8" --global-batch 8 --doc-len 0
# Gemma 2 (a Hub config.json): GeGLU, 256-wide heads, a window on every
# other layer; priced, and refused by the Megatron export (no GeGLU flag)
$P eval tests/data/hf/gemma2-9b.json --cluster dgx-h100 --gpus 8 --strategy "tp=2" --global-batch 64 \
    >"$tmp/gemma.out" 2>&1 || bad "eval gemma2-9b.json: $(cat "$tmp/gemma.out")"
grep -q '^model .*(9.2B parameters, 42 layers, hidden 3584)' "$tmp/gemma.out" || bad "eval gemma2-9b.json: $(head -n 1 "$tmp/gemma.out")"
expect2 "plan gemma2-9b.json --export megatron" "gated MLP with a GELU activation" \
    $P plan tests/data/hf/gemma2-9b.json --cluster dgx-h100 --gpus 8 --global-batch 64 --export megatron
exit $fail
