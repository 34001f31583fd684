/*
 * cmd_validate.c -- `partita validate CSV [--json]` (SPEC section 6).
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
    const char *path = NULL;
    int json = 0, plans = 0;
    char *text;
    pt_diag d;
    pt_status st;
    pt_vresult r;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--plans")) plans = 1;
        else if (argv[i][0] == '-') return cli_usage("validate: unknown option \"%s\"", argv[i]);
        else if (!path) path = argv[i];
        else return cli_usage("validate: unexpected argument \"%s\"", argv[i]);
    }
    if (!path) return cli_usage("validate: give a runs CSV (e.g. data/validation/published_runs.csv)");
    if ((st = pt_read_file(path, &text, &d)) != PT_OK) return cli_fail(st, &d);
    st = pt_validate_csv(text, path, NULL, &r, &d);
    free(text);
    if (st != PT_OK) return cli_fail(st, &d);
    if (plans) {
        pt_vplan *v;
        int n, top5 = 0, no_worse = 0, fit = 0;
        st = pt_validate_plans(&r, 5, (int)sysconf(_SC_NPROCESSORS_ONLN), &v, &n, &d);
        pt_validate_free(&r);
        if (st != PT_OK) {
            free(v);
            return cli_fail(st, &d);
        }
        for (int i = 0; i < n; i++) {
            top5 += v[i].rank > 0;
            fit += v[i].published_fits;
            no_worse += v[i].published_fits && v[i].best_s <= v[i].published_s * (1.0 + 1e-12);
        }
        if (json) {
            json_t *o = json_object(), *rows = json_array();
            char *out;
            for (int i = 0; i < n; i++) {
                json_t *j = json_object();
                json_object_set_new(j, "line", json_integer(v[i].line));
                json_object_set_new(j, "model", json_string(v[i].model));
                json_object_set_new(j, "published", json_string(v[i].published));
                json_object_set_new(j, "published_step_time_s", json_real(v[i].published_s));
                json_object_set_new(j, "best", json_string(v[i].best));
                json_object_set_new(j, "best_step_time_s", json_real(v[i].best_s));
                json_object_set_new(j, "published_rank", json_integer(v[i].rank));
                json_object_set_new(j, "published_fits", json_boolean(v[i].published_fits));
                json_array_append_new(rows, j);
            }
            json_object_set_new(o, "runs", rows);
            json_object_set_new(o, "published_fits", json_integer(fit));
            json_object_set_new(o, "best_no_worse", json_integer(no_worse));
            json_object_set_new(o, "published_in_top5", json_integer(top5));
            out = pt_emit_json_text(o);
            printf("%s\n", out);
            free(out);
            json_decref(o);
        } else {
            printf("%5s  %-22s %9s %9s %5s  %s\n", "line", "model", "published", "best", "rank",
                   "best plan");
            for (int i = 0; i < n; i++)
                printf("%5d  %-22.22s %8.2fs %8.2fs %5s  %s\n", v[i].line, v[i].model,
                       v[i].published_s, v[i].best_s,
                       v[i].rank ? (char[4]){(char)('0' + v[i].rank), 0, 0, 0} : "-", v[i].best);
            printf("\n%d Megatron runs, %d predicted to fit as published: the best plan is no slower "
                   "than the published strategy in %d of those; the published strategy is in the "
                   "top 5 in %d\n", n, fit, no_worse, top5);
        }
        free(v);
        return 0;
    }
    if (json) {
        json_t *o = json_object(), *rows = json_array();
        char *out;
        for (int i = 0; i < r.n; i++) {
            const pt_vrow *w = &r.rows[i];
            json_t *j = json_object();
            json_object_set_new(j, "line", json_integer(w->line));
            json_object_set_new(j, "source", json_string(w->source));
            json_object_set_new(j, "model", json_string(w->model));
            json_object_set_new(j, "metric", json_string(w->metric));
            json_object_set_new(j, "measured", json_real(w->measured));
            if (w->skipped[0]) {
                json_object_set_new(j, "skipped", json_string(w->skipped));
            } else {
                json_object_set_new(j, "predicted", json_real(w->predicted));
                json_object_set_new(j, "error", json_real(w->error));
                json_object_set_new(j, "strategy", json_string(w->strategy));
                json_object_set_new(j, "fits", json_boolean(w->fits));
                if (w->assumed[0]) json_object_set_new(j, "assumed", json_string(w->assumed));
            }
            json_array_append_new(rows, j);
        }
        json_object_set_new(o, "rows", rows);
        json_object_set_new(o, "predicted_rows", json_integer(r.predicted));
        json_object_set_new(o, "skipped_rows", json_integer(r.skipped));
        json_object_set_new(o, "mean_abs_error", json_real(r.mean_abs_error));
        json_object_set_new(o, "worst_abs_error", json_real(r.worst_abs_error));
        json_object_set_new(o, "time_rows", json_integer(r.time_rows));
        json_object_set_new(o, "time_mean_abs_error", json_real(r.time_mean_abs_error));
        json_object_set_new(o, "time_worst_abs_error", json_real(r.time_worst_abs_error));
        json_object_set_new(o, "time_rows_not_fitting", json_integer(r.time_rows_not_fitting));
        json_object_set_new(o, "memory_rows", json_integer(r.memory_rows));
        json_object_set_new(o, "memory_mean_abs_error", json_real(r.memory_mean_abs_error));
        json_object_set_new(o, "memory_worst_abs_error", json_real(r.memory_worst_abs_error));
        out = pt_emit_json_text(o);
        printf("%s\n", out);
        free(out);
        json_decref(o);
    } else {
        printf("%5s  %-28s %-24s %-24s %11s %11s %8s\n", "line", "source", "model", "metric",
               "measured", "predicted", "error");
        for (int i = 0; i < r.n; i++) {
            const pt_vrow *w = &r.rows[i];
            char src[40];
            short_source(w->source, src, sizeof src);
            if (w->skipped[0]) {
                printf("%5d  %-28.28s %-24.24s %-24.24s %11.4g %11s   skipped: %s\n", w->line, src,
                       w->model, w->metric, w->measured, "-", w->skipped);
                continue;
            }
            printf("%5d  %-28.28s %-24.24s %-24.24s %11.4g %11.4g %+7.1f%%%s%s%s\n", w->line, src,
                   w->model, w->metric, w->measured, w->predicted, 100.0 * w->error,
                   w->fits ? "" : "  DOES NOT FIT", w->assumed[0] ? "  assumed: " : "", w->assumed);
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
    }
    pt_validate_free(&r);
    return 0;
}
