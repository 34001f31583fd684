/*
 * cmd_scale.c -- `partita scale MODEL --cluster C --max-gpus N`: time to
 * train against the device count, data parallelism alone against hybrid
 * data x model parallelism (src/goal/scale.h).
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/emit.h"
#include "goal/statef_csv.h"
#include "goal/scale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *cfg_json(const pt_scale_cfg *c)
{
    char buf[160];
    json_t *j;
    if (!c->ok) return json_null();
    pt_scale_cfg_string(c, buf, sizeof buf);
    j = json_object();
    json_object_set_new(j, "strategy_string", json_string(buf));
    json_object_set_new(j, "dp", json_integer(c->dp));
    json_object_set_new(j, "mp", json_integer(c->m));
    json_object_set_new(j, "micro_batches", json_integer(c->k));
    json_object_set_new(j, "global_batch", json_real(c->global_batch));
    json_object_set_new(j, "worker_batch", json_real(c->worker_batch));
    json_object_set_new(j, "step_time_s", json_real(c->step_s));
    json_object_set_new(j, "epochs", json_real(c->epochs));
    json_object_set_new(j, "steps", json_real(c->steps));
    json_object_set_new(j, "time_to_train_s", json_real(c->time_s));
    json_object_set_new(j, "memory_GiB", json_real(c->mem_GiB));
    return j;
}

static json_t *scale_json(const pt_graph *g, const pt_cluster *c, const pt_statef *se, const char *se_src,
                          const pt_scale_result *r)
{
    json_t *j = json_object(), *pts = json_array(), *mps = json_array(), *s = json_object();
    json_object_set_new(j, "model", json_string(g->name));
    json_object_set_new(j, "cluster", json_string(c->name));
    json_object_set_new(j, "device", json_string(c->dev.name));
    json_object_set_new(s, "e_min_epochs", json_real(se->e_min));
    json_object_set_new(s, "b_noise", json_real(se->b_noise));
    json_object_set_new(s, "e_min_se", json_real(se->e_min_se));
    json_object_set_new(s, "b_noise_se", json_real(se->b_noise_se));
    json_object_set_new(s, "source", json_string(se_src));
    json_object_set_new(j, "statistical_efficiency", s);
    for (int i = 0; i < r->n; i++) {
        const pt_scale_point *p = &r->pt[i];
        json_t *o = json_object();
        char buf[160] = "";
        json_object_set_new(o, "gpus", json_integer(p->gpus));
        json_object_set_new(o, "dp_time_s", p->dp.ok ? json_real(p->dp.time_s) : json_null());
        json_object_set_new(o, "hybrid_time_s", p->hybrid.ok ? json_real(p->hybrid.time_s) : json_null());
        if (p->hybrid.ok) pt_scale_cfg_string(&p->hybrid, buf, sizeof buf);
        json_object_set_new(o, "hybrid_strategy", p->hybrid.ok ? json_string(buf) : json_null());
        json_object_set_new(o, "dp", cfg_json(&p->dp));
        json_object_set_new(o, "hybrid", cfg_json(&p->hybrid));
        json_array_append_new(pts, o);
    }
    json_object_set_new(j, "points", pts);
    json_object_set_new(j, "crossover_gpus", r->crossover_gpus ? json_integer(r->crossover_gpus) : json_null());
    json_object_set_new(j, "best_dp_time_s", r->best_dp_gpus ? json_real(r->best_dp_s) : json_null());
    json_object_set_new(j, "best_dp_gpus", r->best_dp_gpus ? json_integer(r->best_dp_gpus) : json_null());
    json_object_set_new(j, "best_hybrid_time_s", r->best_hybrid_gpus ? json_real(r->best_hybrid_s) : json_null());
    json_object_set_new(j, "best_hybrid_gpus", r->best_hybrid_gpus ? json_integer(r->best_hybrid_gpus) : json_null());
    json_object_set_new(j, "hybrid_gain_at_scale", r->best_dp_gpus && r->best_hybrid_gpus ? json_real(r->gain) : json_null());
    json_object_set_new(j, "paper_gain", r->paper_gain > 0 ? json_real(r->paper_gain) : json_null());
    for (int i = 0; i < r->nmp; i++) {
        const pt_scale_mp *m = &r->mp[i];
        json_t *o = json_object();
        json_object_set_new(o, "devices", json_integer(m->m));
        json_object_set_new(o, "worker_batch", json_real(m->batch));
        json_object_set_new(o, "micro_batches", json_integer(m->k));
        json_object_set_new(o, "groups", json_integer(m->groups));
        json_object_set_new(o, "one_device_step_s", json_real(m->single_s));
        json_object_set_new(o, "one_device_fits", json_boolean(m->single_fits));
        json_object_set_new(o, "step_time_s", json_real(m->step_s));
        json_object_set_new(o, "speedup", json_real(m->speedup));
        json_object_set_new(o, "method", json_string(pt_place_method_name(m->method)));
        json_object_set_new(o, "proven_optimal", json_boolean(m->optimal));
        json_object_set_new(o, "integer_program", json_string(m->optimal      ? "proven"
                                                               : m->too_large ? "too large"
                                                               : m->timed_out ? "time limit"
                                                                              : "node budget"));
        json_array_append_new(mps, o);
    }
    json_object_set_new(j, "model_parallel", mps);
    return j;
}

static void hms(double s, char *buf, size_t n)
{
    if (s >= 86400) snprintf(buf, n, "%.1f d", s / 86400);
    else if (s >= 3600) snprintf(buf, n, "%.1f h", s / 3600);
    else snprintf(buf, n, "%.1f min", s / 60);
}

static void scale_table(const pt_graph *g, const pt_cluster *c, const pt_statef *se, const char *se_src,
                        const pt_scale_result *r)
{
    char a[32], b[32], s[160];
    printf("time to train %s on %s (%s), data parallel alone vs hybrid data x model parallel\n", g->name,
           c->name, c->dev.name);
    printf("statistical efficiency: epochs(B) = %.3g x (1 + B / %.0f)  [%s]\n\n", se->e_min, se->b_noise, se_src);
    printf("%7s  %10s %8s %7s  %10s %8s %7s  %s\n", "gpus", "DP time", "batch", "epochs", "hybrid", "batch",
           "epochs", "hybrid strategy");
    for (int i = 0; i < r->n; i++) {
        const pt_scale_point *p = &r->pt[i];
        if (p->dp.ok) hms(p->dp.time_s, a, sizeof a);
        else snprintf(a, sizeof a, "no fit");
        if (p->hybrid.ok) hms(p->hybrid.time_s, b, sizeof b), pt_scale_cfg_string(&p->hybrid, s, sizeof s);
        else snprintf(b, sizeof b, "-"), s[0] = 0;
        printf("%7lld  %10s %8.0f %7.1f  %10s %8.0f %7.1f  %s%s\n", (long long)p->gpus, a, p->dp.global_batch,
               p->dp.epochs, b, p->hybrid.global_batch, p->hybrid.epochs, s,
               p->hybrid.ok && (!p->dp.ok || p->hybrid.time_s < p->dp.time_s) ? "  <- hybrid wins" : "");
    }
    printf("\n");
    if (r->crossover_gpus) printf("crossover: hybrid first wins at %lld GPUs\n", (long long)r->crossover_gpus);
    else printf("crossover: none up to %lld GPUs\n", (long long)r->pt[r->n - 1].gpus);
    if (r->best_dp_gpus && r->best_hybrid_gpus) {
        hms(r->best_dp_s, a, sizeof a), hms(r->best_hybrid_s, b, sizeof b);
        printf("best data parallel: %s at %lld GPUs; best hybrid: %s at %lld GPUs\n", a,
               (long long)r->best_dp_gpus, b, (long long)r->best_hybrid_gpus);
        printf("hybrid gain at scale: %.1f%%", 100.0 * r->gain);
        if (r->paper_gain > 0) printf("   (Pal et al. 2019 project at least %.1f%%)", 100.0 * r->paper_gain);
        printf("\n");
    }
    if (r->nmp) {
        printf("\nmodel-parallel speed-up of one worker over one device, same batch:\n");
        printf("%7s %8s %4s %7s %10s %10s %8s  %s\n", "devices", "batch", "k", "groups", "1 device", "worker",
               "speedup", "placement");
        for (int i = 0; i < r->nmp; i++) {
            const pt_scale_mp *m = &r->mp[i];
            printf("%7d %8.0f %4d %7d %8.1f ms%s %8.1f ms %7.2fx  %s, %s\n", m->m, m->batch, m->k, m->groups,
                   m->single_s * 1e3, m->single_fits ? " " : "*", m->step_s * 1e3, m->speedup,
                   pt_place_method_name(m->method),
                   m->optimal     ? "proven optimal"
                   : m->too_large ? "not proven (too large for the integer program)"
                   : m->timed_out ? "not proven (time limit)"
                                  : "not proven (node budget)");
        }
        for (int i = 0; i < r->nmp; i++)
            if (!r->mp[i].single_fits) {
                printf("  * one device cannot hold this batch; its time is what it would take\n");
                break;
            }
    }
}

/* Two curves, time to train against GPUs, both axes logarithmic. */
static int scale_svg(const char *path, const pt_graph *g, const pt_cluster *c, const pt_scale_result *r)
{
    pt_emit_buf b;
    pt_diag d;
    char *text;
    pt_status st;
    double lo = INFINITY, hi = 0, W = 720, H = 420, L = 80, R = 170, T = 40, B = 60;
    double x0 = log2((double)r->pt[0].gpus), x1 = log2((double)r->pt[r->n - 1].gpus);
    memset(&b, 0, sizeof b);
    for (int i = 0; i < r->n; i++) {
        const pt_scale_cfg *cs[2] = {&r->pt[i].dp, &r->pt[i].hybrid};
        for (int k = 0; k < 2; k++)
            if (cs[k]->ok) {
                if (cs[k]->time_s < lo) lo = cs[k]->time_s;
                if (cs[k]->time_s > hi) hi = cs[k]->time_s;
            }
    }
    if (!(hi > 0)) return cli_usage("scale: nothing fits; no picture to draw");
    if (x1 <= x0) x1 = x0 + 1;
    lo = floor(log10(lo / 60.0)), hi = ceil(log10(hi / 60.0));
    if (hi <= lo) hi = lo + 1;
#define PX(n) (L + (log2((double)(n)) - x0) / (x1 - x0) * (W - L - R))
#define PY(s) (T + (hi - log10((s) / 60.0)) / (hi - lo) * (H - T - B))
    pt_emit_buf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                           "font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
    pt_emit_buf_printf(&b, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", W, H);
    pt_emit_buf_printf(&b, "<text x=\"%.0f\" y=\"22\" font-size=\"14\">time to train %s on %s: "
                           "data parallel vs hybrid</text>\n", L, g->name, c->name);
    for (double e = lo; e <= hi + 1e-9; e += 1) {
        double y = T + (hi - e) / (hi - lo) * (H - T - B);
        pt_emit_buf_printf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y,
                           W - R, y);
        pt_emit_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g min</text>\n", L - 6, y + 4,
                           pow(10, e));
    }
    for (int i = 0; i < r->n; i++) {
        double x = PX(r->pt[i].gpus);
        pt_emit_buf_printf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", x, T, x,
                           H - B);
        pt_emit_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%lld</text>\n", x, H - B + 16,
                           (long long)r->pt[i].gpus);
    }
    pt_emit_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">GPUs</text>\n", (L + W - R) / 2,
                       H - 20);
    for (int k = 0; k < 2; k++) {
        const char *color = k ? "#d62728" : "#1f77b4";
        int first = 1;
        pt_emit_buf_printf(&b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
        for (int i = 0; i < r->n; i++) {
            const pt_scale_cfg *cs = k ? &r->pt[i].hybrid : &r->pt[i].dp;
            if (!cs->ok) continue;
            pt_emit_buf_printf(&b, "%s%.1f,%.1f", first ? "" : " ", PX(r->pt[i].gpus), PY(cs->time_s));
            first = 0;
        }
        pt_emit_buf_puts(&b, "\"/>\n");
        for (int i = 0; i < r->n; i++) {
            const pt_scale_cfg *cs = k ? &r->pt[i].hybrid : &r->pt[i].dp;
            if (cs->ok)
                pt_emit_buf_printf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", PX(r->pt[i].gpus),
                                   PY(cs->time_s), color);
        }
        pt_emit_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>\n", W - R + 12, T + 20 + 18 * k,
                           color, k ? "hybrid (data x model)" : "data parallel alone");
    }
    if (r->crossover_gpus) {
        double x = PX(r->crossover_gpus);
        pt_emit_buf_printf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" "
                               "stroke-dasharray=\"4 3\"/>\n", x, T, x, H - B);
        pt_emit_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">crossover</text>\n", x + 4, T + 12);
    }
    if (r->best_dp_gpus && r->best_hybrid_gpus)
        pt_emit_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\">gain at scale %.1f%%</text>\n", W - R + 12, T + 64,
                           100.0 * r->gain);
    pt_emit_buf_puts(&b, "</svg>\n");
