/*
 * graph_cost.h -- what a layer graph (src/workload/graph.h: CNNs, RNNs,
 * encoder-decoder translation models) costs on a device and on a
 * data-parallel cluster.
 *
 * What it does: prices one layer's forward pass for a batch of samples on
 * one device -- its GEMMs on the roofline (src/cost/roofline.h), each of
 * M*b x N x K, repeated `gbatch` times and `gserial` times in sequence (an
 * LSTM's recurrent step cannot start before the last ends, so small per-step
 * GEMMs stay small); element-wise bytes at the memory efficiency; and never
 * less than its kernel launches (one per GEMM step plus one) -- and one
 * data-parallel training step of the whole graph: backward is twice forward;
 * 2-byte (mixed-precision) gradients all-reduced hierarchically over all
 * devices, bucket by bucket under the backward pass (NCCL 2.4+, PyTorch
 * DDP), or the older ways of pt_dp_impl; momentum SGD/Adam updates stream
 * 16 bytes per parameter; memory is 16 bytes per parameter plus the
 * activations kept for the backward.
 * What it does not: split a graph over devices (src/plan/place.c, which calls
 * pt_glayer_fwd_s), decide how many steps training needs or evaluation costs
 * (src/goal/ttt.h), or price transformers built from a config (cost.c).
 */
#ifndef PT_GRAPH_COST_H
#define PT_GRAPH_COST_H

#include "partita.h"
#include "workload/graph.h"

typedef struct pt_graph_cost {
    double step_time_s;
    double compute_s;     /* forward and backward, one device          */
    double dp_comm_s;     /* exposed gradient all-reduce              */
    double optimizer_s;
    double samples_per_s;
    int64_t memory_bytes; /* weights, gradients, optimizer, activations */
} pt_graph_cost;

/* Forward time of one layer for `samples` samples on one device (backward
 * is twice this): its GEMMs on the roofline, element-wise bytes at the
 * memory efficiency, and never less than its kernel launches. */
double pt_glayer_fwd_s(const pt_glayer *l, const pt_device *dev, pt_dtype dtype, double samples);

/* One data-parallel step of g: every one of c's devices runs `per_device`
 * samples, gradients all-reduced over all of them (hierarchically, in one
 * bucket per layer under the backward, as NCCL 2.4+ and PyTorch DDP do). */
void pt_graph_step(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, int64_t per_device,
                   pt_graph_cost *out);

/* How a data-parallel stack runs its step: how an older one all-reduces
 * its gradients, and which element-wise kernels a tuned one fuses.  Each
 * field is a documented behaviour; all zero is pt_graph_step's default. */
typedef struct pt_dp_impl {
    int flat_ring;      /* 1: NCCL before 2.4 (no trees): one ring through
                           all n devices, 2 (n - 1) hops of latency per call */
    double cycle_s;     /* Horovod: one fused all-reduce per cycle of the
                           backward, e.g. 0.005 (HOROVOD_CYCLE_TIME default
                           before Horovod 0.21); 0: one bucket per layer    */
    int after_backward; /* 1: one all-reduce after the backward ends, none
                           of it hidden (fairseq without
                           --enable-parallel-backward-allred-opt)          */
    int fused_bn_relu;  /* 1: batch norm's ReLU, and a residual add's, run
                           inside the norm and the add (MXNet --fuse-bn-relu
                           1 --fuse-bn-add-relu 1, cuDNN's fused NHWC
                           BN-add-ReLU: NVIDIA's MLPerf ResNet-50 from v0.7),
                           so the ReLU's own pass over memory, 4 bytes per
                           element, is not made                             */
    double kernel_gap_us; /* microseconds added to each kernel's work, e.g.
                           4: in a CUDA graph no host dispatch runs ahead
                           of the GPU to hide a kernel's launch and drain,
                           so each follows the last (0: the launch cost is
                           the device's kernel_us, a floor under a layer)  */
} pt_dp_impl;

/* pt_graph_step with the gradient exchange of `impl` (NULL: the default). */
void pt_graph_step_dp(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, int64_t per_device,
                      const pt_dp_impl *impl, pt_graph_cost *out);

/* ---- the device a layer graph runs on ------------------------------------
 * A device's efficiency constants (data/devices.json) describe the stack
 * they were fitted on.  Only the V100 entries were fitted on layer graphs
 * (tools/fit.c on the MLPerf Training v0.5-v0.6 ResNet-50, GNMT and
 * Transformer-big rows: cuDNN convolutions, LSTMs, fused element-wise
 * kernels, one framework dispatch per operator); every other device's were
 * fitted on transformer steps (Megatron-LM, torchtitan, NeMo: large GEMMs,
 * flash attention, few kernels per layer) or not at all.  So a layer graph on
 * any other device is priced with that device's own peak TFLOPS by dtype and
 * memory bandwidth, and the layer-graph efficiencies: gemm_eff,
 * gemm_half_GFLOP, mem_eff and kernel_us of the catalog's
 * PT_GRAPH_EFF_DEVICE (one source of truth: refitting the V100 moves every
 * device with it).  That the fractions of peak carry over from V100 to
 * A100, H100 and later parts is an assumption (zero-shot), which validate's
 * A100 rows measure; a calibration (tools/fit.c, `partita calibrate`)
 * applied after this replaces it. */
#define PT_GRAPH_EFF_DEVICE "v100-sxm2-32g"

/* From MLPerf Training v1.0 on, NVIDIA's submissions capture the whole
 * training step in CUDA Graphs ("Extending CUDA Graphs across all
 * benchmarks", NVIDIA, "MLPerf v1.0 Training Benchmarks: Insights into a
 * Record-Setting NVIDIA Performance", 2021), so a kernel no longer costs a
 * framework's host dispatch (the V100 fit's ~60 us, MXNet and PyTorch
 * eager) but its GPU launch and tail: a few microseconds, the catalog's
 * default for a device without a fitted kernel_us (src/hw/hw.h,
 * PT_DEV_DEFAULT_KERNEL_US).  With nothing on the host to overlap, it adds
 * to every kernel (pt_dp_impl.kernel_gap_us). */
#define PT_GRAPH_CUDA_GRAPH_KERNEL_US 4.0

/* The device a layer graph is priced on: *dev itself when its constants were
 * fitted on layer graphs (a device whose name begins "v100"), else *dev with
 * the four layer-graph efficiencies above (attn_eff, host bandwidth, memory
 * and TFLOPS stay dev's).  out may be dev.  Returns 1 when it substituted. */
int pt_graph_device(const pt_device *dev, pt_device *out);

#endif
