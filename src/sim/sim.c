/*
 * sim.c -- one training step, event by event (see sim.h).
 */
#include "sim/sim.h"
#include "base/base.h"
#include "cost/cost.h"
#include "cost/pipe.h"
#include "strategy/strategy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One bucket of a virtual stage: the embedding, a layer, or the final norm
 * and output layer, in forward order (about one bucket per layer, as
 * Megatron's DDP buckets and FSDP's per-layer units). */
typedef struct unit {
    double f, b;              /* compute of one micro-batch, forward and backward */
    double P, Pe;             /* parameters one device holds (dense, routed experts) */
    int lo, hi;               /* layers [lo, hi); lo == hi: embedding or output layer */
} unit;

/* A collective on a rank's data-parallel stream. */
typedef struct coll {
    double issue, left, start; /* issued at; seconds of it left at full speed; began (-1: not yet) */
    pt_op_kind kind;
    int mb, vs, u, first;     /* first: ZeRO 1-2's parameter gather at the step's start */
} coll;

/* One rank's data-parallel stream: FIFO, run up to `now`. */
typedef struct dpstream {
    double now, last_end;
    coll *q;
    int head, n, cap;
    int64_t done, pushed;     /* collectives finished / issued (FIFO: the k-th issued ends k-th) */
    pt_cost_dp k;             /* the rank's totals (seconds) */
    double P, Pe;             /* the rank's parameters, dense and experts */
} dpstream;

typedef struct sim {
    const pt_model *m;
    const pt_strategy *st;
    pt_pipe pipe;
    double *fwd, *bwd;        /* per virtual stage */
    double *act;              /* activation bytes per virtual stage */
    int *lo;                  /* first layer of each virtual stage (V + 1 entries) */
    double *peak_act;         /* per rank */
    pt_sim_result *r;
    int cap_ev, cap_mem;
    double *stat;             /* per rank: weights+grads+optimizer bytes */
    /* data-parallel collectives (none when dp*cp and the expert group are 1) */
    int dp;                   /* 1: replayed */
    unit *units;              /* uoff[V] entries */
    int *uoff;                /* V + 1: units of virtual stage vs are [uoff[vs], uoff[vs+1]) */
    dpstream *dps;            /* per rank */
    int *fdone;               /* pp x V: the first forward on it ran (ZeRO 1-2 gathers) */
    int64_t *left;            /* pp x V: gradient passes (B, or W when split) still to run */
    double *gend;             /* pp x units: ZeRO 1-2 gather ends (-1: not yet) */
    int64_t *gseq;            /* pp x units: their places in the stream */
    int64_t dp_events;        /* recorded so far (at most PT_SIM_MAX_OPS) */
    int oom;
} sim;

static int push_event(sim *s, int dev, int stream, pt_op_kind k, int mb, int vs, double t0, double t1)
{
    pt_sim_result *r = s->r;
    pt_sim_event *e;
    if (r->nevents == s->cap_ev) {
        int nc = s->cap_ev ? 2 * s->cap_ev : 1024;
        pt_sim_event *ne = realloc(r->events, (size_t)nc * sizeof *ne);
        if (!ne) return 0;
        r->events = ne;
        s->cap_ev = nc;
    }
    e = &r->events[r->nevents++];
    e->stage = dev;
    e->stream = stream;
    e->kind = k;
    e->mb = mb;
    e->vstage = vs;
    e->layer_lo = s->lo[vs];
    e->layer_hi = s->lo[vs + 1];
    e->start_s = t0;
    e->end_s = t1;
    return 1;
}

static int push_mem(sim *s, int dev, double t, double act)
{
    pt_sim_result *r = s->r;
    double rest = s->stat[dev] + act;
    if (r->nmem == s->cap_mem) {
        int nc = s->cap_mem ? 2 * s->cap_mem : 1024;
        pt_sim_mem *nm = realloc(r->mem, (size_t)nc * sizeof *nm);
        if (!nm) return 0;
        r->mem = nm;
        s->cap_mem = nc;
    }
    r->mem[r->nmem].stage = dev;
    r->mem[r->nmem].t = t;
    r->mem[r->nmem].bytes = (int64_t)rest + pt_cost_other_bytes(rest);
    r->nmem++;
    return 1;
}

