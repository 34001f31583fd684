/*
 * hetero_out.h -- plans on clusters with pools (SPEC section 10) as JSON and
 * as tables: the SPEC section 5 plan object plus the lists (strategy.layers,
 * strategy.batch_share, the strategy string's layers= and batch_share=),
 * "stages" (each stage's layers, the pools and device it runs on, its
 * forward+backward per micro-batch and memory) and "pools" (devices and the
 * fraction of the step's layer x micro-batch work each pool runs).
 * Not here: the pricing (src/cost/hetero.c) or the search (src/plan/hsearch.c).
 */
#ifndef PT_EMIT_HETERO_OUT_H
#define PT_EMIT_HETERO_OUT_H

#include <stdio.h>

#include "partita.h"
#include "cost/hetero.h"
#include "plan/hsearch.h"
#include "sim/sim_hetero.h"

/* Fraction of the step's work (layers x micro-batches x devices) pool k runs. */
double pt_emit_hetero_work(const pt_model *m, const pt_cluster *c, const pt_strategy *st, const pt_split *sp,
                           int k);

/* `eval --json` on pools: one object (sim may be NULL). */
pt_status pt_emit_hetero_eval_json(const pt_model *m, const pt_cluster *c, const pt_job *job,
                                   const pt_strategy *st, const pt_split *sp, const pt_hetero *h,
                                   const pt_sim_hetero *sim, char **out, pt_diag *d);
/* `plan --json` on pools: {"candidates_evaluated", "search_seconds", "plans"}; sims: r->n
 * replays of the plans (may be NULL). */
pt_status pt_emit_hetero_search_json(const pt_model *m, const pt_cluster *c, const pt_job *job,
                                     const pt_hsearch_result *r, const pt_sim_hetero *sims, double seconds,
                                     char **out, pt_diag *d);
/* The tables: one plan (eval), or the ranked plans then the best in full. */
void pt_emit_hetero_table(FILE *f, const pt_model *m, const pt_cluster *c, const pt_job *job,
                          const pt_strategy *st, const pt_split *sp, const pt_hetero *h, const pt_sim_hetero *sim);
void pt_emit_hetero_search_table(FILE *f, const pt_model *m, const pt_cluster *c, const pt_job *job,
                                 const pt_hsearch_result *r, const pt_sim_hetero *sims);

/* `plan --explain` on pools: why the best plan r->plans[0] wins, key by key
 * (the best kept plan with another tp, pp, mbs, recompute or zero, from the
 * r->n plans searched), and what its uneven split buys: the same strategy
 * with even layers (even_layers, NULL when pp does not divide the layers or
 * pp = 1) and with even batch shares (even_shares, NULL when the shares are
 * already even or the micro-batches do not split evenly). */
void pt_emit_hetero_explain(FILE *f, const pt_hsearch_result *r, const pt_hetero *even_layers,
                            const pt_hetero *even_shares);

#endif
