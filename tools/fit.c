/*
 * fit.c -- fits the A100 efficiency constants of data/devices.json (and the
 * link efficiencies of dgx-a100-80g in data/clusters.json) to the measured
 * runs, by least squares on the log step-time error of every step-time /
 * throughput row on the FIT half of the data (even CSV lines), with the
 * fitter `partita calibrate` uses (src/validate/calib.c: GSL's trust-region
 * solver in log space, standard errors from the Jacobian; it replaced a
 * Nelder-Mead on the mean absolute log error).  The odd lines are held out
 * and only reported.  Only rows on the device being fitted count:
 * a row's device is the one validate prices it on (the GPU name mapped by
 * data/gpus.json, src/hw/gpus.c), and it must begin with --device (default
 * "a100": A100-SXM4-80GB, A100-80GB, A100 (single node) and the 40 GB part,
 * which carry the same constants); every other row (H100, B200, ...) is
 * skipped and counted.  The fit starts from the catalog's constants of the
 * first such row's device.  Usage:
 *   build/fit data/validation/published_runs.csv \
 *             data/validation/single_node_runs.csv
 * or, for the V100 constants (and the V100 clusters' level efficiencies),
 *   build/fit --device v100 data/validation/time_to_train_runs.csv
 * --iterations N (default 200) bounds the trust-region iterations
 * (tests/e2e/fit.sh uses a few).  --device takes a comma-separated list
 * (one set of constants for a generation: "b200,b300,gb200,gb300"),
 * --start PREFIX starts from another device's catalog constants (the
 * Hopper ones for Blackwell), --hold-gemm leaves every device's GEMM
 * efficiency at the catalog's (the measured matmul rate of each part, which
 * tests/test_roofline.c bounds), --hold-half the GEMM ramp (gemm_half_GFLOP,
 * measured on Hopper: data/kernels/h200) and --hold-links every cluster's link
 * efficiencies (clusters of several kinds in one fit).  Prints the constants (with their
 * standard errors and which were held), the rows skipped as another
 * device's, and the error on each half.  It is a tool for the
 * maintainers, not part of partita; the numbers it printed are what
 * data/devices.json carries, with its output quoted there.
 */
#include "base/base.h"
#include "validate/calib.h"
#include "validate/validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NP 7
#define MAXF 4

static const char *names[NP] = {"gemm_eff", "gemm_half_GFLOP", "attn_eff", "mem_eff",
                                "kernel_us", "nvlink_eff", "network_eff"};
static const double lo[NP] = {0.3, 0.01, 0.2, 0.3, 0.1, 0.3, 0.1};
static const double hi[NP] = {0.98, 20.0, 0.95, 1.0, 300.0, 1.0, 1.0};

typedef struct data {
    const char *device;  /* prefix of the fitted device's name, e.g. "a100" */
    int nfiles;
    char *text[MAXF];
    const char *file[MAXF];
    int n;               /* residuals: fit-half rows on the device, all files */
    double wsum;         /* sum of the file weights of the files with rows */
    double *irls;        /* per residual: 1 / max(|last log error|, IRLS_FLOOR), or NULL */
    double *file_w;      /* per residual: its file's weight w_f N / (n_f W), or NULL */
} data;

/* Iteratively reweighted least squares (Holland & Welsch 1977): each round
 * divides a row's squared log error by its size in the round before, so the
 * rounds minimise the weighted mean |log error| -- the loss the constants
 * were first fitted on -- with the least-squares fitter.  Errors under
 * IRLS_FLOOR count as that (no division by zero). */
#define IRLS_ROUNDS 10
#define IRLS_FLOOR 0.005

static int hold_links; /* --hold-links: each cluster keeps its own link efficiencies */
static int hold_gemm;  /* --hold-gemm: each device keeps its own (measured) GEMM efficiency */
static int hold_half;  /* --hold-half: the GEMM ramp stays the catalog's (measured) */