#undef PX
#undef PY
    if ((st = pt_emit_buf_finish(&b, &text, &d)) != PT_OK) return cli_fail(st, &d);
    st = pt_write_file_atomic(path, text, strlen(text), &d);
    free(text);
    return st == PT_OK ? 0 : cli_fail(st, &d);
}

int cmd_scale(int argc, char **argv)
{
    const char *model = NULL, *cluster = NULL, *svg = NULL, *sefile = NULL;
    int64_t max_gpus = 0, ilp_nodes = 300;
    int json = 0, rc;
    pt_graph g;
    pt_cluster c;
    pt_statef se;
    pt_diag d;
    pt_status st;
    pt_scale_result r;
    pt_scale_opts o = {0};
    char se_src[300];
    o.dtype = PT_FP16;
    o.ilp_seconds = 20;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if ((!strcmp(a, "--cluster") || !strcmp(a, "--max-gpus") || !strcmp(a, "--svg") ||
             !strcmp(a, "--stat-eff") || !strcmp(a, "--ilp-nodes") || !strcmp(a, "--dtype")) && !v)
            return cli_usage("%s needs a value", a);
        if (!strcmp(a, "--cluster")) cluster = argv[++i];
        else if (!strcmp(a, "--max-gpus")) { if (cli_int(a, argv[++i], 1, &max_gpus)) return 2; }
        else if (!strcmp(a, "--ilp-nodes")) { if (cli_int(a, argv[++i], 1, &ilp_nodes)) return 2; }
        else if (!strcmp(a, "--svg")) svg = argv[++i];
        else if (!strcmp(a, "--stat-eff")) sefile = argv[++i];
        else if (!strcmp(a, "--dtype")) {
            v = argv[++i];
            if (!strcmp(v, "bf16")) o.dtype = PT_BF16;
            else if (!strcmp(v, "fp16")) o.dtype = PT_FP16;
            else if (!strcmp(v, "fp8")) o.dtype = PT_FP8;
            else return cli_usage("--dtype: \"%s\" is not one of bf16, fp16, fp8", v);
        }
        else if (!strcmp(a, "--json")) json = 1;
        else if (a[0] == '-') return cli_usage("scale: unknown option \"%s\"", a);
        else if (!model) model = a;
        else return cli_usage("scale: unexpected argument \"%s\"", a);
    }
    if (!model) return cli_usage("scale: give a MODEL (a layer graph: `partita models` lists the built-in ones)");
    if (!cluster) return cli_usage("scale: give --cluster C (a name from `partita clusters` or a cluster file)");
    if (!max_gpus) return cli_usage("scale: give --max-gpus N");
    if ((st = pt_graph_load(model, &g, &d)) != PT_OK) {
        if (!strchr(model, '/') && !strstr(model, ".json"))
            return cli_usage("scale: \"%s\" is not a layer graph (%s); for transformers use "
                             "`partita plan MODEL --objective time-to-train`", model, "scale takes a built-in graph or a graph file");
        return cli_fail(st, &d);
    }
    if ((st = pt_cluster_load(cluster, &c, &d)) != PT_OK) {
        pt_graph_free(&g);
        return cli_fail(st, &d);
    }
    if (sefile) {
        char *text = NULL;
        if ((st = pt_read_file(sefile, &text, &d)) != PT_OK ||
            (st = pt_statef_read_csv(text, sefile, g.samples_per_epoch, &se, &d)) != PT_OK) {
            if (st != PT_OK && text) free(text);
            pt_graph_free(&g);
            return cli_fail(st, &d);
        }
        free(text);
        snprintf(se_src, sizeof se_src, "fitted to %d runs in %s: E_min %.3g +- %.2g, B_noise %.0f +- %.0f", se.n,
                 sefile, se.e_min, se.e_min_se, se.b_noise, se.b_noise_se);
    } else if (pt_statef_builtin(g.name, &se)) {
        snprintf(se_src, sizeof se_src, "built in for %s, see src/goal/ttt.c", g.name);
    } else {
        pt_graph_free(&g);
        return cli_usage("scale: no statistical efficiency is built in for \"%s\"; give --stat-eff FILE.csv "
                         "(columns batch and steps, or batch and epochs)", model);
    }
    o.max_gpus = max_gpus;
    o.ilp_nodes = (int)(ilp_nodes < 1000000 ? ilp_nodes : 1000000);
    if ((st = pt_scale(&g, &c, &se, &o, &r, &d)) != PT_OK) {
        pt_graph_free(&g);
        return cli_fail(st, &d);
    }
    rc = 0;
    if (svg && (rc = scale_svg(svg, &g, &c, &r)) != 0) {
        pt_graph_free(&g);
        return rc;
    }
    if (json) {
        json_t *j = scale_json(&g, &c, &se, se_src, &r);
        char *text = pt_emit_json_text(j);
        printf("%s\n", text);
        free(text);
        json_decref(j);
    } else {
        scale_table(&g, &c, &se, se_src, &r);
    }
    pt_graph_free(&g);
    return rc;
}
