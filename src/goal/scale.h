/*
 * scale.h -- time to train against the number of devices, data parallelism
 * alone against hybrid data x model parallelism (`partita scale`; Pal et
 * al., "Optimizing Multi-GPU Parallelization Strategies for Deep Learning
 * Training", IEEE Micro 39(5), 2019).
 *
 * What it does: for each device count N (powers of two up to the maximum)
 * and each worker size m (1 = data parallelism alone; 2, 4, ... up to a
 * node), tries worker batches of 1 to 2048 samples (at most 256 per device),
 * split over the worker's m devices by the placement of src/plan/place.c -- the
 * better of the placement for the step alone and the one that also
 * balances the devices' gradient all-reduces among the most workers -- and
 * the global batch B is N/m times the worker's batch.  Time to train is
 *
 *     steps(B) x step time = E(B) * samples_per_epoch / B * step_s
 *
 * (pt_goal_time_to_train) with E(B) the statistical-efficiency model of
 * src/goal/ttt.h, so a larger global batch costs epochs: that is what stops
 * data parallelism, and what hybrid parallelism avoids by reaching N devices
 * with a smaller batch.  It sits in goal, above the planner: it calls the
 * placement (src/plan/place.h) and the statistical efficiency, and nothing
 * below it calls it.
 * What it does not: place layers (src/plan/place.c), price a step
 * (src/cost/graph_cost.c), fit E(B) (ttt.c, statef_csv.c) or print anything
 * (src/cli/cmd_scale.c).
 */
#ifndef PT_SCALE_H
#define PT_SCALE_H

#include "partita.h"
#include "cost/ps.h"
#include "goal/ttt.h"
#include "plan/place.h"
#include "workload/graph.h"

#define PT_SCALE_MAXPTS 24
#define PT_SCALE_MAXM 8

typedef struct pt_scale_cfg {
    int ok;               /* a configuration that fits was found            */
    int m, k;             /* devices per worker, micro-batches              */
    int64_t dp;           /* workers                                         */
    double worker_batch, global_batch;
    double step_s, epochs, steps, time_s;
    double mem_GiB;
} pt_scale_cfg;

typedef struct pt_scale_point {
    int64_t gpus;
    pt_scale_cfg dp;      /* data parallelism alone (m = 1)                 */
    pt_scale_cfg hybrid;  /* the best with m >= 2                            */
} pt_scale_point;

/* The model-parallel speed-up of one worker of m devices over one device on
 * the same batch, with the placement that gives it. */
typedef struct pt_scale_mp {
    int m, k, groups;
    double batch, single_s, step_s, speedup;
    pt_place_method method;
    int optimal, timed_out, too_large;
    int single_fits;      /* one device can hold the worker's batch        */
} pt_scale_mp;

typedef struct pt_scale_opts {
    int64_t max_gpus;
    pt_dtype dtype;
    int ilp_nodes;        /* branch-and-bound budget for the speed-up table  */
    double ilp_seconds;
    /* Progress (may be NULL): one unit per worker size placed, per device
     * count priced and per speed-up row. */
    pt_progress_fn progress;
    void *progress_arg;
    double cpu_machines;  /* spare CPU machines for a parameter server (0: none) */
} pt_scale_opts;

typedef struct pt_scale_result {
    int n;
    pt_scale_point pt[PT_SCALE_MAXPTS];
    int64_t crossover_gpus;       /* first N where hybrid wins; 0 = never     */
    double best_dp_s, best_hybrid_s;
    int64_t best_dp_gpus, best_hybrid_gpus;
    double gain;                  /* 1 - best hybrid / best data-parallel     */
    double paper_gain;            /* Pal et al.'s projection; 0 = none        */
    int nmp;
    pt_scale_mp mp[PT_SCALE_MAXM];
    /* the gradient exchange of the best data-parallel plan (at
     * best_dp_gpus): all-reduce, parameter servers or BytePS, each priced,
     * the chosen one and why (src/cost/ps.h); machines 0 when none */
    pt_ps_step xchg;
} pt_scale_result;

/* c is the cluster at any size (its node is level 0); se the statistical
 * efficiency for g. */
pt_status pt_scale(const pt_graph *g, const pt_cluster *c, const pt_statef *se, const pt_scale_opts *o,
                   pt_scale_result *r, pt_diag *d);

/* "dp=64 mp=8 k=4" and the batches, for tables and JSON. */
void pt_scale_cfg_string(const pt_scale_cfg *cfg, char *buf, size_t n);

#endif
