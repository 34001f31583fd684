/*
 * calib.h -- calibration: the constants of a cluster learnt from a few of the
 * user's own measurements (SPEC section 7, `partita calibrate`), and the one
 * least-squares fitter that tools/fit.c uses as well.
 *
 * What it does:
 *  - pt_calib_lsq: fits positive parameters in log space (u = ln x) by
 *    nonlinear least squares on n residuals, with GSL's trust-region solver
 *    (gsl_multifit_nlinear, Levenberg-Marquardt steps; GSL manual section
 *    "Nonlinear Least-Squares Fitting").  The residuals a caller gives are
 *    ln(predicted / measured), so the fit minimises the sum of squared log
 *    errors and every parameter's scale drops out.
 *  - Honest degrees of freedom: n rows fit at most n parameters.  Which ones:
 *    the Jacobian of the residuals at the defaults (d r_i / d ln x_j, central
 *    differences) is reduced by Gram-Schmidt with column pivoting -- the
 *    parameter whose column is longest is fitted first, every other column
 *    loses its projection on it, and so on (the column order of a pivoted QR,
 *    Golub & Van Loan, Matrix Computations, 4th ed., section 5.4.1).  A
 *    parameter stops being chosen when its remaining column is shorter than
 *    PT_CALIB_MIN_SENS (rms over the rows: the rows barely move it, or move
 *    it only as the ones already chosen do); the chosen stop at n.  Every
 *    parameter not fitted is held at its default, and says why.
 *  - A prior (prior_sd, where the caller gives one): the fit is the most
 *    probable values given the rows and a Gaussian belief about ln x around
 *    the defaults (PT_CALIB_ROW_SD below); it does not change which
 *    parameters are fitted, only how far the rows may pull them.
 *  - A fitted value outside [lo, hi] (a fraction above 1) is held at that
 *    bound and the rest refitted.
 *  - Uncertainty: cov(u) = (J^T J)^-1 s^2 at the solution, s^2 = chi^2 / (n
 *    - p_fit) the residual variance (the usual estimate, e.g. Bates & Watts,
 *    Nonlinear Regression Analysis, section 2.3); the standard error of x is
 *    x * se(u) (first-order).  With n = p_fit there is no residual left to
 *    estimate s from: the standard error is then unknown (NaN), and
 *    se_unit = x sqrt(cov_jj) says how far x moves per unit of row noise.
 *  - pt_calib_runs_fit: the device efficiencies (gemm_eff, attn_eff, mem_eff,
 *    kernel_us: src/cost/roofline.h) and the efficiency of every level of a
 *    cluster, fitted to the step-time rows of a runs CSV that validate
 *    prices on the cluster's device (src/validate/validate.c reads each row
 *    into a model, a job and a strategy; here each is priced again on the
 *    cluster being fitted).  A throughput row (tflops_per_gpu, mfu,
 *    tokens_per_s_per_gpu) is a step time: the metric is inversely
 *    proportional to it, so measured step = predicted step x predicted
 *    metric / measured metric, from validate's own pricing.
 *  - nccl-tests: pt_calib_nccl_parse reads the table all_reduce_perf,
 *    all_gather_perf and reduce_scatter_perf print (NVIDIA/nccl-tests,
 *    doc/PERFORMANCE.md: size is the whole buffer in bytes, busbw = algbw x
 *    2(n-1)/n for all-reduce and (n-1)/n for the other two), and
 *    pt_calib_nccl_level fits the efficiency of the outermost level the test
 *    spans so that pt_coll_time (src/hw/coll.c) reproduces the measured
 *    times of the large messages (the largest size and those within
 *    PT_CALIB_NCCL_LARGE of it, where the bus is saturated).
 *  - pt_calib_statef_fit: E_min and B_noise of E(B) = E_min (1 + B/B_noise)
 *    (McCandlish et al. 2018; src/goal/ttt.h) fitted to a time-to-train
 *    CSV's epochs to target, with the same fitter.
 * What it does not: print (src/cli/cmd_calibrate.c), read files, or price
 * anything itself (src/cost, src/hw/coll.c).
 */
#ifndef PT_CALIB_H
#define PT_CALIB_H

#include <jansson.h>

#include "partita.h"
#include "goal/ttt.h"
#include "validate/validate.h"

/* Most parameters one fit takes: 4 device constants + PT_MAX_LEVELS levels
 * and room to spare (tools/fit.c fits 7). */
