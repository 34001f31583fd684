/*
 * hetero.h -- training steps on heterogeneous clusters (SPEC section 10):
 * pools of different devices, each pipeline stage priced on its own device.
 *
 * Layout.  Ranks are laid out as Megatron-LM numbers them (strategy.h:
 * rank = t + tp*(c + cp*(d + dp*p))) and the pools fill ranks in order
 * (pt_pool), so data-parallel rank d's stage p runs on the pool that holds
 * ranks tp*cp*(d + dp*p) .. +tp*cp-1 (a tensor/context group in two pools is
 * refused).  Each data-parallel rank is then a HetPipe-style virtual worker
 * (Park et al., ATC'20): a pipeline whose stages may sit on different
 * devices -- on 32 H100 + 32 A100 with pp=2, stage 0 on H100s and stage 1 on
 * A100s; with pp=1 half the ranks are H100s and half A100s.
 *
 * The model (wave2-notes section 3, Metis/HetPipe/AMP):
 *  - a stage's forward and backward per micro-batch are its layers' times on
 *    its device (pt_cost_prepare on a copy of the cluster with that pool's
 *    device: the same per-layer roofline and TP/CP collectives), plus the
 *    embedding on the first stage and the logits and loss on the last;
 *  - stages hold different layer counts (layers=a,b,...): the search splits
 *    the layers by dynamic programming over cut points so that the slowest
 *    stage is as fast as it can be, each stage within its device's memory
 *    (pt_hetero_split_layers);
 *  - data-parallel ranks run different micro-batch counts b_d
 *    (batch_share=...): gradient accumulation balances them so that b_d t_d
 *    is as even as whole micro-batches allow, t_d the rank's pipeline period
 *    (pt_hetero_shares: shares proportional to speed);
 *  - each virtual worker's pipeline (gpipe or 1f1b) takes
 *    b_d (F_k + B_k) + sum_{s != k} (F_s + B_s) + (b_d + pp - 1) 2 p2p,
 *    k its slowest stage (the fill and the drain pass once through the
 *    others, as cost.c prices uneven stages); the step waits for the slowest
 *    worker, then the data-parallel collectives, then the optimizer on the
 *    slowest device;
 *  - the data-parallel collectives (over all ranks of a stage, priced on the
 *    cluster's levels, so at the slowest member's link) expose what cost.c's
 *    mechanism gives (pt_cost_dp_stages_s: a bucket per layer, the
 *    embedding and the output layer their own, on a FIFO stream beside the
 *    compute), each stage with its own layers and parameters at its slowest
 *    member's times, since each collective waits for its slowest member:
 *    zero=0-2 the most over stages of the last backward's reductions
 *    draining past it, less how much earlier than the step's pipeline the
 *    stage's last backward ends, plus the first stage's wait for the
 *    parameter gathers (zero=1, 2); zero=3 gathers the stage's parameters
 *    for each micro-batch's forward and backward and reduce-scatters its
 *    gradients, every micro-batch but one at the pace of the stage slowest
 *    with them, each stage's exposure once for the fill and drain -- so
 *    every rank runs as many micro-batches (even shares; split.c refuses
 *    uneven ones).  Pools of one device give cost.c's numbers exactly; a
 *    stage over H100 and A100 ranks the A100 cluster's (tests/test_hetero.c);
 *  - ZeRO shards over a stage's data-parallel group;
 *  - memory per stage and pool: cost.c's states for the stage's layers,
 *    its activations times the micro-batches the schedule keeps (1f1b:
 *    min(pp - s, b_d); gpipe: b_d), checked against that pool's device.
 * src/sim/sim_hetero.c replays every virtual worker's pipeline order
 * (src/cost/pipe.c) with the same stage times and adds the tail priced
 * here (tail_s: its collectives are not replayed); tests/test_hetero.c
 * checks that the two agree.
 * Not here: parsing the lists (src/strategy/split.h), choosing tp/pp/...
 * (src/plan/hsearch.c).
 */
