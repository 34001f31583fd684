#!/bin/sh
# End-to-end recommendation models (issue 19): `plan` shards DLRM-DCNv2's
# and DLRM's tables on 8 and 64 B200s (the issue's done-when: a plan that
# fits, samples/s, the time split into embedding lookups, all-to-all, dense
# compute and all-reduce, each table's sharding type and devices, and
# Partita's plan no slower than the TorchRec-style greedy plan); the same
# bytes twice; --export torchrec is the golden file; a user's graph file
# with embedding_bag layers is planned, and its mistakes are refused (exit 2)
# naming the file, line, field and value; options that do not apply are
# refused.
. "$(dirname "$0")/lib/common.sh" || exit 1

for m in dlrm-dcnv2 dlrm; do
    for n in 8 64; do
        if ! $P plan $m --cluster dgx-b200 --gpus $n --global-batch 55296 --json >"$tmp/j" 2>"$tmp/e"; then
            bad "plan $m --gpus $n: exit $? $(cat "$tmp/e")"
            continue
        fi
        python3 - "$tmp/j" $n <<'PY' || bad "plan $m --gpus $n --json: keys or values"
import json, sys
j = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert j["kind"] == "recommendation" and j["devices"] == n and j["tables"] == 26, j
p, b = j["plans"][0], j["baseline"]
assert p["partitioner"] == "partita" and b["partitioner"] == "torchrec-greedy"
assert p["fits"] is True and p["samples_per_s"] > 0, p["fits"]
t = p["time_s"]
assert set(t) == {"embedding_lookup", "all_to_all", "dense_compute", "all_reduce"}, t
# numbers are printed to 6 significant digits
assert abs(sum(t.values()) - p["step_time_s"]) <= 1e-5 * p["step_time_s"], (t, p["step_time_s"])
assert abs(p["samples_per_s"] * p["step_time_s"] - 55296) < 1e-5 * 55296
assert p["step_time_s"] <= b["step_time_s"], (p["step_time_s"], b["step_time_s"])
assert abs(j["speedup_over_baseline"] - b["step_time_s"] / p["step_time_s"]) < 1e-5 * j["speedup_over_baseline"]
types = {"data_parallel", "table_wise", "column_wise", "row_wise", "table_row_wise", "grid_shard"}
assert len(p["embedding_sharding"]) == 26
for e in p["embedding_sharding"]:
    assert e["sharding_type"] in types, e
    assert e["compute_kernel"] in ("fused", "fused_uvm_caching", "dense"), e
    assert e["devices"] and all(0 <= d < n for d in e["devices"]), e
assert p["memory_GiB"]["hbm"] <= p["memory_GiB"]["hbm_usable"]
PY
    done
done

# the same bytes twice
$P plan dlrm-dcnv2 --cluster dgx-b200 --gpus 64 --global-batch 55296 --json >"$tmp/a" 2>&1
$P plan dlrm-dcnv2 --cluster dgx-b200 --gpus 64 --global-batch 55296 --json >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b" || bad "plan dlrm-dcnv2 --json differs between two runs"

# --export torchrec: the golden file of tests/test_recsys.c, to stdout and to --out
$P plan dlrm-dcnv2 --cluster dgx-b200 --gpus 8 --global-batch 55296 --export torchrec >"$tmp/x.py" 2>"$tmp/e" ||
    bad "export torchrec: $(cat "$tmp/e")"
cmp -s "$tmp/x.py" tests/golden/export/torchrec_dlrm_dcnv2_b200x8.py || bad "export torchrec differs from the golden"
$P plan dlrm-dcnv2 --cluster dgx-b200 --gpus 8 --global-batch 55296 --export torchrec --out "$tmp/y.py" >"$tmp/o" 2>&1 ||
    bad "export torchrec --out: $(cat "$tmp/o")"
cmp -s "$tmp/x.py" "$tmp/y.py" || bad "export torchrec --out differs from stdout"
[ -s "$tmp/o" ] && bad "export torchrec --out wrote on stdout"
python3 -c "import ast,sys; ast.parse(open(sys.argv[1]).read())" "$tmp/x.py" || bad "export torchrec is not Python"

# the human table names both partitioners and every table
$P plan dlrm-dcnv2 --cluster dgx-b200 --gpus 8 --global-batch 55296 >"$tmp/t" 2>"$tmp/e" || bad "plan table: $(cat "$tmp/e")"
grep -q "^partita " "$tmp/t" && grep -q "^torchrec-greedy " "$tmp/t" || bad "plan table: no partitioner rows"
[ "$(grep -c '^t[0-9]' "$tmp/t")" -eq 26 ] || bad "plan table: not 26 tables"

# a user's graph file
cat >"$tmp/rec.json" <<'J'
{"name": "tiny-dlrm", "sample": "click", "layers": [
  {"name": "dense", "op": "input", "shape": [13, 1, 1]},
  {"name": "bot", "op": "linear", "out": 64, "relu": true},
  {"name": "user", "op": "embedding_bag", "rows": 2000000, "dim": 64, "pooling": 20, "hit_rate": 0.9},
  {"name": "item", "op": "embedding_bag", "rows": 500000, "dim": 64, "pooling": 1, "optimizer": "sgd"},
  {"name": "x", "op": "interaction", "in": "bot"},
  {"name": "top", "op": "linear", "out": 1},
  {"name": "loss", "op": "loss"}]}
