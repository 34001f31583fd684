/*
 * graph_cost.c -- a layer graph's layers on one device and its
 * data-parallel training step (see graph_cost.h).
 */
#include "cost/graph_cost.h"
#include "cost/roofline.h"

#include <assert.h>
#include <math.h>
#include <string.h>

int pt_graph_device(const pt_device *dev, pt_device *out)
{
    pt_device eff;
    pt_diag d;
    assert(dev && out);
    if (out != dev) *out = *dev;
    if (!strncmp(dev->name, "v100", 4)) return 0;
    /* the catalog always holds it (tests/test_ttt.c checks); if it did not,
     * the device keeps its own constants */
    if (pt_device_builtin(PT_GRAPH_EFF_DEVICE, &eff, &d) != PT_OK) return 0;
    out->gemm_eff = eff.gemm_eff;
    out->gemm_half_GFLOP = eff.gemm_half_GFLOP;
    out->mem_eff = eff.mem_eff;
    out->kernel_us = eff.kernel_us;
    return 1;
}

/* The ReLU bytes a fused kernel saves (pt_dp_impl.fused_bn_relu): a conv
 * with batch norm and ReLU streams 4 + 4 bytes per output element
 * (workload/graph.c), fused 4; an add with ReLU 2 (inputs + 1) + 4, fused
 * 2 (inputs + 1).  Any other layer saves nothing. */
static double fused_relu_bytes(const pt_glayer *l)
{
    double e = (double)l->c * (double)l->h * (double)l->w;
    if (l->seq || !(e > 0)) return 0;
    if (l->op == PT_G_CONV && l->mem_bytes >= 8.0 * e) return 4.0 * e;
    if (l->op == PT_G_ADD && l->mem_bytes >= 2.0 * (l->nin + 1.0) * e + 4.0 * e) return 4.0 * e;
    return 0;
}

static double glayer_fwd_s(const pt_glayer *l, const pt_device *dev, pt_dtype dtype, double samples, int fused,
                           double gap_us)
{
    pt_roofline r;
    double f = 0, ops = 1.0 + l->ngemm;
    pt_roofline_init(dev, dtype, &r);
    /* separate GEMMs one after another (batch 1 each, on the ramp at its own size) */
    for (int k = 0; k < l->ngemm; k++)
        f += l->gserial[k] * l->gbatch[k] *
             pt_roofline_gemm_s(&r, r.peak, l->gm[k] * samples, l->gn[k], l->gk[k], 1.0, 2.0);
    f += pt_roofline_ew_s(&r, (l->mem_bytes - (fused ? fused_relu_bytes(l) : 0.0)) * samples);
    /* a layer is at least as long as its launches (LSTM steps launch each) */
    for (int k = 0; k < l->ngemm; k++) ops += l->gserial[k] - 1.0;
    return pt_roofline_floor_s(&r, f + ops * gap_us * 1e-6, ops);
}

double pt_glayer_fwd_s(const pt_glayer *l, const pt_device *dev, pt_dtype dtype, double samples)
{
    return glayer_fwd_s(l, dev, dtype, samples, 0, 0.0);
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
        double f = glayer_fwd_s(l, dev, dtype, b, impl && impl->fused_bn_relu, impl ? impl->kernel_gap_us : 0.0);
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
