/*
 * strategy.c -- the strategy string (SPEC section 4): parse, fill defaults,
 * check every validity rule, format.
 *
 * The rules are the ones the engines enforce (Megatron-LM validate_args and
 * parallel_state, DeepSpeed's ZeRO/offload config, Narayanan et al. SC'21 for
 * the interleaved schedule), each refused with a sentence naming the key and
 * the value, e.g. `tp=3 does not divide num_attention_heads=32`.
 * Not here: what a strategy costs (src/cost) or how to search them (search.c).
 */
#include "base/base.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const recompute_names[] = {"none", "selective", "full"};
static const char *const schedule_names[] = {"gpipe", "1f1b", "interleaved",
                                             "zb-h1", "zb-v",  "dualpipe"};
static const char *const offload_names[] = {"none", "optimizer", "params"};

const char *pt_recompute_name(pt_recompute r) { return recompute_names[r]; }
const char *pt_schedule_name(pt_schedule s) { return schedule_names[s]; }
const char *pt_offload_name(pt_offload o) { return offload_names[o]; }

/* Largest parallel degree or micro-batch accepted (keeps every product in range). */
#define PT_MAX_DEGREE (1 << 20)

#define NKEYS 16
static const char *const key_names[NKEYS] = {"tp",  "pp",  "dp",   "cp",        "ep",
                                             "etp", "vpp", "mbs",  "gbs",       "sp",
                                             "zero", "recompute", "schedule", "offload",
                                             "pp_first", "pp_last"};

static int name_index(const char *const *names, int n, const char *v)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], v) == 0) return i;
    return -1;
}

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

pt_status pt_strategy_parse(const char *text, pt_strategy *out, unsigned *set, pt_diag *d)
{
    const char *p = text;
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
        if (*p != '=')
            return refuse(d, key, "", col, "\"%s\" is not key=value (keys: tp pp dp cp ep etp "
                          "vpp mbs gbs sp zero recompute schedule offload pp_first pp_last)", key);
        p++;
        while (*p && *p != ' ' && *p != ',' && *p != '\t') {
            if (nv + 1 < sizeof val) val[nv++] = *p;
            p++;
        }
        val[nv] = '\0';
        k = name_index(key_names, NKEYS, key);
        if (k < 0)
            return refuse(d, key, val, col, "unknown key \"%s\" (keys: tp pp dp cp ep etp vpp "
                          "mbs gbs sp zero recompute schedule offload pp_first pp_last)", key);
        if (*set & (1u << k)) return refuse(d, key, val, col, "%s is given twice", key);
        *set |= 1u << k;
        if (k <= 10 || k >= 14) { /* numeric keys */
            char *end;
            long long v;
            if (!val[0] || !(isdigit((unsigned char)val[0])))
                return refuse(d, key, val, col, "%s=%s is not a whole number", key, val);
            v = strtoll(val, &end, 10);
            if (*end) return refuse(d, key, val, col, "%s=%s is not a whole number", key, val);
            if (k == 9 && v > 1) return refuse(d, key, val, col, "sp=%s must be 0 or 1", val);
            if (k == 10 && v > 3) return refuse(d, key, val, col, "zero=%s must be 0, 1, 2 or 3", val);
            if ((k < 8 || k >= 14) && (v < 1 || v > PT_MAX_DEGREE))
                return refuse(d, key, val, col, "%s=%s must be between 1 and %d", key, val,
                              PT_MAX_DEGREE);
            if (k == 8 && (v < 1 || v > 1000000000LL))
                return refuse(d, key, val, col, "gbs=%s must be between 1 and 1000000000", val);
            switch (k) {
            case 0: out->tp = (int)v; break;
            case 1: out->pp = (int)v; break;
            case 2: out->dp = (int)v; break;
            case 3: out->cp = (int)v; break;
            case 4: out->ep = (int)v; break;
            case 5: out->etp = (int)v; break;
            case 6: out->vpp = (int)v; break;
            case 7: out->mbs = (int)v; break;
            case 8: out->gbs = (int64_t)v; break;
            case 9: out->sp = (int)v; break;
            case 14: out->pp_first = (int)v; break;
            case 15: out->pp_last = (int)v; break;
            default: out->zero = (int)v; break;
            }
        } else if (k == 11) {
            int r = name_index(recompute_names, 3, val);
            if (r < 0) return refuse(d, key, val, col, "recompute=%s is not none, selective or full", val);
            out->recompute = (pt_recompute)r;
        } else if (k == 12) {
            int s = name_index(schedule_names, 6, val);
            if (s < 0)
                return refuse(d, key, val, col, "schedule=%s is not gpipe, 1f1b, interleaved, "
                              "zb-h1, zb-v or dualpipe", val);
            out->schedule = (pt_schedule)s;
        } else {
            int o = name_index(offload_names, 3, val);
            if (o < 0) return refuse(d, key, val, col, "offload=%s is not none, optimizer or params", val);
            out->offload = (pt_offload)o;
        }
    }
    return PT_OK;
}

