/*
 * pipe.c -- the pipeline schedules as orders, and their replay (see pipe.h).
 */
#include "cost/pipe.h"
#include "base/base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pt_pipe_replayed(const pt_strategy *st)
{
    return st->pp > 1 && (st->schedule == PT_SCHED_ZBV || st->schedule == PT_SCHED_DUALPIPE);
}

void pt_pipe_init(pt_pipe *p, const pt_strategy *st, int64_t M)
{
    memset(p, 0, sizeof *p);
    p->schedule = st->schedule;
    p->pp = st->pp;
    p->M = M;
    p->chunks = st->schedule == PT_SCHED_INTERLEAVED ? st->vpp : st->schedule == PT_SCHED_ZBV ? 2 : 1;
    p->dual = st->schedule == PT_SCHED_DUALPIPE;
    p->V = p->pp * p->chunks;
    p->split = st->schedule == PT_SCHED_ZBH1 || st->schedule == PT_SCHED_ZBV || st->schedule == PT_SCHED_DUALPIPE;
}

int pt_pipe_dev(const pt_pipe *p, int mb, int vs)
{
    switch (p->schedule) {
    case PT_SCHED_INTERLEAVED: return vs % p->pp;
    case PT_SCHED_ZBV: return vs < p->pp ? vs : 2 * p->pp - 1 - vs;
    case PT_SCHED_DUALPIPE: return mb < p->M / 2 ? vs : p->pp - 1 - vs;
    default: return vs;
    }
}

int64_t pt_pipe_nops(const pt_pipe *p)
{
    /* DualPipe: every micro-batch passes each rank once, either way */
    return p->M * p->chunks * (p->split ? 3 : 2);
}

/* Megatron-LM's interleaved 1F1B (schedules.py, get_model_chunk_id):
 * forward k runs chunk (k mod pp*v)/pp of micro-batch (k / (pp*v))*pp +
 * k mod pp; backward k the chunks in reverse; warm-up (pp-d-1)*2 + (v-1)*pp
 * forwards. */
static int64_t order_interleaved(const pt_pipe *p, int d, pt_pipe_op *o)
{
    int64_t pp = p->pp, v = p->chunks, total = p->M * v, group = pp * v, n = 0, kf = 0, kb = 0;
    int64_t warm = (pp - d - 1) * 2 + (v - 1) * pp;
    if (warm > total) warm = total;
#define FWD_OP(k) ((pt_pipe_op){PT_OP_F, (int)(((k) / group) * pp + (k) % pp), (int)((((k) % group) / pp) * pp + d), 0})
#define BWD_OP(k) ((pt_pipe_op){PT_OP_B, (int)(((k) / group) * pp + (k) % pp), (int)((v - 1 - ((k) % group) / pp) * pp + d), 0})
    for (; kf < warm; kf++) o[n++] = FWD_OP(kf);
    while (kf < total) {
        o[n++] = FWD_OP(kf);
        kf++;
        o[n++] = BWD_OP(kb);
        kb++;
    }
    for (; kb < total; kb++) o[n++] = BWD_OP(kb);
#undef FWD_OP
#undef BWD_OP
    return n;
}

/* 1F1B: pp-d-1 warm-up forwards, then one forward and one backward in turn
 * (Narayanan et al. SC'21 section 2.2.1).  ZB-H1 (Qi et al. 2024 section
 * 3.1) adds each W, d backwards late, so the drain runs on input gradients
 * and the W passes fill it. */
static int64_t order_1f1b(const pt_pipe *p, int d, pt_pipe_op *o)
{
    int64_t warm = p->pp - d - 1, i, nw = 0, n = 0;
    if (warm > p->M) warm = p->M;
    for (i = 0; i < warm; i++) o[n++] = (pt_pipe_op){PT_OP_F, (int)i, d, 0};
    for (i = 0; i < p->M; i++) {
        if (i < p->M - warm) o[n++] = (pt_pipe_op){PT_OP_F, (int)(warm + i), d, 0};
        o[n++] = (pt_pipe_op){PT_OP_B, (int)i, d, 0};
        if (p->split && i >= d) o[n++] = (pt_pipe_op){PT_OP_W, (int)nw++, d, 0};
    }
    while (p->split && nw < p->M) o[n++] = (pt_pipe_op){PT_OP_W, (int)nw++, d, 0};
    return n;
}

