/*
 * test_calib.c -- the calibration fitter (src/validate/calib.c): known
 * parameters recovered from synthetic rows within their standard errors, the
 * honest degrees of freedom (3 rows fit at most 3 of 4 parameters), bounds,
 * the nccl-tests reader on tests/data/nccl/ and its refusals, and E_min /
 * B_noise from a time-to-train CSV.
 */
#include <math.h>

#include "helpers.h"
#include "base/base.h"
#include "validate/calib.h"

/* A synthetic step: compute + memory + launch terms, like the roofline's
 * (src/cost/roofline.h), with parameters x = {gemm_eff, mem_eff, kernel_us,
 * link_eff}: t_i = F_i / x0 + B_i / x1 + K_i x2 1e-6 + C_i / x3. */
typedef struct synth {
    int n;
    double F[40], B[40], K[40], C[40];
    double meas[40];
} synth;

static double synth_step(const synth *s, int i, const double *x)
{
    return s->F[i] / x[0] + s->B[i] / x[1] + s->K[i] * x[2] * 1e-6 + s->C[i] / x[3];
}

static pt_status synth_resid(const double *x, double *r, void *arg, pt_diag *d)
{
    const synth *s = arg;
    (void)d;
    for (int i = 0; i < s->n; i++) r[i] = log(synth_step(s, i, x) / s->meas[i]);
    return PT_OK;
}

/* Deterministic noise in [-1, 1] (a 32-bit LCG, Numerical Recipes' constants). */
static double noise(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (double)(*state >> 8) / (double)(1u << 23) - 1.0;
}

static void synth_rows(synth *s, int n, const double *truth, double rel_noise)
{
    unsigned st = 12345u;
    s->n = n;
    for (int i = 0; i < n; i++) {
        /* rows that lean on different terms, as jobs of different shapes do */
        s->F[i] = 0.5 + 0.4 * (i % 5);
        s->B[i] = 0.05 + 0.08 * ((i * 3) % 7);
        s->K[i] = 40000.0 * ((i * 7) % 4);
        s->C[i] = 0.03 * ((i * 5) % 6);
        s->meas[i] = synth_step(s, i, truth) * (1.0 + rel_noise * noise(&st));
    }
}

static void params4(pt_calib_param *p)
{
    static const char *const names[4] = {"gemm_eff", "mem_eff", "kernel_us", "link_eff"};
    static const double def[4] = {0.7, 0.7, 4.0, 0.8};
    memset(p, 0, 4 * sizeof *p);
    for (int j = 0; j < 4; j++) {
        pt_strlcpy(p[j].name, names[j], sizeof p[j].name);
        p[j].value = def[j];
        p[j].lo = j == 2 ? 0.1 : 0.01;
        p[j].hi = j == 2 ? 1000.0 : 1.0;
        p[j].candidate = 1;
    }
}

/* 30 rows with 1% noise: every parameter recovered within 3 standard errors,
 * and each standard error is small (the rows constrain all four). */
static void test_recovers_known_parameters(void **state)
{
    static const double truth[4] = {0.82, 0.55, 12.0, 0.65};
    synth s;
    pt_calib_param p[4];
    pt_calib_fit f;
    pt_diag d;
    (void)state;
    synth_rows(&s, 30, truth, 0.01);
    params4(p);
    assert_int_equal(pt_calib_lsq(synth_resid, &s, s.n, 4, p, 0, 0, &f, &d), PT_OK);
    assert_int_equal(f.nfit, 4);
    assert_int_equal(f.dof, 26);
    for (int j = 0; j < 4; j++) {
        assert_int_equal(f.param[j].state, PT_CALIB_FITTED);
        assert_true(isfinite(f.param[j].se) && f.param[j].se > 0);
        if (fabs(f.param[j].value - truth[j]) > 3 * f.param[j].se)
            fail_msg("%s: fitted %g +- %g, truth %g", f.param[j].name, f.param[j].value, f.param[j].se, truth[j]);
        /* 1% noise on 30 rows: each within 10% of its value */
        assert_true(f.param[j].se < 0.1 * f.param[j].value);
        assert_true(f.param[j].def == p[j].value);
    }
    /* the residual sd estimates the 1% noise (uniform on [-1%, 1%]: sd 0.58%) */
    assert_true(f.sigma > 0.003 && f.sigma < 0.009);
    assert_true(f.rms_after < f.rms_before);
    pt_calib_fit_free(&f);
}

