/*
 * calib.c -- least squares in log space on GSL's trust-region solver, and the
 * three calibrations built on it: device and level efficiencies from runs,
 * a level's efficiency from nccl-tests, statistical efficiency from
 * time-to-train runs (see calib.h for the model and its sources).
 */
#include "validate/calib.h"
#include "base/base.h"
#include "base/csv.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Trust-region iterations per fit, and its convergence tolerances (GSL's
 * manual suggests xtol 1e-8, gtol and ftol ~ 1e-8 for well-scaled problems). */
#define LSQ_MAXITER 200
#define LSQ_XTOL 1e-8
#define LSQ_GTOL 1e-8
#define LSQ_FTOL 1e-10
/* Central-difference step in ln x for the selection Jacobian. */
#define SEL_H 1e-3
static int lsq_f(const gsl_vector *u, void *arg, gsl_vector *r);

const char *pt_calib_state_text(pt_calib_state s)
{
    switch (s) {
    case PT_CALIB_FITTED: return "fitted";
    case PT_CALIB_HELD_WEAK: return "held: the rows barely move it, or only as fitted ones do";
    case PT_CALIB_HELD_DOF: return "held: no more rows than parameters fitted";
    case PT_CALIB_HELD_BOUND: return "held at its bound: the fit went past it";
    case PT_CALIB_HELD_GIVEN: return "held: given (not fitted to the rows)";
    case PT_CALIB_HELD_CV: return "held: fitting it predicted the rows left out worse";
    }
    return "?";
}

const char *pt_calib_state_key(pt_calib_state s)
{
    static const char *const k[] = {"fitted", "held_weak", "held_dof", "held_bound", "held_given", "held_cv"};
    return (unsigned)s < 6 ? k[s] : "?";
}

void pt_calib_fit_free(pt_calib_fit *f)
{
    free(f->before);
    free(f->after);
    f->before = f->after = NULL;
}

/* ---- the fitter ---------------------------------------------------------------- */

typedef struct lsq_ctx {
    pt_calib_fn f;
    void *arg;
    int n, p;
    int idx[PT_CALIB_MAXP];   /* parameter of each fitted coordinate       */
    int k;                    /* fitted coordinates                         */
    double x[PT_CALIB_MAXP];  /* every parameter's value (held ones fixed) */
    double u0[PT_CALIB_MAXP]; /* ln of each parameter's default              */
    double w[PT_CALIB_MAXP];  /* its prior residual's weight (0: no prior)  */
    int np;                   /* prior residuals after the n rows' (those of
                                 the fitted coordinates with w > 0)          */
    pt_status st;             /* the callback's last failure               */
    size_t max_iter;          /* trust-region iterations per fit          */
    pt_diag *d;
} lsq_ctx;

static int lsq_f(const gsl_vector *u, void *arg, gsl_vector *r)
{
    lsq_ctx *c = arg;
    double x[PT_CALIB_MAXP];
    memcpy(x, c->x, sizeof x);
    for (int j = 0; j < c->k; j++) x[c->idx[j]] = exp(gsl_vector_get(u, (size_t)j));
    if ((c->st = c->f(x, r->data, c->arg, c->d)) != PT_OK) return GSL_EBADFUNC;
    for (int i = 0; i < c->n; i++)
        if (!isfinite(r->data[i])) return GSL_EDOM;
    /* the prior's residuals, one per fitted coordinate that has one */
    for (int j = 0, q = c->n; j < c->k; j++)
        if (c->w[c->idx[j]] > 0)
            r->data[q++] = c->w[c->idx[j]] * (gsl_vector_get(u, (size_t)j) - c->u0[c->idx[j]]);
    return GSL_SUCCESS;
}

/* r(x) into out; PT_OK or the callback's error (non-finite counts as one). */
/* The Jacobian by central differences of SEL_H in u: the cost model is
 * piecewise smooth (max of compute and memory time, launch floors), and
 * GSL's own forward step (sqrt(DBL_EPSILON) |u|) is below what the model's
 * sums resolve. */
static int lsq_df(const gsl_vector *u, void *arg, gsl_matrix *J)
{
    lsq_ctx *c = arg;
    gsl_vector *v = gsl_vector_alloc(u->size), *rp = gsl_vector_alloc((size_t)(c->n + c->np)),
               *rm = gsl_vector_alloc((size_t)(c->n + c->np));
    int st = GSL_SUCCESS;
    if (!v || !rp || !rm) st = GSL_ENOMEM;
    for (size_t j = 0; st == GSL_SUCCESS && j < u->size; j++) {
        gsl_vector_memcpy(v, u);
        gsl_vector_set(v, j, gsl_vector_get(u, j) + SEL_H);
        if ((st = lsq_f(v, c, rp)) != GSL_SUCCESS) break;
        gsl_vector_set(v, j, gsl_vector_get(u, j) - SEL_H);
        if ((st = lsq_f(v, c, rm)) != GSL_SUCCESS) break;
        for (size_t i = 0; i < (size_t)(c->n + c->np); i++)
            gsl_matrix_set(J, i, j, (gsl_vector_get(rp, i) - gsl_vector_get(rm, i)) / (2 * SEL_H));
    }
    if (v) gsl_vector_free(v);
    if (rp) gsl_vector_free(rp);
    if (rm) gsl_vector_free(rm);
    return st;
}

static pt_status eval_at(const pt_calib_fn f, void *arg, int n, const double *x, double *out, pt_diag *d)
{
    pt_status st = f(x, out, arg, d);
    if (st != PT_OK) return st;
    for (int i = 0; i < n; i++)
        if (!isfinite(out[i]))
            return pt_diag_set(d, NULL, NULL, NULL, "the model gave no finite step time for row %d", i + 1);
    return PT_OK;
}

/* One trust-region fit of the coordinates c->idx[0..k) from their values in
 * c->x; on success c->x holds the solution and cov (k x k) (J^T J)^-1. */
static pt_status lsq_run(lsq_ctx *c, gsl_matrix *cov, int *iters)
{
    gsl_multifit_nlinear_parameters prm = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_fdf fdf;
    gsl_multifit_nlinear_workspace *w;
    gsl_vector *u;
    gsl_error_handler_t *old;
    int info = 0, gs;
    size_t k = (size_t)c->k;
    memset(&fdf, 0, sizeof fdf);
    fdf.f = lsq_f;
    fdf.df = lsq_df;
    c->np = 0;
    for (size_t j = 0; j < k; j++) c->np += c->w[c->idx[j]] > 0;
    fdf.n = (size_t)(c->n + c->np);
    fdf.p = k;
    fdf.params = c;
    /* GSL reports errors through a process-wide handler that aborts by
     * default; the fitter returns them as statuses instead, and puts the
     * caller's handler back before it returns. */
    old = gsl_set_error_handler_off();
    w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &prm, fdf.n, k);
    u = gsl_vector_alloc(k);
    if (!w || !u) {
        if (w) gsl_multifit_nlinear_free(w);
        if (u) gsl_vector_free(u);
        gsl_set_error_handler(old);
        return pt_diag_set(c->d, NULL, NULL, NULL, "out of memory");
    }
    for (size_t j = 0; j < k; j++) gsl_vector_set(u, j, log(c->x[c->idx[j]]));
    c->st = PT_OK;
    gs = gsl_multifit_nlinear_init(u, &fdf, w);
    if (gs == GSL_SUCCESS) gs = gsl_multifit_nlinear_driver(c->max_iter, LSQ_XTOL, LSQ_GTOL, LSQ_FTOL, NULL, NULL,
                                                            &info, w);
    /* running out of iterations or of progress still leaves the best point
     * found; only a failing model is an error */
    if (c->st == PT_OK && (gs == GSL_SUCCESS || gs == GSL_EMAXITER || gs == GSL_ENOPROG)) {
        const gsl_vector *x = gsl_multifit_nlinear_position(w);
        for (size_t j = 0; j < k; j++) c->x[c->idx[j]] = exp(gsl_vector_get(x, j));
        gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
        *iters += (int)gsl_multifit_nlinear_niter(w);
        gs = GSL_SUCCESS;
    }
    gsl_multifit_nlinear_free(w);
    gsl_vector_free(u);
    gsl_set_error_handler(old);
    if (c->st != PT_OK) return c->st;
    if (gs != GSL_SUCCESS)
        return pt_diag_set(c->d, NULL, NULL, NULL, "least squares failed: %s", gsl_strerror(gs));
    return PT_OK;
}

