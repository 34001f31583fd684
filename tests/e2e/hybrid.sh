#!/bin/sh
# End-to-end hybrid Mamba-2 / attention / MoE models (issue 15): `eval` of
# the catalog's Nemotron 3 Nano as NeMo AutoModel's benchmark runs it (its
# published row's strategy), the same stack read from a config.json, a
# malformed hybrid_override_pattern refused with file:line:col, field and
# value (exit 2), serving refused, and `validate` pricing the Nemotron 3
# rows whose architecture is public.
. "$(dirname "$0")/lib/common.sh" || exit 1

S="tp=1 pp=1 dp=8 ep=8 etp=1 mbs=4 gbs=512 zero=3 recompute=full"
"$P" eval nemotron-v3-nano-30b-a3b --cluster dgx-h100 --gpus 8 --seq-len 4096 --engine fsdp \
    --strategy "$S" --json >"$tmp/nano.json" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || bad "eval nemotron-v3-nano-30b-a3b: exit $rc: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && bad "eval nemotron-v3-nano-30b-a3b: wrote to stderr: $(cat "$tmp/err")"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp/nano.json" <<'PY' || bad "eval nemotron-v3-nano-30b-a3b: the JSON is not what a priced hybrid model gives"
import json, sys
o = json.load(open(sys.argv[1]))
t = o["time_s"]
ok = o["params_total"] == 31577937344 and o["params_active"] == 3580073408
ok = ok and o["fits"] and o["step_time_s"] > 0 and 0 < o["mfu"] <= o["hfu"] < 1
ok = ok and t["compute"] > 0 and t["ep_comm"] > 0 and t["tp_comm"] == 0 and t["bubble"] == 0
# model FLOPs per token: 3 x (the blocks' forward FLOPs) + 6 V h, about 6.2
# x the active parameters here (SSD scan, attention core and logits on top)
per_tok = o["model_tflops_per_gpu"] * 1e12 * o["devices"] * o["step_time_s"] / (512 * 4096)
ok = ok and 5.5 * 3.58e9 < per_tok < 7.0 * 3.58e9
sys.exit(0 if ok else 1)
PY
fi

# the same stack as a Hugging Face config.json gives the same price
cat >"$tmp/config.json" <<'EOF'
{"model_type": "nemotron_h", "hidden_size": 2688, "num_hidden_layers": 52,
 "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
 "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128, "intermediate_size": 1856,
 "mamba_num_heads": 64, "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 8,
 "conv_kernel": 4, "chunk_size": 128, "n_routed_experts": 128, "num_experts_per_tok": 6,
 "moe_intermediate_size": 1856, "moe_shared_expert_intermediate_size": 3712,
 "routed_scaling_factor": 2.5, "mlp_hidden_act": "relu2", "vocab_size": 131072,
 "max_position_embeddings": 262144, "tie_word_embeddings": false}
EOF
"$P" eval "$tmp/config.json" --cluster dgx-h100 --gpus 8 --seq-len 4096 --engine fsdp \
    --strategy "$S" --json >"$tmp/cfg.json" 2>"$tmp/err" || bad "eval config.json: $(cat "$tmp/err")"
grep '"step_time_s"' "$tmp/nano.json" >"$tmp/a"
grep '"step_time_s"' "$tmp/cfg.json" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || bad "eval config.json: $(cat "$tmp/b") differs from the catalog's $(cat "$tmp/a")"

# a malformed pattern: file, line, column, field and value, exit 2
sed 's/MEMEM\*EMEMEM\*E/MEMEM*EMEMEX*E/' "$tmp/config.json" >"$tmp/bad.json"
expect2 "malformed hybrid_override_pattern" \
    "$tmp/bad.json:2:2: hybrid_override_pattern: \"MEMEM*EMEMEX*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME\" holds 'X' at layer 11" \
    "$P" eval "$tmp/bad.json" --cluster dgx-h100 --gpus 8 --strategy "$S"
# a pattern that disagrees with num_hidden_layers
sed 's/"num_hidden_layers": 52/"num_hidden_layers": 50/' "$tmp/config.json" >"$tmp/bad2.json"
expect2 "pattern against num_hidden_layers" "names 52 blocks but num_hidden_layers is 50" \
    "$P" eval "$tmp/bad2.json" --cluster dgx-h100 --gpus 8 --strategy "$S"

# serving a hybrid model is refused, not mispriced
expect2 "serve a hybrid model" "nemotron-v3-nano-30b-a3b is a hybrid Mamba-2 model" \
    "$P" serve nemotron-v3-nano-30b-a3b --cluster dgx-h100 --gpus 8 --isl 1024 --osl 128

# nor exported as a transformer's launch configuration
expect2 "export a hybrid model" "nemotron-v3-nano-30b-a3b is a hybrid Mamba-2 model" \
    "$P" plan nemotron-v3-nano-30b-a3b --cluster dgx-h100 --gpus 8 --global-batch 64 --export megatron

# validate prices NeMo AutoModel's Nano, Super and Ultra rows (the
# catalog's models by name)
"$P" validate data/validation/published_runs.csv >"$tmp/val" 2>"$tmp/err" || bad "validate: $(cat "$tmp/err")"
for n in "Nemotron V3 Nano 30B" "Nemotron V3 Super 120B" "Nemotron V3 Ultra 550B"; do
    line=$(grep -F "$n" "$tmp/val")
    case "$line" in
    *skipped*|"") bad "validate: $n not priced: $line" ;;
    esac
done
exit $fail
