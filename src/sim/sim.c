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
    if (!push_event(s, d, 0, o->kind, o->mb, o->vs, t0, t1)) return -1;
    if (send_end > t1 && !push_event(s, d, 1, PT_OP_SEND, o->mb, o->vs, t1, send_end)) return -1;
    return push_mem(s, d, t1, act) ? 0 : -1;
}

static void free_sim(sim *s)
{
    free(s->fwd);
    free(s->bwd);
    free(s->act);
    free(s->lo);
    free(s->peak_act);
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
    rp.peak = s.peak_act;
    rc = pt_pipe_run(&s.pipe, s.fwd, s.bwd, s.act, p2p, record, &s, &rp);
    if (rc == -2) {
        pt_diag_set(d, NULL, pt_strategy_key_name(PT_K_SCHEDULE), pt_schedule_name(st->schedule),
                    "simulator: schedule %s deadlocked", pt_schedule_name(st->schedule));
        free_sim(&s);
        pt_sim_free(r);
        return PT_EINPUT;
    }
    if (rc != 0) goto oom;

    r->pp = st->pp;
    r->chunks = s.pipe.chunks;
    r->microbatches = s.pipe.M;
    r->pipeline_s = rp.makespan;
    r->busy_s = rp.busy_max;
    for (int dv = 0; dv < st->pp; dv++) {
        double peak = s.stat[dv] + s.peak_act[dv];
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