/* An order built for more micro-batches than the step has, with those
 * beyond it left out: a subsequence of a deadlock-free order keeps its
 * dependencies (they are all within one micro-batch), so it runs. */
typedef struct emit {
    pt_pipe_op *o;
    int64_t n;
} emit;

static void put(emit *e, pt_op_kind k, int64_t mb, int64_t limit, int64_t base, int vs)
{
    if (mb < limit) e->o[e->n++] = (pt_pipe_op){k, (int)(base + mb), vs, 0};
}

/* ZB-V as PyTorch's ScheduleZBVZeroBubble orders it (torch/distributed/
 * pipelining/schedules.py, after Qi et al. 2024's V schedule): rank r holds
 * virtual stages r (chunk 0, going down) and 2p-1-r (chunk 1, coming back);
 * 2(p-r)-1 chunk-0 forwards, r pairs of chunk-1 and chunk-0 forwards, p-r
 * chunk-1 F, B, W; then F0 B0 W0 F1 B1 W1 until every forward ran; then the
 * input gradients with the W's deferred to the end.  The order is built for
 * max(2p-1, m) micro-batches, as PyTorch builds it, and the extra ones are
 * left out. */
static int64_t order_zbv(const pt_pipe *p, int r, pt_pipe_op *out)
{
    int P = p->pp, s0 = r, s1 = 2 * P - 1 - r;
    int64_t M = p->M, n = M > 2 * P - 1 ? M : 2 * P - 1, f0 = 0, f1 = 0, b0 = 0, b1 = 0, w0, w1, i;
    emit e = {out, 0};
    for (i = 0; i < 2 * (P - r) - 1; i++) put(&e, PT_OP_F, f0++, M, 0, s0);
    for (i = 0; i < r; i++) {
        put(&e, PT_OP_F, f1++, M, 0, s1);
        put(&e, PT_OP_F, f0++, M, 0, s0);
    }
    for (i = 0; i < P - r; i++) {
        put(&e, PT_OP_F, f1++, M, 0, s1);
        put(&e, PT_OP_B, b1, M, 0, s1);
        put(&e, PT_OP_W, b1++, M, 0, s1);
    }
    while (f1 < f0 || f0 < n) {
        if (f0 < n) put(&e, PT_OP_F, f0++, M, 0, s0);
        put(&e, PT_OP_B, b0, M, 0, s0);
        put(&e, PT_OP_W, b0++, M, 0, s0);
        put(&e, PT_OP_F, f1++, M, 0, s1);
        put(&e, PT_OP_B, b1, M, 0, s1);
        put(&e, PT_OP_W, b1++, M, 0, s1);
    }
    w0 = b0, w1 = b1;
    for (i = 0; i < r; i++) {
        put(&e, PT_OP_B, b0++, M, 0, s0);
        put(&e, PT_OP_B, b1++, M, 0, s1);
    }
    for (i = 0; i < P - r; i++) {
        put(&e, PT_OP_B, b0++, M, 0, s0);
        put(&e, PT_OP_W, w0++, M, 0, s0);
    }
    while (w1 < b1) put(&e, PT_OP_W, w1++, M, 0, s1);
    while (w0 < b0) put(&e, PT_OP_W, w0++, M, 0, s0);
    return e.n;
}

/* DualPipe's two phases on one rank: phase 0 is the direction whose
 * micro-batches reach this rank first (down for the upper half of the
 * ranks, up for the lower), phase 1 the other. */
typedef struct dual {
    emit e;
    int64_t f[2], b[2], cnt[2], base[2];
    int vs[2];
    int64_t *wq, wh, wt; /* deferred W's: phase * 2^32 + micro-batch */
} dual;

static void dual_f(dual *s, int ph) { put(&s->e, PT_OP_F, s->f[ph]++, s->cnt[ph], s->base[ph], s->vs[ph]); }

