/*
 * scale_out.c -- `partita scale` as JSON and as an SVG chart (see emit.h):
 * time to train against the device count, data parallelism alone against
 * hybrid data x model parallelism (src/plan/scale.h computes it).
 * Not here: the human table (src/cli/cmd_scale.c).
 */
#include "emit/emit.h"
#include "emit/trials_out.h"
#include "goal/ttt.h"
#include "goal/scale.h"
#include "base/base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A configuration, or JSON null when nothing fits. */
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
    json_object_set_new(j, "best_hybrid_gpus",
                        r->best_hybrid_gpus ? json_integer(r->best_hybrid_gpus) : json_null());
    json_object_set_new(j, "hybrid_gain_at_scale",
                        r->best_dp_gpus && r->best_hybrid_gpus ? json_real(r->gain) : json_null());
    json_object_set_new(j, "paper_gain", r->paper_gain > 0 ? json_real(r->paper_gain) : json_null());
    json_object_set_new(j, "gradient_exchange", r->xchg.machines ? pt_emit_ps_json(&r->xchg) : json_null());
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

pt_status pt_emit_scale_json(const pt_graph *g, const pt_cluster *c, const pt_statef *se, const char *se_src,
                             const pt_scale_result *r, char **out, pt_diag *d)
{
    return pt_emit_json_finish(scale_json(g, c, se, se_src, r), out, d);
}

/* The chart's frame (pixels) and the log-log mapping of a point into it. */
typedef struct frame {
    double W, H, L, R, T, B; /* size and margins: left, right, top, bottom */
    double x0, x1;           /* log2 of the first and last device count    */
    double lo, hi;           /* decades of minutes at the bottom and top    */
} frame;

static double px(const frame *f, int64_t n)
{
    return f->L + (log2((double)n) - f->x0) / (f->x1 - f->x0) * (f->W - f->L - f->R);
}

static double py(const frame *f, double s)
{
    return f->T + (f->hi - log10(s / 60.0)) / (f->hi - f->lo) * (f->H - f->T - f->B);
}

pt_status pt_emit_scale_svg(const pt_graph *g, const pt_cluster *c, const pt_scale_result *r, char **out,
                            pt_diag *d)
{
    pt_emit_buf b;
    frame f = {.W = 720, .H = 420, .L = 80, .R = 170, .T = 40, .B = 60};
    double lo = INFINITY, hi = 0;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < r->n; i++) {
        const pt_scale_cfg *cs[2] = {&r->pt[i].dp, &r->pt[i].hybrid};
        for (int k = 0; k < 2; k++)
            if (cs[k]->ok) {
                if (cs[k]->time_s < lo) lo = cs[k]->time_s;
                if (cs[k]->time_s > hi) hi = cs[k]->time_s;
            }
    }
    if (r->n < 1 || !(hi > 0))
        return pt_diag_set(d, NULL, "svg", NULL, "scale: nothing fits; no picture to draw");
    f.x0 = log2((double)r->pt[0].gpus), f.x1 = log2((double)r->pt[r->n - 1].gpus);
    if (f.x1 <= f.x0) f.x1 = f.x0 + 1;
    f.lo = floor(log10(lo / 60.0)), f.hi = ceil(log10(hi / 60.0));
    if (f.hi <= f.lo) f.hi = f.lo + 1;
    pt_emit_buf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                           "font-family=\"sans-serif\" font-size=\"12\">\n", f.W, f.H);
    pt_emit_buf_printf(&b, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", f.W, f.H);
    pt_emit_buf_printf(&b, "<text x=\"%.0f\" y=\"22\" font-size=\"14\">time to train ", f.L);
    pt_emit_buf_xml(&b, g->name);
    pt_emit_buf_puts(&b, " on ");
    pt_emit_buf_xml(&b, c->name);
    pt_emit_buf_puts(&b, ": data parallel vs hybrid</text>\n");
    for (double e = f.lo; e <= f.hi + 1e-9; e += 1) {
        double y = f.T + (f.hi - e) / (f.hi - f.lo) * (f.H - f.T - f.B);
        pt_emit_buf_printf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", f.L,
                           y, f.W - f.R, y);
        pt_emit_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g min</text>\n", f.L - 6,
                           y + 4, pow(10, e));
    }
    for (int i = 0; i < r->n; i++) {
        double x = px(&f, r->pt[i].gpus);
        pt_emit_buf_printf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", x,
                           f.T, x, f.H - f.B);
        pt_emit_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%lld</text>\n", x,
                           f.H - f.B + 16, (long long)r->pt[i].gpus);
    }
    pt_emit_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">GPUs</text>\n",
                       (f.L + f.W - f.R) / 2, f.H - 20);
    for (int k = 0; k < 2; k++) {
        const char *color = k ? "#d62728" : "#1f77b4";
        int first = 1;
        pt_emit_buf_printf(&b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
        for (int i = 0; i < r->n; i++) {
            const pt_scale_cfg *cs = k ? &r->pt[i].hybrid : &r->pt[i].dp;
            if (!cs->ok) continue;
            pt_emit_buf_printf(&b, "%s%.1f,%.1f", first ? "" : " ", px(&f, r->pt[i].gpus), py(&f, cs->time_s));
            first = 0;
        }
        pt_emit_buf_puts(&b, "\"/>\n");
        for (int i = 0; i < r->n; i++) {
            const pt_scale_cfg *cs = k ? &r->pt[i].hybrid : &r->pt[i].dp;
            if (cs->ok)
                pt_emit_buf_printf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                                   px(&f, r->pt[i].gpus), py(&f, cs->time_s), color);
        }
        pt_emit_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>\n", f.W - f.R + 12,
                           f.T + 20 + 18 * k, color, k ? "hybrid (data x model)" : "data parallel alone");
    }
    if (r->crossover_gpus) {
        double x = px(&f, r->crossover_gpus);
        pt_emit_buf_printf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" "
                               "stroke-dasharray=\"4 3\"/>\n", x, f.T, x, f.H - f.B);
        pt_emit_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">crossover</text>\n", x + 4, f.T + 12);
    }
    if (r->best_dp_gpus && r->best_hybrid_gpus)
        pt_emit_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\">gain at scale %.1f%%</text>\n", f.W - f.R + 12,
                           f.T + 64, 100.0 * r->gain);
    pt_emit_buf_puts(&b, "</svg>\n");
    return pt_emit_buf_finish(&b, out, d);
}
