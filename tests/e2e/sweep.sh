#!/bin/sh
# End-to-end `partita sweep GRID.json` (issue 20, SPEC section 11) on one
# process: the grid's questions answered in grid order (models outermost,
# objectives innermost), each answer's plan the one `plan --top 1 --json`
# prints for that question, the cost objective's dollars from the cluster's
# price, the Pareto front non-dominated, the same bytes twice and for any
# --threads, the table and the report; errors in GRID.json name the file,
# the key and the value, with exit status 2.
. "$(dirname "$0")/lib/common.sh" || exit 1

# SPEC section 11's example grid
cat >"$tmp/grid.json" <<'EOF'
{"command": "plan", "models": ["llama3-70b", "gpt3-175b"], "clusters": ["dgx-h100", "dgx-b200"],
 "gpus": [64, 256], "global_batch": [512], "seq_len": [4096], "objective": ["step", "cost"]}
EOF
$P sweep "$tmp/grid.json" --json >"$tmp/j" 2>"$tmp/err" || bad "sweep --json failed: $(cat "$tmp/err")"
$P sweep "$tmp/grid.json" --json --threads 1 >"$tmp/j1" 2>&1
cmp -s "$tmp/j" "$tmp/j1" || bad "sweep --json: --threads 1 differs from the default"
# (the default is one thread a processor: on two processors --threads 2 is it)
if [ "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" != 2 ]; then
    $P sweep "$tmp/grid.json" --json --threads 2 >"$tmp/j2" 2>&1
    cmp -s "$tmp/j" "$tmp/j2" || bad "sweep --json: --threads 2 differs"
fi
# two questions asked of plan directly: the same plan object
$P plan gpt3-175b --cluster dgx-h100 --gpus 256 --global-batch 512 --seq-len 4096 --top 1 --json >"$tmp/p11" 2>&1 ||
    bad "plan gpt3-175b failed: $(cat "$tmp/p11")"
$P plan llama3-70b --cluster dgx-b200 --gpus 64 --global-batch 512 --seq-len 4096 --top 1 --json >"$tmp/p5" 2>&1 ||
    bad "plan llama3-70b failed: $(cat "$tmp/p5")"
python3 - "$tmp/j" "$tmp/p11" "$tmp/p5" <<'PY' || bad "sweep --json: not as SPEC section 11 says"
import itertools, json, sys
j = json.load(open(sys.argv[1]))
assert j["questions"] == 16 and len(j["answers"]) == 16
want = list(itertools.product(["llama3-70b", "gpt3-175b"], ["dgx-h100", "dgx-b200"], [64, 256], [512], [4096],
                              ["step", "cost"]))
for a, w in zip(j["answers"], want):
    q = a["question"]
    assert (q["model"], q["cluster"], q["gpus"], q["global_batch"], q["seq_len"], q["objective"]) == w, (q, w)
    assert q["command"] == "plan" and q["dtype"] == "bf16"
    assert len(a["plans"]) == 1, q
    p = a["plans"][0]
    for k in ("strategy", "strategy_string", "step_time_s", "tokens_per_s", "mfu", "memory_GiB", "time_s",
              "fits", "engine", "step_time_source"):
        assert k in p, k
    # dollars per 1e9 tokens = hours per 1e9 tokens x devices x price ($/device-hour)
    price = {"dgx-h100": None, "dgx-b200": None}
    h = 1e9 / p["tokens_per_s"] / 3600
    assert abs(a["hours_per_billion_tokens"] - h) <= 1e-5 * h, (a["hours_per_billion_tokens"], h)
    assert a["dollars_per_billion_tokens"] > 0
# the same question under both objectives: the same plan (one device count: the same order)
for k in range(0, 16, 2):
    assert j["answers"][k]["plans"] == j["answers"][k + 1]["plans"], k