static double rms(const double *r, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += r[i] * r[i];
    return n ? sqrt(s / n) : 0.0;
}

/* The Jacobian at the defaults and the pivoted Gram-Schmidt choice of the
 * parameters to fit (calib.h). */
static pt_status choose(pt_calib_fn f, void *arg, int n, int p, int max_fit, pt_calib_fit *out, pt_diag *d)
{
    double *J = calloc((size_t)n * (size_t)p, sizeof *J), *rp = malloc((size_t)n * sizeof *rp),
           *rm = malloc((size_t)n * sizeof *rm);
    double x[PT_CALIB_MAXP];
    int picked[PT_CALIB_MAXP] = {0}, limit = max_fit < 0 ? 0 : max_fit > 0 && max_fit < n ? max_fit : n;
    pt_status st = PT_OK;
    if (!J || !rp || !rm) {
        st = pt_diag_set(d, NULL, NULL, NULL, "out of memory");
        goto done;
    }
    for (int j = 0; j < p; j++) x[j] = out->param[j].value;
    for (int j = 0; j < p; j++) {
        double s = 0, xj = x[j];
        if (!out->param[j].candidate) continue;
        x[j] = xj * exp(SEL_H);
        if ((st = eval_at(f, arg, n, x, rp, d)) != PT_OK) goto done;
        x[j] = xj * exp(-SEL_H);
        if ((st = eval_at(f, arg, n, x, rm, d)) != PT_OK) goto done;
        x[j] = xj;
        for (int i = 0; i < n; i++) {
            J[(size_t)i * (size_t)p + (size_t)j] = (rp[i] - rm[i]) / (2 * SEL_H);
            s += J[(size_t)i * (size_t)p + (size_t)j] * J[(size_t)i * (size_t)p + (size_t)j];
        }
        out->param[j].sensitivity = sqrt(s / n);
    }
    for (;;) {
        int best = -1;
        double best_norm = 0;
        for (int j = 0; j < p; j++) {
            double s = 0;
            if (!out->param[j].candidate || picked[j]) continue;
            for (int i = 0; i < n; i++) s += J[(size_t)i * (size_t)p + (size_t)j] * J[(size_t)i * (size_t)p + (size_t)j];
            s = sqrt(s / n);
            /* ties go to the earlier parameter: the order is the caller's */
            if (s >= PT_CALIB_MIN_SENS && s > best_norm) best = j, best_norm = s;
        }
        if (best < 0) break;
        if (out->nfit == limit) {
            out->param[best].state = PT_CALIB_HELD_DOF;
            picked[best] = 1;
            continue;
        }
        picked[best] = 1;
        out->param[best].state = PT_CALIB_FITTED;
        out->nfit++;
        /* remove the chosen direction from every column not chosen yet */
        {
            double qq = 0;
            for (int i = 0; i < n; i++) qq += J[(size_t)i * (size_t)p + (size_t)best] * J[(size_t)i * (size_t)p + (size_t)best];
            for (int j = 0; j < p; j++) {
                double qa = 0;
                if (picked[j] || !out->param[j].candidate) continue;
                for (int i = 0; i < n; i++)
                    qa += J[(size_t)i * (size_t)p + (size_t)best] * J[(size_t)i * (size_t)p + (size_t)j];
                for (int i = 0; i < n; i++)
                    J[(size_t)i * (size_t)p + (size_t)j] -= qa / qq * J[(size_t)i * (size_t)p + (size_t)best];
            }
        }
    }
    for (int j = 0; j < p; j++)
        if (out->param[j].candidate && !picked[j]) out->param[j].state = PT_CALIB_HELD_WEAK;
done:
    free(J);
    free(rp);
    free(rm);
    return st;
}

pt_status pt_calib_lsq(pt_calib_fn f, void *arg, int n, int p, const pt_calib_param *param, int max_fit,
                       int max_iter, pt_calib_fit *out, pt_diag *d)
{
    lsq_ctx c;
    gsl_matrix *cov = NULL;
    pt_status st;
    assert(f && param && out && n >= 1 && p >= 1 && p <= PT_CALIB_MAXP);
    memset(out, 0, sizeof *out);
    out->n = n;
    out->p = p;
    out->sigma = NAN;
    for (int j = 0; j < p; j++) {
        out->param[j] = param[j];
        out->param[j].state = param[j].candidate ? PT_CALIB_HELD_WEAK : PT_CALIB_HELD_GIVEN;
        out->param[j].se = out->param[j].se_unit = NAN;
        out->param[j].sensitivity = 0;
        out->param[j].def = param[j].value;
        if (!(param[j].value > 0 && param[j].lo > 0 && param[j].lo <= param[j].value &&
              param[j].value <= param[j].hi))
            return pt_diag_set(d, NULL, param[j].name, NULL,
                               "%s: default %g is not > 0 inside its bounds [%g, %g]", param[j].name,
                               param[j].value, param[j].lo, param[j].hi);
    }
    out->before = malloc((size_t)n * sizeof *out->before);
    out->after = malloc((size_t)n * sizeof *out->after);
    if (!out->before || !out->after) {
        pt_calib_fit_free(out);
        return pt_diag_set(d, NULL, NULL, NULL, "out of memory");
    }
    memset(&c, 0, sizeof c);
    c.f = f, c.arg = arg, c.n = n, c.p = p, c.d = d;
    c.max_iter = (size_t)(max_iter > 0 ? max_iter : LSQ_MAXITER);
    for (int j = 0; j < p; j++) {
        c.x[j] = param[j].value;
        c.u0[j] = log(param[j].value);
        c.w[j] = param[j].prior_sd > 0 ? PT_CALIB_ROW_SD / param[j].prior_sd : 0.0;
    }
    if ((st = eval_at(f, arg, n, c.x, out->before, d)) != PT_OK) goto fail;
    out->rms_before = rms(out->before, n);
    if ((st = choose(f, arg, n, p, max_fit, out, d)) != PT_OK) goto fail;
    /* fit; hold the worst bound violation at its bound and refit, until none */
    for (;;) {
        int worst = -1;
        double worst_by = 0;
        c.k = 0;
        for (int j = 0; j < p; j++)
            if (out->param[j].state == PT_CALIB_FITTED) c.idx[c.k++] = j;
        if (c.k == 0) break;
        if (cov) gsl_matrix_free(cov);
        if (!(cov = gsl_matrix_alloc((size_t)c.k, (size_t)c.k))) {
            st = pt_diag_set(d, NULL, NULL, NULL, "out of memory");
            goto fail;
        }
        if ((st = lsq_run(&c, cov, &out->iterations)) != PT_OK) goto fail;
        for (int q = 0; q < c.k; q++) {
            int j = c.idx[q];
            double by = c.x[j] > out->param[j].hi ? log(c.x[j] / out->param[j].hi)
                        : c.x[j] < out->param[j].lo ? log(out->param[j].lo / c.x[j]) : 0.0;
            if (by > worst_by) worst = j, worst_by = by;
        }
        if (worst < 0) break;
        out->param[worst].state = PT_CALIB_HELD_BOUND;
        out->nfit--;
        c.x[worst] = c.x[worst] > out->param[worst].hi ? out->param[worst].hi : out->param[worst].lo;
        /* the others start again from their defaults */
        for (int j = 0; j < p; j++)
            if (out->param[j].state == PT_CALIB_FITTED) c.x[j] = param[j].value;
    }
    if ((st = eval_at(f, arg, n, c.x, out->after, d)) != PT_OK) goto fail;
    out->rms_after = rms(out->after, n);
    out->dof = n - out->nfit;
    if (out->dof > 0) out->sigma = sqrt(out->rms_after * out->rms_after * n / out->dof);
    for (int j = 0; j < p; j++) out->param[j].value = c.x[j];
    for (int q = 0; q < c.k; q++) {
        int j = c.idx[q];
        double u = sqrt(gsl_matrix_get(cov, (size_t)q, (size_t)q));
        out->param[j].se_unit = c.x[j] * u;
        /* no residual left to estimate the noise from: a prior's own
         * row noise stands in for it */
        out->param[j].se = out->dof > 0 ? c.x[j] * u * out->sigma
                           : c.w[j] > 0 ? c.x[j] * u * PT_CALIB_ROW_SD : NAN;
    }
    if (cov) gsl_matrix_free(cov);
    return PT_OK;
fail:
    if (cov) gsl_matrix_free(cov);
    pt_calib_fit_free(out);
    return st;
}