#define PT_CALIB_MAXP 12
/* A parameter whose (remaining) Jacobian column has an rms below this over
 * the rows is not fitted: multiplying it by e moves the rows' log step time
 * by under 1.5% rms, which a few rows cannot tell from noise. */
#define PT_CALIB_MIN_SENS 0.015
/* The prior (pt_calib_param.prior_sd).  A few rows pin a fit to their own
 * noise: three rows fit three constants exactly, and a group's extreme rows
 * (the fastest and slowest runs) are often its outliers, so a plain fit moved
 * the other rows of MosaicML's A100 group from 4.6% to 18.1% mean error.  A
 * fitted parameter therefore also carries a residual (ln x - ln x0) x
 * PT_CALIB_ROW_SD / prior_sd: the maximum a posteriori fit with Gaussian
 * priors on ln x about the defaults and rows of noise PT_CALIB_ROW_SD in ln
 * step time (Gelman et al., Bayesian Data Analysis, 3rd ed., section 14.8:
 * a prior as extra data points).  A parameter moves as far as the rows'
 * evidence outweighs its prior, and the covariance includes the prior.
 * PT_CALIB_ROW_SD: the rms ln error of held-out rows on a generation the
 * constants were fitted to (the 49 held-out A100 step-time rows of
 * published_runs.csv: 4.9% mean, rms of ln(predicted/measured) 0.071).
 * PT_CALIB_EFF_PRIOR_SD: the spread of the fitted efficiencies between the
 * generations in data/devices.json (sample sd of ln over A100, H100, the
 * 96 GB H100 and Blackwell: gemm_eff 0.095 -- over five distinct values,
 * GB200's 0.74 apart --, mem_eff 0.12, attn_eff 0.24; V100's gemm_eff 0.48
 * widens gemm's to 0.17), taken as one 0.25: a user's stack is taken to sit
 * no farther from its generation's constants than generations sit apart. */
#define PT_CALIB_ROW_SD 0.07
#define PT_CALIB_EFF_PRIOR_SD 0.25
/* The same for a level's efficiency: the sd of ln over the distinct fitted
 * datacenter link efficiencies in data/clusters.json (0.31 to 0.97: IB,
 * NVLink, NVSwitch, RoCE) is 0.35: fabrics differ more than kernels. */
#define PT_CALIB_LINK_PRIOR_SD 0.35
/* Most folds pt_calib_lsq_cv makes: up to this many rows, one per row
 * (leave-one-out); beyond, the rows dealt round into this many. */
#define PT_CALIB_CV_FOLDS 10
/* Messages within this factor of the largest count as "large" (nccl-tests
 * doubles the size each line: the last four lines by default). */
#define PT_CALIB_NCCL_LARGE 8.0
/* Most table lines one nccl-tests file may hold (8 B .. 16 GiB doubling is 32). */
#define PT_CALIB_NCCL_MAXROWS 256

typedef enum pt_calib_state {
    PT_CALIB_FITTED = 0,
    PT_CALIB_HELD_WEAK,   /* the rows barely move it (or only as fitted ones do) */
    PT_CALIB_HELD_DOF,    /* the rows move it, but there are no more rows than
                             parameters already fitted                        */
    PT_CALIB_HELD_BOUND,  /* the fit went past its bound: held at the bound    */
    PT_CALIB_HELD_GIVEN,  /* not a candidate (e.g. measured by nccl-tests)     */
    PT_CALIB_HELD_CV      /* fitting it predicted the rows left out worse
                             (pt_calib_lsq_cv)                                */
} pt_calib_state;

/* One parameter: in, its default and range; out, its value and uncertainty. */
typedef struct pt_calib_param {
    char name[32];       /* "gemm_eff"                                         */
    double value;        /* in: the default, > 0; out: fitted or held value    */
    double lo, hi;       /* bounds of the value, 0 < lo <= value <= hi         */
    int candidate;       /* 1: may be fitted; 0: held (state HELD_GIVEN)       */
    pt_calib_state state;
    double se;           /* standard error of value; NaN when held or dof = 0  */
    double se_unit;      /* its standard error per unit of row noise (in log
                            residual), the same where dof = 0; NaN when held  */
    double sensitivity;  /* rms of d r_i / d ln x at the default, e.g. 0.6     */
    double def;          /* out: the default it started from                   */
    double prior_sd;     /* in: the spread of ln(value) about the default the
                            fit believes before any row (0: none, a plain
                            least-squares fit): see PT_CALIB_ROW_SD          */
} pt_calib_param;

