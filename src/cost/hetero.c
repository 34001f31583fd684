/*
 * hetero.c -- training steps on clusters with pools of different devices
 * (see hetero.h for the model and its sources).
 */
#include "cost/hetero.h"
#include "cost/roofline.h"
#include "strategy/strategy.h"
#include "base/base.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What cost.c's allowance adds: 1 GiB of context and 5% of the rest. */
#define HETERO_CONTEXT_BYTES (1.0 * PT_GiB)
#define HETERO_FRAG 0.05

/* Everything one strategy's pricing needs: a copy of the cluster per pool
 * with that pool's device, and cost.c's per-layer preparation on it. */
typedef struct hctx {
    const pt_model *m;
    const pt_cluster *c;
    const pt_job *job;
    const pt_strategy *st;
    pt_cluster pc[PT_MAX_POOLS];
    pt_cost_prep pr[PT_MAX_POOLS];
} hctx;

/* One micro-batch on one stage: forward and backward, and their parts. */
typedef struct sfb {
    double f, b;         /* all of it                 */
    double cf, cb;       /* compute                   */
    double xf, xb;       /* tensor-parallel           */
    double pf, pb;       /* context-parallel (exposed) */
} sfb;

int pt_hetero_pool_of(const pt_cluster *c, int64_t r)
{
    int64_t lo = 0;
    assert(c->npools > 1);
    for (int k = 0; k < c->npools; k++) {
        lo += c->pool[k].devices;
        if (r < lo) return k;
    }
    return c->npools - 1;
}

static void hctx_init(hctx *h, const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st)
{
    h->m = m, h->c = c, h->job = job, h->st = st;
    for (int k = 0; k < c->npools; k++) {
        h->pc[k] = *c;
        h->pc[k].dev = c->pool[k].dev;
        h->pc[k].npools = 0;
        pt_cost_prepare(m, &h->pc[k], job, st, &h->pr[k]);
    }
}

int pt_hetero_pool_at(const pt_cluster *c, const pt_strategy *st, int d, int s)
{
    int64_t g = (int64_t)st->tp * st->cp, r0 = g * (d + (int64_t)st->dp * s);
    int k0 = pt_hetero_pool_of(c, r0), k1 = pt_hetero_pool_of(c, r0 + g - 1);
    return k0 == k1 ? k0 : -1;
}

static pt_status layout_check(const pt_cluster *c, const pt_strategy *st, pt_diag *d)
{
    char v[32];
    for (int s = 0; s < st->pp; s++)
        for (int r = 0; r < st->dp; r++)
            if (pt_hetero_pool_at(c, st, r, s) < 0) {
                snprintf(v, sizeof v, "%d", st->tp * st->cp);
                return pt_diag_set(d, NULL, st->cp > 1 ? "cp" : "tp", v,
                                   "tp*cp=%d: a tensor/context-parallel group of stage %d would span two "
                                   "pools (pools fill ranks in order; give a tp*cp that divides every "
                                   "pool's devices)", st->tp * st->cp, s);
            }
    return PT_OK;
}

/* Stage times of one micro-batch: n layers on the device prepared in pr. */
static void stage_fb(const hctx *h, const pt_cost_prep *pr, double n, int first, int last, sfb *o)
{
    int sp = h->st->sp;
    o->cf = n * pr->lf + (first ? pr->emb_f : 0.0) + (last ? pr->head_f : 0.0);
    o->cb = n * pr->lb + (first ? pr->emb_b : 0.0) + (last ? pr->head_b : 0.0);
    o->xf = n * pr->ltp_f + (first ? pr->emb_tp : 0.0);
    o->xb = n * pr->ltp_b + (first && sp ? pr->emb_tp : 0.0);
    o->pf = n * pr->lcp_f;
    o->pb = n * pr->lcp_b;
    o->f = o->cf + o->xf + o->pf;
    o->b = o->cb + o->xb + o->pb;
}

int pt_hetero_layers(const pt_model *m, const pt_strategy *st, const pt_split *sp, int s)
{
    return sp->nlayers ? sp->layers[s] : (int)(m->layers / st->pp);
}

int64_t pt_hetero_mb(const pt_strategy *st, const pt_split *sp, int d)
{
    return sp->nshare ? sp->share[d] : st->gbs / st->mbs / st->dp;
}

