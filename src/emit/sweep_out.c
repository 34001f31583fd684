/*
 * sweep_out.c -- `partita sweep` as a table, as JSON and as an HTML report
 * (see sweep_out.h).  The plan object of each answer is the one `plan
 * --json` prints (plan_out.c's, with engine and step_time_source), less
 * search_seconds: nothing here depends on the clock or on which process
 * answered, so the bytes are the same for any number of MPI ranks.
 */
#include "emit/sweep_out.h"
#include "emit/html.h"
#include "emit/serve_out.h"
#include "base/base.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct front_item {
    double h, usd;
    int64_t i;
} front_item;

static int by_time(const void *pa, const void *pb)
{
    const front_item *a = pa, *b = pb;
    if (a->h != b->h) return a->h < b->h ? -1 : 1;
    if (a->usd != b->usd) return a->usd < b->usd ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static int by_index(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

int pt_emit_sweep_point(const pt_sweep_grid *g, const pt_sweep_answer *a, double *x, double *usd)
{
    if (a->status != 0) return 0;
    if (g->cmd == PT_SWEEP_SERVE) {
        *x = a->serve.ttft_ms_p, *usd = a->dollars_per_mtok;
        return a->serve.meets_slo && *usd > 0 && *x > 0;
    }
    *x = a->hours_per_btok, *usd = a->dollars_per_btok;
    return *usd > 0;
}

int pt_emit_sweep_front(const pt_sweep_grid *g, const pt_sweep_answer *a, int64_t **front)
{
    front_item *it = malloc((size_t)(g->n > 0 ? g->n : 1) * sizeof *it);
    int64_t n = 0, k = 0;
    double best = 0;
    *front = NULL;
    if (!it) return -1;
    for (int64_t i = 0; i < g->n; i++) {
        double x, usd;
        if (pt_emit_sweep_point(g, &a[i], &x, &usd)) it[n++] = (front_item){x, usd, i};
    }
    if (n == 0) {
        free(it);
        return 0;
    }
    /* fastest first: a point is on the front when it is cheaper than every
     * faster one (equal points: the first in grid order only) */
    qsort(it, (size_t)n, sizeof *it, by_time);
    *front = malloc((size_t)n * sizeof **front);
    if (!*front) {
        free(it);
        return -1;
    }
    for (int64_t j = 0; j < n; j++)
        if (k == 0 || it[j].usd < best) {
            (*front)[k++] = it[j].i;
            best = it[j].usd;
        }
    free(it);
    qsort(*front, (size_t)k, sizeof **front, by_index);
    return (int)k;
}

static void short_strategy(const pt_strategy *s, char *buf, size_t n)
{
    snprintf(buf, n, "tp=%d pp=%d dp=%d cp=%d vpp=%d mbs=%d zero=%d %s %s", s->tp, s->pp, s->dp, s->cp, s->vpp,
             s->mbs, s->zero, pt_recompute_name(s->recompute), pt_schedule_name(s->schedule));
    if (s->ep > 1) {
        size_t k = strlen(buf);
        snprintf(buf + k, n - k, " ep=%d", s->ep);
    }
}

/* "llama3-70b dgx-h100 x64 b512 s4096 step": a question in a few words. */
static void question_words(const pt_sweep_grid *g, const pt_sweep_answer *a, int64_t i, char *buf, size_t n)
{
    pt_sweep_q q = pt_sweep_question(g, i);
    snprintf(buf, n, "%s on %lld x %s, batch %lld, seq %lld, %s", g->model_arg[q.model], (long long)a->devices,
             g->cluster_arg[q.cluster], (long long)g->gbs[q.gbs], (long long)a->seq_len,
             pt_sweep_obj_name(g->obj[q.obj]));
}

static const char *plural(int n, const char *one, const char *many) { return n == 1 ? one : many; }

/* A serving question's load in a few characters: "offline", "4 req/s". */
static void load_words(const pt_sweep_grid *g, pt_sweep_q q, char *buf, size_t n)
{
    if (g->rate[q.rate] > 0) snprintf(buf, n, "%g req/s", g->rate[q.rate]);
    else snprintf(buf, n, "offline");
}

/* An objective for the table: "-" when none. */
static void objective_words(double ms, char *buf, size_t n)
{
    if (ms > 0) snprintf(buf, n, "%g", ms);
    else snprintf(buf, n, "-");
}

/* The serving grid's table: one line per question, then the front. */
static pt_status serve_text(const pt_sweep_grid *g, const pt_sweep_answer *a, char **out, pt_diag *d)
{
    pt_emit_buf b = {0};
    int64_t *front = NULL;
    int nf;
    char e1[300], e2[300], tt[16], tp[16];
    pt_emit_buf_printf(&b, "sweep %s: %lld serving questions (%d model%s x %d cluster%s x %d device count%s x "
                           "%d prompt length%s x %d output length%s x %d load%s x %d TTFT objective%s x %d TPOT "
                           "objective%s)\n",
                       pt_str_escape(g->file, e1, sizeof e1), (long long)g->n, g->nmodel, plural(g->nmodel, "", "s"),
                       g->ncluster, plural(g->ncluster, "", "s"), g->ngpus, plural(g->ngpus, "", "s"), g->nisl,
                       plural(g->nisl, "", "s"), g->nosl, plural(g->nosl, "", "s"), g->nrate,
                       plural(g->nrate, "", "s"), g->nttft, plural(g->nttft, "", "s"), g->ntpot,
                       plural(g->ntpot, "", "s"));
    pt_emit_buf_printf(&b, "objectives at p%d, %s weights, %s KV cache, engine %s; tokens are output tokens\n\n",
                       g->percentile, pt_infer_qname(g->wq), pt_infer_qname(g->kvq), g->engine);
    snprintf(tt, sizeof tt, "TTFT p%d", g->percentile);
    snprintf(tp, sizeof tp, "TPOT p%d", g->percentile);
    pt_emit_buf_printf(&b, "%4s  %-18s %-16s %5s %6s %6s %11s %7s %7s %8s %8s %9s %9s %4s %9s  %s\n", "#",
                       "model", "cluster", "gpus", "isl", "osl", "load", "TTFT<=", "TPOT<=", "tok/s", "tok/s/g", tt,
                       tp, "SLO", "$/1M tok", "best strategy");
    for (int64_t i = 0; i < g->n; i++) {
        pt_sweep_q q = pt_sweep_question(g, i);
        const pt_sweep_answer *x = &a[i];
        char load[32], o1[24], o2[24], usd[24];
        load_words(g, q, load, sizeof load);
        objective_words(g->ttft_ms[q.ttft], o1, sizeof o1);
        objective_words(g->tpot_ms[q.tpot], o2, sizeof o2);
        pt_emit_buf_printf(&b, "%4lld  %-18s %-16s %5lld %6lld %6lld %11s %7s %7s ", (long long)i + 1,
                           pt_str_escape(g->model[q.model].name, e1, sizeof e1),
                           pt_str_escape(g->cluster[q.cluster].name, e2, sizeof e2), (long long)x->devices,
                           (long long)g->isl[q.isl], (long long)g->osl[q.osl], load, o1, o2);
        if (x->status != 0) {
            pt_emit_buf_printf(&b, "%s: %s\n", x->status == 1 ? "no fit" : "refused",
                               pt_str_escape(x->why, e1, sizeof e1));
            continue;
        }
        if (x->dollars_per_mtok > 0) snprintf(usd, sizeof usd, "%.3f", x->dollars_per_mtok);
        else snprintf(usd, sizeof usd, "-");
        pt_emit_buf_printf(&b, "%8.0f %8.0f %9.1f %9.2f %4s %9s  %s\n", x->serve.tokens_per_s,
                           x->serve.tokens_per_s_per_gpu, x->serve.ttft_ms_p, x->serve.tpot_ms_p,
                           x->serve.meets_slo ? "yes" : "no", usd, x->serve.strategy);
    }
    nf = pt_emit_sweep_front(g, a, &front);
    if (nf < 0) b.oom = 1;
    else if (nf > 0) {
        pt_emit_buf_printf(&b, "\nPareto front, TTFT p%d against dollars per 10^6 output tokens (of the answers "
                               "meeting their objectives, no other is both sooner and cheaper):", g->percentile);
        for (int k = 0; k < nf; k++) pt_emit_buf_printf(&b, " #%lld", (long long)front[k] + 1);
        pt_emit_buf_puts(&b, "\n");
    }
    free(front);
    return pt_emit_buf_finish(&b, out, d);
}

pt_status pt_emit_sweep_text(const pt_sweep_grid *g, const pt_sweep_answer *a, char **out, pt_diag *d)
{
    pt_emit_buf b = {0};
    int64_t *front = NULL;
    int nf;
    char e1[300], e2[300];
    if (g->cmd == PT_SWEEP_SERVE) return serve_text(g, a, out, d);
    pt_emit_buf_printf(&b, "sweep %s: %lld questions (%d model%s x %d cluster%s x %d device count%s x %d batch%s x "
                           "%d sequence length%s x %d objective%s)\n\n",
                       pt_str_escape(g->file, e1, sizeof e1), (long long)g->n, g->nmodel, g->nmodel == 1 ? "" : "s",
                       g->ncluster, g->ncluster == 1 ? "" : "s", g->ngpus, g->ngpus == 1 ? "" : "s", g->ngbs,
                       g->ngbs == 1 ? "" : "es", g->nseq, g->nseq == 1 ? "" : "s", g->nobj, g->nobj == 1 ? "" : "s");
    pt_emit_buf_printf(&b, "%4s  %-18s %-16s %6s %6s %6s %-9s %8s %10s %6s %9s %11s  %s\n", "#", "model", "cluster",
                       "gpus", "batch", "seq", "objective", "step s", "tokens/s", "MFU", "h/1B tok", "$/1B tok",
                       "best strategy");
    for (int64_t i = 0; i < g->n; i++) {
        pt_sweep_q q = pt_sweep_question(g, i);
        const pt_sweep_answer *x = &a[i];
        char s[256];
        pt_emit_buf_printf(&b, "%4lld  %-18s %-16s %6lld %6lld %6lld %-9s ", (long long)i + 1,
                           pt_str_escape(g->model[q.model].name, e1, sizeof e1),
                           pt_str_escape(g->cluster[q.cluster].name, e2, sizeof e2), (long long)x->devices,
                           (long long)g->gbs[q.gbs], (long long)x->seq_len, pt_sweep_obj_name(g->obj[q.obj]));
        if (x->status != 0) {
            pt_emit_buf_printf(&b, "%s: %s\n", x->status == 1 ? "no fit" : "refused",
                               pt_str_escape(x->why, e1, sizeof e1));
            continue;
        }
        short_strategy(&x->best.st, s, sizeof s);
        pt_emit_buf_printf(&b, "%8.3f %10.0f %5.1f%% %9.2f %11.0f  %s\n", x->best.cost.step_time_s,
                           x->best.cost.tokens_per_s, 100.0 * x->best.cost.mfu, x->hours_per_btok,
                           x->dollars_per_btok, s);
    }
    nf = pt_emit_sweep_front(g, a, &front);
    if (nf < 0) b.oom = 1;
    else if (nf > 0) {
        pt_emit_buf_puts(&b, "\nPareto front, time against dollars (no other answer is both faster and cheaper):");
        for (int k = 0; k < nf; k++) pt_emit_buf_printf(&b, " #%lld", (long long)front[k] + 1);
        pt_emit_buf_puts(&b, "\n");
    }
    free(front);
    return pt_emit_buf_finish(&b, out, d);
}

static json_t *question_json(const pt_sweep_grid *g, const pt_sweep_answer *a, int64_t i)
{
    pt_sweep_q q = pt_sweep_question(g, i);
    json_t *o = json_object();
    if (g->cmd == PT_SWEEP_SERVE) {
        json_object_set_new(o, "command", json_string("serve"));
        json_object_set_new(o, "model", json_string(g->model_arg[q.model]));
        json_object_set_new(o, "cluster", json_string(g->cluster_arg[q.cluster]));
        json_object_set_new(o, "gpus", json_integer(a->devices));
        json_object_set_new(o, "isl", json_integer(g->isl[q.isl]));
        json_object_set_new(o, "osl", json_integer(g->osl[q.osl]));
        json_object_set_new(o, "load", json_string(g->rate[q.rate] > 0 ? "rate" : "offline"));
        if (g->rate[q.rate] > 0) json_object_set_new(o, "rate", json_real(g->rate[q.rate]));
        json_object_set_new(o, "ttft_ms", json_real(g->ttft_ms[q.ttft]));
        json_object_set_new(o, "tpot_ms", json_real(g->tpot_ms[q.tpot]));
        json_object_set_new(o, "percentile", json_integer(g->percentile));
        json_object_set_new(o, "dtype", json_string(pt_infer_qname(g->wq)));
        json_object_set_new(o, "kv_dtype", json_string(pt_infer_qname(g->kvq)));
        json_object_set_new(o, "engine", json_string(g->engine));
        return o;
    }
    json_object_set_new(o, "command", json_string("plan"));
    json_object_set_new(o, "model", json_string(g->model_arg[q.model]));
    json_object_set_new(o, "cluster", json_string(g->cluster_arg[q.cluster]));
    json_object_set_new(o, "gpus", json_integer(a->devices));
    json_object_set_new(o, "global_batch", json_integer(g->gbs[q.gbs]));
    json_object_set_new(o, "seq_len", json_integer(a->seq_len));
    json_object_set_new(o, "objective", json_string(pt_sweep_obj_name(g->obj[q.obj])));
    json_object_set_new(o, "dtype", json_string(pt_dtype_name(g->dtype)));
    return o;
}

pt_status pt_emit_sweep_json(const pt_sweep_grid *g, const pt_sweep_answer *a, char **out, pt_diag *d)
{
    json_t *j = json_object(), *arr = json_array(), *fr = json_array();
    int64_t *front = NULL;
    int nf;
    json_object_set_new(j, "questions", json_integer(g->n));
    for (int64_t i = 0; i < g->n; i++) {
        const pt_sweep_answer *x = &a[i];
        json_t *o = json_object(), *plans = json_array();
        json_object_set_new(o, "question", question_json(g, x, i));
        if (g->cmd == PT_SWEEP_SERVE) {
            /* the plan as `serve --top 1 --json` prints it */
            if (x->status == 0) json_array_append_new(plans, pt_emit_serve_plan_json(&x->serve));
            json_object_set_new(o, "plans", plans);
            json_object_set_new(o, "candidates_evaluated", json_integer(x->evaluated));
            if (x->status == 0) {
                json_object_set_new(o, "any_meets_slo", json_boolean(x->any_meets));
                json_object_set_new(o, "dollars_per_million_tokens", json_real(x->dollars_per_mtok));
            } else {
                json_object_set_new(o, x->status == 1 ? "no_fit" : "refused", json_string(x->why));
            }
            json_array_append_new(arr, o);
            continue;
        }
        if (x->status == 0) {
            json_t *p = pt_emit_plan_json(&x->best.st, &x->best.cost);
            json_object_set_new(p, "engine", json_string(pt_engine_label(x->engine)));
            json_object_set_new(p, "step_time_source", json_string(x->check.independent ? "simulated" : "analytic"));
            json_array_append_new(plans, p);
        }
        json_object_set_new(o, "plans", plans);
        json_object_set_new(o, "candidates_evaluated", json_integer(x->evaluated));
        if (x->status == 0) {
            json_object_set_new(o, "hours_per_billion_tokens", json_real(x->hours_per_btok));
            json_object_set_new(o, "dollars_per_billion_tokens", json_real(x->dollars_per_btok));
        } else {
            json_object_set_new(o, x->status == 1 ? "no_fit" : "refused", json_string(x->why));
        }
        json_array_append_new(arr, o);
    }
    json_object_set_new(j, "answers", arr);
    nf = pt_emit_sweep_front(g, a, &front);
    for (int k = 0; k < nf; k++) json_array_append_new(fr, json_integer(front[k]));
    json_object_set_new(j, "pareto_front", fr);
    free(front);
    if (nf < 0) {
        json_decref(j);
        return pt_diag_set(d, NULL, NULL, NULL, "out of memory"), PT_ENOMEM;
    }
    return pt_emit_json_finish(j, out, d);
}

/* ---- the report ----------------------------------------------------------- */

static void list_kv(pt_emit_buf *b, const char *key, int n, const char *const *s, const int64_t *v)
{
    char buf[1200];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used + 80 < sizeof buf; i++) {
        if (s) used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? ", " : "", s[i]);
        else if (v[i]) used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%lld", i ? ", " : "", (long long)v[i]);
        else used += (size_t)snprintf(buf + used, sizeof buf - used, "%sthe model's", i ? ", " : "");
    }
    pt_html_kv(b, key, buf);
}

