#!/bin/sh
# End-to-end `partita pipeline` (SPEC section 10): the JSON keys the SPEC
# names, throughput = replicas x batch / bottleneck, the same bytes twice, a
# mixed "pools" cluster file, the HALP and EdgePipe settings, and bad input
# refused with exit status 2 naming the file, the field and the value.
. "$(dirname "$0")/lib/common.sh" || exit 1

$P pipeline vgg-16 --cluster rpi4-gbe --json >"$tmp/a" 2>"$tmp/err" || bad "pipeline vgg-16 failed: $(cat "$tmp/err")"
$P pipeline vgg-16 --cluster rpi4-gbe --json >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b" || bad "two runs differ"
python3 - "$tmp/a" <<'PY' || bad "pipeline vgg-16: JSON not as specified"
import json, sys
j = json.load(open(sys.argv[1]))
for k in ("samples_per_s", "latency_ms", "speedup", "stages"):
    assert k in j, k
for s in j["stages"]:
    for k in ("device", "layers", "compute_ms", "transfer_ms", "threads", "net_cpu_ms"):
        assert k in s, k
# three boards, each a replica of the whole network: 3x the throughput of one
# (nothing crosses the network: no network CPU)
assert j["replicas"] == 3 and abs(j["speedup"] - 3) < 1e-6, j["speedup"]
assert all(s["net_cpu_ms"] == 0 for s in j["stages"])
bott = max(max(s["compute_ms"], s["transfer_ms"]) for s in j["stages"])
assert abs(j["samples_per_s"] - j["replicas"] * j["batch"] / (bott / 1e3)) <= 1e-4 * j["samples_per_s"]
assert sum(s["layers"] for s in j["stages"]) == 23
PY

# HALP (arXiv 2211.13778): three Raspberry Pi 4 on gigabit Ethernet, VGG-16
# latency 1.7x; Partita splits every layer over the three boards, a host
# scattering segments and gathering outputs, its CPU running the network
# stack: it leaves that a core (3 threads)
$P pipeline vgg-16 --cluster rpi4-gbe --objective latency --json >"$tmp/h" 2>"$tmp/err" || bad "HALP setting failed: $(cat "$tmp/err")"
python3 - "$tmp/h" <<'PY' || bad "HALP setting: speed-up not within 10% of 1.7x"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["stages"][0]["width"] == 3
assert j["stages"][0]["threads"] == 3, j["stages"][0]["threads"]
assert 1.7 / 1.1 < j["speedup"] < 1.7 * 1.1, j["speedup"]
PY

# Goel et al. (arXiv 2109.13356): four Pi 4B, one pipeline, 3.21x; every
# stage pays its board's network CPU for what it receives and sends
$P pipeline vgg-16 --cluster rpi4-gbe --devices 4 --replicas 1 --json >"$tmp/g" 2>"$tmp/err" || bad "Goel setting failed: $(cat "$tmp/err")"
python3 - "$tmp/g" <<'PY' || bad "Goel setting: not 4 stages within 10% of 3.21x, or network CPU not priced"
import json, sys
j = json.load(open(sys.argv[1]))
st = j["stages"]
assert len(st) == 4 and 3.21 / 1.1 < j["speedup"] < 3.21 * 1.1, j["speedup"]
# the first and last stage move one tensor, the middle ones two
assert all(s["net_cpu_ms"] > 0 for s in st)
assert st[1]["net_cpu_ms"] > st[0]["net_cpu_ms"] and st[1]["net_cpu_ms"] > st[3]["net_cpu_ms"]
PY

# EdgePipe (arXiv 2110.14895): one pipeline over 16 devices, ViT-Large
$P pipeline vit-large --cluster rpi4-gbe --devices 16 --replicas 1 --json >"$tmp/e" 2>"$tmp/err" || bad "EdgePipe setting failed: $(cat "$tmp/err")"
python3 - "$tmp/e" <<'PY' || bad "EdgePipe setting: not one pipeline of 16 stages faster than one device"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["replicas"] == 1 and len(j["stages"]) == 16
assert 8 < j["speedup"] < 16, j["speedup"]
PY

# a mixed cluster in the SPEC's pools form: Pi 5 boards are faster, so the
# plan's stages on them take more of the network
cat >"$tmp/mixed.json" <<'J'
{"name": "mixed-pis",
 "pools": [{"device": "raspberry-pi-4b", "devices": 2}, {"device": "raspberry-pi-5", "devices": 2}],
 "levels": [{"name": "shared-memory", "size": 1, "bw_GBps": 6.4, "latency_us": 2},
            {"name": "gbe", "size": 4, "bw_GBps": 0.125, "latency_us": 150, "efficiency": 0.94}]}
