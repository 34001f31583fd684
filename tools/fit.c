/*
 * fit.c -- fits the A100 efficiency constants of data/devices.json (and the
 * link efficiencies of dgx-a100-80g in data/clusters.json) to the measured
 * runs, by Nelder-Mead on the mean absolute log error of every step-time /
 * throughput row on the FIT half of the data (even CSV lines); the odd lines
 * are held out and only reported.  Only rows on the device being fitted count:
 * a row's device is the one validate prices it on (the GPU name mapped by
 * data/gpus.json, src/hw/gpus.c), and it must begin with --device (default
 * "a100": A100-SXM4-80GB, A100-80GB, A100 (single node) and the 40 GB part,
 * which carry the same constants); every other row (H100, B200, ...) is
 * skipped and counted.  Usage:
 *   build/fit data/validation/published_runs.csv \
 *             data/validation/single_node_runs.csv
 * or, for the V100 constants (and the V100 clusters' level efficiencies),
 *   build/fit --device v100 data/validation/time_to_train_runs.csv
 * --iterations N (default 1500) bounds the Nelder-Mead steps (tests/e2e/fit.sh
 * uses a few).  Prints the constants, the rows skipped as another device's,
 * and the error on each half.  It is a tool for the
 * maintainers, not part of partita; the numbers it printed are what
 * data/devices.json carries, with its output quoted there.
 */
#include "base/base.h"
#include "validate/validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NP 7
#define MAXF 4

static const char *names[NP] = {"gemm_eff", "gemm_half_GFLOP", "attn_eff", "mem_eff",
                                "kernel_us", "nvlink_eff", "network_eff"};
static const double lo[NP] = {0.3, 0.0, 0.2, 0.3, 0.0, 0.3, 0.1};
static const double hi[NP] = {0.98, 20.0, 0.95, 1.0, 300.0, 1.0, 1.0};

typedef struct data {
    const char *device;  /* prefix of the fitted device's name, e.g. "a100" */
    int nfiles;
    char *text[MAXF];
    const char *file[MAXF];
} data;

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
}

/* a row priced on the fitted device (validate's own mapping of its GPU name) */
static int on_device(const data *D, const pt_vrow *r)
{
    return !strncmp(r->cluster_v.dev.name, D->device, strlen(D->device));
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

/* mean |log(pred/meas)| over the time rows of the chosen half; the first
 * file (published multi-node runs, the figure the README reports) weighs 3,
 * every other file 1, so the 1,440 single-node rows do not drown the 96
 * published ones */
static double loss(const data *D, const double *x, int half, int print)
{
    pt_vcalib k;
    double total = 0;
    half_sel h = {D, half};
    to_calib(x, &k);
    for (int i = 0; i < NP; i++)
        if (x[i] < lo[i] || x[i] > hi[i]) return 1e9;
    for (int f = 0; f < D->nfiles; f++) {
        pt_vresult r;
        pt_diag d;
        double s = 0;
        int n = 0, other = 0;
        if (pt_validate_csv(D->text[f], D->file[f], &k, &r, &d) != PT_OK) {
            fprintf(stderr, "%s\n", d.msg);
            exit(2);
        }
        for (int i = 0; i < r.n; i++) {
            const pt_vrow *w = &r.rows[i];
            if (!w->skipped[0] && w->is_time && (w->line % 2) == half && !on_device(D, w)) other++;
            if (w->skipped[0] || !keep_half(w, &h)) continue;
            s += fabs(log(w->predicted / w->measured));
            n++;
        }
        if (print) {
            pt_validate_summary(&r, keep_half, &h);
            printf("  %-50s %s half: %4d rows, mean |error| %5.1f%%, worst %5.1f%%; "
                   "%d rows not on %s skipped\n",
                   D->file[f], half == 0 ? "fit " : "held", r.time_rows, 100 * r.time_mean_abs_error,
                   100 * r.time_worst_abs_error, other, D->device);
        }
        pt_validate_free(&r);
        total += (f == 0 ? 3.0 : 1.0) * (n ? s / n : 0);
    }
    return total / (D->nfiles + 2);
}

int main(int argc, char **argv)
{
    data D;
    double simplex[NP + 1][NP], fx[NP + 1];
    double x0[NP] = {0.8, 0.5, 0.5, 0.7, 30.0, 0.8, 0.8};
    int iterations = 1500;
    pt_diag d;
    memset(&D, 0, sizeof D);
    D.device = "a100";
    for (int i = 1; i < argc && D.nfiles < MAXF; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            D.device = argv[++i];
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
        fprintf(stderr, "usage: fit [--device PREFIX] [--iterations N] RUNS.csv ...\n");
        return 2;
    }
    for (int i = 0; i <= NP; i++) {
        memcpy(simplex[i], x0, sizeof x0);
        if (i) simplex[i][i - 1] *= 1.25;
        fx[i] = loss(&D, simplex[i], 0, 0);
    }
    for (int it = 0; it < iterations; it++) {
        int best = 0, worst = 0, second;
        double c[NP], xr[NP], fr;
        for (int i = 1; i <= NP; i++) {
            if (fx[i] < fx[best]) best = i;
            if (fx[i] > fx[worst]) worst = i;
        }
        second = best;
        for (int i = 0; i <= NP; i++)
            if (i != worst && fx[i] > fx[second]) second = i;
        for (int j = 0; j < NP; j++) {
            c[j] = 0;
            for (int i = 0; i <= NP; i++)
                if (i != worst) c[j] += simplex[i][j] / NP;
            xr[j] = c[j] + (c[j] - simplex[worst][j]);
        }
        fr = loss(&D, xr, 0, 0);
        if (fr < fx[best]) {
            double xe[NP], fe;
            for (int j = 0; j < NP; j++) xe[j] = c[j] + 2 * (c[j] - simplex[worst][j]);
            fe = loss(&D, xe, 0, 0);
            if (fe < fr) { memcpy(simplex[worst], xe, sizeof xe); fx[worst] = fe; }
            else { memcpy(simplex[worst], xr, sizeof xr); fx[worst] = fr; }
        } else if (fr < fx[second]) {
            memcpy(simplex[worst], xr, sizeof xr);
            fx[worst] = fr;
        } else {
            double xc[NP], fc;
            for (int j = 0; j < NP; j++) xc[j] = c[j] + 0.5 * (simplex[worst][j] - c[j]);
            fc = loss(&D, xc, 0, 0);
            if (fc < fx[worst]) { memcpy(simplex[worst], xc, sizeof xc); fx[worst] = fc; }
            else {
                for (int i = 0; i <= NP; i++) {
                    if (i == best) continue;
                    for (int j = 0; j < NP; j++)
                        simplex[i][j] = simplex[best][j] + 0.5 * (simplex[i][j] - simplex[best][j]);
                    fx[i] = loss(&D, simplex[i], 0, 0);
                }
            }
        }
    }
    {
        int best = 0;
        for (int i = 1; i <= NP; i++)
            if (fx[i] < fx[best]) best = i;
        printf("fitted (mean |log error| on the fit half %.4f):\n", fx[best]);
        for (int j = 0; j < NP; j++) printf("  %-16s %.4g\n", names[j], simplex[best][j]);
        loss(&D, simplex[best], 0, 1);
        loss(&D, simplex[best], 1, 1);
    }
    for (int f = 0; f < D.nfiles; f++) free(D.text[f]);
    return 0;
}
