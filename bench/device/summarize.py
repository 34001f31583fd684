#!/usr/bin/env python3
"""
summarize.py -- the tables of data/kernels/h200/README.md, from the CSV files
bench/device/h200_kernels.py wrote there (standard library only; no GPU).

    python3 bench/device/summarize.py [data/kernels/h200]

Each table sets a measured rate beside what the cost model assumes for the
H200 (data/devices.json, h200-sxm-141g; src/cost/roofline.c).
"""
import csv
import math
import os
import statistics as st
import sys

D = sys.argv[1] if len(sys.argv) > 1 else "data/kernels/h200"
PEAK = {"bf16": 989.4, "fp8-tensorwise": 1978.9, "fp8-rowwise": 1978.9}  # H200 SXM datasheet, dense
KINDS = ("bf16", "fp8-tensorwise", "fp8-rowwise")
# the catalog's h200-sxm-141g constants (data/devices.json)
GEMM_EFF, FP8_RATIO, HALF, ATTN_EFF, MEM_EFF, HALF_SEQ, BW = 0.70, 0.92, 4.22, 0.3551, 0.418, 512.0, 4800.0


def rows(name):
    with open(os.path.join(D, name)) as f:
        return list(csv.DictReader(f))


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


def sustained():
    print("Sustained 8192^3 GEMM, back to back for 25 s after a 10 s rest (sustain_kinds.csv):")
    print("| kind | first 0.3 s, TFLOP/s | median after 5 s | of peak | model |")
    print("|---|---|---|---|---|")
    r = rows("sustain_kinds.csv")
    base = None
    for k in KINDS:
        v = [float(x["tflops"]) for x in r if x["kind"] == k]
        late = [float(x["tflops"]) for x in r if x["kind"] == k and float(x["elapsed_s"]) > 5]
        m = st.median(late)
        frac = m / PEAK[k]
        base = base or frac
        model = GEMM_EFF * (1 if k == "bf16" else FP8_RATIO)
        print("| %s | %.0f | %.0f | %.3f (%.3f of bf16's) | %.3f |" % (k, v[0], m, frac, frac / base, model))
    print()


def paired():
    r = rows("gemm_paired.csv")
    by = {}
    for x in r:
        by.setdefault((x["label"], x["rep"]), {})[x["kind"]] = float(x["tflops"]) / PEAK[x["kind"]]
    print("Linear layers of Llama 3 8B, 70B, 3.1 405B and GPT-3 175B at tp 1, 2, 4, 8, 8192 tokens,")
    print("forward, input and weight gradient (192 shapes), three kinds back to back on each shape,")
    print("three passes (gemm_paired.csv); fraction of the kind's peak, burst (after an L2 flush):")
    print("| kind | p10 | median | p90 | repeat spread, median (p90) |")
    print("|---|---|---|---|---|")
    for k in KINDS:
        per = {}
        for (lab, _), d in by.items():
            per.setdefault(lab, []).append(d[k])
        med = [st.median(v) for v in per.values()]
        spread = [(max(v) - min(v)) / st.mean(v) for v in per.values()]
        print("| %s | %.3f | %.3f | %.3f | %.1f%% (%.1f%%) |" % (k, q(med, 0.1), st.median(med), q(med, 0.9),
                                                           100 * st.median(spread), 100 * q(spread, 0.9)))
    tw = [d["fp8-tensorwise"] / d["bf16"] for d in by.values()]
    rw = [d["fp8-rowwise"] / d["fp8-tensorwise"] for d in by.values()]
    print()
    print("fp8 (per-tensor scales) against bf16, fraction of peak over fraction of peak, same shape: "
          "median %.3f, mean %.3f, p10 %.3f; row-wise against per-tensor scales: median %.3f" %
          (st.median(tw), st.mean(tw), q(tw, 0.1), st.median(rw)))
    print()