J
$P pipeline vit-large --cluster "$tmp/mixed.json" --replicas 1 --json >"$tmp/m" 2>"$tmp/err" || bad "pools cluster failed: $(cat "$tmp/err")"
python3 - "$tmp/m" <<'PY' || bad "pools cluster: the faster boards do not get more layers"
import json, sys
j = json.load(open(sys.argv[1]))
pi4 = [s["layers"] for s in j["stages"] if s["device"].startswith("raspberry-pi-4b")]
pi5 = [s["layers"] for s in j["stages"] if s["device"].startswith("raspberry-pi-5")]
assert pi4 and pi5 and min(pi5) > max(pi4), (pi4, pi5)
assert j["single_device"]["device"] == "raspberry-pi-5/cpu"
PY
$P pipeline vgg-16 --cluster "$tmp/mixed.json" >"$tmp/t" 2>"$tmp/err" || bad "pools table failed: $(cat "$tmp/err")"
grep -q "^speed-up " "$tmp/t" || bad "the table has no speed-up line"

$P pipeline --help >"$tmp/o" 2>&1 || bad "pipeline --help failed"
for o in --cluster --batch --objective --dtype --devices --units --replicas --json; do
    grep -q -- "$o" "$tmp/o" || bad "pipeline --help lacks $o"
done

# 120 images a batch: no Pi 4 holds VGG-16's weights and a batch of its
# largest activations, three stages do; 140: not even one stage fits (exit 1)
$P pipeline vgg-16 --cluster rpi4-gbe --batch 120 --replicas 1 --json >"$tmp/f" 2>"$tmp/err" || bad "batch 120 failed: $(cat "$tmp/err")"
python3 - "$tmp/f" <<'PY' || bad "batch 120: the single device should not fit"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["single_device"]["fits"] is False and len(j["stages"]) == 3
PY
$P pipeline vgg-16 --cluster rpi4-gbe --batch 140 >"$tmp/o" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || bad "batch 140: exit $rc, want 1 (nothing fits)"
grep -q "does not fit" "$tmp/err" || bad "batch 140: no reason given: $(cat "$tmp/err")"

expect2 "no cluster" "give --cluster" $P pipeline vgg-16
expect2 "no graph" "give a GRAPH" $P pipeline --cluster rpi4-gbe
expect2 "not a graph" "\"llama3-8b\" is not a layer graph" $P pipeline llama3-8b --cluster rpi4-gbe
expect2 "unknown cluster" "\"nosuch\" is not a built-in cluster" $P pipeline vgg-16 --cluster nosuch
expect2 "batch 0" "--batch" $P pipeline vgg-16 --cluster rpi4-gbe --batch 0
expect2 "bad objective" "\"fast\" is not one of throughput, latency" $P pipeline vgg-16 --cluster rpi4-gbe --objective fast
expect2 "bad dtype" "\"bf16\" is not one of fp32, fp16, int8" $P pipeline vgg-16 --cluster rpi4-gbe --dtype bf16
expect2 "bad units" "\"tpu\" is not one of cpu, gpu, npu" $P pipeline vgg-16 --cluster rpi4-gbe --units cpu,tpu
expect2 "no unit in dtype" "computes in fp32" $P pipeline vgg-16 --cluster phones-wifi6 --units npu
expect2 "latency replicas" "replicas do not shorten" $P pipeline vgg-16 --cluster rpi4-gbe --objective latency --replicas 2
expect2 "resize pools" "--devices resizes a cluster of one device kind" $P pipeline vgg-16 --cluster "$tmp/mixed.json" --devices 3
expect2 "too many devices" "has 1024 devices: a pipeline plans over at most 256 (give --devices N)" $P pipeline vgg-16 --cluster dgx-a100-80g
$P pipeline resnet-50 --cluster dgx-a100-80g --devices 4 --dtype fp16 >"$tmp/o" 2>"$tmp/err" || bad "a datacenter cluster resized: $(cat "$tmp/err")"
expect2 "stray argument" "unexpected argument" $P pipeline vgg-16 extra --cluster rpi4-gbe
cat >"$tmp/bad.json" <<'J'
{"name": "bad",
 "pools": [{"device": "raspberry-pi-4b", "devices": 2},
           {"device": "raspberry-pi-9", "devices": 1}],
 "levels": [{"name": "gbe", "size": 3, "bw_GBps": 0.125, "latency_us": 150}]}
J
expect2 "unknown pool device" "bad.json:3:13: pools[1].device" $P pipeline vgg-16 --cluster "$tmp/bad.json"
grep -qF '"raspberry-pi-9"' "$tmp/err" || bad "the unknown device's value is not named: $(cat "$tmp/err")"
cat >"$tmp/bad2.json" <<'J'
{"name": "bad", "pools": [{"device": "raspberry-pi-4b", "devices": 2}],
 "levels": [{"name": "gbe", "size": 2, "bw_GBps": -1, "latency_us": 150}]}
J
expect2 "negative bandwidth" "levels[0].bw_GBps" $P pipeline vgg-16 --cluster "$tmp/bad2.json"
exit $fail
