/*
 * goodput_out.c -- `partita checkpoint --json` and the failure-aware keys of
 * `partita plan --objective goodput|cost --json` (goodput_out.h).
 */
#include "emit/goodput_out.h"
#include "emit/emit.h"

#include <jansson.h>
#include <stdlib.h>

pt_status pt_emit_checkpoint_json(const pt_ckpt_params *p, const pt_ckpt_periods *r, char **out, pt_diag *d)
{
    json_t *j = json_object(), *e = json_object();
    json_object_set_new(j, "mtbf_s", json_real(p->mtbf_s));
    json_object_set_new(j, "checkpoint_s", json_real(p->checkpoint_s));
    json_object_set_new(j, "restart_s", json_real(p->restart_s));
    json_object_set_new(j, "downtime_s", json_real(p->downtime_s));
    json_object_set_new(j, "young_s", json_real(r->young_s));
    json_object_set_new(j, "daly_s", json_real(r->daly_s));
    json_object_set_new(j, "rfo_s", r->rfo_defined ? json_real(r->rfo_s) : json_null());
    json_object_set_new(j, "daly_high_order_s", json_real(r->daly_high_order_s));
    json_object_set_new(j, "optimal_s", json_real(r->optimal_s));
    json_object_set_new(j, "optimal_efficiency", json_real(r->optimal_efficiency));
    /* E(T) of each period, the exact expectation (checkpoint.h) */
    json_object_set_new(e, "young", json_real(pt_ckpt_efficiency(p, r->young_s)));
    json_object_set_new(e, "daly", json_real(pt_ckpt_efficiency(p, r->daly_s)));
    json_object_set_new(e, "rfo", r->rfo_defined ? json_real(pt_ckpt_efficiency(p, r->rfo_s)) : json_null());
    json_object_set_new(e, "daly_high_order", json_real(pt_ckpt_efficiency(p, r->daly_high_order_s)));
    json_object_set_new(e, "optimal", json_real(r->optimal_efficiency));
    json_object_set_new(j, "efficiency", e);
    return pt_emit_json_finish(j, out, d);
}

void pt_emit_goodput_plan_keys(json_t *pj, const pt_plan *p, const pt_cluster *c, const pt_failure_goal *g)
{
    pt_goodput gp;
    json_t *w = json_object();
    pt_failure_goodput(&g->fp, g->m, g->job, p, c, g->tokens, &gp);
    json_object_set_new(pj, "goodput", json_real(gp.goodput));
    json_object_set_new(pj, "ft", json_string(pt_ft_mode_name(gp.ft)));
    json_object_set_new(pj, "mtbf_s", json_real(gp.mtbf_s));
    json_object_set_new(pj, "checkpoint_interval_s", json_real(gp.checkpoint_interval_s));
    json_object_set_new(pj, "checkpoint_s", json_real(gp.checkpoint_s));
    json_object_set_new(pj, "checkpoint_GB_per_rank", json_real((double)gp.ck.rank_bytes / 1e9));
    json_object_set_new(pj, "checkpoint_stored_GB", json_real(gp.ck.stored_bytes / 1e9));
    json_object_set_new(pj, "downtime_s", json_real(gp.downtime_s));
    json_object_set_new(pj, "restart_s", json_real(gp.restart_s));
    json_object_set_new(pj, "stall_s", json_real(gp.stall_s));
    if (gp.ft == PT_FT_REPLICA) json_object_set_new(pj, "replica_recovery_s", json_real(gp.replica_recovery_s));
    json_object_set_new(w, "compute", json_real(gp.frac_compute));
    json_object_set_new(w, "checkpoint", json_real(gp.frac_checkpoint));
    json_object_set_new(w, "lost_work", json_real(gp.frac_lost));
    json_object_set_new(w, "restart", json_real(gp.frac_restart));
    json_object_set_new(w, "degraded", json_real(gp.frac_degraded));
    json_object_set_new(pj, "wall_clock", w);
    json_object_set_new(pj, "paid_devices", json_integer(gp.paid_devices));
    if (g->tokens > 0) {
        /* no progress at all (goodput 0): no finite wall-clock */
        json_object_set_new(pj, "expected_wall_s", gp.expected_wall_s > 0 ? json_real(gp.expected_wall_s) : json_null());
        json_object_set_new(pj, "dollars", gp.expected_wall_s > 0 ? json_real(gp.dollars) : json_null());
        if (g->deadline_s > 0)
            json_object_set_new(pj, "meets_deadline",
                                json_boolean(gp.expected_wall_s > 0 && gp.expected_wall_s <= g->deadline_s));
    }
}

