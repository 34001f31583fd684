/*
 * sim_hetero.c -- heterogeneous steps replayed (see sim_hetero.h).
 */
#include "sim/sim_hetero.h"
#include "sim/sim.h"
#include "cost/pipe.h"
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pt_status pt_sim_hetero_run(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                            const pt_split *sp, const pt_hetero *h, pt_sim_hetero *r, pt_diag *d)
{
    int S = st->pp, D = st->dp, nu = 0;
    double *f = malloc((size_t)S * (size_t)D * sizeof *f), *b = malloc((size_t)S * (size_t)D * sizeof *b);
    double *span = malloc((size_t)D * sizeof *span);
    int64_t *mb = malloc((size_t)D * sizeof *mb);
    int *uniq = malloc((size_t)D * sizeof *uniq);
    pt_status s = PT_OK;
    memset(r, 0, sizeof *r);
    if (!f || !b || !span || !mb || !uniq) {
        s = pt_diag_set(d, NULL, NULL, NULL, "out of memory in the simulator");
        goto out;
    }
    r->pipeline_s = -1;
    for (int k = 0; k < D; k++) {
        double *fk = f + (size_t)k * (size_t)S, *bk = b + (size_t)k * (size_t)S;
        int same = -1;
        if ((s = pt_hetero_worker(m, c, job, st, sp, k, fk, bk, &mb[k], d)) != PT_OK) goto out;
        /* ranks with the same devices and share replay the same pipeline */
        for (int u = 0; u < nu && same < 0; u++) {
            int j = uniq[u];
            if (mb[j] == mb[k] && !memcmp(f + (size_t)j * (size_t)S, fk, (size_t)S * sizeof *fk) &&
                !memcmp(b + (size_t)j * (size_t)S, bk, (size_t)S * sizeof *bk))
                same = j;
        }
        if (same >= 0) {
            span[k] = span[same];
        } else {
            pt_pipe p;
            pt_pipe_replay rp = {0, 0, NULL};
            int rc;
            char v[32];
            if (mb[k] > PT_SIM_MAX_MICROBATCHES) {
                snprintf(v, sizeof v, "%lld", (long long)mb[k]);
                s = pt_diag_set(d, NULL, "gbs", v, "the simulator replays at most %lld micro-batches per "
                                "pipeline; data-parallel rank %d runs %s", (long long)PT_SIM_MAX_MICROBATCHES, k, v);
                goto out;
            }
            pt_pipe_init(&p, st, mb[k]);
            rc = pt_pipe_run(&p, fk, bk, NULL, h->p2p_s, NULL, NULL, &rp);
            if (rc != 0) {
                s = rc == -2 ? pt_diag_set(d, NULL, "schedule", pt_schedule_name(st->schedule),
                                           "simulator: schedule %s deadlocked", pt_schedule_name(st->schedule))
                             : pt_diag_set(d, NULL, NULL, NULL, "out of memory in the simulator");
                goto out;
            }
            span[k] = rp.makespan;
            uniq[nu++] = k;
        }
        if (span[k] > r->pipeline_s) {
            r->pipeline_s = span[k];
            r->crit = k;
        }
    }
    r->tail_s = h->tail_s;
    r->step_time_s = r->pipeline_s + r->tail_s;
out:
    free(f), free(b), free(span), free(mb), free(uniq);
    return s;
}

/* What the recording visitor fills. */
typedef struct rec {
    pt_sim_result *r;
    const int *lo;     /* [pp + 1] first layer of each stage              */
    int cap;
    double busy[PT_SPLIT_MAX_STAGES];
} rec;

static int push(rec *x, int stage, int stream, pt_op_kind kind, int mb, int vs, double t0, double t1)
{
    pt_sim_event *e;
    if (x->r->nevents == x->cap) {
        int nc = x->cap ? 2 * x->cap : 256;
        pt_sim_event *ne = realloc(x->r->events, (size_t)nc * sizeof *ne);
        if (!ne) return 0;
        x->r->events = ne, x->cap = nc;
    }
    e = &x->r->events[x->r->nevents++];
    e->stage = stage, e->stream = stream, e->kind = kind, e->mb = mb, e->vstage = vs;
    e->layer_lo = x->lo[vs], e->layer_hi = x->lo[vs + 1];
    e->start_s = t0, e->end_s = t1;
    return 1;
}

static int record(void *ctx, int dev, const pt_pipe_op *o, double t0, double t1, double send_end, double act)
{
    rec *x = ctx;
    (void)act;
    if (!push(x, dev, 0, o->kind, o->mb, o->vs, t0, t1)) return -1;
    x->busy[dev] += t1 - t0;
    if (send_end > t1 && !push(x, dev, 1, PT_OP_SEND, o->mb, o->vs, t1, send_end)) return -1;
    return 0;
}

pt_status pt_sim_hetero_events(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                               const pt_split *sp, const pt_hetero *h, const pt_sim_hetero *r, pt_sim_result *out,
                               pt_diag *d)
{
    int S = st->pp, lo[PT_SPLIT_MAX_STAGES + 1];
    double f[PT_SPLIT_MAX_STAGES], b[PT_SPLIT_MAX_STAGES];
    int64_t mb = 0;
    pt_pipe p;
    pt_pipe_replay rp = {0, 0, NULL};
    rec x;
    pt_status s;
    int rc;
    memset(out, 0, sizeof *out);
    if ((s = pt_hetero_worker(m, c, job, st, sp, r->crit, f, b, &mb, d)) != PT_OK) return s;
    lo[0] = 0;
    for (int i = 0; i < S; i++) lo[i + 1] = lo[i] + pt_hetero_layers(m, st, sp, i);
    memset(&x, 0, sizeof x);
    x.r = out, x.lo = lo;
    out->pp = S, out->chunks = 1, out->microbatches = mb;
    out->stage_peak = calloc((size_t)S, sizeof *out->stage_peak);
    if (!out->stage_peak) goto oom;
    for (int i = 0; i < S; i++) out->stage_peak[i] = h->stage_bytes[i];
    pt_pipe_init(&p, st, mb);
    rc = pt_pipe_run(&p, f, b, NULL, h->p2p_s, record, &x, &rp);
    if (rc == -2) {
        pt_sim_free(out);
        return pt_diag_set(d, NULL, "schedule", pt_schedule_name(st->schedule), "simulator: schedule %s deadlocked",
                           pt_schedule_name(st->schedule));
    }
    if (rc != 0) goto oom;
    out->pipeline_s = r->pipeline_s, out->tail_s = r->tail_s, out->step_time_s = r->step_time_s;
    for (int i = 0; i < S; i++)
        if (x.busy[i] > out->busy_s) out->busy_s = x.busy[i];
    out->bubble_s = out->pipeline_s - out->busy_s;
    out->peak_bytes = 0;
    for (int i = 0; i < S; i++)
        if (out->stage_peak[i] > out->peak_bytes) out->peak_bytes = out->stage_peak[i];
    return PT_OK;
oom:
    pt_sim_free(out);
    return pt_diag_set(d, NULL, NULL, NULL, "out of memory in the simulator");
}
