/*
 * fuzz_statef.c -- libFuzzer harness of the user's statistical-efficiency
 * CSV (pt_statef_read_csv, src/goal/statef_csv.c).
 *
 * Each input is the text of a CSV of batch and steps (or epochs).  On PT_OK
 * the fit used at least two points and its E_min is positive and finite
 * and B_noise positive (infinite when epochs do not grow with the batch);
 * on PT_EINPUT the diagnostic names the file and a line (fuzz.h).
 */
#include <math.h>

#include "fuzz.h"
#include "goal/statef_csv.h"

#define FILE_NAME "stat.csv"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_text(data, size);
    pt_statef se;
    pt_diag d;
    pt_status s;
    memset(&d, 0, sizeof d);
    s = pt_statef_read_csv(text, FILE_NAME, 1281167.0, &se, &d);
    FZ_CHECK(s == PT_OK || s == PT_EINPUT);
    if (s == PT_OK) {
        FZ_CHECK(se.n >= 2);
        FZ_CHECK(se.e_min > 0 && isfinite(se.e_min));
        FZ_CHECK(se.b_noise > 0);
    } else {
        fz_check_diag(&d, FILE_NAME);
    }
    free(text);
    return 0;
}
