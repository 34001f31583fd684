/*
 * csv.h -- RFC 4180 records: quoted fields, doubled quotes, CRLF or LF.
 */
#ifndef PT_CSV_H
#define PT_CSV_H

#include <stddef.h>

#define PT_CSV_MAX_FIELDS 64

typedef struct pt_csv {
    const char *p;     /* next byte to read                     */
    const char *end;   /* the text's terminating NUL            */
    int line;          /* line the next record starts on        */
    char *buf;         /* field storage of the current record   */
    size_t cap;
    int nf;            /* fields in the current record          */
    char *f[PT_CSV_MAX_FIELDS];
    int record_line;   /* line the current record started on    */
} pt_csv;

void pt_csv_init(pt_csv *c, const char *text);
/* Reads the next record; returns 1, or 0 at the end (-1 on too many fields). */
int pt_csv_next(pt_csv *c);
void pt_csv_free(pt_csv *c);

#endif
