/*
 * failure.h -- what failures do to a training run: the job's failure rate
 * from its devices, the time each failure costs (downtime, restart, lost
 * work), the checkpoint period that minimises it, and so the goodput -- the
 * fraction of wall-clock time that advances training -- the expected
 * wall-clock to train a number of tokens, and its dollars (SPEC section 9,
 * `plan --objective goodput|cost`).
 *
 * The model, per plan (a strategy and its priced step, goal/checkpoint.h
 * for the checkpoint it writes):
 *  - Failure rate.  The job's MTBF mu = mtbf_device_hours x 3600 / devices
 *    (the cluster file's per-device MTBF), or, given a rate r per 1000
 *    node-days (Meta's RSC-1 6.50, RSC-2 2.34: Kokolis et al., arXiv
 *    2410.21680), mu = 86400 x 1000 / (nodes x r).
 *  - Downtime D = detection + rescheduling: a failed node is found
 *    (detect_s), then replaced -- from a pool of spare nodes (spare_swap_s,
 *    the spares paid for) or by the scheduler (reschedule_s).
 *  - Restart R grows with the job: launching and connecting every process
 *    (init_s + init_per_doubling_s x log2(nodes): rendezvous and NCCL
 *    communicators), reloading the checkpoint (every rank reads its state,
 *    goal/checkpoint.h pt_ckpt_cost), and warm-up steps at the plan's step
 *    time.  An asynchronous checkpoint is durable only drain_s after its
 *    block, so each failure also redoes drain_s of work: it is added to R.
 *  - Whole-job restart (PT_FT_JOB): every failure stops every rank; the job
 *    rolls back to the last checkpoint.  Goodput = E(T) of the exact model
 *    (goal/checkpoint.h) at its optimal period T >= C + drain.
 *  - Replica-level recovery (PT_FT_REPLICA, FT-HSDP, arXiv 2602.00277): the
 *    data-parallel replicas (devices / dp ranks each) are the unit of
 *    recovery.  A failure stalls every replica for detect_s + regroup_s
 *    (the fault-tolerant all-reduce re-forms its group without the failed
 *    replica) and loses the step in flight (half a step on average); the
 *    others go on while the failed replica is replaced, relaunched (init of
 *    its own nodes), takes its state from a healthy replica over the
 *    network and rejoins: for that time the job runs at (n-1)/n.  So per
 *    failure the job loses x = detect_s + regroup_s + step/2 + R_rep / n
 *    seconds and goodput = max(0, 1 - x / mu) (FT-HSDP's "1 - stall /
 *    MTBF"), times the checkpoint efficiency against the failures replica
 *    recovery cannot absorb: every copy of some node's state lost before
 *    the failed replica recovers.  Failures strike nodes, and a node's
 *    state has a copy on the node in the same place of every other
 *    replica; for n = 2 that copy's node (MTBF mu x nodes) must fail
 *    within R_rep: a rollback MTBF of mu x (mu x nodes / R_rep).  Larger n
 *    only make it rarer, and that n = 2 bound is used for every n.  States that ZeRO
 *    shards across replicas are taken to be held in each replica as HSDP
 *    does (FT-HSDP shards within a replica); the plan's memory is priced
 *    as its strategy says.  A plan with dp = 1 has one replica: whole-job.
 * The breakdown of the expected wall-clock (--explain): the expected time of
 * a period is (mu + D) e^(R/mu) (e^(T/mu) - 1), which is N (mu + D) with N
 * the expected failures per period; of it, T - C is work kept, C the
 * checkpoint, N D downtime and N mu (1 - e^(-R/mu)) restart attempts (each
 * cut short by the next failure) the restarts, and mu (e^(T/mu) - 1) - T
 * work lost to failures.
 * What it does not: price the step (src/cost), choose strategies
 * (src/plan), or model failures that are not exponential.
 */
#ifndef PT_GOAL_FAILURE_H
#define PT_GOAL_FAILURE_H

#include "partita.h"
#include "goal/checkpoint.h"
#include "plan/search.h"

typedef enum pt_ft_mode {
    PT_FT_JOB = 0,   /* whole-job restart from the last checkpoint        */
    PT_FT_REPLICA    /* replica-level recovery (FT-HSDP)                  */
} pt_ft_mode;

/* "job", "replica". */
const char *pt_ft_mode_name(pt_ft_mode m);
int pt_ft_mode_parse(const char *s, pt_ft_mode *out);