/* Noise-free rows: the fit is exact. */
static void test_exact_without_noise(void **state)
{
    static const double truth[4] = {0.9, 0.45, 30.0, 0.5};
    synth s;
    pt_calib_param p[4];
    pt_calib_fit f;
    pt_diag d;
    (void)state;
    synth_rows(&s, 12, truth, 0.0);
    params4(p);
    assert_int_equal(pt_calib_lsq(synth_resid, &s, s.n, 4, p, 0, 0, &f, &d), PT_OK);
    for (int j = 0; j < 4; j++) th_near_rel(f.param[j].value, truth[j], 1e-5, f.param[j].name);
    assert_true(f.rms_after < 1e-7);
    pt_calib_fit_free(&f);
}

/* Three rows, four parameters: three fitted, one held (at its default), no
 * degrees of freedom left, so no standard error -- but se_unit says how
 * far each moves per unit of row noise. */
static void test_three_rows_hold_one(void **state)
{
    static const double truth[4] = {0.82, 0.55, 12.0, 0.65};
    synth s;
    pt_calib_param p[4];
    pt_calib_fit f;
    pt_diag d;
    int held = -1, fitted = 0;
    (void)state;
    synth_rows(&s, 3, truth, 0.0);
    params4(p);
    assert_int_equal(pt_calib_lsq(synth_resid, &s, s.n, 4, p, 0, 0, &f, &d), PT_OK);
    assert_int_equal(f.nfit, 3);
    assert_int_equal(f.dof, 0);
    assert_true(isnan(f.sigma));
    for (int j = 0; j < 4; j++) {
        if (f.param[j].state == PT_CALIB_FITTED) {
            fitted++;
            assert_true(isnan(f.param[j].se));
            assert_true(isfinite(f.param[j].se_unit) && f.param[j].se_unit > 0);
        } else {
            held = j;
            assert_true(f.param[j].state == PT_CALIB_HELD_DOF || f.param[j].state == PT_CALIB_HELD_WEAK);
            assert_true(f.param[j].value == p[j].value);
        }
    }
    assert_int_equal(fitted, 3);
    assert_true(held >= 0);
    /* three rows, three free parameters: the rows are matched */
    assert_true(f.rms_after < 1e-6);
    pt_calib_fit_free(&f);
}

/* A parameter the rows never move is held, not fitted: with C_i = 0 the
 * link term is absent. */
static void test_unconstrained_is_held(void **state)
{
    static const double truth[4] = {0.82, 0.55, 12.0, 0.65};
    synth s;
    pt_calib_param p[4];
    pt_calib_fit f;
    pt_diag d;
    (void)state;
    synth_rows(&s, 10, truth, 0.0);
    for (int i = 0; i < s.n; i++) {
        s.C[i] = 0;
        s.meas[i] = synth_step(&s, i, truth);
    }
    params4(p);
    assert_int_equal(pt_calib_lsq(synth_resid, &s, s.n, 4, p, 0, 0, &f, &d), PT_OK);
    assert_int_equal(f.param[3].state, PT_CALIB_HELD_WEAK);
    assert_true(f.param[3].value == 0.8);
    assert_true(f.param[3].sensitivity < PT_CALIB_MIN_SENS);
    assert_int_equal(f.nfit, 3);
    pt_calib_fit_free(&f);
}

