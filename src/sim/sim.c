/*
 * sim.c -- one training step, event by event (see sim.h).
 */
#include "sim/sim.h"
#include "base/base.h"
#include "cost/cost.h"
#include "strategy/strategy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Share of a micro-batch's activations the weight-gradient pass still needs
 * after the input-gradient pass: the inputs of the linear layers (QKV, output
 * projection, MLP in and out) against everything a layer keeps -- about half
 * in Korthikanti et al.'s accounting (the 10sbh + 24sbh/t terms hold 4 of the
 * 8 GEMM inputs' worth); zero-bubble schedules free the rest at B. */
#define W_KEEP 0.5

typedef struct op {
    pt_op_kind kind;
    int mb, vs;
} op;

typedef struct sim {
    const pt_model *m;
    const pt_strategy *st;
    int pp, V, chunks, split; /* split: B and W are separate operations */
    int greedy;               /* orders chosen as the step runs (zb-v, dualpipe) */
    int64_t M;                /* micro-batches */
    int dual;                 /* DualPipe: two directions */
    double p2p;
    double *fwd, *bwd;        /* per virtual stage */
    double *act;              /* activation bytes per (micro-batch, virtual stage) */
    int *lo;                  /* first layer of each virtual stage (V + 1 entries) */
    double *f_end, *b_end, *w_end; /* per (mb, vs); -1 until done */
    /* fixed orders (gpipe, 1f1b, interleaved) */
    op **order;
    int *norder, *next;
    /* greedy (zb-h1, zb-v, dualpipe) */
    int *fnext;               /* per (device, chunk): next micro-batch to run forward */
    int *inflight;            /* per device: (mb, vs) forwarded, backward not done */
    int *chunk_flight;        /* per (device, chunk): how many of them            */
    op *flight;               /* per device, flight_cap entries: forwarded, W not done */
    int *nflight;
    int flight_cap;
    int limit_chunks;
    double *free_at;
    double *cur_act;          /* per device */
    double *peak_act;
    double *busy;
    pt_sim_result *r;
    int cap_ev, cap_mem;
    double *stat;             /* per device: weights+grads+optimizer bytes */
} sim;

#define IDX(s, mb, vs) ((int64_t)(mb) * (s)->V + (vs))

static int dev_of(const sim *s, int mb, int vs)
{
    switch (s->st->schedule) {
    case PT_SCHED_INTERLEAVED: return vs % s->pp;
    case PT_SCHED_ZBV: return vs < s->pp ? vs : 2 * s->pp - 1 - vs;
    case PT_SCHED_DUALPIPE: return mb < s->M / 2 ? vs : s->pp - 1 - vs;
    default: return vs;
    }
}

/* The virtual stage chunk c of device d handles (for forward order). */
static int vs_of(const sim *s, int d, int c, int mb)
{
    switch (s->st->schedule) {
    case PT_SCHED_INTERLEAVED: return c * s->pp + d;
    case PT_SCHED_ZBV: return c == 0 ? d : 2 * s->pp - 1 - d;
    case PT_SCHED_DUALPIPE: return mb < s->M / 2 ? d : s->pp - 1 - d;
    default: return d;
    }
}

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