/* ---- choosing how many to fit ------------------------------------------------ */

/* f restricted to the rows keep[0..nk): residuals of all n into all, the
 * kept ones out. */
typedef struct cv_sub {
    pt_calib_fn f;
    void *arg;
    const int *keep;
    int nk;
    double *all;
} cv_sub;

static pt_status cv_sub_f(const double *x, double *r, void *arg, pt_diag *d)
{
    cv_sub *s = arg;
    pt_status st = s->f(x, s->all, s->arg, d);
    if (st != PT_OK) return st;
    for (int i = 0; i < s->nk; i++) r[i] = s->all[s->keep[i]];
    return PT_OK;
}

pt_status pt_calib_lsq_cv(pt_calib_fn f, void *arg, int n, int p, const pt_calib_param *param, int max_iter,
                          pt_calib_fit *out, pt_diag *d)
{
    int folds = n <= PT_CALIB_CV_FOLDS ? n : PT_CALIB_CV_FOLDS, kmax, cand = 0, best = 0;
    int *keep = NULL;
    double *all = NULL, *sq = NULL, mse[PT_CALIB_MAXP + 1] = {0}, se_best = 0;
    pt_status st = PT_OK;
    if (n < 2) return pt_calib_lsq(f, arg, n, p, param, 0, max_iter, out, d);
    for (int j = 0; j < p; j++) cand += param[j].candidate;
    kmax = n - (n + folds - 1) / folds; /* the rows the largest fold leaves */
    if (kmax > cand) kmax = cand;
    keep = malloc((size_t)n * sizeof *keep);
    all = malloc((size_t)n * sizeof *all);
    sq = malloc((size_t)n * (size_t)(kmax + 1) * sizeof *sq); /* row i, k: sq[k n + i] */
    if (!keep || !all || !sq) {
        st = pt_diag_set(d, NULL, NULL, NULL, "out of memory");
        goto done;
    }
    for (int k = 0; k <= kmax; k++) {
        for (int q = 0; q < folds; q++) {
            cv_sub s = {f, arg, keep, 0, all};
            pt_calib_fit ff;
            double x[PT_CALIB_MAXP];
            for (int i = 0; i < n; i++)
                if (i % folds != q) keep[s.nk++] = i;
            for (int j = 0; j < p; j++) x[j] = param[j].value;
            if (k > 0) {
                if ((st = pt_calib_lsq(cv_sub_f, &s, s.nk, p, param, k, max_iter, &ff, d)) != PT_OK) goto done;
                for (int j = 0; j < p; j++) x[j] = ff.param[j].value;
                pt_calib_fit_free(&ff);
            }
            if ((st = eval_at(f, arg, n, x, all, d)) != PT_OK) goto done;
            for (int i = q; i < n; i += folds) sq[k * n + i] = all[i] * all[i];
        }
        for (int i = 0; i < n; i++) mse[k] += sq[k * n + i] / n;
        if (mse[k] < mse[best]) best = k;
    }
    /* the one-standard-error rule (Breiman et al. 1984, Classification and
     * Regression Trees, section 3.4.3; Hastie, Tibshirani and Friedman,
     * The Elements of Statistical Learning, 2nd ed., section 7.10): the
     * fewest parameters whose left-out error is within one standard error
     * of the least; a few rows tell the k's apart no better than that */
    for (int i = 0; i < n; i++) se_best += (sq[best * n + i] - mse[best]) * (sq[best * n + i] - mse[best]);
    se_best = sqrt(se_best / (n - 1) / n);
    for (int k = 0; k < best; k++)
        if (mse[k] <= mse[best] + se_best) {
            best = k;
            break;
        }
    if ((st = pt_calib_lsq(f, arg, n, p, param, best > 0 ? best : -1, max_iter, out, d)) != PT_OK) goto done;
    /* what the chosen k leaves out is the cross-validation's choice, unless
     * k stopped at the most a fold's rows allow */
    if (best < kmax)
        for (int j = 0; j < p; j++)
            if (out->param[j].state == PT_CALIB_HELD_DOF) out->param[j].state = PT_CALIB_HELD_CV;
    out->cv_folds = folds;
    out->cv_kmax = kmax;
    out->cv_k = best;
    for (int k = 0; k <= kmax; k++) out->cv_rms[k] = sqrt(mse[k]);
done:
    free(keep);
    free(all);
    free(sq);
    return st;
}

/* ---- runs ------------------------------------------------------------------------ */

/* c resized to n devices as validate prices a row of n (fewer than a node:
 * one level of n). */
static int sized(const pt_cluster *c, int64_t n, pt_cluster *out)
{
    pt_diag d;
    *out = *c;
    if (n < c->level[0].size) {
        out->nlevels = 1;
        out->level[0].size = n;
        out->devices = n;
        return 0;
    }
    return pt_cluster_resize(out, n, &d) == PT_OK ? 0 : -1;
}

static int is_direct_time(const char *metric)
{
    return !strcmp(metric, "iter_time_s") || !strcmp(metric, "layer_fwd_bwd_ms");
}

