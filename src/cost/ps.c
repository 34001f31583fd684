/*
 * ps.c -- gradient exchange by all-reduce, parameter servers and BytePS,
 * dense or sparse (see ps.h).
 */
#include "cost/ps.h"
#include "base/base.h"
#include "cost/graph_cost.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const scheme_names[PT_PS_COUNT] = {"all-reduce", "colocated-ps", "cpu-ps", "byteps"};

const char *pt_ps_scheme_name(pt_ps_scheme s)
{
    return s >= 0 && s < PT_PS_COUNT ? scheme_names[s] : "?";
}

double pt_ps_allreduce_s(double n, double model_bytes, double nic_Bps)
{
    assert(n >= 1 && nic_Bps > 0);
    return 2.0 * (n - 1.0) * model_bytes / (n * nic_Bps);
}

double pt_ps_servers_s(double n, double k, double model_bytes, double nic_Bps)
{
    assert(n >= 1 && nic_Bps > 0);
    if (!(k > 0)) return INFINITY;
    return fmax(model_bytes / nic_Bps, n * model_bytes / (k * nic_Bps));
}

double pt_ps_byteps_s(double n, double k, double model_bytes, double nic_Bps)
{
    assert(n >= 1 && k >= 0 && nic_Bps > 0);
    if (k >= n) return model_bytes / nic_Bps;
    return 2.0 * n * (n - 1.0) * model_bytes / ((n * n + k * n - 2.0 * k) * nic_Bps);
}

void pt_ps_time(const pt_ps_in *in, pt_ps_out *out)
{
    double n = in->n, k = in->k, B = in->nic_Bps, M = in->model_bytes;
    double rho = in->push_frac > 0 ? fmin(in->push_frac, 1.0) : 1.0;
    double xo = in->index_over >= 1 ? in->index_over : 1.0;
    double dl = rho < 1 ? fmin(fmax(in->dense_frac, 0.0), rho) : 1.0, sg = rho - dl;
    double p, q, m, c, x;
    assert(n >= 1 && k >= 0 && B > 0 && M >= 0);
    memset(out, 0, sizeof *out);
    /* what a worker pushes and pulls; dense: p = q = M */
    p = rho < 1 ? (dl + sg * xo) * M : M;
    q = rho < 1 ? fmin(M, (dl + fmin(1.0 - dl, n * sg) * xo) * M) : M;
    out->push_bytes = p, out->pull_bytes = q;
    /* all-reduce: the dense part by a ring; the sparse part by a ring too,
     * or as an all-gather of the pushes, whichever is less */
    out->time_s[PT_PS_ALLREDUCE] =
        (2.0 * (n - 1.0) / n * dl * M + fmin(2.0 * (n - 1.0) / n * (1.0 - dl) * M, (n - 1.0) * sg * xo * M)) / B;
    /* colocated: every machine is a worker and one of n shards; out and in
     * each carry (n - 1)/n of its push and of its pull */
    out->time_s[PT_PS_COLOCATED] = (n - 1.0) / n * (p + q) / B;
    /* servers on the CPU machines only: a worker moves p out and q in, a
     * server n p / k in and n q / k out */
    out->time_s[PT_PS_SERVERS] = k > 0 ? fmax(fmax(p, q), n * fmax(p, q) / k) / B : INFINITY;
    /* BytePS: the CPU machines sum a share x, the GPU machines the rest.
     * GPU machine, busier direction: x max(p, q) + (1 - x) c with c the
     * colocated bytes; CPU machine: n x max(p, q) / k.  The first falls
     * with x where c > max(p, q), the second rises: the optimum is where
     * they meet, or x = 1. */
    m = fmax(p, q);
    c = (n - 1.0) / n * (p + q);
    if (!(k > 0) || !(c > m) || !(m > 0)) x = 0;
    else x = fmin(1.0, c / (c + n * m / k - m));
    out->cpu_share = x;
    out->time_s[PT_PS_BYTEPS] = fmax(x * m + (1.0 - x) * c, k > 0 ? n * x * m / k : 0.0) / B;
    out->best = PT_PS_ALLREDUCE;
    for (int s = 1; s < PT_PS_COUNT; s++)
        if (out->time_s[s] < out->time_s[out->best] * (1.0 - 1e-9)) out->best = (pt_ps_scheme)s;
}