static int push_mem(sim *s, int dev, double t)
{
    pt_sim_result *r = s->r;
    double rest = s->stat[dev] + s->cur_act[dev];
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

/* When op could start (its inputs arrived), or INFINITY if they have not. */
static double ready(const sim *s, const op *o)
{
    int64_t i = IDX(s, o->mb, o->vs);
    double t;
    if (o->kind == PT_OP_F) {
        if (o->vs == 0) return 0.0;
        t = s->f_end[IDX(s, o->mb, o->vs - 1)];
        if (t < 0) return INFINITY;
        return t + (dev_of(s, o->mb, o->vs - 1) != dev_of(s, o->mb, o->vs) ? s->p2p : 0.0);
    }
    if (o->kind == PT_OP_B) {
        if (s->f_end[i] < 0) return INFINITY;
        if (o->vs == s->V - 1) return s->f_end[i];
        t = s->b_end[IDX(s, o->mb, o->vs + 1)];
        if (t < 0) return INFINITY;
        t += dev_of(s, o->mb, o->vs + 1) != dev_of(s, o->mb, o->vs) ? s->p2p : 0.0;
        return t > s->f_end[i] ? t : s->f_end[i];
    }
    return s->b_end[i] < 0 ? INFINITY : s->b_end[i];
}

static double duration(const sim *s, const op *o)
{
    if (o->kind == PT_OP_F) return s->fwd[o->vs];
    if (!s->split) return s->bwd[o->vs];
    return 0.5 * s->bwd[o->vs]; /* input-gradient and weight-gradient halves */
}

/* In-flight (micro-batch, virtual stage) pairs -- forwarded, input gradient
 * not yet computed -- a rank may hold: 1F1B's pp - d for ZB-H1, p half stages per chunk for ZB-V
 * (so the first chunk cannot starve the second), p + 1 for DualPipe
 * (DeepSeek-V3 Table 2). */
static int limit(const sim *s, int d)
{
    return s->st->schedule == PT_SCHED_ZBH1 ? s->pp - d : s->limit_chunks;
}

static int chunk_of(const sim *s, int d, const op *o)
{
    return s->chunks > 1 && vs_of(s, d, 0, o->mb) != o->vs ? 1 : 0;
}

static int may_forward(const sim *s, int d, const op *o)
{
    if (s->inflight[d] >= limit(s, d)) return 0;
    if (s->nflight[d] >= 2 * limit(s, d)) return 0; /* at most as many W's pending */
    if (s->chunks > 1 && s->chunk_flight[d * s->chunks + chunk_of(s, d, o)] >= s->pp) return 0;
    return 1;
}

/* Greedy choice for device d at or after its free time: B first, then F (while
 * fewer than limit chunks are in flight), then W.  Returns 0 if nothing can
 * run yet; *o and *start otherwise. */
static int greedy_pick(const sim *s, int d, op *best, double *start)
{
    double t_min = INFINITY;
    int found = 0;
    op cand[3][64] = {{{PT_OP_F, 0, 0}}};
    int nc[3] = {0, 0, 0};
    /* candidates: B and W of what is in flight here; the next F per chunk */
    for (int k = 0; k < s->nflight[d]; k++) {
        const op *f = &s->flight[(int64_t)d * s->flight_cap + k];
        int64_t i = IDX(s, f->mb, f->vs);
        if (s->b_end[i] < 0 && nc[0] < 64) cand[0][nc[0]++] = (op){PT_OP_B, f->mb, f->vs};
        else if (s->b_end[i] >= 0 && s->w_end[i] < 0 && nc[2] < 64)
            cand[2][nc[2]++] = (op){PT_OP_W, f->mb, f->vs};
    }
    for (int c = 0; c < s->chunks; c++) {
        int mb = s->fnext[d * s->chunks + c];
        /* skip micro-batches this device does not see on this chunk (DualPipe) */
        while (mb < s->M && dev_of(s, mb, vs_of(s, d, c, mb)) != d) mb++;
        if (mb < s->M && nc[1] < 64) cand[1][nc[1]++] = (op){PT_OP_F, mb, vs_of(s, d, c, mb)};
    }
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < nc[k]; j++) {
            double t = ready(s, &cand[k][j]);
            if (k == 1 && !may_forward(s, d, &cand[k][j])) continue;
            if (t < t_min) t_min = t;
        }
    if (t_min == INFINITY) return 0;
    if (t_min < s->free_at[d]) t_min = s->free_at[d];
    /* among what is ready at t_min, by priority; earliest micro-batch first,
     * later virtual stage first for F (push work towards the loss) */
    for (int k = 0; k < 3 && !found; k++) {
        for (int j = 0; j < nc[k]; j++) {
            const op *o = &cand[k][j];
            if (k == 1 && !may_forward(s, d, o)) continue;
            if (ready(s, o) > t_min) continue;
            if (!found || o->mb < best->mb || (o->mb == best->mb && o->vs > best->vs)) {
                *best = *o;
                found = 1;
            }
        }
    }
    if (!found) return 0;
    *start = t_min;
    return 1;
}

