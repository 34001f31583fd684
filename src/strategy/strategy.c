/*
 * strategy.c -- the strategy string (SPEC section 4) and its key table:
 * parse, fill defaults, check every validity rule, format; the search's
 * dimensions and the --space/--fix syntax; the pipeline's stage layout (the
 * rank layout is inline in strategy.h).
 *
 * The rules are the ones the engines enforce (Megatron-LM validate_args and
 * parallel_state, DeepSpeed's ZeRO/offload config, Narayanan et al. SC'21 for
 * the interleaved schedule), each refused with a sentence naming the key and
 * the value, e.g. `tp=3 does not divide num_attention_heads=32`.
 * Not here: what a strategy costs (src/cost) or how to search them (src/plan).
 */
#include "strategy/strategy.h"
#include "base/base.h"

#include <assert.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const recompute_names[] = {"none", "selective", "full"};
static const char *const schedule_names[] = {"gpipe", "1f1b", "interleaved",
                                             "zb-h1", "zb-v",  "dualpipe"};
static const char *const offload_names[] = {"none", "optimizer", "params"};

/* The enum fields are read and written as ints (pt_strategy_get/set). */
_Static_assert(sizeof(pt_recompute) == sizeof(int), "pt_recompute is int-sized");
_Static_assert(sizeof(pt_schedule) == sizeof(int), "pt_schedule is int-sized");
_Static_assert(sizeof(pt_offload) == sizeof(int), "pt_offload is int-sized");

#define FIELD(f) offsetof(pt_strategy, f), sizeof(((pt_strategy *)0)->f)
#define NAMES(a) a, (int)(sizeof a / sizeof a[0])
#define MAXD PT_STRATEGY_MAX_DEGREE

/* One row per key.  Row i is search dimension i (PT_D_*), the order in which
 * the search breaks ties; the strategy string (and the JSON object) lists the
 * keys in the order of their PT_K_* bits. */
static const pt_strategy_key keys[] = {
    /* name        bit               dim             field            kind           lo  hi    names                   default */
    {"tp",        PT_K_TP,        PT_D_TP,        FIELD(tp),        PT_KEY_DEGREE, 1, MAXD, NULL, 0,                 1},
    {"pp",        PT_K_PP,        PT_D_PP,        FIELD(pp),        PT_KEY_DEGREE, 1, MAXD, NULL, 0,                 1},
    {"dp",        PT_K_DP,        PT_D_DP,        FIELD(dp),        PT_KEY_DEGREE, 1, MAXD, NULL, 0,                 PT_KEY_DERIVED},
    {"cp",        PT_K_CP,        PT_D_CP,        FIELD(cp),        PT_KEY_DEGREE, 1, MAXD, NULL, 0,                 1},
    {"vpp",       PT_K_VPP,       PT_D_VPP,       FIELD(vpp),       PT_KEY_DEGREE, 1, MAXD, NULL, 0,                 1},
    {"mbs",       PT_K_MBS,       PT_D_MBS,       FIELD(mbs),       PT_KEY_DEGREE, 1, MAXD, NULL, 0,                 1},
    {"gbs",       PT_K_GBS,       PT_D_GBS,       FIELD(gbs),       PT_KEY_INT64,  1, PT_STRATEGY_MAX_GBS, NULL, 0,  PT_KEY_DERIVED},
    {"sp",        PT_K_SP,        PT_D_SP,        FIELD(sp),        PT_KEY_INT,    0, 1,    NULL, 0,                 PT_KEY_DERIVED},
    {"zero",      PT_K_ZERO,      PT_D_ZERO,      FIELD(zero),      PT_KEY_INT,    0, 3,    NULL, 0,                 1},
    {"recompute", PT_K_RECOMPUTE, PT_D_RECOMPUTE, FIELD(recompute), PT_KEY_ENUM,   0, 2,    NAMES(recompute_names), PT_RC_NONE},
    {"schedule",  PT_K_SCHEDULE,  PT_D_SCHEDULE,  FIELD(schedule),  PT_KEY_ENUM,   0, 5,    NAMES(schedule_names),  PT_KEY_DERIVED},
    {"offload",   PT_K_OFFLOAD,   PT_D_OFFLOAD,   FIELD(offload),   PT_KEY_ENUM,   0, 2,    NAMES(offload_names),   PT_OFF_NONE},
    {"pp_first",  PT_K_PP_FIRST,  PT_D_PP_FIRST,  FIELD(pp_first),  PT_KEY_LAYERS, 1, MAXD, NULL, 0,                 0},
    {"pp_last",   PT_K_PP_LAST,   PT_D_PP_LAST,   FIELD(pp_last),   PT_KEY_LAYERS, 1, MAXD, NULL, 0,                 0},
    {"ep",        PT_K_EP,        PT_D_EP,        FIELD(ep),        PT_KEY_DEGREE, 1, MAXD, NULL, 0,                 1},
    {"etp",       PT_K_ETP,       PT_D_ETP,       FIELD(etp),       PT_KEY_DEGREE, 1, MAXD, NULL, 0,                 PT_KEY_DERIVED},
};
_Static_assert(sizeof keys / sizeof keys[0] == PT_STRATEGY_NKEYS, "one row per key");
_Static_assert(PT_D_COUNT == PT_STRATEGY_NKEYS, "one search dimension per key");
_Static_assert(PT_STRATEGY_NKEYS <= 32, "the set mask is an unsigned");

