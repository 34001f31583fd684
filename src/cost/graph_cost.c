/*
 * graph_cost.c -- a layer graph's layers on one device and its
 * data-parallel training step (see graph_cost.h).
 */
#include "cost/graph_cost.h"
#include "cost/roofline.h"

#include <assert.h>
#include <math.h>
#include <string.h>

double pt_glayer_fwd_s(const pt_glayer *l, const pt_device *dev, pt_dtype dtype, double samples)
{
    pt_roofline r;
    double f = 0, ops = 1.0 + l->ngemm;
    pt_roofline_init(dev, dtype, &r);
    /* separate GEMMs one after another (batch 1 each, on the ramp at its own size) */
    for (int k = 0; k < l->ngemm; k++)
        f += l->gserial[k] * l->gbatch[k] *
             pt_roofline_gemm_s(&r, r.peak, l->gm[k] * samples, l->gn[k], l->gk[k], 1.0, 2.0);
    f += pt_roofline_ew_s(&r, l->mem_bytes * samples);
    /* a layer is at least as long as its launches (LSTM steps launch each) */
    for (int k = 0; k < l->ngemm; k++) ops += l->gserial[k] - 1.0;
    return pt_roofline_floor_s(&r, f, ops);
}

void pt_graph_step(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, int64_t per_device,
                   pt_graph_cost *out)
{
    pt_graph_step_dp(g, c, dtype, per_device, NULL, out);
}

void pt_graph_step_dp(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, int64_t per_device,
                      const pt_dp_impl *impl, pt_graph_cost *out)
{
    const pt_device *dev = &c->dev;
    double b = (double)per_device, fwd = 0, bwd = 0, params = pt_graph_params(g), act = 0, ar, hide, calls;
    pt_roofline r;
    int layers = 0;
    assert(g && c && out && c->devices >= 1);
    memset(out, 0, sizeof *out);
    pt_roofline_init(dev, dtype, &r);
    for (int i = 0; i < g->n; i++) {
        const pt_glayer *l = &g->l[i];
        double f = pt_glayer_fwd_s(l, dev, dtype, b);
        fwd += f;
        bwd += 2.0 * f;
        act += l->act_bytes * b;
        if (l->params > 0) layers++;
    }
    /* gradients: hierarchical ring all-reduce, in `calls` pieces that go
     * out under the backward (one bucket per layer with parameters, or one
     * fused call per Horovod cycle) */
    ar = pt_coll_time(c, PT_ALLREDUCE, (int64_t)(2.0 * params), c->devices, 1);
    calls = layers > 0 ? layers : 1;
    if (impl && impl->cycle_s > 0) calls = fmax(1.0, ceil(bwd / impl->cycle_s));
    if (impl && impl->flat_ring && c->devices > 1) {
        /* one ring through every device: each call waits 2 (n - 1) hops of
         * the slowest link it crosses */
        const pt_level *l = &c->level[pt_coll_level(c, c->devices, 1)];
        ar += calls * 2.0 * (double)(c->devices - 1) * l->latency_us * 1e-6;
    }
    if (impl && impl->after_backward) {
        out->dp_comm_s = ar;
    } else {
        hide = bwd * (1.0 - 1.0 / calls);
        out->dp_comm_s = ar - hide > ar / calls ? ar - hide : ar / calls;
    }
    out->optimizer_s = pt_roofline_ew_s(&r, 16.0 * params);
    out->compute_s = fwd + bwd;
    out->step_time_s = out->compute_s + out->dp_comm_s + out->optimizer_s;
    out->samples_per_s = b * (double)c->devices / out->step_time_s;
    out->memory_bytes = (int64_t)(params * 16.0 + act);
}
