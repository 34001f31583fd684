/*
 * roofline.h -- the one roofline of the cost model: how long a GEMM, an
 * element-wise pass, a fused attention core and a run of kernel launches
 * take on one device.  The transformer cost model (cost.c) and the layer-graph
 * pricing (graph_cost.c) both call it, each with its own shapes.
 *
 * What it does:
 *  - GEMM: the larger of its compute time at gemm_eff * F / (F + gemm_half)
 *    of peak (F its FLOPs, 2 M N K x batch: a shape-dependent ramp, so small
 *    GEMMs run slow; constants in data/devices.json) and its memory time,
 *    elem_bytes (M K + K N + M N) x batch at the achieved bandwidth.  `batch`
 *    is ONE batched kernel (its FLOPs together climb the ramp); a caller that
 *    runs `n` separate GEMMs one after another multiplies a batch-1 time by n.
 *    The ramp is a fixed time per GEMM, gemm_half / (peak16 gemm_eff): in
 *    another dtype gemm_half scales with the rate (measured on H200, the
 *    same 6.0-6.3 us in bf16 and fp8: data/kernels/h200/README.md).
 *  - Element-wise work (norms, activations, softmax, optimizer updates) is
 *    bound by memory bandwidth: bytes / (memory_bw * mem_eff).
 *  - Flash attention runs at attn_eff * s / (s + PT_ROOFLINE_FLASH_HALF_SEQ)
 *    of the 16-bit peak (Dao 2023, FlashAttention-2: throughput roughly
 *    halves at 512 tokens against long sequences, head dim 128, causal:
 *    ~90 TFLOP/s at 512, ~190 at 16k on A100).  FLOPs are those executed:
 *    a causal mask skips half the square (cost.c counts it so).
 *  - Bounds: a built-in device's gemm_eff and ramped attn_eff stay at or
 *    below published microbenchmarks on that device (sustained matmul where
 *    measured, else the best burst; fused attention by sequence length;
 *    data/devices.json cites each, tests/test_roofline.c checks them), so
 *    no kernel, and no step, runs faster than the hardware has been seen to.
 *  - Launches: every kernel costs the host kernel_us to launch, and work
 *    cannot finish before its launches (eager PyTorch; small models and small
 *    batches are launch-bound).
 * What it does not: count FLOPs or bytes of a layer (cost.c for transformers,
 * workload/graph.c for layer graphs), communication (src/hw/coll.c), or any
 * overlap between kernels.
 */
#ifndef PT_ROOFLINE_H
#define PT_ROOFLINE_H

#include "partita.h"

#define PT_ROOFLINE_FLASH_HALF_SEQ 512.0

/* Device rates for one dtype, derived once from a pt_device. */
typedef struct pt_roofline {
    double peak;       /* FLOP/s for linear-layer GEMMs in the dtype, e.g. 989e12;
                          fp8's times the device's fp8_gemm_ratio            */
    double peak16;     /* FLOP/s in bf16/fp16 (attention, logits), e.g. 989e12    */
    double gemm_eff;   /* fraction of peak a large GEMM reaches, e.g. 0.75        */
    double gemm_half;  /* FLOPs at which a GEMM at peak16 reaches half of it     */
    double attn_eff;   /* fused attention's fraction of peak16, e.g. 0.5          */
    double mem_bw;     /* achieved bytes/s: memory_bw_GBps * 1e9 * mem_eff        */
    double kernel_us;  /* host time to launch one kernel, us, e.g. 4              */
} pt_roofline;

/* Rates of dev for work in dtype (fp8 attention and logits run in bf16). */
void pt_roofline_init(const pt_device *dev, pt_dtype dtype, pt_roofline *r);

/* Seconds of one (batched) GEMM M x N x K, `batch` of them in one kernel,
 * at `peak` FLOP/s (r->peak or r->peak16), elem_bytes per element. */
double pt_roofline_gemm_s(const pt_roofline *r, double peak, double M, double N, double K, double batch,
                          double elem_bytes);
/* Seconds to stream `bytes` through memory (element-wise kernels). */
double pt_roofline_ew_s(const pt_roofline *r, double bytes);
/* Seconds of `flops` of flash attention over sequences of `seq` tokens. */
double pt_roofline_flash_s(const pt_roofline *r, double flops, double seq);
/* Host seconds to launch `kernels` kernels. */
double pt_roofline_launch_s(const pt_roofline *r, double kernels);
/* busy_s, or the launch time of `kernels` where that is longer. */
double pt_roofline_floor_s(const pt_roofline *r, double busy_s, double kernels);

#endif
