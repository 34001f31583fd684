/*
 * search.h -- every valid strategy for a model, a cluster and a job, priced,
 * the best K kept (SPEC section 1, `partita plan`).
 *
 * Enumeration covers tp, cp, pp (dp is what is left), vpp, mbs, gbs (when a
 * range is given), sp, zero, recompute, schedule, offload, uneven first and
 * last stages (beside the even split where pp divides the layers, instead of
 * it where pp does not; search.c uneven_variants) and, for a
 * mixture-of-experts model, ep and etp (etp dividing tp), generating only
 * strategies that pass the rules of src/strategy, and counting per rule the
 * values the rules refuse (pt_search_rule).  Per-layer costs are prepared
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
#include "strategy/strategy.h" /* pt_space, PT_D_*, pt_strategy_dim */

typedef struct pt_plan {
    pt_strategy st;
    pt_cost cost;
    double score;        /* what the search ranks by, higher first:
                            tokens/s, or what pt_search_opts.score gives  */
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
    /* The objective: NULL ranks plans by tokens/s; otherwise by
     * score(plan, job, score_arg), higher first, called from every search
     * thread at once (so it must not write through score_arg).  Objectives
     * that know more than a step -- time to train, src/goal/ttt.h
     * pt_goal_lm_score -- live above the search and are passed down here. */
    double (*score)(const pt_plan *p, const pt_job *job, const void *arg);
    const void *score_arg;
    /* Progress (may be NULL): one unit per (tp, cp) pair searched. */
    pt_progress_fn progress;
    void *progress_arg;
    /* Called for every candidate that fits, once priced (NULL: none); with
     * several threads, one call at a time under the search's lock. */
    void (*on_fit)(const pt_plan *p, void *arg);
    void *on_fit_arg;
    /* Keys across dimensions that o->space cannot say (NULL: all): a
     * candidate for which admit(st, admit_arg) is 0 is skipped before it is
     * counted or priced; called from every search thread at once.  The
     * engines' rules (engine_space.c, pt_search_engine) come in here. */
    int (*admit)(const pt_strategy *st, const void *arg);
    const void *admit_arg;
} pt_search_opts;

/* The rules that refuse a candidate while the search enumerates (counted
 * per value refused, after --space/--fix: a value the space excludes is not
 * counted; a dimension's values that are not candidates at all -- a tp that
 * does not divide the devices, a vpp that does not divide the layers -- are
 * counted only when --space/--fix names that dimension).  When nothing is
 * left to price, `plan` names the rules with the most refusals. */
typedef enum pt_search_rule {
    PT_RULE_TP_SHAPE = 0, /* tp does not divide heads, kv heads or MLP widths   */
    PT_RULE_DEVICES,      /* tp*cp*pp does not divide the device count          */
    PT_RULE_CP_SEQ,       /* seq_len is not a multiple of 2*cp                  */
    PT_RULE_PP_LAYERS,    /* pp above the layers, or no stage layout for it     */
    PT_RULE_VPP,          /* pp*vpp does not divide the layers                  */
    PT_RULE_EXPERTS,      /* ep, etp against the experts, tp and tp*cp*dp       */
    PT_RULE_SP,           /* sequence parallelism: seq/cp vs tp; MoE needs it   */
    PT_RULE_GBS,          /* the global batch is not a multiple of mbs*dp       */
    PT_RULE_SCHEDULE,     /* interleaved, dualpipe, uneven stages' schedules    */
    PT_RULE_OFFLOAD,      /* offload=optimizer needs zero>=1, params zero=3     */
    PT_RULE_COUNT
} pt_search_rule;

/* What rule r says, with the model's and the job's numbers, into buf. */
void pt_search_rule_describe(int r, const pt_model *m, const pt_cluster *c, const pt_job *job,
                             char *buf, size_t n);

