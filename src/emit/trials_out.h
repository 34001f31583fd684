/*
 * trials_out.h -- `partita trials --json` (src/goal/trials.h computes it):
 * the question, the statistical efficiency used and where it comes from,
 * one independent trial's and one data-parallel trial's best
 * configuration, the totals and the speed-up with its sensitivity to
 * B_noise.
 * Not here: the human table (src/cli/cmd_trials.c).
 */
#ifndef PT_TRIALS_OUT_H
#define PT_TRIALS_OUT_H

#include <jansson.h>

#include "partita.h"
#include "cost/ps.h"
#include "goal/trials.h"

/* A gradient exchange (every scheme's time, the chosen one, why) as a
 * JSON object, for trials and scale. */
json_t *pt_emit_ps_json(const pt_ps_step *x);

/* The JSON text, ending in a newline, into *out (the caller frees it). */
pt_status pt_emit_trials_json(const pt_graph *g, const pt_cluster *c, const pt_statef *se, const char *se_src,
                              const pt_trials_result *r, char **out, pt_diag *d);

#endif