/* One pipeline of M micro-batches with stage forwards f[s] and backwards
 * b[s] (totals t[s] = f[s] + b[s]).  1f1b: M t_k + sum_{s != k} t_s, k the
 * slowest stage (the fill and the drain pass once through the others);
 * gpipe runs all forwards, then all backwards, so each phase is paced by
 * its own slowest stage: M max f + sum f - max f, the same for b.  Plus
 * the transfers, 2 per micro-batch and stage boundary on the critical path
 * (cost.c). */
static double pipe_time(const pt_strategy *st, const double *f, const double *b, int S, int64_t M, double p2p,
                        int *slow)
{
    double sum = 0, mx = -1, sf = 0, sb = 0, mf = 0, mb = 0, T;
    int k = 0;
    for (int s = 0; s < S; s++) {
        double t = f[s] + b[s];
        sum += t, sf += f[s], sb += b[s];
        if (t > mx) mx = t, k = s;
        if (f[s] > mf) mf = f[s];
        if (b[s] > mb) mb = b[s];
    }
    if (slow) *slow = k;
    if (st->schedule == PT_SCHED_GPIPE)
        T = (double)M * mf + (sf - mf) + (double)M * mb + (sb - mb);
    else
        T = (double)M * mx + (sum - mx);
    return T + (S > 1 ? ((double)M + S - 1.0) * 2.0 * p2p : 0.0);
}

static double p2p_one(const hctx *h)
{
    const pt_strategy *st = h->st;
    double bytes = (double)h->job->seq_len / st->cp * st->mbs * (double)h->m->hidden * 2.0 / st->tp;
    if (st->pp < 2) return 0.0;
    return pt_p2p_time(h->c, (int64_t)bytes, pt_strategy_group_size(st, PT_GROUP_PP),
                       pt_strategy_stride(st, PT_GROUP_PP));
}

/* Micro-batches a stage keeps in flight at its peak (cost.c's in_flight for
 * gpipe and 1f1b) with M micro-batches. */
static double in_flight(const pt_strategy *st, int s, int64_t M)
{
    double k = st->schedule == PT_SCHED_GPIPE ? (double)M : (double)(st->pp - s);
    return k < (double)M ? k : (double)M;
}

/* Memory of one device of stage s (n layers) on the pool prepared in pr,
 * its DP ranks running at most M micro-batches. */
static int64_t stage_memory(const hctx *h, const pt_cost_prep *pr, int s, int64_t n, int64_t M, pt_memory *k)
{
    const pt_strategy *st = h->st;
    int first = s == 0, last = s == st->pp - 1;
    double fl = in_flight(st, s, M), a, rest;
    pt_cost_stage_states_n(h->m, h->job, st, pr, first, last, n, k);
    a = (double)n * pr->act_layer * fl + pt_cost_stage_extra_activations(h->m, h->job, st, first, 0) +
        pt_cost_stage_extra_activations(h->m, h->job, st, 0, last) * fl;
    if (st->recompute == PT_RC_FULL) a += pr->act_layer_full;
    k->activations = (int64_t)a;
    rest = (double)(k->weights + k->gradients + k->optimizer) + a;
    k->other = pt_cost_other_bytes(rest);
    k->total = k->weights + k->gradients + k->optimizer + k->activations + k->other;
    return k->total;
}

/* ---- the split ------------------------------------------------------------------ */

