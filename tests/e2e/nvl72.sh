#!/bin/sh
# End-to-end GB200/GB300 NVL72 racks (issue 15): eval and plan price jobs of
# 128, 256 and 512 GPUs (whole 4-GPU trays, 64 of each rack), a job that is
# not whole trays is refused (exit 2), where the ranks sit changes the price
# (72 + 56 in racks filled whole against 64 + 64), GB200 and GB300 carry
# constants fitted to Blackwell runs (no note; the JSON says fitted_on
# blackwell) while a device not fitted to its generation's runs (gh200-quad)
# gets the note in the table and false in the JSON, and the catalogs list the
# new devices and clusters.
. "$(dirname "$0")/lib/common.sh" || exit 1

# eval on 128, 256 and 512 GPUs of both racks: exit 0, the device count in
# the table, and the JSON says the same count and that the constants are
# fitted to Blackwell runs
for c in gb200-nvl72 gb300-nvl72; do
    for n in 128 256 512; do
        if ! $P eval llama3-70b --cluster $c --gpus $n --global-batch 1024 --strategy "tp=8 pp=2" \
            >"$tmp/o" 2>"$tmp/e"; then
            bad "eval $c --gpus $n: $(cat "$tmp/e")"
            continue
        fi
        grep -q "^cluster    $c: $n x " "$tmp/o" || bad "eval $c --gpus $n: $(head -n 2 "$tmp/o")"
        grep -q "^note: " "$tmp/o" && bad "eval $c --gpus $n: a note on constants fitted to Blackwell runs"
        $P eval llama3-70b --cluster $c --gpus $n --global-batch 1024 --strategy "tp=8 pp=2" --json \
            >"$tmp/j" 2>"$tmp/e" || bad "eval --json $c --gpus $n: $(cat "$tmp/e")"
        python3 - "$tmp/j" $n <<'PY' || bad "eval --json $c --gpus $n: keys"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["devices"] == int(sys.argv[2]), j["devices"]
assert j["device_generation"] == "blackwell" and j["device_fitted_on"] == "blackwell", j
assert j["device_constants_fitted"] is True
assert j["step_time_s"] > 0 and j["fits"] is True, (j["step_time_s"], j["fits"])
PY
    done
done

# plan on 128, 256 and 512 GB200s: at least one plan, best first, and the
# JSON names the device and its constants' fit
for n in 128 256 512; do
    timeout 20 $P plan llama3-70b --cluster gb200-nvl72 --gpus $n --global-batch 1024 --top 2 --json \
        >"$tmp/j" 2>"$tmp/e"
    rc=$?
    [ $rc -eq 124 ] && { bad "plan gb200-nvl72 --gpus $n did not answer within 20 s"; continue; }
    [ $rc -eq 0 ] || { bad "plan gb200-nvl72 --gpus $n: exit $rc: $(cat "$tmp/e")"; continue; }
    python3 - "$tmp/j" $n <<'PY' || bad "plan --json gb200-nvl72 --gpus $n"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["devices"] == int(sys.argv[2]) and j["device"] == "gb200", (j["devices"], j.get("device"))
assert j["device_constants_fitted"] is True
p = j["plans"]
assert p and all(x["fits"] for x in p), p
assert p[0]["step_time_s"] <= p[-1]["step_time_s"]
PY
done
$P plan llama3-70b --cluster gb200-nvl72 --gpus 128 --global-batch 1024 --top 1 >"$tmp/o" 2>"$tmp/e" ||
    bad "plan gb200-nvl72 --gpus 128 (table): $(cat "$tmp/e")"
grep -q "^note: " "$tmp/o" && bad "plan table: a note on gb200's fitted constants"
# a device whose constants were not fitted to its generation's runs: the note
$P eval llama3-8b --cluster gh200-quad --global-batch 64 --strategy "tp=4" >"$tmp/o" 2>"$tmp/e" ||
    bad "eval on gh200-quad: $(cat "$tmp/e")"
grep -q "^note: gh200-96g's efficiency constants were not fitted to measured runs of its generation (hopper" "$tmp/o" ||
    bad "gh200-quad (fitted_on none): no note on unfitted constants: $(cat "$tmp/o")"

