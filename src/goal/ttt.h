/*
 * ttt.h -- time to train: how many steps a global batch needs to reach the
 * target (statistical efficiency), what a timed run adds to them (MLPerf's
 * evaluations), and the one formula that turns steps and a step time into
 * time to train.
 *
 * Statistical efficiency follows McCandlish et al. 2018 ("An Empirical Model
 * of Large-Batch Training"): the examples needed grow with the global batch B
 * as E(B) = E_min (1 + B / B_noise), so epochs are E_min (1 + B/B_noise) and
 * steps S(B) = E(B) N / B = S_min (1 + B_noise / B) with S_min = E_min N /
 * B_noise.  Both constants are fitted by least squares on measured (B, epochs)
 * pairs -- E is linear in B -- with their standard errors.
 * Not here: searching strategies (src/plan), pricing a step (src/cost:
 * cost.c for transformers, graph_cost.c for layer graphs), sweeping device
 * counts (goal/scale.h) or reading runs CSVs (src/validate).
 */
#ifndef PT_TTT_H
#define PT_TTT_H

#include "partita.h"
#include "plan/search.h"
#include "workload/graph.h"

typedef struct pt_statef {
    double e_min;      /* epochs at a small batch, e.g. 60             */
    double b_noise;    /* critical batch (samples), e.g. 60000         */
    double e_min_se, b_noise_se;   /* standard errors of the fit      */
    int n;             /* points fitted                                */
} pt_statef;

/* Fits E(B) = e_min (1 + B / b_noise) to n >= 2 points by least squares. */
pt_status pt_statef_fit(const double *batch, const double *epochs, int n, pt_statef *out, pt_diag *d);
double pt_statef_epochs(const pt_statef *s, double global_batch);

/* ---- the fit's inputs, for a caller's own least squares -----------------
 * `partita calibrate` (src/validate/calib.c) fits E_min and B_noise to a
 * user's epochs-to-target runs of one recipe (the time-to-train CSV's
 * global_batch and epochs_to_target columns) with its nonlinear least
 * squares; these are the model it fits, the same E(B) as pt_statef_epochs.
 *
 * pt_statef_predict: for n global batches batch[i] (samples per step,
 * e.g. 3264 images), writes the predicted epochs to target
 *     epochs[i] = e_min (1 + batch[i] / b_noise)
 * e.g. e_min 35.32, b_noise 48932: B = 3264 -> 37.68, B = 65536 -> 82.63.
 * Needs e_min > 0, b_noise > 0; n >= 0; epochs has room for n.
 *
 * pt_statef_residuals: the same, as residuals on log epochs,
 *     resid[i] = ln(predicted_i / epochs[i])
 * (measured epochs[i] > 0): the vector a least-squares solver drives to
 * zero.  On a log scale a 10% miss weighs the same at 2 epochs as at 80,
 * so recipes of few epochs (GNMT) and many (ResNet-50) fit alike.  Its
 * Jacobian, for a solver that wants one:
 *     d resid / d e_min   = 1 / e_min
 *     d resid / d b_noise = -(B / b_noise^2) / (1 + B / b_noise). */
void pt_statef_predict(const double *batch, int n, double e_min, double b_noise, double *epochs);
void pt_statef_residuals(const double *batch, const double *epochs, int n, double e_min, double b_noise,
                         double *resid);

/* The statistical-efficiency constants built in for a graph (0 when none):
 * its most recent recipe (e.g. resnet-50: LARS to 75.9% top-1). */
int pt_statef_builtin(const char *graph, pt_statef *out);
/* The same for one recipe: the epochs a batch needs depend on the quality
 * target (MLPerf v0.6 raised ResNet-50's to 75.9% and GNMT's to BLEU 24.0),
 * the optimizer (LARS keeps large batches efficient where momentum SGD does
 * not, You et al. 2017) and the rest of the hyper-parameters, which for
 * MLPerf rows are the round's (e.g. Transformer v0.5: warm-up 3000, Adam
 * beta2 0.997; v0.6: warm-up 1000, beta2 0.98; ResNet-50 v0.7 and v1.0+:
 * polynomial decay and label smoothing, 35 epochs at B = 3264 where v0.6
 * needed 60).  target: a substring of the row's target, e.g. "75.9";
 * optimizer: "lars", "sgd", "adam"; round: "v0.5", "v0.6", "v0.7", "v1.0",
 * ...; NULL or "" for any.  A recipe of no round serves every round not
 * listed before it (ResNet-50's v1.0+ entry serves v4.0).  When no recipe
 * matches all three, the first matching target and round whatever the
 * optimizer; then the graph's first (pt_statef_builtin). */
int pt_statef_builtin_for(const char *graph, const char *target, const char *optimizer, const char *round,
                          pt_statef *out);
/* The name of the recipe pt_statef_builtin_for picks for the same
 * arguments, with where its constants come from, e.g. "ResNet-50 LARS to
 * 75.9%, MLPerf v1.0+ (reference convergence points)"; NULL when the
 * graph has none.  Static storage. */
const char *pt_statef_recipe(const char *graph, const char *target, const char *optimizer, const char *round);

