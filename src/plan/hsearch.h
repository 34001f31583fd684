/*
 * hsearch.h -- `partita plan` on a cluster with pools of different devices
 * (SPEC section 10): every (tp, pp, mbs, recompute, zero) that the space
 * allows and the rules of src/strategy/split.h admit, each given its layer
 * counts per stage and micro-batch shares per data-parallel rank by
 * pt_hetero_auto (speed and memory), priced by pt_hetero_eval, the best K
 * that fit kept, fastest first (ties: enumeration order, so the output is
 * the same on every run).
 *
 * Enumerated: tp over the divisors of the innermost level's size (up to
 * 64), pp from 1 to the layers (up to PT_SPLIT_MAX_STAGES) with tp*pp
 * dividing the devices, dp what is left (up to PT_SPLIT_MAX_DP), mbs 1, 2,
 * 4, 8 (the global batch a multiple, at least dp micro-batches), recompute
 * none/selective/full, zero 0/1, schedule 1f1b, cp 1, sp with tp > 1.
 * Not here: the pricing (src/cost/hetero.c), output (src/emit/hetero_out.c).
 */
#ifndef PT_PLAN_HSEARCH_H
#define PT_PLAN_HSEARCH_H

#include "partita.h"
#include "cost/hetero.h"
#include "strategy/strategy.h"
#include "strategy/split.h"

/* Plans kept at most (each carries its per-stage and per-rank lists). */
#define PT_HSEARCH_MAX_TOP 100

typedef struct pt_hplan {
    pt_strategy st;
    pt_split sp;
    pt_hetero h;
} pt_hplan;

typedef struct pt_hsearch_result {
    int64_t evaluated;   /* candidates priced                         */
    int64_t fitting;     /* of them, those that fit                   */
    int n;               /* plans kept, best first                    */
    pt_hplan *plans;     /* n entries (caller frees with pt_hsearch_free) */
    int have_miss;       /* nothing fits: the candidate nearest to it */
    pt_hplan miss;       /* (the least memory against its device)     */
} pt_hsearch_result;

/* Searches job->global_batch sequences per step of m on c (npools > 1),
 * within space, keeping top_k (1..PT_HSEARCH_MAX_TOP).  PT_EINPUT for a
 * model the pools cannot price (mixture of experts), PT_ENOMEM. */
pt_status pt_hsearch(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_space *space,
                     int top_k, pt_hsearch_result *r, pt_diag *d);
void pt_hsearch_free(pt_hsearch_result *r);

#endif