/* The step (or layer time) of w on c, priced as validate prices it. */
static double row_price(const pt_vrow *w, const pt_cluster *c)
{
    if (!strcmp(w->metric, "layer_fwd_bwd_ms")) {
        double fw, bw;
        pt_cost_layer_time(&w->model_v, c, &w->job_v, &w->st_v, &fw, &bw);
        return fw + bw;
    } else {
        pt_cost cost;
        if (pt_cost_eval(&w->model_v, c, &w->job_v, &w->st_v, &cost) != PT_OK) return NAN;
        return cost.step_time_s;
    }
}

int pt_calib_row_step(const pt_vrow *w, const pt_cluster *c, double *measured_s, double *predicted_s)
{
    pt_cluster rc;
    double base;
    if (w->skipped[0] || !w->is_time || !w->model_v.layers || w->predicted <= 0 || w->measured <= 0) return -1;
    if (sized(c, w->cluster_v.devices, &rc) != 0) return -1;
    if (!strcmp(w->metric, "layer_fwd_bwd_ms")) {
        *measured_s = w->measured * 1e-3;
    } else if (is_direct_time(w->metric)) {
        *measured_s = w->measured;
    } else {
        /* a throughput: inversely proportional to the step validate priced */
        base = row_price(w, &w->cluster_v);
        if (!(base > 0)) return -1;
        *measured_s = base * w->predicted / w->measured;
    }
    *predicted_s = row_price(w, &rc);
    return *predicted_s > 0 && *measured_s > 0 ? 0 : -1;
}

/* The parameters of a runs fit: 4 device constants, then one per level. */
#define RUN_DEV 4

typedef struct runs_ctx {
    const pt_vresult *vr;
    const int *row;           /* vr row of each residual */
    const double *meas;       /* measured step of each   */
    int n;
    pt_cluster base;
} runs_ctx;

static void apply(pt_cluster *c, const double *x)
{
    c->dev.gemm_eff = x[0];
    c->dev.attn_eff = x[1];
    c->dev.mem_eff = x[2];
    c->dev.kernel_us = x[3];
    for (int j = 0; j < c->nlevels; j++) c->level[j].efficiency = x[RUN_DEV + j];
}

static pt_status runs_resid(const double *x, double *r, void *arg, pt_diag *d)
{
    runs_ctx *k = arg;
    pt_cluster c = k->base;
    apply(&c, x);
    if (!(k->base.dev.kernel_us > 0)) c.dev.kernel_us = k->base.dev.kernel_us; /* 0: held at 0 */
    for (int i = 0; i < k->n; i++) {
        const pt_vrow *w = &k->vr->rows[k->row[i]];
        pt_cluster rc;
        double t;
        if (sized(&c, w->cluster_v.devices, &rc) != 0)
            return pt_diag_set(d, NULL, "n_gpus", NULL, "line %d: the cluster cannot hold %lld devices", w->line,
                               (long long)w->cluster_v.devices);
        t = row_price(w, &rc);
        r[i] = t > 0 ? log(t / k->meas[i]) : NAN;
    }
    return PT_OK;
}

void pt_calib_runs_free(pt_calib_runs *r)
{
    pt_calib_fit_free(&r->fit);
    free(r->rows);
    r->rows = NULL;
    r->nrows = 0;
}

pt_status pt_calib_runs_fit(const pt_vresult *vr, const int *use, const pt_cluster *c, const int *held_level,
                            int prior, const char *file, pt_calib_runs *out, pt_diag *d)
{
    runs_ctx k;
    int *row = malloc((size_t)(vr->n ? vr->n : 1) * sizeof *row), n = 0, p;
    double *meas = malloc((size_t)(vr->n ? vr->n : 1) * sizeof *meas);
    pt_calib_param prm[PT_CALIB_MAXP];
    char others[200] = "";
    pt_status st;
    memset(out, 0, sizeof *out);
    out->cluster = *c;
    if (!row || !meas) {
        free(row), free(meas);
        return pt_diag_set(d, file, NULL, NULL, "out of memory");
    }
    for (int i = 0; i < vr->n; i++) {
        const pt_vrow *w = &vr->rows[i];
        double ms, ps;
        if (use && !use[i]) continue;
        if (w->skipped[0] || !w->is_time) {
            out->unused++;
            continue;
        }
        if (strcmp(w->cluster_v.dev.name, c->dev.name)) {
            out->other_device++;
            if (!strstr(others, w->cluster_v.dev.name) && strlen(others) + strlen(w->cluster_v.dev.name) + 3 < sizeof others) {
                if (others[0]) strcat(others, ", ");
                strcat(others, w->cluster_v.dev.name);
            }
            continue;
        }
        if (pt_calib_row_step(w, c, &ms, &ps) != 0) {
            out->unused++;
            continue;
        }
        row[n] = i;
        meas[n++] = ms;
    }
    if (n == 0) {
        free(row), free(meas);
        pt_diag_set(d, file, "gpu", c->dev.name,
                    "no priced step-time row on the cluster's device %s (%s%s)", c->dev.name,
                    others[0] ? "rows are on: " : "no row is a priced step time", others);
        return PT_EINPUT;
    }
    p = RUN_DEV + c->nlevels;
    memset(prm, 0, sizeof prm);
    {
        static const char *const dn[RUN_DEV] = {"gemm_eff", "attn_eff", "mem_eff", "kernel_us"};
        const double dv[RUN_DEV] = {c->dev.gemm_eff, c->dev.attn_eff, c->dev.mem_eff, c->dev.kernel_us};
        /* fractions stay in [0.01, 1]; a launch costs 0.1 us to 1 ms */
        const double lo[RUN_DEV] = {0.01, 0.01, 0.01, 0.1}, hi[RUN_DEV] = {1.0, 1.0, 1.0, 1000.0};
        for (int j = 0; j < RUN_DEV; j++) {
            pt_strlcpy(prm[j].name, dn[j], sizeof prm[j].name);
            prm[j].value = dv[j];
            prm[j].lo = lo[j] < dv[j] ? lo[j] : dv[j];
            prm[j].hi = hi[j] > dv[j] ? hi[j] : dv[j];
            prm[j].candidate = dv[j] > 0;
            prm[j].prior_sd = prior && j < 3 ? PT_CALIB_EFF_PRIOR_SD : 0.0; /* the launch time: none */
            if (!(dv[j] > 0)) prm[j].value = prm[j].lo = prm[j].hi = 1.0; /* kernel_us 0: held */
        }
    }
    for (int j = 0; j < c->nlevels; j++) {
        pt_calib_param *q = &prm[RUN_DEV + j];
        snprintf(q->name, sizeof q->name, "%.20s.efficiency", c->level[j].name);
        q->value = c->level[j].efficiency;
        q->lo = 0.01 < q->value ? 0.01 : q->value;
        q->hi = 1.0;
        q->candidate = !(held_level && held_level[j]);
        q->prior_sd = prior ? PT_CALIB_LINK_PRIOR_SD : 0.0;
    }
    k.vr = vr, k.row = row, k.meas = meas, k.n = n, k.base = *c;
    st = pt_calib_lsq_cv(runs_resid, &k, n, p, prm, 0, &out->fit, d);
    if (st != PT_OK) {
        free(row), free(meas);
        if (!d->file[0] && file) pt_strlcpy(d->file, file, sizeof d->file);
        return st;
    }
    {
        double x[PT_CALIB_MAXP];
        for (int j = 0; j < p; j++) x[j] = out->fit.param[j].value;
        if (!(c->dev.kernel_us > 0)) x[3] = c->dev.kernel_us;
        apply(&out->cluster, x);
        if (!(c->dev.kernel_us > 0)) out->fit.param[3].value = c->dev.kernel_us;
    }
    out->rows = calloc((size_t)n, sizeof *out->rows);
    if (!out->rows) {
        free(row), free(meas);
        pt_calib_runs_free(out);
        return pt_diag_set(d, file, NULL, NULL, "out of memory");
    }
    out->nrows = n;
    for (int i = 0; i < n; i++) {
        const pt_vrow *w = &vr->rows[row[i]];
        pt_calib_row *o = &out->rows[i];
        o->line = w->line;
        pt_strlcpy(o->model, w->model, sizeof o->model);
        pt_strlcpy(o->metric, w->metric, sizeof o->metric);
        o->gpus = w->cluster_v.devices;
        o->measured_s = meas[i];
        o->before_s = meas[i] * exp(out->fit.before[i]);
        o->after_s = meas[i] * exp(out->fit.after[i]);
    }
    free(row), free(meas);
    return PT_OK;
}

