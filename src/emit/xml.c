/*
 * xml.c -- text from users (model, graph and cluster names) inside an SVG or
 * any other XML document the writers build: escaped so that the document stays
 * well-formed whatever the name holds.
 */
#include "emit/emit.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

void pt_emit_buf_xml(pt_emit_buf *b, const char *s)
{
    /* first what XML 1.0 cannot hold at all, as the visible text \xHH
     * (a character reference would not do: &#27; is not allowed either) */
    size_t n = 4 * strlen(s ? s : "") + 1;
    char *t = malloc(n);
    if (!t) {
        b->oom = 1;
        return;
    }
    pt_str_escape(s, t, n);
    for (const char *p = t; *p; p++) {
        switch (*p) {
        case '&': pt_emit_buf_puts(b, "&amp;"); break;
        case '<': pt_emit_buf_puts(b, "&lt;"); break;
        case '>': pt_emit_buf_puts(b, "&gt;"); break;
        case '"': pt_emit_buf_puts(b, "&quot;"); break;
        case '\'': pt_emit_buf_puts(b, "&#39;"); break;
        default: pt_emit_buf_printf(b, "%c", *p); break;
        }
    }
    free(t);
}
