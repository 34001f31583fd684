/*
 * statef_csv.c -- the user's own statistical-efficiency measurements: a CSV
 * with a header naming `batch` and `steps` (or `epochs`), one run a line,
 * fitted by pt_statef_fit (ttt.h).
 */
#include "goal/statef_csv.h"
#include "base/base.h"
#include "base/csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

pt_status pt_statef_read_csv(const char *text, const char *file, double samples_per_epoch, pt_statef *out,
                             pt_diag *d)
{
    pt_csv csv;
    int ib = -1, is = -1, ie = -1, n = 0, cap = 0;
    double *bx = NULL, *ey = NULL;
    pt_status st = PT_OK;
    pt_csv_init(&csv, text);
    if (pt_csv_next(&csv) != 1) {
        pt_csv_free(&csv);
        pt_diag_set(d, file, "batch", "", "empty file: want a header with batch and steps (or epochs)");
        d->line = 1, d->col = 1;
        return PT_EINPUT;
    }
    for (int i = 0; i < csv.nf; i++) {
        if (!strcmp(csv.f[i], "batch")) ib = i;
        if (!strcmp(csv.f[i], "steps")) is = i;
        if (!strcmp(csv.f[i], "epochs")) ie = i;
    }
    if (ib < 0 || (is < 0 && ie < 0)) {
        pt_csv_free(&csv);
        pt_diag_set(d, file, ib < 0 ? "batch" : "steps", "", "the header needs a \"batch\" column and a \"steps\" or \"epochs\" column");
        d->line = 1, d->col = 1;
        return PT_EINPUT;
    }
    for (;;) {
        int got = pt_csv_next(&csv), col = is >= 0 ? is : ie;
        double b, y;
        char *end;
        if (got == 0) break;
        if (got < 0 || csv.nf <= ib || csv.nf <= col) {
            if (got > 0 && csv.nf == 1 && !csv.f[0][0]) continue;
            st = pt_diag_set(d, file, "batch", "", "too few fields");
            d->line = csv.record_line, d->col = 1;
            goto out;
        }
        b = strtod(csv.f[ib], &end);
        if (!csv.f[ib][0] || *end || !(b > 0 && b < 1e15)) {
            st = pt_diag_set(d, file, "batch", csv.f[ib], "batch must be a number > 0");
            d->line = csv.record_line, d->col = ib + 1;
            goto out;
        }
        y = strtod(csv.f[col], &end);
        if (!csv.f[col][0] || *end || !(y > 0 && y < 1e15)) {
            st = pt_diag_set(d, file, is >= 0 ? "steps" : "epochs", csv.f[col], "must be a number > 0");
            d->line = csv.record_line, d->col = col + 1;
            goto out;
        }
        if (n == cap) {
            int nc = cap ? 2 * cap : 16;
            double *nb = realloc(bx, (size_t)nc * sizeof *nb), *ne;
            if (!nb) { st = pt_diag_set(d, file, NULL, NULL, "out of memory"); goto out; }
            bx = nb;
            if (!(ne = realloc(ey, (size_t)nc * sizeof *ne))) { st = pt_diag_set(d, file, NULL, NULL, "out of memory"); goto out; }
            ey = ne, cap = nc;
        }
        /* steps S at batch B are S B / N epochs */
        bx[n] = b, ey[n] = is >= 0 ? y * b / samples_per_epoch : y;
        n++;
    }
    if ((st = pt_statef_fit(bx, ey, n, out, d)) != PT_OK) {
        pt_strlcpy(d->file, file, sizeof d->file);
        d->line = 1, d->col = 1;
    }
out:
    pt_csv_free(&csv);
    free(bx), free(ey);
    return st;
}
