#!/bin/sh
# End-to-end `partita validate` on how a published row is read (issue 15):
# - the model by name from the catalog: a Llama row that gives its shape but
#   no vocab takes the Llama 3 family's (no "assumed: vocab 51200"), a row
#   with blank shape columns takes the catalog model of its name (DeepSeek V3
#   671B -> deepseek-v3) or is skipped saying why (no shape is made up);
# - precision from the notes: the same run with "FP8" is priced faster than
#   with "bf16", and "bf16; ... fp8 runs given as range" stays bf16;
# - 126 layers over pp=8 vpp=8 (Megatron's embedding and loss slots) is priced;
# - "ETP 1" in the notes sets expert tensor parallelism (the Qwen3-235B
#   moe_recipes row, whose ep*etp = 32*2 would not fit tp*dp = 32), and
#   "ep_size 64" a blank ep column (NeMo AutoModel's GPT-OSS);
# - a size is matched whole: "GPT-OSS 20B" is not gpt-oss-120b.
. "$(dirname "$0")/lib/common.sh" || exit 1

hdr=$(head -1 tests/data/runs_small.csv)
{
    echo "$hdr"
    echo "t,Llama 3.1 8B,8,32,4096,32,8,14336,8192,,,,H100-SXM5-80GB,8,1,1,8,1,,,1,64,,no,1,iter_time_s,1,bf16"
    echo "t,Llama 3.1 8B,8,32,4096,32,8,14336,8192,,,,H100-SXM5-80GB,8,1,1,8,1,,,1,64,,no,1,iter_time_s,1,FP8 hybrid"
    echo "t,Llama 3.1 8B,8,32,4096,32,8,14336,8192,,,,H100-SXM5-80GB,8,1,1,8,1,,,1,64,,no,1,iter_time_s,1,bf16; fp8 runs given as range"
    echo "t,DeepSeek V3 671B,671,,,,,,4096,,,,H100-SXM5-80GB,256,1,4,64,1,64,,1,512,full,no,3,iter_time_s,1,bf16"
    echo "t,Kimi K2,1000,,,,,,4096,,,,H100-SXM5-80GB,256,1,8,32,1,32,,1,512,full,no,3,iter_time_s,1,bf16"
    echo "t,Llama 3.1 405B,405,126,16384,128,8,53248,8192,,,,H100-SXM5-80GB,512,8,8,4,2,,8,1,1152,none,yes,1,iter_time_s,1,fp8"
    echo "t,Qwen3-235B-A22B,235,94,4096,64,4,12288,4096,,128,8,H100,256,2,8,16,1,32,4,1,2048,,yes,1,iter_time_s,1,precision bf16; ETP 1"
    echo "t,GPT-OSS 20B,20,,,,,,4096,,,,H100-SXM5-80GB,8,1,1,8,1,,,2,256,full,no,3,iter_time_s,1,bf16"
    echo "t,GPT-OSS 120B,120,,,,,,4096,,,,H100-SXM5-80GB,64,1,1,64,1,,,2,512,full,no,3,iter_time_s,1,bf16; ep_size 64 (table shows EP -)"
} >"$tmp/rows.csv"
if "$P" validate "$tmp/rows.csv" --json >"$tmp/rows.json" 2>"$tmp/err"; then
    python3 - "$tmp/rows.json" <<'PY' || bad "rows not read as the issue says (see above)"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
bad = []
def priced(i):
    return "skipped" not in rows[i] and rows[i].get("predicted", 0) > 0
for i in (0, 1, 2, 3, 5, 6):
    if not priced(i):
        bad.append("row %d not priced: %s" % (i, rows[i].get("skipped")))
if not bad:
    if "vocab 51200" in rows[0].get("assumed", "") :
        bad.append("Llama row assumed vocab 51200")
    # FP8 GEMMs at the FP8 rate: a step at least 15% shorter than bf16's
    if not rows[1]["predicted"] < 0.85 * rows[0]["predicted"]:
        bad.append("fp8 %.3f s not below bf16 %.3f s" % (rows[1]["predicted"], rows[0]["predicted"]))
    if rows[2]["predicted"] != rows[0]["predicted"]:
        bad.append("'bf16; fp8 runs given as range' not priced as bf16")
    if "etp=1" not in rows[6].get("strategy", ""):
        bad.append("ETP 1 not read: " + rows[6].get("strategy", ""))
# "20b" is not the size of gpt-oss-120b: no catalog model of that name
if "no catalog model" not in rows[7].get("skipped", ""):
    bad.append("GPT-OSS 20B matched a catalog model: %s" % rows[7])
if "skipped" in rows[8] or " ep=64 " not in rows[8].get("strategy", ""):
    bad.append("GPT-OSS 120B: ep_size 64 not read: %s" % rows[8])
if "no catalog model" not in rows[4].get("skipped", ""):
    bad.append("Kimi K2 (no shape, not in the catalog) not skipped as such: %s" % rows[4])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
else
    bad "validate rows.csv: exit $?: $(cat "$tmp/err")"
fi
exit $fail