/* The arrays a Pareto chart needs, in one allocation each. */
typedef struct chart_data {
    double *x, *y;
    char (*tip)[384];
    char (*label)[24];
    const char **tp, **lp;
} chart_data;

static int chart_alloc(chart_data *c, int64_t n)
{
    size_t k = (size_t)(n > 0 ? n : 1);
    c->x = calloc(k, sizeof *c->x), c->y = calloc(k, sizeof *c->y);
    c->tip = calloc(k, sizeof *c->tip), c->label = calloc(k, sizeof *c->label);
    c->tp = calloc(k, sizeof *c->tp), c->lp = calloc(k, sizeof *c->lp);
    return c->x && c->y && c->tip && c->label && c->tp && c->lp;
}

static void chart_free(chart_data *c)
{
    free(c->x), free(c->y), free(c->tip), free(c->label), free(c->tp), free(c->lp);
}

/* "llama3-8b on 8 x dgx-h100, 2048 in / 256 out, 4 req/s, TTFT <= 500 ms":
 * a serving question in a few words. */
static void serve_words(const pt_sweep_grid *g, const pt_sweep_answer *a, int64_t i, char *buf, size_t n)
{
    pt_sweep_q q = pt_sweep_question(g, i);
    char load[32];
    size_t k;
    load_words(g, q, load, sizeof load);
    snprintf(buf, n, "%s on %lld x %s, %lld in / %lld out tokens, %s", g->model_arg[q.model],
             (long long)a->devices, g->cluster_arg[q.cluster], (long long)g->isl[q.isl], (long long)g->osl[q.osl],
             load);
    k = strlen(buf);
    if (g->ttft_ms[q.ttft] > 0 && k < n) k += (size_t)snprintf(buf + k, n - k, ", TTFT <= %g ms", g->ttft_ms[q.ttft]);
    if (g->tpot_ms[q.tpot] > 0 && k < n) snprintf(buf + k, n - k, ", TPOT <= %g ms", g->tpot_ms[q.tpot]);
}

