/*
 * gplan_out.c -- `partita plan GRAPH --json` (see gplan_out.h).
 */
#include "emit/gplan_out.h"
#include "emit/emit.h"
#include "emit/trials_out.h"

pt_status pt_emit_gplan_json(const pt_graph *g, const pt_cluster *c, int64_t global_batch,
                             const pt_gplan_result *r, int top, char **out, pt_diag *d)
{
    json_t *j = json_object(), *plans = json_array();
    json_object_set_new(j, "model", json_string(g->name));
    json_object_set_new(j, "cluster", json_string(c->name));
    json_object_set_new(j, "device", json_string(c->dev.name));
    json_object_set_new(j, "gpus", json_integer(c->devices));
    json_object_set_new(j, "global_batch", json_integer(global_batch));
    json_object_set_new(j, "candidates_evaluated", json_integer(r->evaluated));
    for (int i = 0; i < r->n && i < top; i++) {
        const pt_gplan *p = &r->plan[i];
        json_t *o = json_object(), *t = json_object();
        char buf[160];
        pt_gplan_string(p, buf, sizeof buf);
        json_object_set_new(o, "strategy_string", json_string(buf));
        json_object_set_new(o, "spatial", json_integer(p->p));
        json_object_set_new(o, "dp", json_integer(p->dp));
        json_object_set_new(o, "micro_batches", json_integer(p->k));
        json_object_set_new(o, "micro_batch", json_real(p->micro));
        json_object_set_new(o, "step_time_s", json_real(p->step_s));
        json_object_set_new(o, "samples_per_s", json_real(p->samples_per_s));
        json_object_set_new(o, "memory_GiB", json_real(p->mem_GiB));
        json_object_set_new(o, "device_memory_GiB", json_real(c->dev.memory_GiB));
        json_object_set_new(o, "fits", json_boolean(p->fits));
        json_object_set_new(t, "compute", json_real((double)p->k * p->cost.compute_s));
        json_object_set_new(t, "halo", json_real((double)p->k * (p->cost.halo_s + p->cost.norm_s)));
        json_object_set_new(t, "dp_comm", json_real(p->cost.dp_comm_s));
        json_object_set_new(t, "optimizer", json_real(p->cost.optimizer_s));
        json_object_set_new(o, "time_s", t);
        json_object_set_new(o, "gradient_exchange", pt_emit_ps_json(&p->xchg));
        json_array_append_new(plans, o);
    }
    json_object_set_new(j, "plans", plans);
    return pt_emit_json_finish(j, out, d);
}
