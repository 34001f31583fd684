/*
 * goodput_out.h -- the JSON of `partita checkpoint` and of the failure-aware
 * objectives of `partita plan` (SPEC section 9).
 * What it does not: compute anything (src/goal/checkpoint.h, failure.h) or
 * print the human tables (src/cli).
 */
#ifndef PT_EMIT_GOODPUT_OUT_H
#define PT_EMIT_GOODPUT_OUT_H

#include "partita.h"
#include "goal/checkpoint.h"

/* `checkpoint --json`: the inputs and young_s, daly_s, rfo_s (null when
 * undefined), daly_high_order_s, optimal_s, optimal_efficiency, and the
 * efficiency at each period; *out is malloc'd (caller frees). */
pt_status pt_emit_checkpoint_json(const pt_ckpt_params *p, const pt_ckpt_periods *r, char **out, pt_diag *d);

#endif
