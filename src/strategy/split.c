/*
 * split.c -- layers= and batch_share= (see split.h).
 */
#include "strategy/split.h"
#include "strategy/strategy.h"
#include "base/base.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pt_status split_refuse(pt_diag *d, const char *key, const char *value, int col, const char *fmt, ...)
    PT_PRINTF(5, 6);

static pt_status split_refuse(pt_diag *d, const char *key, const char *value, int col, const char *fmt, ...)
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

/* Reads the list at text[*i] (after "key=") into out (at most max entries),
 * blanking it and the key (from `from`) in buf; col: the key's column. */
static pt_status read_list(const char *text, char *buf, size_t from, size_t *i, const char *key, int col,
                           int *out, int max, int *n, pt_diag *d)
{
    size_t j = *i;
    char val[64];
    *n = 0;
    for (;;) {
        long long v = 0;
        size_t k = j;
        while (text[k] >= '0' && text[k] <= '9') {
            if (v < 100000000) v = v * 10 + (text[k] - '0');
            k++;
        }
        if (k == j || v < 1 || v > PT_STRATEGY_MAX_DEGREE) {
            size_t e = j;
            while (text[e] && text[e] != ' ' && text[e] != ',' && text[e] != '\t') e++;
            snprintf(val, sizeof val, "%.*s", (int)(e - j < 40 ? e - j : 40), text + j);
            return split_refuse(d, key, val, col, "%s: \"%s\" is not a count from 1 to %d (write %s=a,b,c)",
                                key, val, PT_STRATEGY_MAX_DEGREE, key);
        }
        {
            long long rep = 1; /* "6x32": 6, 32 times */
            if (text[k] == 'x' && text[k + 1] >= '0' && text[k + 1] <= '9') {
                rep = 0;
                k++;
                while (text[k] >= '0' && text[k] <= '9') {
                    if (rep <= max) rep = rep * 10 + (text[k] - '0');
                    k++;
                }
            }
            if (rep < 1 || rep > max - *n) {
                snprintf(val, sizeof val, "%lld", rep);
                return split_refuse(d, key, val, col, "%s: more than %d entries (or a repeat count of 0)", key,
                                    max);
            }
            while (rep-- > 0) out[(*n)++] = (int)v;
        }
        j = k;
        if (text[j] == ',' && text[j + 1] >= '0' && text[j + 1] <= '9') {
            j++;
            continue;
        }
        break;
    }
    memset(buf + from, ' ', j - from);
    *i = j;
    return PT_OK;
}

pt_status pt_split_parse(const char *text, pt_strategy *st, unsigned *set, pt_split *sp, pt_diag *d)
{
    size_t n = strlen(text), i = 0;
    char *buf;
    pt_status s = PT_OK;
    assert(text && st && set && sp);
    memset(sp, 0, sizeof *sp);
    buf = malloc(n + 1);
    if (!buf) return pt_diag_set(d, NULL, NULL, NULL, "out of memory");
    memcpy(buf, text, n + 1);
    while (i < n && s == PT_OK) {
        size_t start;
        while (i < n && (text[i] == ' ' || text[i] == ',' || text[i] == '\t')) i++;
        start = i;
        if (strncmp(text + i, "layers=", 7) == 0) {
            size_t j = i + 7;
            if (sp->nlayers) s = split_refuse(d, "layers", "", (int)i + 1, "layers is given twice");
            else s = read_list(text, buf, start, &j, "layers", (int)i + 1, sp->layers, PT_SPLIT_MAX_STAGES,
                               &sp->nlayers, d);
            i = j;
            continue;
        }
        if (strncmp(text + i, "batch_share=", 12) == 0) {
            size_t j = i + 12;
            if (sp->nshare) s = split_refuse(d, "batch_share", "", (int)i + 1, "batch_share is given twice");
            else s = read_list(text, buf, start, &j, "batch_share", (int)i + 1, sp->share, PT_SPLIT_MAX_DP,
                               &sp->nshare, d);
            i = j;
            continue;
        }
        while (i < n && text[i] != ' ' && text[i] != ',' && text[i] != '\t') i++;
    }
    if (s == PT_OK) s = pt_strategy_parse(buf, st, set, d);
    free(buf);
    return s;
}

static pt_status refuse_bit(pt_diag *d, unsigned bit, const char *value, const char *fmt, ...) PT_PRINTF(4, 5);

static pt_status refuse_bit(pt_diag *d, unsigned bit, const char *value, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pt_diag_set(d, NULL, pt_strategy_key_name(bit), value, "%s", msg);
}