/* ---- the cluster file ------------------------------------------------------------ */

json_t *pt_calib_cluster_json(const pt_cluster *c, const char *source)
{
    json_t *root = json_object(), *dev = json_object(), *tf = json_object(), *lv = json_array();
    char name[64];
    const pt_device *v = &c->dev;
    if (!root || !dev || !tf || !lv) {
        json_decref(root), json_decref(dev), json_decref(tf), json_decref(lv);
        return NULL;
    }
    snprintf(name, sizeof name, "%.52s-calibrated", c->name);
    json_object_set_new(root, "name", json_string(name));
    json_object_set_new(root, "source", json_string(source));
    json_object_set_new(dev, "name", json_string(v->name));
    json_object_set_new(dev, "memory_GiB", json_real(v->memory_GiB));
    json_object_set_new(dev, "memory_bw_GBps", json_real(v->memory_bw_GBps));
    json_object_set_new(tf, "bf16", json_real(v->tflops_bf16));
    json_object_set_new(tf, "fp16", json_real(v->tflops_fp16));
    json_object_set_new(tf, "fp8", json_real(v->tflops_fp8));
    json_object_set_new(tf, "tf32", json_real(v->tflops_tf32));
    json_object_set_new(tf, "fp32", json_real(v->tflops_fp32));
    if (v->tflops_fp4 > 0) json_object_set_new(tf, "fp4", json_real(v->tflops_fp4));
    json_object_set_new(dev, "tflops", tf);
    /* the constants are now fitted to measured runs of this very device */
    if (v->generation[0]) {
        json_object_set_new(dev, "generation", json_string(v->generation));
        json_object_set_new(dev, "fitted_on", json_string(v->generation));
    }
    json_object_set_new(dev, "host_bw_GBps", json_real(v->host_bw_GBps));
    json_object_set_new(dev, "gemm_eff", json_real(v->gemm_eff));
    json_object_set_new(dev, "gemm_half_GFLOP", json_real(v->gemm_half_GFLOP));
    json_object_set_new(dev, "attn_eff", json_real(v->attn_eff));
    json_object_set_new(dev, "mem_eff", json_real(v->mem_eff));
    json_object_set_new(dev, "kernel_us", json_real(v->kernel_us));
    if (v->best_mfu > 0) json_object_set_new(dev, "best_published_mfu", json_real(v->best_mfu));
    if (v->fp8_gemm_ratio > 0) json_object_set_new(dev, "fp8_gemm_ratio", json_real(v->fp8_gemm_ratio));
    json_object_set_new(dev, "source", json_string(source));
    json_object_set_new(root, "device", dev);
    json_object_set_new(root, "devices", json_integer((json_int_t)c->devices));
    for (int j = 0; j < c->nlevels; j++) {
        json_t *l = json_object();
        if (!l) continue;
        json_object_set_new(l, "name", json_string(c->level[j].name));
        json_object_set_new(l, "size", json_integer((json_int_t)c->level[j].size));
        json_object_set_new(l, "bw_GBps", json_real(c->level[j].bw_GBps));
        json_object_set_new(l, "latency_us", json_real(c->level[j].latency_us));
        json_object_set_new(l, "efficiency", json_real(c->level[j].efficiency));
        if (c->level[j].unit > 1) json_object_set_new(l, "unit", json_integer((json_int_t)c->level[j].unit));
        if (c->level[j].segment > 0)
            json_object_set_new(l, "segment", json_integer((json_int_t)c->level[j].segment));
        json_array_append_new(lv, l);
    }
    json_object_set_new(root, "levels", lv);
    json_object_set_new(root, "price_per_device_hour", json_real(c->price_per_device_hour));
    json_object_set_new(root, "mtbf_device_hours", json_real(c->mtbf_device_hours));
    return root;
}

/* ---- nccl-tests ------------------------------------------------------------------ */

static const char *const nccl_cols[13] = {"size", "count", "type", "redop", "root", "time", "algbw", "busbw",
                                          "#wrong", "time", "algbw", "busbw", "#wrong"};