/* The replay's visitor: each operation, its send, and the rank's memory
 * after it become events. */
static int record(void *ctx, int d, const pt_pipe_op *o, double t0, double t1, double send_end, double act)
{
    sim *s = ctx;
    if (s->oom) return -1;
    if (!push_event(s, d, 0, o->kind, o->mb, o->vs, t0, t1)) return -1;
    if (send_end > t1 && !push_event(s, d, 1, PT_OP_SEND, o->mb, o->vs, t1, send_end)) return -1;
    return push_mem(s, d, t1, act) ? 0 : -1;
}

/* ---- data-parallel collectives ---------------------------------------------
 * Each rank has a FIFO stream of collectives beside its compute.  A
 * collective runs from max(its issue, the previous one's end) for its
 * seconds; while it overlaps compute the compute runs 1/k.slow_c as fast
 * (its SMs and memory bandwidth shared) and, under DeepSpeed ZeRO-3, the
 * collective 1/k.slow as fast (its measured 60% overlap).  The compute side
 * is driven by the pipeline replay (pt_pipe_hook): each operation runs its
 * virtual stage's buckets one by one, waiting for a bucket's parameter
 * gather and issuing its gradient reduction when the bucket's backward
 * ends. */

/* A bucket's share of the rank's totals. */
static double share(double tot, double etot, const dpstream *q, const unit *u)
{
    return (q->P > 0 ? tot * u->P / q->P : 0.0) + (q->Pe > 0 ? etot * u->Pe / q->Pe : 0.0);
}

static double gather_s(const dpstream *q, const unit *u) { return share(q->k.gather, q->k.e_gather, q, u); }
static double grad_s(const dpstream *q, const unit *u)
{
    return q->k.zero >= 3 ? share(q->k.scatter, q->k.e_scatter, q, u) : share(q->k.grad, q->k.e_grad, q, u);
}

/* Issues a collective of dur seconds on rank d's stream at t (issues come in
 * time order); returns its place in the stream, -1 for none (dur 0), -2 when
 * out of memory. */
static int64_t issue(sim *s, int d, double t, double dur, pt_op_kind kind, int mb, int vs, int u, int first)
{
    dpstream *q = &s->dps[d];
    if (!(dur > 0)) return -1;
    if (q->n == q->cap) {
        int nc = q->cap ? 2 * q->cap : 64;
        coll *nq = realloc(q->q, (size_t)nc * sizeof *nq);
        if (!nq) {
            s->oom = 1;
            return -2;
        }
        q->q = nq;
        q->cap = nc;
    }
    q->q[q->n++] = (coll){t, dur, -1.0, kind, mb, vs, u, first};
    return q->pushed++;
}

/* The head collective of rank d's stream ended at q->now: record it. */
static void finish(sim *s, int d)
{
    dpstream *q = &s->dps[d];
    const coll *c = &q->q[q->head];
    const unit *u = &s->units[c->u];
    if (c->first) s->gend[(int64_t)d * s->uoff[s->pipe.V] + c->u] = q->now;
    if (s->dp_events < PT_SIM_MAX_OPS && !s->oom) {
        if (!push_event(s, d, 2, c->kind, c->mb, c->vs, c->start, q->now)) s->oom = 1;
        else {
            s->r->events[s->r->nevents - 1].layer_lo = u->lo;
            s->r->events[s->r->nevents - 1].layer_hi = u->hi;
            s->dp_events++;
        }
    }
    q->last_end = q->now;
    q->done++;
    if (++q->head == q->n) q->head = q->n = 0;
}