/* A true value past the bound: held at the bound, the rest refitted. */
static void test_bound_held(void **state)
{
    static const double truth[4] = {1.4, 0.55, 12.0, 0.65}; /* gemm_eff 1.4 > 1 */
    synth s;
    pt_calib_param p[4];
    pt_calib_fit f;
    pt_diag d;
    (void)state;
    synth_rows(&s, 20, truth, 0.0);
    params4(p);
    assert_int_equal(pt_calib_lsq(synth_resid, &s, s.n, 4, p, 0, 0, &f, &d), PT_OK);
    assert_int_equal(f.param[0].state, PT_CALIB_HELD_BOUND);
    assert_true(f.param[0].value == 1.0);
    /* the others make up for it as they can, and stay inside their bounds
     * (or are held at them too) */
    for (int j = 1; j < 4; j++) {
        assert_true(f.param[j].state == PT_CALIB_FITTED || f.param[j].state == PT_CALIB_HELD_BOUND);
        assert_true(f.param[j].value >= p[j].lo && f.param[j].value <= p[j].hi);
    }
    assert_true(f.nfit >= 1 && f.rms_after < f.rms_before);
    pt_calib_fit_free(&f);
}

/* A default outside its bounds is refused, naming the parameter. */
/* One parameter, a pure compute step t_i = F_i / x (F_i = 1): residual
 * r_i = -ln x - ln m_i = a_i - u with u = ln x, a_i = -ln m_i.  A plain fit
 * makes u the mean of the a_i; with a prior of sd s about u0 the fit
 * minimises sum (u - a_i)^2 + w^2 (u - u0)^2, w = PT_CALIB_ROW_SD / s,
 * whose minimum is u = (sum a_i + w^2 u0) / (n + w^2) (calib.h).  Rows at
 * steps 1/0.5, 1/0.6, 1/0.9 (x = 0.5, 0.6, 0.9 each), default 0.7, s = 0.25:
 * w^2 = (0.08 / 0.25)^2 = 0.1024, u = (ln 0.5 + ln 0.6 + ln 0.9 + 0.1024 ln
 * 0.7) / 3.1024.  The prior also gives a standard error with no degree of
 * freedom left: x sqrt(1 / (n + w^2)) PT_CALIB_ROW_SD. */
static void test_prior_map(void **state)
{
    static const double xs[3] = {0.5, 0.6, 0.9};
    synth s;
    pt_calib_param p[1];
    pt_calib_fit f;
    pt_diag d;
    double w2 = (PT_CALIB_ROW_SD / 0.25) * (PT_CALIB_ROW_SD / 0.25), u, plain;
    (void)state;
    memset(&s, 0, sizeof s);
    s.n = 3;
    for (int i = 0; i < 3; i++) s.F[i] = 1.0, s.meas[i] = 1.0 / xs[i];
    memset(p, 0, sizeof p);
    pt_strlcpy(p[0].name, "gemm_eff", sizeof p[0].name);
    p[0].value = 0.7, p[0].lo = 0.01, p[0].hi = 1.0, p[0].candidate = 1;
    /* the other three terms of synth_step are 0 (B, K, C rows) at x = 1 */
    {
        pt_calib_param q[4];
        params4(q);
        q[0] = p[0];
        for (int j = 1; j < 4; j++) q[j].candidate = 0;
        assert_int_equal(pt_calib_lsq(synth_resid, &s, 3, 4, q, 0, 0, &f, &d), PT_OK);
        plain = log(f.param[0].value);
        th_near_rel(plain, (log(0.5) + log(0.6) + log(0.9)) / 3.0, 1e-6, "plain fit: the mean of ln x_i");
        pt_calib_fit_free(&f);
        q[0].prior_sd = 0.25;
        assert_int_equal(pt_calib_lsq(synth_resid, &s, 3, 4, q, 0, 0, &f, &d), PT_OK);
        u = (log(0.5) + log(0.6) + log(0.9) + w2 * log(0.7)) / (3.0 + w2);
        th_near_rel(log(f.param[0].value), u, 1e-6, "MAP fit with the prior");
        assert_true(log(f.param[0].value) > plain); /* pulled towards ln 0.7 */
        assert_int_equal(f.dof, 2);
        pt_calib_fit_free(&f);
        /* one row: no dof, yet a standard error from the prior's row noise */
        s.n = 1;
        assert_int_equal(pt_calib_lsq(synth_resid, &s, 1, 4, q, 0, 0, &f, &d), PT_OK);
        u = (log(0.5) + w2 * log(0.7)) / (1.0 + w2);
        th_near_rel(log(f.param[0].value), u, 1e-6, "MAP fit of one row");
        assert_int_equal(f.dof, 0);
        th_near_rel(f.param[0].se, f.param[0].value * sqrt(1.0 / (1.0 + w2)) * PT_CALIB_ROW_SD, 1e-3,
                    "the prior's standard error");
        pt_calib_fit_free(&f);
    }
}

