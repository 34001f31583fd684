#!/bin/sh
# End-to-end `partita trials`: the seed paper's direction and rough size for
# the 3D U-Net on 32 GPUs (Berral et al. 2022: independent trials x12-x14
# faster than data parallelism), the JSON keys and their arithmetic (totals
# from one trial's time, time to train = steps x step time), the same bytes
# twice, --help listing every option, and bad input refused with exit
# status 2 naming the option and the value.
. "$(dirname "$0")/lib/common.sh" || exit 1

C=examples/cte-power.json
$P trials unet3d-brats --cluster $C --gpus 32 --trials 32 --json >"$tmp/a" 2>"$tmp/err" ||
    bad "trials unet3d-brats failed: $(cat "$tmp/err")"
$P trials unet3d-brats --cluster=$C --gpus=32 --trials=32 --json >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b" || bad "two runs (--opt value, --opt=value) differ"
python3 - "$tmp/a" <<'PY' || bad "trials unet3d-brats: JSON not as specified"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["model"] == "unet3d-brats" and j["gpus"] == 32 and j["trials"] == 32
assert j["devices_per_trial"] == 1 and j["concurrent_trials"] == 32 and j["waves"] == 1
se = j["statistical_efficiency"]
assert se["b_noise"] == 2 and se["e_min_epochs"] == 250 and "assumed" in se["source"]
for k in ("independent", "data_parallel", "data_parallel_alone"):
    c = j[k]
    assert abs(c["time_to_train_s"] - c["steps"] * c["step_time_s"]) <= 1e-4 * c["time_to_train_s"], k
    assert c["spatial"] * c["dp"] == c["devices"], k
    assert c["global_batch"] == c["group_batch"] * c["dp"], k
    assert c["gradient_exchange"] in ("all-reduce", "colocated-ps", "cpu-ps", "byteps"), k
assert j["data_parallel_alone"]["spatial"] == 1
ind, dpa = j["independent_total_s"], j["data_parallel_alone_total_s"]
assert abs(ind - j["independent"]["time_to_train_s"]) <= 1e-4 * ind
assert abs(dpa - 32 * j["data_parallel_alone"]["time_to_train_s"]) <= 1e-4 * dpa
s = j["speedup_against_data_parallel_alone"]
assert abs(s - dpa / ind) <= 1e-4 * s
# the paper: x12-x14; the model with its assumed B_noise: about x11
assert 10 <= s <= 16, s
sens = j["speedup_sensitivity"]
assert sens["half_b_noise"] > s > sens["double_b_noise"] > 1
assert 0.95 < sens["no_batch_penalty"] < 1.1
assert 1 < j["speedup"] < s
PY

# the table says both comparisons and the paper's number
$P trials unet3d-brats --cluster $C --gpus 32 --trials 32 >"$tmp/t" 2>"$tmp/err" || bad "table failed"
grep -q "data parallel alone over 32 GPUs: .* -> independent x1[0-6]\." "$tmp/t" ||
    bad "table: no speed-up against data parallelism alone: $(cat "$tmp/t")"
grep -q "x12-x14" "$tmp/t" || bad "table: the paper's finding is not quoted"

# waves: 64 trials on 32 GPUs, one GPU each, two rounds; data parallelism alone
$P trials unet3d-brats --cluster $C --gpus 32 --trials 64 --no-spatial --json >"$tmp/w" 2>"$tmp/err" ||
    bad "64 trials failed: $(cat "$tmp/err")"
python3 - "$tmp/w" <<'PY' || bad "64 trials: not two waves"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["waves"] == 2 and j["devices_per_trial"] == 1 and j["concurrent_trials"] == 32
assert j["data_parallel"]["spatial"] == 1
assert abs(j["independent_total_s"] - 2 * j["independent"]["time_to_train_s"]) <= 1e-4 * j["independent_total_s"]
PY

# a parameter server on spare CPU machines is chosen where it is faster
$P trials resnet-50 --cluster dgx-1-v100 --gpus 64 --trials 4 --cpu-machines 8 --json >"$tmp/r" 2>"$tmp/err" ||
    bad "resnet-50 with CPU machines failed: $(cat "$tmp/err")"
