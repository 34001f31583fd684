/*
 * fuzz_csv.c -- libFuzzer harness of the runs-CSV reader and validator
 * (pt_validate_csv, src/validate/validate.c, over src/base/csv.c).
 *
 * Each input is the text of a runs CSV.  On PT_OK every row has a line
 * number, predicted and skipped rows add up to all rows, a skipped row says
 * why, a predicted one has a finite prediction and an error that is not NaN,
 * and the summary's mean absolute error is at most its worst.  On PT_EINPUT the diagnostic
 * names the file and a line (fuzz.h).
 */
#include <math.h>

#include "fuzz.h"
#include "validate/validate.h"

#define FILE_NAME "runs.csv"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_text(data, size);
    pt_vresult r;
    pt_diag d;
    pt_status s;
    memset(&d, 0, sizeof d);
    s = pt_validate_csv(text, FILE_NAME, NULL, &r, &d);
    FZ_CHECK(s == PT_OK || s == PT_EINPUT);
    {
        char *twin = fz_with_bom(text);
        if (twin) {
            pt_vresult r2;
            pt_diag d2;
            memset(&d2, 0, sizeof d2);
            FZ_CHECK(pt_validate_csv(twin, FILE_NAME, NULL, &r2, &d2) == s);
            if (s == PT_OK) {
                FZ_CHECK(r2.n == r.n && r2.predicted == r.predicted);
                pt_validate_free(&r2);
            } else {
                fz_same_diag(&d, &d2);
            }
            free(twin);
        }
    }
    if (s == PT_OK) {
        int prev = 0;
        FZ_CHECK(r.n >= 0 && r.predicted + r.skipped == r.n);
        for (int i = 0; i < r.n; i++) {
            const pt_vrow *w = &r.rows[i];
            FZ_CHECK(w->line >= prev); /* a time-to-train row makes two */
            prev = w->line;
            FZ_CHECK(fz_terminated(w->skipped, sizeof w->skipped));
            FZ_CHECK(fz_terminated(w->strategy, sizeof w->strategy));
            FZ_CHECK(fz_terminated(w->assumed, sizeof w->assumed));
            if (!w->skipped[0]) {
                FZ_CHECK(isfinite(w->predicted));
                FZ_CHECK(!isnan(w->error)); /* measured 1e-300 may give +inf */
            }
        }
        FZ_CHECK(!(r.mean_abs_error > r.worst_abs_error * (1 + 1e-9)));
        pt_validate_free(&r);
    } else {
        fz_check_diag(&d, FILE_NAME);
    }
    free(text);
    return 0;
}
