/*
 * sim_hetero.h -- one training step on a cluster with pools, replayed
 * operation by operation: every data-parallel rank's pipeline (a virtual
 * worker of mixed devices, src/cost/hetero.h) runs its gpipe/1f1b order
 * (src/cost/pipe.c) with its stages' own forward and backward times
 * (pt_hetero_worker) and its own micro-batch count; the step waits for the
 * slowest, then the data-parallel collectives, optimizer and tied
 * embeddings as the analytic model prices them.  The analytic model's
 * closed form for each pipeline is checked against this replay
 * (tests/test_hetero.c, tests/e2e/hetero.sh).
 * pt_sim_hetero_events replays the slowest rank's pipeline once more and
 * keeps its operations as sim.h events (one row per stage, F, B and their
 * sends, layers per stage as the split gives them), so that the trace and
 * SVG writers of src/emit/timeline.h draw it (`eval --trace/--svg` on a
 * cluster with pools); each stage's memory is the analytic model's peak of
 * its busiest device (no memory samples over time).
 * Not here: the memory timeline of homogeneous steps (sim.h).
 */
#ifndef PT_SIM_HETERO_H
#define PT_SIM_HETERO_H

#include "partita.h"
#include "cost/hetero.h"
#include "sim/sim.h"

typedef struct pt_sim_hetero {
    double step_time_s;   /* slowest pipeline + tail                      */
    double pipeline_s;    /* the slowest DP rank's replayed pipeline      */
    double tail_s;        /* DP collectives + optimizer + tied embeddings */
    int crit;             /* that DP rank                                 */
} pt_sim_hetero;

/* Replays st with split sp on c (npools > 1); h: the analytic pricing of
 * the same (its tail is reused).  PT_EINPUT for a pipeline of more than
 * PT_SIM_MAX_MICROBATCHES micro-batches; PT_ENOMEM. */
pt_status pt_sim_hetero_run(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                            const pt_split *sp, const pt_hetero *h, pt_sim_hetero *r, pt_diag *d);

/* The events of r->crit's pipeline (r from pt_sim_hetero_run on the same
 * st, sp, h) into *out, for the timeline writers: pp rows, one virtual stage
 * each, r's step, pipeline and tail times, stage_peak from h.  *out is
 * freed with pt_sim_free.  PT_ENOMEM; PT_EINPUT as pt_hetero_worker. */
pt_status pt_sim_hetero_events(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                               const pt_split *sp, const pt_hetero *h, const pt_sim_hetero *r, pt_sim_result *out,
                               pt_diag *d);

#endif