/* The number fitted chosen by leave-one-out (pt_calib_lsq_cv), worked by
 * hand with one parameter: rows of a pure compute step t = 1 / x measured
 * at x_i = 0.7 e^(a_i) (the default 0.7), so the residual of row i at x is
 * a_i - ln(x / 0.7).  Fitting nothing leaves row i off by a_i; fitting x
 * to the other two rows sets ln(x / 0.7) to their mean a, leaving row i
 * off by a_i - mean(others).
 *  - a = (-0.2, 0, 0.2): 0.02667 fitting 0, (0.09 + 0 + 0.09) / 3 = 0.06
 *    fitting 1: nothing is fitted, gemm_eff held by the cross-validation.
 *  - a = (0.2, 0.2, 0): 0.02667 fitting 0, (0.01 + 0.01 + 0.04) / 3 = 0.02
 *    fitting 1, whose squared errors' standard error is sqrt(((-0.01)^2 2
 *    + 0.02^2) / 2 / 3) = 0.01: 0.02667 <= 0.03, so the one-standard-error
 *    rule still fits nothing.
 *  - a = (0.3, 0.3, 0.1): 0.06333 fitting 0, 0.02 (+- 0.01) fitting 1: one
 *    is fitted, to all three rows: ln(x / 0.7) = mean(a) = 0.23333. */
static void test_cross_validation(void **state)
{
    static const double a[3][3] = {{-0.2, 0.0, 0.2}, {0.2, 0.2, 0.0}, {0.3, 0.3, 0.1}};
    static const double mse[3][2] = {{0.08 / 3, 0.06}, {0.08 / 3, 0.02}, {0.19 / 3, 0.02}};
    synth s;
    pt_calib_param q[4];
    pt_calib_fit f;
    pt_diag d;
    (void)state;
    params4(q);
    for (int j = 1; j < 4; j++) q[j].candidate = 0;
    for (int c = 0; c < 3; c++) {
        memset(&s, 0, sizeof s);
        s.n = 3;
        for (int i = 0; i < 3; i++) s.F[i] = 1.0, s.meas[i] = 1.0 / (0.7 * exp(a[c][i]));
        assert_int_equal(pt_calib_lsq_cv(synth_resid, &s, 3, 4, q, 0, &f, &d), PT_OK);
        assert_int_equal(f.cv_folds, 3);
        assert_int_equal(f.cv_kmax, 1);
        th_near_rel(f.cv_rms[0] * f.cv_rms[0], mse[c][0], 1e-6, "left-out error fitting nothing");
        th_near_rel(f.cv_rms[1] * f.cv_rms[1], mse[c][1], 1e-5, "left-out error fitting gemm_eff");
        if (c < 2) {
            assert_int_equal(f.cv_k, 0);
            assert_int_equal(f.nfit, 0);
            assert_int_equal(f.param[0].state, PT_CALIB_HELD_CV);
            assert_true(f.param[0].value == 0.7);
        } else {
            assert_int_equal(f.cv_k, 1);
            assert_int_equal(f.nfit, 1);
            assert_int_equal(f.param[0].state, PT_CALIB_FITTED);
            th_near_rel(log(f.param[0].value / 0.7), 0.7 / 3.0, 1e-5, "fitted to all three rows");
        }
        pt_calib_fit_free(&f);
    }
    /* one row: nothing to leave out, fitted as pt_calib_lsq fits it */
    s.n = 1;
    assert_int_equal(pt_calib_lsq_cv(synth_resid, &s, 1, 4, q, 0, &f, &d), PT_OK);
    assert_int_equal(f.cv_folds, 0);
    assert_int_equal(f.nfit, 1);
    pt_calib_fit_free(&f);
}