static void dual_b(dual *s, int ph, int zb)
{
    int64_t k = s->b[ph]++;
    put(&s->e, PT_OP_B, k, s->cnt[ph], s->base[ph], s->vs[ph]);
    if (zb) s->wq[s->wt++] = (int64_t)ph << 32 | k;
    else put(&s->e, PT_OP_W, k, s->cnt[ph], s->base[ph], s->vs[ph]);
}

/* One forward and one full backward overlapped (DualPipe's F&B), or what
 * is left of the pair when one of them is beyond the step. */
static void dual_fb(dual *s, int phf, int phb)
{
    int both = s->f[phf] < s->cnt[phf] && s->b[phb] < s->cnt[phb];
    dual_f(s, phf);
    if (both) s->e.o[s->e.n - 1].pair = 2;
    dual_b(s, phb, 0);
}

static void dual_w(dual *s)
{
    int ph;
    int64_t k;
    if (s->wh == s->wt) return;
    ph = (int)(s->wq[s->wh] >> 32);
    k = s->wq[s->wh++] & 0xffffffff;
    put(&s->e, PT_OP_W, k, s->cnt[ph], s->base[ph], s->vs[ph]);
}

/* DualPipe (DeepSeek-V3 report section 3.2.1; deepseek-ai/DualPipe,
 * dualpipe.py, DualPipe.step): micro-batches [0, m/2) enter at rank 0 and
 * [m/2, m) at rank p-1; rank d holds stage d of the first direction and
 * stage p-1-d of the second.  With h = min(d, p-1-d), half = p/2 and n
 * micro-batches each way, eight steps: 2(half-h-1) F0; h+1 (F0 F1);
 * half-h-1 (B1 with W deferred, W, F1); n-p+h+1 (F0 & B1, F1 & B0: a
 * forward and a full backward of the other direction overlapped, which
 * start together and end together); half-h-1 (B1, F1 & B0);
 * h+1 (B1 B0, deferring W from the middle on); half-h-1 (W, B0 deferring
 * W); h+1 W.  DualPipe needs n >= p: the order is built for max(n, p)
 * and the extra micro-batches left out. */
static int64_t order_dualpipe(const pt_pipe *p, int d, pt_pipe_op *out)
{
    int P = p->pp, half = P / 2, h = d < P - 1 - d ? d : P - 1 - d, lower = d >= half, zb = 0;
    int64_t M = p->M, cnt0 = M / 2, n = M - cnt0 > P ? M - cnt0 : P, i, step;
    dual s;
    memset(&s, 0, sizeof s);
    s.e.o = out;
    /* phase 0: the direction arriving first */
    s.cnt[lower] = cnt0, s.base[lower] = 0, s.vs[lower] = d;              /* down */
    s.cnt[!lower] = M - cnt0, s.base[!lower] = cnt0, s.vs[!lower] = P - 1 - d; /* up */
    s.wq = malloc((size_t)(2 * n + 2) * sizeof *s.wq);
    if (!s.wq) return -1;
    for (i = 0; i < 2 * (half - h - 1); i++) dual_f(&s, 0);
    for (i = 0; i < h + 1; i++) dual_f(&s, 0), dual_f(&s, 1);
    for (i = 0; i < half - h - 1; i++) dual_b(&s, 1, 1), dual_w(&s), dual_f(&s, 1);
    step = n - P + h + 1;
    for (i = 0; i < step; i++) {
        dual_fb(&s, 0, 1);
        dual_fb(&s, 1, 0);
    }
    for (i = 0; i < half - h - 1; i++) dual_b(&s, 1, 0), dual_fb(&s, 1, 0);
    for (i = 0; i < h + 1; i++) {
        if (i == (h + 1) / 2 && h % 2 == 1) zb = 1;
        dual_b(&s, 1, zb);
        if (i == (h + 1) / 2 && h % 2 == 0) zb = 1;
        dual_b(&s, 0, zb);
    }
    for (i = 0; i < half - h - 1; i++) dual_w(&s), dual_b(&s, 0, zb);
    for (i = 0; i < h + 1; i++) dual_w(&s);
    while (s.wh < s.wt) dual_w(&s);
    free(s.wq);
    return s.e.n;
}