double pt_ps_push_fraction(const pt_graph *g, double samples, double *dense_frac)
{
    double total = 0, pushed = 0, dense = 0;
    assert(g && samples > 0);
    for (int i = 0; i < g->n; i++) {
        const pt_glayer *l = &g->l[i];
        double t = l->seq && l->t > 0 ? (double)l->t : 1.0;
        total += l->params;
        if (l->op == PT_G_EMBEDDING && l->d > 0 && l->params > 0) {
            double vocab = l->params / (double)l->d;
            pushed += fmin(vocab, t * samples) * (double)l->d;
        } else if (l->op == PT_G_LOSS && l->ngemm > 0 && l->params > 0 && l->gk[0] > 0) {
            double classes = l->params / l->gk[0];
            pushed += fmin(classes, l->gn[0] + t * samples) * l->gk[0];
        } else {
            pushed += l->params;
            dense += l->params;
        }
    }
    if (dense_frac) *dense_frac = total > 0 ? dense / total : 1.0;
    return total > 0 ? fmin(1.0, pushed / total) : 1.0;
}

int64_t pt_ps_cluster(const pt_cluster *c, double grad_bytes, double k, double push_frac, double dense_frac,
                      double *intra_s, pt_ps_in *in, pt_ps_out *ex)
{
    const pt_level *outer = &c->level[c->nlevels - 1];
    int64_t node = c->level[0].size < c->devices ? c->level[0].size : c->devices;
    double eff = outer->efficiency > 0 ? outer->efficiency : 1.0;
    int64_t machines = (c->devices + node - 1) / node;
    *intra_s = node > 1 ? pt_coll_time(c, PT_ALLREDUCE, (int64_t)grad_bytes, node, 1) : 0.0;
    *in = (pt_ps_in){.n = (double)machines, .k = k, .model_bytes = grad_bytes,
                     .nic_Bps = outer->bw_GBps * eff * (double)node * 1e9, .push_frac = push_frac,
                     .index_over = 1.0, .dense_frac = dense_frac};
    pt_ps_time(in, ex);
    return machines;
}

