/*
 * gplan.c -- data-parallel plans of a layer graph for one global batch,
 * with spatial partitioning and the gradient exchange chosen (see gplan.h).
 */
#include "plan/gplan.h"
#include "base/base.h"
#include "cost/graph_cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pt_gplan_string(const pt_gplan *p, char *buf, size_t n)
{
    snprintf(buf, n, "p=%d dp=%lld mbs=%.0f k=%lld, %s", p->p, (long long)p->dp, p->micro, (long long)p->k,
             pt_ps_scheme_name(p->cost.sync));
}

static int better(const pt_gplan *a, const pt_gplan *b)
{
    if (a->fits != b->fits) return a->fits > b->fits;
    if (a->step_s != b->step_s) return a->step_s < b->step_s;
    if (a->p != b->p) return a->p < b->p;
    return a->k < b->k;
}

static int cmp(const void *x, const void *y)
{
    const pt_gplan *a = x, *b = y;
    return better(a, b) ? -1 : better(b, a) ? 1 : 0;
}

pt_status pt_gplan_search(const pt_graph *g, const pt_cluster *c0, pt_dtype dtype, int64_t global_batch,
                          double cpu_machines, pt_gplan_result *r, pt_diag *d)
{
    pt_cluster c = *c0;
    int64_t node = c.level[0].size < c.devices ? c.level[0].size : c.devices;
    int maxp = pt_spatial_max_p(g);
    pt_status st;
    char v[32];
    memset(r, 0, sizeof *r);
    pt_graph_device(&c0->dev, &c.dev);
    if (maxp < 1) maxp = 1;
    for (int p = 1; p <= maxp && p <= node && c.devices % p == 0; p *= 2) {
        int64_t dp = c.devices / p;
        pt_gplan best;
        int have = 0;
        if (global_batch % dp) continue;
        /* micro-batches: the fewest that fit (more only cost time) */
        for (int64_t k = 1; k <= global_batch / dp; k *= 2) {
            pt_gplan q;
            double gb = (double)(global_batch / dp);
            if ((global_batch / dp) % k) break;
            memset(&q, 0, sizeof q);
            q.p = p, q.dp = dp, q.k = k, q.micro = gb / (double)k;
            if ((st = pt_spatial_step(g, &c, dtype, p, q.micro, cpu_machines, gb, &q.cost, d)) != PT_OK) return st;
            r->evaluated++;
            q.step_s = (double)k * (q.cost.compute_s + q.cost.halo_s + q.cost.norm_s) + q.cost.dp_comm_s +
                       q.cost.optimizer_s;
            q.samples_per_s = (double)global_batch / q.step_s;
            q.mem_GiB = q.cost.mem_bytes / 1073741824.0;
            q.fits = q.cost.mem_bytes <= c.dev.memory_GiB * 1073741824.0;
            if (!have || better(&q, &best)) best = q, have = 1;
            if (q.fits) break;
        }
        if (!have || r->n >= PT_GPLAN_MAX) continue;
        {
            double per = best.micro / best.p, dense;
            double rho = pt_ps_push_fraction(g, best.micro * (double)best.k, &dense);
            if ((st = pt_ps_step_price(g, &c, dtype, per >= 1 ? (int64_t)per : 1, cpu_machines,
                                       rho, dense, &best.xchg, d)) !=
                PT_OK)
                return st;
        }
        r->plan[r->n++] = best;
    }
    if (!r->n) {
        snprintf(v, sizeof v, "%lld", (long long)global_batch);
        return pt_diag_set(d, NULL, "global-batch", v,
                           "--global-batch %s cannot be split evenly over %lld devices in groups of 1 to %d "
                           "(each group needs a whole number of samples)",
                           v, (long long)c.devices, maxp < (int)node ? maxp : (int)node);
    }
    qsort(r->plan, (size_t)r->n, sizeof *r->plan, cmp);
    return PT_OK;
}
