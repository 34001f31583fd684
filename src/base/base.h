/*
 * base.h -- diagnostics, files and strict JSON reading shared by every parser.
 *
 * What it does: fills pt_diag with a location (file:line:col), the field and the
 * refused value; reads whole files; parses JSON through jansson and checks keys
 * strictly (an unknown key is an error: typos cost GPU-days).  jansson does not
 * keep positions of values, so pt_json_locate re-scans the text to find where a
 * field path ("levels[1].bw_GBps") starts.
 * It also writes a command's outputs all or none (pt_write_files_atomic:
 * mkstemp temporaries renamed over the targets; FIFOs and devices written in
 * place), bounds a job (pt_job_check), and holds the allocation hook and the
 * arena that place.c allocates from (after Lua's lua_Alloc).
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

/* Writes data to path through a temporary file and rename (never half-written);
 * see pt_write_files_atomic. */
pt_status pt_write_file_atomic(const char *path, const char *data, size_t n, pt_diag *d);

/* One output of a command: where it goes and what it holds. */
typedef struct pt_output {
    const char *path;
    const char *data;
    size_t n;
} pt_output;

/* Writes all of a command's outputs, or replaces none of them.  A target that
 * is a regular file or is not there gets a temporary file that mkstemp makes
 * in its directory (never a predictable name, never a link followed), renamed
 * over it once every output is written; a symlink to a regular file keeps
 * being a link (its target is replaced).  A target that exists and is not a
 * regular file (a FIFO, /dev/stdout on a pipe or terminal, /dev/null) cannot
 * be replaced: it is opened and written in place, after the temporary files
 * are ready.  A directory is refused.  Temporary files never outlive the call. */
pt_status pt_write_files_atomic(const pt_output *outs, int n, pt_diag *d);

/* The allocation hook (after Lua's lua_Alloc): with nsize 0 it frees ptr
 * (osize its size) and returns NULL; otherwise it returns a block of nsize
 * bytes holding the first min(osize, nsize) bytes of ptr (ptr NULL: a new
 * block), or NULL when out of memory (ptr untouched).  Tests pass one that
 * fails on purpose. */
typedef void *(*pt_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);
/* malloc/realloc/free. */
void *pt_alloc_default(void *ud, void *ptr, size_t osize, size_t nsize);

/* A bump allocator: blocks from the hook (the first of first_bytes, each next
 * twice the last), handed out 16-byte aligned and zeroed, all freed at once.
 * After one failure every later allocation fails too, so a caller may check
 * once at the end. */
typedef struct pt_arena {
    pt_alloc_fn alloc;
    void *ud;
    struct pt_arena_block *head;
    size_t next_bytes;
    int blocks;          /* blocks taken from the hook, e.g. 1          */
    int failed;          /* an allocation failed                        */
} pt_arena;

void pt_arena_init(pt_arena *a, pt_alloc_fn fn, void *ud, size_t first_bytes);
/* n zeroed bytes, or NULL (out of memory, or n beyond 2^40). */
void *pt_arena_alloc(pt_arena *a, size_t n);
/* count x size zeroed bytes, the product checked for overflow. */
void *pt_arena_array(pt_arena *a, size_t count, size_t size);
void pt_arena_free(pt_arena *a);

/* Limits on a job that keep every count the library forms in range (tokens
 * per step < 2^54, exact in a double): seq_len 1..2^24 tokens, global_batch
 * 0 (not given) ..2^30 sequences. */
#define PT_MAX_SEQ_LEN ((int64_t)1 << 24)
#define PT_MAX_GLOBAL_BATCH ((int64_t)1 << 30)
/* Refuses a job outside those limits, naming the field and the value. */
pt_status pt_job_check(const pt_job *job, pt_diag *d);

/* Length of a UTF-8 byte-order mark at the start of text (3), or 0: the
 * parsers skip it. */
size_t pt_bom_len(const char *text);

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
/* The same for a name (a cluster, a level, a graph, a layer): a control
 * character (below 0x20, or 0x7F) is refused with its byte and offset. */
pt_status pt_json_name(pt_jctx *jc, const json_t *obj, const char *path, const char *key,
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

/* 1 if needle occurs in hay, ASCII case ignored ("a100" in "A100-SXM4-80GB"). */
int pt_str_has_ci(const char *hay, const char *needle);

/* The greatest common divisor of a and b (non-negative; gcd(a, 0) = a). */
int64_t pt_gcd(int64_t a, int64_t b);

#endif
