/*
 * hetero_out.c -- plans on clusters with pools, as JSON and tables (see
 * hetero_out.h).
 */
#include "emit/hetero_out.h"
#include "emit/emit.h"
#include "base/base.h"
#include "strategy/strategy.h"

#include <stdlib.h>
#include <string.h>

static double gib(int64_t b) { return (double)b / PT_GiB; }

double pt_emit_hetero_work(const pt_model *m, const pt_cluster *c, const pt_strategy *st, const pt_split *sp,
                           int k)
{
    double all = 0, mine = 0;
    for (int s = 0; s < st->pp; s++)
        for (int r = 0; r < st->dp; r++) {
            double w = (double)pt_hetero_layers(m, st, sp, s) * (double)pt_hetero_mb(st, sp, r);
            all += w;
            if (pt_hetero_pool_at(c, st, r, s) == k) mine += w;
        }
    return all > 0 ? mine / all : 0.0;
}

/* "a+b" for the devices of pools lo..hi. */
static void stage_devices(const pt_cluster *c, int lo, int hi, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = lo; k <= hi && used < n; k++) {
        char e[160];
        int w = snprintf(buf + used, n - used, "%s%s", k > lo ? "+" : "",
                         pt_str_escape(c->pool[k].dev.name, e, sizeof e));
        if (w < 0) break;
        used += (size_t)w;
    }
}

static json_t *plan_json(const pt_model *m, const pt_cluster *c, const pt_strategy *st, const pt_split *sp,
                         const pt_hetero *h, const pt_sim_hetero *sim)
{
    char buf[8192];
    json_t *o = pt_emit_plan_json(st, &h->cost), *lay = json_array(), *sh = json_array();
    json_t *stages = json_array(), *pools = json_array();
    for (int s = 0; s < st->pp; s++) json_array_append_new(lay, json_integer(pt_hetero_layers(m, st, sp, s)));
    for (int r = 0; r < st->dp; r++) json_array_append_new(sh, json_integer(pt_hetero_mb(st, sp, r)));
    json_object_set_new(json_object_get(o, "strategy"), "layers", lay);
    json_object_set_new(json_object_get(o, "strategy"), "batch_share", sh);
    pt_split_format(st, sp, buf, sizeof buf);
    json_object_set_new(o, "strategy_string", json_string(buf));
    for (int s = 0; s < st->pp; s++) {
        json_t *e = json_object(), *pl = json_array();
        stage_devices(c, h->pool_lo[s], h->pool_hi[s], buf, sizeof buf);
        for (int k = h->pool_lo[s]; k <= h->pool_hi[s]; k++) json_array_append_new(pl, json_integer(k));
        json_object_set_new(e, "stage", json_integer(s));
        json_object_set_new(e, "layers", json_integer(pt_hetero_layers(m, st, sp, s)));
        json_object_set_new(e, "device", json_string(buf));
        json_object_set_new(e, "pools", pl);
        json_object_set_new(e, "microbatch_s", json_real(h->stage_s[s]));
        json_object_set_new(e, "memory_GiB", json_real(gib(h->stage_bytes[s])));
        json_object_set_new(e, "device_memory_GiB", json_real(gib(h->stage_cap[s])));
        json_array_append_new(stages, e);
    }
    json_object_set_new(o, "stages", stages);
    for (int k = 0; k < c->npools; k++) {
        json_t *e = json_object();
        json_object_set_new(e, "pool", json_integer(k));
        json_object_set_new(e, "device", json_string(c->pool[k].dev.name));
        json_object_set_new(e, "devices", json_integer(c->pool[k].devices));
        json_object_set_new(e, "work_fraction", json_real(pt_emit_hetero_work(m, c, st, sp, k)));
        json_array_append_new(pools, e);
    }
    json_object_set_new(o, "pools", pools);
    if (sim) {
        json_object_set_new(o, "simulated_step_time_s", json_real(sim->step_time_s));
        json_object_set_new(o, "simulated_vs_analytic",
                            json_real(sim->step_time_s / h->cost.step_time_s - 1.0));
    }
    return o;
}

static void head_json(json_t *j, const pt_model *m, const pt_cluster *c, const pt_job *job)
{
    json_object_set_new(j, "model", json_string(m->name));
    json_object_set_new(j, "cluster", json_string(c->name));
    json_object_set_new(j, "devices", json_integer(c->devices));
    json_object_set_new(j, "seq_len", json_integer(job->seq_len));
    json_object_set_new(j, "dtype", json_string(pt_dtype_name(job->dtype)));
}

