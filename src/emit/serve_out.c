/*
 * serve_out.c -- `partita serve`'s table and JSON (serve_out.h).
 */
#include "emit/serve_out.h"
#include "base/base.h"
#include "emit/emit.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const char *mode_name(pt_serve_mode m)
{
    return m == PT_SERVE_RATE ? "rate" : m == PT_SERVE_CONCURRENCY ? "concurrency" : "offline";
}

json_t *pt_emit_serve_plan_json(const pt_serve_plan *p)
{
    json_t *j = json_object(), *s = json_object(), *mem = json_object();
    double kv = p->mem.kv_budget_bytes / PT_GiB, w = p->mem.weights_bytes / PT_GiB;
    double a = p->mem.activation_bytes / PT_GiB;
    char dis[48];
    json_object_set_new(s, "tp", json_integer(p->cfg.tp));
    json_object_set_new(s, "pp", json_integer(p->cfg.pp));
    json_object_set_new(s, "ep", json_integer(p->cfg.ep));
    json_object_set_new(s, "attn_dp", json_integer(p->cfg.attn_dp));
    json_object_set_new(s, "replicas", json_integer(p->replicas));
    json_object_set_new(s, "batch", json_integer(p->batch));
    json_object_set_new(s, "dwdp", json_integer(p->cfg.dwdp));
    json_object_set_new(s, "shift", json_integer(p->cfg.seq_par == 2));
    snprintf(dis, sizeof dis, "%lld:%lld", (long long)p->prefill_gpus, (long long)p->decode_gpus);
    json_object_set_new(s, "disagg", json_string(p->prefill_gpus > 0 ? dis : ""));
    json_object_set_new(s, "dtype", json_string(pt_infer_qname(p->cfg.wq)));
    json_object_set_new(s, "kv_dtype", json_string(pt_infer_qname(p->cfg.kvq)));
    json_object_set_new(j, "strategy", s);
    json_object_set_new(j, "strategy_string", json_string(p->strategy));
    json_object_set_new(j, "tp", json_integer(p->cfg.tp));
    json_object_set_new(j, "pp", json_integer(p->cfg.pp));
    json_object_set_new(j, "ep", json_integer(p->cfg.ep));
    json_object_set_new(j, "replicas", json_integer(p->replicas));
    json_object_set_new(j, "batch", json_integer(p->batch));
    json_object_set_new(j, "tokens_per_s", json_real(p->tokens_per_s));
    json_object_set_new(j, "tokens_per_s_per_gpu", json_real(p->tokens_per_s_per_gpu));
    json_object_set_new(j, "ttft_ms", json_real(p->ttft_ms));
    json_object_set_new(j, "tpot_ms", json_real(p->tpot_ms));
    json_object_set_new(j, "ttft_ms_p", json_real(p->ttft_ms_p));
    json_object_set_new(j, "tpot_ms_p", json_real(p->tpot_ms_p));
    json_object_set_new(j, "meets_slo", json_boolean(p->meets_slo));
    if (p->goodput_rps > 0) json_object_set_new(j, "goodput_rps", json_real(p->goodput_rps));
    json_object_set_new(mem, "weights", json_real(w));
    json_object_set_new(mem, "kv_cache", json_real(kv));
    json_object_set_new(mem, "activations", json_real(a));
    json_object_set_new(mem, "total", json_real(w + kv + a));
    json_object_set_new(j, "memory_GiB", mem);
    json_object_set_new(j, "fits", json_boolean(p->fits));
    return j;
}

pt_status pt_emit_serve_json(const pt_model *m, const pt_cluster *c, const pt_serve_opts *o,
                             const pt_serve_result *r, char **out, pt_diag *d)
{
    json_t *j = json_object(), *q = json_object(), *plans = json_array();
    json_object_set_new(q, "model", json_string(m->name));
    json_object_set_new(q, "cluster", json_string(c->name));
    json_object_set_new(q, "device", json_string(c->dev.name));
    json_object_set_new(q, "gpus", json_integer(c->devices));
    json_object_set_new(q, "isl", json_real(o->isl));
    json_object_set_new(q, "osl", json_real(o->osl));
    json_object_set_new(q, "load", json_string(mode_name(o->mode)));
    if (o->mode == PT_SERVE_RATE) json_object_set_new(q, "rate", json_real(o->rate));
    if (o->mode == PT_SERVE_CONCURRENCY) json_object_set_new(q, "concurrency", json_integer(o->concurrency));
    json_object_set_new(q, "ttft_ms", json_real(o->ttft_ms));
    json_object_set_new(q, "tpot_ms", json_real(o->tpot_ms));
    json_object_set_new(q, "percentile", json_integer(o->percentile));
    json_object_set_new(q, "engine", json_string(o->engine));
    json_object_set_new(j, "question", q);
    json_object_set_new(j, "candidates_evaluated", json_integer(r->evaluated));
    json_object_set_new(j, "any_meets_slo", json_boolean(r->any_meets));
    for (int i = 0; i < r->n; i++) json_array_append_new(plans, pt_emit_serve_plan_json(&r->plans[i]));
    json_object_set_new(j, "plans", plans);
    return pt_emit_json_finish(j, out, d);
}