# the price per device-hour is the same for one cluster at 64 and 256 GPUs
for m in range(2):
    for c in range(2):
        a, b = j["answers"][m * 8 + c * 4], j["answers"][m * 8 + c * 4 + 2]
        ra = a["dollars_per_billion_tokens"] / a["hours_per_billion_tokens"] / a["question"]["gpus"]
        rb = b["dollars_per_billion_tokens"] / b["hours_per_billion_tokens"] / b["question"]["gpus"]
        assert abs(ra - rb) <= 1e-4 * ra, (ra, rb)
for path, idx in ((sys.argv[2], 10), (sys.argv[3], 4)):
    p = json.load(open(path))["plans"][0]
    s = j["answers"][idx]["plans"][0]
    assert p == s, (idx, p["strategy_string"], s["strategy_string"])
# the Pareto front: no answer both faster and cheaper than one on it, every other dominated
pts = [(a["hours_per_billion_tokens"], a["dollars_per_billion_tokens"]) for a in j["answers"]]
front = j["pareto_front"]
assert front == sorted(front) and front
def dominated(i):
    return any(pts[k][0] <= pts[i][0] and pts[k][1] <= pts[i][1] and pts[k] != pts[i] for k in range(len(pts)))
for i in range(16):
    if i in front:
        assert not dominated(i), i
    elif not dominated(i):
        assert any(pts[f] == pts[i] for f in front), i
PY

# the table: one line per question, grid order, then the front
$P sweep "$tmp/grid.json" >"$tmp/t" 2>"$tmp/err" || bad "sweep failed: $(cat "$tmp/err")"
grep -q '^sweep .*grid.json: 16 questions (2 models x 2 clusters x 2 device counts x 1 batch x 1 sequence length x 2 objectives)$' "$tmp/t" ||
    bad "sweep: no header line: $(head -n 1 "$tmp/t")"
[ "$(grep -c '^ *[0-9][0-9]*  [a-z]' "$tmp/t")" -eq 16 ] || bad "sweep: not 16 answer lines"
sed -n 's/^ *16  \(gpt3-175b\) *dgx-b200 *256 .* cost .*/\1/p' "$tmp/t" | grep -q gpt3 || bad "sweep: line 16 is not gpt3-175b on 256 dgx-b200 (cost)"
grep -q '^Pareto front, time against dollars' "$tmp/t" || bad "sweep: no Pareto front line"

# the report: self-contained, the grid, the front chart with labelled points, every answer
$P sweep "$tmp/grid.json" --report "$tmp/s.html" >"$tmp/t2" 2>"$tmp/err" || bad "sweep --report failed: $(cat "$tmp/err")"
cmp -s "$tmp/t" "$tmp/t2" || bad "sweep --report changed the table"
for pat in 'http:' 'https:' 'src=' '@import' '<link' '<script'; do
    grep -qiF -- "$pat" "$tmp/s.html" && bad "sweep --report: the report holds \"$pat\""
done
python3 - "$tmp/s.html" "$tmp/j" <<'PY' || bad "sweep --report: contents not as expected"
import json, re, sys
h = open(sys.argv[1]).read()
j = json.load(open(sys.argv[2]))
for sec in ("question", "pareto", "plans"):
    assert '<section id="%s">' % sec in h, sec
p = re.search(r'<section id="pareto">(.*?)</section>', h, re.S).group(1)
assert "hours per 10^9 tokens" in p and "dollars per 10^9 tokens" in p and "(log scale)" in p
assert "llama3-70b" in p and "gpt3-175b" in p and "Pareto front" in p, "legend"
labels = re.findall(r'font-size="11">#(\d+)</text>', p)
assert sorted(int(x) - 1 for x in labels) == j["pareto_front"], (labels, j["pareto_front"])
assert p.count('<circle cx') == 16 + len(j["pareto_front"]), p.count("<circle")  # a dot per answer, a ring per front point
assert p.count('r="4"') == 16 and p.count('r="7" fill="none"') == len(j["pareto_front"])
rows = re.findall(r'<tr><td>(\d+)</td><td class="n">', re.search(r'<section id="plans">(.*?)</section>', h, re.S).group(1))
assert [int(r) for r in rows] == list(range(1, 17)), rows
PY