static void to_calib(const double *x, pt_vcalib *k)
{
    memset(k, 0, sizeof *k);
    k->gemm_eff = x[0];
    k->gemm_half_GFLOP = x[1];
    k->attn_eff = x[2];
    k->mem_eff = x[3];
    k->kernel_us = x[4];
    k->level_eff[0] = x[5];
    k->level_eff[1] = x[6];
    k->level_eff[2] = x[6];
    k->level_eff[3] = x[6];
    if (hold_gemm) k->gemm_eff = 0; /* 0: validate keeps the device's own */
    if (hold_links) /* 0: validate keeps the catalog cluster's own */
        for (int j = 0; j < PT_MAX_LEVELS; j++) k->level_eff[j] = 0;
}

/* Whether the device name begins with one of the comma-separated prefixes
 * of list ("b200,b300,gb200,gb300": the Blackwell parts). */
static int name_in(const char *name, const char *list)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n && !strncmp(name, p, n)) return 1;
        p += n;
        if (*p == ',') p++;
    }
    return 0;
}

/* a row priced on the fitted device (validate's own mapping of its GPU name) */
static int on_device(const data *D, const pt_vrow *r)
{
    return name_in(r->cluster_v.dev.name, D->device);
}

typedef struct half_sel {
    const data *D;
    int half;  /* 0: even lines (fit), 1: odd lines (held out) */
} half_sel;

static int keep_half(const pt_vrow *r, void *arg)
{
    const half_sel *h = arg;
    return r->is_time && (r->line % 2) == h->half && on_device(h->D, r);
}

/* The residuals of the fit half at x: sqrt(w_f N / (n_f W)) ln(pred/meas)
 * for each of the n_f rows of file f (N rows in all, W the sum of the file
 * weights), so the sum of squares is N/W sum_f w_f mean_f (ln error)^2 and
 * the weights average 1 (calib.h's sensitivity threshold is per row); the
 * first file (published multi-node runs, the figure the README reports)
 * weighs 3, every other file 1, so the 1,440 single-node rows do not drown
 * the 96 published ones.  Each is further weighted by D->irls.  With r NULL
 * it only counts them (into D->n and D->wsum). */
static pt_status resid(const double *x, double *r, void *arg, pt_diag *d)
{
    data *D = arg;
    pt_vcalib k;
    half_sel h = {D, 0};
    int m = 0;
    double wsum = 0;
    to_calib(x, &k);
    for (int f = 0; f < D->nfiles; f++) {
        pt_vresult v;
        int nf = 0, at = m;
        double w = f == 0 ? 3.0 : 1.0;
        pt_status st;
        if ((st = pt_validate_csv(D->text[f], D->file[f], &k, &v, d)) != PT_OK) return st;
        for (int i = 0; i < v.n; i++)
            if (!v.rows[i].skipped[0] && keep_half(&v.rows[i], &h)) nf++;
        for (int i = 0; i < v.n; i++) {
            const pt_vrow *row = &v.rows[i];
            if (row->skipped[0] || !keep_half(row, &h)) continue;
            if (r && m < D->n) {
                double c = w * D->n / (nf * D->wsum);
                if (D->file_w) D->file_w[m] = c;
                r[m] = sqrt(c * (D->irls ? D->irls[m] : 1.0)) * log(row->predicted / row->measured);
            }
            m++;
        }
        if (nf) wsum += w;
        (void)at;
        pt_validate_free(&v);
    }
    if (!r) D->n = m, D->wsum = wsum;
    else if (m != D->n)
        return pt_diag_set(d, NULL, NULL, NULL, "the rows fitted changed from %d to %d", D->n, m);
    return PT_OK;
}

/* Sets D->irls from the log errors at x (r: scratch of D->n); returns the
 * weighted mean |log error| there, sum_i c_i |l_i| / N. */
static double reweight(data *D, const double *x, double *r)
{
    pt_diag d;
    double s = 0;
    free(D->irls);
    D->irls = NULL;
    if (resid(x, r, D, &d) != PT_OK) {
        fprintf(stderr, "fit: %s\n", d.msg);
        exit(2);
    }
    if (!(D->irls = malloc((size_t)D->n * sizeof *D->irls))) exit(2);
    for (int i = 0; i < D->n; i++) {
        double e = fabs(r[i]) / sqrt(D->file_w[i]);
        s += D->file_w[i] * e;
        D->irls[i] = 1.0 / (e > IRLS_FLOOR ? e : IRLS_FLOOR);
    }
    return s / D->n;
}

