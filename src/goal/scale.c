/*
 * scale.c -- data parallelism alone against hybrid parallelism, in time to
 * train, as the device count grows (see scale.h).
 */
#include "goal/scale.h"
#include "base/base.h"
#include "cost/graph_cost.h"
#include "plan/search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pal et al. 2019, abstract and Section "Results": hybrid parallelism's
 * projected end-to-end gain over the best data parallelism at scale. */
static double paper_gain(const char *name)
{
    if (!strcmp(name, "inception-v3")) return 0.265;
    if (!strcmp(name, "gnmt")) return 0.08;
    if (!strcmp(name, "biglstm")) return 0.22;
    return 0;
}

/* Worker batches tried: powers of two from 1 to 256 samples per device
 * (MLPerf's V100 submissions ran ResNet-50 at 52..208 images and GNMT at
 * 32..128 sentence pairs per GPU).  A worker of m devices may take fewer
 * samples than m x 1 ... down to 1: that is how hybrid parallelism reaches
 * a device count with a smaller global batch. */
#define NPD 12 /* 2^0 .. 2^11 = 8 x 256 */
static double worker_batch(int i) { return ldexp(1.0, i); }

/* The cluster of n devices: whole nodes, or part of one node. */
static int cluster_of(const pt_cluster *c, int64_t n, pt_cluster *out)
{
    pt_diag d;
    *out = *c;
    if (n <= c->level[0].size) {
        out->nlevels = 1;
        out->level[0].size = n;
        out->devices = n;
        return 0;
    }
    return pt_cluster_resize(out, n, &d) == PT_OK ? 0 : -1;
}

void pt_scale_cfg_string(const pt_scale_cfg *cfg, char *buf, size_t n)
{
    snprintf(buf, n, "dp=%lld mp=%d k=%d batch=%.0f (%.0f per worker)", (long long)cfg->dp, cfg->m, cfg->k,
             cfg->global_batch, cfg->worker_batch);
}

