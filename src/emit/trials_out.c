/*
 * trials_out.c -- `partita trials` as JSON (see trials_out.h).
 */
#include "emit/trials_out.h"
#include "emit/emit.h"

#include <math.h>

/* A number, or null where it is not finite (jansson has no infinity). */
static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *cfg_json(const pt_trials_cfg *c)
{
    char buf[160];
    json_t *j = json_object();
    pt_trials_cfg_string(c, buf, sizeof buf);
    json_object_set_new(j, "strategy_string", json_string(buf));
    json_object_set_new(j, "devices", json_integer(c->devices));
    json_object_set_new(j, "spatial", json_integer(c->p));
    json_object_set_new(j, "dp", json_integer(c->groups));
    json_object_set_new(j, "group_batch", num(c->group_batch));
    json_object_set_new(j, "global_batch", num(c->global_batch));
    json_object_set_new(j, "gradient_exchange", json_string(pt_ps_scheme_name(c->sync)));
    json_object_set_new(j, "step_time_s", num(c->step_s));
    json_object_set_new(j, "halo_s", num(c->halo_s));
    json_object_set_new(j, "dp_comm_s", num(c->dp_comm_s));
    json_object_set_new(j, "epochs", num(c->epochs));
    json_object_set_new(j, "steps", num(c->steps));
    json_object_set_new(j, "time_to_train_s", num(c->time_s));
    json_object_set_new(j, "memory_GiB", num(c->mem_GiB));
    return j;
}

json_t *pt_emit_ps_json(const pt_ps_step *x)
{
    json_t *o = json_object(), *t = json_object();
    json_object_set_new(o, "machines", json_integer(x->machines));
    json_object_set_new(o, "machine_nic_GBps", num(x->nic_GBps));
    json_object_set_new(o, "gradient_bytes", num(x->grad_bytes));
    for (int k = 0; k < PT_PS_COUNT; k++) json_object_set_new(t, pt_ps_scheme_name((pt_ps_scheme)k), num(x->comm_s[k]));
    json_object_set_new(o, "time_s", t);
    json_object_set_new(o, "byteps_cpu_share", num(x->ex.cpu_share));
    json_object_set_new(o, "chosen", json_string(pt_ps_scheme_name(x->best)));
    json_object_set_new(o, "why", json_string(x->why));
    return o;
}

pt_status pt_emit_trials_json(const pt_graph *g, const pt_cluster *c, const pt_statef *se, const char *se_src,
                              const pt_trials_result *r, char **out, pt_diag *d)
{
    json_t *j = json_object(), *s = json_object(), *sens = json_object();
    json_object_set_new(j, "model", json_string(g->name));
    json_object_set_new(j, "cluster", json_string(c->name));
    json_object_set_new(j, "device", json_string(c->dev.name));
    json_object_set_new(j, "gpus", json_integer(r->gpus));
    json_object_set_new(j, "trials", json_integer(r->trials));
    json_object_set_new(j, "devices_per_trial", json_integer(r->per_trial));
    json_object_set_new(j, "concurrent_trials", json_integer(r->concurrent));
    json_object_set_new(j, "waves", json_integer(r->waves));
    json_object_set_new(s, "e_min_epochs", num(se->e_min));
    json_object_set_new(s, "b_noise", num(se->b_noise));
    json_object_set_new(s, "source", json_string(se_src));
    json_object_set_new(j, "statistical_efficiency", s);
    json_object_set_new(j, "independent", cfg_json(&r->indep));
    json_object_set_new(j, "data_parallel", cfg_json(&r->dp));
    json_object_set_new(j, "data_parallel_alone", cfg_json(&r->dp_plain));
    json_object_set_new(j, "independent_total_s", num(r->indep_total_s));
    json_object_set_new(j, "data_parallel_total_s", num(r->dp_total_s));
    json_object_set_new(j, "speedup", num(r->speedup));
    json_object_set_new(j, "data_parallel_alone_total_s", num(r->dp_plain_total_s));
    json_object_set_new(j, "speedup_against_data_parallel_alone", num(r->speedup_plain));
    json_object_set_new(sens, "half_b_noise", num(r->speedup_half_bn));
    json_object_set_new(sens, "double_b_noise", num(r->speedup_double_bn));
    json_object_set_new(sens, "no_batch_penalty", num(r->speedup_no_penalty));
    json_object_set_new(j, "speedup_sensitivity", sens);
    json_object_set_new(j, "gradient_exchange", pt_emit_ps_json(&r->xchg));
    return pt_emit_json_finish(j, out, d);
}
