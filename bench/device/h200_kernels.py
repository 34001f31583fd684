#!/usr/bin/env python3
"""
h200_kernels.py -- measure, on one GPU, the kernel rates the cost model's
roofline stands on (src/cost/roofline.h): GEMMs by shape (bf16, fp8 with
tensor-wise and row-wise scales), MoE grouped GEMMs by rows per expert,
fused attention by sequence length (cuDNN and FlashAttention-2 through
PyTorch's SDPA), memory-bound kernels (bandwidth achieved), eager
PyTorch's host time per operator, and whether a large GEMM's rate lasts.

Run on the device machine (PyTorch with CUDA): python3 bench/device/h200_kernels.py
It writes CSV files under $OUT (default ./kernels-out) and prints a summary.
The results this repository keeps are in data/kernels/ (README there).

Method: inputs are random (never zeros); every timed call runs after a
256 MiB write that evicts the L2, timed alone with CUDA events; the median
of the repeats is kept.
"""
import csv
import json
import os
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

OUT = os.environ.get("OUT") or "kernels-out"
os.makedirs(OUT, exist_ok=True)
DEV = torch.device("cuda")
torch.manual_seed(0)
FLUSH = torch.empty(256 << 20, dtype=torch.uint8, device=DEV)


def bench_ms(fn, target_ms=12.0, max_iter=60, min_iter=3):
    """Median milliseconds of fn(), each call after an L2 flush."""
    fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    torch.cuda.synchronize()
    est = max(s.elapsed_time(e), 1e-3)
    n = int(max(min_iter, min(max_iter, target_ms / est)))
    st = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    en = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for i in range(n):
        FLUSH.zero_()
        st[i].record()
        fn()
        en[i].record()
    torch.cuda.synchronize()
    t = sorted(st[i].elapsed_time(en[i]) for i in range(n))
    return t[n // 2]


def smi():
    try:
        return subprocess.run(
            ["nvidia-smi", "--query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,"
             "temperature.gpu,memory.total", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as ex:  # noqa: BLE001
        return "nvidia-smi failed: %s" % ex


def writer(name, header):
    f = open(os.path.join(OUT, name), "w", newline="")
    w = csv.writer(f, lineterminator="\n")
    w.writerow(header)
    return f, w


def section(name, fn):
    t0 = time.time()
    try:
        fn()
    except Exception as ex:  # noqa: BLE001
        print("SECTION %s FAILED: %r" % (name, ex), flush=True)
    print("section %s: %.1f s" % (name, time.time() - t0), flush=True)


# ---------------------------------------------------------------- GEMMs
FP8 = torch.float8_e4m3fn


def gemm_fn(kind, M, N, K):
    """A callable computing X[M,K] . W[N,K]^T the way a linear layer does."""
    if kind == "bf16":
        a = torch.randn(M, K, device=DEV, dtype=torch.bfloat16)
        w = torch.randn(N, K, device=DEV, dtype=torch.bfloat16)
        return lambda: torch.mm(a, w.t())
    a = torch.randn(M, K, device=DEV).to(FP8)
    w = torch.randn(N, K, device=DEV).to(FP8)
    if kind == "fp8-tensorwise":
        sa = torch.tensor(1.0, device=DEV)
        sb = torch.tensor(1.0, device=DEV)
    else:  # fp8-rowwise
        sa = torch.rand(M, 1, device=DEV) + 0.5
        sb = torch.rand(1, N, device=DEV) + 0.5
    return lambda: torch._scaled_mm(a, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)


KINDS = ("bf16", "fp8-tensorwise", "fp8-rowwise")


def gemm_row(w, kind, M, N, K, label):
    fn = gemm_fn(kind, M, N, K)
    ms = bench_ms(fn)
    w.writerow([kind, label, M, N, K, "%.2f" % (ms * 1e3), "%.1f" % (2.0 * M * N * K / (ms * 1e-3) / 1e12)])
    del fn


def gemm_grid():
    f, w = writer("gemm_grid.csv", ["kind", "label", "M", "N", "K", "us", "tflops"])
    dims = (256, 512, 1024, 2048, 4096, 8192, 16384)
    for kind in KINDS:
        for M in dims:
            for N in dims:
                for K in dims:
                    gemm_row(w, kind, M, N, K, "grid")
        f.flush()
        torch.cuda.empty_cache()
    f.close()


# Linear layers of the catalog's models (hidden, q+k+v width, ffn, gated),
# as tensor parallelism splits them, at 8192 tokens: forward (M N K),
# the input gradient (M K N) and the weight gradient (N K M).
MODELS = {
    "llama3-8b": (4096, 6144, 14336, True),
    "llama3-70b": (8192, 10240, 28672, True),
    "llama3.1-405b": (16384, 18432, 53248, True),
    "gpt3-175b": (12288, 36864, 49152, False),
}


def layer_shapes(T=8192):
    """(label, M, N, K) of every GEMM of MODELS' linear layers at tp 1-8."""
    for name, (h, qkv, ffn, gated) in MODELS.items():
        for tp in (1, 2, 4, 8):
            lin = {"qkv": (qkv // tp, h), "proj": (h, h // tp),
                   "fc1": ((2 if gated else 1) * ffn // tp, h), "fc2": (h, ffn // tp)}
            for ln, (N, K) in lin.items():
                for pas, (a, b, c) in (("fwd", (T, N, K)), ("dgrad", (T, K, N)), ("wgrad", (N, K, T))):
                    yield "%s tp%d %s %s" % (name, tp, ln, pas), a, b, c


def gemm_models():
    f, w = writer("gemm_models.csv", ["kind", "label", "M", "N", "K", "us", "tflops"])
    for kind in KINDS:
        for label, M, N, K in layer_shapes():
            gemm_row(w, kind, M, N, K, label)
        f.flush()
        torch.cuda.empty_cache()
    f.close()


def gemm_paired(reps=3):
    """The model shapes again, the three kinds back to back on each shape and
    the whole set `reps` times: ratios between kinds that the clock's drift
    between sections does not bias, and the spread of repeats."""
    f, w = writer("gemm_paired.csv", ["rep", "kind", "label", "M", "N", "K", "us", "tflops"])
    for rep in range(reps):
        for label, M, N, K in layer_shapes():
            for kind in KINDS:
                fn = gemm_fn(kind, M, N, K)
                ms = bench_ms(fn)
                w.writerow([rep, kind, label, M, N, K, "%.2f" % (ms * 1e3),
                            "%.1f" % (2.0 * M * N * K / (ms * 1e-3) / 1e12)])
                del fn
        f.flush()
    f.close()


# ---------------------------------------------------------- grouped GEMMs
def grouped():
    f, w = writer("grouped.csv", ["label", "experts", "rows_per_expert", "N", "K", "us", "tflops",
                                  "dense_us", "dense_tflops"])
    # (hidden, expert ffn): Qwen3-235B-A22B / Qwen3-30B-A3B (4096/2048 -> 1536/768),
    # DeepSeek-V3 (7168 -> 2048), Mixtral 8x7B (4096 -> 14336)
    shapes = (("qwen3-235b fc1", 3072, 4096), ("qwen3-235b fc2", 4096, 1536),
              ("deepseek-v3 fc1", 4096, 7168), ("deepseek-v3 fc2", 7168, 2048),
              ("mixtral fc1", 28672, 4096), ("mixtral fc2", 4096, 14336))
    for label, N, K in shapes:
        for E in (4, 8, 16, 32):
            for rows in (128, 256, 512, 1024, 2048, 4096, 8192):
                if E * rows * max(N, K) * 2 > (6 << 30):
                    continue
                x = torch.randn(E * rows, K, device=DEV, dtype=torch.bfloat16)
                wt = torch.randn(E, N, K, device=DEV, dtype=torch.bfloat16)
                offs = torch.arange(1, E + 1, device=DEV, dtype=torch.int32) * rows
                fn = lambda: torch._grouped_mm(x, wt.transpose(-2, -1), offs=offs)  # noqa: E731
                ms = bench_ms(fn)
                dn = gemm_fn("bf16", E * rows, N, K)
                dms = bench_ms(dn)
                fl = 2.0 * E * rows * N * K
                w.writerow([label, E, rows, N, K, "%.2f" % (ms * 1e3), "%.1f" % (fl / (ms * 1e-3) / 1e12),
                            "%.2f" % (dms * 1e3), "%.1f" % (fl / (dms * 1e-3) / 1e12)])
                del x, wt, fn, dn
        f.flush()
    f.close()


# ------------------------------------------------------------- attention

def attention(head_dims=(128, 64), name="attention.csv"):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    f, w = writer(name, ["backend", "causal", "head_dim", "heads", "seq", "batch",
                                    "fwd_us", "bwd_us", "fwd_tflops", "bwd_tflops", "fwdbwd_tflops"])
    backends = (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash2", SDPBackend.FLASH_ATTENTION))
    tokens = 32768
    for bname, be in backends:
        for D in head_dims:
            H = 4096 // D
            for causal in (True, False):
                for S in (512, 1024, 2048, 4096, 8192, 16384, 32768):
                    if not causal and S not in (512, 2048, 8192):
                        continue
                    B = max(1, tokens // S)
                    q, k, v = (torch.randn(B, H, S, D, device=DEV, dtype=torch.bfloat16, requires_grad=True)
                               for _ in range(3))
                    g = torch.randn(B, H, S, D, device=DEV, dtype=torch.bfloat16)
                    try:
                        with sdpa_kernel([be]):
                            fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa: E731

                            def both():
                                o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                                torch.autograd.grad(o, (q, k, v), g)
                            fms = bench_ms(fwd)
                            bms = bench_ms(both) - fms
                    except Exception as ex:  # noqa: BLE001
                        print("attention %s D%d causal=%s S%d: %r" % (bname, D, causal, S, ex), flush=True)
                        continue
                    ff = 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
                    w.writerow([bname, int(causal), D, H, S, B, "%.1f" % (fms * 1e3), "%.1f" % (bms * 1e3),
                                "%.1f" % (ff / (fms * 1e-3) / 1e12), "%.1f" % (2.5 * ff / (bms * 1e-3) / 1e12),
                                "%.1f" % (3.5 * ff / ((fms + bms) * 1e-3) / 1e12)])
                    del q, k, v, g
            f.flush()
    f.close()


def attention_d256():
    attention((256,), "attention_d256.csv")


# ------------------------------------------------------- memory-bound work
def memory():
    f, w = writer("memory.csv", ["kernel", "shape", "bytes_min", "us", "GBps"])

    def row(name, shape, nbytes, fn):
        ms = bench_ms(fn)
        w.writerow([name, shape, int(nbytes), "%.1f" % (ms * 1e3), "%.0f" % (nbytes / (ms * 1e-3) / 1e9)])

    n = 1 << 29  # 512 Mi bf16 elements, 1 GiB
    x = torch.randn(n, device=DEV, dtype=torch.bfloat16)
    y = torch.randn(n, device=DEV, dtype=torch.bfloat16)
    z = torch.empty_like(x)
    row("copy", "1Gi bf16", 4 * n, lambda: z.copy_(x))
    row("add", "1Gi bf16", 6 * n, lambda: torch.add(x, y, out=z))
    row("silu*mul (eager, 2 kernels)", "1Gi bf16", 6 * n, lambda: F.silu(x) * y)
    del x, y, z
    for T, h in ((8192, 4096), (8192, 8192), (16384, 16384)):
        a = torch.randn(T, h, device=DEV, dtype=torch.bfloat16)
        wgt = torch.randn(h, device=DEV, dtype=torch.bfloat16)
        b = torch.randn(h, device=DEV, dtype=torch.bfloat16)
        row("rms_norm fwd", "%dx%d" % (T, h), 4 * T * h, lambda: F.rms_norm(a, (h,), wgt))
        row("layer_norm fwd", "%dx%d" % (T, h), 4 * T * h, lambda: F.layer_norm(a, (h,), wgt, b))
        ar = a.clone().requires_grad_(True)
        wr = wgt.clone().requires_grad_(True)
        ga = torch.randn_like(a)

        def rms_both():
            o = F.rms_norm(ar, (h,), wr)
            torch.autograd.grad(o, (ar, wr), ga)
        row("rms_norm fwd+bwd", "%dx%d" % (T, h), 10 * T * h, rms_both)
        row("dropout+residual add", "%dx%d" % (T, h), 6 * T * h, lambda: a + F.dropout(a, 0.1))
        del a, ar, ga
    for T, V in ((8192, 32000), (8192, 128256)):
        lg = torch.randn(T, V, device=DEV, dtype=torch.bfloat16, requires_grad=True)
        tg = torch.randint(0, V, (T,), device=DEV)

        def ce():
            loss = F.cross_entropy(lg.float(), tg)
            torch.autograd.grad(loss, (lg,))
        row("softmax fwd", "%dx%d" % (T, V), 4 * T * V, lambda: torch.softmax(lg, -1))
        row("cross_entropy fwd+bwd (fp32 upcast)", "%dx%d" % (T, V), 4 * T * V, ce)
        del lg
    P = 1 << 28  # 256 Mi fp32 parameters
    for fused in (True, False):
        p = torch.nn.Parameter(torch.randn(P, device=DEV))
        p.grad = torch.randn(P, device=DEV)
        opt = torch.optim.AdamW([p], lr=1e-4, fused=fused, foreach=None if fused else True)
        opt.step()
        # p, grad, m, v read; p, m, v written: 28 bytes a parameter
        row("adamw step (%s)" % ("fused" if fused else "foreach"), "256Mi fp32", 28 * P, opt.step)
        del p, opt
        torch.cuda.empty_cache()
    f.close()


# ------------------------------------------------- decode's linear layers
def decode():
    """The linear layers of one decode step of Llama 3 70B at tp=8 on one GPU:
    80 layers' distinct weights (17 GB in bf16, so nothing stays in the L2),
    the 320 GEMMs captured in one CUDA graph as serving engines run them,
    for a batch of M tokens; the bytes the weights and activations must move
    over the replay's time is the bandwidth decode reaches."""
    f, w = writer("decode.csv", ["kind", "batch", "us_per_step", "weight_GB", "GBps"])
    shapes = ((1280, 8192), (8192, 1024), (7168, 8192), (8192, 3584))  # qkv, o, gate+up, down (N, K)
    layers = 80
    for kind in ("bf16", "fp8-tensorwise"):
        eb = 2 if kind == "bf16" else 1
        ws = []
        for _ in range(layers):
            for N, K in shapes:
                t = torch.randn(N, K, device=DEV, dtype=torch.bfloat16)
                ws.append(t if eb == 2 else t.to(FP8))
        one = torch.tensor(1.0, device=DEV)
        for M in ((1, 8, 32, 64, 128, 256) if eb == 2 else (16, 32, 64, 128, 256)):
            xs = {K: torch.randn(M, K, device=DEV, dtype=torch.bfloat16) for K in (8192, 1024, 3584)}
            if eb == 1:
                xs = {K: x.to(FP8) for K, x in xs.items()}
            outs = [torch.empty(M, N, device=DEV, dtype=torch.bfloat16) for N, _ in shapes]

            def step():
                for li in range(layers):
                    for si, (N, K) in enumerate(shapes):
                        wt = ws[li * len(shapes) + si]
                        if eb == 2:
                            torch.mm(xs[K], wt.t(), out=outs[si])
                        else:
                            torch._scaled_mm(xs[K], wt.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            step()
            torch.cuda.synchronize()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                step()
            ms = bench_ms(g.replay, target_ms=60.0, max_iter=20)
            wb = layers * sum(N * K for N, K in shapes) * eb
            ab = layers * sum(M * K * eb + M * N * 2 for N, K in shapes)
            w.writerow([kind, M, "%.1f" % (ms * 1e3), "%.2f" % (wb / 1e9), "%.0f" % ((wb + ab) / (ms * 1e-3) / 1e9)])
            f.flush()
            del g
        del ws
        torch.cuda.empty_cache()
    f.close()


# -------------------------------------------------------- host per operator
def launch():
    f, w = writer("launch.csv", ["op", "calls", "us_per_call"])
    x = torch.randn(64, 64, device=DEV)
    y = torch.empty_like(x)
    lin = torch.nn.Linear(64, 64, device=DEV)
    ops = (("add", lambda: torch.add(x, 1.0, out=y)),
           ("mm", lambda: torch.mm(x, x)),
           ("linear+gelu", lambda: F.gelu(lin(x))),
           ("rms_norm", lambda: F.rms_norm(x, (64,))))
    for name, fn in ops:
        for _ in range(200):
            fn()
        torch.cuda.synchronize()
        n = 5000
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        w.writerow([name, n, "%.2f" % ((time.perf_counter() - t0) / n * 1e6)])
    f.close()


# ----------------------------------------------------- sustained GEMM rate
def sustain(kinds=("bf16",), seconds=40.0):
    """Back-to-back 8192^3 GEMMs for `seconds` each, after a cool-down."""
    f, w = writer("sustain.csv", ["kind", "elapsed_s", "tflops", "smi"])
    for kind in kinds:
        time.sleep(10.0)
        sustain_one(w, kind, seconds)
        f.flush()
    f.close()


def sustain_one(w, kind, seconds):
    fn = gemm_fn(kind, 8192, 8192, 8192)
    fl = 2.0 * 8192 ** 3
    t0 = time.time()
    sec = 0
    while time.time() < t0 + seconds:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(100):
            fn()
        e.record()
        e.synchronize()
        ms = s.elapsed_time(e)
        sm = smi() if sec % 5 == 0 else ""
        w.writerow([kind, "%.2f" % (time.time() - t0), "%.1f" % (100 * fl / (ms * 1e-3) / 1e12), sm])
        sec += 1


def main():
    env = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
           "device": torch.cuda.get_device_name(0),
           "sms": torch.cuda.get_device_properties(0).multi_processor_count, "smi_start": smi(),
           "date": time.strftime("%Y-%m-%d %H:%M:%S %z")}
    print(json.dumps(env), flush=True)
    which = sys.argv[1:] or ["sustain", "launch", "memory", "attention", "grouped", "gemm_models", "gemm_grid"]
    table = {"sustain": sustain, "launch": launch, "memory": memory, "attention": attention,
             "grouped": grouped, "gemm_models": gemm_models, "gemm_grid": gemm_grid,
             "gemm_paired": gemm_paired, "decode": decode,
             "sustain_all": lambda: sustain(KINDS, 25.0),
             "attention_d256": attention_d256}
    for name in which:
        section(name, table[name])
    env["smi_end"] = smi()
    with open(os.path.join(OUT, "env.json"), "w") as fh:
        json.dump(env, fh, indent=1)
    print(json.dumps(env), flush=True)


if __name__ == "__main__":
    main()
