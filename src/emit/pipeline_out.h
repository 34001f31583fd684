/*
 * pipeline_out.h -- `partita pipeline --json` (SPEC section 10): see
 * pipeline_out.c.
 */
#ifndef PT_EMIT_PIPELINE_OUT_H
#define PT_EMIT_PIPELINE_OUT_H

#include "emit/emit.h"
#include "plan/pipeline.h"

/* The plan as a JSON text (malloc'd, without a final newline; the caller frees). */
pt_status pt_emit_pipeline_json(const pt_graph *g, const pt_edge_cluster *c, const pt_pipe_opts *o,
                                const pt_pipe_plan *p, char **out, pt_diag *d);

#endif