/* pt_html_xy draws at most 16 series: with more than 15 models, models 15
 * and on share one series, "N other models". */
enum { CHART_MODELS = 15 };

static int model_series(const pt_sweep_grid *g, int model)
{
    return g->nmodel <= CHART_MODELS || model < CHART_MODELS - 1 ? model : CHART_MODELS - 1;
}

/* The Pareto chart: every answer with a point (pt_emit_sweep_point), one
 * series of dots per model, then the front as a line, its points labelled
 * with their answer numbers. */
static void pareto_chart(pt_emit_buf *b, const pt_sweep_grid *g, const pt_sweep_answer *a, const int64_t *front,
                         int nf)
{
    chart_data cd;
    int nser = g->nmodel <= CHART_MODELS ? g->nmodel : CHART_MODELS;
    pt_html_series *ser = calloc((size_t)nser + 1, sizeof *ser);
    int64_t used = 0;
    int serve = g->cmd == PT_SWEEP_SERVE;
    char title[160], xlabel[80], others[48];
    if (!ser || !chart_alloc(&cd, g->n + nf)) {
        free(ser);
        if (ser) chart_free(&cd);
        b->oom = 1;
        return;
    }
    snprintf(others, sizeof others, "%d other models", g->nmodel - (CHART_MODELS - 1));
    /* one series of dots per model, in grid order, then the front */
    for (int si = 0; si < nser; si++) {
        int64_t start = used;
        for (int64_t i = 0; i < g->n; i++) {
            char w[600];
            double x, usd;
            if (model_series(g, pt_sweep_question(g, i).model) != si || !pt_emit_sweep_point(g, &a[i], &x, &usd))
                continue;
            cd.x[used] = x, cd.y[used] = usd;
            if (serve) {
                serve_words(g, &a[i], i, w, sizeof w);
                snprintf(cd.tip[used], sizeof cd.tip[used], "#%lld %.250s: TTFT p%d %.4g ms, $%.4g per 1M tokens, "
                         "%.0f tokens/s", (long long)i + 1, w, g->percentile, x, usd, a[i].serve.tokens_per_s);
            } else {
                question_words(g, &a[i], i, w, sizeof w);
                snprintf(cd.tip[used], sizeof cd.tip[used], "#%lld %.300s: %.3g h and $%.0f per 1B tokens",
                         (long long)i + 1, w, x, usd);
            }
            cd.tp[used] = cd.tip[used];
            used++;
        }
        ser[si] = (pt_html_series){g->nmodel > CHART_MODELS && si == CHART_MODELS - 1 ? others : g->model[si].name,
                                   (int)(used - start), cd.x + start, cd.y + start, NULL, cd.tp + start, 0, 1};
    }
    {
        /* the front from fastest to cheapest, each point labelled with its number */
        int64_t start = used;
        int64_t *order = malloc((size_t)(nf > 0 ? nf : 1) * sizeof *order);
        if (!order) {
            b->oom = 1;
        } else {
            memcpy(order, front, (size_t)nf * sizeof *order);
            for (int k = 0; k < nf; k++) {
                double x = 0, usd = 0;
                pt_emit_sweep_point(g, &a[order[k]], &x, &usd);
                cd.x[used + k] = x, cd.y[used + k] = usd;
            }
            for (int i = 1; i < nf; i++) /* insertion sort by x, few points */
                for (int j = i; j > 0 && cd.x[used + j] < cd.x[used + j - 1]; j--) {
                    int64_t t = order[j];
                    double tx = cd.x[used + j], ty = cd.y[used + j];
                    order[j] = order[j - 1], order[j - 1] = t;
                    cd.x[used + j] = cd.x[used + j - 1], cd.y[used + j] = cd.y[used + j - 1];
                    cd.x[used + j - 1] = tx, cd.y[used + j - 1] = ty;
                }
            for (int k = 0; k < nf; k++) {
                snprintf(cd.label[used], sizeof cd.label[used], "#%lld", (long long)order[k] + 1);
                cd.lp[used] = cd.label[used];
                used++;
            }
            free(order);
        }
        ser[nser] = (pt_html_series){"Pareto front (labelled: answer #)", (int)(used - start), cd.x + start,
                                     cd.y + start, cd.lp + start, NULL, 1, 0};
    }
    if (serve) {
        snprintf(title, sizeof title, "time to first token (p%d) against dollars per 10^6 output tokens, every "
                 "answer that meets its objectives", g->percentile);
        snprintf(xlabel, sizeof xlabel, "TTFT p%d, ms", g->percentile);
    }
    {
        pt_html_xy_chart c = {serve ? title : "time against dollars per 10^9 tokens trained, every answer",
                              serve ? xlabel : "hours per 10^9 tokens",
                              serve ? "dollars per 10^6 output tokens" : "dollars per 10^9 tokens", 1, 1,
                              nser + 1, ser};
        pt_html_xy(b, &c);
    }
    chart_free(&cd);
    free(ser);
}

