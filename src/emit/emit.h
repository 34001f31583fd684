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
/* The warning line for a prediction above the best MFU ever published for
 * dev (pt_device.best_mfu): "warning: MFU <mfu> (<who>) is above the best
 * published ...".  Prints nothing when dev has no such number or mfu is not
 * above it. */
void pt_emit_mfu_warning(FILE *f, const pt_device *dev, const char *who, double mfu);
/* The note for a device whose efficiency constants were not fitted to
 * measured runs of its own generation (pt_device_unfitted): one line,
 * "note: ..."; nothing for a fitted device.  The tables of eval and plan
 * print it. */
void pt_emit_device_note(FILE *f, const pt_device *dev);
/* Adds "device_generation", "device_fitted_on" and "device_constants_fitted"
 * (false where the note above would print) to the JSON object o. */
void pt_emit_device_json(json_t *o, const pt_device *dev);
/* The note for a first plan that offloads (r->plans[0].st.offload): its CPU
 * Adam step is priced by a constant no measured run checks, and the best
 * plan without offload (r->alt) is named with how much slower it is.  Into
 * buf, "" when #1 does not offload; returns buf.  plan's table prints it as
 * "note: ...", the HTML report as a note under its table. */
struct pt_search_result;
const char *pt_emit_offload_note(const struct pt_search_result *r, char *buf, size_t n);
/* The job's packed documents for a header, " in documents of 512" after its
 * "seq 4096" (pt_job.doc_len shorter than the sequence), else "". */
const char *pt_emit_docs(const pt_job *job, char *buf, size_t n);
/* The communication options a job was priced with, for a header line:
 * ", tp comm overlap, deepep dispatcher, expert a2a overlap", or "". */
const char *pt_emit_comm_opts(const pt_job *job, char *buf, size_t n);
/* The same as JSON keys of o: tp_comm_overlap, moe_dispatcher, moe_a2a_overlap. */
void pt_emit_comm_opts_json(json_t *o, const pt_job *job);
/* The step's time rows (those above zero, each with its share of T) and,
 * under mem_head, the memory lines, as eval's tables print them. */
void pt_emit_time_and_memory(FILE *f, const pt_cost *k, double T, const char *mem_head);
/* The human table for one priced strategy (with the warning line above). */
void pt_emit_plan_table(FILE *f, const pt_model *m, const pt_cluster *c, const pt_job *job,
                        const pt_strategy *st, const pt_cost *cost);

/* A growing text buffer: printf appends; after an allocation failure further
 * appends are ignored and finish returns PT_ENOMEM (and frees the text). */
typedef struct pt_emit_buf {
    char *p;
    size_t len, cap;
    int oom;
} pt_emit_buf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void pt_emit_buf_printf(pt_emit_buf *b, const char *fmt, ...);
void pt_emit_buf_puts(pt_emit_buf *b, const char *s);
/* Hands the text to *out (PT_OK), or frees it and sets d (PT_ENOMEM). */
pt_status pt_emit_buf_finish(pt_emit_buf *b, char **out, pt_diag *d);


/* ---- whole command outputs (each a malloc'd text ending in a newline that
 * the caller frees; PT_ENOMEM when memory runs out) --------------------- */

struct pt_search_result;
struct pt_plan_check;
struct pt_sim_result;
struct pt_graph;
struct pt_statef;
struct pt_scale_result;
struct pt_vresult;
struct pt_vplan;

/* Appends s as XML character data or an attribute value: & < > " ' as
 * entities, and what XML 1.0 cannot hold (control characters, invalid
 * UTF-8) as the text \xHH (pt_str_escape), so a user's name never breaks
 * the document. */
void pt_emit_buf_xml(pt_emit_buf *b, const char *s);

/* j as pt_emit_json_text with a final newline into *out; releases j. */
pt_status pt_emit_json_finish(json_t *j, char **out, pt_diag *d);

/* `eval --json`: the question (model, parameters, cluster, job) and the SPEC 5
 * plan object; sim (NULL = not simulated) adds the simulated step. */
pt_status pt_emit_eval_json(const pt_model *m, const pt_cluster *c, const pt_job *job,
                            const pt_strategy *st, const pt_cost *cost,
                            const struct pt_sim_result *sim, char **out, pt_diag *d);

/* `plan --json` (SPEC 5): the question, the search's counts and its plans best
 * first.  min_tokens > 0 is the time-to-train objective (E_min, and bcrit the
 * critical batch in tokens): each plan gets tokens, steps and seconds to the
 * target.  checks (NULL = none; r->n entries, pt_plan_rerank) adds each
 * plan's step_time_source, and with verify the analytic and simulated steps
 * and the simulated peak memory (`plan --verify`). */
pt_status pt_emit_search_json(const pt_model *m, const pt_cluster *c, const pt_job *job,
                              const struct pt_search_result *r, double min_tokens, double bcrit,
                              const struct pt_plan_check *checks, int verify, char **out, pt_diag *d);

/* `validate --json` (SPEC 6): every row, predicted or skipped, and the summary. */
pt_status pt_emit_validate_json(const struct pt_vresult *r, char **out, pt_diag *d);

/* `validate --plans`: how many runs the model says fit as published, in how
 * many of those the best plan is no slower, and in how many the published
 * strategy is among the plans kept. */
void pt_emit_vplans_counts(const struct pt_vplan *v, int n, int *published_fits, int *published_searched,
                           int *best_no_worse, int *published_in_top);
pt_status pt_emit_vplans_json(const struct pt_vplan *v, int n, char **out, pt_diag *d);

/* `scale --json`: the statistical efficiency used (se_src says where it came
 * from), each device count's data-parallel and hybrid configuration, the
 * crossover and the model-parallel speed-ups. */
pt_status pt_emit_scale_json(const struct pt_graph *g, const pt_cluster *c, const struct pt_statef *se,
                             const char *se_src, const struct pt_scale_result *r, char **out,
                             pt_diag *d);
/* `scale --svg`: time to train against GPUs, both axes logarithmic, data
 * parallel alone and hybrid; PT_EINPUT when nothing fits (nothing to draw). */
pt_status pt_emit_scale_svg(const struct pt_graph *g, const pt_cluster *c,
                            const struct pt_scale_result *r, char **out, pt_diag *d);

#endif
