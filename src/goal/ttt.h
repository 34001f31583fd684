/*
 * ttt.h -- time to train: how many steps a global batch needs to reach the
 * target (statistical efficiency), and what a timed run adds to them (MLPerf's
 * evaluations).
 *
 * Statistical efficiency follows McCandlish et al. 2018 ("An Empirical Model
 * of Large-Batch Training"): the examples needed grow with the global batch B
 * as E(B) = E_min (1 + B / B_noise), so epochs are E_min (1 + B/B_noise) and
 * steps S(B) = E(B) N / B = S_min (1 + B_noise / B) with S_min = E_min N /
 * B_noise.  Both constants are fitted by least squares on measured (B, epochs)
 * pairs -- E is linear in B -- with their standard errors.
 * Not here: searching strategies (src/plan), pricing a step (src/cost:
 * cost.c for transformers, graph_cost.c for layer graphs), sweeping device
 * counts (plan/scale.h) or reading runs CSVs (plan/validate.h).
 */
#ifndef PT_TTT_H
#define PT_TTT_H

#include "partita.h"
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

/* The statistical-efficiency constants built in for a graph (0 when none):
 * its most recent recipe (e.g. resnet-50: LARS to 75.9% top-1). */
int pt_statef_builtin(const char *graph, pt_statef *out);
/* The same for one recipe: the epochs a batch needs depend on the quality
 * target (MLPerf v0.6 raised ResNet-50's to 75.9% and GNMT's to BLEU 24.0),
 * the optimizer (LARS keeps large batches efficient where momentum SGD does
 * not, You et al. 2017) and the rest of the hyper-parameters, which for
 * MLPerf rows are the round's (e.g. Transformer v0.5: warm-up 3000, Adam
 * beta2 0.997; v0.6: warm-up 1000, beta2 0.98).  target: a substring of the
 * row's target, e.g. "75.9"; optimizer: "lars", "sgd", "adam"; round:
 * "v0.5", "v0.6"; NULL or "" for any.  Falls back to pt_statef_builtin when
 * no recipe matches. */
int pt_statef_builtin_for(const char *graph, const char *target, const char *optimizer, const char *round,
                          pt_statef *out);

/* Evaluation inside the timed run (MLPerf's clock runs from run_start to
 * run_stop and includes every evaluation): the eval set goes forward
 * (`passes` times per sample: 1 to classify, the beam width to translate by
 * beam search), split over all devices, every `every_epochs` epochs, plus a
 * fixed cost per evaluation (gathering, scoring, BLEU on the host). */
typedef struct pt_ttt_eval {
    double samples;       /* eval set, e.g. 50000 ImageNet validation images */
    double every_epochs;  /* e.g. 4 for ResNet-50, 1 for GNMT               */
    double passes;        /* forward passes per sample, e.g. 4 (beam 4)    */
    double fixed_s;       /* per evaluation, e.g. 0.2                       */
} pt_ttt_eval;

/* The MLPerf evaluation of a built-in graph (0 when none). */
int pt_ttt_eval_builtin(const char *graph, pt_ttt_eval *out);
/* Seconds one evaluation takes on all of c's devices. */
double pt_ttt_eval_s(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, const pt_ttt_eval *e);
/* Evaluations in a run of `epochs` epochs: one every every_epochs, the last
 * at the end (ceil(epochs / every_epochs)). */
int pt_ttt_evals(const pt_ttt_eval *e, double epochs);

#endif
