/*
 * base.h -- diagnostics, files and strict JSON reading shared by every parser.
 *
 * What it does: fills pt_diag with a location (file:line:col), the field and the
 * refused value; reads whole files; parses JSON through jansson and checks keys
 * strictly (an unknown key is an error: typos cost GPU-days).  jansson does not
 * keep positions of values, so pt_json_locate re-scans the text to find where a
 * field path ("levels[1].bw_GBps") starts.
 * What it does not: know anything about models, clusters or strategies.
 */
#ifndef PT_BASE_H
#define PT_BASE_H

#include <stdarg.h>
#include <jansson.h>
#include "partita.h"

#if defined(__GNUC__)
#define PT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PT_PRINTF(a, b)
#endif

/* Sets every part of d; any of file/field/value may be NULL. Returns PT_EINPUT. */
pt_status pt_diag_set(pt_diag *d, const char *file, const char *field, const char *value,
                      const char *fmt, ...) PT_PRINTF(5, 6);

/* Reads a whole file into a malloc'd NUL-terminated buffer the caller frees. */
pt_status pt_read_file(const char *path, char **text, pt_diag *d);

/* Writes data to path through a temporary file and rename (never half-written). */
pt_status pt_write_file_atomic(const char *path, const char *data, size_t n, pt_diag *d);

/* Finds where the value at `path` starts in JSON text; path uses "a.b[2].c".
 * Returns 1 and sets line/col (1-based) when found. */
int pt_json_locate(const char *text, const char *path, int *line, int *col);

/* A JSON document being read: its text and file name for error locations. */
typedef struct pt_jctx {
    const char *text;
    const char *file;
    pt_diag *d;
} pt_jctx;

/* Parses text; on a syntax error fills the diag with jansson's line and column. */
json_t *pt_json_parse(pt_jctx *jc);
/* Error about the value at path: location from the text, value as compact JSON. */
pt_status pt_jerr(pt_jctx *jc, const char *path, const json_t *val, const char *fmt, ...)
    PT_PRINTF(4, 5);
/* Every key of obj must be in allowed (NULL-terminated); path names obj ("" = root). */
pt_status pt_json_only_keys(pt_jctx *jc, const json_t *obj, const char *path,
                            const char *const *allowed);
/* obj[key] as a number (integer or real).  *found says whether it was there;
 * a missing required key is an error. */
pt_status pt_json_num(pt_jctx *jc, const json_t *obj, const char *path, const char *key,
                      int required, double *out, int *found);
/* obj[key] as a whole number in [lo, hi]. */
pt_status pt_json_int(pt_jctx *jc, const json_t *obj, const char *path, const char *key,
                      int required, int64_t lo, int64_t hi, int64_t *out, int *found);
/* obj[key] as a string copied into buf. */
pt_status pt_json_str(pt_jctx *jc, const json_t *obj, const char *path, const char *key,
                      int required, char *buf, size_t n, int *found);
/* obj[key] as a boolean (JSON true/false). */
pt_status pt_json_bool(pt_jctx *jc, const json_t *obj, const char *path, const char *key,
                       int *out, int *found);

/* Joins path and key ("levels[1]" + "bw_GBps") into buf. */
void pt_path_join(char *buf, size_t n, const char *path, const char *key);

/* snprintf that always terminates and never warns about truncation. */
void pt_strlcpy(char *dst, const char *src, size_t n);

/* s for a terminal or a log: every byte that is not part of a printable
 * UTF-8 character (C0 and C1 controls, DEL, invalid sequences) written as
 * \xHH; names from user files go through this before they are printed.
 * Stops at a whole character or escape when buf (n bytes) is full; returns
 * buf. */
const char *pt_str_escape(const char *s, char *buf, size_t n);

#endif