/* Runs rank d's stream up to t, the compute idle meanwhile. */
static void advance(sim *s, int d, double t)
{
    dpstream *q = &s->dps[d];
    while (q->head < q->n && q->now < t) {
        coll *c = &q->q[q->head];
        if (c->issue > q->now) {
            q->now = c->issue < t ? c->issue : t;
            continue;
        }
        if (c->start < 0) c->start = q->now;
        if (q->now + c->left <= t) {
            q->now += c->left;
            c->left = 0;
            finish(s, d);
        } else {
            c->left -= t - q->now;
            q->now = t;
        }
    }
    if (q->now < t) q->now = t;
}

/* Runs rank d's stream, the compute idle, until collective k has ended;
 * returns its end (the stream's time when it had ended before). */
static double wait_for(sim *s, int d, int64_t k)
{
    dpstream *q = &s->dps[d];
    double t0 = q->now;
    if (k < 0) return t0;
    if (q->done > k) return q->last_end < t0 ? t0 : q->last_end; /* ended: only its order matters */
    while (q->done <= k) {
        coll *c = &q->q[q->head];
        if (c->issue > q->now) q->now = c->issue;
        if (c->start < 0) c->start = q->now;
        q->now += c->left;
        c->left = 0;
        finish(s, d);
    }
    return q->now;
}

/* work seconds of compute on rank d from the stream's time on; returns the
 * end (the stream has run along, each overlapping stretch slowing both). */
static double compute(sim *s, int d, double work)
{
    dpstream *q = &s->dps[d];
    double sc = q->k.slow_c, sx = q->k.slow;
    while (work > 0) {
        if (q->head < q->n && q->q[q->head].issue <= q->now) { /* overlapping: both slowed */
            coll *c = &q->q[q->head];
            if (c->start < 0) c->start = q->now;
            if (work * sc < c->left * sx) {
                q->now += work * sc;
                c->left -= work * sc / sx;
                work = 0;
            } else {
                q->now += c->left * sx;
                work -= c->left * sx / sc;
                c->left = 0;
                finish(s, d);
            }
        } else {
            double next = q->head < q->n ? q->q[q->head].issue : INFINITY;
            if (q->now + work <= next) {
                q->now += work;
                work = 0;
            } else {
                work -= next - q->now;
                q->now = next;
            }
        }
    }
    return q->now;
}

/* When rank d's stream, the compute idle from its time on, ends collective
 * k (the whole queue for k < 0), without running it. */
static double drained(const sim *s, int d, int64_t k)
{
    const dpstream *q = &s->dps[d];
    double t = q->now;
    for (int i = q->head; i < q->n; i++) {
        if (q->q[i].issue > t) t = q->q[i].issue;
        t += q->q[i].left;
        if (k >= 0 && q->done + (i - q->head) == k) break;
    }
    return t;
}

/* Does o end a gradient on its buckets: B, or W for split schedules. */
static int grad_pass(const sim *s, const pt_pipe_op *o)
{
    return s->pipe.split ? o->kind == PT_OP_W : o->kind == PT_OP_B;
}

/* Whether o waits for parameter gathers: ZeRO-3 before every forward and
 * input-gradient backward, ZeRO 1-2 before the first forward on a virtual
 * stage (the gathers issued at the step's start). */
static int gathers(const sim *s, int d, const pt_pipe_op *o)
{
    const dpstream *q = &s->dps[d];
    if (q->k.zero >= 3) return o->kind != PT_OP_W && q->k.gather + q->k.e_gather > 0;
    return o->kind == PT_OP_F && q->k.gather + q->k.e_gather > 0 && !s->fdone[d * s->pipe.V + o->vs];
}

