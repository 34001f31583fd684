/*
 * search.h -- every valid strategy for a model, a cluster and a job, priced,
 * the best K kept (SPEC section 1, `partita plan`).
 *
 * Enumeration covers tp, cp, pp (dp is what is left), vpp, mbs, gbs (when a
 * range is given), sp, zero, recompute, schedule, offload and, for a
 * mixture-of-experts model, ep and etp (etp dividing tp), generating only
 * strategies that pass the rules of strategy.c.  Per-layer costs are prepared
 * once per (mbs, tp, cp, sp, recompute, ep, etp) and reused over the rest (cost.h);
 * each candidate's memory is computed before its time and one that does not
 * fit is not priced (it may still be the nearest miss).  Threads take the
 * (tp, cp) pairs round-robin and keep their own top-K; the merge orders plans
 * by tokens/s and then by the strategy's keys, so the answer is the same
 * whatever the thread count.
 * Not here: output (src/emit, src/cli).
 */
#ifndef PT_SEARCH_H
#define PT_SEARCH_H

#include "partita.h"
#include "cost/cost.h"

enum {
    PT_D_TP = 0, PT_D_PP, PT_D_DP, PT_D_CP, PT_D_VPP, PT_D_MBS, PT_D_GBS, PT_D_SP, PT_D_ZERO,
    PT_D_RECOMPUTE, PT_D_SCHEDULE, PT_D_OFFLOAD, PT_D_PP_FIRST, PT_D_PP_LAST, PT_D_EP, PT_D_ETP,
    PT_D_COUNT
};
#define PT_SPACE_MAXV 32

/* Allowed values per dimension: a list, a range lo..hi, or anything. */
typedef struct pt_space {
    int kind[PT_D_COUNT];            /* 0 any, 1 list, 2 range          */
    int n[PT_D_COUNT];
    int64_t v[PT_D_COUNT][PT_SPACE_MAXV];
    int64_t lo[PT_D_COUNT], hi[PT_D_COUNT];
} pt_space;

/* Parses "tp=4,8 pp=1..16 recompute=none,full" into *sp (on top of what it
 * holds: call pt_space_init first).  label names the option in errors. */
void pt_space_init(pt_space *sp);
pt_status pt_space_parse(const char *text, const char *label, pt_space *sp, pt_diag *d);
int pt_space_allows(const pt_space *sp, int dim, int64_t value);
const char *pt_space_dim_name(int dim);

typedef struct pt_plan {
    pt_strategy st;
    pt_cost cost;
    double score;        /* what the search ranks by, higher first:
                            tokens/s, or under the time-to-train objective
                            tokens/s / (1 + B / B_crit), the rate at which
                            the run makes progress towards its target    */
} pt_plan;

/* Bounds pt_search refuses beyond (pt_diag names the option): plans kept,
 * threads, devices.  The global batch is bounded by PT_MAX_GLOBAL_BATCH and the
 * sequence by PT_MAX_SEQ_LEN (base.h). */
#define PT_SEARCH_MAX_TOP 10000
#define PT_SEARCH_MAX_THREADS 1024
#define PT_MAX_DEVICES ((int64_t)1 << 24)

typedef struct pt_search_opts {
    int top_k;           /* e.g. 5; 1..PT_SEARCH_MAX_TOP              */
    int threads;         /* 1..PT_SEARCH_MAX_THREADS                  */
    int prune;           /* 1: skip pricing what does not fit (default) */
    int64_t gbs_lo, gbs_hi;  /* the global batch, or a range          */
    pt_space space;      /* --space and --fix together                */
    /* The time-to-train objective (0 = rank by tokens/s): a batch of B
     * tokens needs E(B) = E_min (1 + B / B_crit) tokens to reach the target
     * (McCandlish et al. 2018; Kaplan et al. 2020 for language models). */
    double critical_batch_tokens;
} pt_search_opts;

/* Tokens a plan needs to reach a target that takes min_tokens at a small
 * batch, and the seconds that takes (the time-to-train objective). */
double pt_plan_tokens_to_target(const pt_plan *p, const pt_job *job, double min_tokens, double bcrit_tokens);

typedef struct pt_search_result {
    int64_t evaluated;   /* candidates whose memory was computed      */
    int64_t priced;      /* candidates whose step time was computed   */
    int64_t pruned;      /* not priced: they do not fit               */
    int64_t fitting;     /* candidates that fit                       */
    double seconds;      /* wall time of the search                   */
    int n;               /* plans found (<= top_k), best first        */
    pt_plan *plans;
    int have_miss;       /* the candidate that came closest to fitting */
    pt_plan miss;        /* (priced), when nothing fits               */
    /* for --explain: per dimension, the best plan whose value differs
     * from plans[0]'s (have_alt 0 when no other value fits) */
    int have_alt[PT_D_COUNT];
    pt_plan alt[PT_D_COUNT];
} pt_search_result;

pt_status pt_search(const pt_model *m, const pt_cluster *c, const pt_job *job,
                    const pt_search_opts *o, pt_search_result *r, pt_diag *d);
void pt_search_free(pt_search_result *r);

/* Dimension value of a strategy (enums as their integer value). */
int64_t pt_strategy_dim(const pt_strategy *st, int dim);

#endif