pt_status pt_ps_step_price(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, int64_t per_device, double k,
                           double push_frac, double dense_frac, pt_ps_step *out, pt_diag *d)
{
    pt_graph_cost gc;
    pt_ps_in in;
    double bwd, hide, calls = 0;
    char v[32];
    assert(g && c && out && c->devices >= 1 && per_device >= 1);
    memset(out, 0, sizeof *out);
    if (!(k >= 0) || k > 1e6) {
        snprintf(v, sizeof v, "%g", k);
        return pt_diag_set(d, NULL, "cpu-machines", v, "CPU machines must be 0..1000000, not %s", v);
    }
    if (!(push_frac > 0 && push_frac <= 1)) {
        snprintf(v, sizeof v, "%g", push_frac);
        return pt_diag_set(d, NULL, "push-fraction", v, "the pushed fraction must be in (0, 1], not %s", v);
    }
    if (!(dense_frac >= 0 && dense_frac <= push_frac)) {
        snprintf(v, sizeof v, "%g", dense_frac);
        return pt_diag_set(d, NULL, "dense-fraction", v, "the dense part of the push must be in [0, push], not %s", v);
    }
    pt_graph_step(g, c, dtype, per_device, &gc);
    out->compute_s = gc.compute_s;
    out->optimizer_s = gc.optimizer_s;
    out->grad_bytes = 2.0 * pt_graph_params(g);
    out->machines = pt_ps_cluster(c, out->grad_bytes, k, push_frac, dense_frac, &out->intra_s, &in, &out->ex);
    out->nic_GBps = in.nic_Bps / 1e9;
    /* the backward hides all but the last bucket's share, as graph_cost.c */
    for (int i = 0; i < g->n; i++) calls += g->l[i].params > 0 ? 1.0 : 0.0;
    if (calls < 1) calls = 1;
    bwd = gc.compute_s * 2.0 / 3.0;
    hide = bwd * (1.0 - 1.0 / calls);
    out->best = PT_PS_ALLREDUCE;
    for (int s = 0; s < PT_PS_COUNT; s++) {
        double t = out->ex.time_s[s];
        if (!isfinite(t)) {
            out->comm_s[s] = out->exposed_s[s] = out->step_s[s] = INFINITY;
            continue;
        }
        out->comm_s[s] = out->intra_s + t;
        out->exposed_s[s] = fmax(out->comm_s[s] - hide, out->comm_s[s] / calls);
        out->step_s[s] = out->compute_s + out->exposed_s[s] + out->optimizer_s;
        if (out->step_s[s] < out->step_s[out->best] * (1.0 - 1e-9)) out->best = (pt_ps_scheme)s;
    }
    /* why: the winner against the runner-up, in the terms of the analysis */
    {
        pt_ps_scheme b = out->best;
        double ar = out->ex.time_s[PT_PS_ALLREDUCE];
        if (out->machines <= 1)
            snprintf(out->why, sizeof out->why,
                     "one machine: gradients are summed over its own links, no NIC is crossed");
        else if (b == PT_PS_ALLREDUCE && !(k > 0) && push_frac < 0.9995)
            snprintf(out->why, sizeof out->why,
                     "no CPU machines, and shards on the GPU machines would move %.1f MB per NIC where the "
                     "all-reduce (a ring on the dense part, an all-gather of the touched rows) moves %.1f MB",
                     out->ex.time_s[PT_PS_COLOCATED] * in.nic_Bps / 1e6, ar * in.nic_Bps / 1e6);
        else if (b == PT_PS_ALLREDUCE && !(k > 0))
            snprintf(out->why, sizeof out->why,
                     "no CPU machines: a parameter server on the GPU machines moves the same 2(n-1)/n x M "
                     "bytes per NIC as the ring (%.1f MB), so all-reduce, which needs no server process, is kept",
                     2.0 * ((double)out->machines - 1.0) / (double)out->machines * out->grad_bytes / 1e6);
        else if (b == PT_PS_ALLREDUCE)
            snprintf(out->why, sizeof out->why, "the %g CPU machines do not relieve the GPU machines' NICs "
                     "enough to beat the ring (%.2f ms between machines)", k, ar * 1e3);
        else if (b == PT_PS_BYTEPS)
            snprintf(out->why, sizeof out->why,
                     "the %g CPU machines take %.0f%% of the summation, so each GPU machine's NIC carries "
                     "%.1f MB instead of the ring's %.1f MB (%.2f against %.2f ms between machines)",
                     k, 100.0 * out->ex.cpu_share, out->ex.time_s[b] * in.nic_Bps / 1e6, ar * in.nic_Bps / 1e6,
                     out->ex.time_s[b] * 1e3, ar * 1e3);
        else if (b == PT_PS_SERVERS)
            snprintf(out->why, sizeof out->why,
                     "%g CPU machines for %lld GPU machines: each worker sends and receives its push once "
                     "(%.2f ms between machines) where the ring sends it twice (%.2f ms)",
                     k, (long long)out->machines, out->ex.time_s[b] * 1e3, ar * 1e3);
        else
            snprintf(out->why, sizeof out->why,
                     "pushes of %.0f%% of the gradient: the shards on the GPU machines move %.1f MB per NIC "
                     "where a sparse all-reduce moves %.1f MB",
                     100.0 * push_frac, out->ex.time_s[b] * in.nic_Bps / 1e6, ar * in.nic_Bps / 1e6);
    }
    if (push_frac < 0.9995 && out->machines > 1) {
        size_t n = strlen(out->why);
        snprintf(out->why + n, sizeof out->why - n,
                 "; each worker pushes %.1f%% of the gradient (the embedding and softmax rows its batch touched)",
                 100.0 * push_frac);
    }
    return PT_OK;
}
