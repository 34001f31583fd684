/*
 * cmd_calibrate.c -- `partita calibrate RUNS.csv --cluster C --out FILE.json
 * [--nccl FILE.txt ...] [--json]` (SPEC section 7): reads the files, calls
 * src/validate/calib.c, prints the fit, writes the cluster file (or, for a
 * time-to-train CSV, the statistical-efficiency file) atomically.
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/emit.h"
#include "validate/calib.h"
#include "validate/validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most --nccl files one run takes (one per level is what makes sense). */
#define CAL_MAX_NCCL 8

static const cli_opt opts[] = {
    {"cluster", "C", "the cluster the rows ran on: a built-in name or a cluster file (required for a runs CSV)"},
    {"out", "FILE", "where to write the calibrated cluster file (or, for a time-to-train CSV, the --stat-eff file; required)"},
    {"nccl", "FILE.txt", "nccl-tests output (all_reduce_perf, all_gather_perf, reduce_scatter_perf) that fixes the "
                         "efficiency of the level it spans; may be given up to 8 times"},
    {"workload", "W", "time-to-train CSV: use the rows whose workload begins with W"},
    {"prior", NULL, "a runs CSV: pull the fit towards the catalog's constants as far as the rows' evidence "
                    "allows (maximum a posteriori)"},
    {"json", NULL, "print the fit as JSON instead of the table"},
    {NULL, NULL, NULL}};

int cmd_calibrate(int argc, char **argv);

const cli_cmd cli_cmd_calibrate = {
    "calibrate", "RUNS.csv --cluster C --out FILE.json [OPTION]...",
    "fit a cluster's efficiencies to measured runs (and nccl-tests logs); write a cluster file",
    "RUNS.csv is a published-runs CSV (SPEC section 6): every priced step-time row on C's device is fitted.\n"
    "It fits the constants the rows move most (gemm_eff, attn_eff, mem_eff, kernel_us, each level's\n"
    "efficiency), as many as cross-validation supports: each row left out in turn, the rest fitted\n"
    "with 0, 1, 2 ... constants, the fewest whose left-out error is within one standard error of the\n"
    "least (n rows fit at most n - 1); the rest are held and the output says why.\n"
    "--prior adds a Gaussian prior on each efficiency's log about its default (sd 0.25 for the\n"
    "device's, 0.35 for a level's: how far generations and fabrics sit apart in the catalog).\n"
    "A time-to-train CSV (recognised by its header) fits E_min and B_noise instead and writes\n"
    "the file `scale --stat-eff` takes.\n",
    1, opts, cmd_calibrate};

/* Every --nccl value in argv, in order (cli_parse keeps only the last). */
static int nccl_args(int argc, char **argv, const char **files)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq;
        size_t k;
        if (!strcmp(a, "--")) break;
        if (strncmp(a, "--", 2)) continue;
        eq = strchr(a, '=');
        k = eq ? (size_t)(eq - a) : strlen(a);
        /* getopt_long takes any unambiguous prefix: --n, --nc, --ncc */
        if (k >= 3 && k <= 6 && !strncmp(a, "--nccl", k)) {
            const char *v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
            if (v && n < CAL_MAX_NCCL) files[n] = v;
            if (v) n++;
        } else if (!eq && k > 2) {
            /* the value of another option with one: skip it */
            for (const cli_opt *o = opts; o->name; o++)
                if (o->arg && k - 2 <= strlen(o->name) && !strncmp(a + 2, o->name, k - 2)) {
                    i++;
                    break;
                }
        }
    }
    return n;
}

static void print_params(const pt_calib_fit *f)
{
    printf("%-22s %10s %10s %12s\n", "parameter", "default", "value", "std. error");
    for (int j = 0; j < f->p; j++) {
        const pt_calib_param *q = &f->param[j];
        char se[40];
        if (q->state != PT_CALIB_FITTED) snprintf(se, sizeof se, "%s", "-");
        else if (isfinite(q->se)) snprintf(se, sizeof se, "+-%.3g", q->se);
        else snprintf(se, sizeof se, "n/a");
        printf("%-22s %10.4g %10.4g %12s  %s\n", q->name, q->def, q->value, se, pt_calib_state_text(q->state));
    }
    if (f->cv_folds > 0) {
        printf("cross-validation (%s, %d folds): rms log error of the rows left out,", f->cv_folds == f->n ? "leave-one-out" : "rows dealt into folds", f->cv_folds);
        for (int k = 0; k <= f->cv_kmax; k++)
            printf("%s %.1f%% fitting %d", k ? "," : "", 100.0 * f->cv_rms[k], k);
        printf(": fits %d (the fewest within one standard error of the least)\n", f->cv_k);
    }
    if (f->dof > 0)
        printf("degrees of freedom: %d rows - %d fitted = %d; residual sd %.1f%% (log)\n", f->n, f->nfit, f->dof,
               100.0 * f->sigma);
    else
        printf("degrees of freedom: %d rows - %d fitted = 0: the fit is exact, the residual variance unknown, so "
               "no standard error;%s\n", f->n, f->nfit, f->nfit ? " per 1%% of noise on each row it would be:" : "");
    if (f->dof == 0)
        for (int j = 0; j < f->p; j++)
            if (f->param[j].state == PT_CALIB_FITTED)
                printf("  %-20s +-%.3g\n", f->param[j].name, 0.01 * f->param[j].se_unit);
}

