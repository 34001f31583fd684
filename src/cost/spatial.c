/*
 * spatial.c -- a step of a convolutional network with each sample cut
 * into slabs over a group of devices, halo exchange between them (see
 * spatial.h).
 */
#include "cost/spatial.h"
#include "base/base.h"
#include "cost/graph_cost.h"
#include "cost/roofline.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A layer's heights that the cut must respect: image layers of more than
 * one row (a loss or classifier of height 1 is split by share, not by
 * rows). */
static int cut_height(const pt_glayer *l) { return !l->seq && l->h > 1; }

int pt_spatial_max_p(const pt_graph *g)
{
    int p = 1 << 20;
    for (int i = 0; i < g->n; i++) {
        const pt_glayer *l = &g->l[i];
        if (l->seq) return 0;
        if (!cut_height(l)) continue;
        while (p > 1 && l->h % p) p /= 2;
    }
    return p;
}

/* Rows (planes) a convolution reads from each neighbour: (k - 1) / 2 for a
 * kernel of extent k along the cut, k from its taps (a cube: 3D, else a
 * square: 2D; anything else, e.g. 1x7, is read as 1 x taps: no halo). */
static double halo_rows(const pt_graph *g, const pt_glayer *l)
{
    double cin, taps;
    long k;
    if (l->op != PT_G_CONV || l->ngemm < 1 || l->nin < 1) return 0;
    cin = (double)g->l[l->in[0]].c;
    if (!(cin > 0)) return 0;
    taps = l->gk[0] * l->gbatch[0] / cin;
    k = lround(cbrt(taps));
    if (k > 1 && fabs((double)(k * k * k) - taps) < 0.5) return (double)((k - 1) / 2);
    k = lround(sqrt(taps));
    if (k > 1 && fabs((double)(k * k) - taps) < 0.5) return (double)((k - 1) / 2);
    return 0;
}

pt_status pt_spatial_step(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, int p, double b, double k,
                          double push_samples, pt_spatial_cost *out, pt_diag *d)
{
    pt_roofline r;
    pt_ps_in in;
    pt_ps_out ex;
    double fwd = 0, act = 0, params = pt_graph_params(g), calls = 0, intra, hide, comm, rho, dense;
    char v[32];
    int maxp;
    assert(g && c && out && b > 0);
    memset(out, 0, sizeof *out);
    snprintf(v, sizeof v, "%d", p);
    maxp = pt_spatial_max_p(g);
    if (maxp == 0 && p > 1)
        return pt_diag_set(d, NULL, "spatial", v, "%s has sequence layers: spatial partitioning cuts images and volumes",
                           g->name);
    if (p < 1 || c->devices % p)
        return pt_diag_set(d, NULL, "spatial", v, "a group of %s devices does not divide the %lld devices", v,
                           (long long)c->devices);
    for (int i = 0; i < g->n; i++)
        if (cut_height(&g->l[i]) && g->l[i].h % p)
            return pt_diag_set(d, NULL, "spatial", v,
                               "%s: %s slabs do not divide layer %s's %lld rows (at most %d)", g->name, v,
                               g->l[i].name, (long long)g->l[i].h, maxp);
    out->p = p;
    out->groups = c->devices / p;
    pt_roofline_init(&c->dev, dtype, &r);
    for (int i = 0; i < g->n; i++) {
        const pt_glayer *l = &g->l[i];
        double rows = halo_rows(g, l);
        fwd += pt_glayer_fwd_s(l, &c->dev, dtype, b / p);
        act += l->act_bytes * b / p;
        if (l->params > 0) calls++;
        if (p > 1 && rows > 0) {
            const pt_glayer *a = &g->l[l->in[0]];
            double side = 2.0 * (double)a->c * (double)a->w * rows * b; /* bytes, one neighbour */
            /* forward: the input's halo; backward: the input gradient's */
            out->halo_s += 2.0 * pt_p2p_time(c, (int64_t)(2.0 * side), p, 1);
            out->halo_bytes += 2.0 * 2.0 * side;
        }
        /* batch norm (a conv's norm streams 4 more bytes per element, or a
         * norm layer): its statistics summed over the group */
        if (p > 1 && !l->seq &&
            ((l->op == PT_G_CONV && l->mem_bytes >= 4.0 * (double)l->c * (double)l->h * (double)l->w) ||
             l->op == PT_G_NORM))
            out->norm_s += 2.0 * pt_coll_time(c, PT_ALLREDUCE, 8 * (int64_t)l->c, p, 1);
    }
    out->compute_s = 3.0 * fwd;
    out->optimizer_s = pt_roofline_ew_s(&r, 16.0 * params);
    /* gradients over every device, the fastest scheme, hidden by the backward */
    rho = pt_ps_push_fraction(g, push_samples > 0 ? push_samples : b, &dense);
    pt_ps_cluster(c, 2.0 * params, k, rho, dense, &intra, &in, &ex);
    out->sync = ex.best;
    comm = intra + ex.time_s[ex.best];
    if (calls < 1) calls = 1;
    hide = 2.0 * fwd * (1.0 - 1.0 / calls);
    out->dp_comm_s = c->devices > 1 ? fmax(comm - hide, comm / calls) : 0.0;
    out->step_s = out->compute_s + out->halo_s + out->norm_s + out->dp_comm_s + out->optimizer_s;
    out->mem_bytes = 16.0 * params + act;
    return PT_OK;
}