void pt_emit_serve_closest(const pt_serve_opts *o, const pt_serve_plan *p, char *buf, size_t n)
{
    char t[80] = "", u[80] = "";
    if (o->ttft_ms > 0) snprintf(t, sizeof t, " (objective %g ms)", o->ttft_ms);
    if (o->tpot_ms > 0) snprintf(u, sizeof u, " (objective %g ms)", o->tpot_ms);
    snprintf(buf, n, "nothing meets the objectives; the closest is %s: TTFT p%d %.1f ms%s, TPOT p%d "
             "%.2f ms%s", p->strategy, o->percentile, p->ttft_ms_p, t, o->percentile, p->tpot_ms_p, u);
}

pt_status pt_emit_serve_table(const pt_model *m, const pt_cluster *c, const pt_serve_opts *o,
                              const pt_serve_result *r, char **out, pt_diag *d)
{
    pt_emit_buf b = {0};
    char mn[200], cn[200], load[64], obj[96] = "none", tp[16], up[16];
    if (o->mode == PT_SERVE_RATE) snprintf(load, sizeof load, "%g requests/s", o->rate);
    else if (o->mode == PT_SERVE_CONCURRENCY)
        snprintf(load, sizeof load, "%lld in flight", (long long)o->concurrency);
    else snprintf(load, sizeof load, "offline");
    if (o->ttft_ms > 0 || o->tpot_ms > 0)
        snprintf(obj, sizeof obj, "p%d TTFT <= %g ms, TPOT <= %g ms", o->percentile,
                 o->ttft_ms > 0 ? o->ttft_ms : 0.0, o->tpot_ms > 0 ? o->tpot_ms : 0.0);
    pt_emit_buf_printf(&b, "serving %s on %lld x %s (%s), %g in / %g out tokens, %s, %s weights, "
                       "%s KV, engine %s\n", pt_str_escape(m->name, mn, sizeof mn),
                       (long long)c->devices, c->dev.name, pt_str_escape(c->name, cn, sizeof cn),
                       o->isl, o->osl, load, pt_infer_qname(o->wq), pt_infer_qname(o->kvq), o->engine);
    pt_emit_buf_printf(&b, "objectives: %s; %lld candidates priced, %lld fit\n\n", obj,
                       (long long)r->evaluated, (long long)r->fitting);
    snprintf(tp, sizeof tp, "TTFT p%d", o->percentile);
    snprintf(up, sizeof up, "TPOT p%d", o->percentile);
    pt_emit_buf_printf(&b, "%4s  %-62s %9s %7s %9s %9s %8s %8s %4s %6s\n", "rank", "strategy",
                       "tok/s", "tok/s/g", "TTFT ms", tp, "TPOT ms", up, "SLO", "KV GiB");
    for (int i = 0; i < r->n; i++) {
        const pt_serve_plan *p = &r->plans[i];
        pt_emit_buf_printf(&b, "%4d  %-62s %9.0f %7.0f %9.1f %9.1f %8.2f %8.2f %4s %6.1f\n", i + 1,
                           p->strategy, p->tokens_per_s, p->tokens_per_s_per_gpu, p->ttft_ms, p->ttft_ms_p,
                           p->tpot_ms, p->tpot_ms_p, p->meets_slo ? "yes" : "no",
                           p->mem.kv_budget_bytes / PT_GiB);
    }
    for (int i = 0; i < r->n; i++)
        if (r->plans[i].goodput_rps > 0) {
            pt_emit_buf_printf(&b, "\ngoodput (90%% of requests meet both objectives) of plan %d: %.2f "
                               "requests/s\n", i + 1, r->plans[i].goodput_rps);
            break;
        }
    for (int i = 0; i < r->n; i++)
        if (r->plans[i].cfg.seq_par == 2) {
            double sw = pt_serve_shift_point(m, c, &r->plans[i].cfg);
            if (sw > 0)
                pt_emit_buf_printf(&b, "\nshift parallelism (plan %d): steps of %.0f tokens or more run as "
                                   "sequence parallelism, smaller ones as TP\n", i + 1, sw);
            else
                pt_emit_buf_printf(&b, "\nshift parallelism (plan %d): every step runs as TP\n", i + 1);
            break;
        }
    if (!r->any_meets) {
        char line[400];
        pt_emit_serve_closest(o, &r->closest, line, sizeof line);
        pt_emit_buf_printf(&b, "\n%s\n", line);
    }
    return pt_emit_buf_finish(&b, out, d);
}
