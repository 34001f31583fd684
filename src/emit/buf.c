/*
 * buf.c -- the growing text buffer every writer uses (see emit.h): exports,
 * traces, pictures.
 */
#include "emit/emit.h"
#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pt_emit_buf_printf(pt_emit_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (b->oom) return;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 4096;
        char *np;
        while (b->len + (size_t)n + 1 > ncap) ncap *= 2;
        np = realloc(b->p, ncap);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = ncap;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void pt_emit_buf_puts(pt_emit_buf *b, const char *s)
{
    pt_emit_buf_printf(b, "%s", s);
}

pt_status pt_emit_buf_finish(pt_emit_buf *b, char **out, pt_diag *d)
{
    if (b->oom || !b->p) {
        free(b->p);
        b->p = NULL;
        pt_diag_set(d, NULL, NULL, NULL, "out of memory while writing the output");
        return PT_ENOMEM;
    }
    *out = b->p;
    b->p = NULL;
    return PT_OK;
}
