/*
 * sim.h -- one training step replayed event by event.
 *
 * Each pipeline rank (stage) has a compute stream and a send stream.  The
 * orders come from src/cost/pipe.c (GPipe, 1F1B, Megatron's interleaved
 * 1F1B, ZB-H1, PyTorch's ZB-V, DeepSeek's DualPipe), and the simulator
 * replays them with per-virtual-stage durations from the analytic model's
 * per-layer costs (src/cost), so the two can be compared: an operation
 * starts when its rank is free and its inputs have arrived -- F after the
 * previous virtual stage's F plus the point-to-point transfer if that stage
 * lives on another rank, B after the next virtual stage's B (and after its
 * own F), W after its B.  TP/CP collectives are inside F and B (they are on
 * the critical path).  Data-parallel collectives run on a third stream per
 * rank, FIFO, against the compute (through pt_pipe_hook: each operation runs
 * its virtual stage's buckets -- the embedding, one per layer, the output
 * layer -- one by one):
 *  - ZeRO 0 all-reduces and ZeRO 1-2 reduce-scatters each bucket's gradients
 *    when the last micro-batch's B (W for the zero-bubble schedules) on it
 *    ends (Megatron-LM --overlap-grad-reduce, DDP buckets); ZeRO 1-2's
 *    parameter all-gathers are issued at the step's start in the order the
 *    rank first uses its virtual stages, and the first forward of each
 *    bucket waits for its own (--overlap-param-gather);
 *  - ZeRO-3 / FSDP gathers a bucket's parameters before its F and its B (the
 *    next bucket's gather issued when a bucket's compute starts: one layer
 *    ahead) and reduce-scatters its gradients after its B (W); the compute
 *    waits for the gather;
 *  - a MoE model's experts over their expert data-parallel group, the same
 *    way, on the same stream;
 *  - while a collective overlaps compute, the compute runs
 *    1/pt_cost_dp.slow_c as fast (18.9% slower: NCCL's blocks share the SMs,
 *    cost.c's OVERLAP_COMPUTE_SLOWDOWN) and, under DeepSpeed ZeRO-3, the
 *    collective 1/pt_cost_dp.slow as fast (its measured 60% overlap).
 * Durations are shares of the analytic model's collectives for the rank
 * (pt_cost_dp_colls, by parameters), so the two models differ in order and
 * overlap, not bandwidth.  The pipeline part ends when the compute, the sends
 * and the collectives are done; the optimizer step, offload traffic and the
 * tied embeddings' all-reduce follow as the analytic model prices them.
 * Activation memory rises at each F's end and falls when the micro-batch's
 * B (or W) on that virtual stage ends; the peak per rank is recorded.  The
 * step also waits for the tied embeddings' gradient all-reduce
 * (pt_cost_tied_embedding_s).
 * Not here: drawing (src/emit/trace.c, svg.c).
 */
#ifndef PT_SIM_H
#define PT_SIM_H

#include "partita.h"
#include "cost/pipe.h"

typedef struct pt_sim_event {
    int stage;         /* pipeline rank, 0..pp-1                          */
    int stream;        /* 0 compute, 1 send, 2 data-parallel collectives    */
    pt_op_kind kind;
    int mb;            /* micro-batch, 0..m-1                              */
    int vstage;        /* virtual stage, 0..pp*chunks-1                    */
    int layer_lo, layer_hi; /* layers [lo, hi) of that virtual stage; of a
                          collective, its bucket's (lo == hi: the embedding,
                          at the first layer, or the output layer, past
                          the last)                                        */
    double start_s, end_s;
} pt_sim_event;

typedef struct pt_sim_mem {   /* activation+static bytes of a rank from t on */
    int stage;
    double t;
    int64_t bytes;
} pt_sim_mem;

typedef struct pt_sim_result {
    int pp, chunks;           /* ranks; virtual stages per rank              */
    int64_t microbatches;
    int64_t window;           /* 0: every micro-batch replayed; else the step
                                 was extrapolated from replays of window/2 and
                                 window micro-batches (events: the latter)   */
    double pipeline_s;        /* first F start to the last B/W, send or
                                 data-parallel collective end               */
    double dp_s;              /* of pipeline_s: how long the DP collectives
                                 ran past the last compute and send          */
    double tail_s;            /* optimizer + offload + tied embeddings       */
    double step_time_s;       /* pipeline_s + tail_s                          */
    double busy_s;            /* compute time of the busiest rank            */
    double bubble_s;          /* pipeline_s - busy_s                         */
    int64_t peak_bytes;       /* largest per-rank peak (static + activations) */
    int64_t *stage_peak;      /* pp entries                                  */
    int64_t *stage_static;    /* pp entries: weights, grads, optimizer, other */
    int nevents;
    pt_sim_event *events;     /* in start order                              */
    int nmem;
    pt_sim_mem *mem;          /* in time order per rank                      */
} pt_sim_result;

/* The largest step the simulator replays whole: micro-batches per pipeline,
 * (collectives: at most PT_SIM_MAX_OPS of them become events; the replay of
 * the rest goes on without them)
 * and micro-batches x virtual stages (each is a few operations and events;
 * 2^20 of them take about a second and 200 MB).  A larger step is replayed
 * for two windows of L and 2L micro-batches (2L x virtual stages within the
 * limit, L a multiple of pp and 2, at least 4 x the virtual stages) and its
 * pipeline time, busy time and per-stage peaks extrapolated from them (the
 * step is affine in the micro-batch count once the pipeline is full):
 * window says so, and events then hold the 2L-micro-batch replay only.  A
 * step whose window would not hold its fill and drain is refused with the
 * limit named (PT_EINPUT). */
#define PT_SIM_MAX_MICROBATCHES ((int64_t)1 << 16)
#define PT_SIM_MAX_OPS ((int64_t)1 << 20)

/* Simulates one step of st (already checked).  PT_EINPUT for a job
 * pt_job_check refuses or a step beyond the limits above; PT_ENOMEM on
 * allocation failure. */
pt_status pt_sim_run(const pt_model *m, const pt_cluster *c, const pt_job *job,
                     const pt_strategy *st, pt_sim_result *r, pt_diag *d);
void pt_sim_free(pt_sim_result *r);

#endif
