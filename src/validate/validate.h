/*
 * validate.h -- predicted against measured for every row of a runs CSV
 * (SPEC section 6).
 *
 * What it does: a harness at the top of the library, above goal: each row of
 * a published-runs CSV becomes a model, a cluster, a job and a strategy that
 * the cost model prices, and the row's metric is derived from that price;
 * each row of a time-to-train CSV becomes a layer graph on a cluster whose
 * step (src/cost/graph_cost.c) and statistical efficiency (src/goal/ttt.c)
 * give time to train by pt_goal_time_to_train; --plans runs the search
 * (src/plan/search.c) on every Megatron row against the published strategy.
 * Which catalog cluster and device a row's GPU name means is data
 * (data/gpus.json, read by src/hw/gpus.c), not code.
 * What it does not: price anything itself (src/cost, src/goal), print
 * (src/cli/cmd_validate.c) or fit constants (tools/fit.c calls it).
 */
#ifndef PT_VALIDATE_H
#define PT_VALIDATE_H

#include "partita.h"

typedef struct pt_vrow {
    int line;             /* CSV line of the row                         */
    char source[80];      /* first words of the row's source             */
    char model[48];
    char metric[48];      /* measured_metric                             */
    char strategy[200];   /* the strategy as priced                      */
    double measured, predicted;
    double error;         /* predicted/measured - 1                      */
    int is_time;          /* a step-time or throughput metric            */
    int is_memory;        /* a memory metric                             */
    int fits;             /* the priced strategy fits in device memory   */
    char assumed[120];    /* what the row did not say and was assumed    */
    char skipped[160];    /* why the row was not predicted ("" if it was) */
    int engine_run;       /* 1 when model..st below describe the run       */
    pt_model model_v;     /* the run as priced                             */
    pt_cluster cluster_v;
    pt_job job_v;
    pt_strategy st_v;
} pt_vrow;

typedef struct pt_vresult {
    pt_vrow *rows;
    int n;
    int predicted, skipped;
    double mean_abs_error, worst_abs_error;
    double time_mean_abs_error, time_worst_abs_error;
    int time_rows, memory_rows, time_rows_not_fitting;
    double memory_mean_abs_error, memory_worst_abs_error;
} pt_vresult;

/* Efficiency constants to use instead of the catalog's (for fitting them);
 * a gemm_eff or level efficiency of 0 keeps the catalog's. */
typedef struct pt_vcalib {
    double gemm_eff, gemm_half_GFLOP, attn_eff, mem_eff, kernel_us;
    double level_eff[PT_MAX_LEVELS]; /* per cluster level, innermost first; 0: the catalog's */
} pt_vcalib;

/* Validates a published-runs CSV given as text; file names it in errors.
 * calib may be NULL (use the catalog).  The caller frees out with pt_validate_free. */
pt_status pt_validate_csv(const char *text, const char *file, const pt_vcalib *calib,
                          pt_vresult *out, pt_diag *d);
/* Recomputes the summary over the rows for which keep(row) is true. */
void pt_validate_summary(pt_vresult *r, int (*keep)(const pt_vrow *row, void *arg), void *arg);
void pt_validate_free(pt_vresult *r);

/* For a row that is a Megatron-LM run with a step time: the best plan the
 * search finds for the same model, cluster and job against the published
 * strategy. */
typedef struct pt_vplan {
    int line;
    char model[48];
    char published[200], best[200];
    double published_s, best_s;   /* predicted step times */
    int rank;                     /* published strategy's place in the top K, 0 if absent */
    int published_searched;       /* and the engine's release runs it (pt_engine_admits):
                                     the published strategy is in the space searched */
    int published_fits;           /* the model says the published strategy fits: only
                                     then must the search do at least as well */
} pt_vplan;

/* Searches every qualifying row of r (top_k plans, threads); *out is malloc'd. */
pt_status pt_validate_plans(const pt_vresult *r, int top_k, int threads, pt_vplan **out, int *n,
                            pt_diag *d);

#endif
