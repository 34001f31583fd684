#!/bin/sh
# End-to-end heterogeneous clusters (issue 18, SPEC section 10): a 7B dense
# model on 32 H100 + 32 A100 (the catalog's mixed-h100-a100) plans a step
# faster than the best plan on either pool alone, gives the faster pool more
# work, and the analytic model agrees with the simulator (every pipeline
# replayed) within 3%, with pipelines too (pp=2: more layers on the H100
# stage); --explain says what the uneven split buys; eval takes explicit layers= and batch_share= and says which pool
# each stage runs on; A100-40GB + V100 gives the A100s more work; bad input
# is refused with exit 2 and the field named.
. "$(dirname "$0")/lib/common.sh" || exit 1

best() { # best step time of `plan ... --json` in file $1
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["plans"][0]["step_time_s"])' "$1"
}

$P plan llama2-7b --cluster dgx-h100 --gpus 32 --global-batch 512 --json >"$tmp/h100" 2>"$tmp/e" ||
    bad "plan on 32 H100: $(cat "$tmp/e")"
$P plan llama2-7b --cluster dgx-a100-80g --gpus 32 --global-batch 512 --json >"$tmp/a100" 2>"$tmp/e" ||
    bad "plan on 32 A100: $(cat "$tmp/e")"
h100=$(best "$tmp/h100")
a100=$(best "$tmp/a100")

# the mixed plan, and the mixed plan restricted to two-stage pipelines
for space in "" "pp=2"; do
    if [ -n "$space" ]; then set -- --space "$space"; else set --; fi
    if ! $P plan llama2-7b --cluster mixed-h100-a100 --global-batch 512 --json "$@" >"$tmp/mix" 2>"$tmp/e"; then
        bad "plan on mixed-h100-a100 $*: $(cat "$tmp/e")"
        continue
    fi
    python3 - "$tmp/mix" "$h100" "$a100" "$space" <<'PY' || bad "plan on mixed-h100-a100 $*: see above"
import json, sys
j = json.load(open(sys.argv[1]))
h100, a100, space = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
p = j["plans"][0]
step = p["step_time_s"]
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("hetero.sh: %s (space %r): %s" % (what, space, p["strategy_string"]))
        ok = False
check(step < h100 and step < a100, "step %.3f s not below 32 H100 alone (%.3f s) and 32 A100 alone (%.3f s)" % (step, h100, a100))
pools = {q["device"]: q["work_fraction"] for q in p["pools"]}
check(pools["h100-sxm-80g"] > pools["a100-sxm4-80g"], "H100 pool does not get more work: %r" % pools)
check(abs(sum(pools.values()) - 1) < 1e-9, "work fractions do not sum to 1: %r" % pools)
for q in j["plans"]:
    check(abs(q["simulated_vs_analytic"]) <= 0.03, "simulator %+.2f%% off" % (100 * q["simulated_vs_analytic"]))
check(p["strategy"]["gbs"] == 512 and sum(p["strategy"]["batch_share"]) * p["strategy"]["mbs"] == 512, "shares")
check(sum(p["strategy"]["layers"]) == 32, "layers do not sum to 32")
if space == "pp=2":
    s = p["stages"]
    check(s[0]["device"] == "h100-sxm-80g" and s[1]["device"] == "a100-sxm4-80g", "stages not on H100 then A100: %r" % s)
    check(s[0]["layers"] > s[1]["layers"], "H100 stage has no more layers: %r" % s)
    check("layers=%d,%d" % (s[0]["layers"], s[1]["layers"]) in p["strategy_string"], "layers= not in the string")
sys.exit(0 if ok else 1)
PY
done

# eval: explicit lists, the pools each stage runs on, the simulator
if $P eval llama2-7b --cluster mixed-h100-a100 --strategy "tp=8 pp=2 layers=20,12" --global-batch 512 \
    --simulate >"$tmp/o" 2>"$tmp/e"; then
    grep -q "^      0      20  h100-sxm-80g " "$tmp/o" || bad "eval: stage 0 line: $(cat "$tmp/o")"
    grep -q "^      1      12  a100-sxm4-80g " "$tmp/o" || bad "eval: stage 1 line: $(cat "$tmp/o")"
    grep -q "^strategy   .* layers=20,12$" "$tmp/o" || bad "eval: strategy line: $(cat "$tmp/o")"
    grep -q "^simulated " "$tmp/o" || bad "eval --simulate: no simulated line"
