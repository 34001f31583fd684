/*
 * ttt.c -- statistical efficiency and the step time of a layer graph (see
 * ttt.h).
 *
 * A layer's GEMMs run at the device's GEMM efficiency on the roofline (the
 * same model as the transformer's layers, src/cost/cost.c): each of M*b x N x
 * K, repeated `batch` times and `serial` times in sequence (an LSTM's
 * recurrent step cannot start before the last ends, so small per-step GEMMs
 * stay small); element-wise bytes move at the memory efficiency; each
 * operator costs the host kernel_us to launch, and a layer cannot run faster
 * than its launches.  Backward is twice forward.  Gradients (2-byte, mixed
 * precision) are all-reduced hierarchically over the data-parallel group,
 * bucket by bucket under the backward pass; momentum SGD/Adam updates stream
 * 16 bytes per parameter.
 */
#include "goal/ttt.h"
#include "base/base.h"

#include <math.h>
#include <string.h>

pt_status pt_statef_fit(const double *batch, const double *epochs, int n, pt_statef *out, pt_diag *d)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, a, b, mx, my, den, res = 0, s2;
    memset(out, 0, sizeof *out);
    if (n < 2) return pt_diag_set(d, NULL, "batch", "", "fitting needs at least two (batch, steps) points");
    for (int i = 0; i < n; i++) {
        if (!(batch[i] > 0) || !(epochs[i] > 0))
            return pt_diag_set(d, NULL, "batch", "", "point %d: batch and epochs must be > 0", i + 1);
        sx += batch[i], sy += epochs[i];
    }
    mx = sx / n, my = sy / n;
    for (int i = 0; i < n; i++) {
        sxx += (batch[i] - mx) * (batch[i] - mx);
        sxy += (batch[i] - mx) * (epochs[i] - my);
    }
    if (sxx <= 0) return pt_diag_set(d, NULL, "batch", "", "fitting needs at least two different batch sizes");
    b = sxy / sxx;      /* slope: e_min / b_noise */
    a = my - b * mx;    /* intercept: e_min      */
    for (int i = 0; i < n; i++) {
        double r = epochs[i] - (a + b * batch[i]);
        res += r * r;
    }
    s2 = n > 2 ? res / (n - 2) : 0;
    den = sxx;
    out->n = n;
    out->e_min = a;
    out->b_noise = b > 0 ? a / b : INFINITY;
    {
        double se_b = sqrt(s2 / den), se_a = sqrt(s2 * (1.0 / n + mx * mx / den));
        out->e_min_se = se_a;
        /* b_noise = a/b: first-order error propagation */
        out->b_noise_se = b > 0 ? out->b_noise * sqrt((se_a / a) * (se_a / a) + (se_b / b) * (se_b / b)) : INFINITY;
    }
    if (!(a > 0)) return pt_diag_set(d, NULL, "epochs", "", "the fit gives no positive minimum epochs");
    return PT_OK;
}

double pt_statef_epochs(const pt_statef *s, double global_batch)
{
    return s->e_min * (1.0 + global_batch / s->b_noise);
}

int pt_statef_builtin(const char *graph, pt_statef *out)
{
    /* Fitted by pt_statef_fit to the epochs-to-target of the MLPerf Training
     * v0.5/v0.6 GPU rows of ../shared/data/validation/time_to_train_runs.csv
     * with an even CSV line (odd lines held out), see README. */
    static const struct { const char *name; pt_statef s; } tab[] = {
        {"resnet-50", {61.84, 138477.0, 0, 0, 12}},     /* images */
        {"gnmt", {2.611, 6034.0, 0, 0, 9}},              /* sentence pairs */
        {"transformer-big", {3.250, 39217.0, 0, 0, 5}},  /* sentence pairs (tokens / 28) */
    };
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
        if (!strcmp(tab[i].name, graph)) {
            *out = tab[i].s;
            return 1;
        }
    return 0;
}

static double gemm_time(const pt_device *dev, double peak, double m, double n, double k, double bytes_el)
{
    double flops = 2.0 * m * n * k, eff = dev->gemm_eff * flops / (flops + dev->gemm_half_GFLOP * 1e9);
    double tc = flops / (peak * eff), tm = bytes_el * (m * k + k * n + m * n) / (dev->memory_bw_GBps * 1e9 * dev->mem_eff);
    return tc > tm ? tc : tm;
}

double pt_glayer_fwd_s(const pt_glayer *l, const pt_device *dev, pt_dtype dtype, double samples)
{
    double peak = pt_device_tflops(dev, dtype) * 1e12, bw = dev->memory_bw_GBps * 1e9 * dev->mem_eff;
    double f = 0, ops = 1.0 + l->ngemm;
    for (int k = 0; k < l->ngemm; k++)
        f += l->gserial[k] * l->gbatch[k] * gemm_time(dev, peak, l->gm[k] * samples, l->gn[k], l->gk[k], 2.0);
    f += l->mem_bytes * samples / bw;
    /* a layer is at least as long as its launches (LSTM steps launch each) */
    for (int k = 0; k < l->ngemm; k++) ops += l->gserial[k] - 1.0;
    return f > ops * dev->kernel_us * 1e-6 ? f : ops * dev->kernel_us * 1e-6;
}

void pt_graph_step(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, int64_t per_device,
                   pt_graph_cost *out)
{
    const pt_device *dev = &c->dev;
    double b = (double)per_device, bw = dev->memory_bw_GBps * 1e9 * dev->mem_eff;
    double fwd = 0, bwd = 0, params = pt_graph_params(g), act = 0, ar, hide;
    int layers = 0;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < g->n; i++) {
        const pt_glayer *l = &g->l[i];
        double f = pt_glayer_fwd_s(l, dev, dtype, b);
        fwd += f;
        bwd += 2.0 * f;
        act += l->act_bytes * b;
        if (l->params > 0) layers++;
    }
    /* gradients: hierarchical ring all-reduce, bucketed under the backward */
    ar = pt_coll_time(c, PT_ALLREDUCE, (int64_t)(2.0 * params), c->devices, 1);
    hide = bwd * (1.0 - 1.0 / (layers > 0 ? layers : 1));
    out->dp_comm_s = ar - hide > ar / (layers > 0 ? layers : 1) ? ar - hide : ar / (layers > 0 ? layers : 1);
    out->optimizer_s = 16.0 * params / bw;
    out->compute_s = fwd + bwd;
    out->step_time_s = out->compute_s + out->dp_comm_s + out->optimizer_s;
    out->samples_per_s = b * (double)c->devices / out->step_time_s;
    out->memory_bytes = (int64_t)(params * 16.0 + act);
}
