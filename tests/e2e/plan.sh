#!/bin/sh
# End-to-end `partita plan`: the full search answers with hundreds of
# thousands of candidates; the plans are the same bytes whatever --threads
# (search_seconds aside, the one number that is a measurement); nothing
# fitting exits 1 with the nearest miss; exports keep the engines' rules;
# bad --space / --fix exit 2.
. "$(dirname "$0")/lib/common.sh" || exit 1

one_t="$P plan gpt-1t --cluster dgx-a100-80g --gpus 3072 --global-batch 3072 --seq-len 2048 --json"
$one_t --threads 1 >"$tmp/t1" 2>"$tmp/err" || bad "gpt-1t plan failed: $(cat "$tmp/err")"
$one_t --threads 2 >"$tmp/t2" 2>"$tmp/err" || bad "gpt-1t plan (2 threads) failed: $(cat "$tmp/err")"
$one_t --threads 3 >"$tmp/t3" 2>"$tmp/err" || bad "gpt-1t plan (3 threads) failed: $(cat "$tmp/err")"
for t in t1 t2 t3; do grep -v '"search_seconds"' "$tmp/$t" >"$tmp/$t.x"; done
cmp -s "$tmp/t1.x" "$tmp/t2.x" || bad "plan output differs between 1 and 2 threads"
cmp -s "$tmp/t1.x" "$tmp/t3.x" || bad "plan output differs between 1 and 3 threads"
n=$(sed -n 's/.*"candidates_evaluated": \([0-9]*\).*/\1/p' "$tmp/t1")
[ -n "$n" ] && [ "$n" -ge 100000 ] || bad "candidates_evaluated is '$n', want >= 100000"
for k in search_seconds plans strategy_string step_time_s tokens_per_s model_tflops_per_gpu mfu hfu \
         memory_GiB device_memory_GiB fits time_s; do
    grep -q "\"$k\"" "$tmp/t1" || bad "plan --json lacks \"$k\""
done
[ "$(grep -c '"strategy_string"' "$tmp/t1")" -eq 5 ] || bad "plan --json does not hold --top 5 plans"

# the human table and --explain
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 --explain \
    >"$tmp/h" 2>"$tmp/err" || bad "plan --explain failed: $(cat "$tmp/err")"
grep -q "why #1 wins" "$tmp/h" || bad "--explain printed no explanation"
grep -q "^ 1  tp=" "$tmp/h" || bad "the table has no plan 1"

# --space and --fix narrow the search
# (zero=3 is not Megatron's: --engine any searches every engine)
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 --json --engine any \
    --space "tp=2 pp=1,2" --fix "zero=3" >"$tmp/s" 2>"$tmp/err" || bad "plan --space failed: $(cat "$tmp/err")"
grep -q '"tp": 2' "$tmp/s" || bad "--space tp=2 not kept"
grep '"zero"' "$tmp/s" | grep -qv '"zero": 3' && bad "--fix zero=3 not kept"

# nothing fits: exit 1, nearest miss on stderr
$P plan llama3.1-405b --cluster dgx-h100 --gpus 8 --global-batch 8 --seq-len 8192 >"$tmp/o" 2>"$tmp/err"
[ $? -eq 1 ] || bad "405B on 8 GPUs: exit status not 1"
grep -q "no strategy fits" "$tmp/err" || bad "405B on 8 GPUs: no nearest-miss message: $(cat "$tmp/err")"

# exports (the SPEC's examples)
$P plan gpt3-175b --cluster dgx-a100-80g --gpus 64 --global-batch 512 --seq-len 2048 \
    --fix "tp=8 pp=8 vpp=3 mbs=1" --export megatron >"$tmp/m" 2>"$tmp/err" || bad "megatron export failed: $(cat "$tmp/err")"
grep -q -- "--num-layers-per-virtual-pipeline-stage 4" "$tmp/m" || bad "megatron export lacks vpp stage size 4"
grep -q -- "--virtual-pipeline-model-parallel-size" "$tmp/m" && bad "megatron export uses the removed vpp flag"
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 \
    --fix "tp=1 pp=1 zero=3" --export deepspeed --out "$tmp/ds.json" 2>"$tmp/err" || bad "deepspeed export failed: $(cat "$tmp/err")"