static int op_from_name(const char *s, pt_coll_op *op, char *name, size_t n)
{
    static const struct { const char *key; pt_coll_op op; const char *name; } t[] = {
        {"all_reduce", PT_ALLREDUCE, "all_reduce_perf"},
        {"all_gather", PT_ALLGATHER, "all_gather_perf"},
        {"reduce_scatter", PT_REDUCESCATTER, "reduce_scatter_perf"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strstr(s, t[i].key)) {
            *op = t[i].op;
            pt_strlcpy(name, t[i].name, n);
            return 1;
        }
    return 0;
}

/* The next whitespace-separated word of *p into w (at most n-1 bytes); its
 * column (1-based) in *col; 0 at the end of the line. */
static int word(const char **p, char *w, size_t n, const char *line, int *col)
{
    size_t k = 0;
    while (**p == ' ' || **p == '\t' || **p == '\r') (*p)++;
    if (!**p || **p == '\n') return 0;
    *col = (int)(*p - line) + 1;
    while (**p && !isspace((unsigned char)**p)) {
        if (k + 1 < n) w[k++] = **p;
        (*p)++;
    }
    w[k] = '\0';
    return 1;
}

pt_status pt_calib_nccl_parse(const char *text, const char *file, pt_calib_nccl *out, pt_diag *d)
{
    const char *line = text;
    int lineno = 0, have_op = 0, ngpus = 0, nrank = 0, redop_sum = -1;
    char hosts[64][64];
    memset(out, 0, sizeof *out);
    while (*line) {
        const char *eol = strchr(line, '\n'), *p = line;
        const char *next = eol ? eol + 1 : line + strlen(line);
        char w[96];
        int col = 1;
        lineno++;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#') {
            /* the comment line alone, bounded: searches stay inside it */
            char cl[512];
            const char *s;
            size_t len = (size_t)((eol ? eol : next) - p);
            if (len >= sizeof cl) len = sizeof cl - 1;
            memcpy(cl, p, len);
            cl[len] = '\0';
            if ((s = strstr(cl, "Collective test starting:")) != NULL)
                have_op = op_from_name(s, &out->op, out->collective, sizeof out->collective);
            else if ((s = strstr(cl, "nGpus")) != NULL) {
                long v = strtol(s + 5, NULL, 10);
                ngpus = v > 0 && v < 1000000 ? (int)v : 0;
            } else if (!strncmp(cl, "#  Rank", 7) || !strncmp(cl, "# Rank", 6)) {
                const char *on = strstr(cl, " on ");
                nrank++;
                if (on) {
                    char h[64];
                    int c2, dup = 0;
                    const char *q = on + 4;
                    if (word(&q, h, sizeof h, cl, &c2)) {
                        for (int i = 0; i < out->hosts; i++)
                            if (!strcmp(hosts[i], h)) dup = 1;
                        if (!dup && out->hosts < 64) pt_strlcpy(hosts[out->hosts++], h, sizeof hosts[0]);
                    }
                }
            }
            line = next;
            continue;
        }
        if (!*p || *p == '\n' || *p == '\r') {
            line = next;
            continue;
        }
        {
            pt_calib_nccl_row r;
            int k = 0;
            memset(&r, 0, sizeof r);
            for (k = 0; k < 13; k++) {
                char *end;
                double v;
                if (!word(&p, w, sizeof w, line, &col)) {
                    pt_diag_set(d, file, nccl_cols[k], "",
                                "line has %d columns; nccl-tests prints 13 (size count type redop root, then time "
                                "algbw busbw #wrong out-of-place and in-place)", k);
                    d->line = lineno, d->col = (int)(p - line) + 1;
                    return PT_EINPUT;
                }
                if (k == 2) continue; /* type: float, half, bfloat16, ... */
                if (k == 3) {
                    int sum = !strcmp(w, "sum");
                    if (strcmp(w, "none") && !sum && strcmp(w, "prod") && strcmp(w, "min") && strcmp(w, "max") &&
                        strcmp(w, "avg")) {
                        pt_diag_set(d, file, "redop", w, "redop \"%s\" is not an nccl-tests operation", w);
                        d->line = lineno, d->col = col;
                        return PT_EINPUT;
                    }
                    redop_sum = sum;
                    continue;
                }
                if ((k == 8 || k == 12) && !strcmp(w, "N/A")) continue; /* run without -c */
                v = strtod(w, &end);
                if (*end || !isfinite(v) ||
                    (k == 4 ? v < -1 : k == 8 || k == 12 || k == 1 ? v < 0 : k == 0 || k == 5 || k == 9 ? v <= 0 : v < 0) ||
                    ((k == 0 || k == 1 || k == 4 || k == 8 || k == 12) && v != floor(v)) || v > 1e15) {
                    pt_diag_set(d, file, nccl_cols[k], w, "%s: \"%s\" is not %s", nccl_cols[k], w,
                                k == 0 ? "a size in bytes > 0" : k == 5 || k == 9 ? "a time in us > 0"
                                : k == 4 ? "a rank (or -1)" : "a number >= 0");
                    d->line = lineno, d->col = col;
                    return PT_EINPUT;
                }
                if ((k == 8 || k == 12) && v > 0) {
                    pt_diag_set(d, file, "#wrong", w, "#wrong: %s wrong values at this size: the test failed, its "
                                "times do not measure the fabric", w);
                    d->line = lineno, d->col = col;
                    return PT_EINPUT;
                }
                if (k == 0) r.bytes = (int64_t)v;
                if (k == 5) r.time_us[0] = v;
                if (k == 7) r.busbw_GBps[0] = v;
                if (k == 9) r.time_us[1] = v;
                if (k == 11) r.busbw_GBps[1] = v;
            }
            if (word(&p, w, sizeof w, line, &col)) {
                pt_diag_set(d, file, "line", w, "more than 13 columns (\"%s\")", w);
                d->line = lineno, d->col = col;
                return PT_EINPUT;
            }
            if (out->nrows == PT_CALIB_NCCL_MAXROWS) {
                pt_diag_set(d, file, "size", "", "more than %d table lines", PT_CALIB_NCCL_MAXROWS);
                d->line = lineno, d->col = 1;
                return PT_EINPUT;
            }
            out->row[out->nrows++] = r;
        }
        line = next;
    }
    if (out->nrows == 0) {
        pt_diag_set(d, file, "size", "", "no nccl-tests table line (size count type redop root time algbw busbw "
                    "#wrong ...)");
        d->line = lineno ? lineno : 1, d->col = 1;
        return PT_EINPUT;
    }
    if (!have_op && file) have_op = op_from_name(file, &out->op, out->collective, sizeof out->collective);
    if (!have_op) {
        if (redop_sum == 0) {
            out->op = PT_ALLGATHER;
            pt_strlcpy(out->collective, "all_gather_perf", sizeof out->collective);
        } else {
            out->op = PT_ALLREDUCE;
            pt_strlcpy(out->collective, "all_reduce_perf", sizeof out->collective);
        }
    }
    out->ranks = nrank > 0 ? nrank : ngpus;
    if (out->ranks < 2) {
        pt_diag_set(d, file, "nGpus", "", "the test names %lld ranks (its \"# Rank\" lines, or nGpus): a "
                    "collective needs at least 2", (long long)out->ranks);
        d->line = 1, d->col = 1;
        return PT_EINPUT;
    }
    return PT_OK;
}

typedef struct nccl_ctx {
    pt_cluster c;
    const pt_calib_nccl *t;
    int level;
    int idx[2 * PT_CALIB_NCCL_MAXROWS][2];  /* row, placement of each point */
    int n;
} nccl_ctx;

static pt_status nccl_resid(const double *x, double *r, void *arg, pt_diag *d)
{
    nccl_ctx *k = arg;
    pt_cluster c = k->c;
    (void)d;
    c.level[k->level].efficiency = x[0];
    for (int i = 0; i < k->n; i++) {
        const pt_calib_nccl_row *w = &k->t->row[k->idx[i][0]];
        double t = pt_coll_time(&c, k->t->op, w->bytes, k->t->ranks, 1);
        r[i] = log(t / (w->time_us[k->idx[i][1]] * 1e-6));
    }
    return PT_OK;
}