static int build_orders(sim *s)
{
    int pp = s->pp;
    s->order = calloc((size_t)pp, sizeof *s->order);
    s->norder = calloc((size_t)pp, sizeof *s->norder);
    s->next = calloc((size_t)pp, sizeof *s->next);
    if (!s->order || !s->norder || !s->next) return 0;
    for (int d = 0; d < pp; d++) {
        int64_t total = s->M * s->chunks, n = 0;
        op *o = calloc((size_t)(3 * total), sizeof *o);
        if (!o) return 0;
        s->order[d] = o;
        if (s->st->schedule == PT_SCHED_GPIPE) {
            for (int mb = 0; mb < s->M; mb++) o[n++] = (op){PT_OP_F, mb, d};
            for (int mb = 0; mb < s->M; mb++) o[n++] = (op){PT_OP_B, mb, d};
        } else if (s->st->schedule == PT_SCHED_INTERLEAVED) {
            /* Megatron-LM's interleaved 1F1B: forward k runs chunk
             * (k mod pp*v)/pp of micro-batch (k / (pp*v))*pp + k mod pp;
             * backward k the chunks in reverse; warm-up (pp-d-1)*2 + (v-1)*pp */
            int64_t v = s->chunks, group = pp * v;
            int64_t warm = (int64_t)(pp - d - 1) * 2 + (v - 1) * pp, kf = 0, kb = 0;
            if (warm > total) warm = total;
#define FWD_OP(k) ((op){PT_OP_F, (int)(((k) / group) * pp + (k) % pp), (int)((((k) % group) / pp) * pp + d)})
#define BWD_OP(k) ((op){PT_OP_B, (int)(((k) / group) * pp + (k) % pp), (int)((v - 1 - ((k) % group) / pp) * pp + d)})
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
        } else { /* 1F1B; ZB-H1 adds each W, d backwards late */
            int64_t warm = pp - d - 1, i, nw = 0;
            if (warm > s->M) warm = s->M;
            for (i = 0; i < warm; i++) o[n++] = (op){PT_OP_F, (int)i, d};
            for (i = 0; i < s->M; i++) {
                if (i < s->M - warm) o[n++] = (op){PT_OP_F, (int)(warm + i), d};
                o[n++] = (op){PT_OP_B, (int)i, d};
                if (s->split && i >= d) o[n++] = (op){PT_OP_W, (int)nw++, d};
            }
            while (s->split && nw < s->M) o[n++] = (op){PT_OP_W, (int)nw++, d};
        }
        s->norder[d] = (int)n;
    }
    return 1;
}

static int execute(sim *s, int d, const op *o, double t0)
{
    double t1 = t0 + duration(s, o);
    int64_t i = IDX(s, o->mb, o->vs);
    if (!push_event(s, d, 0, o->kind, o->mb, o->vs, t0, t1)) return 0;
    s->free_at[d] = t1;
    s->busy[d] += t1 - t0;
    if (o->kind == PT_OP_F) {
        s->f_end[i] = t1;
        s->cur_act[d] += s->act[o->vs];
        if (s->greedy) {
            s->flight[(int64_t)d * s->flight_cap + s->nflight[d]++] = *o;
            s->chunk_flight[d * s->chunks + chunk_of(s, d, o)]++;
        }
        s->inflight[d]++;
        if (s->greedy) s->fnext[d * s->chunks + chunk_of(s, d, o)] = o->mb + 1;
        if (o->vs + 1 < s->V && dev_of(s, o->mb, o->vs + 1) != d) {
            if (!push_event(s, d, 1, PT_OP_SEND, o->mb, o->vs, t1, t1 + s->p2p)) return 0;
            s->free_at[d] = t1 + s->p2p; /* Megatron's send waits before the next op */
        }
    } else if (o->kind == PT_OP_B) {
        s->b_end[i] = t1;
        s->inflight[d]--;
        if (!s->split) {
            s->w_end[i] = t1;
            s->cur_act[d] -= s->act[o->vs];
        } else {
            /* the weight gradients need only the linear layers' inputs */
            s->cur_act[d] -= (1.0 - W_KEEP) * s->act[o->vs];
            if (s->greedy) s->chunk_flight[d * s->chunks + chunk_of(s, d, o)]--;
        }
        if (o->vs > 0 && dev_of(s, o->mb, o->vs - 1) != d) {
            if (!push_event(s, d, 1, PT_OP_SEND, o->mb, o->vs, t1, t1 + s->p2p)) return 0;
            s->free_at[d] = t1 + s->p2p;
        }
    } else {
        op *fl = &s->flight[(int64_t)d * s->flight_cap];
        s->w_end[i] = t1;
        s->cur_act[d] -= W_KEEP * s->act[o->vs];
        if (!s->greedy) goto done;
        for (int k = 0; k < s->nflight[d]; k++)
            if (fl[k].mb == o->mb && fl[k].vs == o->vs) {
                memmove(&fl[k], &fl[k + 1], (size_t)(s->nflight[d] - k - 1) * sizeof *fl);
                break;
            }
        s->nflight[d]--;
    }
done:
    if (s->cur_act[d] > s->peak_act[d]) s->peak_act[d] = s->cur_act[d];
    return push_mem(s, d, t1);
}