python3 - "$tmp/ds.json" <<'PY' || bad "deepspeed batch keys do not multiply out"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["train_batch_size"] == j["train_micro_batch_size_per_gpu"] * j["gradient_accumulation_steps"] * 64
assert j["zero_optimization"]["stage"] == 3
PY
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 \
    --fix "zero=1" --export torchtitan >"$tmp/tt" 2>"$tmp/err"
[ $? -eq 2 ] || bad "torchtitan zero=1 should be refused with status 2"
grep -q "zero" "$tmp/err" || bad "torchtitan refusal does not name zero: $(cat "$tmp/err")"

# --engine E (default megatron) bounds the search to what E's release runs,
# and the plan ranked first is the one --export writes, with its predicted
# step time and memory: for the six problems of issue 14, plan --json --top 1
# and --export megatron agree on tp, pp, cp, mbs and vpp, the schedule is
# one Megatron-LM runs, and the export's comment states the plan's numbers
# (tests/data/six-problems.txt, one question a line; tools/six.sh reads it too)
while read -r q <&3; do
    $P plan $q --json --top 1 --verify >"$tmp/e.json" 2>"$tmp/err" || bad "plan $q: $(cat "$tmp/err")"
    $P plan $q --export megatron >"$tmp/e.sh" 2>"$tmp/err" || bad "plan $q --export megatron: $(cat "$tmp/err")"
    python3 - "$tmp/e.json" "$tmp/e.sh" <<'PY' || bad "plan $q: the table's #1 and the megatron export differ"
import json, re, sys
j = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
p = j["plans"][0]
st = p["strategy"]
assert j["engine"] == "megatron" and p["engine"] == "megatron", (j["engine"], p["engine"])
assert st["schedule"] in ("1f1b", "interleaved"), st["schedule"]
def flag(name, default=None):
    m = re.search(r"--%s (\d+)" % name, text)
    return int(m.group(1)) if m else default
layers = flag("num-layers")
pp = flag("pipeline-model-parallel-size", 1)
per_v = flag("num-layers-per-virtual-pipeline-stage")
got = {"tp": flag("tensor-model-parallel-size", 1), "pp": pp, "cp": flag("context-parallel-size", 1),
       "mbs": flag("micro-batch-size"), "vpp": layers // pp // per_v if per_v else 1}
want = {k: st[k] for k in got}
assert got == want, (got, want)
assert (st["schedule"] == "interleaved") == (got["vpp"] > 1), st["schedule"]
first = text.splitlines()[0]
m = re.match(r"# partita: predicted step ([0-9.]+) s \((analytic model|step simulator)\), "
             r"peak memory ([0-9.]+) of ([0-9.]+) GiB", first)
assert m, first
# the plan is ranked by the simulator where it replays the step: then the
# export states the simulated step and peak, as plan --json does
sim = p["step_time_source"] == "simulated"
assert (m.group(2) == "step simulator") == sim, (first, p["step_time_source"])
assert abs(float(m.group(1)) - p["step_time_s"]) < 0.0011, (first, p["step_time_s"])
peak = p["simulated_peak_memory_GiB"] if sim else p["memory_GiB"]["total"]
assert abs(float(m.group(3)) - peak) < 0.051, (first, peak)
assert abs(float(m.group(4)) - p["device_memory_GiB"]) < 0.051, (first, p["device_memory_GiB"])
assert first.endswith("for " + p["strategy_string"]), first
PY
done 3<tests/data/six-problems.txt
# --engine any searches every engine and names each plan's; it can only be
# faster than Megatron alone; each plan keeps its engine's rules
g="gpt3-175b --cluster dgx-a100-80g --gpus 1024 --global-batch 1536 --seq-len 2048"
$P plan $g --json --top 40 --engine any >"$tmp/any.json" 2>"$tmp/err" || bad "--engine any: $(cat "$tmp/err")"
$P plan $g --json --top 1 >"$tmp/meg.json" 2>"$tmp/err" || bad "plan $g: $(cat "$tmp/err")"
python3 - "$tmp/any.json" "$tmp/meg.json" <<'PY' || bad "--engine any: plans or engines wrong"
import json, sys
a = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2]))
assert a["engine"] == "any", a["engine"]
assert len(a["plans"]) == 40
assert a["plans"][0]["tokens_per_s"] >= m["plans"][0]["tokens_per_s"]
seen = set()
for p in a["plans"]:
    st, e = p["strategy"], p["engine"]
    seen.add(e)
    if e == "megatron":
        assert st["zero"] <= 1 and st["schedule"] in ("1f1b", "interleaved") and st["offload"] != "params", st
    elif e == "torchtitan":
        # torchtitan only where Megatron cannot: ZeRO-3, a zero-bubble schedule, parameter offload, ...
        assert st["zero"] in (0, 3) and st["offload"] != "optimizer", st
        assert st["zero"] == 3 or st["schedule"] not in ("1f1b", "interleaved") or st["offload"] == "params", st
    else:
        assert e == "deepspeed" and st["cp"] == 1 and st["vpp"] == 1, (e, st)