pt_status pt_emit_hetero_eval_json(const pt_model *m, const pt_cluster *c, const pt_job *job,
                                   const pt_strategy *st, const pt_split *sp, const pt_hetero *h,
                                   const pt_sim_hetero *sim, char **out, pt_diag *d)
{
    json_t *j = json_object(), *p = plan_json(m, c, st, sp, h, sim);
    head_json(j, m, c, job);
    json_object_update(j, p);
    json_decref(p);
    return pt_emit_json_finish(j, out, d);
}

pt_status pt_emit_hetero_search_json(const pt_model *m, const pt_cluster *c, const pt_job *job,
                                     const pt_hsearch_result *r, const pt_sim_hetero *sims, double seconds,
                                     char **out, pt_diag *d)
{
    json_t *j = json_object(), *plans = json_array();
    head_json(j, m, c, job);
    json_object_set_new(j, "candidates_evaluated", json_integer(r->evaluated));
    json_object_set_new(j, "search_seconds", json_real(seconds));
    for (int i = 0; i < r->n; i++)
        json_array_append_new(plans, plan_json(m, c, &r->plans[i].st, &r->plans[i].sp, &r->plans[i].h,
                                               sims ? &sims[i] : NULL));
    json_object_set_new(j, "plans", plans);
    return pt_emit_json_finish(j, out, d);
}

static void head_table(FILE *f, const pt_model *m, const pt_cluster *c, const pt_job *job)
{
    char mn[300], cn[300], dn[160], docs[48], comm[80];
    fprintf(f, "model      %s (%.1fB parameters, %lld layers, hidden %lld)\n",
            pt_str_escape(m->name, mn, sizeof mn), (double)pt_model_params(m) / 1e9, (long long)m->layers,
            (long long)m->hidden);
    fprintf(f, "cluster    %s:", pt_str_escape(c->name, cn, sizeof cn));
    for (int k = 0; k < c->npools; k++)
        fprintf(f, "%s %lld x %s", k ? " +" : "", (long long)c->pool[k].devices,
                pt_str_escape(c->pool[k].dev.name, dn, sizeof dn));
    fprintf(f, ", seq %lld%s, %s%s%s, %s\n", (long long)job->seq_len, pt_emit_docs(job, docs, sizeof docs),
            pt_dtype_name(job->dtype), job->flash_attention ? ", flash attention" : "",
            pt_emit_comm_opts(job, comm, sizeof comm), pt_engine_name(job->engine));
}

static void body_table(FILE *f, const pt_model *m, const pt_cluster *c, const pt_strategy *st,
                       const pt_split *sp, const pt_hetero *h, const pt_sim_hetero *sim)
{
    const pt_cost *k = &h->cost;
    double T = k->step_time_s;
    char buf[8192], dn[1024];
    pt_split_format(st, sp, buf, sizeof buf);
    fprintf(f, "strategy   %s\n\n", buf);
    fprintf(f, "step time         %.3f s  (%lld micro-batches on the slowest pipeline, DP rank %d)\n", T,
            (long long)k->microbatches, h->crit);
    if (sim)
        fprintf(f, "simulated         %.3f s  (every pipeline replayed: %+.2f%%)\n", sim->step_time_s,
                100.0 * (sim->step_time_s / T - 1.0));
    fprintf(f, "tokens/s          %.0f\n", k->tokens_per_s);
    fprintf(f, "model TFLOP/s/GPU %.1f   MFU %.1f%%   HFU %.1f%%  (of the pools' summed peak)\n",
            k->model_tflops_per_gpu, 100.0 * k->mfu, 100.0 * k->hfu);
    fprintf(f, "\nstages (each data-parallel rank runs one pipeline of them)\n");
    fprintf(f, "  stage  layers  device                      fwd+bwd/micro-batch  memory (GiB)\n");
    for (int s = 0; s < st->pp; s++) {
        stage_devices(c, h->pool_lo[s], h->pool_hi[s], dn, sizeof dn);
        fprintf(f, "  %5d  %6d  %-26s  %15.1f ms  %5.1f of %.0f\n", s, pt_hetero_layers(m, st, sp, s), dn,
                1e3 * h->stage_s[s], gib(h->stage_bytes[s]), gib(h->stage_cap[s]));
    }
    fprintf(f, "pools\n");
    for (int p = 0; p < c->npools; p++) {
        char e[160];
        fprintf(f, "  %d  %lld x %-22s  runs %.1f%% of the work\n", p, (long long)c->pool[p].devices,
                pt_str_escape(c->pool[p].dev.name, e, sizeof e), 100.0 * pt_emit_hetero_work(m, c, st, sp, p));
    }
    fprintf(f, "\nwhere the time goes (the slowest pipeline)\n");
    pt_emit_time_and_memory(f, k, T, "memory, fullest device against its own (GiB)");
}

