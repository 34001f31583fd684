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
 * Not here: the events and memory timeline of homogeneous steps (sim.h).
 */
#ifndef PT_SIM_HETERO_H
#define PT_SIM_HETERO_H

#include "partita.h"
#include "cost/hetero.h"

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

#endif