int pt_hetero_split_layers(int64_t L, int S, const double *a, const double *c0, const double *ma,
                           const double *mc, const double *cap, int *out)
{
    size_t W = (size_t)L + 1;
    double *mx, *sm;
    int *ch, rc = 0;
    assert(S >= 1 && L >= S);
    mx = malloc((size_t)S * W * sizeof *mx);
    sm = malloc((size_t)S * W * sizeof *sm);
    ch = malloc((size_t)S * W * sizeof *ch);
    if (!mx || !sm || !ch) {
        free(mx), free(sm), free(ch);
        for (int s = 0; s < S; s++) out[s] = (int)(L / S + (s < L % S));
        return -1;
    }
    for (size_t i = 0; i < (size_t)S * W; i++) mx[i] = HUGE_VAL, sm[i] = HUGE_VAL, ch[i] = 0;
    /* mx[s][n]: the slowest of stages 0..s holding layers [0, n); sm: their sum */
    for (int s = 0; s < S; s++)
        for (int64_t n = s + 1; n <= L - (S - 1 - s); n++)
            for (int64_t k = 1; k <= n - s; k++) {
                double t = a[s] * (double)k + c0[s], pm = 0, ps = 0, v, u;
                if (cap && ma[s] * (double)k + mc[s] > cap[s]) continue;
                if (s > 0) {
                    pm = mx[(size_t)(s - 1) * W + (size_t)(n - k)];
                    ps = sm[(size_t)(s - 1) * W + (size_t)(n - k)];
                    if (pm == HUGE_VAL) continue;
                } else if (k != n) {
                    continue;
                }
                v = t > pm ? t : pm;
                u = ps + t;
                {
                    double *bm = &mx[(size_t)s * W + (size_t)n], *bs = &sm[(size_t)s * W + (size_t)n];
                    double eps = 1e-12 * (v > 0 ? v : 1.0);
                    if (v < *bm - eps || (fabs(v - *bm) <= eps && u < *bs - eps)) {
                        *bm = v, *bs = u;
                        ch[(size_t)s * W + (size_t)n] = (int)k;
                    }
                }
            }
    if (mx[(size_t)(S - 1) * W + (size_t)L] == HUGE_VAL) {
        free(mx), free(sm), free(ch);
        if (!cap) { /* cannot happen: without a cap every split is allowed */
            for (int s = 0; s < S; s++) out[s] = (int)(L / S + (s < L % S));
            return -1;
        }
        pt_hetero_split_layers(L, S, a, c0, ma, mc, NULL, out);
        return -1;
    }
    {
        int64_t n = L;
        for (int s = S - 1; s >= 0; s--) {
            out[s] = ch[(size_t)s * W + (size_t)n];
            n -= out[s];
        }
    }
    free(mx), free(sm), free(ch);
    return rc;
}

void pt_hetero_shares(int64_t total, int n, const double *t, int *share)
{
    double w = 0;
    int64_t used = 0;
    assert(n >= 1 && total >= n);
    for (int d = 0; d < n; d++) w += 1.0 / t[d];
    /* start below the proportional shares x_d = total (1/t_d) / w: every
     * whole micro-batch under x_d is one the greedy order takes first */
    for (int d = 0; d < n; d++) {
        double x = floor((double)total / t[d] / w);
        share[d] = x >= 1 ? (int)x : 1;
        used += share[d];
    }
    if (used > total)
        for (int d = 0; d < n; d++) share[d] = 1, used = n;
    for (; used < total; used++) {
        int best = 0;
        for (int d = 1; d < n; d++)
            if ((share[d] + 1.0) * t[d] < (share[best] + 1.0) * t[best]) best = d;
        share[best]++;
    }
}

pt_status pt_hetero_worker(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                           const pt_split *sp, int dpr, double *fwd, double *bwd, int64_t *mb, pt_diag *d)
{
    hctx *h;
    pt_status s;
    assert(c->npools > 1 && dpr >= 0 && dpr < st->dp);
    if ((s = layout_check(c, st, d)) != PT_OK) return s;
    h = malloc(sizeof *h);
    if (!h) return pt_diag_set(d, NULL, NULL, NULL, "out of memory");
    hctx_init(h, m, c, job, st);
    for (int i = 0; i < st->pp; i++) {
        sfb o;
        stage_fb(h, &h->pr[pt_hetero_pool_at(c, st, dpr, i)], pt_hetero_layers(m, st, sp, i), i == 0, i == st->pp - 1, &o);
        fwd[i] = o.f;
        bwd[i] = o.b;
    }
    *mb = pt_hetero_mb(st, sp, dpr);
    free(h);
    return PT_OK;
}

