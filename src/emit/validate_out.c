/*
 * validate_out.c -- `partita validate --json` (SPEC 6) and `validate --plans
 * --json`: predicted against measured for every row of a runs CSV, and the
 * search's best plan against each published strategy (src/plan/validate.h).
 * Not here: the human tables (src/cli/cmd_validate.c).
 */
#include "emit/emit.h"
#include "validate/validate.h"

#include <stdlib.h>
#include <string.h>

pt_status pt_emit_validate_json(const pt_vresult *r, char **out, pt_diag *d)
{
    json_t *o = json_object(), *rows = json_array();
    for (int i = 0; i < r->n; i++) {
        const pt_vrow *w = &r->rows[i];
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
    json_object_set_new(o, "predicted_rows", json_integer(r->predicted));
    json_object_set_new(o, "skipped_rows", json_integer(r->skipped));
    json_object_set_new(o, "mean_abs_error", json_real(r->mean_abs_error));
    json_object_set_new(o, "worst_abs_error", json_real(r->worst_abs_error));
    json_object_set_new(o, "time_rows", json_integer(r->time_rows));
    json_object_set_new(o, "time_mean_abs_error", json_real(r->time_mean_abs_error));
    json_object_set_new(o, "time_worst_abs_error", json_real(r->time_worst_abs_error));
    json_object_set_new(o, "time_rows_not_fitting", json_integer(r->time_rows_not_fitting));
    json_object_set_new(o, "memory_rows", json_integer(r->memory_rows));
    json_object_set_new(o, "memory_mean_abs_error", json_real(r->memory_mean_abs_error));
    json_object_set_new(o, "memory_worst_abs_error", json_real(r->memory_worst_abs_error));
    return pt_emit_json_finish(o, out, d);
}

void pt_emit_vplans_counts(const pt_vplan *v, int n, int *published_fits, int *published_searched,
                           int *best_no_worse, int *published_in_top)
{
    int fit = 0, searched = 0, no_worse = 0, top = 0;
    for (int i = 0; i < n; i++) {
        top += v[i].rank > 0;
        fit += v[i].published_fits;
        searched += v[i].published_searched;
        /* no slower, up to rounding of the same strategy priced twice */
        no_worse += v[i].published_searched && v[i].best_s <= v[i].published_s * (1.0 + 1e-12);
    }
    *published_fits = fit, *published_searched = searched, *best_no_worse = no_worse;
    *published_in_top = top;
}

pt_status pt_emit_vplans_json(const pt_vplan *v, int n, char **out, pt_diag *d)
{
    json_t *o = json_object(), *rows = json_array();
    int fit, searched, no_worse, top;
    pt_emit_vplans_counts(v, n, &fit, &searched, &no_worse, &top);
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
        json_object_set_new(j, "published_searched", json_boolean(v[i].published_searched));
        json_array_append_new(rows, j);
    }
    json_object_set_new(o, "runs", rows);
    json_object_set_new(o, "published_fits", json_integer(fit));
    json_object_set_new(o, "published_searched", json_integer(searched));
    json_object_set_new(o, "best_no_worse", json_integer(no_worse));
    json_object_set_new(o, "published_in_top5", json_integer(top));
    return pt_emit_json_finish(o, out, d);
}
