#!/bin/sh
# End-to-end gradient exchange and plans of layer graphs: `plan GRAPH`
# ranks data-parallel plans with spatial partitioning and names the
# exchange it chose and why (all-reduce without CPU machines, BytePS with
# some), `scale --cpu-machines` says the same for its best data-parallel
# plan, the JSON keys and their arithmetic, and bad input refused with
# exit status 2.
. "$(dirname "$0")/lib/common.sh" || exit 1

# a 3D U-Net at 8 volumes on 32 GPUs: only spatial partitioning reaches them all
$P plan unet3d-brats --cluster dgx-a100-80g --gpus 32 --global-batch 8 --json >"$tmp/a" 2>"$tmp/err" ||
    bad "plan unet3d-brats failed: $(cat "$tmp/err")"
$P plan unet3d-brats --cluster dgx-a100-80g --gpus 32 --global-batch 8 --json >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b" || bad "plan unet3d-brats: two runs differ"
python3 - "$tmp/a" <<'PY' || bad "plan unet3d-brats: JSON not as specified"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["gpus"] == 32 and j["global_batch"] == 8 and j["candidates_evaluated"] >= 2
plans = j["plans"]
assert [p["spatial"] for p in plans] == [4, 8], [p["spatial"] for p in plans]
for p in plans:
    assert p["spatial"] * p["dp"] == 32 and p["dp"] * p["micro_batch"] * p["micro_batches"] == 8
    t = p["time_s"]
    s = t["compute"] + t["halo"] + t["dp_comm"] + t["optimizer"]
    assert abs(s - p["step_time_s"]) <= 1e-4 * p["step_time_s"], (s, p["step_time_s"])
    assert abs(p["samples_per_s"] * p["step_time_s"] - 8) <= 1e-3
    assert p["fits"] is True and t["halo"] > 0
    x = p["gradient_exchange"]
    assert x["chosen"] == "all-reduce" and "no CPU machines" in x["why"], x
    assert x["time_s"]["cpu-ps"] is None and x["machines"] == 4
assert plans[0]["step_time_s"] <= plans[1]["step_time_s"]
PY

# ResNet-50 on 8 DGX-1 nodes with 4 CPU machines: BytePS, saying why
$P plan resnet-50 --cluster dgx-1-v100 --gpus 64 --global-batch 4096 --cpu-machines 4 >"$tmp/t" 2>"$tmp/err" ||
    bad "plan resnet-50 failed: $(cat "$tmp/err")"
grep -q "^best: p=1 dp=64 mbs=64 k=1, byteps" "$tmp/t" || bad "plan resnet-50: not BytePS: $(cat "$tmp/t")"
grep -q -- "-> byteps: the 4 CPU machines take 64% of the summation" "$tmp/t" ||
    bad "plan resnet-50: no reason: $(cat "$tmp/t")"
# without CPU machines the ring stays
$P plan resnet-50 --cluster dgx-1-v100 --gpus 64 --global-batch 4096 >"$tmp/t" 2>&1
grep -q -- "-> all-reduce: no CPU machines" "$tmp/t" || bad "plan resnet-50, k = 0: $(cat "$tmp/t")"
# a batch too big for one micro-batch is accumulated
$P plan resnet-50 --cluster dgx-1-v100 --gpus 8 --global-batch 32768 --json >"$tmp/m" 2>"$tmp/err" ||
    bad "plan resnet-50 at 32768: $(cat "$tmp/err")"
python3 - "$tmp/m" <<'PY' || bad "plan resnet-50 at 32768: no gradient accumulation"
import json, sys
p = json.load(open(sys.argv[1]))["plans"][0]
assert p["micro_batches"] > 1 and p["fits"], p
PY

# BigLSTM's sparse pushes (the embedding and softmax rows a batch touched,
# 9.1% of the gradient): CPU servers beat the ring when there are some
$P plan biglstm --cluster dgx-1-v100 --gpus 64 --global-batch 4096 --cpu-machines 8 >"$tmp/t" 2>"$tmp/err" ||
    bad "plan biglstm failed: $(cat "$tmp/err")"
grep -q "^best: p=1 dp=64 mbs=64 k=1, cpu-ps" "$tmp/t" || bad "plan biglstm: not the CPU servers: $(cat "$tmp/t")"
grep -q "each worker pushes 9.1% of the gradient" "$tmp/t" || bad "plan biglstm: no push fraction: $(cat "$tmp/t")"
$P plan biglstm --cluster dgx-1-v100 --gpus 64 --global-batch 4096 >"$tmp/t" 2>&1
grep -q -- "-> all-reduce: no CPU machines, and shards on the GPU machines would move" "$tmp/t" ||
    bad "plan biglstm, k = 0: $(cat "$tmp/t")"

# scale names the exchange of its best data-parallel plan
$P scale resnet-50 --cluster dgx-1-v100 --max-gpus 64 --ilp-nodes 1 --cpu-machines 4 >"$tmp/s" 2>"$tmp/err" ||
    bad "scale --cpu-machines failed: $(cat "$tmp/err")"
grep -q "^gradient exchange at 64 GPUs (8 machines): all-reduce .* byteps" "$tmp/s" ||
    bad "scale: no exchange line: $(cat "$tmp/s")"
grep -q "with byteps this step is" "$tmp/s" || bad "scale: no step with BytePS"
$P scale resnet-50 --cluster dgx-1-v100 --max-gpus 64 --ilp-nodes 1 --json >"$tmp/sj" 2>&1
python3 - "$tmp/sj" <<'PY' || bad "scale --json: no gradient_exchange"
import json, sys
x = json.load(open(sys.argv[1]))["gradient_exchange"]
assert x["chosen"] == "all-reduce" and x["machines"] == 8
PY

# bad input
expect2 "plan graph, bad batch" "--global-batch 7 cannot be split evenly over 32 devices" \
    $P plan unet3d-brats --cluster dgx-a100-80g --gpus 32 --global-batch 7
expect2 "plan graph, no batch" "give --global-batch B" $P plan unet3d-brats --cluster dgx-a100-80g --gpus 32
expect2 "plan graph, --fix" "--fix does not apply to a layer graph" \
    $P plan unet3d-brats --gpus 32 --global-batch 8 --fix tp=2
expect2 "plan graph, --cpu-machines x" '--cpu-machines: "x" is not a number' \
    $P plan resnet-50 --gpus 8 --global-batch 256 --cpu-machines x
expect2 "plan transformer, --cpu-machines" "--cpu-machines applies to layer graphs" \
    $P plan llama3-8b --global-batch 512 --cpu-machines 2
expect2 "scale --cpu-machines -2" '--cpu-machines: "-2"' \
    $P scale gnmt --cluster dgx-1-v100 --max-gpus 8 --cpu-machines -2
exit $fail
