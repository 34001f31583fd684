#!/bin/sh
# Hostile but well-formed input: options at absurd sizes answer within seconds
# with exit status 2 and the limit named (the library refuses them itself, not
# only the CLI), and the parsers accept what editors write (a UTF-8 BOM, CR CR
# LF line ends) and refuse control characters in names.  Each case is the
# reproduction of the issue that found it.
. "$(dirname "$0")/lib/common.sh" || exit 1
job="llama3-8b --cluster dgx-h100 --gpus 16 --seq-len 2048"

# every refused_saying WANT CMD... below: CMD exits 2 within 20 s and says
# WANT on stderr
refused_within=20

# huge-but-legal numbers: SIGSEGV, hangs and a 114% HFU before
refused_saying '--top: "200000000" is not a whole number in \[1, 10000\]' $P plan $job --global-batch 64 --top 200000000
refused_saying '--global-batch: "4611686018427387904" is not a whole number in \[1, 1073741824\]' $P plan $job --global-batch 1..4611686018427387904
refused_saying '--max-gpus: "4611686018427387904" is not a whole number in \[1, 16777216\]' \
    $P scale gnmt --cluster dgx-1-v100 --max-gpus 4611686018427387904
refused_saying '--seq-len: "9223372036854775807" is not a whole number in \[1, 16777216\]' \
    $P plan llama3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 --seq-len 9223372036854775807
refused_saying '--seq-len: "9223372036854775807" is not a whole number' \
    $P eval llama3-8b --cluster dgx-h100 --gpus 16 --strategy "tp=8" --global-batch 64 --seq-len 9223372036854775807
# gbs=10^8 on one pipeline: 59 s and 13.5 GB in the simulator before; now
# replayed for a window and extrapolated, within 0.1% of the analytic step
# (as small counts are), and a timeline of it is refused with the limit named
timeout 20 $P eval llama3-8b --cluster dgx-h100 --gpus 8 --strategy "tp=8 gbs=100000000" --seq-len 2048 \
    --simulate --json >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc -eq 124 ] && bad "eval --simulate at gbs=10^8 did not answer within 20 s"
[ $rc -eq 0 ] || bad "eval --simulate at gbs=10^8: exit $rc ($(cat "$tmp/e"))"
python3 - "$tmp/o" <<'PY' || bad "eval --simulate at gbs=10^8: simulated step not within 0.1% of the analytic one"
import json, sys
j = json.load(open(sys.argv[1]))
assert abs(j["simulated_step_time_s"] / j["step_time_s"] - 1) < 1e-3, j
PY
refused_saying "the simulator replays at most 65536 micro-batches per pipeline (PT_SIM_MAX_MICROBATCHES); this step has 100000000" \
    $P eval llama3-8b --cluster dgx-h100 --gpus 8 --strategy "tp=8 gbs=100000000" --seq-len 2048 --trace "$tmp/t.json"
[ -e "$tmp/t.json" ] && bad "a refused --trace wrote its file"
# a later duplicate in --space silently won
refused_saying "tp is given twice" $P plan $job --global-batch 64 --space "tp=2 tp=4"

# num_hidden_layers=2147483647 with tiny dimensions: the search looped to the
# layer count; now pp only ranges over divisors of the device count
cat >"$tmp/deep.json" <<'J'
{"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 8,
 "num_key_value_heads": 8, "num_hidden_layers": 2147483647, "vocab_size": 1000,
 "max_position_embeddings": 2048}
J
timeout 20 $P plan "$tmp/deep.json" --cluster dgx-h100 --gpus 16 --global-batch 64 --seq-len 128 \
    >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc -eq 124 ] && bad "plan with 2147483647 layers did not answer within 20 s"
[ $rc -le 2 ] || bad "plan with 2147483647 layers: exit $rc ($(cat "$tmp/e"))"