pt_status pt_emit_goodput_search_json(const pt_model *m, const pt_cluster *c, const pt_job *job,
                                      const pt_search_result *r, const struct pt_plan_check *checks,
                                      int verify, const pt_failure_goal *g, char **out, pt_diag *d)
{
    char *text = NULL;
    json_t *j, *plans;
    json_error_t e;
    pt_status s;
    /* the plan --json object as it is, then the failure keys in it */
    if ((s = pt_emit_search_json(m, c, job, r, 0, 0, checks, verify, &text, d)) != PT_OK) return s;
    j = json_loads(text, 0, &e);
    free(text);
    if (!j) return pt_emit_json_finish(NULL, out, d);
    json_object_set_new(j, "objective", json_string(g->cost ? "cost" : "goodput"));
    if (g->tokens > 0) json_object_set_new(j, "tokens", json_real(g->tokens));
    if (g->deadline_s > 0) json_object_set_new(j, "deadline_hours", json_real(g->deadline_s / 3600.0));
    json_object_set_new(j, "ft", json_string(pt_ft_mode_name(g->fp.ft)));
    json_object_set_new(j, "checkpoint_mode", json_string(pt_ckpt_mode_name(g->fp.ckpt)));
    json_object_set_new(j, "storage_GBps", json_real(g->fp.storage_GBps > 0 ? g->fp.storage_GBps
                                                     : PT_CKPT_STORAGE_GBPS_PER_DEVICE * (double)c->devices));
    json_object_set_new(j, "price_per_device_hour", json_real(c->price_per_device_hour));
    plans = json_object_get(j, "plans");
    for (int i = 0; i < r->n && i < (int)json_array_size(plans); i++)
        pt_emit_goodput_plan_keys(json_array_get(plans, (size_t)i), &r->plans[i], c, g);
    return pt_emit_json_finish(j, out, d);
}

pt_status pt_emit_goodput_compare_json(const pt_model *m, const pt_job *job, const pt_goodput_entry *e, int n,
                                       const pt_goodput_pick *pick, const pt_failure_goal *g, char **out,
                                       pt_diag *d)
{
    json_t *j = json_object(), *list = json_array();
    json_object_set_new(j, "model", json_string(m->name));
    json_object_set_new(j, "seq_len", json_integer(job->seq_len));
    json_object_set_new(j, "dtype", json_string(pt_dtype_name(job->dtype)));
    json_object_set_new(j, "objective", json_string(g->cost ? "cost" : "goodput"));
    if (g->tokens > 0) json_object_set_new(j, "tokens", json_real(g->tokens));
    if (g->deadline_s > 0) json_object_set_new(j, "deadline_hours", json_real(g->deadline_s / 3600.0));
    json_object_set_new(j, "ft", json_string(pt_ft_mode_name(g->fp.ft)));
    json_object_set_new(j, "checkpoint_mode", json_string(pt_ckpt_mode_name(g->fp.ckpt)));
    for (int i = 0; i < n; i++) {
        json_t *x = json_object();
        json_object_set_new(x, "cluster", json_string(e[i].c.name));
        json_object_set_new(x, "device", json_string(e[i].c.dev.name));
        json_object_set_new(x, "devices", json_integer(e[i].c.devices));
        json_object_set_new(x, "price_per_device_hour", json_real(e[i].c.price_per_device_hour));
        if (e[i].found) {
            json_t *pj = pt_emit_plan_json(&e[i].best.st, &e[i].best.cost);
            pt_failure_goal gi = *g;
            gi.m = m, gi.job = &e[i].job, gi.c = &e[i].c;
            pt_emit_goodput_plan_keys(pj, &e[i].best, &e[i].c, &gi);
            json_object_set_new(x, "plan", pj);
        } else {
            json_object_set_new(x, "plan", json_null());
        }
        json_array_append_new(list, x);
    }
    json_object_set_new(j, "clusters", list);
    json_object_set_new(j, "fastest", pick->fastest >= 0 ? json_string(e[pick->fastest].c.name) : json_null());
    json_object_set_new(j, "cheapest", pick->cheapest >= 0 ? json_string(e[pick->cheapest].c.name) : json_null());
    return pt_emit_json_finish(j, out, d);
}