static void test_bad_default(void **state)
{
    synth s;
    pt_calib_param p[4];
    pt_calib_fit f;
    pt_diag d;
    static const double truth[4] = {0.82, 0.55, 12.0, 0.65};
    (void)state;
    synth_rows(&s, 5, truth, 0.0);
    params4(p);
    p[1].value = 0;
    assert_int_equal(pt_calib_lsq(synth_resid, &s, s.n, 4, p, 0, 0, &f, &d), PT_EINPUT);
    assert_string_equal(d.field, "mem_eff");
}

/* tests/data/nccl/all_reduce_perf_8xh100.txt: one DGX H100 node, written
 * with a large-message busbw of 360 GB/s = 0.8 x NVLink's 450, so the fit
 * gives nvlink efficiency 0.8 (within the 1% jitter the file carries). */
static void test_nccl_all_reduce(void **state)
{
    char *text;
    pt_calib_nccl *t = malloc(sizeof *t);
    pt_calib_level lv;
    pt_cluster c;
    pt_diag d;
    const char *file = "tests/data/nccl/all_reduce_perf_8xh100.txt";
    (void)state;
    assert_non_null(t);
    assert_int_equal(pt_read_file(file, &text, &d), PT_OK);
    assert_int_equal(pt_calib_nccl_parse(text, file, t, &d), PT_OK);
    assert_string_equal(t->collective, "all_reduce_perf");
    assert_int_equal(t->op, PT_ALLREDUCE);
    assert_int_equal(t->ranks, 8);
    assert_int_equal(t->hosts, 1);
    assert_int_equal(t->nrows, 31); /* 8 B .. 8 GiB doubling */
    assert_true(t->row[30].bytes == INT64_C(8589934592));
    th_near_rel(t->row[30].busbw_GBps[0], 356.95, 1e-9, "busbw of the last line");
    assert_int_equal(pt_cluster_builtin("dgx-h100", &c, &d), PT_OK);
    assert_int_equal(pt_calib_nccl_level(&c, t, file, &lv, &d), PT_OK);
    assert_int_equal(lv.level, 0);
    th_near_rel(lv.efficiency, 0.8, 0.01, "nvlink efficiency");
    assert_true(lv.se > 0 && lv.se < 0.01);
    assert_true(c.level[0].efficiency == lv.efficiency);
    free(text);
    free(t);
}

/* 16 ranks on two hosts: the level fitted is the one between nodes. */
static void test_nccl_two_nodes(void **state)
{
    char *text;
    pt_calib_nccl *t = malloc(sizeof *t);
    pt_calib_level lv;
    pt_cluster c;
    pt_diag d;
    const char *file = "tests/data/nccl/all_gather_perf_16xh100.txt";
    (void)state;
    assert_non_null(t);
    assert_int_equal(pt_read_file(file, &text, &d), PT_OK);
    assert_int_equal(pt_calib_nccl_parse(text, file, t, &d), PT_OK);
    assert_int_equal(t->op, PT_ALLGATHER);
    assert_int_equal(t->ranks, 16);
    assert_int_equal(t->hosts, 2);
    assert_int_equal(pt_cluster_builtin("dgx-h100", &c, &d), PT_OK);
    assert_int_equal(pt_calib_nccl_level(&c, t, file, &lv, &d), PT_OK);
    assert_int_equal(lv.level, 1);
    assert_true(lv.efficiency > 0.3 && lv.efficiency <= 1.0);
    free(text);
    free(t);
}