/* The rules that tie tensor parallelism to the model's shape. */
static pt_status model_rules(const pt_strategy *st, const pt_model *m, pt_diag *d)
{
    char v[32];
    snprintf(v, sizeof v, "%d", st->tp);
    if (m->heads % st->tp)
        return refuse(d, "tp", v, 0, "tp=%d does not divide num_attention_heads=%lld", st->tp,
                      (long long)m->heads);
    if (m->kv_heads % st->tp)
        return refuse(d, "tp", v, 0, "tp=%d does not divide num_key_value_heads=%lld", st->tp,
                      (long long)m->kv_heads);
    /* the dense MLP is tensor-parallel where there is one (every layer of a
     * dense model; a MoE model's dense layers); experts split by etp instead */
    if ((m->experts == 0 || m->dense_layers > 0) && m->ffn % st->tp)
        return refuse(d, "tp", v, 0, "tp=%d does not divide ffn_hidden_size=%lld", st->tp,
                      (long long)m->ffn);
    if (m->experts > 0 && m->shared_ffn % st->tp)
        return refuse(d, "tp", v, 0, "tp=%d does not divide the shared experts' "
                      "moe_shared_expert_intermediate_size=%lld", st->tp, (long long)m->shared_ffn);
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
            return refuse(d, "ep", v, 0, "ep=%d needs a mixture-of-experts model; %s is dense (ep must be 1)",
                          st->ep, m->name);
        }
        if (st->etp != st->tp) {
            snprintf(v, sizeof v, "%d", st->etp);
            return refuse(d, "etp", v, 0,
                          "etp=%d applies to mixture-of-experts models only; %s is dense (etp must equal tp=%d)",
                          st->etp, m->name, st->tp);
        }
        return PT_OK;
    }
    if (m->experts % st->ep) {
        snprintf(v, sizeof v, "%d", st->ep);
        return refuse(d, "ep", v, 0, "ep=%d does not divide the %lld experts (num_experts %% ep must be 0)",
                      st->ep, (long long)m->experts);
    }
    if (m->moe_ffn % st->etp) {
        snprintf(v, sizeof v, "%d", st->etp);
        return refuse(d, "etp", v, 0, "etp=%d does not divide moe_ffn_hidden_size=%lld", st->etp,
                      (long long)m->moe_ffn);
    }
    if (grid % ((int64_t)st->ep * st->etp)) {
        snprintf(v, sizeof v, "%d", st->ep);
        return refuse(d, "ep", v, 0,
                      "ep*etp = %d*%d does not divide tp*cp*dp = %d*%d*%d = %lld (the expert-parallel "
                      "group is carved out of the same ranks)", st->ep, st->etp, st->tp, st->cp, st->dp,
                      (long long)grid);
    }
    if (st->tp > 1 && !st->sp)
        return refuse(d, "sp", "0", 0, "sp=0: a mixture-of-experts model with tp=%d needs sequence "
                      "parallelism (Megatron: sequence parallelism must be used with MoE and tp > 1)",
                      st->tp);
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
    if (!(set & PT_K_TP)) st->tp = 1;
    if (!(set & PT_K_PP)) st->pp = 1;
    if (!(set & PT_K_CP)) st->cp = 1;
    if (!(set & PT_K_EP)) st->ep = 1;
    if (!(set & PT_K_ETP)) st->etp = st->tp;
    if (!(set & PT_K_VPP)) st->vpp = 1;
    if (!(set & PT_K_MBS)) st->mbs = 1;
    if (!(set & PT_K_ZERO)) st->zero = 1;
    if (!(set & PT_K_SP)) st->sp = st->tp > 1;
    if (!(set & PT_K_RECOMPUTE)) st->recompute = PT_RC_NONE;
    if (!(set & PT_K_OFFLOAD)) st->offload = PT_OFF_NONE;
    if (!(set & PT_K_SCHEDULE)) st->schedule = st->vpp > 1 ? PT_SCHED_INTERLEAVED : PT_SCHED_1F1B;
    if (!(set & PT_K_GBS)) {
        if (job->global_batch <= 0)
            return refuse(d, "gbs", "", 0, "the global batch is not set: give --global-batch B "
                          "or gbs=B in the strategy");
        st->gbs = job->global_batch;
    }
    if (model_rules(st, m, d) != PT_OK) return PT_EINPUT;
    if (!(set & PT_K_DP)) {
        int64_t model = (int64_t)st->tp * st->pp * st->cp;
        if (c->devices % model != 0) {
            snprintf(v, sizeof v, "%lld", (long long)model);
            return refuse(d, "dp", v, 0, "tp*pp*cp=%lld does not divide the cluster's %lld devices",
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

pt_status pt_strategy_check(const pt_strategy *st, const pt_model *m, const pt_cluster *c,
                            const pt_job *job, pt_diag *d)
{
    char v[64];
    double world = (double)st->tp * st->pp * st->cp * st->dp;
    int64_t per_step, mb;
    pt_status rc;
#define VAL(x) (snprintf(v, sizeof v, "%lld", (long long)(x)), v)
    if ((rc = pt_job_check(job, d)) != PT_OK) return rc; /* seq_len, global_batch in range */
    {
        /* every degree at least 1 before anything divides by it */
        const int deg[8] = {st->tp, st->pp, st->dp, st->cp, st->ep, st->etp, st->vpp, st->mbs};
        for (int i = 0; i < 8; i++)
            if (deg[i] < 1 || deg[i] > PT_MAX_DEGREE)
                return refuse(d, key_names[i], VAL(deg[i]), 0, "%s=%d must be between 1 and %d",
                              key_names[i], deg[i], PT_MAX_DEGREE);
    }
    if (world != (double)c->devices)
        return refuse(d, "dp", VAL(st->dp), 0,
                      "tp*pp*cp*dp = %d*%d*%d*%d = %.0f does not equal the cluster's %lld devices",
                      st->tp, st->pp, st->cp, st->dp, world, (long long)c->devices);
    if ((rc = model_rules(st, m, d)) != PT_OK) return rc;
    if ((rc = expert_rules(st, m, d)) != PT_OK) return rc;
    if (st->vpp > 1 && st->pp == 1)
        return refuse(d, "vpp", VAL(st->vpp), 0, "vpp=%d needs pipeline parallelism (pp > 1)", st->vpp);
    if (st->pp_first || st->pp_last) {
        int64_t f, mid, l, nmid = st->pp - (st->pp_first > 0) - (st->pp_last > 0);
        const char *key = st->pp_first ? "pp_first" : "pp_last";
        int val = st->pp_first ? st->pp_first : st->pp_last;
        if (st->pp < 2)
            return refuse(d, key, VAL(val), 0, "%s=%d needs pipeline parallelism (pp >= 2)", key, val);
        if (st->vpp > 1 || (st->schedule != PT_SCHED_1F1B && st->schedule != PT_SCHED_GPIPE &&
                            st->schedule != PT_SCHED_ZBH1))
            return refuse(d, key, VAL(val), 0,
                          "%s=%d: uneven stages need one stage per rank (vpp=1) and schedule 1f1b, "
                          "gpipe or zb-h1", key, val);
        /* with no middle stage (pp=2, both given) first + last is every layer */
        if ((nmid > 0 && (int64_t)st->pp_first + st->pp_last >= m->layers) ||
            (nmid > 0 && (m->layers - st->pp_first - st->pp_last) % nmid) ||
            (nmid == 0 && st->pp_first + st->pp_last != m->layers))
            return refuse(d, key, VAL(val), 0,
                          "pp_first=%d pp_last=%d: the other %lld stages cannot split the remaining "
                          "%lld of num_layers=%lld evenly", st->pp_first, st->pp_last, (long long)nmid,
                          (long long)(m->layers - st->pp_first - st->pp_last), (long long)m->layers);
        pt_strategy_stage_layers(st, m->layers, &f, &mid, &l);
        if (f < 1 || mid < 1 || l < 1)
            return refuse(d, key, VAL(val), 0, "every stage needs at least one layer");
    } else if (m->layers % ((int64_t)st->pp * st->vpp)) {
        if (st->vpp > 1)
            return refuse(d, "vpp", VAL(st->vpp), 0,
                          "pp*vpp = %d*%d does not divide num_layers=%lld", st->pp, st->vpp,
                          (long long)m->layers);
        return refuse(d, "pp", VAL(st->pp), 0, "pp=%d does not divide num_layers=%lld", st->pp,
                      (long long)m->layers);
    }
    switch (st->schedule) {
    case PT_SCHED_INTERLEAVED:
        if (st->vpp < 2)
            return refuse(d, "schedule", "interleaved", 0,
                          "schedule=interleaved needs vpp >= 2 virtual stages per rank");
        break;
    case PT_SCHED_ZBV:
        if (st->vpp != 2 || st->pp < 2)
            return refuse(d, "schedule", "zb-v", 0, "schedule=zb-v needs pp >= 2 and vpp=2 (its V shape)");
        break;
    case PT_SCHED_DUALPIPE:
        if (st->pp < 2 || st->pp % 2 || st->vpp != 1)
            return refuse(d, "schedule", "dualpipe", 0,
                          "schedule=dualpipe needs an even pp >= 2 and vpp=1 (each rank holds two "
                          "mirrored stages)");
        break;
    default:
        if (st->vpp > 1)
            return refuse(d, "vpp", VAL(st->vpp), 0, "vpp=%d needs schedule=interleaved (or zb-v), not %s",
                          st->vpp, pt_schedule_name(st->schedule));
        if (st->schedule != PT_SCHED_GPIPE && st->schedule != PT_SCHED_1F1B && st->pp < 2)
            return refuse(d, "schedule", pt_schedule_name(st->schedule), 0,
                          "schedule=%s needs pp >= 2", pt_schedule_name(st->schedule));
        break;
    }
    if (st->gbs < 1) return refuse(d, "gbs", VAL(st->gbs), 0, "gbs must be at least 1");
    per_step = (int64_t)st->mbs * st->dp;
    if (st->gbs % per_step)
        return refuse(d, "gbs", VAL(st->gbs), 0, "gbs=%lld is not a multiple of mbs*dp=%d*%d=%lld",
                      (long long)st->gbs, st->mbs, st->dp, (long long)per_step);
    mb = st->gbs / per_step;
    if (st->schedule == PT_SCHED_INTERLEAVED && mb % st->pp)
        return refuse(d, "gbs", VAL(st->gbs), 0,
                      "schedule=interleaved needs the micro-batches per pipeline (gbs/(mbs*dp)=%lld) "
                      "to be a multiple of pp=%d", (long long)mb, st->pp);
    if (st->schedule == PT_SCHED_DUALPIPE && mb % 2)
        return refuse(d, "gbs", VAL(st->gbs), 0,
                      "schedule=dualpipe needs an even number of micro-batches (gbs/(mbs*dp)=%lld)",
                      (long long)mb);
    if (st->cp > 1 && job->seq_len % (2 * (int64_t)st->cp))
        return refuse(d, "cp", VAL(st->cp), 0,
                      "cp=%d: seq_len=%lld is not a multiple of 2*cp (load-balanced ring attention)",
                      st->cp, (long long)job->seq_len);
    if (st->sp && st->tp == 1)
        return refuse(d, "sp", "1", 0, "sp=1 needs tensor parallelism (tp > 1)");
    if (st->sp && (job->seq_len / st->cp) % st->tp)
        return refuse(d, "sp", "1", 0,
                      "sp=1: the sequence per rank (seq_len/cp=%lld) is not a multiple of tp=%d",
                      (long long)(job->seq_len / st->cp), st->tp);
    if (st->zero < 0 || st->zero > 3) return refuse(d, "zero", VAL(st->zero), 0, "zero must be 0..3");
    if (st->offload == PT_OFF_OPTIMIZER && st->zero < 1)
        return refuse(d, "offload", "optimizer", 0,
                      "offload=optimizer needs zero>=1 (the optimizer states are offloaded per shard)");
    if (st->offload == PT_OFF_PARAMS && st->zero != 3)
        return refuse(d, "offload", "params", 0, "offload=params needs zero=3 (zero=%d)", st->zero);
#undef VAL
    return PT_OK;
}

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

void pt_strategy_format(const pt_strategy *st, char *buf, size_t n)
{
    size_t k;
    snprintf(buf, n,
             "tp=%d pp=%d dp=%d cp=%d ep=%d etp=%d vpp=%d mbs=%d gbs=%lld sp=%d zero=%d "
             "recompute=%s schedule=%s offload=%s",
             st->tp, st->pp, st->dp, st->cp, st->ep, st->etp, st->vpp, st->mbs, (long long)st->gbs,
             st->sp, st->zero, pt_recompute_name(st->recompute), pt_schedule_name(st->schedule),
             pt_offload_name(st->offload));
    k = strlen(buf);
    if (st->pp_first && k < n) snprintf(buf + k, n - k, " pp_first=%d", st->pp_first);
    k = strlen(buf);
    if (st->pp_last && k < n) snprintf(buf + k, n - k, " pp_last=%d", st->pp_last);
}