pt_status pt_hetero_auto(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                         pt_split *sp, pt_diag *d)
{
    int S = st->pp, D = st->dp;
    int64_t total = st->gbs / st->mbs, Mbar = (total + D - 1) / D;
    double a[PT_SPLIT_MAX_STAGES], c0[PT_SPLIT_MAX_STAGES], ma[PT_SPLIT_MAX_STAGES], mc[PT_SPLIT_MAX_STAGES];
    double cap[PT_SPLIT_MAX_STAGES], *t;
    hctx *h;
    pt_status s;
    assert(S <= PT_SPLIT_MAX_STAGES && D <= PT_SPLIT_MAX_DP && total >= D);
    if ((s = layout_check(c, st, d)) != PT_OK) return s;
    h = malloc(sizeof *h);
    t = malloc((size_t)D * sizeof *t);
    if (!h || !t) {
        free(h), free(t);
        return pt_diag_set(d, NULL, NULL, NULL, "out of memory");
    }
    hctx_init(h, m, c, job, st);
    /* each stage at its slowest device and within its smallest memory */
    for (int i = 0; i < S; i++) {
        int first = i == 0, last = i == S - 1;
        a[i] = c0[i] = ma[i] = mc[i] = 0;
        cap[i] = HUGE_VAL;
        for (int r = 0; r < D; r++) {
            int k = pt_hetero_pool_at(c, st, r, i);
            const pt_cost_prep *pr = &h->pr[k];
            sfb one, none;
            pt_memory k0, k1;
            double fl = in_flight(st, i, Mbar), b0, b1, cp_ = c->pool[k].dev.memory_GiB * PT_GiB;
            stage_fb(h, pr, 1, first, last, &one);
            stage_fb(h, pr, 0, first, last, &none);
            if (one.f + one.b - (none.f + none.b) > a[i]) a[i] = one.f + one.b - (none.f + none.b);
            if (none.f + none.b > c0[i]) c0[i] = none.f + none.b;
            /* bytes: linear in the layers, the allowance on top (cost.c) */
            pt_cost_stage_states_n(m, job, st, pr, first, last, 0, &k0);
            pt_cost_stage_states_n(m, job, st, pr, first, last, 1, &k1);
            b0 = (double)(k0.weights + k0.gradients + k0.optimizer) +
                 pt_cost_stage_extra_activations(m, job, st, first, 0) +
                 pt_cost_stage_extra_activations(m, job, st, 0, last) * fl +
                 (st->recompute == PT_RC_FULL ? pr->act_layer_full : 0.0);
            b1 = (double)(k1.weights + k1.gradients + k1.optimizer) - (double)(k0.weights + k0.gradients + k0.optimizer) +
                 pr->act_layer * fl;
            if ((1.0 + HETERO_FRAG) * b1 > ma[i]) ma[i] = (1.0 + HETERO_FRAG) * b1;
            if ((1.0 + HETERO_FRAG) * b0 + HETERO_CONTEXT_BYTES > mc[i]) mc[i] = (1.0 + HETERO_FRAG) * b0 + HETERO_CONTEXT_BYTES;
            if (cp_ < cap[i]) cap[i] = cp_;
        }
    }
    if (S > 1) {
        sp->nlayers = S;
        pt_hetero_split_layers(m->layers, S, a, c0, ma, mc, cap, sp->layers);
    } else {
        sp->nlayers = 0;
    }
    /* each DP rank's period with those layers, and shares by speed */
    {
        int even = total % D == 0;
        for (int r = 0; r < D; r++) {
            double mx = 0;
            for (int i = 0; i < S; i++) {
                sfb o;
                stage_fb(h, &h->pr[pt_hetero_pool_at(c, st, r, i)], pt_hetero_layers(m, st, sp, i), i == 0, i == S - 1, &o);
                if (o.f + o.b > mx) mx = o.f + o.b;
            }
            t[r] = mx;
            if (fabs(t[r] - t[0]) > 1e-12 * t[0]) even = 0;
        }
        /* ZeRO-3: every rank runs as many micro-batches (split.c) */
        if (even || (st->zero >= 3 && total % D == 0)) {
            sp->nshare = 0;
        } else if (st->zero >= 3) {
            free(h);
            free(t);
            return pt_diag_set(d, NULL, "zero", "3", "zero=3 needs even batch shares: %lld micro-batches do not "
                               "split evenly over dp=%d", (long long)total, D);
        } else {
            sp->nshare = D;
            pt_hetero_shares(total, D, t, sp->share);
        }
    }
    free(h);
    free(t);
    return PT_OK;
}

/* ---- pricing ---------------------------------------------------------------- */

