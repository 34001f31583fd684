/*
 * serve_out.h -- `partita serve`'s outputs: the table, the JSON of SPEC
 * section 8 (serve_out.c) and the launch configurations of vLLM, SGLang and
 * TensorRT-LLM for the plan ranked first (export_serve.c).
 * Leaves: they read a search result and write text; nothing is priced here.
 */
#ifndef PT_EMIT_SERVE_OUT_H
#define PT_EMIT_SERVE_OUT_H

#include "partita.h"
#include "plan/serve_search.h"

#include <jansson.h>

/* `serve --json`: {"question": {...}, "candidates_evaluated", "plans": [...]}
 * with the SPEC 8 keys per plan, best first. */
pt_status pt_emit_serve_json(const pt_model *m, const pt_cluster *c, const pt_serve_opts *o,
                             const pt_serve_result *r, char **out, pt_diag *d);
/* One plan of `serve --json`'s "plans" (the SPEC 8 keys), a new reference;
 * `sweep --json` prints a serving question's best plan with it. */
json_t *pt_emit_serve_plan_json(const pt_serve_plan *p);
/* The human table (and, when no plan meets the objectives, the line
 * "nothing meets the objectives; the closest is ..."). */
pt_status pt_emit_serve_table(const pt_model *m, const pt_cluster *c, const pt_serve_opts *o,
                              const pt_serve_result *r, char **out, pt_diag *d);
/* "nothing meets the objectives; the closest is STRATEGY: TTFT pXX ... ms
 * (objective ...), TPOT ..." without a newline, into buf. */
void pt_emit_serve_closest(const pt_serve_opts *o, const pt_serve_plan *p, char *buf, size_t n);

/* The plan p as engine's launch command (engine: vllm, sglang, trtllm), for
 * model m served with o: only flags the engine has (see export_serve.c for
 * each one's source). */
pt_status pt_export_serve(const char *engine, const pt_model *m, const pt_serve_opts *o,
                          const pt_serve_plan *p, char **out, pt_diag *d);

#endif
