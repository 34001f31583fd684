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

/* How an older data-parallel stack all-reduces its gradients.  Each field
 * is a documented behaviour; all zero is pt_graph_step's modern default. */
typedef struct pt_dp_impl {
    int flat_ring;      /* 1: NCCL before 2.4 (no trees): one ring through
                           all n devices, 2 (n - 1) hops of latency per call */
    double cycle_s;     /* Horovod: one fused all-reduce per cycle of the
                           backward, e.g. 0.005 (HOROVOD_CYCLE_TIME default
                           before Horovod 0.21); 0: one bucket per layer    */
    int after_backward; /* 1: one all-reduce after the backward ends, none
                           of it hidden (fairseq without
                           --enable-parallel-backward-allred-opt)          */
} pt_dp_impl;

/* pt_graph_step with the gradient exchange of `impl` (NULL: the default). */
void pt_graph_step_dp(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, int64_t per_device,
                      const pt_dp_impl *impl, pt_graph_cost *out);

#endif