# a fitted device has no note, and its JSON says so
$P eval gpt3-175b --cluster dgx-a100-80g --gpus 64 --global-batch 64 --strategy "tp=8 pp=8" >"$tmp/o" 2>&1 ||
    bad "eval on dgx-a100-80g failed: $(cat "$tmp/o")"
grep -q "^note: " "$tmp/o" && bad "a100 (fitted on ampere runs) got the unfitted note"

# not whole trays: exit 2, naming the unit
expect2 "130 GPUs on gb200-nvl72" "130 is not a multiple of levels[0].unit=4" \
    $P eval llama3-70b --cluster gb200-nvl72 --gpus 130 --global-batch 1024 --strategy "tp=2 pp=1"
expect2 "66 GPUs on gb300-nvl72" "66 is not a multiple of levels[0].unit=4" \
    $P plan llama3-70b --cluster gb300-nvl72 --gpus 66 --global-batch 1024
# part of one rack (4 trays) is a valid job
$P eval llama3-8b --cluster gb200-nvl72 --gpus 16 --global-batch 64 --strategy "tp=4" >"$tmp/o" 2>"$tmp/e" ||
    bad "16 GPUs (part of one rack): $(cat "$tmp/e")"

# where the ranks sit: tp=8 pp=2 on 128 GPUs.  Racks of 64 + 64 keep every
# data-parallel group (stride 8, within one pipeline stage) inside a rack;
# racks filled whole (72 + 56) put ranks 64..71 of the second stage in the
# first rack, so its data-parallel groups cross racks and dp comm grows.
cat >"$tmp/fill.json" <<'EOF'
{"name": "fill", "device": "gb200", "devices": 128,
 "levels": [{"name": "nvlink", "size": 72, "unit": 4, "bw_GBps": 900, "latency_us": 3},
            {"name": "ib", "size": 4096, "bw_GBps": 50, "latency_us": 5}]}
EOF
dp_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["time_s"]["dp_comm"])' "$1"; }
$P eval llama3-70b --cluster gb200-nvl72 --gpus 128 --global-batch 512 --strategy "tp=8 pp=2" --json \
    >"$tmp/seg.json" 2>"$tmp/e" || bad "segments: $(cat "$tmp/e")"
$P eval llama3-70b --cluster "$tmp/fill.json" --global-batch 512 --strategy "tp=8 pp=2" --json \
    >"$tmp/fill.out" 2>"$tmp/e" || bad "filled racks: $(cat "$tmp/e")"
seg=$(dp_of "$tmp/seg.json") full=$(dp_of "$tmp/fill.out")
awk -v a="$seg" -v b="$full" 'BEGIN { exit !(b > 10 * a && b > 0.1) }' ||
    bad "dp comm: racks of 64 $seg s, racks filled 72 + 56 $full s (want the second far larger)"

# the catalogs list what issue 15 adds
$P devices >"$tmp/o" || bad "partita devices failed"
for d in h100-sxm-96g-500w gh200-96g b300-sxm-270g gb300 mi325x mi355x l40s rtx-pro-6000-server; do
    awk -v n="$d" '$1 == n { found = 1 } END { exit !found }' "$tmp/o" || bad "partita devices lacks $d"
done
$P clusters >"$tmp/o" || bad "partita clusters failed"
for c in dgx-b300 gb300-nvl72 grand-teton-h100 gh200-quad hgx-h800 dgx-b200; do
    awk -v n="$c" '$1 == n { found = 1 } END { exit !found }' "$tmp/o" || bad "partita clusters lacks $c"
done
grep -q "^gb200-nvl72 .*\[unit 4, 64 per domain\]" "$tmp/o" || bad "clusters: gb200-nvl72 without its unit"

# validate: no GPU name of the public runs is unknown any more
$P validate data/validation/published_runs.csv --json >"$tmp/v" 2>"$tmp/e" || bad "validate: $(cat "$tmp/e")"
python3 - "$tmp/v" <<'PY' || bad "validate: rows skipped as unknown gpu"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
unknown = [r["line"] for r in rows if r.get("skipped", "").startswith("unknown gpu")]
assert not unknown, unknown
PY
exit $fail