# a question nothing fits: an answer saying so, not a failure
cat >"$tmp/nofit.json" <<'EOF'
{"models": ["gpt3-175b"], "clusters": ["dgx-h100"], "gpus": [8], "global_batch": [8]}
EOF
$P sweep "$tmp/nofit.json" --json >"$tmp/nf" 2>"$tmp/err" || bad "sweep with no fit failed: $(cat "$tmp/err")"
python3 - "$tmp/nf" <<'PY' || bad "sweep: a question nothing fits is not answered as such"
import json, sys
j = json.load(open(sys.argv[1]))
a = j["answers"][0]
assert a["plans"] == [] and "no strategy fits" in a["no_fit"], a
assert a["question"]["seq_len"] == 2048 and a["question"]["objective"] == "step", a["question"]
assert j["pareto_front"] == []
PY

# ---- a serving grid: each answer `serve --top 1`'s plan ----------------------
cat >"$tmp/sgrid.json" <<'EOF'
{"command": "serve", "models": ["llama3-8b", "mixtral-8x7b"], "clusters": ["dgx-h100", "dgx-a100-80g"],
 "gpus": [8, 16], "isl": [2048], "osl": [32], "rate": [8], "ttft_ms": [500], "tpot_ms": [20, 60]}
EOF
$P sweep "$tmp/sgrid.json" --json >"$tmp/sj" 2>"$tmp/err" || bad "serve sweep --json failed: $(cat "$tmp/err")"
$P sweep "$tmp/sgrid.json" --json --threads 1 >"$tmp/sj1" 2>&1
cmp -s "$tmp/sj" "$tmp/sj1" || bad "serve sweep --json: --threads 1 differs from the default"
# #13 (mixtral-8x7b on 8 x dgx-a100-80g, TPOT <= 20 ms: missed, serve exits 1) and #4
$P serve mixtral-8x7b --cluster dgx-a100-80g --gpus 8 --isl 2048 --osl 32 --rate 8 --ttft-ms 500 --tpot-ms 20 \
    --top 1 --json >"$tmp/s13" 2>"$tmp/e13"
[ $? -eq 1 ] || bad "serve mixtral-8x7b with TPOT <= 20 ms: not exit 1 (nothing meets the objectives)"
$P serve llama3-8b --cluster dgx-h100 --gpus 16 --isl 2048 --osl 32 --rate 8 --ttft-ms 500 --tpot-ms 60 \
    --top 1 --json >"$tmp/s4" 2>&1 || bad "serve llama3-8b failed: $(cat "$tmp/s4")"
python3 - "$tmp/sj" "$tmp/s13" "$tmp/s4" <<'PY2' || bad "serve sweep --json: not as SPEC section 11 says"
import itertools, json, sys
j = json.load(open(sys.argv[1]))
assert j["questions"] == 16 and len(j["answers"]) == 16
want = list(itertools.product(["llama3-8b", "mixtral-8x7b"], ["dgx-h100", "dgx-a100-80g"], [8, 16], [2048], [32],
                              [8.0], [500.0], [20.0, 60.0]))
price = {"dgx-h100": 12.29, "dgx-a100-80g": 5.12}  # data/clusters.json
for a, w in zip(j["answers"], want):
    q = a["question"]
    assert (q["model"], q["cluster"], q["gpus"], q["isl"], q["osl"], q["rate"], q["ttft_ms"], q["tpot_ms"]) == w, (q, w)
    assert q["command"] == "serve" and q["load"] == "rate" and q["percentile"] == 90, q
    assert (q["dtype"], q["kv_dtype"], q["engine"]) == ("bf16", "bf16", "vllm"), q
    assert len(a["plans"]) == 1, q
    p = a["plans"][0]
    for k in ("strategy", "strategy_string", "tp", "pp", "ep", "replicas", "batch", "tokens_per_s",
              "tokens_per_s_per_gpu", "ttft_ms", "tpot_ms", "ttft_ms_p", "tpot_ms_p", "meets_slo", "memory_GiB", "fits"):
        assert k in p, k
    # dollars per 10^6 output tokens: the deployment's price over its tokens/s
    d = q["gpus"] * price[q["cluster"]] / 3600 / p["tokens_per_s"] * 1e6
    assert abs(a["dollars_per_million_tokens"] - d) <= 1e-5 * d, (a["dollars_per_million_tokens"], d)
    assert a["any_meets_slo"] == p["meets_slo"], q