# a UTF-8 byte-order mark at the start of a file is skipped
bom=$(printf '\357\273\277')
{ printf '%s' "$bom"; cat tests/data/hf/llama3-8b.json; } >"$tmp/bom_config.json"
$P eval "$tmp/bom_config.json" --cluster dgx-h100 --gpus 8 --strategy "tp=8" --global-batch 64 \
    --seq-len 2048 >"$tmp/o" 2>"$tmp/e" || bad "config.json with a BOM: $(cat "$tmp/e")"
{ printf '%s' "$bom"; cat tests/data/graph/small_cnn.json; } >"$tmp/bom_graph.json"
$P scale "$tmp/bom_graph.json" --cluster dgx-1-v100 --max-gpus 8 --stat-eff tests/data/statef/small_cnn.csv \
    >"$tmp/o" 2>"$tmp/e" || bad "graph file with a BOM: $(cat "$tmp/e")"
{ printf '%s' "$bom"; cat tests/data/statef/small_cnn.csv; } >"$tmp/bom_statef.csv"
$P scale tests/data/graph/small_cnn.json --cluster dgx-1-v100 --max-gpus 8 --stat-eff "$tmp/bom_statef.csv" \
    >"$tmp/o" 2>"$tmp/e" || bad "statistical-efficiency CSV with a BOM: $(cat "$tmp/e")"
{ printf '%s' "$bom"; cat tests/data/runs_small.csv; } >"$tmp/bom_runs.csv"
$P validate "$tmp/bom_runs.csv" >"$tmp/o" 2>"$tmp/e" || bad "runs CSV with a BOM: $(cat "$tmp/e")"
$P validate tests/data/runs_small.csv >"$tmp/o0" 2>&1
cmp -s "$tmp/o" "$tmp/o0" || bad "runs CSV with a BOM reads differently"
cat >"$tmp/c.json" <<'J'
{"name": "bom", "device": "h100-sxm-80g", "devices": 16,
 "levels": [{"name": "nvlink", "size": 8, "bw_GBps": 450}, {"name": "ib", "size": 16, "bw_GBps": 50}]}
J
{ printf '%s' "$bom"; cat "$tmp/c.json"; } >"$tmp/bom_cluster.json"
$P eval llama3-8b --cluster "$tmp/bom_cluster.json" --strategy "tp=8" --global-batch 64 --seq-len 2048 \
    >"$tmp/o" 2>"$tmp/e" || bad "cluster file with a BOM: $(cat "$tmp/e")"

# CR CR LF line ends (a CRLF file converted twice): the header's last column kept a CR
tr -d '\r' <tests/data/runs_small.csv | sed 's/$/\r\r/' >"$tmp/crcrlf.csv"
$P validate "$tmp/crcrlf.csv" >"$tmp/o" 2>"$tmp/e" || bad "CR CR LF runs CSV: $(cat "$tmp/e")"
cmp -s "$tmp/o" "$tmp/o0" || bad "CR CR LF runs CSV reads differently"

# a name with a control character is refused where it is read, byte named
sed 's/"name": "bom"/"name": "x\\u001b[2Jy"/' "$tmp/c.json" >"$tmp/ctl.json"
refused_saying 'ctl.json:1:2: name: .* holds the control character 0x1B at byte 1' \
    $P eval llama3-8b --cluster "$tmp/ctl.json" --strategy "tp=8" --global-batch 64 --seq-len 2048
sed 's/"name": "conv1"/"name": "conv\\u00071"/' tests/data/graph/small_cnn.json >"$tmp/ctl_graph.json"
refused_saying 'layers\[1\].name: .* holds the control character 0x07 at byte 4' \
    $P scale "$tmp/ctl_graph.json" --cluster dgx-1-v100 --max-gpus 8 --stat-eff tests/data/statef/small_cnn.csv
# layer graphs: a 1,000-layer residual network is placed in seconds (the
# coarsening was O(n^3) with three n x n matrices: over two minutes), and a
# graph file over 100,000 layers is refused with the limit named (name lookup
# was a list scan: 10^6 layers took over 100 s to read)
python3 - "$tmp" <<'PY'
import json, sys
def graph(n, path):
    L = [{"name": "tokens", "op": "input", "shape": [16]},
         {"name": "emb", "op": "embedding", "vocab": 1000, "dim": 64}]
    prev, i = "emb", 0
    while len(L) < n - 1:
        a, b, s = "b%d.fc1" % i, "b%d.fc2" % i, "b%d.add" % i
        L += [{"name": a, "op": "linear", "out": 64, "relu": True, "in": prev},
              {"name": b, "op": "linear", "out": 64},
              {"name": s, "op": "add", "in": [b, prev]}]
        prev, i = s, i + 1
    L = L[:n - 1]
    L.append({"name": "loss", "op": "loss", "classes": 1000, "in": L[-1]["name"]})
    json.dump({"name": "res%d" % n, "sample": "sequence", "samples_per_epoch": 100000, "layers": L},
              open(path, "w"))
graph(1000, sys.argv[1] + "/g1000.json")
graph(100001, sys.argv[1] + "/g100001.json")
PY
timeout 60 $P scale "$tmp/g1000.json" --cluster dgx-1-v100 --max-gpus 8 --stat-eff tests/data/statef/small_cnn.csv \
    >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc -eq 124 ] && bad "scale on a 1,000-layer graph did not answer within 60 s"
[ $rc -eq 0 ] || bad "scale on a 1,000-layer graph: exit $rc ($(cat "$tmp/e"))"
grep -q "hybrid gain at scale" "$tmp/o" || bad "scale on a 1,000-layer graph: no table"
refused_saying "layers: has 100001 layers; a graph file holds at most 100000" \
    $P scale "$tmp/g100001.json" --cluster dgx-1-v100 --max-gpus 8 --stat-eff tests/data/statef/small_cnn.csv
exit $fail