/* The data-parallel collectives' exposed time, by cost.c's mechanism
 * (pt_cost_dp_stages_s): each stage at its slowest member's times -- every
 * collective of the stage waits for its slowest member -- with its own
 * layers and parameters, their collectives shares of the largest stage's
 * over the stage's dp*cp ranks (at the slowest spanned link: the cluster's
 * levels).  With a pipeline under ZeRO 0-2 the order is replayed with
 * those times (the slowest pipeline's pace; a faster replica's slack is not
 * counted).  slow[i]: the pool of stage i's slowest member. */
static double dp_tail(const hctx *h, const pt_split *sp, const pt_hetero *out, const int *slow)
{
    const pt_model *m = h->m;
    const pt_strategy *st = h->st;
    int S = st->pp;
    pt_cost_dp_stage sg[PT_SPLIT_MAX_STAGES];
    pt_cost_dp k;
    double Pst = 0;
    for (int i = 0; i < S; i++) {
        const pt_cost_prep *pr = &h->pr[slow[i]];
        pt_cost_dp_stage *s = &sg[i];
        int first = i == 0, last = i == S - 1;
        int64_t n = pt_hetero_layers(m, st, sp, i);
        double P = pt_cost_stage_params(m, st, first, last, n);
        if (P > Pst) Pst = P;
        memset(s, 0, sizeof *s);
        s->first = first, s->last = last, s->layers = n;
        s->f = pr->lf + pr->ltp_f + pr->lcp_f;
        s->b = pr->lb + pr->ltp_b + pr->lcp_b;
        s->emb_f = pr->emb_f + pr->emb_tp, s->emb_b = pr->emb_b + (st->sp ? pr->emb_tp : 0.0);
        s->head_f = pr->head_f, s->head_b = pr->head_b;
        s->Pemb = first ? pt_cost_bucket_params(m, st, 0, 0, 0, NULL) : 0.0;
        s->Phead = last ? pt_cost_bucket_params(m, st, 2, 0, S > 1 && !first, NULL) : 0.0;
        s->P = (P - s->Pemb - s->Phead) / (double)(n > 0 ? n : 1);
        s->t = out->stage_s[i];
        s->count = 1.0;
    }
    pt_cost_dp_colls(h->c, h->job, st, Pst, 0.0, &k);
    if (k.grad + k.gather + k.scatter <= 0) return 0.0;
    return pt_cost_dp_stages_s(st, &k, Pst, 0.0, pt_hetero_mb(st, sp, out->crit), sg, S, out->p2p_s);
}