/* A run without data checking (-c 0) prints N/A for #wrong; reduce_scatter
 * named by the file name. */
static void test_nccl_unchecked(void **state)
{
    pt_calib_nccl *t = malloc(sizeof *t);
    pt_diag d;
    (void)state;
    assert_non_null(t);
    assert_int_equal(pt_calib_nccl_parse("# nThread 1 nGpus 4\n"
                                         "  1073741824      67108864     float     sum      -1  4100.0  261.89  196.41    N/A  4090.0  262.53  196.90    N/A\n",
                                         "logs/reduce_scatter_perf.txt", t, &d),
                     PT_OK);
    assert_int_equal(t->op, PT_REDUCESCATTER);
    assert_int_equal(t->ranks, 4);
    assert_int_equal(t->nrows, 1);
    th_near_rel(t->row[0].time_us[1], 4090.0, 1e-12, "in-place time");
    free(t);
}

static void nccl_refused(const char *text, const char *field, int line, const char *value)
{
    pt_calib_nccl *t = malloc(sizeof *t);
    pt_diag d;
    assert_non_null(t);
    memset(&d, 0, sizeof d);
    assert_int_equal(pt_calib_nccl_parse(text, "x.txt", t, &d), PT_EINPUT);
    assert_string_equal(d.file, "x.txt");
    assert_string_equal(d.field, field);
    assert_int_equal(d.line, line);
    if (value) assert_string_equal(d.value, value);
    free(t);
}

static void test_nccl_refusals(void **state)
{
    (void)state;
    /* a time that is not a number */
    nccl_refused("# nThread 1 nGpus 8\n"
                 "        1024           256     float     sum      -1    fast    0.05    0.10      0    20.0    0.05    0.10      0\n",
                 "time", 2, "fast");
    /* a negative size */
    nccl_refused("# nThread 1 nGpus 8\n"
                 "       -1024           256     float     sum      -1    20.0    0.05    0.10      0    20.0    0.05    0.10      0\n",
                 "size", 2, "-1024");
    /* a line cut short */
    nccl_refused("# nThread 1 nGpus 8\n"
                 "        1024           256     float     sum      -1    20.0    0.05    0.10      0\n",
                 "time", 2, NULL);
    /* wrong values: the test failed */
    nccl_refused("# nThread 1 nGpus 8\n"
                 "        1024           256     float     sum      -1    20.0    0.05    0.10      3    20.0    0.05    0.10      0\n",
                 "#wrong", 2, "3");
    /* an unknown reduction */
    nccl_refused("        1024           256     float     xor      -1    20.0    0.05    0.10      0    20.0    0.05    0.10      0\n",
                 "redop", 1, "xor");
    /* no table at all */
    nccl_refused("# nThread 1 nGpus 8\n#\n", "size", 2, NULL);
    /* one rank */
    nccl_refused("# nThread 1 nGpus 1\n"
                 "        1024           256     float     sum      -1    20.0    0.05    0.10      0    20.0    0.05    0.10      0\n",
                 "nGpus", 1, NULL);
}

/* Garbage never crashes the reader (ASan checks the reads): 300 random
 * texts of table-like words, comment lines and odd bytes each parse or are
 * refused with a message. */