static void list_reals(pt_emit_buf *b, const char *key, int n, const double *v, const char *unit, const char *none)
{
    char buf[1200];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used + 80 < sizeof buf; i++) {
        if (v[i] > 0) used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%g%s", i ? ", " : "", v[i], unit);
        else used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? ", " : "", none);
    }
    pt_html_kv(b, key, buf);
}

/* The top of a sweep's report, either kind: title, navigation, and the
 * grid's models, clusters and device counts (the rest of the grid is the
 * caller's); names has room for max(models, clusters). */
static void html_head(pt_emit_buf *b, const pt_sweep_grid *g, const char **names, const char *what,
                      const char *by)
{
    char title[400], sub[200];
    snprintf(title, sizeof title, "Sweep of %lld %s (%.200s)", (long long)g->n, what, g->file);
    snprintf(sub, sizeof sub, "partita sweep report: each question answered by the %s, best plan only", by);
    pt_html_begin(b, title, sub);
    pt_emit_buf_puts(b, "<nav><a href=\"#question\">grid</a><a href=\"#pareto\">Pareto front</a>"
                        "<a href=\"#plans\">answers</a></nav>\n");
    pt_html_section(b, "question", "The grid");
    pt_emit_buf_puts(b, "<dl class=\"q\">\n");
    for (int i = 0; i < g->nmodel; i++) names[i] = g->model_arg[i];
    list_kv(b, "models", g->nmodel, names, NULL);
    for (int i = 0; i < g->ncluster; i++) names[i] = g->cluster_arg[i];
    list_kv(b, "clusters", g->ncluster, names, NULL);
    list_kv(b, "GPUs", g->ngpus, NULL, g->gpus);
}