pt_status pt_split_resolve(pt_strategy *st, unsigned set, pt_split *sp, const pt_model *m,
                           const pt_cluster *c, const pt_job *job, pt_diag *d)
{
    pt_strategy p = *st;
    unsigned ps = set;
    int pp, tp, cp, dp, mbs;
    int64_t gbs, nmb;
    char v[32];
    pt_status s;
    assert(st && sp && m && c && job);
    if (m->experts > 0)
        return pt_diag_set(d, NULL, "model", m->name,
                           "%s is a mixture-of-experts model: clusters with pools price dense models only", m->name);
    if (set & (PT_K_PP_FIRST | PT_K_PP_LAST))
        return refuse_bit(d, set & PT_K_PP_FIRST ? PT_K_PP_FIRST : PT_K_PP_LAST, "",
                          "on a cluster with pools give every stage's layers as layers=a,b,... instead");
    if ((set & PT_K_VPP) && st->vpp != 1) {
        snprintf(v, sizeof v, "%d", st->vpp);
        return refuse_bit(d, PT_K_VPP, v, "vpp=%d: on a cluster with pools each stage is one chunk (vpp=1)", st->vpp);
    }
    if ((set & PT_K_SCHEDULE) && st->schedule != PT_SCHED_1F1B && st->schedule != PT_SCHED_GPIPE)
        return refuse_bit(d, PT_K_SCHEDULE, pt_schedule_name(st->schedule),
                          "schedule=%s: on a cluster with pools the pipeline runs gpipe or 1f1b",
                          pt_schedule_name(st->schedule));
    pp = (set & PT_K_PP) ? st->pp : sp->nlayers ? sp->nlayers : 1;
    tp = (set & PT_K_TP) ? st->tp : 1;
    cp = (set & PT_K_CP) ? st->cp : 1;
    mbs = (set & PT_K_MBS) ? st->mbs : 1;
    if (set & PT_K_DP) dp = st->dp;
    else {
        int64_t model = (int64_t)tp * pp * cp;
        if (c->devices % model != 0) {
            snprintf(v, sizeof v, "%lld", (long long)model);
            return refuse_bit(d, PT_K_DP, v, "tp*pp*cp=%lld does not divide the cluster's %lld devices",
                              (long long)model, (long long)c->devices);
        }
        dp = (int)(c->devices / model);
    }
    if (pp > PT_SPLIT_MAX_STAGES) {
        snprintf(v, sizeof v, "%d", pp);
        return refuse_bit(d, PT_K_PP, v, "pp=%d: on a cluster with pools at most %d pipeline stages", pp,
                          PT_SPLIT_MAX_STAGES);
    }
    if (dp > PT_SPLIT_MAX_DP) {
        snprintf(v, sizeof v, "%d", dp);
        return refuse_bit(d, PT_K_DP, v, "dp=%d: on a cluster with pools at most %d data-parallel ranks (give "
                          "a larger tp or pp)", dp, PT_SPLIT_MAX_DP);
    }
    if ((int64_t)tp * pp * cp * dp != c->devices) {
        snprintf(v, sizeof v, "%d", dp);
        return refuse_bit(d, PT_K_DP, v, "tp*pp*dp*cp = %d*%d*%d*%d is not the cluster's %lld devices", tp, pp,
                          dp, cp, (long long)c->devices);
    }
    /* the rules that do not need an even pipeline or batch, on a stand-in
     * of one stage with dp*pp ranks and one micro-batch each */
    p.pp = 1;
    p.dp = dp * pp;
    p.mbs = mbs;
    p.gbs = (int64_t)mbs * p.dp;
    ps |= PT_K_PP | PT_K_DP | PT_K_GBS | PT_K_MBS;
    if ((s = pt_strategy_resolve(&p, ps, m, c, job, d)) != PT_OK) return s;
    if (p.offload != PT_OFF_NONE)
        return refuse_bit(d, PT_K_OFFLOAD, p.offload == PT_OFF_OPTIMIZER ? "optimizer" : "params",
                          "offload: a cluster with pools is priced without offload");
    /* the global batch: mbs times the shares, or given */
    if (sp->nshare) {
        int64_t sum = 0;
        if (sp->nshare != dp) {
            snprintf(v, sizeof v, "%d", sp->nshare);
            return refuse_bit(d, PT_K_DP, v, "batch_share has %d entries but dp=%d (one per data-parallel rank)",
                              sp->nshare, dp);
        }
        for (int i = 0; i < sp->nshare; i++) {
            sum += sp->share[i];
            /* ZeRO-3 gathers every layer's parameters at each micro-batch
             * across the data-parallel group: every rank runs as many */
            if (p.zero >= 3 && sp->share[i] != sp->share[0] && snprintf(v, sizeof v, "%d", sp->share[i]) > 0)
                return split_refuse(d, "batch_share", v, 0,
                                    "batch_share: zero=3 needs even batch shares (every data-parallel rank gathers "
                                    "each layer's parameters at each of its micro-batches, so all run as many): "
                                    "rank %d has %d, rank 0 %d; give zero<=2 or even shares",
                                    i, sp->share[i], sp->share[0]);
        }
        gbs = sum * mbs;
        if ((set & PT_K_GBS) && st->gbs != gbs) {
            snprintf(v, sizeof v, "%lld", (long long)st->gbs);
            return refuse_bit(d, PT_K_GBS, v, "gbs=%lld is not mbs times the sum of batch_share, %d*%lld = %lld",
                              (long long)st->gbs, mbs, (long long)sum, (long long)gbs);
        }
    } else {
        gbs = (set & PT_K_GBS) ? st->gbs : job->global_batch;
        if (gbs <= 0)
            return refuse_bit(d, PT_K_GBS, "", "the global batch is not set: give --global-batch B, gbs=B or "
                              "batch_share=...");
        snprintf(v, sizeof v, "%lld", (long long)gbs);
        if (gbs % mbs)
            return refuse_bit(d, PT_K_GBS, v, "gbs=%lld is not a multiple of mbs=%d", (long long)gbs, mbs);
        nmb = gbs / mbs;
        if (nmb % dp)
            return refuse_bit(d, PT_K_GBS, v, "gbs/mbs = %lld micro-batches do not split evenly over dp=%d "
                              "(give batch_share=a,b,... with one count per data-parallel rank)",
                              (long long)nmb, dp);
    }
    /* the layers */
    if ((int64_t)pp > m->layers) {
        snprintf(v, sizeof v, "%d", pp);
        return refuse_bit(d, PT_K_PP, v, "pp=%d is more than num_layers=%lld", pp, (long long)m->layers);
    }
    if (sp->nlayers) {
        int64_t sum = 0;
        if (sp->nlayers != pp) {
            snprintf(v, sizeof v, "%d", sp->nlayers);
            return split_refuse(d, "layers", v, 0, "layers has %d entries but pp=%d (one per pipeline stage)",
                                sp->nlayers, pp);
        }
        for (int i = 0; i < pp; i++) sum += sp->layers[i];
        if (sum != m->layers) {
            snprintf(v, sizeof v, "%lld", (long long)sum);
            return split_refuse(d, "layers", v, 0, "layers sum to %lld, not num_layers=%lld", (long long)sum,
                                (long long)m->layers);
        }
    } else if (m->layers % pp) {
        snprintf(v, sizeof v, "%d", pp);
        return refuse_bit(d, PT_K_PP, v, "pp=%d does not divide num_layers=%lld (give layers=a,b,... with one "
                          "count per stage)", pp, (long long)m->layers);
    }
    *st = p;
    st->pp = pp;
    st->dp = dp;
    st->gbs = gbs;
    st->pp_first = st->pp_last = 0;
    return PT_OK;
}

static size_t put_list(char *buf, size_t n, size_t used, const char *key, const int *v, int k)
{
    int w;
    if (used >= n) return used;
    w = snprintf(buf + used, n - used, " %s=", key);
    if (w < 0) return n;
    used += (size_t)w;
    for (int i = 0; i < k && used < n;) {
        int r = 1;
        while (i + r < k && v[i + r] == v[i]) r++;
        w = r > 1 ? snprintf(buf + used, n - used, "%s%dx%d", i ? "," : "", v[i], r)
                  : snprintf(buf + used, n - used, "%s%d", i ? "," : "", v[i]);
        if (w < 0) return n;
        used += (size_t)w;
        i += r;
    }
    return used;
}

void pt_split_format(const pt_strategy *st, const pt_split *sp, char *buf, size_t n)
{
    size_t used;
    pt_strategy_format(st, buf, n);
    used = strlen(buf);
    if (sp->nlayers) used = put_list(buf, n, used, "layers", sp->layers, sp->nlayers);
    if (sp->nshare) put_list(buf, n, used, "batch_share", sp->share, sp->nshare);
}