# the answers serve gives, plan object for plan object
for path, idx in ((sys.argv[2], 12), (sys.argv[3], 3)):
    s = json.load(open(path))
    assert j["answers"][idx]["plans"] == s["plans"], (idx, s["plans"][0]["strategy_string"])
    assert j["answers"][idx]["candidates_evaluated"] == s["candidates_evaluated"]
    assert j["answers"][idx]["any_meets_slo"] == s["any_meets_slo"]
assert not j["answers"][12]["any_meets_slo"] and j["answers"][13]["any_meets_slo"], "TPOT 20 ms missed, 60 met"
# the front: among answers meeting their objectives, none both sooner (TTFT p90) and cheaper
ok = [i for i, a in enumerate(j["answers"]) if a["plans"] and a["plans"][0]["meets_slo"]]
pts = {i: (j["answers"][i]["plans"][0]["ttft_ms_p"], j["answers"][i]["dollars_per_million_tokens"]) for i in ok}
front = j["pareto_front"]
assert front == sorted(front) and front and 12 not in front
def dominated(i):
    return any(pts[k][0] <= pts[i][0] and pts[k][1] <= pts[i][1] and pts[k] != pts[i] for k in ok)
for i in ok:
    if i in front:
        assert not dominated(i), i
    elif not dominated(i):
        assert any(pts[f] == pts[i] for f in front), i
PY2
# the table (with the report written): a line per question, then the front
$P sweep "$tmp/sgrid.json" --report "$tmp/ss.html" >"$tmp/st" 2>"$tmp/err" || bad "serve sweep --report failed: $(cat "$tmp/err")"
grep -q '^sweep .*sgrid.json: 16 serving questions (2 models x 2 clusters x 2 device counts x 1 prompt length x 1 output length x 1 load x 1 TTFT objective x 2 TPOT objectives)$' "$tmp/st" ||
    bad "serve sweep: no header line: $(head -n 1 "$tmp/st")"
[ "$(grep -c '^ *[0-9][0-9]*  [a-z]' "$tmp/st")" -eq 16 ] || bad "serve sweep: not 16 answer lines"
grep -q '^  13  mixtral-8x7b  *dgx-a100-80g  *8  *2048  *32  *8 req/s  *500  *20 .* no  *[0-9.]*  tp=' "$tmp/st" ||
    bad "serve sweep: line 13 is not mixtral-8x7b on 8 dgx-a100-80g missing its objectives: $(grep '^  13 ' "$tmp/st")"
grep -q '^Pareto front, TTFT p90 against dollars per 10^6 output tokens' "$tmp/st" || bad "serve sweep: no front line"
for pat in 'http:' 'https:' 'src=' '@import' '<link' '<script'; do
    grep -qiF -- "$pat" "$tmp/ss.html" && bad "serve sweep --report: the report holds \"$pat\""
done
python3 - "$tmp/ss.html" "$tmp/sj" <<'PY2' || bad "serve sweep --report: contents not as expected"
import json, re, sys
h = open(sys.argv[1]).read()
j = json.load(open(sys.argv[2]))
for sec in ("question", "pareto", "plans"):
    assert '<section id="%s">' % sec in h, sec