typedef struct pt_search_result {
    int64_t evaluated;   /* candidates whose memory was computed      */
    int64_t priced;      /* candidates whose step time was computed   */
    int64_t pruned;      /* not priced: they do not fit               */
    int64_t fitting;     /* candidates that fit                       */
    double seconds;      /* wall time of the search                   */
    int n;               /* plans found (<= top_k), best first        */
    pt_plan *plans;
    int64_t refused[PT_RULE_COUNT]; /* values refused per rule (pt_search_rule) */
    int have_miss;       /* the candidate that came closest to fitting */
    pt_plan miss;        /* (priced), when nothing fits               */
    /* for --explain: per dimension, the best plan whose value differs
     * from plans[0]'s (have_alt 0 when no other value fits) */
    int have_alt[PT_D_COUNT];
    pt_plan alt[PT_D_COUNT];
} pt_search_result;

/* 1 if engine e (not PT_ENGINE_ANY) runs st for m and job: its space and
 * its rules across keys (engine_space.c says which and where from). */
int pt_engine_admits(pt_engine e, const pt_model *m, const pt_job *job, const pt_strategy *st);
/* The engine a plan is attributed to: job->engine, or under PT_ENGINE_ANY
 * the first of megatron, torchtitan and deepspeed that admits st
 * (PT_ENGINE_ANY when none does). */
pt_engine pt_engine_of(const pt_model *m, const pt_job *job, const pt_strategy *st);
/* "megatron", "deepspeed", "torchtitan" (PT_ENGINE_FSDP) or "any": the
 * names plan prints, which are also --engine's and --export's. */
const char *pt_engine_label(pt_engine e);
/* pt_search bounded to what job->engine's current release runs, priced as
 * that engine runs it (o's space narrowed, its rules as o->admit, which
 * must be NULL); under PT_ENGINE_ANY every engine's space is searched, each
 * plan priced as pt_engine_of's engine, and the results merged in the
 * search's order (plans, the nearest miss and --explain's alternatives as
 * if one search had run).  A job the engine cannot run at all (DeepSpeed
 * and experts or fp8, torchtitan and fp16/fp8) or a --fix/--space value
 * outside the engine's space is refused (PT_EINPUT, naming the key). */
pt_status pt_search_engine(const pt_model *m, const pt_cluster *c, const pt_job *job,
                           const pt_search_opts *o, pt_search_result *r, pt_diag *d);

/* The search's orders, shared by every merge of results: pt_plan_better,
 * a ranks before b (higher score, then the strategy keys ascending);
 * pt_plan_closer, a is the nearer miss (less memory, then the keys);
 * pt_plan_cmp, the qsort comparator of pt_plan_better. */
int pt_plan_better(const pt_plan *a, const pt_plan *b);
int pt_plan_closer(const pt_plan *a, const pt_plan *b);
int pt_plan_cmp(const void *a, const void *b);

pt_status pt_search(const pt_model *m, const pt_cluster *c, const pt_job *job,
                    const pt_search_opts *o, pt_search_result *r, pt_diag *d);
void pt_search_free(pt_search_result *r);

/* When nothing fits (r->have_miss, r->n == 0): each single change that
 * cuts the nearest miss's memory (recompute=full, mbs=1, zero=3,
 * offload=optimizer, zero=3 offload=params; src/plan/nearmiss.c says why
 * these), priced, where it gives a valid strategy that differs from the
 * miss and needs less memory than it (miss->cost priced); and the devices
 * the model's weights, gradients and Adam states alone need fully sharded. */
#define PT_NEARMISS_TRIES 5
typedef struct pt_nearmiss_try {
    const char *change;      /* "zero=3 offload=params" (static text)       */
    pt_strategy st;          /* the nearest miss with that change            */
    pt_cost cost;            /* its price; cost.fits says whether it fits    */
} pt_nearmiss_try;