pt_status pt_calib_nccl_level(pt_cluster *c, const pt_calib_nccl *t, const char *file, pt_calib_level *out,
                              pt_diag *d)
{
    nccl_ctx *k = calloc(1, sizeof *k);
    pt_calib_param prm;
    pt_calib_fit fit;
    int64_t maxb = 0;
    double bus = 0;
    pt_status st;
    memset(out, 0, sizeof *out);
    if (!k) return pt_diag_set(d, file, NULL, NULL, "out of memory");
    if (t->ranks > c->devices || sized(c, t->ranks, &k->c) != 0) {
        free(k);
        pt_diag_set(d, file, "nGpus", NULL, "the test's %lld ranks are not whole nodes of cluster %s (%lld devices, "
                    "nodes of %lld)", (long long)t->ranks, c->name, (long long)c->devices,
                    (long long)c->level[0].size);
        d->line = 1, d->col = 1;
        return PT_EINPUT;
    }
    k->t = t;
    k->level = pt_coll_level(&k->c, t->ranks, 1);
    for (int i = 0; i < t->nrows; i++)
        if (t->row[i].bytes > maxb) maxb = t->row[i].bytes;
    for (int i = 0; i < t->nrows; i++) {
        if ((double)t->row[i].bytes * PT_CALIB_NCCL_LARGE < (double)maxb) continue;
        for (int pl = 0; pl < 2; pl++) {
            k->idx[k->n][0] = i, k->idx[k->n][1] = pl;
            bus += t->row[i].busbw_GBps[pl];
            k->n++;
        }
    }
    memset(&prm, 0, sizeof prm);
    snprintf(prm.name, sizeof prm.name, "%.20s.efficiency", c->level[k->level].name);
    prm.value = c->level[k->level].efficiency;
    prm.lo = 1e-3 < prm.value ? 1e-3 : prm.value;
    /* above 1 the level's bw_GBps is too low: raised below */
    prm.hi = 1e3;
    prm.candidate = 1;
    st = pt_calib_lsq(nccl_resid, k, k->n, 1, &prm, 1, 0, &fit, d);
    if (st != PT_OK) {
        free(k);
        if (!d->file[0] && file) pt_strlcpy(d->file, file, sizeof d->file);
        return st;
    }
    out->level = k->level;
    out->points = k->n;
    out->busbw_GBps = bus / k->n;
    out->efficiency = fit.param[0].value;
    out->se = fit.param[0].se;
    out->bw_GBps = c->level[k->level].bw_GBps;
    if (fit.param[0].state != PT_CALIB_FITTED) {
        /* the test is latency-bound at every size: nothing to learn */
        pt_calib_fit_free(&fit);
        free(k);
        pt_diag_set(d, file, "size", NULL, "the largest message (%lld bytes) is too small for the bus bandwidth to "
                    "show (run nccl-tests with -e 1G or more)", (long long)maxb);
        d->line = 1, d->col = 1;
        return PT_EINPUT;
    }
    if (out->efficiency > 1.0) {
        out->raised_bw = 1;
        out->bw_GBps *= out->efficiency;
        out->se /= out->efficiency;
        out->efficiency = 1.0;
    }
    c->level[k->level].efficiency = out->efficiency;
    c->level[k->level].bw_GBps = out->bw_GBps;
    pt_calib_fit_free(&fit);
    free(k);
    return PT_OK;
}

/* ---- statistical efficiency --------------------------------------------------------- */

typedef struct statef_ctx {
    const double *b, *e;
    int n;
} statef_ctx;

static pt_status statef_resid(const double *x, double *r, void *arg, pt_diag *d)
{
    statef_ctx *k = arg;
    (void)d;
    for (int i = 0; i < k->n; i++) r[i] = log(x[0] * (1.0 + k->b[i] / x[1]) / k->e[i]);
    return PT_OK;
}

void pt_calib_statef_free(pt_calib_statef *s) { pt_calib_fit_free(&s->fit); }

pt_status pt_calib_statef_fit(const char *text, const char *file, const char *workload, pt_calib_statef *out,
                              pt_diag *d)
{
    static const char *const need[] = {"workload", "target", "global_batch", "epochs_to_target"};
    pt_csv csv;
    int idx[4], got;
    pt_calib_param prm[2];
    statef_ctx k;
    double bmin = 0, bmax = 0, emin = 0;
    pt_status st = PT_OK;
    memset(out, 0, sizeof *out);
    pt_csv_init(&csv, text);
    if (pt_csv_next(&csv) != 1) {
        pt_csv_free(&csv);
        pt_diag_set(d, file, NULL, NULL, "empty file: expected a header row");
        d->line = 1, d->col = 1;
        return PT_EINPUT;
    }
    for (int j = 0; j < 4; j++) {
        idx[j] = -1;
        for (int i = 0; i < csv.nf; i++)
            if (!strcmp(csv.f[i], need[j])) idx[j] = i;
        if (idx[j] < 0) {
            pt_csv_free(&csv);
            pt_diag_set(d, file, need[j], NULL, "header lacks the column \"%s\" (SPEC section 6)", need[j]);
            d->line = 1, d->col = 1;
            return PT_EINPUT;
        }
    }
    while ((got = pt_csv_next(&csv)) != 0) {
        const char *wl, *tg, *bs, *es;
        double b, e;
        char *end;
        if (got < 0) {
            st = pt_diag_set(d, file, NULL, NULL, "too many fields (more than %d)", PT_CSV_MAX_FIELDS);
            d->line = csv.record_line, d->col = 1;
            goto out;
        }
        if (csv.nf == 1 && !csv.f[0][0]) continue;
        if (csv.nf <= idx[0] || csv.nf <= idx[1] || csv.nf <= idx[2] || csv.nf <= idx[3]) {
            st = pt_diag_set(d, file, "epochs_to_target", "", "has %d fields, the header has more", csv.nf);
            d->line = csv.record_line, d->col = 1;
            goto out;
        }
        wl = csv.f[idx[0]], tg = csv.f[idx[1]], bs = csv.f[idx[2]], es = csv.f[idx[3]];
        if (workload && strncmp(wl, workload, strlen(workload))) continue;
        if (!es[0]) continue; /* a row without epochs says nothing of E(B) */
        e = strtod(es, &end);
        if (*end || !(e > 0 && e < 1e9)) {
            st = pt_diag_set(d, file, "epochs_to_target", es, "epochs_to_target: \"%s\" is not a number > 0", es);
            d->line = csv.record_line, d->col = idx[3] + 1;
            goto out;
        }
        b = strtod(bs, &end);
        if (!bs[0] || *end || !(b > 0 && b < 1e15)) {
            st = pt_diag_set(d, file, "global_batch", bs, "global_batch: \"%s\" is not a number > 0", bs);
            d->line = csv.record_line, d->col = idx[2] + 1;
            goto out;
        }
        if (out->n == 0) {
            pt_strlcpy(out->workload, wl, sizeof out->workload);
            pt_strlcpy(out->target, tg, sizeof out->target);
        } else if (strncmp(out->workload, wl, sizeof out->workload - 1) ||
                   strncmp(out->target, tg, sizeof out->target - 1)) {
            st = pt_diag_set(d, file, "workload", wl,
                             "the rows hold more than one workload and target (\"%s\" / \"%s\" and \"%s\" / \"%s\"): "
                             "choose one with --workload", out->workload, out->target, wl, tg);
            d->line = csv.record_line, d->col = idx[0] + 1;
            goto out;
        }
        if (out->n == (int)(sizeof out->batch / sizeof out->batch[0])) {
            st = pt_diag_set(d, file, "global_batch", bs, "more than %d rows", out->n);
            d->line = csv.record_line, d->col = 1;
            goto out;
        }
        out->lines[out->n] = csv.record_line;
        out->batch[out->n] = b, out->epochs[out->n] = e;
        if (!out->n || b < bmin) bmin = b;
        if (!out->n || b > bmax) bmax = b;
        if (!out->n || e < emin) emin = e;
        out->n++;
    }
    if (out->n < 2 || bmin == bmax) {
        st = pt_diag_set(d, file, "global_batch", NULL,
                         "%d row%s with global_batch and epochs_to_target%s%s: E_min and B_noise need two different "
                         "batches", out->n, out->n == 1 ? "" : "s", workload ? " for workload " : "",
                         workload ? workload : "");
        d->line = 1, d->col = 1;
        goto out;
    }
    memset(prm, 0, sizeof prm);
    pt_strlcpy(prm[0].name, "e_min", sizeof prm[0].name);
    prm[0].value = emin, prm[0].lo = emin * 1e-3, prm[0].hi = emin * 10, prm[0].candidate = 1;
    pt_strlcpy(prm[1].name, "b_noise", sizeof prm[1].name);
    /* start where the critical batch is the middle of the batches measured */
    prm[1].value = sqrt(bmin * bmax), prm[1].lo = bmin * 1e-4, prm[1].hi = bmax * 1e4, prm[1].candidate = 1;
    k.b = out->batch, k.e = out->epochs, k.n = out->n;
    if ((st = pt_calib_lsq(statef_resid, &k, out->n, 2, prm, 0, 0, &out->fit, d)) != PT_OK) goto out;
    out->se.e_min = out->fit.param[0].value;
    out->se.b_noise = out->fit.param[1].value;
    out->se.e_min_se = out->fit.param[0].se;
    out->se.b_noise_se = out->fit.param[1].se;
    out->se.n = out->n;
out:
    pt_csv_free(&csv);
    return st;
}

