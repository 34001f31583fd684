/*
 * pipeline_out.c -- `partita pipeline --json` (SPEC section 10): the plan of
 * src/plan/pipeline.h as one JSON object, `samples_per_s`, `latency_ms`,
 * `speedup` and `stages` with the SPEC's keys, and what else the plan says
 * (replicas, the thread-pool settings, the best single unit, each stage's
 * CPU time on the network stack: net_cpu_ms, inside compute_ms where it
 * takes the stage's cores).
 * Not here: the human table (src/cli/cmd_pipeline.c).
 */
#include "emit/pipeline_out.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

pt_status pt_emit_pipeline_json(const pt_graph *g, const pt_edge_cluster *c, const pt_pipe_opts *o,
                                const pt_pipe_plan *p, char **out, pt_diag *d)
{
    json_t *j = json_object(), *stages = json_array(), *single = json_object();
    char name[96], *text;
    if (!j || !stages || !single) goto oom;
    json_object_set_new(j, "model", json_string(g->name));
    json_object_set_new(j, "cluster", json_string(c->name));
    json_object_set_new(j, "devices", json_integer(c->nboards));
    json_object_set_new(j, "batch", json_integer(o->batch));
    json_object_set_new(j, "dtype", json_string(pt_edge_dtype_name(o->dtype)));
    json_object_set_new(j, "objective", json_string(o->objective == PT_PIPE_LATENCY ? "latency" : "throughput"));
    json_object_set_new(j, "samples_per_s", json_real(p->samples_per_s));
    json_object_set_new(j, "latency_ms", json_real(p->latency_s * 1e3));
    json_object_set_new(j, "speedup", json_real(p->speedup));
    json_object_set_new(j, "replicas", json_integer(p->replicas));
    json_object_set_new(j, "bottleneck_ms", json_real(p->bottleneck_s * 1e3));
    json_object_set_new(j, "threads_gain", json_real(p->threads_gain));
    snprintf(name, sizeof name, "%s/%s", c->type[p->single_type].dev.name,
             c->type[p->single_type].unit[p->single_unit].name);
    json_object_set_new(single, "device", json_string(name));
    json_object_set_new(single, "samples_per_s", json_real(p->single_samples_per_s));
    json_object_set_new(single, "latency_ms", json_real(p->single_latency_s * 1e3));
    json_object_set_new(single, "fits", json_boolean(p->single_fits));
    json_object_set_new(j, "single_device", single);
    for (int k = 0; k < p->nstages; k++) {
        const pt_pipe_stage *s = &p->stage[k];
        const pt_edge_type *t = &c->type[c->board_type[s->board]];
        const pt_edge_unit *u = &t->unit[s->unit];
        json_t *e = json_object();
        if (!e) goto oom;
        snprintf(name, sizeof name, "%s/%s", t->dev.name, u->name);
        json_object_set_new(e, "device", json_string(name));
        json_object_set_new(e, "board", json_integer(s->board));
        json_object_set_new(e, "width", json_integer(s->width));
        json_object_set_new(e, "layers", json_integer(s->last - s->first));
        json_object_set_new(e, "first_layer", json_string(g->l[s->first].name));
        json_object_set_new(e, "last_layer", json_string(g->l[s->last - 1].name));
        json_object_set_new(e, "compute_ms", json_real(s->compute_s * 1e3));
        json_object_set_new(e, "transfer_ms", json_real(s->transfer_s * 1e3));
        json_object_set_new(e, "net_cpu_ms", json_real(s->net_cpu_s * 1e3));
        json_object_set_new(e, "threads", json_integer(s->intra));
        json_object_set_new(e, "inter_op", json_integer(s->inter));
        json_object_set_new(e, "default_threads_ms", json_real(s->default_s * 1e3));
        json_object_set_new(e, "fallback_layers", json_integer(s->fallback_layers));
        json_object_set_new(e, "memory_GiB", json_real(s->mem_bytes / 1073741824.0));
        json_array_append_new(stages, e);
    }
    json_object_set_new(j, "stages", stages);
    text = pt_emit_json_text(j);
    json_decref(j);
    if (!text) {
        pt_diag_set(d, NULL, NULL, NULL, "out of memory");
        return PT_ENOMEM;
    }
    *out = text;
    return PT_OK;
oom:
    json_decref(j), json_decref(stages), json_decref(single);
    pt_diag_set(d, NULL, NULL, NULL, "out of memory");
    return PT_ENOMEM;
}