static double hook_start(void *ctx, int d, const pt_pipe_op *o, double t)
{
    sim *s = ctx;
    int u = o->kind == PT_OP_F ? s->uoff[o->vs] : s->uoff[o->vs + 1] - 1;
    double e;
    if (!gathers(s, d, o)) return t;
    if (s->dps[d].k.zero >= 3) { /* issued now, after what the stream holds */
        double g = gather_s(&s->dps[d], &s->units[u]);
        if (!(g > 0)) return t;
        e = drained(s, d, -1);
        return (e > t ? e : t) + g;
    }
    e = s->gend[(int64_t)d * s->uoff[s->pipe.V] + u];
    if (e < 0) e = s->gseq[(int64_t)d * s->uoff[s->pipe.V] + u] >= 0 ? drained(s, d, s->gseq[(int64_t)d * s->uoff[s->pipe.V] + u]) : t;
    return e > t ? e : t;
}

static double hook_run(void *ctx, int d, const pt_pipe_op *o, double ready, double t0, double dur)
{
    sim *s = ctx;
    dpstream *q = &s->dps[d];
    int a = s->uoff[o->vs], z = s->uoff[o->vs + 1], n = z - a, back = o->kind != PT_OP_F;
    int g = gathers(s, d, o), zero3 = q->k.zero >= 3, NU = s->uoff[s->pipe.V];
    int r = grad_pass(s, o) && (zero3 || --s->left[d * s->pipe.V + o->vs] == 0);
    double tot = 0, k, t;
    int64_t pend = -1;
    if (o->kind == PT_OP_F) s->fdone[d * s->pipe.V + o->vs] = 1;
    if (!g && !r) { /* slowed only by what the stream still runs */
        if (q->k.slow_c == 1.0 && q->k.slow == 1.0) return t0 + dur;
        advance(s, d, t0);
        if (q->head == q->n) return t0 + dur;
    }
    for (int j = a; j < z; j++) tot += back ? s->units[j].b : s->units[j].f;
    k = tot > 0 ? dur / tot : 0.0;
    advance(s, d, ready);
    if (g && zero3) pend = issue(s, d, ready, gather_s(q, &s->units[back ? z - 1 : a]), PT_OP_ALLGATHER, o->mb, o->vs,
                                 back ? z - 1 : a, 0);
    t = ready;
    for (int j = 0; j < n; j++) {
        int u = back ? z - 1 - j : a + j;
        const unit *U = &s->units[u];
        double w = tot > 0 ? k * (back ? U->b : U->f) : dur / n;
        if (g) {
            double e = wait_for(s, d, zero3 ? pend : s->gseq[(int64_t)d * NU + u]);
            if (e > t) t = e;
        }
        if (j == 0 && t0 > t) t = t0;
        advance(s, d, t);
        if (g && zero3 && j + 1 < n) {
            int nu = back ? u - 1 : u + 1;
            pend = issue(s, d, t, gather_s(q, &s->units[nu]), PT_OP_ALLGATHER, o->mb, o->vs, nu, 0);
        }
        t = compute(s, d, w);
        if (r) issue(s, d, t, grad_s(q, U), q->k.zero == 0 ? PT_OP_ALLREDUCE : PT_OP_REDUCESCATTER, o->mb, o->vs, u, 0);
    }
    return s->oom ? -1.0 : t;
}

/* The buckets of every virtual stage (their compute split from the virtual
 * stage's times, fwd and bwd, by layer) and each rank's stream: its
 * parameters, its collectives' totals, ZeRO 1-2's gathers queued at the
 * step's start in the order the rank first runs its virtual stages.
 * s->dp = 0 when no rank has a collective.  0 when out of memory. */