else
    bad "eval layers=20,12: $(cat "$tmp/e")"
fi
if $P eval llama2-7b --cluster mixed-h100-a100 --strategy "tp=8 batch_share=90x4,38x4" --simulate \
    --json >"$tmp/o" 2>"$tmp/e"; then
    python3 - "$tmp/o" <<'PY' || bad "eval batch_share --json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["strategy"]["batch_share"] == [90] * 4 + [38] * 4, j["strategy"]
assert j["strategy"]["gbs"] == 512, j["strategy"]["gbs"]
assert j["stages"][0]["device"] == "h100-sxm-80g+a100-sxm4-80g", j["stages"]
assert abs(j["simulated_vs_analytic"]) <= 0.03, j["simulated_vs_analytic"]
assert j["strategy_string"].endswith("batch_share=90x4,38x4"), j["strategy_string"]
PY
else
    bad "eval batch_share: $(cat "$tmp/e")"
fi

# --explain: what the uneven split buys over an even one (slower: a + sign)
if $P plan llama2-7b --cluster mixed-h100-a100 --global-batch 512 --explain --top 1 >"$tmp/o" 2>"$tmp/e"; then
    grep -q "^  batch shares by speed: even shares take [0-9.]* s (+" "$tmp/o" ||
        bad "plan --explain: no even-shares line: $(tail -n 8 "$tmp/o")"
    grep -q "^  tp=[0-9]*: the best with tp=[0-9]* takes [0-9.]* s (+" "$tmp/o" ||
        bad "plan --explain: no tp line: $(tail -n 8 "$tmp/o")"
else
    bad "plan --explain: $(cat "$tmp/e")"
fi
if $P plan llama2-7b --cluster mixed-h100-a100 --global-batch 512 --explain --space pp=2 --top 1 >"$tmp/o" 2>"$tmp/e"; then
    grep -q "^  layers by the stages' speed and memory: the even split takes [0-9.]* s (+" "$tmp/o" ||
        bad "plan --explain pp=2: no even-layers line: $(tail -n 8 "$tmp/o")"
else
    bad "plan --explain pp=2: $(cat "$tmp/e")"
fi

# A100-40GB + V100: the A100s run more of the step
if $P plan llama2-7b --cluster mixed-a100-40g-v100 --global-batch 256 --json >"$tmp/o" 2>"$tmp/e"; then
    python3 - "$tmp/o" <<'PY' || bad "mixed-a100-40g-v100: the A100 pool does not get more work"
import json, sys
p = json.load(open(sys.argv[1]))["plans"][0]
w = {q["device"]: q["work_fraction"] for q in p["pools"]}
assert w["a100-sxm4-40g"] > w["v100-sxm2-32g"], w
PY
else
    bad "plan on mixed-a100-40g-v100: $(cat "$tmp/e")"
fi

# --trace / --svg on pools: the simulated step's slowest data-parallel
# pipeline drawn by the timeline writers -- a row per stage named after the
# layers the split gives it, 128 micro-batches' F and B on each, the step
# the simulator reports (eval --json's simulated_step_time_s)
if $P eval llama2-7b --cluster mixed-h100-a100 --strategy "tp=8 pp=2 layers=20,12" --global-batch 512 \
    --trace "$tmp/t.json" --svg "$tmp/t.svg" >"$tmp/o" 2>"$tmp/e" &&
   $P eval llama2-7b --cluster mixed-h100-a100 --strategy "tp=8 pp=2 layers=20,12" --global-batch 512 \
    --simulate --json >"$tmp/j" 2>"$tmp/e"; then
    python3 - "$tmp/t.json" "$tmp/j" <<'PY' || bad "eval --trace on pools: not the simulated step"
import json, sys
t, j = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
names = [e["args"]["name"] for e in t["traceEvents"] if e["name"] == "process_name"]
assert names == ["stage 0 (layers 0-19, embedding)", "stage 1 (layers 20-31, output layer)"], names
ops = [e for e in t["traceEvents"] if e.get("ph") == "X" and e["tid"] == 0 and e["name"][0] in "FB"]
assert len(ops) == 2 * 2 * 128, len(ops)
assert all(e["name"].endswith("L0-19") for e in ops if e["pid"] == 0), ops[0]
assert any(e.get("ph") == "X" and e["tid"] == 1 for e in t["traceEvents"]), "no sends"
o = t["otherData"]
assert o["pp"] == 2 and o["microbatches"] == 128, o
assert abs(o["step_time_s"] - j["simulated_step_time_s"]) <= 1e-6 * j["simulated_step_time_s"], (o, j)
PY
    head -c 4 "$tmp/t.svg" | grep -q "<svg" || bad "eval --svg on pools: not an SVG"
    grep -q "stage 1 (layers 20-31" "$tmp/t.svg" || bad "eval --svg on pools: no row for stage 1"
