/*
 * cmd_validate.c -- `partita validate CSV [--json] [--plans]` (SPEC section 6):
 * the tables; the JSON is src/emit/validate_out.c's.
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/emit.h"
#include "validate/validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const cli_opt opts[] = {
    {"json", NULL, "print JSON (every row and the summary) instead of the table"},
    {"plans", NULL, "for each Megatron run: the best plan found against its published strategy"},
    {NULL, NULL, NULL}};

const cli_cmd cli_cmd_validate = {
    "validate", "CSV [OPTION]...", "predicted vs measured for every row of a runs CSV",
    "CSV is a published-runs, time-to-train or inference-runs CSV (recognised by its header),\n"
    "e.g. data/validation/published_runs.csv.\n",
    1, opts, cmd_validate};

static void short_source(const char *src, char *buf, size_t n)
{
    /* "Narayanan et al. SC'21 (arXiv ...) Table 1" -> "Narayanan Table 1" */
    const char *tab = strstr(src, "Table");
    const char *fig = strstr(src, "Figure");
    const char *sec = strstr(src, "\xc2\xa7");
    const char *what = tab ? tab : fig ? fig : sec;
    size_t k = 0;
    while (src[k] && src[k] != ' ' && src[k] != '/' && k + 1 < n) {
        buf[k] = src[k];
        k++;
    }
    buf[k] = '\0';
    if (what) {
        char tail[32];
        size_t j = 0;
        while (what[j] && what[j] != ' ' && j < 10) j++;
        if (what[j] == ' ') j++;
        while (what[j] && what[j] != ' ' && what[j] != '(' && j < 20) j++;
        snprintf(tail, sizeof tail, " %.*s", (int)j, what);
        strncat(buf, tail, n - strlen(buf) - 1);
    }
}

/* A time-to-train CSV's summary line for one metric (the step-time and
 * memory lines do not describe its rows); the number of rows it covered. */
static int metric_summary(const pt_vresult *r, const char *metric, const char *label)
{
    int n = 0;
    double sum = 0, worst = 0;
    for (int i = 0; i < r->n; i++) {
        const pt_vrow *w = &r->rows[i];
        if (w->skipped[0] || strcmp(w->metric, metric)) continue;
        n++, sum += fabs(w->error);
        if (fabs(w->error) > worst) worst = fabs(w->error);
    }
    if (n) printf("%s %d rows, mean |error| %.1f%%, worst %.1f%%\n", label, n, 100.0 * sum / n, 100.0 * worst);
    return n;
}

int cmd_validate(int argc, char **argv)
{
    const char *path;
    int json, rc;
    char *text;
    pt_diag d;
    pt_status st;
    pt_vresult r;
    cli_args a;
    if ((rc = cli_parse(&cli_cmd_validate, argc, argv, &a)) != CLI_GO) return rc;
    if (a.npos < 1) return cli_usage("validate: give a runs CSV (e.g. data/validation/published_runs.csv)");
    path = a.pos[0];
    json = cli_get(&a, "json") != NULL;
    if ((st = pt_read_file(path, &text, &d)) != PT_OK) return cli_fail(st, &d);
    st = pt_validate_csv(text, path, NULL, &r, &d);
    free(text);
    if (st != PT_OK) return cli_fail(st, &d);
    if (cli_get(&a, "plans")) {
        pt_vplan *v;
        int n, top5, no_worse, fit, searched;
        st = pt_validate_plans(&r, 5, (int)sysconf(_SC_NPROCESSORS_ONLN), &v, &n, &d);
        pt_validate_free(&r);
        if (st != PT_OK) {
            free(v);
            return cli_fail(st, &d);
        }
        if (json) {
            st = pt_emit_vplans_json(v, n, &text, &d);
            free(v);
            if (st != PT_OK) return cli_fail(st, &d);
            fputs(text, stdout);
            free(text);
            return 0;
        }
        pt_emit_vplans_counts(v, n, &fit, &searched, &no_worse, &top5);
        printf("%5s  %-22s %9s %9s %5s  %s\n", "line", "model", "published", "best", "rank",
               "best plan");
        for (int i = 0; i < n; i++) {
            char model[200];
            printf("%5d  %-22.22s %8.2fs %8.2fs %5s  %s\n", v[i].line,
                   pt_str_escape(v[i].model, model, sizeof model), v[i].published_s, v[i].best_s,
                   v[i].rank ? (char[4]){(char)('0' + v[i].rank), 0, 0, 0} : "-", v[i].best);
        }
        printf("\n%d runs priced as Megatron-LM runs, %d predicted to fit as published, %d of them in the space "
               "Megatron-LM's release runs: the best plan is no slower than the published strategy "
               "in %d of those; the published strategy is in the top 5 in %d\n", n, fit, searched,
               no_worse, top5);
        free(v);
        return 0;
    }
    if (json) {
        st = pt_emit_validate_json(&r, &text, &d);
        pt_validate_free(&r);
        if (st != PT_OK) return cli_fail(st, &d);
        fputs(text, stdout);
        free(text);
        return 0;
    }
    printf("%5s  %-28s %-24s %-24s %11s %11s %8s\n", "line", "source", "model", "metric",
           "measured", "predicted", "error");
    for (int i = 0; i < r.n; i++) {
        const pt_vrow *w = &r.rows[i];
        char src[40], esrc[160], model[200], metric[200];
        short_source(w->source, src, sizeof src);
        pt_str_escape(src, esrc, sizeof esrc);
        pt_str_escape(w->model, model, sizeof model);
        pt_str_escape(w->metric, metric, sizeof metric);
        if (w->skipped[0]) {
            char why[700];
            printf("%5d  %-28.28s %-24.24s %-24.24s %11.4g %11s   skipped: %s\n", w->line, esrc, model,
                   metric, w->measured, "-", pt_str_escape(w->skipped, why, sizeof why));
            continue;
        }
        printf("%5d  %-28.28s %-24.24s %-24.24s %11.4g %11.4g %+7.1f%%%s%s%s\n", w->line, esrc, model,
               metric, w->measured, w->predicted, 100.0 * w->error, w->fits ? "" : "  DOES NOT FIT",
               w->assumed[0] ? "  assumed: " : "", w->assumed);
    }
    printf("\n%d rows predicted, %d skipped\n", r.predicted, r.skipped);
    if (metric_summary(&r, "time_to_train_min", "time to train:   ") +
            metric_summary(&r, "epochs_to_target", "epochs to target:") ==
        0) {
        printf("step time / throughput: %d rows, mean |error| %.1f%%, worst %.1f%%, %d predicted "
               "not to fit\n", r.time_rows, 100.0 * r.time_mean_abs_error,
               100.0 * r.time_worst_abs_error, r.time_rows_not_fitting);
        printf("memory:                 %d rows, mean |error| %.1f%%, worst %.1f%%\n", r.memory_rows,
               100.0 * r.memory_mean_abs_error, 100.0 * r.memory_worst_abs_error);
    }
    printf("all rows: mean absolute error %.1f%%, worst %.1f%%\n", 100.0 * r.mean_abs_error,
           100.0 * r.worst_abs_error);
    pt_validate_free(&r);
    return 0;
}