int64_t pt_pipe_order(const pt_pipe *p, int d, pt_pipe_op *o)
{
    int64_t n = 0;
    switch (p->schedule) {
    case PT_SCHED_GPIPE:
        for (int mb = 0; mb < p->M; mb++) o[n++] = (pt_pipe_op){PT_OP_F, mb, d, 0};
        for (int mb = 0; mb < p->M; mb++) o[n++] = (pt_pipe_op){PT_OP_B, mb, d, 0};
        return n;
    case PT_SCHED_INTERLEAVED: return order_interleaved(p, d, o);
    case PT_SCHED_ZBV: return order_zbv(p, d, o);
    case PT_SCHED_DUALPIPE: return order_dualpipe(p, d, o);
    default: return order_1f1b(p, d, o);
    }
}

typedef struct run {
    const pt_pipe *p;
    const double *f, *b;
    double p2p;
    double *f_end, *b_end;
} run;

#define IDX(p, mb, vs) ((int64_t)(mb) * (p)->V + (vs))

/* When o could start (its inputs arrived), or INFINITY if they have not. */
static double ready(const run *x, const pt_pipe_op *o)
{
    const pt_pipe *p = x->p;
    int64_t i = IDX(p, o->mb, o->vs);
    double t;
    if (o->kind == PT_OP_F) {
        if (o->vs == 0) return 0.0;
        t = x->f_end[IDX(p, o->mb, o->vs - 1)];
        if (t < 0) return INFINITY;
        return t + (pt_pipe_dev(p, o->mb, o->vs - 1) != pt_pipe_dev(p, o->mb, o->vs) ? x->p2p : 0.0);
    }
    if (o->kind == PT_OP_B) {
        if (x->f_end[i] < 0) return INFINITY;
        if (o->vs == p->V - 1) return x->f_end[i];
        t = x->b_end[IDX(p, o->mb, o->vs + 1)];
        if (t < 0) return INFINITY;
        t += pt_pipe_dev(p, o->mb, o->vs + 1) != pt_pipe_dev(p, o->mb, o->vs) ? x->p2p : 0.0;
        return t > x->f_end[i] ? t : x->f_end[i];
    }
    return x->b_end[i] < 0 ? INFINITY : x->b_end[i];
}

/* The replay's state: every rank's order, where it is, and when each
 * operation ended. */
typedef struct replay {
    run x;
    int64_t per, *next, *len;
    pt_pipe_op *ops;
    double *free_at, *busy, *cur, *start, *ready;
    const pt_pipe_hook *hook;
} replay;

/* When rank d's next operation -- with the operations it is paired with --
 * could start, or INFINITY. */
static double block_ready(const replay *y, int d)
{
    const pt_pipe_op *o = &y->ops[d * y->per + y->next[d]];
    double t = ready(&y->x, o);
    if (o->pair > 0 && t != INFINITY) {
        double t2 = ready(&y->x, o + 1); /* the paired backward (its W follows it) */
        if (t2 > t) t = t2;
    }
    return t;
}

/* When rank d's next block could start: its inputs' arrival or the rank's
 * freedom (*ready), moved by the hook; INFINITY if the inputs have not
 * arrived. */
static double next_start(const replay *y, int d, double *ready)
{
    double t = block_ready(y, d);
    if (t == INFINITY) return t;
    if (t < y->free_at[d]) t = y->free_at[d];
    *ready = t;
    return y->hook ? y->hook->start(y->hook->ctx, d, &y->ops[d * y->per + y->next[d]], t) : t;
}

/* Runs rank d's next operation (and those paired with it) from t0 (ready at
 * `ready`), and marks the ranks whose next start may change. */