static int run_statef(const char *path, const char *text, const char *out, const char *workload, int json)
{
    pt_calib_statef s;
    pt_diag d;
    pt_status st;
    char *csv;
    int rc;
    if ((st = pt_calib_statef_fit(text, path, workload, &s, &d)) != PT_OK) return cli_fail(st, &d);
    if (!(csv = pt_calib_statef_csv(&s))) {
        pt_calib_statef_free(&s);
        pt_diag_set(&d, out, NULL, NULL, "out of memory");
        return cli_fail(PT_ENOMEM, &d);
    }
    if ((rc = cli_output(out, csv)) != 0) {
        free(csv);
        pt_calib_statef_free(&s);
        return rc;
    }
    free(csv);
    if (json) {
        char *t = NULL;
        json_t *j = pt_calib_statef_json(&s);
        if (j && pt_emit_json_finish(j, &t, &d) == PT_OK) fputs(t, stdout);
        free(t);
    } else {
        printf("calibrate: %d rows of %s: %s, %s\n", s.n, path, s.workload, s.target);
        printf("E(B) = E_min (1 + B / B_noise)  (McCandlish et al. 2018)\n");
        print_params(&s.fit);
        printf("%6s %14s %10s %18s %18s\n", "line", "global_batch", "epochs", "before", "after");
        for (int i = 0; i < s.n; i++) {
            double b = s.epochs[i] * exp(s.fit.before[i]), a = s.epochs[i] * exp(s.fit.after[i]);
            printf("%6d %14.6g %10.4g %10.4g %+6.1f%% %10.4g %+6.1f%%\n", s.lines[i], s.batch[i], s.epochs[i], b,
                   100.0 * (b / s.epochs[i] - 1.0), a, 100.0 * (a / s.epochs[i] - 1.0));
        }
        printf("wrote %s (batch,epochs on the fitted curve: `partita scale --stat-eff %s`)\n", out, out);
    }
    pt_calib_statef_free(&s);
    return 0;
}