p = re.search(r'<section id="pareto">(.*?)</section>', h, re.S).group(1)
assert "TTFT p90, ms (log scale)" in p and "dollars per 10^6 output tokens (log scale)" in p
assert "llama3-8b" in p and "mixtral-8x7b" in p and "Pareto front" in p, "legend"
labels = re.findall(r'font-size="11">#(\d+)</text>', p)
assert sorted(int(x) - 1 for x in labels) == j["pareto_front"], (labels, j["pareto_front"])
met = sum(1 for a in j["answers"] if a["plans"] and a["plans"][0]["meets_slo"])
assert p.count('r="4"') == met, (p.count('r="4"'), met)  # a dot per answer meeting its objectives
assert "Answers that miss their objectives (%d) are left out" % (16 - met) in p
rows = re.findall(r'<tr><td>(\d+)</td><td class="n">', re.search(r'<section id="plans">(.*?)</section>', h, re.S).group(1))
assert [int(r) for r in rows] == list(range(1, 17)), rows
PY2
# a serving question nothing fits: an answer saying why, not a failure
printf '{"command": "serve", "models": ["llama3.1-405b"], "clusters": ["dgx-a100-80g"], "gpus": [8], "isl": [2048], "osl": [128]}\n' >"$tmp/snf.json"
$P sweep "$tmp/snf.json" --json >"$tmp/snf" 2>"$tmp/err" || bad "serve sweep with no fit failed: $(cat "$tmp/err")"
python3 - "$tmp/snf" <<'PY2' || bad "serve sweep: a question nothing fits is not answered as such"
import json, sys
j = json.load(open(sys.argv[1]))
a = j["answers"][0]
assert a["plans"] == [] and "needs 94.5 GiB of weights per device" in a["no_fit"], a
assert a["question"]["load"] == "offline" and "rate" not in a["question"], a["question"]
assert j["pareto_front"] == []
PY2

