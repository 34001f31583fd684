/*
 * fuzz_space.c -- libFuzzer harness of the search-space string
 * (pt_space_parse, src/strategy/strategy.c: `plan --space "tp=4,8 pp=1..16"`).
 *
 * On PT_OK every dimension is "any", a non-empty list of at most
 * PT_SPACE_MAXV values, or a range lo <= hi; numbers are >= 0 and the enum
 * dimensions (recompute, schedule, offload) hold only their values; and
 * pt_space_allows agrees with what was parsed.  On PT_EINPUT the diagnostic
 * names the option ("--space"), line 1 and a column inside the text.
 * The text is parsed twice on top of itself, as --space and then --fix are.
 */
#include "fuzz.h"
#include "plan/search.h"

/* How many values an enum dimension has (its names in the key table); -1 for a number. */
static int64_t enum_count(int dim)
{
    const pt_strategy_key *k = pt_strategy_key_at(dim);
    return k->kind == PT_KEY_ENUM ? k->nnames : -1;
}

static void check_space(const pt_space *sp)
{
    for (int k = 0; k < PT_D_COUNT; k++) {
        int64_t ne = enum_count(k);
        FZ_CHECK(pt_space_dim_name(k) != NULL);
        switch (sp->kind[k]) {
        case 0:
            FZ_CHECK(pt_space_allows(sp, k, 0) && pt_space_allows(sp, k, 12345));
            break;
        case 1:
            FZ_CHECK(sp->n[k] >= 1 && sp->n[k] <= PT_SPACE_MAXV);
            for (int i = 0; i < sp->n[k]; i++) {
                FZ_CHECK(sp->v[k][i] >= 0);
                FZ_CHECK(ne < 0 || sp->v[k][i] < ne);
                FZ_CHECK(pt_space_allows(sp, k, sp->v[k][i]));
            }
            break;
        case 2:
            FZ_CHECK(ne < 0);
            FZ_CHECK(sp->lo[k] >= 0 && sp->lo[k] <= sp->hi[k]);
            FZ_CHECK(pt_space_allows(sp, k, sp->lo[k]) && pt_space_allows(sp, k, sp->hi[k]));
            FZ_CHECK(sp->hi[k] == INT64_MAX || !pt_space_allows(sp, k, sp->hi[k] + 1));
            break;
        default:
            FZ_CHECK(sp->kind[k] >= 0 && sp->kind[k] <= 2);
        }
    }
}

static void parse_once(const char *text, const char *label, pt_space *sp)
{
    pt_diag d;
    pt_status s;
    memset(&d, 0, sizeof d);
    s = pt_space_parse(text, label, sp, &d);
    FZ_CHECK(s == PT_OK || s == PT_EINPUT);
    if (s == PT_OK) {
        check_space(sp);
    } else {
        fz_check_diag(&d, label);
        FZ_CHECK(d.line == 1 && (size_t)d.col <= strlen(text));
        FZ_CHECK(d.field[0] != '\0' || d.value[0] == '\0');
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_text(data, size);
    pt_space sp;
    pt_space_init(&sp);
    parse_once(text, "--space", &sp);
    parse_once(text, "--fix", &sp);
    free(text);
    return 0;
}