#undef FIELD
#undef NAMES
#undef MAXD

const char *pt_recompute_name(pt_recompute r) { return recompute_names[r]; }
const char *pt_schedule_name(pt_schedule s) { return schedule_names[s]; }
const char *pt_offload_name(pt_offload o) { return offload_names[o]; }

/* ---- the table ------------------------------------------------------------------- */

const pt_strategy_key *pt_strategy_key_at(int i)
{
    return i >= 0 && i < PT_STRATEGY_NKEYS ? &keys[i] : NULL;
}

int pt_strategy_key_find(const char *name, size_t n)
{
    for (int i = 0; i < PT_STRATEGY_NKEYS; i++)
        if (strlen(keys[i].name) == n && !strncmp(keys[i].name, name, n)) return i;
    return -1;
}

int pt_strategy_key_of_bit(unsigned bit)
{
    for (int i = 0; i < PT_STRATEGY_NKEYS; i++)
        if (keys[i].bit == bit) return i;
    return -1;
}

const char *pt_strategy_key_name(unsigned bit)
{
    int i = pt_strategy_key_of_bit(bit);
    assert(i >= 0);
    return keys[i].name;
}

/* The j-th key of the strategy string: the one with bit 1 << j. */
static int text_key(int j)
{
    int i = pt_strategy_key_of_bit(1u << j);
    assert(i >= 0);
    return i;
}

int64_t pt_strategy_get(const pt_strategy *st, int i)
{
    const unsigned char *p = (const unsigned char *)st + keys[i].offset;
    if (keys[i].width == sizeof(int64_t)) {
        int64_t v;
        memcpy(&v, p, sizeof v);
        return v;
    } else {
        int v;
        memcpy(&v, p, sizeof v);
        return v;
    }
}

void pt_strategy_set(pt_strategy *st, int i, int64_t v)
{
    unsigned char *p = (unsigned char *)st + keys[i].offset;
    if (keys[i].width == sizeof(int64_t)) {
        memcpy(p, &v, sizeof v);
    } else {
        int x = (int)v;
        assert(v >= INT_MIN && v <= INT_MAX);
        memcpy(p, &x, sizeof x);
    }
}

void pt_strategy_key_value_text(int i, int64_t v, char *buf, size_t n)
{
    const pt_strategy_key *k = &keys[i];
    if (k->kind == PT_KEY_ENUM && v >= 0 && v < k->nnames) snprintf(buf, n, "%s", k->names[v]);
    else if (k->kind == PT_KEY_LAYERS && v == 0) snprintf(buf, n, "even");
    else snprintf(buf, n, "%lld", (long long)v);
}

/* "a, b or c" into buf from n words. */
static void or_list(char *buf, size_t size, const char *const *words, int n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && k < size; i++) {
        const char *sep = i == 0 ? "" : i == n - 1 ? " or " : ", ";
        int w = snprintf(buf + k, size - k, "%s%s", sep, words[i]);
        if (w < 0) break;
        k += (size_t)w;
    }
}

/* The key names separated by spaces, in the order of the strategy string or
 * (by_dim) of the search's dimensions. */
static void key_list(char *buf, size_t size, int by_dim)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int j = 0; j < PT_STRATEGY_NKEYS && k < size; j++) {
        int i = by_dim ? j : text_key(j);
        int w = snprintf(buf + k, size - k, "%s%s", j ? " " : "", keys[i].name);
        if (w < 0) break;
        k += (size_t)w;
    }
}

/* ---- the strategy string ------------------------------------------------------------ */

