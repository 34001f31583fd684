/*
 * emit.h -- writers of results: the plan object of SPEC section 5 as JSON and
 * the human table.  Leaves of the dependency graph: they read values only.
 */
#ifndef PT_EMIT_H
#define PT_EMIT_H

#include <stdio.h>
#include <jansson.h>
#include "partita.h"

/* The SPEC 5 plan object for one priced strategy (new reference). */
json_t *pt_emit_plan_json(const pt_strategy *st, const pt_cost *cost);
/* Dumps JSON deterministically (sorted keys as built, 6 significant digits). */
char *pt_emit_json_text(const json_t *j);
/* The human table for one priced strategy. */
void pt_emit_plan_table(FILE *f, const pt_model *m, const pt_cluster *c, const pt_job *job,
                        const pt_strategy *st, const pt_cost *cost);

#endif
