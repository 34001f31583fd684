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
$P sweep "$tmp/grid.json" --json --threads 2 >"$tmp/j2" 2>&1
cmp -s "$tmp/j" "$tmp/j2" || bad "sweep --json: --threads 2 differs"
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
assert p.count("<circle") == 16, p.count("<circle")
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
refused_saying 'command: "serve" is not supported by this build' $P sweep "$tmp/bad.json"
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