static pt_status refuse(pt_diag *d, const char *key, const char *value, int col,
                        const char *fmt, ...) PT_PRINTF(5, 6);

static pt_status refuse(pt_diag *d, const char *key, const char *value, int col,
                        const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pt_diag_set(d, col > 0 ? "strategy" : NULL, key, value, "%s", msg);
    if (col > 0) {
        d->line = 1;
        d->col = col;
    }
    return PT_EINPUT;
}

/* A value of key i from the strategy string: a name of an enum, else a whole
 * number in the key's range. */
static pt_status parse_key_value(int i, const char *val, int col, pt_strategy *out, pt_diag *d)
{
    const pt_strategy_key *k = &keys[i];
    char words[160];
    if (k->kind == PT_KEY_ENUM) {
        for (int e = 0; e < k->nnames; e++)
            if (strcmp(k->names[e], val) == 0) {
                pt_strategy_set(out, i, e);
                return PT_OK;
            }
        or_list(words, sizeof words, k->names, k->nnames);
        return refuse(d, k->name, val, col, "%s=%s is not %s", k->name, val, words);
    } else {
        char *end;
        long long v;
        if (!val[0] || !(isdigit((unsigned char)val[0])))
            return refuse(d, k->name, val, col, "%s=%s is not a whole number", k->name, val);
        v = strtoll(val, &end, 10);
        if (*end) return refuse(d, k->name, val, col, "%s=%s is not a whole number", k->name, val);
        if (v < k->lo || v > k->hi) {
            if (k->hi - k->lo <= 3) { /* a few values: name them all */
                char num[4][24];
                const char *w[4];
                int nw = 0;
                for (int64_t x = k->lo; x <= k->hi; x++, nw++) {
                    snprintf(num[nw], sizeof num[nw], "%lld", (long long)x);
                    w[nw] = num[nw];
                }
                or_list(words, sizeof words, w, nw);
                return refuse(d, k->name, val, col, "%s=%s must be %s", k->name, val, words);
            }
            return refuse(d, k->name, val, col, "%s=%s must be between %lld and %lld", k->name, val,
                          (long long)k->lo, (long long)k->hi);
        }
        pt_strategy_set(out, i, v);
        return PT_OK;
    }
}

pt_status pt_strategy_parse(const char *text, pt_strategy *out, unsigned *set, pt_diag *d)
{
    const char *p = text;
    char names[160];
    memset(out, 0, sizeof *out);
    *set = 0;
    for (;;) {
        char key[32], val[64];
        size_t nk = 0, nv = 0;
        int col, k;
        while (*p == ' ' || *p == ',' || *p == '\t') p++;
        if (!*p) break;
        col = (int)(p - text) + 1;
        while (*p && *p != '=' && *p != ' ' && *p != ',' && *p != '\t') {
            if (nk + 1 < sizeof key) key[nk++] = *p;
            p++;
        }
        key[nk] = '\0';
        if (*p != '=') {
            key_list(names, sizeof names, 0);
            return refuse(d, key, "", col, "\"%s\" is not key=value (keys: %s)", key, names);
        }
        p++;
        while (*p && *p != ' ' && *p != ',' && *p != '\t') {
            if (nv + 1 < sizeof val) val[nv++] = *p;
            p++;
        }
        val[nv] = '\0';
        k = pt_strategy_key_find(key, nk);
        if (k < 0) {
            key_list(names, sizeof names, 0);
            return refuse(d, key, val, col, "unknown key \"%s\" (keys: %s)", key, names);
        }
        if (*set & keys[k].bit) return refuse(d, key, val, col, "%s is given twice", key);
        *set |= keys[k].bit;
        if (parse_key_value(k, val, col, out, d) != PT_OK) return PT_EINPUT;
    }
    return PT_OK;
}

