/*
 * csv.c -- RFC 4180 record reader (see csv.h).
 */
#include "base/csv.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

void pt_csv_init(pt_csv *c, const char *text)
{
    memset(c, 0, sizeof *c);
    c->p = text + pt_bom_len(text); /* a byte-order mark is not part of the header */
    c->end = text + strlen(text);
    c->line = 1;
}

void pt_csv_free(pt_csv *c)
{
    free(c->buf);
    c->buf = NULL;
}

int pt_csv_next(pt_csv *c)
{
    size_t need, k = 0;
    size_t starts[PT_CSV_MAX_FIELDS];
    int nf = 0, inq = 0;
    if (!*c->p) return 0;
    /* the record is at most as long as the rest of the text (measured once:
     * measuring it per record made a 15 MB file take half a minute) */
    need = (size_t)(c->end - c->p) + 1;
    if (need + 1 > c->cap) {
        char *nb = realloc(c->buf, need + 1);
        if (!nb) return -1;
        c->buf = nb;
        c->cap = need + 1;
    }
    c->record_line = c->line;
    starts[nf++] = 0;
    for (;;) {
        char ch = *c->p;
        if (!ch) break;
        if (inq) {
            if (ch == '"' && c->p[1] == '"') {
                c->buf[k++] = '"';
                c->p += 2;
                continue;
            }
            if (ch == '"') {
                inq = 0;
                c->p++;
                continue;
            }
            if (ch == '\n') c->line++;
            c->buf[k++] = ch;
            c->p++;
            continue;
        }
        if (ch == '"') {
            inq = 1;
            c->p++;
            continue;
        }
        if (ch == ',') {
            c->buf[k++] = '\0';
            if (nf == PT_CSV_MAX_FIELDS) return -1;
            starts[nf++] = k;
            c->p++;
            continue;
        }
        if (ch == '\r') {
            /* CR LF ends the record, and so does CR CR LF (a CRLF file passed
             * through a tool that wrote CRLF again): every CR before the LF
             * goes, or the last field would end in CR */
            const char *q = c->p;
            while (*q == '\r') q++;
            if (*q == '\n') {
                c->p = q;
                continue;
            }
        }
        if (ch == '\n') {
            c->p++;
            c->line++;
            break;
        }
        c->buf[k++] = ch;
        c->p++;
    }
    c->buf[k] = '\0';
    c->nf = nf;
    for (int i = 0; i < nf; i++) c->f[i] = c->buf + starts[i];
    return 1;
}