/* The serving grid's report: the grid, the front of TTFT against dollars
 * per 10^6 output tokens, every answer. */
static pt_status html_serve(const pt_sweep_grid *g, const pt_sweep_answer *a, char **out, pt_diag *d)
{
    pt_emit_buf b = {0};
    int64_t *front = NULL, missed = 0;
    int nf;
    char v[200];
    const char **names = calloc((size_t)(g->nmodel > g->ncluster ? g->nmodel : g->ncluster) + 1, sizeof *names);
    nf = pt_emit_sweep_front(g, a, &front);
    if (!names || nf < 0) {
        free(names), free(front);
        return pt_diag_set(d, NULL, NULL, NULL, "out of memory"), PT_ENOMEM;
    }
    html_head(&b, g, names, "serving questions", "serving search");
    list_kv(&b, "prompt (tokens)", g->nisl, NULL, g->isl);
    list_kv(&b, "output (tokens)", g->nosl, NULL, g->osl);
    list_reals(&b, "load (requests/s to the whole deployment)", g->nrate, g->rate, "", "offline");
    snprintf(v, sizeof v, "TTFT p%d objectives", g->percentile);
    list_reals(&b, v, g->nttft, g->ttft_ms, " ms", "none");
    snprintf(v, sizeof v, "TPOT p%d objectives", g->percentile);
    list_reals(&b, v, g->ntpot, g->tpot_ms, " ms", "none");
    snprintf(v, sizeof v, "%s weights, %s KV cache, engine %s", pt_infer_qname(g->wq), pt_infer_qname(g->kvq),
             g->engine);
    pt_html_kv(&b, "serving", v);
    pt_emit_buf_puts(&b, "</dl>\n");
    pt_html_section_end(&b);

    pt_html_section(&b, "pareto", "Pareto front: time to first token against dollars");
    for (int64_t i = 0; i < g->n; i++) missed += a[i].status == 0 && !a[i].serve.meets_slo;
    if (nf > 0) {
        pareto_chart(&b, g, a, front, nf);
        pt_emit_buf_printf(&b, "<p class=\"note\">TTFT at the p%d of the simulated requests; dollars per 10^6 output "
                               "tokens at the cluster's price per device-hour for all the question's GPUs, at the "
                               "tokens/s the plan serves under the question's load. On the front no other answer "
                               "is both sooner to the first token and cheaper. Answers that miss their objectives "
                               "(%lld) are left out.</p>\n", g->percentile, (long long)missed);
        pt_emit_buf_printf(&b, "<div class=\"wrap\"><table>\n<tr><th>#</th><th class=\"l\">question</th>"
                               "<th>TTFT p%d ms</th><th>TPOT p%d ms</th><th>tokens/s</th><th>$ / 10^6 tokens</th>"
                               "<th class=\"l\">best strategy</th></tr>\n", g->percentile, g->percentile);
        for (int k = 0; k < nf; k++) {
            int64_t i = front[k];
            char w[600];
            serve_words(g, &a[i], i, w, sizeof w);
            pt_emit_buf_printf(&b, "<tr><td>%lld</td><td class=\"l\">", (long long)i + 1);
            pt_emit_buf_xml(&b, w);
            pt_emit_buf_printf(&b, "</td><td>%.1f</td><td>%.2f</td><td>%.0f</td><td>%.3f</td><td class=\"l\">",
                               a[i].serve.ttft_ms_p, a[i].serve.tpot_ms_p, a[i].serve.tokens_per_s,
                               a[i].dollars_per_mtok);
            pt_emit_buf_xml(&b, a[i].serve.strategy);
            pt_emit_buf_puts(&b, "</td></tr>\n");
        }
        pt_emit_buf_puts(&b, "</table></div>\n");
    } else {
        pt_emit_buf_puts(&b, "<p>No front: no answer has a plan that meets its objectives and a price.</p>\n");
    }
    pt_html_section_end(&b);

    pt_html_section(&b, "plans", "Every answer, in grid order");
    pt_emit_buf_printf(&b, "<div class=\"wrap\"><table class=\"wide\">\n<tr><th>#</th><th class=\"l\">model</th>"
                           "<th class=\"l\">cluster</th><th>GPUs</th><th>tokens in / out</th><th class=\"l\">load"
                           "</th><th>objectives ms TTFT / TPOT</th><th>tokens/s</th><th>TTFT p%d ms</th>"
                           "<th>TPOT p%d ms</th><th>meets</th><th>memory GiB</th><th>$ / 10^6 tokens</th>"
                           "<th class=\"l\">best strategy</th></tr>\n",
                       g->percentile, g->percentile);
    for (int64_t i = 0; i < g->n; i++) {
        pt_sweep_q q = pt_sweep_question(g, i);
        const pt_sweep_answer *x = &a[i];
        char s[400], load[32], o1[24], o2[24];
        load_words(g, q, load, sizeof load);
        objective_words(g->ttft_ms[q.ttft], o1, sizeof o1);
        objective_words(g->tpot_ms[q.tpot], o2, sizeof o2);
        pt_emit_buf_printf(&b, "<tr><td>%lld</td><td class=\"n\">", (long long)i + 1);
        pt_emit_buf_xml(&b, g->model[q.model].name);
        pt_emit_buf_puts(&b, "</td><td class=\"n\">");
        pt_emit_buf_xml(&b, g->cluster[q.cluster].name);
        pt_emit_buf_printf(&b, "</td><td>%lld</td><td>%lld / %lld</td><td class=\"n\">%s</td><td>%s / %s</td>",
                           (long long)x->devices, (long long)g->isl[q.isl], (long long)g->osl[q.osl], load, o1, o2);
        if (x->status != 0) {
            snprintf(s, sizeof s, "%s: %.300s", x->status == 1 ? "no fit" : "refused", x->why);
            pt_emit_buf_puts(&b, "<td colspan=\"7\" class=\"l\">");
            pt_emit_buf_xml(&b, s);
            pt_emit_buf_puts(&b, "</td></tr>\n");
            continue;
        }
        pt_emit_buf_printf(&b, "<td>%.0f</td><td>%.1f</td><td>%.2f</td><td>%s</td><td>%.1f</td>",
                           x->serve.tokens_per_s, x->serve.ttft_ms_p, x->serve.tpot_ms_p,
                           x->serve.meets_slo ? "yes" : "no",
                           (x->serve.mem.weights_bytes + x->serve.mem.kv_budget_bytes +
                            x->serve.mem.activation_bytes) / PT_GiB);
        if (x->dollars_per_mtok > 0) pt_emit_buf_printf(&b, "<td>%.3f</td>", x->dollars_per_mtok);
        else pt_emit_buf_puts(&b, "<td>-</td>");
        pt_emit_buf_puts(&b, "<td class=\"s\">");
        pt_emit_buf_xml(&b, x->serve.strategy);
        pt_emit_buf_puts(&b, "</td></tr>\n");
    }
    pt_emit_buf_puts(&b, "</table></div>\n");
    pt_html_section_end(&b);
    pt_html_end(&b);
    free(front);
    free(names);
    return pt_emit_buf_finish(&b, out, d);
}