void pt_emit_hetero_table(FILE *f, const pt_model *m, const pt_cluster *c, const pt_job *job,
                          const pt_strategy *st, const pt_split *sp, const pt_hetero *h, const pt_sim_hetero *sim)
{
    head_table(f, m, c, job);
    body_table(f, m, c, st, sp, h, sim);
}

void pt_emit_hetero_search_table(FILE *f, const pt_model *m, const pt_cluster *c, const pt_job *job,
                                 const pt_hsearch_result *r, const pt_sim_hetero *sims)
{
    char buf[8192];
    head_table(f, m, c, job);
    fprintf(f, "searched   %lld candidates, %lld fit\n\n", (long long)r->evaluated, (long long)r->fitting);
    fprintf(f, "rank  step (s)  tokens/s    MFU  mem (GiB)  strategy\n");
    for (int i = 0; i < r->n; i++) {
        const pt_hplan *p = &r->plans[i];
        pt_split_format(&p->st, &p->sp, buf, sizeof buf);
        fprintf(f, "%4d  %8.3f  %8.0f  %4.1f%%  %9.1f  %s\n", i + 1, p->h.cost.step_time_s, p->h.cost.tokens_per_s,
                100.0 * p->h.cost.mfu, gib(p->h.cost.mem.total), buf);
    }
    if (r->n > 0) {
        fprintf(f, "\nbest plan\n");
        body_table(f, m, c, &r->plans[0].st, &r->plans[0].sp, &r->plans[0].h, sims ? &sims[0] : NULL);
    }
}

/* The value of key dim of a plan as the strategy string writes it. */
static void key_text(const pt_strategy *st, int dim, char *buf, size_t n)
{
    pt_strategy_key_value_text(dim, pt_strategy_get(st, dim), buf, n);
}

void pt_emit_hetero_explain(FILE *f, const pt_hsearch_result *r, const pt_hetero *even_layers,
                            const pt_hetero *even_shares)
{
    static const int dims[] = {PT_D_TP, PT_D_PP, PT_D_MBS, PT_D_RECOMPUTE, PT_D_ZERO};
    const pt_hplan *b;
    double T;
    if (r->n == 0) return;
    b = &r->plans[0];
    T = b->h.cost.step_time_s;
    fprintf(f, "\nwhy this plan (step %.3f s)\n", T);
    if (b->sp.nlayers) {
        if (even_layers)
            fprintf(f, "  layers by the stages' speed and memory: the even split takes %.3f s (%+.1f%%)\n",
                    even_layers->cost.step_time_s, 100.0 * (even_layers->cost.step_time_s / T - 1.0));
        else
            fprintf(f, "  layers by the stages' speed and memory (pp=%d does not split them evenly)\n", b->st.pp);
    }
    if (b->sp.nshare) {
        if (even_shares)
            fprintf(f, "  batch shares by speed: even shares take %.3f s (%+.1f%%)\n", even_shares->cost.step_time_s,
                    100.0 * (even_shares->cost.step_time_s / T - 1.0));
        else
            fprintf(f, "  batch shares by speed (the micro-batches do not split evenly over dp=%d)\n", b->st.dp);
    }
    for (size_t k = 0; k < sizeof dims / sizeof dims[0]; k++) {
        int dim = dims[k];
        char mine[32], other[32];
        const pt_hplan *alt = NULL;
        for (int i = 1; i < r->n && !alt; i++)
            if (pt_strategy_get(&r->plans[i].st, dim) != pt_strategy_get(&b->st, dim)) alt = &r->plans[i];
        key_text(&b->st, dim, mine, sizeof mine);
        if (!alt) {
            fprintf(f, "  %s=%s: no plan searched with another %s fits\n", pt_space_dim_name(dim), mine,
                    pt_space_dim_name(dim));
            continue;
        }
        key_text(&alt->st, dim, other, sizeof other);
        fprintf(f, "  %s=%s: the best with %s=%s takes %.3f s (%+.1f%%)\n", pt_space_dim_name(dim), mine,
                pt_space_dim_name(dim), other, alt->h.cost.step_time_s,
                100.0 * (alt->h.cost.step_time_s / T - 1.0));
    }
}
