/*
 * plan_out.c -- a priced strategy as the SPEC 5 JSON object and as a table.
 */
#include "emit/emit.h"
#include "base/base.h"
#include "strategy/strategy.h"
#include "plan/search.h"

#include <stdlib.h>
#include <string.h>

static double gib(int64_t b) { return (double)b / PT_GiB; }

json_t *pt_emit_plan_json(const pt_strategy *st, const pt_cost *c)
{
    char buf[256];
    json_t *o = json_object(), *s = json_object(), *mem = json_object(), *t = json_object();
    for (int j = 0; j < PT_STRATEGY_NKEYS; j++) { /* every key, in the strategy string's order */
        int i = pt_strategy_key_of_bit(1u << j);
        const pt_strategy_key *k = pt_strategy_key_at(i);
        int64_t v = pt_strategy_get(st, i);
        json_object_set_new(s, k->name, k->kind == PT_KEY_ENUM ? json_string(k->names[v]) : json_integer(v));
    }
    json_object_set_new(o, "strategy", s);
    pt_strategy_format(st, buf, sizeof buf);
    json_object_set_new(o, "strategy_string", json_string(buf));
    json_object_set_new(o, "step_time_s", json_real(c->step_time_s));
    json_object_set_new(o, "tokens_per_s", json_real(c->tokens_per_s));
    json_object_set_new(o, "model_tflops_per_gpu", json_real(c->model_tflops_per_gpu));
    json_object_set_new(o, "mfu", json_real(c->mfu));
    json_object_set_new(o, "hfu", json_real(c->hfu));
    json_object_set_new(o, "best_published_mfu", c->best_mfu > 0 ? json_real(c->best_mfu) : json_null());
    json_object_set_new(o, "above_best_published_mfu", json_boolean(c->above_best_mfu));
    json_object_set_new(o, "microbatches", json_integer(c->microbatches));
    json_object_set_new(mem, "weights", json_real(gib(c->mem.weights)));
    json_object_set_new(mem, "gradients", json_real(gib(c->mem.gradients)));
    json_object_set_new(mem, "optimizer", json_real(gib(c->mem.optimizer)));
    json_object_set_new(mem, "activations", json_real(gib(c->mem.activations)));
    json_object_set_new(mem, "other", json_real(gib(c->mem.other)));
    json_object_set_new(mem, "total", json_real(gib(c->mem.total)));
    json_object_set_new(o, "memory_GiB", mem);
    json_object_set_new(o, "device_memory_GiB", json_real(gib(c->device_memory_bytes)));
    json_object_set_new(o, "fits", json_boolean(c->fits));
    json_object_set_new(t, "compute", json_real(c->time.compute));
    json_object_set_new(t, "tp_comm", json_real(c->time.tp_comm));
    json_object_set_new(t, "cp_comm", json_real(c->time.cp_comm));
    json_object_set_new(t, "ep_comm", json_real(c->time.ep_comm));
    json_object_set_new(t, "pp_comm", json_real(c->time.pp_comm));
    json_object_set_new(t, "dp_comm", json_real(c->time.dp_comm));
    json_object_set_new(t, "bubble", json_real(c->time.bubble));
    json_object_set_new(t, "optimizer", json_real(c->time.optimizer));
    json_object_set_new(t, "offload", json_real(c->time.offload));
    json_object_set_new(o, "time_s", t);
    return o;
}

char *pt_emit_json_text(const json_t *j)
{
    return json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(6) | JSON_PRESERVE_ORDER);
}

void pt_emit_mfu_warning(FILE *f, const pt_device *dev, const char *who, double mfu)
{
    char dn[300];
    if (!(dev->best_mfu > 0) || !(mfu > dev->best_mfu)) return;
    fprintf(f, "warning: MFU %.1f%% (%s) is above the best ever published for %s, %.1f%% "
            "(data/devices.json names the run): treat the prediction as optimistic\n",
            100.0 * mfu, who, pt_str_escape(dev->name, dn, sizeof dn), 100.0 * dev->best_mfu);
}

void pt_emit_device_note(FILE *f, const pt_device *dev)
{
    char dn[300], gn[100], fn[100];
    if (!pt_device_unfitted(dev)) return;
    pt_str_escape(dev->name, dn, sizeof dn);
    pt_str_escape(dev->generation[0] ? dev->generation : "not given", gn, sizeof gn);
    pt_str_escape(dev->fitted_on, fn, sizeof fn);
    fprintf(f, "note: %s's efficiency constants were not fitted to measured runs of its generation "
            "(%s; fitted_on %s): expect larger errors than on fitted devices (data/devices.json "
            "says where they come from)\n",
            dn, gn, fn);
}

const char *pt_emit_offload_note(const pt_search_result *r, char *buf, size_t n)
{
    const pt_plan *a = &r->alt[PT_D_OFFLOAD];
    size_t l;
    if (!n) return buf;
    buf[0] = '\0';
    if (r->n == 0 || r->plans[0].st.offload == PT_OFF_NONE) return buf;
    snprintf(buf, n, "#1 offloads the %s to the host; its CPU Adam step is priced at the host-memory bound's "
             "order (src/cost/cost.c), which no measured run checks",
             r->plans[0].st.offload == PT_OFF_PARAMS ? "parameters and optimizer" : "optimizer");
    l = strlen(buf);
    if (r->have_alt[PT_D_OFFLOAD] && a->st.offload == PT_OFF_NONE) {
        char s[256];
        pt_strategy_format(&a->st, s, sizeof s);
        snprintf(buf + l, n - l, "; the best plan without it is %.1f%% slower: %s",
                 100.0 * (r->plans[0].score / a->score - 1.0), s);
    } else {
        snprintf(buf + l, n - l, "; no plan without offload fits");
    }
    return buf;
}