typedef struct pt_nearmiss {
    int ntries;
    pt_nearmiss_try tries[PT_NEARMISS_TRIES];
    double states_bytes;     /* 16 B per parameter, e.g. 2.8e12 for 175B     */
    int64_t devices_needed;  /* whole nodes that hold them; 0 = c has enough */
} pt_nearmiss;

pt_status pt_nearmiss_explain(const pt_model *m, const pt_cluster *c, const pt_job *job,
                              const pt_plan *miss, pt_nearmiss *out);

/* ---- re-ranking by simulation (rerank.c) -------------------------------------
 * The analytic model prices millions of candidates; the step simulator
 * (src/sim) replays one step event by event and is the reference where the
 * two differ (zero-bubble schedules with few micro-batches, uneven stages).
 * pt_plan_rerank replays the search's best plans, ranks them by simulated
 * step time (the objective's score of the simulated step) and drops those
 * whose simulated peak memory does not fit, so that the plan ranked first
 * is the one the simulator confirms.  Search with top_k =
 * pt_plan_rerank_pool(K) and keep K. */

/* 1 when the simulator's replay of st checks something the analytic model
 * only estimates (pt_plan_check.independent says what). */
int pt_plan_sim_independent(const pt_model *m, const pt_strategy *st);

/* How many analytic best plans to replay for K kept: max(4K, 20), at most
 * PT_SEARCH_MAX_TOP. */
int pt_plan_rerank_pool(int keep);

/* One plan as the simulator replayed it (analytic numbers when it could not). */
typedef struct pt_plan_check {
    int simulated;               /* 1: the simulator replayed the step; 0: it
                                    refused (e.g. a step beyond its limits) and
                                    the plan keeps its analytic numbers        */
    int independent;             /* 1: the replay checks something the analytic
                                    model only approximates
                                    (pt_plan_sim_independent): a pipeline
                                    priced in closed form (pp > 1, not zb-v or
                                    dualpipe), or data-parallel collectives
                                    (dp*cp > 1 or an expert data-parallel
                                    group > 1), which the simulator replays
                                    bucket by bucket against the compute and
                                    the analytic model prices by formula (for
                                    zb-v and dualpipe: their overlap with the
                                    pipeline order, the order itself being
                                    replayed by both).  0 otherwise: pp = 1
                                    without data parallelism, or zb-v and
                                    dualpipe without it, where both models
                                    compute the same sums; such a plan is
                                    ranked by the analytic model           */
    double analytic_step_time_s; /* the analytic model's step, e.g. 15.468     */
    double simulated_step_time_s;/* the simulator's (0 when not simulated)     */
    double simulated_bubble_s;   /* idle time of the busiest simulated rank    */
    int64_t analytic_peak_bytes; /* the analytic model's busiest device        */
    int64_t simulated_peak_bytes;/* the simulator's busiest rank (0: none)     */
} pt_plan_check;

/* Replays r->plans[0 .. r->n) (the search's pool, o the options it ran
 * with: o->score ranks, NULL = tokens/s), sets each simulated plan's
 * cost.step_time_s, tokens_per_s, model_tflops_per_gpu, mfu and hfu to the
 * simulated step's (the breakdown cost.time and cost.mem stay analytic),
 * drops plans whose simulated peak exceeds the device, re-sorts by score
 * then the strategy keys (the same order whatever the thread count) and
 * keeps the first `keep`.  The --explain alternatives r->alt are replayed
 * and re-chosen against the new first plan.  *checks (caller frees, r->n
 * entries after the call, in plan order) says which numbers are simulated.
 * If every plan's simulated peak is over the device, the plans are kept,
 * ranked by simulation (the table shows both memories).  PT_ENOMEM on
 * allocation failure. */
pt_status pt_plan_rerank(const pt_model *m, const pt_cluster *c, const pt_job *job,
                         const pt_search_opts *o, pt_search_result *r, int keep,
                         pt_plan_check **checks, pt_diag *d);

#endif
