/*
 * ttt.h -- time to train: how many steps a global batch needs to reach the
 * target (statistical efficiency) and how long a step of a layer graph takes
 * on a cluster.
 *
 * Statistical efficiency follows McCandlish et al. 2018 ("An Empirical Model
 * of Large-Batch Training"): the examples needed grow with the global batch B
 * as E(B) = E_min (1 + B / B_noise), so epochs are E_min (1 + B/B_noise) and
 * steps S(B) = E(B) N / B = S_min (1 + B_noise / B) with S_min = E_min N /
 * B_noise.  Both constants are fitted by least squares on measured (B, epochs)
 * pairs -- E is linear in B -- with their standard errors.
 * Not here: searching strategies (src/plan).
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

/* The statistical-efficiency constants built in for a graph (0 when none). */
int pt_statef_builtin(const char *graph, pt_statef *out);

typedef struct pt_graph_cost {
    double step_time_s;
    double compute_s;     /* forward and backward, one device          */
    double dp_comm_s;     /* exposed gradient all-reduce              */
    double optimizer_s;
    double samples_per_s;
    int64_t memory_bytes; /* weights, gradients, optimizer, activations */
} pt_graph_cost;

/* Forward time of one layer for `samples` samples on one device (backward
 * is twice this): its GEMMs on the roofline, element-wise bytes at the
 * memory efficiency, and never less than its kernel launches. */
double pt_glayer_fwd_s(const pt_glayer *l, const pt_device *dev, pt_dtype dtype, double samples);

/* One data-parallel step of g: every one of c's devices runs `per_device`
 * samples, gradients all-reduced over all of them. */
void pt_graph_step(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, int64_t per_device,
                   pt_graph_cost *out);

#endif