static int dp_setup(sim *s, const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                    const pt_cost_prep *pr)
{
    const pt_pipe *p = &s->pipe;
    /* copy: the output layer's rank does not hold the embedding (it keeps a
     * copy where tied, and the MTP depths' embedding) */
    int V = p->V, PP = st->pp, NU = 0, copy = st->pp > 1 && st->schedule != PT_SCHED_ZBV &&
                                           st->schedule != PT_SCHED_DUALPIPE;
    int64_t per = pt_pipe_nops(p);
    pt_pipe_op *ops = NULL;
    int *seen = NULL, *order = NULL;
    s->dp = 0;
    if (pt_strategy_group_size(st, PT_GROUP_DP_CP) <= 1 &&
        (m->experts == 0 || pt_strategy_group_size(st, PT_GROUP_EDP) <= 1))
        return 1;
    for (int vs = 0; vs < V; vs++) NU += (vs == 0) + (s->lo[vs + 1] - s->lo[vs]) + (vs == V - 1);
    s->units = calloc((size_t)NU, sizeof *s->units);
    s->uoff = calloc((size_t)V + 1, sizeof *s->uoff);
    s->dps = calloc((size_t)PP, sizeof *s->dps);
    s->fdone = calloc((size_t)PP * (size_t)V, sizeof *s->fdone);
    s->left = calloc((size_t)PP * (size_t)V, sizeof *s->left);
    s->gend = malloc((size_t)PP * (size_t)NU * sizeof *s->gend);
    s->gseq = malloc((size_t)PP * (size_t)NU * sizeof *s->gseq);
    ops = malloc((size_t)per * sizeof *ops);
    seen = malloc((size_t)V * sizeof *seen);
    order = malloc((size_t)V * sizeof *order);
    if (!s->units || !s->uoff || !s->dps || !s->fdone || !s->left || !s->gend || !s->gseq || !ops || !seen || !order)
        goto oom;
    for (int64_t i = 0; i < (int64_t)PP * NU; i++) s->gend[i] = -1.0, s->gseq[i] = -1;
    for (int vs = 0, j = 0; vs < V; vs++) {
        int lo = s->lo[vs], hi = s->lo[vs + 1], j0;
        double xf = 0, xb = 0, wf = 0, wb = 0, kf, kb;
        s->uoff[vs] = j;
        if (vs == 0) {
            unit *u = &s->units[j++];
            u->f = pr->emb_f + pr->emb_tp;
            u->b = pr->emb_b + (st->sp ? pr->emb_tp : 0.0);
            u->P = pt_cost_bucket_params(m, st, 0, 0, 0, &u->Pe);
            u->lo = u->hi = lo;
            xf += u->f, xb += u->b;
        }
        j0 = j;
        for (int l = lo; l < hi; l++) {
            unit *u = &s->units[j++];
            int moe = pt_cost_moe_layers_in(m, l, l + 1) > 0;
            u->f = pr->lf + pr->ltp_f + pr->lcp_f +
                   (m->experts > 0 ? (moe ? pr->lep_f : pr->dl_f + pr->dl_tp_f) : 0.0);
            u->b = pr->lb + pr->ltp_b + pr->lcp_b +
                   (m->experts > 0 ? (moe ? pr->lep_b : pr->dl_b + pr->dl_tp_b) : 0.0);
            u->P = pt_cost_bucket_params(m, st, 1, l, 0, &u->Pe);
            u->lo = l, u->hi = l + 1;
            wf += u->f, wb += u->b;
        }
        if (vs == V - 1) {
            unit *u = &s->units[j++];
            u->f = pr->head_f;
            u->b = pr->head_b;
            u->P = pt_cost_bucket_params(m, st, 2, 0, copy, &u->Pe);
            u->lo = u->hi = hi;
            xf += u->f, xb += u->b;
        }
        /* the layers take what the virtual stage's time leaves (MoE: the
         * all-to-all DualPipe hides) */
        kf = wf > 0 && s->fwd[vs] > xf ? (s->fwd[vs] - xf) / wf : 1.0;
        kb = wb > 0 && s->bwd[vs] > xb ? (s->bwd[vs] - xb) / wb : 1.0;
        for (int i = j0; i < j0 + hi - lo; i++) s->units[i].f *= kf, s->units[i].b *= kb;
        s->uoff[vs + 1] = j;
    }
    s->dp = 0;
    for (int d = 0; d < PP; d++) {
        dpstream *q = &s->dps[d];
        int64_t n = pt_pipe_order(p, d, ops);
        int no = 0;
        if (n < 0) goto oom;
        for (int vs = 0; vs < V; vs++) seen[vs] = 0;
        for (int64_t i = 0; i < n; i++) {
            if (ops[i].kind == PT_OP_F && !seen[ops[i].vs]) seen[ops[i].vs] = 1, order[no++] = ops[i].vs;
            if (grad_pass(s, &ops[i])) s->left[d * V + ops[i].vs]++;
        }
        for (int i = 0; i < no; i++)
            for (int u = s->uoff[order[i]]; u < s->uoff[order[i] + 1]; u++) q->P += s->units[u].P, q->Pe += s->units[u].Pe;
        pt_cost_dp_colls(c, job, st, q->P, q->Pe, &q->k);
        if (q->k.grad + q->k.gather + q->k.scatter + q->k.e_grad + q->k.e_gather + q->k.e_scatter > 0) s->dp = 1;
        if (q->k.zero >= 1 && q->k.zero <= 2) /* the updated parameters, in the order they are used */
            for (int i = 0; i < no; i++)
                for (int u = s->uoff[order[i]]; u < s->uoff[order[i] + 1]; u++) {
                    int64_t k = issue(s, d, 0.0, gather_s(q, &s->units[u]), PT_OP_ALLGATHER, 0, order[i], u, 1);
                    if (k == -2) goto oom;
                    s->gseq[(int64_t)d * NU + u] = k;
                }
    }
    free(ops);
    free(seen);
    free(order);
    return 1;
oom:
    free(ops);
    free(seen);
    free(order);
    return 0;
}