/* The residuals r[0..n) = ln(predicted/measured) at parameter values x[0..p);
 * returns PT_OK or an error in d. */
typedef pt_status (*pt_calib_fn)(const double *x, double *r, void *arg, pt_diag *d);

typedef struct pt_calib_fit {
    int n, p;                         /* residuals, parameters                */
    pt_calib_param param[PT_CALIB_MAXP];
    int nfit, dof;                    /* parameters fitted, n - nfit          */
    double sigma;                     /* sqrt(chi^2/dof), NaN when dof = 0    */
    double rms_before, rms_after;     /* rms of the log residuals             */
    double *before, *after;           /* n log residuals each (malloc'd)      */
    int iterations;                   /* trust-region iterations, all refits  */
    /* pt_calib_lsq_cv's choice (folds 0: none made): the rms log error of
     * the rows each fold left out, fitting k = 0 .. cv_kmax parameters */
    int cv_folds, cv_kmax, cv_k;
    double cv_rms[PT_CALIB_MAXP + 1];
} pt_calib_fit;

/* Fits param[0..p) (p <= PT_CALIB_MAXP) to the n residuals of f as above;
 * max_fit (0 = no limit beyond n, < 0 = none) caps how many are fitted, max_iter (0 =
 * 200) the trust-region iterations of each fit.  out owns two
 * arrays: pt_calib_fit_free.  Errors: f's, PT_EINPUT when a default is not
 * > 0 and inside its bounds, PT_ENOMEM. */
pt_status pt_calib_lsq(pt_calib_fn f, void *arg, int n, int p, const pt_calib_param *param, int max_fit,
                       int max_iter, pt_calib_fit *out, pt_diag *d);
/* The same with the number of parameters fitted chosen by cross-validation:
 * for k = 0 (the defaults) up to what the rows of a fold allow, each of
 * cv_folds folds (every row, or PT_CALIB_CV_FOLDS interleaved groups of
 * rows) is left out in turn, the rest fitted with at most k parameters and
 * the rows left out predicted; the k whose left-out rows came out with the
 * least squared log error (ties: the fewer) is fitted to all the rows, and
 * the parameters it leaves out that the rows move are PT_CALIB_HELD_CV
 * (Stone 1974, "Cross-validatory choice and assessment of statistical
 * predictions", JRSS B 36:111: the model judged by the rows it did not
 * see, not by how well it fits the ones it did).  Fewer than two rows: as
 * pt_calib_lsq. */
pt_status pt_calib_lsq_cv(pt_calib_fn f, void *arg, int n, int p, const pt_calib_param *param, int max_iter,
                          pt_calib_fit *out, pt_diag *d);
void pt_calib_fit_free(pt_calib_fit *f);
/* "fitted", "held: the rows barely move it", ... */
const char *pt_calib_state_text(pt_calib_state s);
/* "fitted", "held_weak", "held_dof", "held_bound", "held_given", "held_cv" (JSON). */
const char *pt_calib_state_key(pt_calib_state s);

/* ---- nccl-tests ------------------------------------------------------------ */

typedef struct pt_calib_nccl_row {
    int64_t bytes;               /* the size column                            */
    double time_us[2];           /* out-of-place, in-place                      */
    double busbw_GBps[2];
} pt_calib_nccl_row;

typedef struct pt_calib_nccl {
    char collective[32];         /* "all_reduce_perf"                          */
    pt_coll_op op;
    int64_t ranks;               /* GPUs in the test, e.g. 16                  */
    int hosts;                   /* distinct hosts among the "# Rank" lines, 0 if none */
    int nrows;
    pt_calib_nccl_row row[PT_CALIB_NCCL_MAXROWS];
} pt_calib_nccl;

/* Reads nccl-tests output (text, from file for messages).  The collective is
 * the "# Collective test starting:" line's, else named by the file name
 * (all_reduce, all_gather, reduce_scatter), else all_reduce when redop is
 * "sum" and all_gather when it is "none" (their busbw factors differ, but
 * the fit uses times).  Errors name file, line, column and value. */
pt_status pt_calib_nccl_parse(const char *text, const char *file, pt_calib_nccl *out, pt_diag *d);

/* The level fitted from one nccl-tests table. */
typedef struct pt_calib_level {
    int level;                   /* index into the cluster's levels            */
    double efficiency, se;       /* fitted efficiency, standard error (NaN: one point) */
    double busbw_GBps;           /* mean large-message busbw                    */
    int points;                  /* (size, placement) points fitted              */
    int raised_bw;               /* the level's bw_GBps was below the busbw: set to it */
    double bw_GBps;              /* the level's bw_GBps after the fit          */
} pt_calib_level;