const char *pt_emit_docs(const pt_job *job, char *buf, size_t n)
{
    if (pt_job_doc_len(job))
        snprintf(buf, n, " in documents of %lld", (long long)pt_job_doc_len(job));
    else if (n)
        buf[0] = '\0';
    return buf;
}

const char *pt_emit_comm_opts(const pt_job *job, char *buf, size_t n)
{
    size_t l;
    if (!n) return buf;
    snprintf(buf, n, "%s", job->tp_comm_overlap ? ", tp comm overlap" : "");
    l = strlen(buf);
    if (job->moe_dedup_dispatch)
        snprintf(buf + l, n - l, ", %s dispatcher", pt_moe_dispatch_name(job->moe_dedup_dispatch));
    l = strlen(buf);
    if (job->moe_a2a_overlap) snprintf(buf + l, n - l, ", expert a2a overlap");
    return buf;
}

void pt_emit_comm_opts_json(json_t *o, const pt_job *job)
{
    json_object_set_new(o, "tp_comm_overlap", json_boolean(job->tp_comm_overlap));
    json_object_set_new(o, "moe_dispatcher", json_string(pt_moe_dispatch_name(job->moe_dedup_dispatch)));
    json_object_set_new(o, "moe_a2a_overlap", json_boolean(job->moe_a2a_overlap));
}

void pt_emit_device_json(json_t *o, const pt_device *dev)
{
    json_object_set_new(o, "device_generation", json_string(dev->generation));
    json_object_set_new(o, "device_fitted_on", json_string(dev->fitted_on));
    json_object_set_new(o, "device_constants_fitted", json_boolean(!pt_device_unfitted(dev)));
}

static void row(FILE *f, const char *name, double s, double total)
{
    if (s <= 0) return;
    fprintf(f, "  %-12s %10.3f s  %5.1f%%\n", name, s, 100.0 * s / total);
}

void pt_emit_time_and_memory(FILE *f, const pt_cost *k, double T, const char *mem_head)
{
    row(f, "compute", k->time.compute, T);
    row(f, "tp comm", k->time.tp_comm, T);
    row(f, "cp comm", k->time.cp_comm, T);
    row(f, "ep comm", k->time.ep_comm, T);
    row(f, "pp comm", k->time.pp_comm, T);
    row(f, "dp comm", k->time.dp_comm, T);
    row(f, "bubble", k->time.bubble, T);
    row(f, "optimizer", k->time.optimizer, T);
    row(f, "offload", k->time.offload, T);
    fprintf(f, "\n%s\n", mem_head);
    fprintf(f, "  weights %.2f  gradients %.2f  optimizer %.2f  activations %.2f  other %.2f\n",
            gib(k->mem.weights), gib(k->mem.gradients), gib(k->mem.optimizer), gib(k->mem.activations),
            gib(k->mem.other));
    fprintf(f, "  total %.2f of %.2f: %s\n", gib(k->mem.total), gib(k->device_memory_bytes),
            k->fits ? "fits" : "DOES NOT FIT");
}

void pt_emit_plan_table(FILE *f, const pt_model *m, const pt_cluster *c, const pt_job *job,
                        const pt_strategy *st, const pt_cost *k)
{
    char buf[256], mn[300], cn[300], dn[300], docs[48], comm[80]; /* names from user files, escaped */
    double T = k->step_time_s;
    pt_strategy_format(st, buf, sizeof buf);
    pt_str_escape(m->name, mn, sizeof mn);
    pt_str_escape(c->name, cn, sizeof cn);
    pt_str_escape(c->dev.name, dn, sizeof dn);
    /* multi-token-prediction depths: priced, outside the parameter counts */
    if (m->mtp_layers > 0) snprintf(docs, sizeof docs, " + %lld MTP depth%s", (long long)m->mtp_layers,
                                    m->mtp_layers > 1 ? "s" : "");
    else docs[0] = '\0';
    if (m->experts > 0)
        fprintf(f, "model      %s (%.1fB parameters, %.1fB active: %lld experts, top-%lld; %lld layers%s, "
                "hidden %lld)\n", mn, (double)pt_model_params(m) / 1e9,
                (double)pt_model_active_params(m) / 1e9, (long long)m->experts, (long long)m->topk,
                (long long)m->layers, docs, (long long)m->hidden);
    else
        fprintf(f, "model      %s (%.1fB parameters, %lld layers%s, hidden %lld)\n", mn,
                (double)pt_model_params(m) / 1e9, (long long)m->layers, docs, (long long)m->hidden);
    fprintf(f, "cluster    %s: %lld x %s, seq %lld%s, %s%s%s, %s\n", cn, (long long)c->devices, dn,
            (long long)job->seq_len, pt_emit_docs(job, docs, sizeof docs), pt_dtype_name(job->dtype),
            job->flash_attention ? ", flash attention" : "", pt_emit_comm_opts(job, comm, sizeof comm),
            pt_engine_name(job->engine));
    fprintf(f, "strategy   %s\n\n", buf);
    fprintf(f, "step time         %.3f s  (%lld micro-batches per pipeline)\n", T,
            (long long)k->microbatches);
    fprintf(f, "tokens/s          %.0f\n", k->tokens_per_s);
    fprintf(f, "model TFLOP/s/GPU %.1f   MFU %.1f%%   HFU %.1f%%\n", k->model_tflops_per_gpu,
            100.0 * k->mfu, 100.0 * k->hfu);
    pt_emit_mfu_warning(f, &c->dev, "this strategy", k->mfu);
    pt_emit_device_note(f, &c->dev);
    fputc('\n', f);
    fprintf(f, "where the time goes\n");
    pt_emit_time_and_memory(f, k, T, "memory, busiest device (GiB)");
}