static void free_sim(sim *s)
{
    free(s->fwd);
    free(s->bwd);
    free(s->act);
    free(s->lo);
    free(s->peak_act);
    free(s->stat);
    if (s->dps)
        for (int d = 0; d < s->st->pp; d++) free(s->dps[d].q);
    free(s->dps);
    free(s->units);
    free(s->uoff);
    free(s->fdone);
    free(s->left);
    free(s->gend);
    free(s->gseq);
}

/* What follows the pipeline and its collectives, as the analytic model
 * prices it: the optimizer step, offload traffic, the tied embeddings'
 * all-reduce. */
static double tail_of(const pt_model *m, const pt_cluster *c, const pt_strategy *st, const pt_cost *cost)
{
    return cost->time.optimizer + cost->time.offload + pt_cost_tied_embedding_s(m, c, st);
}

/* Replays every operation of st's step (its micro-batch count within the
 * limits of sim.h). */
static pt_status sim_exact(const pt_model *m, const pt_cluster *c, const pt_job *job,
                           const pt_strategy *st, pt_sim_result *r, pt_diag *d)
{
    sim s;
    pt_cost_prep pr;
    pt_cost cost;
    pt_pipe_replay rp;
    double T, p2p;
    int rc, V;
    memset(&s, 0, sizeof s);
    memset(r, 0, sizeof *r);
    s.m = m;
    s.st = st;
    s.r = r;
    pt_pipe_init(&s.pipe, st, st->gbs / ((int64_t)st->mbs * st->dp));
    V = s.pipe.V;
    pt_cost_prepare(m, c, job, st, &pr);
    pt_cost_eval_prepared(m, c, job, st, &pr, &cost);
    T = (double)job->seq_len / st->cp * st->mbs;
    p2p = st->pp > 1 ? pt_p2p_time(c, (int64_t)(T * (double)m->hidden * 2.0 / st->tp),
                                   pt_strategy_group_size(st, PT_GROUP_PP), pt_strategy_stride(st, PT_GROUP_PP))
                     : 0.0;
    s.fwd = calloc((size_t)V, sizeof *s.fwd);
    s.bwd = calloc((size_t)V, sizeof *s.bwd);
    s.act = calloc((size_t)V, sizeof *s.act);
    s.lo = calloc((size_t)V + 1, sizeof *s.lo);
    s.peak_act = calloc((size_t)st->pp, sizeof *s.peak_act);
    s.stat = calloc((size_t)st->pp, sizeof *s.stat);
    r->stage_peak = calloc((size_t)st->pp, sizeof *r->stage_peak);
    r->stage_static = calloc((size_t)st->pp, sizeof *r->stage_static);
    if (!s.fwd || !s.bwd || !s.act || !s.lo || !s.peak_act || !s.stat || !r->stage_peak || !r->stage_static)
        goto oom;
    pt_cost_vstages(m, job, st, &pr, &s.pipe, s.lo, s.fwd, s.bwd, s.act);
    for (int dv = 0; dv < st->pp; dv++) {
        pt_memory k;
        int first = 0, last = 0;
        for (int mb = 0; mb < (s.pipe.dual ? 2 : 1); mb++)
            for (int vs = 0; vs < V; vs++)
                if (pt_pipe_dev(&s.pipe, mb == 0 ? 0 : (int)(s.pipe.M - 1), vs) == dv) {
                    if (vs == 0) first = 1;
                    if (vs == V - 1) last = 1;
                }
        pt_cost_stage_states(m, job, st, &pr, first || st->pp == 1, last || st->pp == 1, &k);
        s.stat[dv] = (double)(k.weights + k.gradients + k.optimizer) +
                     (st->recompute == PT_RC_FULL ? pr.act_layer_full : 0.0) +
                     (first || st->pp == 1 ? pt_cost_stage_extra_activations(m, job, st, 1, 0) : 0.0);
        if (!push_mem(&s, dv, 0.0, 0.0)) goto oom;
    }
    if (!dp_setup(&s, m, c, job, st, &pr)) goto oom;
    rp.peak = s.peak_act;
    {
        pt_pipe_hook hook = {hook_start, hook_run, &s};
        rc = pt_pipe_run_hooked(&s.pipe, s.fwd, s.bwd, s.act, p2p, s.dp ? &hook : NULL, record, &s, &rp);
    }
    if (rc == -2) {
        pt_diag_set(d, NULL, pt_strategy_key_name(PT_K_SCHEDULE), pt_schedule_name(st->schedule),
                    "simulator: schedule %s deadlocked", pt_schedule_name(st->schedule));
        free_sim(&s);
        pt_sim_free(r);
        return PT_EINPUT;
    }
    if (rc != 0 || s.oom) goto oom;

    r->pp = st->pp;
    r->chunks = s.pipe.chunks;
    r->microbatches = s.pipe.M;
    r->pipeline_s = rp.makespan;
    if (s.dp) /* the collectives still running when the compute is done */
        for (int dv = 0; dv < st->pp; dv++) {
            double e = wait_for(&s, dv, s.dps[dv].pushed - 1);
            if (e > r->pipeline_s) r->pipeline_s = e;
        }
    if (s.oom) goto oom;
    r->dp_s = r->pipeline_s - rp.makespan;
    r->busy_s = rp.busy_max;
    for (int dv = 0; dv < st->pp; dv++) {
        double peak = s.stat[dv] + s.peak_act[dv];
        r->stage_static[dv] = (int64_t)s.stat[dv];
        r->stage_peak[dv] = (int64_t)peak + pt_cost_other_bytes(peak);
        if (r->stage_peak[dv] > r->peak_bytes) r->peak_bytes = r->stage_peak[dv];
    }
    r->tail_s = tail_of(m, c, st, &cost);
    r->step_time_s = r->pipeline_s + r->tail_s;
    r->bubble_s = r->pipeline_s - r->busy_s;
    free_sim(&s);
    return PT_OK;
oom:
    free_sim(&s);
    pt_sim_free(r);
    pt_diag_set(d, NULL, NULL, NULL, "out of memory in the simulator");
    return PT_ENOMEM;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

/* x(M) from its values at L and 2L, the step being affine in the micro-batch
 * count once the pipeline is full (each further micro-batch adds one period
 * of the steady state). */
static double affine(double at_l, double at_2l, int64_t L, int64_t M)
{
    return at_2l + (at_2l - at_l) / (double)L * (double)(M - 2 * L);
}

pt_status pt_sim_run(const pt_model *m, const pt_cluster *c, const pt_job *job,
                     const pt_strategy *st, pt_sim_result *r, pt_diag *d)
{
    int64_t M = st->gbs / ((int64_t)st->mbs * st->dp), V, q, L;
    pt_status js = pt_job_check(job, d);
    pt_sim_result r1;
    pt_strategy w = *st;
    pt_cost cost;
    char v[32];
    memset(r, 0, sizeof *r);
    if (js != PT_OK) return js;
    V = (int64_t)st->pp * (st->schedule == PT_SCHED_INTERLEAVED ? st->vpp : st->schedule == PT_SCHED_ZBV ? 2 : 1);
    if (M <= PT_SIM_MAX_MICROBATCHES && M * V <= PT_SIM_MAX_OPS) return sim_exact(m, c, job, st, r, d);
    /* Too many to replay (gbs=10^8 on one pipeline took 59 s and 13.5 GB):
     * replay L and 2L micro-batches, L a multiple of pp and 2 (the
     * interleaved and DualPipe orders need them) with both runs within the
     * operation limit, and extrapolate; L must leave the pipeline's fill and
     * drain well inside the window (4 x pp x virtual stages). */
    q = st->pp / gcd64(st->pp, 2) * 2;
    L = PT_SIM_MAX_OPS / 2 / V / q * q;
    if (L > PT_SIM_MAX_MICROBATCHES / 2) L = PT_SIM_MAX_MICROBATCHES / 2 / q * q;
    if (L < 4 * V || 2 * L >= M) {
        snprintf(v, sizeof v, "%lld", (long long)M);
        return pt_diag_set(d, NULL, "gbs", v, "the simulator replays at most %lld micro-batch x virtual-stage "
                           "operations, and extrapolates longer steps from a window that holds the pipeline's "
                           "fill and drain 4 times; this step has %s micro-batches (gbs / (mbs * dp)) on %lld "
                           "virtual stages", (long long)PT_SIM_MAX_OPS, v, (long long)V);
    }
    w.gbs = L * st->mbs * st->dp;
    if ((js = sim_exact(m, c, job, &w, &r1, d)) != PT_OK) return js;
    w.gbs = 2 * L * st->mbs * st->dp;
    if ((js = sim_exact(m, c, job, &w, r, d)) != PT_OK) {
        pt_sim_free(&r1);
        return js;
    }
    r->microbatches = M;
    r->window = 2 * L;
    r->pipeline_s = affine(r1.pipeline_s, r->pipeline_s, L, M);
    r->busy_s = affine(r1.busy_s, r->busy_s, L, M);
    r->bubble_s = r->pipeline_s - r->busy_s;
    r->peak_bytes = 0;
    for (int dv = 0; dv < r->pp; dv++) {
        /* a schedule that bounds the micro-batches in flight has the same
         * peak at L and 2L; GPipe's grows with the count */
        if (r->stage_peak[dv] != r1.stage_peak[dv])
            r->stage_peak[dv] = (int64_t)affine((double)r1.stage_peak[dv], (double)r->stage_peak[dv], L, M);
        if (r->stage_peak[dv] > r->peak_bytes) r->peak_bytes = r->stage_peak[dv];
    }
    /* ZeRO 0-2's collectives are the same at L and 2L micro-batches,
     * ZeRO-3's grow with them: affine either way */
    r->dp_s = affine(r1.dp_s, r->dp_s, L, M);
    pt_sim_free(&r1);
    /* the tail as the analytic model prices the real step */
    pt_cost_eval(m, c, job, st, &cost);
    r->tail_s = tail_of(m, c, st, &cost);
    r->step_time_s = r->pipeline_s + r->tail_s;
    return PT_OK;
}

void pt_sim_free(pt_sim_result *r)
{
    free(r->events);
    free(r->mem);
    free(r->stage_peak);
    free(r->stage_static);
    memset(r, 0, sizeof *r);
}