/* Prints the error on one half of every file at x. */
static void report(const data *D, const double *x, int half)
{
    pt_vcalib k;
    half_sel h = {D, half};
    to_calib(x, &k);
    for (int f = 0; f < D->nfiles; f++) {
        pt_vresult r;
        pt_diag d;
        int other = 0;
        if (pt_validate_csv(D->text[f], D->file[f], &k, &r, &d) != PT_OK) {
            fprintf(stderr, "%s\n", d.msg);
            exit(2);
        }
        for (int i = 0; i < r.n; i++) {
            const pt_vrow *w = &r.rows[i];
            if (!w->skipped[0] && w->is_time && (w->line % 2) == half && !on_device(D, w)) other++;
        }
        pt_validate_summary(&r, keep_half, &h);
        printf("  %-50s %s half: %4d rows, mean |error| %5.1f%%, worst %5.1f%%; "
               "%d rows not on %s skipped\n",
               D->file[f], half == 0 ? "fit " : "held", r.time_rows, 100 * r.time_mean_abs_error,
               100 * r.time_worst_abs_error, other, D->device);
        pt_validate_free(&r);
    }
}

/* The catalog's constants of the first row on a device of the list start
 * (the fitted devices by default; --start h100: the Hopper constants). */
static int start_point(const data *D, const char *start, double *x0)
{
    for (int f = 0; f < D->nfiles; f++) {
        pt_vresult r;
        pt_diag d;
        if (pt_validate_csv(D->text[f], D->file[f], NULL, &r, &d) != PT_OK) {
            fprintf(stderr, "%s\n", d.msg);
            exit(2);
        }
        for (int i = 0; i < r.n; i++) {
            const pt_vrow *w = &r.rows[i];
            if (w->skipped[0] || !name_in(w->cluster_v.dev.name, start)) continue;
            x0[0] = w->cluster_v.dev.gemm_eff;
            x0[1] = w->cluster_v.dev.gemm_half_GFLOP;
            x0[2] = w->cluster_v.dev.attn_eff;
            x0[3] = w->cluster_v.dev.mem_eff;
            x0[4] = w->cluster_v.dev.kernel_us;
            x0[5] = w->cluster_v.level[0].efficiency;
            x0[6] = w->cluster_v.nlevels > 1 ? w->cluster_v.level[w->cluster_v.nlevels - 1].efficiency : x0[5];
            pt_validate_free(&r);
            return 1;
        }
        pt_validate_free(&r);
    }
    return 0;
}