static void free_sim(sim *s)
{
    if (s->order)
        for (int d = 0; d < s->pp; d++) free(s->order[d]);
    free(s->order);
    free(s->norder);
    free(s->next);
    free(s->fwd);
    free(s->bwd);
    free(s->act);
    free(s->lo);
    free(s->f_end);
    free(s->b_end);
    free(s->w_end);
    free(s->fnext);
    free(s->inflight);
    free(s->flight);
    free(s->chunk_flight);
    free(s->nflight);
    free(s->free_at);
    free(s->cur_act);
    free(s->peak_act);
    free(s->busy);
    free(s->stat);
}

/* Replays every operation of st's step (its micro-batch count within the
 * limits of sim.h). */
static pt_status sim_exact(const pt_model *m, const pt_cluster *c, const pt_job *job,
                           const pt_strategy *st, pt_sim_result *r, pt_diag *d)
{
    sim s;
    pt_cost_prep pr;
    pt_cost cost;
    struct pick { int valid, found; double t; op o; } *picks = NULL; /* greedy: per rank */
    int64_t nops, done = 0;
    double lv, T;
    memset(&s, 0, sizeof s);
    memset(r, 0, sizeof *r);
    s.m = m;
    s.st = st;
    s.r = r;
    s.pp = st->pp;
    s.M = st->gbs / ((int64_t)st->mbs * st->dp);
    switch (st->schedule) {
    case PT_SCHED_INTERLEAVED: s.chunks = st->vpp; break;
    case PT_SCHED_ZBV: s.chunks = 2; break;
    case PT_SCHED_DUALPIPE: s.chunks = 1; s.dual = 1; break;
    default: s.chunks = 1; break;
    }
    s.V = s.dual ? s.pp : s.pp * s.chunks;
    s.split = st->schedule == PT_SCHED_ZBH1 || st->schedule == PT_SCHED_ZBV || st->schedule == PT_SCHED_DUALPIPE;
    s.greedy = s.split && st->schedule != PT_SCHED_ZBH1;
    s.limit_chunks = st->schedule == PT_SCHED_ZBV ? 2 * s.pp : st->schedule == PT_SCHED_DUALPIPE ? s.pp + 1 : s.pp;
    pt_cost_prepare(m, c, job, st, &pr);
    pt_cost_eval_prepared(m, c, job, st, &pr, &cost);
    T = (double)job->seq_len / st->cp * st->mbs;
    s.p2p = st->pp > 1 ? pt_p2p_time(c, (int64_t)(T * (double)m->hidden * 2.0 / st->tp),
                                     pt_strategy_group_size(st, PT_GROUP_PP), pt_strategy_stride(st, PT_GROUP_PP))
                       : 0.0;
    s.fwd = calloc((size_t)s.V, sizeof *s.fwd);
    s.bwd = calloc((size_t)s.V, sizeof *s.bwd);
    s.act = calloc((size_t)s.V, sizeof *s.act);
    s.lo = calloc((size_t)s.V + 1, sizeof *s.lo);
    s.f_end = malloc((size_t)(s.M * s.V) * sizeof *s.f_end);
    s.b_end = malloc((size_t)(s.M * s.V) * sizeof *s.b_end);
    s.w_end = malloc((size_t)(s.M * s.V) * sizeof *s.w_end);
    s.fnext = calloc((size_t)(s.pp * s.chunks), sizeof *s.fnext);
    s.inflight = calloc((size_t)s.pp, sizeof *s.inflight);
    s.flight_cap = (int)(s.M * s.chunks) + 1;
    s.nflight = calloc((size_t)s.pp, sizeof *s.nflight);
    s.flight = calloc((size_t)s.pp * (size_t)s.flight_cap, sizeof *s.flight);
    s.chunk_flight = calloc((size_t)(s.pp * s.chunks), sizeof *s.chunk_flight);
    s.free_at = calloc((size_t)s.pp, sizeof *s.free_at);
    s.cur_act = calloc((size_t)s.pp, sizeof *s.cur_act);
    s.peak_act = calloc((size_t)s.pp, sizeof *s.peak_act);
    s.busy = calloc((size_t)s.pp, sizeof *s.busy);
    s.stat = calloc((size_t)s.pp, sizeof *s.stat);
    r->stage_peak = calloc((size_t)s.pp, sizeof *r->stage_peak);
    r->stage_static = calloc((size_t)s.pp, sizeof *r->stage_static);
    if (!s.fwd || !s.bwd || !s.act || !s.lo || !s.f_end || !s.b_end || !s.w_end || !s.fnext || !s.inflight ||
        !s.flight || !s.nflight || !s.chunk_flight || !s.free_at || !s.cur_act || !s.peak_act || !s.busy || !s.stat || !r->stage_peak ||
        !r->stage_static || (!s.greedy && !build_orders(&s)))
        goto oom;
    for (int64_t i = 0; i < s.M * s.V; i++) s.f_end[i] = s.b_end[i] = s.w_end[i] = -1.0;
    {
        int64_t f, mid, l;
        pt_strategy_stage_layers(st, m->layers, &f, &mid, &l);
        for (int v = 0; v < s.V; v++) {
            int64_t n = (st->pp_first || st->pp_last) ? (v == 0 ? f : v == s.V - 1 ? l : mid)
                                                      : m->layers / s.V;
            s.lo[v + 1] = s.lo[v] + (int)n;
        }
    }
    for (int v = 0; v < s.V; v++) {
        int first = v == 0, last = v == s.V - 1;
        lv = (double)(s.lo[v + 1] - s.lo[v]);
        s.fwd[v] = lv * (pr.lf + pr.ltp_f + pr.lcp_f) + (first ? pr.emb_f + pr.emb_tp : 0.0) +
                   (last ? pr.head_f : 0.0);
        s.bwd[v] = lv * (pr.lb + pr.ltp_b + pr.lcp_b) + (first ? pr.emb_b + (st->sp ? pr.emb_tp : 0.0) : 0.0) +
                   (last ? pr.head_b : 0.0);
        /* the first stage's embedding output is counted once, with the
         * rank's static bytes (as cost.c counts it) */
        s.act[v] = lv * pr.act_layer + pt_cost_stage_extra_activations(m, job, st, 0, last);
        if (m->experts > 0) {
            /* MoE: the stage's dense layers differ from the MoE layer the
             * preparation priced, and its MoE layers add the all-to-all, on
             * the critical path except what DualPipe hides behind the paired
             * micro-batch's compute (as cost.c prices it) */
            double nm = (double)pt_cost_moe_layers_in(m, s.lo[v], s.lo[v + 1]), nd = lv - nm;
            double ef = nm * pr.lep_f, eb = nm * pr.lep_b, shown = 1.0;
            if (s.dual && ef + eb > 0) {
                double comp = lv * (pr.lf + pr.lb) + nd * (pr.dl_f + pr.dl_b);
                shown = ef + eb > comp ? (ef + eb - comp) / (ef + eb) : 0.0;
            }
            s.fwd[v] += nd * (pr.dl_f + pr.dl_tp_f) + shown * ef;
            s.bwd[v] += nd * (pr.dl_b + pr.dl_tp_b) + shown * eb;
        }
    }
    for (int dv = 0; dv < s.pp; dv++) {
        pt_memory k;
        int first = 0, last = 0;
        for (int mb = 0; mb < (s.dual ? 2 : 1); mb++)
            for (int ch = 0; ch < s.chunks; ch++) {
                int vs = vs_of(&s, dv, ch, mb == 0 ? 0 : (int)(s.M - 1));
                if (vs == 0) first = 1;
                if (vs == s.V - 1) last = 1;
            }
        pt_cost_stage_states(m, job, st, &pr, first || s.pp == 1, last || s.pp == 1, &k);
        s.stat[dv] = (double)(k.weights + k.gradients + k.optimizer) +
                     (st->recompute == PT_RC_FULL ? pr.act_layer_full : 0.0) +
                     (first || s.pp == 1 ? pt_cost_stage_extra_activations(m, job, st, 1, 0) : 0.0);
        if (!push_mem(&s, dv, 0.0)) goto oom;
    }

    nops = s.M * s.V * (s.split ? 3 : 2);
    /* a greedy rank's choice changes only when it ran something or an input
     * of its arrived, so it is kept until then (pp=32 ZB-V at 256
     * micro-batches: 1.6 s, not 50) */
    if (s.greedy && !(picks = calloc((size_t)s.pp, sizeof *picks))) goto oom;
    while (done < nops) {
        int bd = -1;
        double bt = INFINITY;
        op bo = {PT_OP_F, 0, 0};
        for (int dv = 0; dv < s.pp; dv++) {
            op o;
            double t;
            if (s.greedy) {
                if (!picks[dv].valid) {
                    picks[dv].found = greedy_pick(&s, dv, &picks[dv].o, &picks[dv].t);
                    picks[dv].valid = 1;
                }
                if (!picks[dv].found) continue;
                o = picks[dv].o;
                t = picks[dv].t;
            } else {
                if (s.next[dv] >= s.norder[dv]) continue;
                o = s.order[dv][s.next[dv]];
                t = ready(&s, &o);
                if (t == INFINITY) continue;
                if (t < s.free_at[dv]) t = s.free_at[dv];
            }
            if (t < bt) {
                bt = t;
                bd = dv;
                bo = o;
            }
        }
        if (bd < 0) {
            pt_diag_set(d, NULL, pt_strategy_key_name(PT_K_SCHEDULE), pt_schedule_name(st->schedule),
                        "simulator: schedule %s deadlocked after %lld of %lld operations",
                        pt_schedule_name(st->schedule), (long long)done, (long long)nops);
            free(picks);
            free_sim(&s);
            pt_sim_free(r);
            return PT_EINPUT;
        }
        if (!execute(&s, bd, &bo, bt)) goto oom;
        if (!s.greedy) s.next[bd]++;
        if (picks) {
            picks[bd].valid = 0;
            if (bo.kind == PT_OP_F && bo.vs + 1 < s.V) picks[dev_of(&s, bo.mb, bo.vs + 1)].valid = 0;
            if (bo.kind == PT_OP_B && bo.vs > 0) picks[dev_of(&s, bo.mb, bo.vs - 1)].valid = 0;
        }
        done++;
    }
    free(picks);
    picks = NULL;

    r->pp = s.pp;
    r->chunks = s.chunks;
    r->microbatches = s.M;
    for (int dv = 0; dv < s.pp; dv++) {
        double peak = s.stat[dv] + s.peak_act[dv];
        if (s.free_at[dv] > r->pipeline_s) r->pipeline_s = s.free_at[dv];
        if (s.busy[dv] > r->busy_s) r->busy_s = s.busy[dv];
        r->stage_static[dv] = (int64_t)s.stat[dv];
        r->stage_peak[dv] = (int64_t)peak + pt_cost_other_bytes(peak);
        if (r->stage_peak[dv] > r->peak_bytes) r->peak_bytes = r->stage_peak[dv];
    }
    r->tail_s = cost.time.dp_comm + cost.time.optimizer + cost.time.offload + pt_cost_tied_embedding_s(m, c, st);
    r->step_time_s = r->pipeline_s + r->tail_s;
    r->bubble_s = r->pipeline_s - r->busy_s;
    free_sim(&s);
    return PT_OK;
oom:
    free(picks);
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
    pt_sim_free(&r1);
    /* the tail as the analytic model prices the real step */
    pt_cost_eval(m, c, job, st, &cost);
    r->tail_s = cost.time.dp_comm + cost.time.optimizer + cost.time.offload + pt_cost_tied_embedding_s(m, c, st);
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
