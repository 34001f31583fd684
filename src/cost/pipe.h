/*
 * pipe.h -- the pipeline schedules as orders: which operation each pipeline
 * rank runs next, and the replay of those orders in time.
 *
 * A schedule is a generator of each rank's operation order: F (forward of
 * one micro-batch through one virtual stage), B (its backward, or only the
 * input-gradient half for the zero-bubble schedules) and W (the weight-
 * gradient half).  The replay runs the orders: an operation starts when its
 * rank is free and its inputs have arrived -- F after the previous virtual
 * stage's F plus the point-to-point transfer if that stage is on another
 * rank, B after the next virtual stage's B (and its own F), W after its B --
 * and a rank that sends waits for the send (Megatron's blocking p2p).
 *
 * One mechanism for both models: the step simulator (src/sim) replays these
 * orders with per-virtual-stage durations and records every event and the
 * memory; the analytic model (cost.c) prices zb-v and dualpipe, whose timing
 * has no closed form for every micro-batch count, by the same replay with
 * the stage classes it prices (first, middle, last), and their activation
 * peak by walking the same orders.
 *
 * Orders (each cited where it is built, in pipe.c): GPipe; 1F1B (Narayanan
 * et al. SC'21); Megatron-LM's interleaved 1F1B; ZB-H1 (Qi et al. 2024
 * section 3.1); ZB-V (PyTorch's ScheduleZBVZeroBubble, the zero-bubble
 * paper's V schedule); DualPipe (DeepSeek-V3 report section 3.2.1 and
 * deepseek-ai/DualPipe's eight-step order).
 */
#ifndef PT_PIPE_H
#define PT_PIPE_H

#include "partita.h"

#include <stdint.h>

typedef enum pt_op_kind {
    PT_OP_F = 0, PT_OP_B, PT_OP_W, PT_OP_SEND,
    /* data-parallel collectives, on their own stream (src/sim replays them
     * against the compute through pt_pipe_hook): */
    PT_OP_ALLREDUCE,     /* gradients, ZeRO 0                                  */
    PT_OP_REDUCESCATTER, /* gradients, ZeRO 1-3                                */
    PT_OP_ALLGATHER      /* parameters, ZeRO 1-2 (once a step) and 3 (each use) */
} pt_op_kind;

/* Share of a micro-batch's activations the weight-gradient pass still needs
 * after the input-gradient pass: the inputs of the linear layers (QKV, output
 * projection, MLP in and out) against everything a layer keeps -- about half
 * in Korthikanti et al.'s accounting (the 10sbh + 24sbh/t terms hold 4 of the
 * 8 GEMM inputs' worth); zero-bubble schedules free the rest at B. */
#define PT_PIPE_W_KEEP 0.5

typedef struct pt_pipe_op {
    pt_op_kind kind;
    int mb, vs;
    int pair;      /* F only: runs overlapped with the next `pair` operations
                      (DualPipe's F&B: the backward and its W), all of them
                      starting when every one is ready and ending together */
} pt_pipe_op;

typedef struct pt_pipe {
    pt_schedule schedule;
    int pp;        /* ranks                                               */
    int chunks;    /* virtual stages per rank and direction               */
    int V;         /* virtual stages a micro-batch passes through         */
    int split;     /* B and W are separate operations                     */
    int dual;      /* DualPipe: micro-batches [M/2, M) run the other way  */
    int64_t M;     /* micro-batches                                       */
} pt_pipe;

/* 1 for the schedules the analytic model prices by replaying their orders
 * (zb-v, dualpipe at pp > 1), 0 for those it prices in closed form. */
int pt_pipe_replayed(const pt_strategy *st);
/* The pipeline of st with M micro-batches. */
void pt_pipe_init(pt_pipe *p, const pt_strategy *st, int64_t M);
/* The rank that runs virtual stage vs of micro-batch mb. */
int pt_pipe_dev(const pt_pipe *p, int mb, int vs);
/* Operations each rank runs (every rank runs as many). */
int64_t pt_pipe_nops(const pt_pipe *p);
/* Rank d's order into out (pt_pipe_nops entries); returns the count. */
int64_t pt_pipe_order(const pt_pipe *p, int d, pt_pipe_op *out);

/* Called for every operation as the replay runs it, in start order: rank
 * d, the operation, its start and end; send_end > t1 when the rank then
 * sends for send_end - t1 and waits for it; act: rank d's activations
 * after it (in units of act[], 0 without act). */
typedef int (*pt_pipe_visit)(void *ctx, int d, const pt_pipe_op *o, double t0, double t1, double send_end,
                             double act);

typedef struct pt_pipe_replay {
    double makespan;   /* first start to the last end (sends included)    */
    double busy_max;   /* compute time of the busiest rank                */
    double *peak;      /* if not NULL, pp entries: each rank's activation
                          peak, in units of act[] (B frees 1 - W_KEEP of
                          split schedules, W the rest)                    */
} pt_pipe_replay;

/* What a caller may add to the replay (src/sim's data-parallel collectives):
 * when an operation can start and when it ends, beyond its inputs and its
 * duration.  Called only on the rank's own operations, in its order, so the
 * answer may depend on what the rank ran before (its communication stream)
 * but not on other ranks.
 *  start: o is ready on rank d at t (inputs arrived, rank free); returns
 *     when it starts (>= t; e.g. after the all-gather of its first layer's
 *     parameters).  May be asked several times before o runs: no effects.
 *  run:   o runs on rank d; it was ready at `ready` and starts at t0 (what
 *     start said); dur is its compute time.  Returns its end (>= t0 + dur;
 *     later when it waits inside for a collective), or a negative number to
 *     stop the replay (out of memory: pt_pipe_run returns -1).  Called once
 *     per operation; the operations paired with it (DualPipe) follow from its
 *     end. */
typedef struct pt_pipe_hook {
    double (*start)(void *ctx, int d, const pt_pipe_op *o, double t);
    double (*run)(void *ctx, int d, const pt_pipe_op *o, double ready, double t0, double dur);
    void *ctx;
} pt_pipe_hook;

/* Replays the orders with forward f[vs] and backward b[vs] durations (the
 * halves of b for split schedules), activation act[vs] (may be NULL with
 * r->peak NULL) and point-to-point time p2p.  visit may be NULL.
 * Returns 0, -1 when out of memory, -2 when the orders deadlock, or what
 * visit returned if not 0. */
int pt_pipe_run(const pt_pipe *p, const double *f, const double *b, const double *act, double p2p,
                pt_pipe_visit visit, void *ctx, pt_pipe_replay *r);
/* The same with hook (NULL: pt_pipe_run); the visitor sees each operation's
 * start and end as the hook moved them, and the makespan covers them. */
int pt_pipe_run_hooked(const pt_pipe *p, const double *f, const double *b, const double *act, double p2p,
                       const pt_pipe_hook *hook, pt_pipe_visit visit, void *ctx, pt_pipe_replay *r);

/* Each rank's activation peak (pp entries into peak) as its order holds
 * them, without timing (a rank's activations follow its own order only).
 * Returns 0, or -1 when out of memory. */
int pt_pipe_peaks(const pt_pipe *p, const double *act, double *peak);

#endif