#ifndef PT_COST_HETERO_H
#define PT_COST_HETERO_H

#include "partita.h"
#include "cost/cost.h"
#include "strategy/split.h"

/* One priced strategy on a cluster with pools. */
typedef struct pt_hetero {
    pt_cost cost;                         /* SPEC section 5's numbers; mem: the
                                             device fullest against its memory */
    int pp, dp;
    int crit;                             /* the DP rank whose pipeline sets the step */
    double p2p_s;                         /* one point-to-point transfer          */
    double pipe_s[PT_SPLIT_MAX_DP];       /* each DP rank's pipeline, analytic    */
    double tail_s;                        /* DP collectives + optimizer + tied embeddings */
    /* per stage, over the DP ranks it spans */
    int pool_lo[PT_SPLIT_MAX_STAGES], pool_hi[PT_SPLIT_MAX_STAGES]; /* pools its ranks are in */
    double stage_s[PT_SPLIT_MAX_STAGES];  /* forward+backward of one micro-batch,
                                             on its slowest device               */
    int64_t stage_bytes[PT_SPLIT_MAX_STAGES]; /* busiest device's memory         */
    int64_t stage_cap[PT_SPLIT_MAX_STAGES];   /* that device's memory            */
} pt_hetero;

/* The pool holding rank r (0 <= r < c->devices) of a cluster with pools. */
int pt_hetero_pool_of(const pt_cluster *c, int64_t r);

/* The pool of DP rank d's pipeline stage s, or -1 when its tp*cp ranks
 * span two pools. */
int pt_hetero_pool_at(const pt_cluster *c, const pt_strategy *st, int d, int s);
/* Layers on stage s and micro-batches of DP rank d under sp (an empty list:
 * the even split). */
int pt_hetero_layers(const pt_model *m, const pt_strategy *st, const pt_split *sp, int s);
int64_t pt_hetero_mb(const pt_strategy *st, const pt_split *sp, int d);

/* Splits L layers over S stages (contiguous, each >= 1) by dynamic
 * programming over the cut points: stage s with n layers takes a[s]*n +
 * c0[s] seconds and ma[s]*n + mc[s] bytes, at most cap[s] (cap NULL: no
 * limit); out[s] gets the counts that make the slowest stage fastest (ties:
 * the smaller sum, then more layers on the earlier stages).  Returns 0, or
 * -1 when no split fits (out then ignores memory). */
int pt_hetero_split_layers(int64_t L, int S, const double *a, const double *c0, const double *ma,
                           const double *mc, const double *cap, int *out);

/* Splits `total` micro-batches over n ranks (each >= 1) whose micro-batch
 * takes t[d] seconds, so that max_d share[d] t[d] is least (one at a time to
 * the rank whose (share + 1) t is smallest, lowest rank first on ties):
 * shares proportional to speed, b_d t_d equal where the counts allow. */
void pt_hetero_shares(int64_t total, int n, const double *t, int *share);

/* Prices st (resolved by pt_split_resolve) with split sp on c (npools > 1).
 * An empty layers or batch_share list is an even split.  PT_EINPUT (naming
 * tp or cp) when a tensor/context group would span two pools. */
pt_status pt_hetero_eval(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                         const pt_split *sp, pt_hetero *out, pt_diag *d);

/* Fills sp's layers by pt_hetero_split_layers (each stage at its slowest
 * device's speed, within the smallest memory it spans) and its shares by
 * pt_hetero_shares (each DP rank's period with those layers), for st. */
pt_status pt_hetero_auto(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                         pt_split *sp, pt_diag *d);

/* Per-stage forward and backward of one micro-batch of DP rank d with sp's
 * layers (fwd, bwd: st->pp entries) and its micro-batches (*mb): what
 * src/sim replays.  PT_EINPUT as pt_hetero_eval. */
pt_status pt_hetero_worker(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                           const pt_split *sp, int dpr, double *fwd, double *bwd, int64_t *mb, pt_diag *d);

#endif