int main(int argc, char **argv)
{
    data D;
    double x0[NP] = {0.8, 0.5, 0.5, 0.7, 30.0, 0.8, 0.8}, x[NP];
    pt_calib_param prm[NP];
    pt_calib_fit fit;
    double *rr = NULL, l1 = 0, l1_start = 0;
    int iterations = 0;
    const char *start = NULL;
    memset(&fit, 0, sizeof fit);
    pt_diag d;
    memset(&D, 0, sizeof D);
    D.device = "a100";
    for (int i = 1; i < argc && D.nfiles < MAXF; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            D.device = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--start") && i + 1 < argc) {
            start = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--hold-gemm")) {
            hold_gemm = 1;
            continue;
        }
        if (!strcmp(argv[i], "--hold-half")) {
            hold_half = 1;
            continue;
        }
        if (!strcmp(argv[i], "--hold-links")) {
            hold_links = 1;
            continue;
        }
        if (!strcmp(argv[i], "--iterations") && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 1000000) {
                fprintf(stderr, "fit: --iterations %s is not a whole number in [1, 1000000]\n", argv[i]);
                return 2;
            }
            iterations = (int)v;
            continue;
        }
        if (pt_read_file(argv[i], &D.text[D.nfiles], &d) != PT_OK) {
            fprintf(stderr, "%s\n", d.msg);
            return 2;
        }
        D.file[D.nfiles++] = argv[i];
    }
    if (!D.nfiles) {
        fprintf(stderr, "usage: fit [--device PREFIX[,PREFIX...]] [--start PREFIX] [--hold-gemm] [--hold-half] [--hold-links] "
                        "[--iterations N] RUNS.csv ...\n");
        return 2;
    }
    start_point(&D, start ? start : D.device, x0);
    if (resid(x0, NULL, &D, &d) != PT_OK || D.n == 0) {
        fprintf(stderr, "fit: no step-time row on %s in the fit half%s%s\n", D.device, D.n ? ": " : "",
                D.n ? d.msg : "");
        return 2;
    }
    memset(prm, 0, sizeof prm);
    for (int j = 0; j < NP; j++) {
        pt_strlcpy(prm[j].name, names[j], sizeof prm[j].name);
        prm[j].value = x0[j] < lo[j] ? lo[j] : x0[j] > hi[j] ? hi[j] : x0[j];
        prm[j].lo = lo[j];
        prm[j].hi = hi[j];
        prm[j].candidate = !(hold_links && j >= 5) && !(hold_gemm && j == 0) && !(hold_half && j == 1);
    }
    if (!(D.irls = malloc((size_t)D.n * sizeof *D.irls)) || !(D.file_w = malloc((size_t)D.n * sizeof *D.file_w)) ||
        !(rr = malloc((size_t)D.n * sizeof *rr)))
        return 2;
    /* the first weights: the log errors at the catalog's constants */
    for (int j = 0; j < NP; j++) x[j] = prm[j].value;
    l1_start = reweight(&D, x, rr);
    for (int round = 0; round < IRLS_ROUNDS; round++) {
        if (round) pt_calib_fit_free(&fit);
        if (pt_calib_lsq(resid, &D, D.n, NP, prm, 0, iterations, &fit, &d) != PT_OK) {
            fprintf(stderr, "fit: %s\n", d.msg);
            return 2;
        }
        for (int j = 0; j < NP; j++) x[j] = fit.param[j].value;
        l1 = reweight(&D, x, rr);
    }
    /* least squares reweighted is not the least-absolute optimum to the
     * last digit: keep the catalog's constants where they are no worse */
    if (!(l1 < l1_start)) {
        for (int j = 0; j < NP; j++) x[j] = prm[j].value;
        printf("the refit's weighted mean |log error| %.5f is not below the catalog's %.5f: "
               "the catalog's constants are kept\n", l1, l1_start);
    } else {
        printf("weighted mean |log error| on the fit half: %.5f, from %.5f at the catalog's constants\n", l1,
               l1_start);
    }
    printf("fitted (%d rows, %d constants fitted, %d degrees of freedom, %d rounds of reweighting; "
           "rms weighted log error %.4f, from %.4f at the catalog's constants):\n",
           D.n, fit.nfit, fit.dof, IRLS_ROUNDS, fit.rms_after, fit.rms_before);
    for (int j = 0; j < NP; j++) printf("  %-16s %.4g\n", names[j], x[j]);
    printf("the last least-squares round (value +- standard error; held: why):\n");
    for (int j = 0; j < NP; j++) {
        if (fit.param[j].state == PT_CALIB_FITTED)
            printf("    %-16s %.4g +- %.3g (from %.4g)\n", names[j], fit.param[j].value, fit.param[j].se,
                   fit.param[j].def);
        else
            printf("    %-16s %.4g %s\n", names[j], fit.param[j].value, pt_calib_state_text(fit.param[j].state));
    }
    report(&D, x, 0);
    report(&D, x, 1);
    printf("at the catalog's constants:\n");
    report(&D, x0, 0);
    report(&D, x0, 1);
    pt_calib_fit_free(&fit);
    free(D.irls);
    free(rr);
    free(D.file_w);
    for (int f = 0; f < D.nfiles; f++) free(D.text[f]);
    return 0;
}