/* Evaluation inside the timed run (MLPerf's clock runs from run_start to
 * run_stop and includes every evaluation): the eval set goes forward
 * (`passes` times per sample: 1 to classify, the beam width to translate by
 * beam search), split over all devices, at the listed epochs and then every
 * `every_epochs` epochs, plus host work per sample on each device (SSD's
 * per-image box decoding and NMS) and a fixed cost per evaluation
 * (gathering, scoring, BLEU or COCO's mAP on the host). */
#define PT_TTT_EVAL_AT_MAX 4
typedef struct pt_ttt_eval {
    double samples;       /* eval set, e.g. 50000 ImageNet validation images */
    double every_epochs;  /* e.g. 4 for ResNet-50, 1 for GNMT               */
    double passes;        /* forward passes per sample, e.g. 4 (beam 4)    */
    double fixed_s;       /* per evaluation, e.g. 0.2                       */
    double host_s;        /* host seconds per sample on a device, e.g. 0.0082 */
    int async;            /* 1: each evaluation runs beside the next epoch's
                             training (NVIDIA's --async-val), so only the
                             last, which ends the run, is on the clock      */
    int nat;              /* evaluations at fixed epochs before the period:  */
    double at[PT_TTT_EVAL_AT_MAX]; /* e.g. 32.75, 43.66 (SSD), the period
                             then counted from the last; nat 0: every_epochs,
                             2 every_epochs, ...                            */
} pt_ttt_eval;

/* The MLPerf evaluation of a built-in graph (0 when none), as the v0.5-v0.6
 * submissions run it; _for: as the round named ("v0.7", "v1.0", ...; NULL
 * or "": the same) does. */
int pt_ttt_eval_builtin(const char *graph, pt_ttt_eval *out);
int pt_ttt_eval_builtin_for(const char *graph, const char *round, pt_ttt_eval *out);
/* Seconds one evaluation takes on all of c's devices. */
double pt_ttt_eval_s(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, const pt_ttt_eval *e);
/* Evaluations in a run of `epochs` epochs: those scheduled before it ends,
 * and the one that ends it (ceil(epochs / every_epochs) when nat is 0). */
int pt_ttt_evals(const pt_ttt_eval *e, double epochs);
/* Of those, the ones on the clock: all, or the last where e->async. */
int pt_ttt_evals_on_clock(const pt_ttt_eval *e, double epochs);

/* ---- time to train: the one formula ------------------------------------
 * A run at global batch B (samples per step) needs E(B) epochs of N samples
 * (pt_statef_epochs), so steps = E(B) N / B, and takes
 *     time = steps x step_s  [+ fixed_s + E(B) x per_epoch_s + evals x eval_s]
 * the bracket being what a timed run adds (MLPerf's clock, pt_goal_overheads).
 * `partita scale` (goal/scale.c), `plan --objective time-to-train`
 * (pt_goal_lm_*, below) and `validate`'s time-to-train rows
 * (src/validate/validate.c) all price time to train here. */
typedef struct pt_goal_overheads {
    double fixed_s;            /* once per run, e.g. 10 (v0.5 timed init)    */
    double per_epoch_s;        /* host work per epoch, e.g. 2 (fairseq)      */
    const pt_ttt_eval *eval;   /* evaluations in the run (NULL: none)        */
    double eval_s;             /* one evaluation, e.g. pt_ttt_eval_s's 0.4   */
} pt_goal_overheads;

typedef struct pt_goal_ttt {
    double epochs;   /* E(B), e.g. 61.2                              */
    double samples;  /* E(B) N: samples (tokens) to the target       */
    double steps;    /* E(B) N / B                                    */
    double time_s;   /* steps x step_s, plus the overheads           */
} pt_goal_ttt;

/* Time to train at samples_per_step = B with steps of step_s seconds; ov
 * may be NULL (nothing but the steps). */
void pt_goal_time_to_train(double step_s, double samples_per_step, const pt_statef *se, double samples_per_epoch,
                           const pt_goal_overheads *ov, pt_goal_ttt *out);

/* The time-to-train objective of `plan` for a language model: a target
 * that takes min_tokens at a small batch and, at B tokens per step,
 * min_tokens (1 + B / bcrit_tokens) (McCandlish et al. 2018; Kaplan et al.
 * 2020 for B_crit of language models).  In pt_goal_time_to_train's terms an
 * "epoch" is min_tokens tokens, E_min = 1 and B_noise = bcrit_tokens. */
typedef struct pt_goal_lm {
    double min_tokens;    /* e.g. 1e12 */
    double bcrit_tokens;  /* e.g. 2e6  */
} pt_goal_lm;

/* Time to train of plan p (steps of gbs x seq_len tokens); out->samples is
 * the tokens to the target. */
void pt_goal_lm_time_to_train(const pt_goal_lm *lm, const pt_plan *p, const pt_job *job, pt_goal_ttt *out);
/* The search's score for this objective (pt_search_opts.score; arg is a
 * const pt_goal_lm *): min_tokens / time to train, the rate in tokens/s at
 * which a plan makes progress towards the target, higher first. */
double pt_goal_lm_score(const pt_plan *p, const pt_job *job, const void *arg);

#endif
