#!/bin/sh
# End-to-end `partita plan --objective time-to-train`: the global batch is
# searched and plans are ranked by tokens-to-target / tokens-per-second, with
# tokens-to-target = E_min (1 + B / B_crit); the throughput objective on the
# same range picks a batch at least as large and a run no shorter.
. "$(dirname "$0")/lib/common.sh" || exit 1

$P plan llama3-8b --cluster dgx-h100 --gpus 64 --seq-len 4096 --global-batch 64..4096 \
    --objective time-to-train --tokens 1e12 --critical-batch 2e6 --top 5 --json >"$tmp/t" 2>"$tmp/err" ||
    bad "time-to-train plan failed: $(cat "$tmp/err")"
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --seq-len 4096 --global-batch 64..4096 --top 1 --json \
    >"$tmp/s" 2>"$tmp/err" || bad "step plan failed: $(cat "$tmp/err")"
python3 - "$tmp/t" "$tmp/s" <<'PY' || bad "time-to-train ranking is not as specified"
import json, sys
t = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
assert t["objective"] == "time-to-train" and s["objective"] == "step"
prev = 0
for p in t["plans"]:
    B = p["strategy"]["gbs"] * 4096
    tok = 1e12 * (1 + B / 2e6)
    assert abs(p["tokens_to_target"] - tok) <= 1e-5 * tok, (p["tokens_to_target"], tok)
    assert abs(p["time_to_train_s"] - tok / p["tokens_per_s"]) <= 1e-4 * p["time_to_train_s"]
    assert p["time_to_train_s"] >= prev * (1 - 1e-9); prev = p["time_to_train_s"]
bt, bs = t["plans"][0], s["plans"][0]
assert bs["strategy"]["gbs"] >= bt["strategy"]["gbs"], (bs["strategy"]["gbs"], bt["strategy"]["gbs"])
step_ttt = 1e12 * (1 + bs["strategy"]["gbs"] * 4096 / 2e6) / bs["tokens_per_s"]
assert bt["time_to_train_s"] <= step_ttt * (1 + 1e-6)
PY
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --seq-len 4096 --objective time-to-train --tokens 1e12 \
    --target-loss 2.2 --top 1 >"$tmp/table" 2>"$tmp/err" || bad "time-to-train without a batch failed: $(cat "$tmp/err")"
grep -q "ranked by time to train" "$tmp/table" || bad "the table does not say what it ranks by"

refused $P plan llama3-8b --gpus 64 --objective time-to-train --critical-batch 2e6
refused $P plan llama3-8b --gpus 64 --objective time-to-train --tokens 1e12
refused $P plan llama3-8b --gpus 64 --objective time-to-train --tokens -5 --critical-batch 2e6
refused $P plan llama3-8b --gpus 64 --global-batch 512 --tokens 1e12
refused $P plan llama3-8b --gpus 64 --global-batch 512 --objective cost
exit $fail
