/*
 * bench_fewshot.c -- few-shot accuracy: for every public group of training
 * runs in a runs CSV (one framework or source -- the first word of the
 * source column -- on one device, at least MIN_ROWS priced step-time rows),
 * calibrate on three of its rows (fastest, median and slowest measured step)
 * with `partita calibrate`'s code (src/validate/calib.c) and predict the
 * rest; prints the mean |error| of the step time on those other rows, after
 * calibration and zero-shot (the catalog's constants), side by side.  Two
 * bounds beside them, on the same rows, each knowing their measurements
 * (in-sample, so neither is a prediction): the group calibrated on all its
 * rows, and the group's predictions times the one factor that fits those
 * rows best -- what any calibration that moves a group as one can reach.
 * Where that factor leaves more than a target, the group's error is
 * scatter between its rows, which no constant shared by them removes.
 * Usage: bench_fewshot RUNS.csv.  Never fails on accuracy: exits 1 only when
 * the CSV cannot be read.
 */
#include "base/base.h"
#include "validate/calib.h"
#include "validate/validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A group needs this many priced rows: 3 to calibrate, 9 or more to test. */
#define MIN_ROWS 12
#define MAX_GROUPS 64

typedef struct group {
    char key[64];      /* first word of the source                 */
    char device[48];
    int n;
    int *rows;         /* indices into the validate result         */
    double *meas;      /* measured step of each                    */
} group;


/* the group's row indices sorted by measured step (insertion sort: small) */
static void sort_by_step(group *g)
{
    for (int i = 1; i < g->n; i++)
        for (int j = i; j > 0 && g->meas[j] < g->meas[j - 1]; j--) {
            double t = g->meas[j];
            int r = g->rows[j];
            g->meas[j] = g->meas[j - 1], g->rows[j] = g->rows[j - 1];
            g->meas[j - 1] = t, g->rows[j - 1] = r;
        }
}

/* The factor s minimising sum_i |s q_i - 1| (q_i = predicted / measured
 * step, n >= 1): sum_i q_i |s - 1/q_i| is least at the median of the 1/q_i
 * weighted by q_i.  Returns that sum divided by n, the mean |error| at s. */
static double best_scale_error(double *q, int n)
{
    double tot = 0, acc = 0, s, e = 0;
    int i, j;
    for (i = 1; i < n; i++) /* by 1/q ascending, that is q descending */
        for (j = i; j > 0 && q[j] > q[j - 1]; j--) {
            double t = q[j];
            q[j] = q[j - 1], q[j - 1] = t;
        }
    for (i = 0; i < n; i++) tot += q[i];
    for (i = 0; i < n - 1 && (acc += q[i]) < 0.5 * tot; i++) {}
    s = 1.0 / q[i];
    for (j = 0; j < n; j++) e += fabs(s * q[j] - 1.0);
    return e / n;
}

/* A fit's cross-validation and its constants, for BENCH_FEWSHOT_VERBOSE. */
static void print_fit(const pt_calib_fit *f)
{
    for (int q = 0; q <= f->cv_kmax && f->cv_folds; q++)
        printf("  %d fitted: left-out rms log error %.4f\n", q, f->cv_rms[q]);
    for (int j = 0; j < f->p; j++)
        printf("  %-20s %10.4g -> %10.4g  se %.3g  sens %.3f  %s\n", f->param[j].name, f->param[j].def,
               f->param[j].value, f->param[j].se_unit, f->param[j].sensitivity, pt_calib_state_key(f->param[j].state));
}

/* The framework or source of a row, as bench/run.sh's digest groups them:
 * the source's first word without its "@commit", MLPerf's rounds together,
 * NeMo's documentation pages as NVIDIA/NeMo. */
static void first_word(const char *s, char *out, size_t n)
{
    size_t k = 0;
    if (!strncmp(s, "mlcommons/", 10)) {
        pt_strlcpy(out, "MLPerf (mlcommons)", n);
        return;
    }
    if (!strncmp(s, "https://docs.nvidia.com/nemo", 28)) {
        pt_strlcpy(out, "NVIDIA/NeMo", n);
        return;
    }
    while (s[k] && s[k] != ' ' && s[k] != '@' && k + 1 < n) {
        out[k] = s[k];
        k++;
    }
    out[k] = '\0';
}

