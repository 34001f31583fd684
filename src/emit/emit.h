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

#endif