assert "torchtitan" in seen, seen
PY
$P plan $g --engine any --top 3 >"$tmp/any.txt" 2>"$tmp/err" || bad "--engine any table: $(cat "$tmp/err")"
grep -q "any engine" "$tmp/any.txt" || bad "--engine any: the header does not say so"
grep -Eq "^ 1  tp=.*  (megatron|torchtitan|deepspeed) +compute" "$tmp/any.txt" || bad "--engine any: no engine column: $(cat "$tmp/any.txt")"
# the old spelling fsdp is torchtitan
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 --engine fsdp --json --top 3 \
    >"$tmp/f.json" 2>"$tmp/err" || bad "--engine fsdp: $(cat "$tmp/err")"
grep -q '"engine": "torchtitan"' "$tmp/f.json" || bad "--engine fsdp is not torchtitan"
grep '"zero"' "$tmp/f.json" | grep -qv -e '"zero": 3' -e '"zero": 0' && bad "--engine fsdp: a ZeRO-1/2 plan"
# --export implies --engine; a different --engine is refused; so is a
# --fix outside the engine's space, naming the key
$P plan llama3-8b --cluster dgx-h100 --global-batch 512 --engine deepspeed --export megatron >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "engine is deepspeed" "$tmp/err" || bad "--engine deepspeed --export megatron: $(cat "$tmp/err")"
$P plan llama3-8b --cluster dgx-h100 --global-batch 512 --engine any --export torchtitan >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "engine is any" "$tmp/err" || bad "--engine any --export torchtitan: $(cat "$tmp/err")"
$P plan llama3-8b --cluster dgx-h100 --global-batch 512 --fix "schedule=zb-v" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "megatron cannot run schedule=zb-v" "$tmp/err" || bad "megatron --fix zb-v: $(cat "$tmp/err")"
$P plan llama3-8b --cluster dgx-h100 --global-batch 512 --engine megatrn >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "megatrn" "$tmp/err" || bad "--engine megatrn: $(cat "$tmp/err")"
$P plan llama3-8b --cluster dgx-h100 --global-batch 512 --engine torchtitan --dtype fp16 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "fp16" "$tmp/err" || bad "--engine torchtitan --dtype fp16: $(cat "$tmp/err")"
# DeepSpeed's JSON carries no comment: the prediction goes to stderr; the
# JSON is the plan the deepspeed table ranks first
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 --engine deepspeed --json --top 1 \
    >"$tmp/d1.json" 2>"$tmp/err" || bad "--engine deepspeed: $(cat "$tmp/err")"
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 --export deepspeed \
    >"$tmp/d.json" 2>"$tmp/err" || bad "--export deepspeed: $(cat "$tmp/err")"
grep -Eq "^partita: predicted step [0-9.]* s \((analytic model|step simulator)\), peak memory" "$tmp/err" ||
    bad "deepspeed: no prediction on stderr"
