/*
 * fuzz.h -- what every harness in fuzz/ shares.
 *
 * What it does: declares the libFuzzer entry point each harness defines (so the
 * same file links against libFuzzer for `make fuzz` and against replay.c for
 * `make test`), makes the NUL-terminated copy of an input the parsers take,
 * and checks the invariants every diagnostic keeps.  A broken invariant
 * prints where and aborts: libFuzzer keeps the input as a crash, and the
 * replay driver fails the test.
 * What it does not: know any parser (each harness checks its own results).
 *
 * Invariants of a diagnostic (checked by fz_check_diag):
 *   - msg is non-empty and every string is NUL-terminated inside its array;
 *   - line and col are >= 0, and col >= 1 whenever line >= 1;
 *   - when the input came from a file, the file is named and the line is known
 *     (SPEC section 1: "partita: FILE:LINE:COL: what is wrong"), except for a
 *     required key that is missing (it has no place in the text; the message
 *     names it: "FILE: hidden_size: required key is missing");
 *   - pt_diag_format writes a non-empty line.
 */
#ifndef PT_FUZZ_H
#define PT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partita.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Prints the broken invariant and aborts (libFuzzer reports it as a crash). */
static inline void fz_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
    abort();
}

#define FZ_CHECK(cond) ((cond) ? (void)0 : fz_fail(__FILE__, __LINE__, #cond))

/* A malloc'd copy of data with a NUL after it (embedded NULs end the text
 * early, as they would for a C string read from a file). */
static inline char *fz_text(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (!t) abort();
    if (size) memcpy(t, data, size);
    t[size] = '\0';
    return t;
}

/* text with a UTF-8 byte-order mark in front (malloc'd), or NULL when text
 * already starts with one.  Every parser skips a leading mark, so the twin
 * must read the same: the same status, and on an error the same message at
 * the same line and column (fz_same_diag). */
static inline char *fz_with_bom(const char *text)
{
    size_t n = strlen(text);
    char *t;
    if (!strncmp(text, "\xEF\xBB\xBF", 3)) return NULL;
    if (!(t = malloc(n + 4))) abort();
    memcpy(t, "\xEF\xBB\xBF", 3);
    memcpy(t + 3, text, n + 1);
    return t;
}

static inline void fz_same_diag(const pt_diag *a, const pt_diag *b)
{
    FZ_CHECK(strcmp(a->msg, b->msg) == 0);
    FZ_CHECK(a->line == b->line && a->col == b->col);
}

static inline int fz_terminated(const char *s, size_t n)
{
    return memchr(s, '\0', n) != NULL;
}

/* The invariants above; file is the name the parser was given ("" if none). */
static inline void fz_check_diag(const pt_diag *d, const char *file)
{
    char buf[1200];
    FZ_CHECK(fz_terminated(d->file, sizeof d->file));
    FZ_CHECK(fz_terminated(d->field, sizeof d->field));
    FZ_CHECK(fz_terminated(d->value, sizeof d->value));
    FZ_CHECK(fz_terminated(d->msg, sizeof d->msg));
    FZ_CHECK(d->msg[0] != '\0');
    FZ_CHECK(d->line >= 0 && d->col >= 0);
    FZ_CHECK(d->line == 0 || d->col >= 1);
    if (file && file[0]) {
        FZ_CHECK(strcmp(d->file, file) == 0);
        /* a missing key has no place in the text: the message names the key */
        FZ_CHECK(d->line >= 1 || strstr(d->msg, "required key is missing") != NULL);
    }
    pt_diag_format(d, buf, sizeof buf);
    FZ_CHECK(buf[0] != '\0');
}

#endif
