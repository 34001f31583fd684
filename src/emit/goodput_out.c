/*
 * goodput_out.c -- `partita checkpoint --json` and the failure-aware keys of
 * `partita plan --objective goodput|cost --json` (goodput_out.h).
 */
#include "emit/goodput_out.h"
#include "emit/emit.h"

#include <jansson.h>

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