/* Fits the efficiency of the outermost level of c that t's ranks span (c
 * resized to t->ranks as validate does), holding the other levels; applies
 * it to c's level.  Errors: a test of one rank, more ranks than c has. */
pt_status pt_calib_nccl_level(pt_cluster *c, const pt_calib_nccl *t, const char *file, pt_calib_level *out,
                              pt_diag *d);

/* ---- runs -------------------------------------------------------------------- */

typedef struct pt_calib_row {
    int line;                    /* CSV line                                   */
    char model[48], metric[48];
    int64_t gpus;
    double measured_s;           /* the measured step (layer time for layer_fwd_bwd_ms) */
    double before_s, after_s;    /* predicted with the defaults and after the fit */
} pt_calib_row;

typedef struct pt_calib_runs {
    pt_cluster cluster;          /* the cluster with the fitted constants     */
    pt_calib_fit fit;
    pt_calib_row *rows;          /* the rows fitted (malloc'd)                 */
    int nrows;
    int other_device;            /* priced rows on another device, not used    */
    int unused;                  /* rows not priced or not a step time          */
} pt_calib_runs;

/* The measured and predicted step of a validate row w priced on cluster c
 * (resized to the row's devices as validate does); 0, or -1 when w is not a
 * priced step-time row or c cannot hold its devices. */
int pt_calib_row_step(const pt_vrow *w, const pt_cluster *c, double *measured_s, double *predicted_s);

/* Fits c's device and level efficiencies to the rows of vr for which use is
 * NULL or use[i] is 1, and which are priced step times on c's device (the same
 * device name).  held_level[j] (may be NULL) marks levels measured elsewhere
 * (nccl-tests): held at c's value.  prior 1: the efficiencies carry the
 * priors PT_CALIB_EFF_PRIOR_SD and PT_CALIB_LINK_PRIOR_SD (calibrate
 * --prior); 0: a plain least-squares fit.  out owns its arrays: pt_calib_runs_free.
 * Errors: no usable row (PT_EINPUT, naming the devices the rows were on). */
pt_status pt_calib_runs_fit(const pt_vresult *vr, const int *use, const pt_cluster *c, const int *held_level,
                            int prior, const char *file, pt_calib_runs *out, pt_diag *d);
void pt_calib_runs_free(pt_calib_runs *r);

/* The cluster file (SPEC section 2) of c, its device inline; `source` says
 * where its numbers came from.  A new reference. */
json_t *pt_calib_cluster_json(const pt_cluster *c, const char *source);

/* The report of a runs fit as `calibrate --json` prints it: device,
 * cluster, parameters (default, value, se -- null where unknown --, state),
 * degrees of freedom, rows before and after, and the nccl-tests levels
 * (levels[i] fitted from nccl_files[i]).  A new reference. */
json_t *pt_calib_runs_json(const pt_calib_runs *r, const pt_calib_level *levels, const char *const *nccl_files,
                           int nlevels);
/* The parameter array of a fit (as in pt_calib_runs_json). */
json_t *pt_calib_params_json(const pt_calib_fit *f);

/* ---- statistical efficiency ------------------------------------------------- */

typedef struct pt_calib_statef {
    pt_calib_fit fit;            /* param[0] e_min, param[1] b_noise           */
    pt_statef se;                /* the fitted constants and standard errors  */
    char workload[48], target[48];
    int n;
    int lines[256];              /* CSV line of each point                     */
    double batch[256], epochs[256];
} pt_calib_statef;

/* Fits E_min and B_noise to the rows of a time-to-train CSV (SPEC section 6)
 * whose workload begins with `workload` (NULL: the CSV must hold one
 * workload and target) and that give global_batch and epochs_to_target.
 * Errors name file, line, field and value. */
pt_status pt_calib_statef_fit(const char *text, const char *file, const char *workload, pt_calib_statef *out,
                              pt_diag *d);
void pt_calib_statef_free(pt_calib_statef *s);
/* The file `scale --stat-eff` reads (src/goal/statef_csv.c: batch,epochs):
 * the fitted curve at each batch measured, so that file's own fit gives
 * back these E_min and B_noise.  malloc'd text, NULL when out of memory. */
char *pt_calib_statef_csv(const pt_calib_statef *s);
/* `calibrate --json` for a time-to-train CSV.  A new reference. */
json_t *pt_calib_statef_json(const pt_calib_statef *s);

#endif
