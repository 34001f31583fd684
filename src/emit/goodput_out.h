/*
 * goodput_out.h -- the JSON of `partita checkpoint` and of the failure-aware
 * objectives of `partita plan` (SPEC section 9).
 * What it does not: compute anything (src/goal/checkpoint.h, failure.h) or
 * print the human tables (src/cli).
 */
#ifndef PT_EMIT_GOODPUT_OUT_H
#define PT_EMIT_GOODPUT_OUT_H

#include <jansson.h>

#include "partita.h"
#include "goal/checkpoint.h"
#include "goal/failure.h"

/* `checkpoint --json`: the inputs and young_s, daly_s, rfo_s (null when
 * undefined), daly_high_order_s, optimal_s, optimal_efficiency, and the
 * efficiency at each period; *out is malloc'd (caller frees). */
pt_status pt_emit_checkpoint_json(const pt_ckpt_params *p, const pt_ckpt_periods *r, char **out, pt_diag *d);

/* `plan --objective goodput|cost --json`: pt_emit_search_json's object
 * with "objective" set to goodput or cost, the failure model's inputs
 * (tokens, deadline_hours, ft, checkpoint_mode, storage_GBps,
 * price_per_device_hour), and in every plan goodput, checkpoint_interval_s,
 * checkpoint_s, restart_s, downtime_s, stall_s, mtbf_s, ft,
 * checkpoint_GB_per_rank, wall_clock (fractions: compute, checkpoint,
 * lost_work, restart, degraded), and with tokens expected_wall_s, dollars
 * and, with a deadline, meets_deadline. */
struct pt_plan_check;
pt_status pt_emit_goodput_search_json(const pt_model *m, const pt_cluster *c, const pt_job *job,
                                      const pt_search_result *r, const struct pt_plan_check *checks,
                                      int verify, const pt_failure_goal *g, char **out, pt_diag *d);

/* One plan's failure keys (as above) added to the plan object pj. */
void pt_emit_goodput_plan_keys(json_t *pj, const pt_plan *p, const pt_cluster *c, const pt_failure_goal *g);

/* `plan --cluster a,b,c --json`: {"model", "objective", "tokens",
 * "clusters": [{"cluster", "device", "devices", "plan": the best plan's
 * object with the keys above, or null when nothing fits}], "fastest",
 * "cheapest" (cluster names or null)}. */
pt_status pt_emit_goodput_compare_json(const pt_model *m, const pt_job *job, const pt_goodput_entry *e, int n,
                                       const pt_goodput_pick *pick, const pt_failure_goal *g, char **out,
                                       pt_diag *d);

#endif