pt_status pt_hetero_eval(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                         const pt_split *sp, pt_hetero *out, pt_diag *d)
{
    int S = st->pp, D = st->dp;
    double worst = -1, p2p, dp_exp, opt = 0, tied, worst_ratio = -1;
    double ndp = (double)pt_strategy_group_size(st, PT_GROUP_DP_CP);
    int slow[PT_SPLIT_MAX_STAGES];
    sfb crit_stage;
    hctx *h;
    pt_status s;
    assert(c->npools > 1 && S <= PT_SPLIT_MAX_STAGES && D <= PT_SPLIT_MAX_DP);
    if ((s = layout_check(c, st, d)) != PT_OK) return s;
    h = malloc(sizeof *h);
    if (!h) {
        return pt_diag_set(d, NULL, NULL, NULL, "out of memory");
    }
    hctx_init(h, m, c, job, st);
    memset(out, 0, sizeof *out);
    memset(&crit_stage, 0, sizeof crit_stage);
    out->pp = S, out->dp = D;
    p2p = out->p2p_s = p2p_one(h);
    for (int i = 0; i < S; i++) {
        slow[i] = pt_hetero_pool_at(c, st, 0, i);
        out->pool_lo[i] = c->npools, out->pool_hi[i] = -1;
    }
    /* every virtual worker's pipeline */
    for (int r = 0; r < D; r++) {
        double t[PT_SPLIT_MAX_STAGES], ff[PT_SPLIT_MAX_STAGES], bb[PT_SPLIT_MAX_STAGES], T;
        sfb o[PT_SPLIT_MAX_STAGES];
        int k;
        for (int i = 0; i < S; i++) {
            int pk = pt_hetero_pool_at(c, st, r, i);
            stage_fb(h, &h->pr[pk], pt_hetero_layers(m, st, sp, i), i == 0, i == S - 1, &o[i]);
            t[i] = o[i].f + o[i].b;
            ff[i] = o[i].f, bb[i] = o[i].b;
            if (t[i] > out->stage_s[i]) out->stage_s[i] = t[i], slow[i] = pk;
            if (pk < out->pool_lo[i]) out->pool_lo[i] = pk;
            if (pk > out->pool_hi[i]) out->pool_hi[i] = pk;
        }
        T = out->pipe_s[r] = pipe_time(st, ff, bb, S, pt_hetero_mb(st, sp, r), p2p, &k);
        if (T > worst) {
            worst = T;
            out->crit = r;
            crit_stage = o[k];
        }
    }
    /* data-parallel collectives per stage; the optimizer on the slowest
     * device of each stage */
    dp_exp = dp_tail(h, sp, out, slow);
    for (int i = 0; i < S; i++) {
        int first = i == 0, last = i == S - 1;
        int64_t n = pt_hetero_layers(m, st, sp, i);
        double P = pt_cost_stage_params(m, st, first, last, n);
        for (int k = out->pool_lo[i]; k <= out->pool_hi[i]; k++) {
            double shard = st->zero >= 1 ? P / ndp : P;
            double ot = pt_roofline_ew_s(&h->pr[k].h, shard * pt_cost_adam_bytes(job));
            int64_t M = 0;
            pt_memory mem;
            double ratio, capb = c->pool[k].dev.memory_GiB * PT_GiB;
            if (ot > opt) opt = ot;
            for (int r = 0; r < D; r++)
                if (pt_hetero_pool_at(c, st, r, i) == k && pt_hetero_mb(st, sp, r) > M) M = pt_hetero_mb(st, sp, r);
            if (M == 0) continue;
            stage_memory(h, &h->pr[k], i, n, M, &mem);
            ratio = (double)mem.total / capb;
            if (mem.total > out->stage_bytes[i]) out->stage_bytes[i] = mem.total, out->stage_cap[i] = (int64_t)capb;
            if (ratio > worst_ratio) {
                worst_ratio = ratio;
                out->cost.mem = mem;
                out->cost.device_memory_bytes = (int64_t)capb;
            }
        }
    }
    tied = pt_cost_tied_embedding_s(m, c, st);
    {
        pt_cost *k = &out->cost;
        int64_t M = pt_hetero_mb(st, sp, out->crit);
        double peaks = 0, tokens = (double)st->gbs * (double)job->seq_len;
        double fm = pt_cost_job_model_flops(m, job, st->gbs), hd = (double)m->hidden;
        double rc_ratio = h->pr[0].flops_f > 0 ? h->pr[0].flops_rc / (3.0 * h->pr[0].flops_f) : 0.0;
        double layer_share = 1.0 - 6.0 * (double)m->vocab * hd * (1.0 + (double)m->mtp_layers) / (fm / tokens);
        k->microbatches = M;
        k->time.compute = (double)M * (crit_stage.cf + crit_stage.cb);
        k->time.tp_comm = (double)M * (crit_stage.xf + crit_stage.xb);
        k->time.cp_comm = (double)M * (crit_stage.pf + crit_stage.pb);
        k->time.pp_comm = (S > 1 ? ((double)M + S - 1.0) * 2.0 * p2p : 0.0) + tied;
        k->time.bubble = worst - k->time.compute - k->time.tp_comm - k->time.cp_comm -
                         (k->time.pp_comm - tied);
        if (k->time.bubble < 0) k->time.bubble = 0;
        k->time.dp_comm = dp_exp;
        k->time.optimizer = opt;
        out->tail_s = dp_exp + opt + tied;
        k->step_time_s = worst + out->tail_s;
        for (int p = 0; p < c->npools; p++)
            peaks += (double)c->pool[p].devices * pt_device_tflops(&c->pool[p].dev, job->dtype) * 1e12;
        k->model_flops = fm;
        k->hw_flops = fm * (1.0 + rc_ratio * layer_share);
        k->tokens_per_s = tokens / k->step_time_s;
        k->model_tflops_per_gpu = fm / k->step_time_s / (double)c->devices / 1e12;
        k->mfu = fm / k->step_time_s / peaks;
        k->hfu = k->hw_flops / k->step_time_s / peaks;
        /* every device of every stage within its own memory (a stage may
         * span pools of different memories) */
        k->fits = worst_ratio <= 1.0;
    }
    free(h);
    return PT_OK;
}