/* What failures cost; pt_failure_defaults fills every field. */
typedef struct pt_failure_params {
    double per_1000_node_days;   /* failures per 1000 node-days, e.g. 6.5; 0 =
                                    the cluster's mtbf_device_hours          */
    double detect_s;             /* finding the failure, e.g. 60              */
    double reschedule_s;         /* replacing a node by the scheduler, e.g. 300 */
    double spare_swap_s;         /* swapping in a spare node, e.g. 60         */
    int64_t spare_nodes;         /* spare nodes held (paid for), e.g. 0       */
    double init_s;               /* launching the job's processes, e.g. 30    */
    double init_per_doubling_s;  /* more per doubling of its nodes, e.g. 15   */
    double warmup_steps;         /* steps after a restart lost to warm-up, e.g. 10 */
    double regroup_s;            /* replica mode: the group re-forms, e.g. 120 */
    pt_ft_mode ft;               /* PT_FT_JOB                                  */
    pt_ckpt_mode ckpt;           /* PT_CKPT_SYNC                               */
    double storage_GBps;         /* aggregate checkpoint storage, 10^9 B/s; 0 =
                                    PT_CKPT_STORAGE_GBPS_PER_DEVICE x devices  */
} pt_failure_params;

/* The defaults (assumed, not measured: see failure.c for where each comes
 * from): sync checkpoints, whole-job restart, no spares. */
void pt_failure_defaults(pt_failure_params *fp);

/* Devices per node of c: the innermost level's size, but 4 (a compute
 * tray) for a level larger than 16 (NVL72 racks; SPEC section 1). */
int64_t pt_failure_devices_per_node(const pt_cluster *c);

/* A plan under failures. */
typedef struct pt_goodput {
    pt_ft_mode ft;             /* the mode used (job when dp = 1)             */
    double mtbf_s;             /* the job's MTBF, e.g. 10986                  */
    double checkpoint_s;       /* C: seconds one checkpoint blocks training   */
    double checkpoint_interval_s; /* T: the period, work + C                  */
    double downtime_s;         /* D of a whole-job restart                    */
    double restart_s;          /* R of a whole-job restart: the three below   */
    double init_s, reload_s, warmup_s; /* launch, checkpoint reload, warm-up   */
    double replica_recovery_s; /* replica mode: R_rep; 0 otherwise            */
    double stall_s;            /* what one failure costs every rank: D + R,
                                  or in replica mode detect + regroup         */
    double goodput;            /* fraction of wall-clock that advances training */
    /* where the wall-clock goes (fractions, summing to 1) */
    double frac_compute, frac_checkpoint, frac_lost, frac_restart, frac_degraded;
    double expected_wall_s;    /* tokens / (tokens/s x goodput); 0 without tokens */
    double dollars;            /* expected_wall_s x paid devices x price       */
    int64_t paid_devices;      /* the job's and the spares'                    */
    pt_ckpt_cost ck;           /* the checkpoint                              */
} pt_goodput;

/* Plan p of model m and job on c under failures fp; tokens (0: none) to
 * train. */
void pt_failure_goodput(const pt_failure_params *fp, const pt_model *m, const pt_job *job, const pt_plan *p,
                        const pt_cluster *c, double tokens, pt_goodput *out);

/* The objectives of `plan` as the search's score (pt_search_opts.score,
 * arg a const pt_failure_goal *): goodput ranks by effective tokens/s
 * (tokens/s x goodput, i.e. the expected wall-clock), cost by tokens per
 * dollar (the cluster must have a price). */
typedef struct pt_failure_goal {
    pt_failure_params fp;
    const pt_model *m;
    const pt_job *job;
    const pt_cluster *c;
    int cost;                  /* 0 goodput, 1 cost                          */
    double tokens;             /* to train, e.g. 15e12; 0 = none             */
    double deadline_s;         /* cost: the run must end by then; 0 = none   */
} pt_failure_goal;

double pt_failure_score(const pt_plan *p, const pt_job *job, const void *arg);

/* Drops from r->plans (and checks, its pt_plan_rerank checks, when not
 * NULL) the plans whose expected wall-clock to train g->tokens exceeds
 * g->deadline_s, keeping the order; returns how many were dropped.
 * *fastest_s gets the least expected wall-clock among all plans (before
 * dropping; INFINITY when none makes progress). */
int pt_failure_deadline_filter(const pt_failure_goal *g, pt_search_result *r, pt_plan_check *checks,
                               double *fastest_s);

/* `plan --cluster a,b,c`: one job's best plan per cluster. */
#define PT_GOODPUT_MAX_CLUSTERS 32
typedef struct pt_goodput_entry {
    pt_cluster c;       /* the cluster, resized                          */
    pt_job job;         /* the job on it                                 */
    int found;          /* 0: no strategy fits                            */
    pt_plan best;       /* its best plan under the objective             */
    pt_goodput gp;      /* that plan under failures                      */
} pt_goodput_entry;

typedef struct pt_goodput_pick {
    int fastest;        /* index of the least expected wall-clock (the most
                           tokens kept per second without --tokens); -1 none */
    int cheapest;       /* index of the fewest dollars among those within
                           deadline_s (0: no deadline); -1 none (no prices,
                           no tokens, or none in time)                    */
} pt_goodput_pick;

void pt_goodput_compare_pick(const pt_goodput_entry *e, int n, double deadline_s, pt_goodput_pick *out);

#endif