int main(int argc, char **argv)
{
    char *text;
    pt_diag d;
    pt_vresult vr;
    group g[MAX_GROUPS];
    int ng = 0, *use;
    double zs_all = 0, fs_all = 0, fp_all = 0, fa_all = 0, sc_all = 0, sc;
    int n_all = 0, groups_shown = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: bench_fewshot RUNS.csv\n");
        return 2;
    }
    if (pt_read_file(argv[1], &text, &d) != PT_OK || pt_validate_csv(text, argv[1], NULL, &vr, &d) != PT_OK) {
        fprintf(stderr, "bench_fewshot: %s\n", d.msg);
        return 1;
    }
    free(text);
    memset(g, 0, sizeof g);
    for (int i = 0; i < vr.n; i++) {
        const pt_vrow *w = &vr.rows[i];
        char key[64];
        double ms, ps;
        int k;
        if (pt_calib_row_step(w, &w->cluster_v, &ms, &ps) != 0) continue;
        first_word(w->source, key, sizeof key);
        for (k = 0; k < ng; k++)
            if (!strcmp(g[k].key, key) && !strcmp(g[k].device, w->cluster_v.dev.name)) break;
        if (k == ng) {
            if (ng == MAX_GROUPS) continue;
            pt_strlcpy(g[k].key, key, sizeof g[k].key);
            pt_strlcpy(g[k].device, w->cluster_v.dev.name, sizeof g[k].device);
            g[k].rows = malloc((size_t)vr.n * sizeof *g[k].rows);
            g[k].meas = malloc((size_t)vr.n * sizeof *g[k].meas);
            if (!g[k].rows || !g[k].meas) return 1;
            ng++;
        }
        g[k].rows[g[k].n] = i;
        g[k].meas[g[k].n++] = ms;
    }
    use = calloc((size_t)(vr.n ? vr.n : 1), sizeof *use);
    if (!use) return 1;
    printf("few-shot: calibrate on 3 rows of a group (fastest, median, slowest measured step),\n"
           "predict its other rows; mean |step-time error| on those rows (groups of >= %d priced rows);\n"
           "in-sample bounds on the same rows: calibrated on all the group's rows, and zero-shot times\n"
           "the one factor that fits them best\n",
           MIN_ROWS);
    printf("%-28s %-26s %5s %10s %10s %10s %10s %10s  %s\n", "group (source)", "device", "rows", "zero-shot",
           "few-shot", "--prior", "all rows", "one scale", "fitted; held at a bound (the rest held at defaults)");
    for (int k = 0; k < ng; k++) {
        group *G = &g[k];
        const pt_cluster *big = NULL;
        int pick[3];
        pt_calib_runs r, rp, ra;
        double zs = 0, fs = 0, fp = 0, fa = 0, *ratio;
        int m = 0;
        char fitted[160] = "";
        if (G->n < MIN_ROWS) continue;
        sort_by_step(G);
        pick[0] = 0, pick[1] = G->n / 2, pick[2] = G->n - 1;
        memset(use, 0, (size_t)vr.n * sizeof *use);
        for (int q = 0; q < 3; q++) use[G->rows[pick[q]]] = 1;
        /* the cluster to calibrate: the group's largest job's, which every
         * smaller job's resizes from */
        for (int i = 0; i < G->n; i++) {
            const pt_cluster *c = &vr.rows[G->rows[i]].cluster_v;
            if (!big || c->devices > big->devices) big = c;
        }
        if (pt_calib_runs_fit(&vr, use, big, NULL, 0, argv[1], &r, &d) != PT_OK) {
            printf("%-28.28s %-26.26s %5d  calibration failed: %s\n", G->key, G->device, G->n, d.msg);
            continue;
        }
        if (pt_calib_runs_fit(&vr, use, big, NULL, 1, argv[1], &rp, &d) != PT_OK) {
            printf("%-28.28s %-26.26s %5d  calibration with --prior failed: %s\n", G->key, G->device, G->n, d.msg);
            pt_calib_runs_free(&r);
            continue;
        }
        /* the in-sample bound: every row of the group calibrates */
        for (int i = 0; i < G->n; i++) use[G->rows[i]] = 1;
        if (pt_calib_runs_fit(&vr, use, big, NULL, 0, argv[1], &ra, &d) != PT_OK) {
            printf("%-28.28s %-26.26s %5d  calibration on all rows failed: %s\n", G->key, G->device, G->n, d.msg);
            pt_calib_runs_free(&r);
            pt_calib_runs_free(&rp);
            continue;
        }
        memset(use, 0, (size_t)vr.n * sizeof *use);
        for (int k3 = 0; k3 < 3; k3++) use[G->rows[pick[k3]]] = 1;
        ratio = malloc((size_t)G->n * sizeof *ratio);
        if (!ratio) return 1;
        for (int pass = 0; pass < 2; pass++) {
            pt_calib_state want = pass ? PT_CALIB_HELD_BOUND : PT_CALIB_FITTED;
            int first = 1;
            for (int j = 0; j < r.fit.p; j++)
                if (r.fit.param[j].state == want) {
                    size_t l = strlen(fitted);
                    snprintf(fitted + l, sizeof fitted - l, "%s%s%s", first && pass ? (l ? "; at bound: " : "at bound: ") : "",
                             first ? "" : ", ", r.fit.param[j].name);
                    first = 0;
                }
        }
        for (int i = 0; i < G->n; i++) {
            const pt_vrow *w = &vr.rows[G->rows[i]];
            double ms, p0, p1, p2, p3;
            if (use[G->rows[i]]) continue;
            if (pt_calib_row_step(w, big, &ms, &p0) != 0 || pt_calib_row_step(w, &r.cluster, &ms, &p1) != 0 ||
                pt_calib_row_step(w, &rp.cluster, &ms, &p2) != 0 || pt_calib_row_step(w, &ra.cluster, &ms, &p3) != 0)
                continue;
            zs += fabs(p0 / ms - 1.0);
            fs += fabs(p1 / ms - 1.0);
            fp += fabs(p2 / ms - 1.0);
            fa += fabs(p3 / ms - 1.0);
            ratio[m++] = p0 / ms;
        }
        if (getenv("BENCH_FEWSHOT_VERBOSE")) { /* the fitted values too */
            for (int q = 0; q < 3; q++) printf("  calibration row: line %d\n", vr.rows[G->rows[pick[q]]].line);
            print_fit(&r.fit);
            printf("  calibrated on all %d rows:\n", G->n);
            print_fit(&ra.fit);
        }
        pt_calib_runs_free(&r);
        pt_calib_runs_free(&rp);
        pt_calib_runs_free(&ra);
        if (!m) {
            free(ratio);
            continue;
        }
        sc = best_scale_error(ratio, m);
        free(ratio);
        printf("%-28.28s %-26.26s %5d %9.1f%% %9.1f%% %9.1f%% %9.1f%% %9.1f%%  %s\n", G->key, G->device, G->n,
               100.0 * zs / m, 100.0 * fs / m, 100.0 * fp / m, 100.0 * fa / m, 100.0 * sc, fitted[0] ? fitted : "none");
        zs_all += zs, fs_all += fs, fp_all += fp, fa_all += fa, sc_all += sc * m, n_all += m;
        groups_shown++;
    }
    if (n_all)
        printf("%-28s %-26s %5d %9.1f%% %9.1f%% %9.1f%% %9.1f%% %9.1f%%  (%d groups, %d predicted rows)\n",
               "all groups", "", n_all + 3 * groups_shown, 100.0 * zs_all / n_all, 100.0 * fs_all / n_all,
               100.0 * fp_all / n_all, 100.0 * fa_all / n_all, 100.0 * sc_all / n_all, groups_shown, n_all);
    for (int k = 0; k < ng; k++) free(g[k].rows), free(g[k].meas);
    free(use);
    pt_validate_free(&vr);
    return 0;
}