# errors in GRID.json: the file, the key and the value; exit 2
g() { printf '%s\n' "$1" >"$tmp/bad.json"; }
g '{"models": ["llama3-8b"], "clusters": ["dgx-h100"], "gpus": [8], "global_batch": [64], "gpu": [8]}'
refused_saying 'bad.json:1:.*unknown key "gpu"' $P sweep "$tmp/bad.json"
g '{"models": ["llama3-8b", "no-such-model"], "clusters": ["dgx-h100"], "gpus": [8], "global_batch": [64]}'
refused_saying 'bad.json:1:[0-9]*: models\[1\]: "no-such-model" cannot be loaded' $P sweep "$tmp/bad.json"
g '{"models": ["llama3-8b"], "clusters": ["dgx-h100"], "gpus": [8, 12], "global_batch": [64]}'
refused_saying 'bad.json:1:[0-9]*: gpus\[1\]: 12 does not fit cluster dgx-h100' $P sweep "$tmp/bad.json"
g '{"models": ["llama3-8b"], "clusters": ["dgx-h100"], "gpus": [8], "global_batch": [0]}'
refused_saying 'global_batch\[0\]: 0 is not a whole number' $P sweep "$tmp/bad.json"
g '{"models": ["llama3-8b"], "clusters": ["dgx-h100"], "gpus": [8], "global_batch": [64], "objective": ["goodput"]}'
refused_saying 'objective\[0\]: "goodput" is not "step" or "cost"' $P sweep "$tmp/bad.json"
g '{"command": "serve", "models": ["llama3-8b"], "clusters": ["dgx-h100"], "gpus": [8], "global_batch": [64]}'
refused_saying 'bad.json:1:[0-9]*: global_batch: \[64\] is a key of plan grids, and this grid asks serving questions' $P sweep "$tmp/bad.json"
g '{"models": ["llama3-8b"], "clusters": ["dgx-h100"], "gpus": [8], "global_batch": [64], "rate": [4]}'
refused_saying 'bad.json:1:[0-9]*: rate: \[4\] is a key of serving grids ("command": "serve"), and this grid asks plan' $P sweep "$tmp/bad.json"
g '{"command": "eval", "models": ["llama3-8b"], "clusters": ["dgx-h100"], "gpus": [8], "global_batch": [64]}'
refused_saying 'command: "eval" is not "plan" or "serve"' $P sweep "$tmp/bad.json"
# a serving grid's own keys: file, line, key (with the index) and value
s() { printf '{"command": "serve", "models": ["llama3-8b"], "clusters": ["dgx-h100"], "gpus": [8], %s}\n' "$1" >"$tmp/bad.json"; }
s '"osl": [64]'
refused_saying 'bad.json: isl: is missing' $P sweep "$tmp/bad.json"
s '"isl": [512, 0], "osl": [64]'
refused_saying 'bad.json:1:[0-9]*: isl\[1\]: 0 is not a whole number in \[1, 16777216\]' $P sweep "$tmp/bad.json"
s '"isl": [512], "osl": [64], "rate": [4, -1]'
refused_saying 'bad.json:1:[0-9]*: rate\[1\]: -1 is not a number in \[1e-09, 1e+06\]' $P sweep "$tmp/bad.json"
s '"isl": [512], "osl": [64], "tpot_ms": ["fast"]'
refused_saying 'tpot_ms\[0\]: "fast" is not a number' $P sweep "$tmp/bad.json"
s '"isl": [512], "osl": [64], "ttft_ms": 500'
refused_saying 'ttft_ms: 500 is not a list' $P sweep "$tmp/bad.json"
s '"isl": [512], "osl": [64], "percentile": 95'
refused_saying 'bad.json:1:[0-9]*: percentile: 95 is not 50, 90 or 99' $P sweep "$tmp/bad.json"
s '"isl": [512], "osl": [64], "dtype": "fp4"'
refused_saying 'dtype: "fp4" needs fp4 tensor cores, and cluster dgx-h100 (clusters\[0\]) has h100-sxm-80g' $P sweep "$tmp/bad.json"
s '"isl": [512], "osl": [64], "kv_dtype": "fp4"'
refused_saying 'kv_dtype: "fp4" is not "bf16" or "fp8"' $P sweep "$tmp/bad.json"
s '"isl": [512], "osl": [64], "engine": "tgi"'
refused_saying 'engine: "tgi" is not "vllm", "sglang" or "trtllm"' $P sweep "$tmp/bad.json"
s '"isl": [512], "osl": [64], "ttft": [500]'
refused_saying 'unknown key "ttft"' $P sweep "$tmp/bad.json"
g '{"models": ["llama3-8b"], "clusters": ["dgx-h100"], "global_batch": [64]}'
refused_saying 'bad.json: gpus: is missing' $P sweep "$tmp/bad.json"
g '{"models": [], "clusters": ["dgx-h100"], "gpus": [8], "global_batch": [64]}'
refused_saying 'models: \[\] is not a list of 1 to 64 values' $P sweep "$tmp/bad.json"
g '{"models": ["llama3-8b"], "clusters": ["dgx-h100"], "gpus": [8], "global_batch": [64], "dtype": "int4"}'
refused_saying 'dtype: "int4" is not' $P sweep "$tmp/bad.json"
g '{"models": ["llama3-8b"], "clusters": ["dgx-h100"], "gpus": [8], "global_batch": [64],'
refused_saying 'bad.json:2:.*invalid JSON' $P sweep "$tmp/bad.json"
# cost needs a price: a cluster file without one
cat >"$tmp/noprice.json" <<'EOF'
{"name": "noprice", "device": "h100-sxm-80g", "devices": 64,
 "levels": [{"name": "nvlink", "size": 8, "bw_GBps": 450, "latency_us": 2},
            {"name": "ib", "size": 64, "bw_GBps": 50, "latency_us": 6}]}
EOF
g "{\"models\": [\"llama3-8b\"], \"clusters\": [\"$tmp/noprice.json\"], \"gpus\": [8], \"global_batch\": [64], \"objective\": [\"step\", \"cost\"]}"
refused_saying 'objective\[1\]: "cost" needs a price.*no price_per_device_hour' $P sweep "$tmp/bad.json"
refused_saying 'no such file\|cannot' $P sweep "$tmp/missing.json"
refused_saying 'sweep: give a GRID.json' $P sweep
refused_saying 'unknown option "--bogus"' $P sweep "$tmp/grid.json" --bogus

exit $fail
