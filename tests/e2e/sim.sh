#!/bin/sh
# End-to-end simulator outputs: `eval --trace` writes Chrome trace JSON with a
# process per pipeline stage and one forward and one backward event per
# micro-batch per virtual stage; `--svg` writes an SVG; `eval --simulate
# --json` carries the simulated step time and peak memory; `plan --verify`
# shows both numbers.
. "$(dirname "$0")/lib/common.sh" || exit 1

$P eval gpt3-175b --cluster dgx-a100-80g --gpus 64 --seq-len 2048 \
    --strategy "tp=8 pp=8 vpp=3 mbs=1 gbs=64 recompute=selective sp=1" \
    --trace "$tmp/t.json" --svg "$tmp/t.svg" >"$tmp/out" 2>"$tmp/err" || bad "eval --trace failed: $(cat "$tmp/err")"
python3 - "$tmp/t.json" <<'PY' || bad "trace JSON does not hold what it should"
import json, sys
j = json.load(open(sys.argv[1]))
ev = j["traceEvents"]
stages = {e["pid"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
assert stages == set(range(8)), stages
x = [e for e in ev if e.get("ph") == "X"]
f = [e for e in x if e["name"].startswith("F ")]
b = [e for e in x if e["name"].startswith("B ")]
# 64 micro-batches x 8 stages x 3 virtual stages each
assert len(f) == 64 * 8 * 3 and len(b) == len(f), (len(f), len(b))
keys = {(e["args"]["microbatch"], e["args"]["virtual_stage"]) for e in f}
assert len(keys) == 64 * 24
assert all(e["dur"] > 0 and e["ts"] >= 0 for e in x)
PY
head -c 4 "$tmp/t.svg" | grep -q "<svg" || bad "--svg did not write an SVG"
grep -q "simulated, event by event" "$tmp/out" || bad "eval --trace printed no simulated step"

$P eval llama3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 --seq-len 4096 \
    --strategy "tp=2 pp=4 schedule=zb-h1" --simulate --json >"$tmp/j" 2>"$tmp/err" || bad "eval --simulate failed: $(cat "$tmp/err")"
grep -q '"simulated_step_time_s"' "$tmp/j" || bad "no simulated_step_time_s"
grep -q '"simulated_peak_memory_GiB"' "$tmp/j" || bad "no simulated_peak_memory_GiB"

$P plan llama3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 --seq-len 4096 --verify --top 3 \
    >"$tmp/v" 2>"$tmp/err" || bad "plan --verify failed: $(cat "$tmp/err")"
grep -q "verified by the step simulator" "$tmp/v" || bad "plan --verify printed no comparison"
exit $fail