else
    bad "eval --trace/--svg on pools: $(cat "$tmp/e")"
fi
if $P plan llama2-7b --cluster mixed-h100-a100 --global-batch 512 --top 1 --trace "$tmp/p.json" >"$tmp/o" 2>"$tmp/e"; then
    python3 -c "import json,sys; t=json.load(open(sys.argv[1])); assert any(e.get('ph') == 'X' for e in t['traceEvents'])" \
        "$tmp/p.json" || bad "plan --trace on pools: no events"
else
    bad "plan --trace on pools: $(cat "$tmp/e")"
fi

# zero=3 on pools: the search keeps every rank's micro-batches even (each
# gathers every layer's parameters at each of them), shards the states
# (less memory than zero=1's best), and uneven shares are refused
if $P plan llama2-7b --cluster mixed-h100-a100 --global-batch 512 --fix zero=3 --top 1 --json >"$tmp/z3" 2>"$tmp/e" &&
   $P plan llama2-7b --cluster mixed-h100-a100 --global-batch 512 --fix zero=1 --top 1 --json >"$tmp/z1" 2>"$tmp/e"; then
    python3 - "$tmp/z3" "$tmp/z1" <<'PY' || bad "plan --fix zero=3 on pools"
import json, sys
z3, z1 = (json.load(open(f))["plans"][0] for f in sys.argv[1:3])
assert z3["strategy"]["zero"] == 3 and "batch_share" not in z3["strategy_string"], z3["strategy_string"]
assert z3["memory_GiB"]["weights"] < z1["memory_GiB"]["weights"], (z3["memory_GiB"], z1["memory_GiB"])
assert z3["step_time_s"] >= z1["step_time_s"], (z3["step_time_s"], z1["step_time_s"])
PY
else
    bad "plan --fix zero=3 on pools: $(cat "$tmp/e")"
fi
expect2 "zero=3 with uneven shares" "batch_share: zero=3 needs even batch shares" \
    $P eval llama2-7b --cluster mixed-h100-a100 --strategy "tp=8 zero=3 batch_share=90x4,38x4" --global-batch 512

# bad input: exit 2, the field and the value named
expect2 "layers sum" "layers sum to 30, not num_layers=32" \
    $P eval llama2-7b --cluster mixed-h100-a100 --strategy "tp=8 pp=2 layers=20,10" --global-batch 512
expect2 "layers not a count" "layers: \"x\" is not a count" \
    $P eval llama2-7b --cluster mixed-h100-a100 --strategy "tp=8 pp=2 layers=x" --global-batch 512
expect2 "--gpus on pools" "which fix its size at 64" \
    $P eval llama2-7b --cluster mixed-h100-a100 --gpus 32 --strategy "tp=8" --global-batch 512
expect2 "--export on pools" "--export: not available on a cluster with pools: Megatron-LM, DeepSpeed and torchtitan" \
    $P plan llama2-7b --cluster mixed-h100-a100 --global-batch 512 --export megatron
# --report was ignored on pools (exit 0, no file): refused, named
expect2 "--report on pools" "plan --report: not available on a cluster with pools" \
    $P plan llama2-7b --cluster mixed-h100-a100 --global-batch 512 --report "$tmp/r.html"
[ -e "$tmp/r.html" ] && bad "--report on pools wrote a file"
expect2 "MoE on pools" "clusters with pools price dense models only" \
    $P plan mixtral-8x7b --cluster mixed-h100-a100 --global-batch 512
cat >"$tmp/c.json" <<'JSON'
{"name": "x", "pools": [{"device": "h100-sxm-80g", "devices": 8}, {"device": "a100-sxm4-80g", "devices": 4}],
 "levels": [{"name": "nvlink", "size": 8, "bw_GBps": 300}, {"name": "ib", "size": 16, "bw_GBps": 25}]}
JSON
expect2 "pool of half a node" "c.json:1:95: pools[1].devices: 4 is not a multiple of levels[0]'s 8" \
    $P eval llama2-7b --cluster "$tmp/c.json" --strategy "tp=8" --global-batch 512
exit $fail