python3 - "$tmp/d1.json" "$tmp/d.json" <<'PY' || bad "deepspeed export is not the plan ranked first"
import json, sys
p = json.load(open(sys.argv[1]))["plans"][0]["strategy"]; d = json.load(open(sys.argv[2]))
assert d["zero_optimization"]["stage"] == p["zero"], (d, p)
assert d["train_micro_batch_size_per_gpu"] == p["mbs"] and d["train_batch_size"] == p["gbs"], (d, p)
assert d.get("tensor_parallel", {}).get("autotp_size", 1) == p["tp"], (d, p)
PY
# torchtitan: a TOML comment, and TOML that parses
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 --export torchtitan \
    >"$tmp/t.toml" 2>"$tmp/err" || bad "--export torchtitan: $(cat "$tmp/err")"
head -n 1 "$tmp/t.toml" | grep -q "^# partita: predicted step" || bad "torchtitan export: no prediction comment"
python3 -c 'import sys, tomllib; tomllib.load(open(sys.argv[1], "rb"))' "$tmp/t.toml" || bad "torchtitan export is not TOML"

# mixture of experts: --fix and --space take ep and etp; the Megatron export
# writes the expert flags; DeepSpeed refuses with the reason; a dense model
# refuses ep
$P plan mixtral-8x7b --cluster dgx-h100 --gpus 64 --global-batch 256 --seq-len 4096 \
    --fix "ep=8 etp=1" --space "pp=2,4" --export megatron >"$tmp/moe" 2>"$tmp/err" ||
    bad "mixtral megatron export failed: $(cat "$tmp/err")"
grep -q -- "--num-experts 8" "$tmp/moe" || bad "mixtral export lacks --num-experts 8"
grep -q -- "--expert-model-parallel-size 8" "$tmp/moe" || bad "mixtral export lacks --expert-model-parallel-size 8"
$P plan mixtral-8x7b --cluster dgx-h100 --gpus 64 --global-batch 256 --seq-len 4096 --json \
    --space "ep=4" >"$tmp/moe.json" 2>"$tmp/err" || bad "mixtral --space ep=4 failed: $(cat "$tmp/err")"
grep '"ep"' "$tmp/moe.json" | grep -qv '"ep": 4' && bad "--space ep=4 not kept"
grep -q '"ep_comm"' "$tmp/moe.json" || bad "plan --json lacks time_s.ep_comm"
$P plan mixtral-8x7b --cluster dgx-h100 --gpus 64 --global-batch 256 --seq-len 4096 \
    --export deepspeed >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "expert" "$tmp/err" || bad "deepspeed MoE export: not refused with a reason"
$P plan llama3-8b --cluster dgx-h100 --global-batch 512 --fix "ep=2" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'mixture-of-experts' "$tmp/err" || bad "--fix ep=2 on a dense model: not refused"

# bad input
$P plan llama3-8b --cluster dgx-h100 --global-batch 512 --space "tq=2" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'tq' "$tmp/err" || bad "--space tq=2: not refused by name"
$P plan llama3-8b --cluster dgx-h100 --global-batch 512 --fix "pp=x" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'pp=x' "$tmp/err" || bad "--fix pp=x: not refused by name"
$P plan llama3-8b --cluster dgx-h100 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || bad "plan without --global-batch: status not 2"
# re-ranking checks only what the simulator checks independently: the
# pipeline of a pp > 1 plan priced in closed form (not zb-v or dualpipe, which
# the analytic model prices by replaying the same orders), and the data-
# parallel collectives of a plan with dp*cp > 1 (replayed bucket by bucket,
# priced by formula); a plan with neither adds the same sums in both models
# (analytic == simulated to the bit) and is reported as the analytic model's.
# gpt3-175b --engine any, and its pp=1 plans (ZeRO-3 over 128 ranks: their
# gathers' overlap and the compute it slows are replayed event by event).
for fix in "" "--fix pp=1"; do
$P plan gpt3-175b --cluster dgx-a100-80g --gpus 1024 --global-batch 1536 --seq-len 2048 \
    --engine any --top 8 --verify --json $fix >"$tmp/any.json" 2>"$tmp/err" || bad "plan --engine any --verify $fix: $(cat "$tmp/err")"
