/*
 * gplan_out.h -- `partita plan GRAPH --json` for a layer graph
 * (src/plan/gplan.h computes it): SPEC section 5's top level
 * ({"candidates_evaluated", "plans": [...]}, best first), each plan with its
 * strategy string, step time, samples/s, memory, whether it fits, its time
 * split and its gradient exchange (every scheme, the chosen one, why).
 * Not here: the human table (src/cli/cmd_plan_graph.c).
 */
#ifndef PT_GPLAN_OUT_H
#define PT_GPLAN_OUT_H

#include "partita.h"
#include "plan/gplan.h"

/* The JSON text, ending in a newline, into *out (the caller frees it);
 * at most top plans. */
pt_status pt_emit_gplan_json(const pt_graph *g, const pt_cluster *c, int64_t global_batch,
                             const pt_gplan_result *r, int top, char **out, pt_diag *d);

#endif
