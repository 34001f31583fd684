/*
 * trials.h -- K hyper-parameter trials on N devices: as K independent
 * experiments of N / K devices each (experiment parallelism: Ray Tune,
 * Optuna workers), or one after another, each data-parallel over all N,
 * by the time to finish all K (`partita trials`).
 *
 * Seed paper #14: Berral, Aranda, Dominguez and Torres, "Distributing Deep
 * Learning Hyperparameter Tuning for 3D Medical Image Segmentation",
 * IPDPSW (ScaDL) 2022, arXiv 2110.15884: a 3D U-Net on MSD BraTS with
 * TensorFlow and Ray on MareNostrum's CTE-POWER (4 V100 per node);
 * experiment parallelism beats data parallelism by x12 to x14 on 32 GPUs.
 *
 * Each run -- one independent trial on n = N / K devices, or one trial on
 * all N -- is the best by time to train over
 *   - the batch per group, 1 to 256 samples (powers of two), where it fits;
 *   - spatial partitioning of each sample over p devices (p = 1: data
 *     parallelism alone; p up to a node and to what the layers' heights
 *     allow, src/cost/spatial.h), N / p groups;
 *   - the gradient exchange, all-reduce or a parameter server on k CPU
 *     machines (src/cost/ps.h);
 * with time to train = E(B) x samples per epoch / B x step (ttt.h's one
 * formula, E(B) = E_min (1 + B / B_noise), McCandlish et al. 2018): a
 * bigger global batch needs more epochs, which is what K independent runs
 * at N / K devices avoid and one run over N pays K times.
 *   independent: ceil(K / (N / n)) waves of one trial's time;
 *   data parallel: K x one trial over N.
 * Speed-up = data parallel / independent, against the best run over N
 * (spatial partitioning allowed) and against data parallelism alone (what
 * the paper ran).  When K > N each trial gets one device and they run in
 * waves of N.
 * What it does not: model early stopping of bad trials (ASHA,
 * Hyperband: every trial runs to the target), or the paper's
 * TensorFlow/Ray overheads.
 */
#ifndef PT_TRIALS_H
#define PT_TRIALS_H

#include "partita.h"
#include "cost/ps.h"
#include "goal/ttt.h"
#include "workload/graph.h"

typedef struct pt_trials_opts {
    int64_t gpus;          /* N, e.g. 32                                    */
    int64_t trials;        /* K, e.g. 32                                    */
    pt_dtype dtype;
    double cpu_machines;   /* k spare CPU machines for a parameter server  */
    int no_spatial;        /* 1: data parallelism alone (p = 1)            */
} pt_trials_opts;

/* One run's best configuration. */
typedef struct pt_trials_cfg {
    int ok;                /* something fits                                 */
    int64_t devices;       /* devices of the run                             */
    int p;                 /* devices per sample (spatial), 1 = none         */
    int64_t groups;        /* data-parallel groups: devices / p              */
    double group_batch;    /* samples per group per step                     */
    double global_batch;
    double step_s, halo_s, dp_comm_s, epochs, steps, time_s, mem_GiB;
    pt_ps_scheme sync;
} pt_trials_cfg;

typedef struct pt_trials_result {
    int64_t gpus, trials;
    int64_t per_trial;      /* devices of one independent trial            */
    int64_t concurrent;     /* trials that run at once                     */
    int64_t waves;          /* rounds of concurrent trials                 */
    pt_trials_cfg indep;    /* one independent trial                       */
    pt_trials_cfg dp;       /* one trial over all N, the best               */
    pt_trials_cfg dp_plain; /* one trial over all N, data parallelism alone */
    double indep_total_s;
    double dp_total_s, speedup;             /* against dp (spatial allowed)       */
    double dp_plain_total_s, speedup_plain; /* against data parallelism alone,
                                             * the seed paper's comparison        */
    /* speedup_plain at half and twice B_noise, and with no batch penalty
     * at all (B_noise infinite: only the step times differ) */
    double speedup_half_bn, speedup_double_bn, speedup_no_penalty;
    /* the gradient exchange of the run over all N, every scheme priced,
     * the chosen one and why (src/cost/ps.h) */
    pt_ps_step xchg;
} pt_trials_result;

/* The comparison for graph g on cluster c (any size; resized here), with
 * statistical efficiency se.  PT_EINPUT for N or K < 1, N beyond what the
 * cluster can be resized to, or a batch of nothing that fits anywhere
 * (then PT_INFEASIBLE with the run that does not fit). */
pt_status pt_trials(const pt_graph *g, const pt_cluster *c, const pt_statef *se, const pt_trials_opts *o,
                    pt_trials_result *r, pt_diag *d);

/* "p=4 dp=8 batch=8 (1 per group), byteps" for tables and JSON. */
void pt_trials_cfg_string(const pt_trials_cfg *cfg, char *buf, size_t n);

#endif