def grid():
    r = rows("gemm_grid.csv")
    print("Power-of-two grid M, N, K in 256..16384 (gemm_grid.csv): fraction of peak by GEMM size,")
    print("median over the shapes of that size, against the model's gemm_eff F/(F + half) with the")
    print("ramp measured here (4.22 GFLOP) and the one before (0.6348); the memory term, not shown,")
    print("also bounds skinny shapes:")
    print("| GFLOP | shapes | bf16 median | model | model before | fp8 per-tensor median | model |")
    print("|---|---|---|---|---|---|---|")
    b = {}
    for x in r:
        f = 2.0 * int(x["M"]) * int(x["N"]) * int(x["K"]) / 1e9
        b.setdefault((x["kind"], round(math.log2(f))), []).append(float(x["tflops"]) / PEAK[x["kind"]])
    for e in range(-2, 14, 2):
        bf, f8 = b.get(("bf16", e)), b.get(("fp8-tensorwise", e))
        if not bf:
            continue
        F = 2.0 ** e
        e8 = GEMM_EFF * FP8_RATIO
        h8 = HALF * 2 * FP8_RATIO  # the same fixed time at the fp8 rate
        print("| %g | %d | %.3f | %.3f | %.3f | %.3f | %.3f |" % (
            F, len(bf), st.median(bf), GEMM_EFF * F / (F + HALF), GEMM_EFF * F / (F + 0.6348), st.median(f8),
            e8 * F / (F + h8)))
    print()


def attention():
    r = rows("attention.csv") + rows("attention_d256.csv")
    print("Fused causal attention through PyTorch SDPA, 32768 tokens a step, forward + backward")
    print("(backward counted as 2.5 forwards), fraction of the bf16 peak (attention.csv,")
    print("attention_d256.csv); model: attn_eff s/(s + 512):")
    seqs = (512, 1024, 2048, 4096, 8192, 16384, 32768)
    print("| kernel, head dim | " + " | ".join(str(s) for s in seqs) + " |")
    print("|---|" + "---|" * len(seqs))
    for be in ("cudnn", "flash2"):
        for hd in ("64", "128", "256"):
            v = {int(x["seq"]): float(x["fwdbwd_tflops"]) / PEAK["bf16"] for x in r
                 if x["backend"] == be and x["head_dim"] == hd and x["causal"] == "1"}
            if v:
                print("| %s, %s | " % ("cuDNN" if be == "cudnn" else "FlashAttention-2", hd) +
                      " | ".join("%.3f" % v[s] for s in seqs) + " |")
    print("| model | " + " | ".join("%.3f" % (ATTN_EFF * s / (s + HALF_SEQ)) for s in seqs) + " |")
    print()


def memory():
    print("Memory-bound kernels (memory.csv), the fewest bytes each must move over its time, against")
    print("the H200's 4800 GB/s (model: mem_eff %.4f, %.0f GB/s):" % (MEM_EFF, MEM_EFF * BW))
    print("| kernel | shape | GB/s | of 4800 |")
    print("|---|---|---|---|")
    for x in rows("memory.csv"):
        print("| %s | %s | %s | %.2f |" % (x["kernel"], x["shape"], x["GBps"], float(x["GBps"]) / BW))
    print()
    print("Host time per eager PyTorch operator (launch.csv): " +
          ", ".join("%s %s us" % (x["op"], x["us_per_call"]) for x in rows("launch.csv")))
    print()


def grouped():
    r = rows("grouped.csv")
    print("MoE grouped GEMMs (torch._grouped_mm) against one dense GEMM of all the rows (grouped.csv),")
    print("median over the six expert shapes and 4-32 experts:")
    print("| rows per expert | grouped, of peak | grouped over dense |")
    print("|---|---|---|")
    by = {}
    for x in r:
        by.setdefault(int(x["rows_per_expert"]), []).append(
            (float(x["tflops"]) / PEAK["bf16"], float(x["tflops"]) / float(x["dense_tflops"])))
    for n in sorted(by):
        print("| %d | %.3f | %.2f |" % (n, st.median(a for a, _ in by[n]), st.median(b for _, b in by[n])))
    print()


def decode():
    print("Decode's linear layers: Llama 3 70B at tp=8, 80 layers' distinct weights in one CUDA graph,")
    print("a batch of M tokens (decode.csv); bytes of weights and activations over the time, against")
    print("4800 GB/s (TensorRT-LLM 1.0's fitted decode_eff: 0.84, src/cost/infer.c):")
    print("| kind | batch | us a step | GB/s | of 4800 |")
    print("|---|---|---|---|---|")
    for x in rows("decode.csv"):
        print("| %s | %s | %s | %s | %.2f |" % (x["kind"], x["batch"], x["us_per_step"], x["GBps"],
                                               float(x["GBps"]) / BW))
    print()


def main():
    for f in (sustained, paired, grid, attention, memory, grouped, decode):
        f()


if __name__ == "__main__":
    main()