python3 - "$tmp/r" <<'PY' || bad "resnet-50 over 64 GPUs with 8 CPU machines keeps the all-reduce"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["data_parallel"]["gradient_exchange"] in ("cpu-ps", "byteps"), j["data_parallel"]
PY

# --help lists every option; a graph file works like a built-in
$P trials --help >"$tmp/h" 2>&1 || bad "trials --help: exit not 0"
for o in cluster gpus trials stat-eff cpu-machines no-spatial dtype json help; do
    grep -qE -- "^ *(-h, )?--$o(=[^ ]+)?  +[a-zA-Z]" "$tmp/h" || bad "trials --help: no line for --$o"
done
$P trials tests/data/graph/small_cnn.json --cluster dgx-1-v100 --gpus 8 --trials 2 \
    --stat-eff tests/data/statef/small_cnn.csv >"$tmp/s" 2>"$tmp/err" || bad "a graph file: $(cat "$tmp/err")"
grep -q "^independent  *4 " "$tmp/s" || bad "a graph file: no independent trial on 4 GPUs: $(cat "$tmp/s")"

# bad input: exit 2, the option and the value named
expect2 "no graph" "give a GRAPH" $P trials --cluster $C --gpus 32 --trials 4
expect2 "unknown graph" '"nosuchgraph"' $P trials nosuchgraph --cluster $C --gpus 32 --trials 4
expect2 "no --trials" "give --trials K" $P trials unet3d-brats --cluster $C --gpus 32
expect2 "no --gpus" "give --gpus N" $P trials unet3d-brats --cluster $C --trials 4
expect2 "no --cluster" "give --cluster C" $P trials unet3d-brats --gpus 32 --trials 4
expect2 "--trials 0" '--trials: "0" is not a whole number in [1, 1000000]' \
    $P trials unet3d-brats --cluster $C --gpus 32 --trials 0
expect2 "--trials 5 of 32" "--trials 5 does not divide --gpus 32" \
    $P trials unet3d-brats --cluster $C --gpus 32 --trials 5
expect2 "--gpus x" '--gpus: "x" is not a whole number' $P trials unet3d-brats --cluster $C --gpus x --trials 4
expect2 "--cpu-machines -1" '--cpu-machines: "-1" is not a number in [0, 1e6]' \
    $P trials unet3d-brats --cluster $C --gpus 32 --trials 4 --cpu-machines -1
expect2 "--dtype" '--dtype: "fp64"' $P trials unet3d-brats --cluster $C --gpus 32 --trials 4 --dtype fp64
expect2 "unknown option" '"--bogus"' $P trials unet3d-brats --cluster $C --gpus 32 --trials 4 --bogus
expect2 "stray" 'unexpected argument "stray"' $P trials unet3d-brats stray --cluster $C --gpus 32 --trials 4
expect2 "no stat-eff" "no statistical efficiency is built in" \
    $P trials tests/data/graph/small_cnn.json --cluster dgx-1-v100 --gpus 8 --trials 2
expect2 "bad cluster file" "tests/data/cluster/typo.json" \
    $P trials unet3d-brats --cluster tests/data/cluster/typo.json --gpus 8 --trials 2
# a graph too big for one device: exit 1, the reason named
printf '{"name": "huge", "samples_per_epoch": 10, "layers": [{"name": "in", "op": "input", "shape": [64, 16384, 16384]},
 {"name": "c", "op": "conv", "out_channels": 512, "kernel": 3, "pad": 1, "bn": true, "relu": true},
 {"name": "loss", "op": "loss", "classes": 2}]}\n' >"$tmp/huge.json"
printf 'batch,epochs\n8,10\n64,20\n' >"$tmp/se.csv"
$P trials "$tmp/huge.json" --cluster dgx-1-v100 --gpus 8 --trials 2 --stat-eff "$tmp/se.csv" >"$tmp/o" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || bad "a graph that fits nowhere: exit $rc, want 1: $(cat "$tmp/err")"
grep -q "does not fit" "$tmp/err" || bad "a graph that fits nowhere: $(cat "$tmp/err")"
exit $fail