pt_status pt_emit_html_sweep(const pt_sweep_grid *g, const pt_sweep_answer *a, char **out, pt_diag *d)
{
    pt_emit_buf b = {0};
    int64_t *front = NULL;
    int nf;
    const char **names = calloc((size_t)(g->nmodel > g->ncluster ? g->nmodel : g->ncluster) + 1, sizeof *names);
    assert(g && a && out);
    *out = NULL;
    if (g->cmd == PT_SWEEP_SERVE) {
        free(names);
        return html_serve(g, a, out, d);
    }
    nf = pt_emit_sweep_front(g, a, &front);
    if (!names || nf < 0) {
        free(names), free(front);
        return pt_diag_set(d, NULL, NULL, NULL, "out of memory"), PT_ENOMEM;
    }
    html_head(&b, g, names, "questions", "plan search");
    list_kv(&b, "global batch (sequences)", g->ngbs, NULL, g->gbs);
    list_kv(&b, "sequence length (tokens)", g->nseq, NULL, g->seq);
    for (int i = 0; i < g->nobj; i++) names[i] = pt_sweep_obj_name(g->obj[i]);
    list_kv(&b, "objectives", g->nobj, names, NULL);
    pt_html_kv(&b, "data type", pt_dtype_name(g->dtype));
    pt_emit_buf_puts(&b, "</dl>\n");
    pt_html_section_end(&b);

    pt_html_section(&b, "pareto", "Pareto front: time against dollars");
    if (nf > 0) {
        pareto_chart(&b, g, a, front, nf);
        pt_emit_buf_puts(&b, "<p class=\"note\">Both per 10^9 tokens trained at the answer's predicted speed, "
                             "dollars at the cluster's price per device-hour. On the front no other answer is "
                             "both faster and cheaper.</p>\n<div class=\"wrap\"><table>\n<tr><th>#</th>"
                             "<th class=\"l\">question</th><th>hours / 10^9 tokens</th><th>$ / 10^9 tokens</th>"
                             "<th class=\"l\">best strategy</th></tr>\n");
        for (int k = 0; k < nf; k++) {
            int64_t i = front[k];
            char w[600], s[256];
            question_words(g, &a[i], i, w, sizeof w);
            short_strategy(&a[i].best.st, s, sizeof s);
            pt_emit_buf_printf(&b, "<tr><td>%lld</td><td class=\"l\">", (long long)i + 1);
            pt_emit_buf_xml(&b, w);
            pt_emit_buf_printf(&b, "</td><td>%.3f</td><td>%.0f</td><td class=\"l\">", a[i].hours_per_btok,
                               a[i].dollars_per_btok);
            pt_emit_buf_xml(&b, s);
            pt_emit_buf_puts(&b, "</td></tr>\n");
        }
        pt_emit_buf_puts(&b, "</table></div>\n");
    } else {
        pt_emit_buf_puts(&b, "<p>No front: no answer has both a plan and a price.</p>\n");
    }
    pt_html_section_end(&b);

    pt_html_section(&b, "plans", "Every answer, in grid order");
    pt_emit_buf_puts(&b, "<div class=\"wrap\"><table class=\"wide\">\n<tr><th>#</th><th class=\"l\">model</th><th class=\"l\">cluster"
                         "</th><th>GPUs</th><th>batch</th><th>seq</th><th class=\"l\">objective</th><th>step s</th>"
                         "<th>tokens/s</th><th>MFU</th><th>memory GiB</th><th>h / 10^9 tokens</th>"
                         "<th>$ / 10^9 tokens</th><th class=\"l\">best strategy</th></tr>\n");
    for (int64_t i = 0; i < g->n; i++) {
        pt_sweep_q q = pt_sweep_question(g, i);
        const pt_sweep_answer *x = &a[i];
        char s[400];
        pt_emit_buf_printf(&b, "<tr><td>%lld</td><td class=\"n\">", (long long)i + 1);
        pt_emit_buf_xml(&b, g->model[q.model].name);
        pt_emit_buf_puts(&b, "</td><td class=\"n\">");
        pt_emit_buf_xml(&b, g->cluster[q.cluster].name);
        pt_emit_buf_printf(&b, "</td><td>%lld</td><td>%lld</td><td>%lld</td><td class=\"l\">%s</td>",
                           (long long)x->devices, (long long)g->gbs[q.gbs], (long long)x->seq_len,
                           pt_sweep_obj_name(g->obj[q.obj]));
        if (x->status != 0) {
            snprintf(s, sizeof s, "%s: %.300s", x->status == 1 ? "no fit" : "refused", x->why);
            pt_emit_buf_puts(&b, "<td colspan=\"7\" class=\"l\">");
            pt_emit_buf_xml(&b, s);
            pt_emit_buf_puts(&b, "</td></tr>\n");
            continue;
        }
        short_strategy(&x->best.st, s, sizeof s);
        pt_emit_buf_printf(&b, "<td>%.3f</td><td>%.0f</td><td>%.1f%%</td><td>%.1f</td><td>%.3f</td><td>%.0f</td>"
                               "<td class=\"s\">",
                           x->best.cost.step_time_s, x->best.cost.tokens_per_s, 100.0 * x->best.cost.mfu,
                           (double)(x->check.simulated ? x->check.simulated_peak_bytes : x->best.cost.mem.total) /
                               PT_GiB,
                           x->hours_per_btok, x->dollars_per_btok);
        pt_emit_buf_xml(&b, s);
        pt_emit_buf_puts(&b, "</td></tr>\n");
    }
    pt_emit_buf_puts(&b, "</table></div>\n");
    pt_html_section_end(&b);
    pt_html_end(&b);
    free(front);
    free(names);
    return pt_emit_buf_finish(&b, out, d);
}
