/*
 * checkpoint.c -- checkpoint periods (Young, Daly, RFO, Daly's higher order,
 * the exact optimum for exponential failures) and the checkpoint a plan
 * writes.  The formulas and their sources are in checkpoint.h.
 */
#include "goal/checkpoint.h"
#include "base/base.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static pt_status check_input(const char *field, double v, int zero_ok, pt_diag *d)
{
    char text[64];
    if (isfinite(v) && (zero_ok ? v >= 0 : v > 0)) return PT_OK;
    snprintf(text, sizeof text, "%g", v);
    return pt_diag_set(d, NULL, field, text, "%s: %s is not a finite number %s", field, text,
                       zero_ok ? ">= 0" : "> 0");
}

/* The root v in (0, 1) of f(v) = v + ln(1 - v) + c, c > 0: f(0) = c > 0,
 * f decreases (f' = -v / (1 - v)) to -inf at 1, so the root is unique.
 * Newton from sqrt(2c) (f ~ c - v^2/2 near 0), bisection whenever a step
 * leaves the bracket. */
static double work_fraction(double c)
{
    double lo = 0.0, hi = 1.0, v = sqrt(2.0 * c);
    if (!(v < 1.0)) v = 0.5;
    for (int i = 0; i < 200; i++) {
        double f = v + log1p(-v) + c, df = -v / (1.0 - v), next;
        if (f > 0) lo = v;
        else hi = v;
        if (f == 0 || hi - lo <= 1e-16 * hi) break;
        next = df < 0 ? v - f / df : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        if (fabs(next - v) <= 1e-15 * v) {
            v = next;
            break;
        }
        v = next;
    }
    return v;
}

double pt_ckpt_optimal_period(double mtbf_s, double checkpoint_s)
{
    assert(mtbf_s > 0 && checkpoint_s > 0);
    return mtbf_s * work_fraction(checkpoint_s / mtbf_s) + checkpoint_s;
}

double pt_ckpt_efficiency(const pt_ckpt_params *p, double period_s)
{
    double mu = p->mtbf_s;
    assert(mu > 0);
    if (!(period_s > p->checkpoint_s)) return 0.0;
    return (period_s - p->checkpoint_s) / ((mu + p->downtime_s) * exp(p->restart_s / mu) * expm1(period_s / mu));
}

pt_status pt_ckpt_periods_compute(const pt_ckpt_params *p, pt_ckpt_periods *out, pt_diag *d)
{
    double mu, C, R, D, x;
    pt_status s;
    memset(out, 0, sizeof *out);
    if ((s = check_input("mtbf_s", p->mtbf_s, 0, d)) != PT_OK ||
        (s = check_input("checkpoint_s", p->checkpoint_s, 0, d)) != PT_OK ||
        (s = check_input("restart_s", p->restart_s, 1, d)) != PT_OK ||
        (s = check_input("downtime_s", p->downtime_s, 1, d)) != PT_OK)
        return s;
    mu = p->mtbf_s, C = p->checkpoint_s, R = p->restart_s, D = p->downtime_s;
    out->young_s = sqrt(2.0 * mu * C) + C;
    out->daly_s = sqrt(2.0 * (mu + D + R) * C) + C;
    out->rfo_defined = mu > D + R;
    out->rfo_s = out->rfo_defined ? sqrt(2.0 * (mu - D - R) * C) : 0.0;
    /* Daly 2006, Eq. 37: tau = sqrt(2 C mu) [...] - C is the work between
     * checkpoints; the period tau + C drops the - C */
    if (C < 2.0 * mu) {
        x = C / (2.0 * mu);
        out->daly_high_order_s = sqrt(2.0 * C * mu) * (1.0 + sqrt(x) / 3.0 + x / 9.0);
    } else {
        out->daly_high_order_s = mu + C;
    }
    out->optimal_s = pt_ckpt_optimal_period(mu, C);
    out->optimal_efficiency = pt_ckpt_efficiency(p, out->optimal_s);
    return PT_OK;
}

/* ---- the checkpoint of a plan ------------------------------------------------- */

const char *pt_ckpt_mode_name(pt_ckpt_mode m)
{
    static const char *const names[] = {"sync", "async", "memory"};
    return (unsigned)m < 3 ? names[m] : "?";
}

int pt_ckpt_mode_parse(const char *s, pt_ckpt_mode *out)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, pt_ckpt_mode_name((pt_ckpt_mode)i))) {
            *out = (pt_ckpt_mode)i;
            return 1;
        }
    return 0;
}

void pt_ckpt_plan(const pt_model *mdl, const pt_job *job, const pt_plan *p, const pt_cluster *c, pt_ckpt_mode m,
                  double storage_GBps, pt_ckpt_cost *out)
{
    const pt_strategy *st = &p->st;
    pt_memory mem = p->cost.mem;
    double w, o, repl = (double)st->dp * (double)st->cp, peer_GBps;
    assert(storage_GBps > 0 && c->devices > 0 && c->nlevels > 0);
    memset(out, 0, sizeof *out);
    if (st->offload != PT_OFF_NONE) {
        pt_strategy on = *st;
        pt_job pj = *job;
        pt_cost k;
        on.offload = PT_OFF_NONE;
        /* priced as the engine the plan is attributed to (a search under
         * --engine any passes PT_ENGINE_ANY, which prices nothing) */
        if (pj.engine == PT_ENGINE_ANY) pj.engine = pt_engine_of(mdl, job, st);
        if (pj.engine == PT_ENGINE_ANY) pj.engine = PT_ENGINE_MEGATRON;
        if (pt_cost_eval(mdl, c, &pj, &on, &k) == PT_OK) mem = k.mem;
    }
    w = (double)mem.weights, o = (double)mem.optimizer;
    out->rank_bytes = mem.weights + mem.optimizer;
    /* replicas' copies are written once: weights are replicated over the
     * data-parallel (and context-parallel) ranks unless ZeRO-3 shards them,
     * optimizer states unless ZeRO >= 1 does */
    if (repl < 1) repl = 1;
    out->stored_bytes = (double)c->devices * ((st->zero >= 3 ? w : w / repl) + (st->zero >= 1 ? o : o / repl));
    out->snapshot_s = (double)out->rank_bytes / (c->dev.host_bw_GBps * 1e9);
    out->storage_s = out->stored_bytes / (storage_GBps * 1e9);
    /* a peer on another node: the outermost level's bandwidth per device */
    peer_GBps = c->level[c->nlevels - 1].bw_GBps;
    if (c->dev.host_bw_GBps < peer_GBps) peer_GBps = c->dev.host_bw_GBps;
    /* every rank reads its own state back: replicas read the same bytes */
    out->reload_storage_s = (double)out->rank_bytes * (double)c->devices / (storage_GBps * 1e9);
    if (out->reload_storage_s < out->snapshot_s) out->reload_storage_s = out->snapshot_s;
    out->reload_peer_s = (double)out->rank_bytes / (peer_GBps * 1e9);
    switch (m) {
    case PT_CKPT_SYNC:
        out->blocking_s = out->snapshot_s + out->storage_s;
        out->drain_s = 0;
        break;
    case PT_CKPT_ASYNC:
        out->blocking_s = out->snapshot_s;
        out->drain_s = out->storage_s;
        break;
    case PT_CKPT_MEMORY:
        out->blocking_s = out->snapshot_s;
        out->drain_s = out->reload_peer_s; /* the same bytes, host to the peer's host */
        break;
    }
}