int cmd_calibrate(int argc, char **argv)
{
    cli_args a;
    const char *path, *out, *cname, *nccl[CAL_MAX_NCCL];
    char *text = NULL, *ctext = NULL, src[400];
    pt_calib_level lv[CAL_MAX_NCCL];
    int held[PT_MAX_LEVELS] = {0}, nn, rc, json;
    pt_cluster c;
    pt_vresult vr;
    pt_calib_runs r;
    pt_diag d;
    pt_status st;
    if ((rc = cli_parse(&cli_cmd_calibrate, argc, argv, &a)) != CLI_GO) return rc;
    if (a.npos < 1) return cli_usage("calibrate: give a runs CSV (e.g. data/validation/published_runs.csv)");
    path = a.pos[0];
    out = cli_get(&a, "out");
    cname = cli_get(&a, "cluster");
    json = cli_get(&a, "json") != NULL;
    if (!out) return cli_usage("calibrate: --out FILE.json is required (where the calibrated file goes)");
    if ((nn = nccl_args(argc, argv, nccl)) > CAL_MAX_NCCL)
        return cli_usage("calibrate: --nccl given %d times; at most %d", nn, CAL_MAX_NCCL);
    if ((st = pt_read_file(path, &text, &d)) != PT_OK) return cli_fail(st, &d);
    if (!strncmp(text, "source,workload,", 16)) {
        if (nn) {
            free(text);
            return cli_usage("calibrate: --nccl does not apply to a time-to-train CSV");
        }
        if (cli_get(&a, "prior")) {
            free(text);
            return cli_usage("calibrate: --prior applies to a runs CSV only");
        }
        rc = run_statef(path, text, out, cli_get(&a, "workload"), json);
        free(text);
        return rc;
    }
    if (cli_get(&a, "workload")) {
        free(text);
        return cli_usage("calibrate: --workload applies to a time-to-train CSV only");
    }
    if (!cname) {
        free(text);
        return cli_usage("calibrate: --cluster C is required (the cluster the runs ran on)");
    }
    if ((st = pt_cluster_load(cname, &c, &d)) != PT_OK) {
        free(text);
        return cli_fail(st, &d);
    }
    for (int i = 0; i < nn; i++) {
        pt_calib_nccl *t = malloc(sizeof *t);
        if (!t) {
            free(text);
            pt_diag_set(&d, nccl[i], NULL, NULL, "out of memory");
            return cli_fail(PT_ENOMEM, &d);
        }
        if ((st = pt_read_file(nccl[i], &ctext, &d)) != PT_OK ||
            (st = pt_calib_nccl_parse(ctext, nccl[i], t, &d)) != PT_OK ||
            (st = pt_calib_nccl_level(&c, t, nccl[i], &lv[i], &d)) != PT_OK) {
            free(t), free(ctext), free(text);
            return cli_fail(st, &d);
        }
        held[lv[i].level] = 1;
        free(t);
        free(ctext);
        ctext = NULL;
    }
    if ((st = pt_validate_csv(text, path, NULL, &vr, &d)) != PT_OK) {
        free(text);
        return cli_fail(st, &d);
    }
    free(text);
    if ((st = pt_calib_runs_fit(&vr, NULL, &c, held, cli_get(&a, "prior") != NULL, path, &r, &d)) != PT_OK) {
        pt_validate_free(&vr);
        return cli_fail(st, &d);
    }
    pt_validate_free(&vr);
    snprintf(src, sizeof src, "partita calibrate: %s fitted to %d rows of %s", c.name, r.nrows, path);
    for (int i = 0; i < nn; i++) {
        size_t l = strlen(src);
        snprintf(src + l, sizeof src - l, "%s%s", i ? ", " : "; levels from nccl-tests ", nccl[i]);
    }
    {
        char *cj = NULL;
        json_t *j = pt_calib_cluster_json(&r.cluster, src);
        if (!j || (st = pt_emit_json_finish(j, &cj, &d)) != PT_OK) {
            pt_calib_runs_free(&r);
            pt_diag_set(&d, out, NULL, NULL, "out of memory");
            return cli_fail(PT_ENOMEM, &d);
        }
        rc = cli_output(out, cj);
        free(cj);
        if (rc) {
            pt_calib_runs_free(&r);
            return rc;
        }
    }
    if (json) {
        char *t = NULL;
        json_t *j = pt_calib_runs_json(&r, lv, nccl, nn);
        if (j && pt_emit_json_finish(j, &t, &d) == PT_OK) fputs(t, stdout);
        free(t);
    } else {
        printf("calibrate: %d rows of %s on %s (cluster %s)", r.nrows, path, c.dev.name, c.name);
        if (r.other_device) printf("; %d rows on other devices not used", r.other_device);
        printf("\n");
        for (int i = 0; i < nn; i++)
            printf("nccl-tests %s: level %s: large-message busbw %.1f GB/s, efficiency %.3f +- %.3f of %.0f GB/s "
                   "(held in the fit)\n",
                   nccl[i], c.level[lv[i].level].name, lv[i].busbw_GBps, lv[i].efficiency,
                   isfinite(lv[i].se) ? lv[i].se : 0.0, lv[i].bw_GBps);
        if (cli_get(&a, "prior"))
            printf("prior: ln(efficiency) ~ N(ln default, %.2f) for the device's, %.2f for a level's; rows of noise "
                   "%.2f (log)\n", PT_CALIB_EFF_PRIOR_SD, PT_CALIB_LINK_PRIOR_SD, PT_CALIB_ROW_SD);
        print_params(&r.fit);
        printf("%6s %-22s %5s %12s %20s %20s\n", "line", "model", "gpus", "measured", "before", "after");
        for (int i = 0; i < r.nrows; i++) {
            const pt_calib_row *w = &r.rows[i];
            printf("%6d %-22.22s %5lld %10.4g s %10.4g s %+6.1f%% %10.4g s %+6.1f%%\n", w->line, w->model,
                   (long long)w->gpus, w->measured_s, w->before_s, 100.0 * (w->before_s / w->measured_s - 1.0),
                   w->after_s, 100.0 * (w->after_s / w->measured_s - 1.0));
        }
        printf("rms log error: before %.1f%%, after %.1f%%\n", 100.0 * r.fit.rms_before, 100.0 * r.fit.rms_after);
        printf("wrote %s (`partita eval MODEL --cluster %s ...`)\n", out, out);
    }
    pt_calib_runs_free(&r);
    return 0;
}