void pt_strategy_format(const pt_strategy *st, char *buf, size_t n)
{
    size_t used = 0;
    if (n) buf[0] = '\0';
    for (int j = 0; j < PT_STRATEGY_NKEYS && used < n; j++) {
        int i = text_key(j);
        int64_t v = pt_strategy_get(st, i);
        char text[32];
        int w;
        if (keys[i].kind == PT_KEY_LAYERS && v == 0) continue; /* an even split */
        pt_strategy_key_value_text(i, v, text, sizeof text);
        w = snprintf(buf + used, n - used, "%s%s=%s", used ? " " : "", keys[i].name, text);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* ---- the rules ------------------------------------------------------------------------ */

/* A rule a resolved strategy breaks, refused on the key with bit (PT_K_*):
 * no location, the value as text. */
static pt_status refuse_key(pt_diag *d, unsigned bit, const char *value, const char *fmt, ...)
    PT_PRINTF(4, 5);

static pt_status refuse_key(pt_diag *d, unsigned bit, const char *value, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return refuse(d, pt_strategy_key_name(bit), value, 0, "%s", msg);
}

/* The rules that tie tensor parallelism to the model's shape: tp divides
 * each width it splits.  The dense MLP is tensor-parallel where there is one
 * (every layer of a dense model; a MoE model's dense layers); experts split
 * by etp instead.  A Mamba-2 mixer splits its heads and its B, C groups over
 * the tp ranks (Megatron-Core megatron/core/ssm/mamba_mixer.py asserts nheads
 * and ngroups % tensor_model_parallel_size == 0; d_inner = heads x head_dim
 * then divides too). */
static pt_status model_rules(const pt_strategy *st, const pt_model *m, pt_diag *d)
{
    int mamba = strchr(m->hybrid, 'M') != NULL;
    const struct {
        int applies;
        int64_t width;
        const char *name;
    } split[] = {
        {1, m->heads, "num_attention_heads"},
        {1, m->kv_heads, "num_key_value_heads"},
        {m->experts == 0 || m->dense_layers > 0, m->ffn, "ffn_hidden_size"},
        {m->experts > 0, m->shared_ffn, "the shared experts' moe_shared_expert_intermediate_size"},
        {mamba, m->mamba_heads, "mamba_num_heads"},
        {mamba, m->mamba_groups, "n_groups"},
    };
    char v[32];
    snprintf(v, sizeof v, "%d", st->tp);
    for (size_t i = 0; i < sizeof split / sizeof split[0]; i++)
        if (split[i].applies && split[i].width % st->tp)
            return refuse_key(d, PT_K_TP, v, "tp=%d does not divide %s=%lld", st->tp, split[i].name,
                              (long long)split[i].width);
    return PT_OK;
}

/* Expert parallelism (Megatron-Core, megatron/core/parallel_state.py and
 * training/arguments.py validate_args):
 *   - the expert grid is etp x ep x edp x pp over the same ranks as
 *     tp x cp x dp x pp, so world % (etp*ep*pp) == 0, i.e. ep*etp divides
 *     tp*cp*dp, and the expert data-parallel size is edp = tp*cp*dp/(ep*etp);
 *   - num_experts % expert_model_parallel_size == 0;
 *   - each expert's FFN splits over etp: moe_ffn_hidden_size % etp == 0;
 *   - "When using MoE and tensor parallelism, sequence parallelism must be used";
 *   - a dense model has ep = 1 and etp = tp (there is nothing to split). */
static pt_status expert_rules(const pt_strategy *st, const pt_model *m, pt_diag *d)
{
    char v[32];
    int64_t grid = (int64_t)st->tp * st->cp * st->dp;
    if (m->experts == 0) {
        if (st->ep != 1) {
            snprintf(v, sizeof v, "%d", st->ep);
            return refuse_key(d, PT_K_EP, v, "ep=%d needs a mixture-of-experts model; %s is dense "
                              "(ep must be 1)", st->ep, m->name);
        }
        if (st->etp != st->tp) {
            snprintf(v, sizeof v, "%d", st->etp);
            return refuse_key(d, PT_K_ETP, v, "etp=%d applies to mixture-of-experts models only; %s is "
                              "dense (etp must equal tp=%d)", st->etp, m->name, st->tp);
        }
        return PT_OK;
    }
    if (m->experts % st->ep) {
        snprintf(v, sizeof v, "%d", st->ep);
        return refuse_key(d, PT_K_EP, v, "ep=%d does not divide the %lld experts (num_experts %% ep "
                          "must be 0)", st->ep, (long long)m->experts);
    }
    if (m->moe_ffn % st->etp) {
        snprintf(v, sizeof v, "%d", st->etp);
        return refuse_key(d, PT_K_ETP, v, "etp=%d does not divide moe_ffn_hidden_size=%lld", st->etp,
                          (long long)m->moe_ffn);
    }
    if (grid % ((int64_t)st->ep * st->etp)) {
        snprintf(v, sizeof v, "%d", st->ep);
        return refuse_key(d, PT_K_EP, v,
                          "ep*etp = %d*%d does not divide tp*cp*dp = %d*%d*%d = %lld (the "
                          "expert-parallel group is carved out of the same ranks)", st->ep, st->etp,
                          st->tp, st->cp, st->dp, (long long)grid);
    }
    if (st->tp > 1 && !st->sp)
        return refuse_key(d, PT_K_SP, "0", "sp=0: a mixture-of-experts model with tp=%d needs "
                          "sequence parallelism (Megatron: sequence parallelism must be used with "
                          "MoE and tp > 1)", st->tp);
    return PT_OK;
}

int pt_strategy_moe_layout(const pt_model *m, int pp, int *first, int *last)
{
    int64_t mid, rest;
    if (m->experts == 0 || pp <= 2 || m->layers % pp == 0) return 0;
    mid = (m->layers + pp - 1) / pp;
    rest = m->layers - (int64_t)(pp - 2) * mid;
    if (rest < 2 || rest - rest / 2 > mid) return 0;
    *first = (int)(rest - rest / 2);
    *last = (int)(rest / 2);
    return 1;
}

pt_status pt_strategy_resolve(pt_strategy *st, unsigned set, const pt_model *m,
                              const pt_cluster *c, const pt_job *job, pt_diag *d)
{
    char v[32];
    /* constant defaults first: the derived ones below read them */
    for (int i = 0; i < PT_STRATEGY_NKEYS; i++)
        if (!(set & keys[i].bit) && keys[i].def != PT_KEY_DERIVED) pt_strategy_set(st, i, keys[i].def);
    if (!(set & PT_K_ETP)) st->etp = st->tp;
    if (!(set & PT_K_SP)) st->sp = st->tp > 1;
    if (!(set & PT_K_SCHEDULE)) st->schedule = st->vpp > 1 ? PT_SCHED_INTERLEAVED : PT_SCHED_1F1B;
    if (!(set & PT_K_GBS)) {
        if (job->global_batch <= 0)
            return refuse_key(d, PT_K_GBS, "", "the global batch is not set: give --global-batch B "
                              "or gbs=B in the strategy");
        st->gbs = job->global_batch;
    }
    if (model_rules(st, m, d) != PT_OK) return PT_EINPUT;
    if (!(set & PT_K_DP)) {
        int64_t model = (int64_t)st->tp * st->pp * st->cp;
        if (c->devices % model != 0) {
            snprintf(v, sizeof v, "%lld", (long long)model);
            return refuse_key(d, PT_K_DP, v, "tp*pp*cp=%lld does not divide the cluster's %lld devices",
                              (long long)model, (long long)c->devices);
        }
        st->dp = (int)(c->devices / model);
    }
    /* Megatron turns sequence parallelism off with a warning when tp == 1. */
    if (st->tp == 1) st->sp = 0;
    /* A MoE model whose layers the pipeline cannot split evenly (DeepSeek-V3:
     * 61 layers) runs with fewer layers on the first stage (it also holds the
     * embedding) and the last (the loss and any multi-token-prediction
     * module), as Megatron's DeepSeek-V3 recipes do with
     * --pipeline-model-parallel-layout / --decoder-first/last-pipeline-num-layers:
     * the middle stages take ceil(layers/pp), first and last split the rest
     * (61 on 16: 3, 14 x 4, 2). */
    if (st->vpp == 1 && !(set & (PT_K_PP_FIRST | PT_K_PP_LAST)))
        pt_strategy_moe_layout(m, st->pp, &st->pp_first, &st->pp_last);
    return pt_strategy_check(st, m, c, job, d);
}

/* A degree key outside its range, or -1 (table order: the quick test). */
static int bad_degree(const pt_strategy *st)
{
    for (int i = 0; i < PT_STRATEGY_NKEYS; i++) {
        int64_t x;
        if (keys[i].kind != PT_KEY_DEGREE) continue;
        x = pt_strategy_get(st, i);
        if (x < keys[i].lo || x > keys[i].hi) return i;
    }
    return -1;
}

pt_status pt_strategy_check(const pt_strategy *st, const pt_model *m, const pt_cluster *c,
                            const pt_job *job, pt_diag *d)
{
    char v[64];
    double world = (double)st->tp * st->pp * st->cp * st->dp;
    int64_t per_step, mb;
    pt_status rc;
#define VAL(x) (snprintf(v, sizeof v, "%lld", (long long)(x)), v)
    if ((rc = pt_job_check(job, d)) != PT_OK) return rc; /* seq_len, global_batch in range */
    /* every degree in its range before anything divides by it (the first
     * one wrong in the string's order is the one refused) */
    if (bad_degree(st) >= 0)
        for (int j = 0; j < PT_STRATEGY_NKEYS; j++) {
            int i = text_key(j);
            int64_t x = pt_strategy_get(st, i);
            if (keys[i].kind == PT_KEY_DEGREE && (x < keys[i].lo || x > keys[i].hi))
                return refuse(d, keys[i].name, VAL(x), 0, "%s=%lld must be between %lld and %lld",
                              keys[i].name, (long long)x, (long long)keys[i].lo, (long long)keys[i].hi);
        }
    if (world != (double)c->devices)
        return refuse_key(d, PT_K_DP, VAL(st->dp),
                          "tp*pp*cp*dp = %d*%d*%d*%d = %.0f does not equal the cluster's %lld devices",
                          st->tp, st->pp, st->cp, st->dp, world, (long long)c->devices);
    if ((rc = model_rules(st, m, d)) != PT_OK) return rc;
    if ((rc = expert_rules(st, m, d)) != PT_OK) return rc;
    if (st->vpp > 1 && st->pp == 1)
        return refuse_key(d, PT_K_VPP, VAL(st->vpp), "vpp=%d needs pipeline parallelism (pp > 1)",
                          st->vpp);
    if (st->pp_first || st->pp_last) {
        int64_t f, mid, l, nmid = st->pp - (st->pp_first > 0) - (st->pp_last > 0);
        unsigned bit = st->pp_first ? PT_K_PP_FIRST : PT_K_PP_LAST;
        const char *key = pt_strategy_key_name(bit);
        int val = st->pp_first ? st->pp_first : st->pp_last;
        if (st->pp < 2)
            return refuse_key(d, bit, VAL(val), "%s=%d needs pipeline parallelism (pp >= 2)", key, val);
        if (st->vpp > 1 || (st->schedule != PT_SCHED_1F1B && st->schedule != PT_SCHED_GPIPE &&
                            st->schedule != PT_SCHED_ZBH1))
            return refuse_key(d, bit, VAL(val),
                              "%s=%d: uneven stages need one stage per rank (vpp=1) and schedule "
                              "1f1b, gpipe or zb-h1", key, val);
        /* with no middle stage (pp=2, both given) first + last is every layer */
        if ((nmid > 0 && (int64_t)st->pp_first + st->pp_last >= m->layers) ||
            (nmid > 0 && (m->layers - st->pp_first - st->pp_last) % nmid) ||
            (nmid == 0 && st->pp_first + st->pp_last != m->layers))
            return refuse_key(d, bit, VAL(val),
                              "pp_first=%d pp_last=%d: the other %lld stages cannot split the "
                              "remaining %lld of num_layers=%lld evenly", st->pp_first, st->pp_last,
                              (long long)nmid, (long long)(m->layers - st->pp_first - st->pp_last),
                              (long long)m->layers);
        pt_strategy_stage_layers(st, m->layers, &f, &mid, &l);
        if (f < 1 || mid < 1 || l < 1)
            return refuse_key(d, bit, VAL(val), "every stage needs at least one layer");
    } else if (m->layers % ((int64_t)st->pp * st->vpp)) {
        if (st->vpp > 1)
            return refuse_key(d, PT_K_VPP, VAL(st->vpp), "pp*vpp = %d*%d does not divide num_layers=%lld",
                              st->pp, st->vpp, (long long)m->layers);
        return refuse_key(d, PT_K_PP, VAL(st->pp), "pp=%d does not divide num_layers=%lld", st->pp,
                          (long long)m->layers);
    }
    switch (st->schedule) {
    case PT_SCHED_INTERLEAVED:
        if (st->vpp < 2)
            return refuse_key(d, PT_K_SCHEDULE, "interleaved",
                              "schedule=interleaved needs vpp >= 2 virtual stages per rank");
        break;
    case PT_SCHED_ZBV:
        if (st->vpp != 2 || st->pp < 2)
            return refuse_key(d, PT_K_SCHEDULE, "zb-v", "schedule=zb-v needs pp >= 2 and vpp=2 (its V shape)");
        break;
    case PT_SCHED_DUALPIPE:
        if (st->pp < 2 || st->pp % 2 || st->vpp != 1)
            return refuse_key(d, PT_K_SCHEDULE, "dualpipe",
                              "schedule=dualpipe needs an even pp >= 2 and vpp=1 (each rank holds two "
                              "mirrored stages)");
        break;
    default:
        if (st->vpp > 1)
            return refuse_key(d, PT_K_VPP, VAL(st->vpp),
                              "vpp=%d needs schedule=interleaved (or zb-v), not %s", st->vpp,
                              pt_schedule_name(st->schedule));
        if (st->schedule != PT_SCHED_GPIPE && st->schedule != PT_SCHED_1F1B && st->pp < 2)
            return refuse_key(d, PT_K_SCHEDULE, pt_schedule_name(st->schedule), "schedule=%s needs pp >= 2",
                              pt_schedule_name(st->schedule));
        break;
    }
    if (st->gbs < 1) return refuse_key(d, PT_K_GBS, VAL(st->gbs), "gbs must be at least 1");
    per_step = (int64_t)st->mbs * st->dp;
    if (st->gbs % per_step)
        return refuse_key(d, PT_K_GBS, VAL(st->gbs), "gbs=%lld is not a multiple of mbs*dp=%d*%d=%lld",
                          (long long)st->gbs, st->mbs, st->dp, (long long)per_step);
    mb = st->gbs / per_step;
    if (st->schedule == PT_SCHED_INTERLEAVED && mb % st->pp)
        return refuse_key(d, PT_K_GBS, VAL(st->gbs),
                          "schedule=interleaved needs the micro-batches per pipeline "
                          "(gbs/(mbs*dp)=%lld) to be a multiple of pp=%d", (long long)mb, st->pp);
    if (st->schedule == PT_SCHED_DUALPIPE && mb % 2)
        return refuse_key(d, PT_K_GBS, VAL(st->gbs),
                          "schedule=dualpipe needs an even number of micro-batches (gbs/(mbs*dp)=%lld)",
                          (long long)mb);
    if (st->cp > 1 && job->seq_len % (2 * (int64_t)st->cp))
        return refuse_key(d, PT_K_CP, VAL(st->cp),
                          "cp=%d: seq_len=%lld is not a multiple of 2*cp (load-balanced ring attention)",
                          st->cp, (long long)job->seq_len);
    if (st->sp && st->tp == 1)
        return refuse_key(d, PT_K_SP, "1", "sp=1 needs tensor parallelism (tp > 1)");
    if (st->sp && (job->seq_len / st->cp) % st->tp)
        return refuse_key(d, PT_K_SP, "1",
                          "sp=1: the sequence per rank (seq_len/cp=%lld) is not a multiple of tp=%d",
                          (long long)(job->seq_len / st->cp), st->tp);
    if (st->zero < 0 || st->zero > 3) return refuse_key(d, PT_K_ZERO, VAL(st->zero), "zero must be 0..3");
    if (st->offload == PT_OFF_OPTIMIZER && st->zero < 1)
        return refuse_key(d, PT_K_OFFLOAD, "optimizer",
                          "offload=optimizer needs zero>=1 (the optimizer states are offloaded per shard)");
    if (st->offload == PT_OFF_PARAMS && st->zero != 3)
        return refuse_key(d, PT_K_OFFLOAD, "params", "offload=params needs zero=3 (zero=%d)", st->zero);
#undef VAL
    return PT_OK;
}

/* ---- stage layout --------------------------------------------------------- */

void pt_strategy_stage_layers(const pt_strategy *st, int64_t layers, int64_t *first, int64_t *mid,
                              int64_t *last)
{
    int64_t nmid = st->pp - (st->pp_first > 0) - (st->pp_last > 0);
    int64_t rest = layers - st->pp_first - st->pp_last;
    if (st->pp <= 1) {
        *first = *mid = *last = layers;
        return;
    }
    *mid = nmid > 0 ? rest / nmid : (st->pp_first ? st->pp_first : layers / st->pp);
    *first = st->pp_first ? st->pp_first : *mid;
    *last = st->pp_last ? st->pp_last : *mid;
}

/* ---- search dimensions and the --space / --fix syntax ------------------------------- */

const char *pt_space_dim_name(int dim) { return keys[dim].name; }

int64_t pt_strategy_dim(const pt_strategy *st, int dim) { return pt_strategy_get(st, dim); }

void pt_space_init(pt_space *sp) { memset(sp, 0, sizeof *sp); }

int pt_space_allows(const pt_space *sp, int dim, int64_t value)
{
    switch (sp->kind[dim]) {
    case 1:
        for (int i = 0; i < sp->n[dim]; i++)
            if (sp->v[dim][i] == value) return 1;
        return 0;
    case 2: return value >= sp->lo[dim] && value <= sp->hi[dim];
    default: return 1;
    }
}

void pt_space_pin(pt_space *sp, const pt_strategy *st, unsigned set)
{
    for (int i = 0; i < PT_STRATEGY_NKEYS; i++)
        if (set & keys[i].bit) { /* pinned: a one-value list */
            sp->kind[i] = 1;
            sp->n[i] = 1;
            sp->v[i][0] = pt_strategy_get(st, i);
        }
}

/* One value of dimension dim in --space: a name of an enum, or up to 12 digits. */
static int space_value(int dim, const char *s, size_t n, int64_t *out)
{
    const pt_strategy_key *k = &keys[dim];
    if (k->kind == PT_KEY_ENUM) {
        for (int e = 0; e < k->nnames; e++)
            if (strlen(k->names[e]) == n && !strncmp(k->names[e], s, n)) {
                *out = e;
                return 1;
            }
        return 0;
    } else {
        int64_t v = 0;
        if (n == 0 || n > 12) return 0;
        for (size_t j = 0; j < n; j++) {
            if (s[j] < '0' || s[j] > '9') return 0;
            v = v * 10 + (s[j] - '0');
        }
        *out = v;
        return 1;
    }
}

/* Refuses a --space item starting at column col. */
static pt_status space_refuse(pt_diag *d, const char *label, const char *key, const char *value,
                              int col, const char *fmt, ...) PT_PRINTF(6, 7);

static pt_status space_refuse(pt_diag *d, const char *label, const char *key, const char *value,
                              int col, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pt_diag_set(d, label, key, value, "%s", msg);
    d->line = 1;
    d->col = col;
    return PT_EINPUT;
}

pt_status pt_space_parse(const char *text, const char *label, pt_space *sp, pt_diag *d)
{
    const char *p = text;
    unsigned seen = 0; /* keys this text gave: a second one is refused, not silently the winner */
    for (;;) {
        const char *key, *val, *end, *dots;
        const char *name;
        char vbuf[96];
        size_t nk;
        int dim, col;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) break;
        col = (int)(p - text) + 1;
        key = p;
        while (*p && *p != '=' && *p != ' ') p++;
        nk = (size_t)(p - key);
        dim = pt_strategy_key_find(key, nk); /* a key's index is its dimension */
        if (*p != '=' || dim < 0) {
            char k[32], names[160];
            pt_strlcpy(k, key, nk + 1 < sizeof k ? nk + 1 : sizeof k);
            key_list(names, sizeof names, 1);
            return space_refuse(d, label, k, k, col, "\"%s\" is not KEY=VALUES with KEY one of %s", k,
                                names);
        }
        name = keys[dim].name;
        if (seen & (1u << dim))
            return space_refuse(d, label, name, name, col,
                                "%s is given twice (give one list A,B,C or one range LO..HI)", name);
        seen |= 1u << dim;
        val = ++p;
        while (*p && *p != ' ' && *p != '\t') p++;
        end = p;
        dots = strstr(val, "..");
        pt_strlcpy(vbuf, val, (size_t)(end - val) + 1 < sizeof vbuf ? (size_t)(end - val) + 1 : sizeof vbuf);
        if (dots && dots < end) {
            int64_t lo, hi;
            if (!space_value(dim, val, (size_t)(dots - val), &lo) ||
                !space_value(dim, dots + 2, (size_t)(end - dots - 2), &hi) || lo > hi ||
                keys[dim].kind == PT_KEY_ENUM)
                return space_refuse(d, label, name, vbuf, col,
                                    "%s=%s is not a range LO..HI of whole numbers", name, vbuf);
            sp->kind[dim] = 2;
            sp->lo[dim] = lo;
            sp->hi[dim] = hi;
        } else {
            const char *q = val;
            if (val == end) /* "tp=" would allow nothing */
                return space_refuse(d, label, name, "", col,
                                    "%s= gives no value (a list A,B,C or a range LO..HI)", name);
            sp->kind[dim] = 1;
            sp->n[dim] = 0;
            while (q < end) {
                const char *c = q;
                int64_t x;
                while (c < end && *c != ',') c++;
                if (sp->n[dim] == PT_SPACE_MAXV)
                    return space_refuse(d, label, name, vbuf, col,
                                        "%s=%s: more than %d values (give a range LO..HI)", name,
                                        vbuf, PT_SPACE_MAXV);
                if (!space_value(dim, q, (size_t)(c - q), &x))
                    return space_refuse(d, label, name, vbuf, col, "%s=%s: \"%.*s\" is not a value of %s",
                                        name, vbuf, (int)(c - q), q, name);
                sp->v[dim][sp->n[dim]++] = x;
                q = c < end ? c + 1 : c;
            }
        }
    }
    return PT_OK;
}