static void test_nccl_garbage(void **state)
{
    static const char *const words[] = {"#", "# Rank", "# nGpus", "1024", "-1", "sum", "none", "float", "N/A",
                                        "1e999", "nan", "0", "  ", "\t", "\n", "\r\n", "on", "host", "\xff",
                                        "# Collective test starting: all_gather_perf", "99999999999999999999"};
    pt_calib_nccl *t = malloc(sizeof *t);
    char text[2048];
    unsigned st = 7u;
    (void)state;
    assert_non_null(t);
    for (int k = 0; k < 300; k++) {
        size_t n = 0;
        int m = (int)(noise(&st) * 20 + 40);
        for (int i = 0; i < m; i++) {
            const char *w = words[(unsigned)((noise(&st) + 1) * 10.5) % (sizeof words / sizeof words[0])];
            size_t l = strlen(w);
            if (n + l + 2 >= sizeof text) break;
            memcpy(text + n, w, l);
            n += l;
            text[n++] = noise(&st) > 0.6 ? '\n' : ' ';
        }
        text[n] = '\0';
        {
            pt_diag d;
            memset(&d, 0, sizeof d);
            if (pt_calib_nccl_parse(text, "g.txt", t, &d) != PT_OK) assert_true(d.msg[0] != '\0');
        }
    }
    free(t);
}

/* E(B) = 60 (1 + B / 60000) exactly at four batches: E_min and B_noise come
 * back; the file written for --stat-eff holds the curve at those batches. */
static void test_statef(void **state)
{
    const char *csv =
        "source,workload,target,system,accelerator,n_accel,global_batch,epochs_to_target,steps_to_target,"
        "time_to_train_min,notes\n"
        "me,MyNet / data,acc 90%,sys,H100,8,8192,68.192,,10,\n"
        "me,MyNet / data,acc 90%,sys,H100,16,16384,76.384,,10,\n"
        "me,MyNet / data,acc 90%,sys,H100,32,32768,92.768,,10,\n"
        "me,MyNet / data,acc 90%,sys,H100,64,65536,125.536,,10,\n"
        "me,OtherNet / data,acc 1%,sys,H100,64,65536,,,10,\n";
    pt_calib_statef s;
    pt_diag d;
    char *out;
    (void)state;
    assert_int_equal(pt_calib_statef_fit(csv, "t.csv", NULL, &s, &d), PT_OK);
    assert_int_equal(s.n, 4);
    th_near_rel(s.se.e_min, 60.0, 1e-6, "e_min");
    th_near_rel(s.se.b_noise, 60000.0, 1e-6, "b_noise");
    assert_string_equal(s.workload, "MyNet / data");
    out = pt_calib_statef_csv(&s);
    assert_non_null(out);
    assert_true(!strncmp(out, "batch,epochs\n8192,68.192", 24));
    free(out);
    pt_calib_statef_free(&s);
    /* a bad epochs value names line, field and value */
    assert_int_equal(pt_calib_statef_fit("source,workload,target,global_batch,epochs_to_target\n"
                                         "me,W,t,1024,many\n",
                                         "t.csv", NULL, &s, &d),
                     PT_EINPUT);
    assert_int_equal(d.line, 2);
    assert_string_equal(d.field, "epochs_to_target");
    assert_string_equal(d.value, "many");
    /* one batch cannot separate E_min from B_noise */
    assert_int_equal(pt_calib_statef_fit("source,workload,target,global_batch,epochs_to_target\n"
                                         "me,W,t,1024,40\nme,W,t,1024,41\n",
                                         "t.csv", NULL, &s, &d),
                     PT_EINPUT);
    assert_string_equal(d.field, "global_batch");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recovers_known_parameters),
        cmocka_unit_test(test_exact_without_noise),
        cmocka_unit_test(test_three_rows_hold_one),
        cmocka_unit_test(test_unconstrained_is_held),
        cmocka_unit_test(test_bound_held),
        cmocka_unit_test(test_prior_map),
        cmocka_unit_test(test_cross_validation),
        cmocka_unit_test(test_bad_default),
        cmocka_unit_test(test_nccl_all_reduce),
        cmocka_unit_test(test_nccl_two_nodes),
        cmocka_unit_test(test_nccl_unchecked),
        cmocka_unit_test(test_nccl_refusals),
        cmocka_unit_test(test_nccl_garbage),
        cmocka_unit_test(test_statef),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