J
$P plan "$tmp/rec.json" --cluster dgx-h100 --gpus 16 --global-batch 4096 --json >"$tmp/j" 2>"$tmp/e" ||
    bad "plan graph file: $(cat "$tmp/e")"
python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
assert j['model'] == 'tiny-dlrm' and j['tables'] == 2 and j['plans'][0]['fits'], j
" "$tmp/j" || bad "plan graph file: JSON"
# a table name with a quote and a backslash stays one Python string
sed 's/"name": "user"/"name": "us\\"er\\\\x"/' "$tmp/rec.json" >"$tmp/q.json"
$P plan "$tmp/q.json" --cluster dgx-h100 --gpus 8 --global-batch 4096 --export torchrec >"$tmp/q.py" 2>"$tmp/e" ||
    bad "export quoted name: $(cat "$tmp/e")"
python3 -c "
import ast, sys
t = ast.parse(open(sys.argv[1]).read())
keys = [k.value for n in ast.walk(t) if isinstance(n, ast.Dict) for k in n.keys]
assert 'us\"er\\\\x' in keys, keys
" "$tmp/q.py" || bad "export quoted name: not the same name in Python"
sed 's/"pooling": 20, "hit_rate": 0.9/"pooling": 20, "hit_rate": 1.5/' "$tmp/rec.json" >"$tmp/bad1.json"
expect2 "hit_rate 1.5" "bad1.json:4:" $P plan "$tmp/bad1.json" --cluster dgx-h100 --global-batch 4096
grep -q 'layers\[2\].hit_rate' "$tmp/err" && grep -q '1.5' "$tmp/err" || bad "hit_rate 1.5: $(cat "$tmp/err")"
sed 's/"op": "embedding_bag", "rows": 500000/"op": "embedding_bag", "in": "bot", "rows": 500000/' "$tmp/rec.json" >"$tmp/bad2.json"
expect2 "embedding_bag with in" "layers[3].in" $P plan "$tmp/bad2.json" --cluster dgx-h100 --global-batch 4096
sed 's/"dim": 64, "pooling": 1/"dim": 32, "pooling": 1/' "$tmp/rec.json" >"$tmp/bad3.json"
expect2 "dot with a 32-wide table" "has dim 32" $P plan "$tmp/bad3.json" --cluster dgx-h100 --global-batch 4096
sed 's/"precision"//; s/"optimizer": "sgd"/"optimizer": "lamb"/' "$tmp/rec.json" >"$tmp/bad4.json"
expect2 "optimizer lamb" "\"lamb\" is not sgd" $P plan "$tmp/bad4.json" --cluster dgx-h100 --global-batch 4096

# what does not apply, and a batch the devices do not divide
expect2 "--seq-len" "--seq-len does not apply" $P plan dlrm --cluster dgx-b200 --gpus 8 --global-batch 8192 --seq-len 4
expect2 "--export megatron" "exports as torchrec" $P plan dlrm --cluster dgx-b200 --gpus 8 --global-batch 8192 --export megatron
expect2 "batch 1000 on 16" "not a positive multiple" $P plan dlrm --cluster dgx-b200 --gpus 16 --global-batch 1000
expect2 "no batch" "--global-batch" $P plan dlrm --cluster dgx-b200 --gpus 8
expect2 "--host-memory-GiB on a transformer" "recommendation models only" \
    $P plan llama3-8b --global-batch 8 --host-memory-GiB 64

# no host memory and too little HBM: nothing fits (exit 1), and why
cat >"$tmp/small.json" <<'J'
{"name": "small", "device": {"name": "small-gpu", "memory_GiB": 16, "memory_bw_GBps": 900, "tflops": {"bf16": 125}},
 "devices": 4, "levels": [{"name": "nvlink", "size": 4, "bw_GBps": 150, "latency_us": 2}],
 "price_per_device_hour": 1, "mtbf_device_hours": 50000}
J
$P plan dlrm --cluster "$tmp/small.json" --global-batch 8192 --host-memory-GiB 0 >"$tmp/o" 2>"$tmp/e"
[ $? -eq 1 ] || bad "dlrm on 4 x 16 GiB without host memory: want exit 1"
grep -q "no sharding of dlrm's tables fits" "$tmp/e" || bad "no-fit message: $(cat "$tmp/e")"
# with host memory it fits, some tables UVM-cached
$P plan dlrm --cluster "$tmp/small.json" --global-batch 8192 --json >"$tmp/j" 2>"$tmp/e" || bad "dlrm on small: $(cat "$tmp/e")"
grep -q '"fused_uvm_caching"' "$tmp/j" || bad "dlrm on 4 x 16 GiB: no UVM-cached table"
exit $fail