/* ---- reports ------------------------------------------------------------------------- */

static json_t *jnum(double x) { return isfinite(x) ? json_real(x) : json_null(); }

json_t *pt_calib_params_json(const pt_calib_fit *f)
{
    json_t *a = json_array();
    for (int j = 0; a && j < f->p; j++) {
        const pt_calib_param *q = &f->param[j];
        json_t *o = json_object();
        if (!o) continue;
        json_object_set_new(o, "name", json_string(q->name));
        json_object_set_new(o, "default", jnum(q->def));
        json_object_set_new(o, "value", jnum(q->value));
        json_object_set_new(o, "se", jnum(q->se));
        json_object_set_new(o, "se_per_unit_noise", jnum(q->se_unit));
        json_object_set_new(o, "sensitivity", jnum(q->sensitivity));
        if (q->prior_sd > 0) json_object_set_new(o, "prior_sd", jnum(q->prior_sd)); /* calibrate --prior */
        json_object_set_new(o, "state", json_string(pt_calib_state_key(q->state)));
        json_object_set_new(o, "why", json_string(pt_calib_state_text(q->state)));
        json_array_append_new(a, o);
    }
    return a;
}

static void fit_summary(json_t *o, const pt_calib_fit *f)
{
    json_object_set_new(o, "parameters", pt_calib_params_json(f));
    json_object_set_new(o, "fitted", json_integer(f->nfit));
    json_object_set_new(o, "degrees_of_freedom", json_integer(f->dof));
    json_object_set_new(o, "sigma", jnum(f->sigma));
    json_object_set_new(o, "rms_log_error_before", jnum(f->rms_before));
    json_object_set_new(o, "rms_log_error_after", jnum(f->rms_after));
    if (f->cv_folds > 0) { /* pt_calib_lsq_cv's choice */
        json_t *cv = json_object(), *e = json_array();
        for (int k = 0; e && k <= f->cv_kmax; k++) json_array_append_new(e, jnum(f->cv_rms[k]));
        json_object_set_new(cv, "folds", json_integer(f->cv_folds));
        json_object_set_new(cv, "rms_log_error_left_out", e);
        json_object_set_new(cv, "fitted", json_integer(f->cv_k));
        json_object_set_new(o, "cross_validation", cv);
    }
}

json_t *pt_calib_runs_json(const pt_calib_runs *r, const pt_calib_level *levels, const char *const *nccl_files,
                           int nlevels)
{
    json_t *o = json_object(), *rows = json_array(), *nc = json_array();
    if (!o || !rows || !nc) {
        json_decref(o), json_decref(rows), json_decref(nc);
        return NULL;
    }
    json_object_set_new(o, "device", json_string(r->cluster.dev.name));
    json_object_set_new(o, "cluster", json_string(r->cluster.name));
    json_object_set_new(o, "rows_fitted", json_integer(r->nrows));
    json_object_set_new(o, "rows_other_device", json_integer(r->other_device));
    json_object_set_new(o, "rows_not_used", json_integer(r->unused));
    fit_summary(o, &r->fit);
    for (int i = 0; i < r->nrows; i++) {
        const pt_calib_row *w = &r->rows[i];
        json_t *x = json_object();
        if (!x) continue;
        json_object_set_new(x, "line", json_integer(w->line));
        json_object_set_new(x, "model", json_string(w->model));
        json_object_set_new(x, "metric", json_string(w->metric));
        json_object_set_new(x, "gpus", json_integer((json_int_t)w->gpus));
        json_object_set_new(x, "measured_step_s", jnum(w->measured_s));
        json_object_set_new(x, "predicted_before_s", jnum(w->before_s));
        json_object_set_new(x, "predicted_after_s", jnum(w->after_s));
        json_object_set_new(x, "error_before", jnum(w->before_s / w->measured_s - 1.0));
        json_object_set_new(x, "error_after", jnum(w->after_s / w->measured_s - 1.0));
        json_array_append_new(rows, x);
    }
    json_object_set_new(o, "rows", rows);
    for (int i = 0; i < nlevels; i++) {
        const pt_calib_level *l = &levels[i];
        json_t *x = json_object();
        if (!x) continue;
        json_object_set_new(x, "file", json_string(nccl_files[i]));
        json_object_set_new(x, "level", json_string(r->cluster.level[l->level].name));
        json_object_set_new(x, "busbw_GBps", jnum(l->busbw_GBps));
        json_object_set_new(x, "efficiency", jnum(l->efficiency));
        json_object_set_new(x, "se", jnum(l->se));
        json_object_set_new(x, "bw_GBps", jnum(l->bw_GBps));
        json_object_set_new(x, "points", json_integer(l->points));
        json_array_append_new(nc, x);
    }
    json_object_set_new(o, "nccl", nc);
    return o;
}

char *pt_calib_statef_csv(const pt_calib_statef *s)
{
    size_t cap = 64 + (size_t)s->n * 64, len;
    char *t = malloc(cap);
    double done[256];
    int nd = 0;
    if (!t) return NULL;
    len = (size_t)snprintf(t, cap, "batch,epochs\n");
    for (int i = 0; i < s->n; i++) {
        int dup = 0;
        for (int j = 0; j < nd; j++)
            if (done[j] == s->batch[i]) dup = 1;
        if (dup) continue;
        done[nd++] = s->batch[i];
        len += (size_t)snprintf(t + len, cap - len, "%.10g,%.10g\n", s->batch[i],
                                s->se.e_min * (1.0 + s->batch[i] / s->se.b_noise));
    }
    return t;
}

json_t *pt_calib_statef_json(const pt_calib_statef *s)
{
    json_t *o = json_object(), *rows = json_array();
    if (!o || !rows) {
        json_decref(o), json_decref(rows);
        return NULL;
    }
    json_object_set_new(o, "workload", json_string(s->workload));
    json_object_set_new(o, "target", json_string(s->target));
    json_object_set_new(o, "e_min", jnum(s->se.e_min));
    json_object_set_new(o, "e_min_se", jnum(s->se.e_min_se));
    json_object_set_new(o, "b_noise", jnum(s->se.b_noise));
    json_object_set_new(o, "b_noise_se", jnum(s->se.b_noise_se));
    fit_summary(o, &s->fit);
    for (int i = 0; i < s->n; i++) {
        json_t *x = json_object();
        if (!x) continue;
        json_object_set_new(x, "line", json_integer(s->lines[i]));
        json_object_set_new(x, "global_batch", jnum(s->batch[i]));
        json_object_set_new(x, "epochs", jnum(s->epochs[i]));
        json_object_set_new(x, "predicted_before", jnum(s->epochs[i] * exp(s->fit.before[i])));
        json_object_set_new(x, "predicted_after", jnum(s->epochs[i] * exp(s->fit.after[i])));
        json_array_append_new(rows, x);
    }
    json_object_set_new(o, "rows", rows);
    return o;
}