pt_status pt_scale(const pt_graph *g, const pt_cluster *c, const pt_statef *se, const pt_scale_opts *o,
                   pt_scale_result *r, pt_diag *d)
{
    int64_t node = c->level[0].size, nmax = 1;
    int nm = 0, ms[PT_SCALE_MAXM];
    /* pl: the placement for the step alone (dp = 1); pd: for a worker among
     * the most workers (dp = nmax / m), balancing the devices' gradient
     * all-reduces too.  Each count takes the better of the two. */
    pt_placement (*pl)[NPD] = calloc(PT_SCALE_MAXM, sizeof *pl);
    pt_placement (*pd)[NPD] = calloc(PT_SCALE_MAXM, sizeof *pd);
    pt_cluster cmax, cg = *c;
    pt_status st = PT_OK;
    int64_t done = 0, units = 0; /* progress */
    /* every device prices the graph with the layer-graph efficiencies */
    pt_graph_device(&c->dev, &cg.dev);
    c = &cg;
    memset(r, 0, sizeof *r);
    if (!pl || !pd) {
        free(pl), free(pd);
        return pt_diag_set(d, NULL, "memory", "", "out of memory");
    }
    if (o->max_gpus < 1 || o->max_gpus > PT_MAX_DEVICES) {
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long)o->max_gpus);
        st = pt_diag_set(d, NULL, "max-gpus", v, "--max-gpus %s is outside 1..%lld", v,
                         (long long)PT_MAX_DEVICES);
        goto out;
    }
    if (!(se->e_min > 0 && se->b_noise > 0)) {
        st = pt_diag_set(d, NULL, "stat-eff", "", "no statistical efficiency for %s", g->name);
        goto out;
    }
    for (int m = 1; m <= node && m <= o->max_gpus && nm < PT_SCALE_MAXM; m *= 2) ms[nm++] = m;
    for (int64_t n = 1; n <= o->max_gpus && units < PT_SCALE_MAXPTS;
         n = n > o->max_gpus / 2 ? o->max_gpus + 1 : 2 * n)
        if (cluster_of(c, n, &cmax) == 0) units++; /* device counts priced */
    units += 2 * nm - 1;                           /* + worker sizes placed, speed-up rows */
    for (int64_t n = 1; n <= o->max_gpus; n = n > o->max_gpus / 2 ? o->max_gpus + 1 : 2 * n)
        if (cluster_of(c, n, &cmax) == 0) nmax = n;
    if (cluster_of(c, nmax, &cmax) < 0) cmax = *c;
    /* placements per (m, worker batch) */
    for (int a = 0; a < nm; a++) {
        for (int b = 0; b < NPD; b++) {
            pt_place_opts po = {.m = ms[a], .batch = worker_batch(b), .dp = 1, .dtype = o->dtype,
                                .max_nodes = 64};
            if (worker_batch(b) > 256.0 * ms[a]) continue;
            if ((st = pt_place_graph(g, c, &po, &pl[a][b], d)) != PT_OK) goto out;
            if (ms[a] == 1 || nmax / ms[a] <= 1) continue;
            po.dp = nmax / ms[a];
            if ((st = pt_place_graph(g, &cmax, &po, &pd[a][b], d)) != PT_OK) goto out;
        }
        if (o->progress) o->progress(o->progress_arg, ++done, units);
    }
    r->paper_gain = paper_gain(g->name);
    for (int64_t n = 1; n <= o->max_gpus && r->n < PT_SCALE_MAXPTS;
         n = n > o->max_gpus / 2 ? o->max_gpus + 1 : 2 * n) {
        pt_scale_point *p = &r->pt[r->n];
        pt_cluster cn;
        if (cluster_of(c, n, &cn) < 0) continue;
        p->gpus = n;
        for (int a = 0; a < nm; a++) {
            if (ms[a] > n) continue;
            for (int b = 0; b < NPD; b++) {
                pt_placement q = pl[a][b], q2 = pd[a][b];
                pt_scale_cfg cfg;
                pt_goal_ttt t;
                pt_scale_cfg *into = ms[a] == 1 ? &p->dp : &p->hybrid;
                if (!q.layer_dev) continue;
                pt_place_data_parallel(g, &cn, o->dtype, q.micro * q.k, n / ms[a], &q);
                if (q2.layer_dev) {
                    pt_place_data_parallel(g, &cn, o->dtype, q2.micro * q2.k, n / ms[a], &q2);
                    if (q2.fits && (!q.fits || q2.step_s < q.step_s)) q = q2;
                }
                if (!q.fits) continue;
                memset(&cfg, 0, sizeof cfg);
                cfg.ok = 1, cfg.m = ms[a], cfg.k = q.k, cfg.dp = n / ms[a];
                cfg.worker_batch = worker_batch(b);
                cfg.global_batch = cfg.worker_batch * (double)cfg.dp;
                cfg.step_s = q.step_s;
                pt_goal_time_to_train(cfg.step_s, cfg.global_batch, se, g->samples_per_epoch, NULL, &t);
                cfg.epochs = t.epochs;
                cfg.steps = t.steps;
                cfg.time_s = t.time_s;
                cfg.mem_GiB = q.mem_bytes / 1073741824.0;
                if (!into->ok || cfg.time_s < into->time_s) *into = cfg;
            }
        }
        if (p->dp.ok && (!r->best_dp_gpus || p->dp.time_s < r->best_dp_s))
            r->best_dp_s = p->dp.time_s, r->best_dp_gpus = n;
        if (p->hybrid.ok && (!r->best_hybrid_gpus || p->hybrid.time_s < r->best_hybrid_s))
            r->best_hybrid_s = p->hybrid.time_s, r->best_hybrid_gpus = n;
        if (!r->crossover_gpus && p->hybrid.ok && (!p->dp.ok || p->hybrid.time_s < p->dp.time_s))
            r->crossover_gpus = n;
        r->n++;
        if (o->progress) o->progress(o->progress_arg, ++done, units);
    }
    if (r->best_dp_gpus && r->best_hybrid_gpus) r->gain = 1.0 - r->best_hybrid_s / r->best_dp_s;
    /* how the best data-parallel plan should exchange its gradients */
    for (int i = 0; i < r->n; i++) {
        pt_cluster cb;
        double dense, rho;
        if (r->pt[i].gpus != r->best_dp_gpus || !r->pt[i].dp.ok || cluster_of(c, r->best_dp_gpus, &cb) < 0) continue;
        rho = pt_ps_push_fraction(g, r->pt[i].dp.worker_batch, &dense);
        if ((st = pt_ps_step_price(g, &cb, o->dtype, (int64_t)r->pt[i].dp.worker_batch, o->cpu_machines,
                                   rho, dense, &r->xchg, d)) != PT_OK)
            goto out;
    }
    /* the model-parallel speed-up of each worker size on the batch the best
     * hybrid plan of that size gives a worker at the largest count, with
     * the integer program trying to prove the placement */
    for (int a = 1; a < nm; a++) {
        double batch = 0;
        pt_placement one, many;
        pt_cluster big;
        pt_place_opts po = {.m = ms[a], .dp = 1, .dtype = o->dtype, .max_nodes = 64, .use_ilp = 1,
                            .ilp_nodes = o->ilp_nodes, .ilp_seconds = o->ilp_seconds};
        pt_scale_mp *mp = &r->mp[r->nmp];
        if (o->progress) o->progress(o->progress_arg, ++done, units);
        for (int i = r->n - 1; i >= 0 && batch == 0; i--) {
            /* the best configuration of this m at this count */
            double bt = INFINITY;
            for (int b = 0; b < NPD; b++) {
                pt_placement q = pl[a][b];
                pt_cluster cn;
                pt_goal_ttt t;
                double gb;
                if (!q.layer_dev || ms[a] > r->pt[i].gpus || cluster_of(c, r->pt[i].gpus, &cn) < 0) continue;
                pt_place_data_parallel(g, &cn, o->dtype, q.micro * q.k, r->pt[i].gpus / ms[a], &q);
                if (!q.fits) continue;
                gb = worker_batch(b) * (double)(r->pt[i].gpus / ms[a]);
                pt_goal_time_to_train(q.step_s, gb, se, g->samples_per_epoch, NULL, &t);
                if (t.time_s < bt) bt = t.time_s, batch = worker_batch(b);
            }
        }
        if (batch == 0) continue;
        po.batch = batch;
        if ((st = pt_place_graph(g, c, &po, &many, d)) != PT_OK) goto out;
        po.m = 1, po.use_ilp = 0;
        /* the one-device time even where one device could not hold it */
        big = *c;
        big.dev.memory_GiB = 1e12;
        if ((st = pt_place_graph(g, &big, &po, &one, d)) != PT_OK) {
            pt_placement_free(&many);
            goto out;
        }
        mp->m = ms[a], mp->k = many.k, mp->groups = many.groups, mp->batch = batch;
        mp->single_fits = one.mem_bytes <= c->dev.memory_GiB * 1073741824.0;
        mp->single_s = one.step_s, mp->step_s = many.step_s, mp->speedup = one.step_s / many.step_s;
        mp->method = many.method, mp->optimal = many.optimal, mp->timed_out = many.timed_out;
        mp->too_large = many.too_large;
        r->nmp++;
        pt_placement_free(&one);
        pt_placement_free(&many);
    }
out:
    for (int a = 0; a < nm; a++)
        for (int b = 0; b < NPD; b++) pt_placement_free(&pl[a][b]), pt_placement_free(&pd[a][b]);
    free(pl), free(pd);
    return st;
}