static void execute(replay *y, int d, double ready, double t0, const double *act, pt_pipe_visit visit, void *ctx,
                    pt_pipe_replay *r, int *rc)
{
    const pt_pipe *p = y->x.p;
    const pt_pipe_op *o = &y->ops[d * y->per + y->next[d]];
    int n = 1 + o->pair, sends = 0;
    double t = t0, t1 = t0, send_end, end[3];
    for (int k = 0; k < n; k++) { /* the block ends when its last operation does */
        const pt_pipe_op *q = o + k;
        double dur = q->kind == PT_OP_F ? y->x.f[q->vs] : p->split ? 0.5 * y->x.b[q->vs] : y->x.b[q->vs];
        end[k] = t1 + dur;
        if (y->hook) {
            double e = y->hook->run(y->hook->ctx, d, q, k == 0 ? ready : t1, t1, dur);
            if (e < 0 && *rc == 0) *rc = -1;
            if (e > end[k]) end[k] = e;
        }
        t1 = end[k];
    }
    if (!visit && !r->peak) { /* the analytic model's replay: times only */
        for (int k = 0; k < n; k++) {
            const pt_pipe_op *q = o + k;
            int64_t i = IDX(p, q->mb, q->vs);
            int to = -1;
            if (q->kind == PT_OP_F) {
                y->x.f_end[i] = t1;
                if (q->vs + 1 < p->V) to = pt_pipe_dev(p, q->mb, q->vs + 1);
            } else if (q->kind == PT_OP_B) {
                y->x.b_end[i] = t1;
                if (q->vs > 0) to = pt_pipe_dev(p, q->mb, q->vs - 1);
            }
            if (to >= 0 && to != d) sends = 1;
            y->busy[d] += q->kind == PT_OP_F ? y->x.f[q->vs] : p->split ? 0.5 * y->x.b[q->vs] : y->x.b[q->vs];
        }
        send_end = sends ? t1 + y->x.p2p : t1;
        y->free_at[d] = send_end;
        if (send_end > r->makespan) r->makespan = send_end;
        y->next[d] += n;
        return;
    }
    for (int k = 0; k < n; k++) {
        const pt_pipe_op *q = o + k;
        double dur = q->kind == PT_OP_F ? y->x.f[q->vs] : p->split ? 0.5 * y->x.b[q->vs] : y->x.b[q->vs];
        double a = act ? act[q->vs] : 0.0;
        int64_t i = IDX(p, q->mb, q->vs);
        int to = -1;
        if (q->kind == PT_OP_F) {
            y->x.f_end[i] = t1;
            y->cur[d] += a;
            if (q->vs + 1 < p->V) to = pt_pipe_dev(p, q->mb, q->vs + 1);
        } else if (q->kind == PT_OP_B) {
            y->x.b_end[i] = t1;
            y->cur[d] -= p->split ? (1.0 - PT_PIPE_W_KEEP) * a : a;
            if (q->vs > 0) to = pt_pipe_dev(p, q->mb, q->vs - 1);
        } else {
            y->cur[d] -= PT_PIPE_W_KEEP * a;
        }
        if (to >= 0 && to != d) sends = 1;
        if (to >= 0 && to < p->pp) y->start[to] = -1; /* its next operation may wait on this one */
        y->busy[d] += dur;
        if (r->peak && y->cur[d] > r->peak[d]) r->peak[d] = y->cur[d];
        /* Megatron's send waits before the next op */
        send_end = k == n - 1 && sends ? t1 + y->x.p2p : end[k];
        if (visit && *rc == 0) *rc = visit(ctx, d, q, t, end[k], send_end, y->cur[d]);
        t = end[k];
    }
    send_end = sends ? t1 + y->x.p2p : t1;
    y->free_at[d] = send_end;
    if (send_end > r->makespan) r->makespan = send_end;
    y->next[d] += n;
    y->start[d] = -1;
}

int pt_pipe_run(const pt_pipe *p, const double *f, const double *b, const double *act, double p2p,
                pt_pipe_visit visit, void *ctx, pt_pipe_replay *r)
{
    return pt_pipe_run_hooked(p, f, b, act, p2p, NULL, visit, ctx, r);
}

