#!/bin/sh
# Regenerates the golden files that tests/e2e/eval.sh compares `partita eval
# --json` against, from the binary in $BUILD (default build).  Run it after
# `make` whenever the cost model or its fitted constants change on purpose,
# and read `git diff tests/golden` before committing the new numbers.
#
#   sh tests/update-golden.sh [OUTDIR]     writes OUTDIR (default tests/golden)
#
# This file is the one list of golden cases: eval.sh runs it into a temporary
# directory and diffs the result with tests/golden.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
P=$BUILD/partita
out=${1:-tests/golden}
if [ ! -x "$P" ]; then
    echo "update-golden.sh: $P is not built (run make)" >&2
    exit 1
fi
mkdir -p "$out"

# golden NAME ARGS...: `partita eval ARGS --json` into OUTDIR/NAME.json, written
# whole or not at all.
golden() {
    name=$1
    shift
    "$P" eval "$@" --json >"$out/$name.tmp.json"
    mv "$out/$name.tmp.json" "$out/$name.json"
}

# GPT-3 175B as Narayanan et al. SC'21 Table 1 ran it (1024 A100, batch 1536).
golden eval_gpt3_175b gpt3-175b --cluster dgx-a100-80g --gpus 1024 --global-batch 1536 \
    --seq-len 2048 --strategy "tp=8 pp=16 mbs=1 recompute=full"
# Llama 3 8B with ZeRO-3 on 8 DGX H100 nodes.
golden eval_llama3_8b llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 \
    --seq-len 8192 --strategy "tp=2 pp=1 zero=3"
# DeepSeek-V3 as NVIDIA's DGX Cloud benchmark runs it on 128 DGX H100 nodes
# (BF16, seq 4096, gbs 8192, tp=2 pp=16 ep=64 etp=1; published step 52 s).
golden eval_deepseek_v3 deepseek-v3 --cluster dgx-h100 --gpus 1024 --seq-len 4096 \
    --strategy "tp=2 pp=16 ep=64 etp=1 mbs=1 gbs=8192"