python3 - "$tmp/any.json" <<'PY' || bad "step_time_source does not say which model checked each plan ($fix)"
import json, sys
plans = json.load(open(sys.argv[1]))["plans"]
assert len(plans) >= 3
for p in plans:
    s = p["strategy"]
    checked = (s["pp"] > 1 and s["schedule"] not in ("zb-v", "dualpipe")) or s["dp"] * s["cp"] > 1
    if checked:
        assert p["step_time_source"] == "simulated", p
        assert abs(p["simulated_step_time_s"] / p["analytic_step_time_s"] - 1) <= 0.03, p
    else:
        assert p["step_time_source"] == "analytic", p
        assert "simulated_step_time_s" not in p, p  # nothing was checked: no number claims it
PY
done
# every published Megatron run whose strategy the model says fits: the best
# plan is no slower than the published strategy (a run predicted not to fit is
# outside the search's space)
runs=data/validation/published_runs.csv
    $P validate "$runs" --plans --json >"$tmp/vp" 2>"$tmp/err" || bad "validate --plans failed: $(cat "$tmp/err")"
    python3 - "$tmp/vp" <<'PY' || bad "a best plan is slower than the published strategy"
import json, sys
j = json.load(open(sys.argv[1]))
assert len(j["runs"]) >= 20, len(j["runs"])
assert j["published_fits"] >= 24, j["published_fits"]
assert j["published_fits"] == sum(r["published_fits"] for r in j["runs"])
assert j["published_searched"] == sum(r["published_searched"] for r in j["runs"])
assert j["published_searched"] >= 24, j["published_searched"]
assert j["best_no_worse"] == j["published_searched"], (j["best_no_worse"], j["published_searched"])
PY
# a first plan that offloads leans on the CPU Adam price no measured run
# checks: the table says so and names the best plan without offload
$P plan gpt3-175b --cluster dgx-a100-80g --gpus 1024 --global-batch 1536 --seq-len 2048 --report "$tmp/off.html" \
    >"$tmp/off.out" 2>&1 || bad "plan gpt3-175b (1024 A100): $(cat "$tmp/off.out")"
if grep -q '^ 1  .*offload=' "$tmp/off.out"; then
    grep -q '^note: #1 offloads the optimizer to the host; .*no measured run checks; the best plan without it is [0-9.]*% slower: .*offload=none$' "$tmp/off.out" ||
        bad "plan: #1 offloads but the note does not say so: $(grep -A2 '^step s' "$tmp/off.out")"
    grep -q '<p class="note">Note: #1 offloads the optimizer to the host; ' "$tmp/off.html" ||
        bad "plan --report: #1 offloads but the report's note does not say so"
else
    grep -q '^note: #1 offloads' "$tmp/off.out" && bad "plan: an offload note without an offloading #1"
fi
# Llama 4 (chunked attention): Megatron-LM cannot run it, so the default
# engine says why (exit 2); torchtitan's llama4 takes it without context
# parallelism, and the plan ranked first is what --export writes
$P plan llama4-scout-17b-16e --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 8192 >"$tmp/l4" 2>&1
[ $? -eq 2 ] || bad "llama4 under --engine megatron: exit status not 2"
grep -q "Megatron-LM has no chunked attention" "$tmp/l4" || bad "llama4 under megatron: $(cat "$tmp/l4")"
$P plan llama4-scout-17b-16e --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 32768 --engine torchtitan \
    --json --top 5 >"$tmp/l4.json" 2>"$tmp/err" || bad "plan llama4 --engine torchtitan: $(cat "$tmp/err")"
grep '"cp"' "$tmp/l4.json" | grep -qv '"cp": 1' && bad "llama4 under torchtitan: a plan with cp > 1"
$P plan llama4-scout-17b-16e --cluster dgx-h100 --gpus 64 --global-batch 512 --seq-len 32768 \
    --export torchtitan >"$tmp/l4.toml" 2>"$tmp/err" || bad "plan llama4 --export torchtitan: $(cat "$tmp/err")"
grep -q '^flavor = "17bx16e"$' "$tmp/l4.toml" || bad "llama4 export: no 17bx16e flavor: $(cat "$tmp/l4.toml")"
exit $fail