int pt_pipe_run_hooked(const pt_pipe *p, const double *f, const double *b, const double *act, double p2p,
                       const pt_pipe_hook *hook, pt_pipe_visit visit, void *ctx, pt_pipe_replay *r)
{
    int P = p->pp, rc = 0;
    int64_t total, done = 0;
    replay y;
    memset(&y, 0, sizeof y);
    y.x = (run){p, f, b, p2p, NULL, NULL};
    y.hook = hook;
    y.per = pt_pipe_nops(p);
    total = y.per * P;
    y.ops = malloc((size_t)total * sizeof *y.ops);
    y.next = calloc((size_t)P, sizeof *y.next);
    y.len = calloc((size_t)P, sizeof *y.len);
    y.free_at = calloc((size_t)P, sizeof *y.free_at);
    y.busy = calloc((size_t)P, sizeof *y.busy);
    y.cur = calloc((size_t)P, sizeof *y.cur);
    y.start = malloc((size_t)P * sizeof *y.start);
    y.ready = calloc((size_t)P, sizeof *y.ready);
    y.x.f_end = malloc((size_t)(p->M * p->V) * sizeof *y.x.f_end);
    y.x.b_end = malloc((size_t)(p->M * p->V) * sizeof *y.x.b_end);
    r->makespan = r->busy_max = 0;
    if (!y.ops || !y.next || !y.len || !y.free_at || !y.busy || !y.cur || !y.start || !y.ready || !y.x.f_end || !y.x.b_end) {
        rc = -1;
        goto out;
    }
    for (int64_t i = 0; i < p->M * p->V; i++) y.x.f_end[i] = y.x.b_end[i] = -1.0;
    for (int d = 0; d < P; d++) {
        y.len[d] = pt_pipe_order(p, d, y.ops + d * y.per);
        if (y.len[d] < 0) {
            rc = -1;
            goto out;
        }
        done += y.per - y.len[d];
        y.start[d] = -1; /* not known yet */
        if (r->peak) r->peak[d] = 0;
    }
    if (!visit) {
        /* Times follow from the orders and the dependencies alone, so the
         * ranks can run in any interleaving: each as far as its inputs
         * allow, round after round. */
        while (done < total) {
            int64_t before = done;
            for (int d = 0; d < P; d++)
                while (y.next[d] < y.len[d]) {
                    double ready = 0, t = next_start(&y, d, &ready);
                    int64_t at = y.next[d];
                    if (t == INFINITY) break;
                    execute(&y, d, ready, t, act, NULL, NULL, r, &rc);
                    done += y.next[d] - at;
                }
            if (rc != 0) break;
            if (done == before) {
                rc = -2;
                break;
            }
        }
    } else {
        /* In start order, for a visitor that records events. */
        while (done < total) {
            int bd = -1;
            int64_t at;
            double bt = INFINITY;
            for (int d = 0; d < P; d++) {
                if (y.next[d] >= y.len[d]) continue;
                if (y.start[d] < 0) /* a rank's next start changes only when an input of it ends */
                    y.start[d] = next_start(&y, d, &y.ready[d]);
                if (y.start[d] < bt) bt = y.start[d], bd = d;
            }
            if (bd < 0) {
                rc = -2;
                break;
            }
            at = y.next[bd];
            execute(&y, bd, y.ready[bd], bt, act, visit, ctx, r, &rc);
            if (rc != 0) goto out;
            done += y.next[bd] - at;
        }
    }
    for (int d = 0; d < P; d++)
        if (y.busy[d] > r->busy_max) r->busy_max = y.busy[d];
out:
    free(y.ops);
    free(y.next);
    free(y.len);
    free(y.free_at);
    free(y.busy);
    free(y.cur);
    free(y.start);
    free(y.ready);
    free(y.x.f_end);
    free(y.x.b_end);
    return rc;
}

int pt_pipe_peaks(const pt_pipe *p, const double *act, double *peak)
{
    int64_t per = pt_pipe_nops(p);
    pt_pipe_op *o = malloc((size_t)per * sizeof *o);
    if (!o) return -1;
    for (int d = 0; d < p->pp; d++) {
        int64_t n = pt_pipe_order(p, d, o);
        double cur = 0;
        peak[d] = 0;
        if (n < 0) {
            free(o);
            return -1;
        }
        for (int64_t i = 0; i < n; i++) {
            double a = act[o[i].vs];
            if (o[i].kind == PT_OP_F) cur += a;
            else if (o[i].kind == PT_OP_B) cur -= p->split ? (1.0 - PT_PIPE_W_KEEP) * a : a;
            else cur -= PT_PIPE_W_KEEP * a;
            if (cur > peak[d]) peak[d] = cur;
        }
    }
    free(o);
    return 0;
}
