/*
 * trials.c -- hyper-parameter trials as independent experiments against
 * data parallelism over all devices (see trials.h).
 */
#include "goal/trials.h"
#include "base/base.h"
#include "cost/graph_cost.h"
#include "cost/spatial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BATCH_LOG2 8 /* 1 .. 256 samples per group */

/* The cluster of n devices: part of one node, or whole nodes. */
static pt_status cluster_of(const pt_cluster *c, int64_t n, pt_cluster *out, pt_diag *d)
{
    *out = *c;
    if (n <= c->level[0].size) {
        out->nlevels = 1;
        out->level[0].size = n;
        out->devices = n;
        return PT_OK;
    }
    return pt_cluster_resize(out, n, d);
}

/* A priced candidate: its global batch and step; time to train follows
 * for any statistical efficiency. */
typedef struct cand {
    pt_trials_cfg cfg;
} cand;

typedef struct cands {
    cand *c;
    int n, cap;
} cands;

static int push(cands *cs, const pt_trials_cfg *cfg)
{
    if (cs->n == cs->cap) {
        int nc = cs->cap ? 2 * cs->cap : 32;
        cand *nw = realloc(cs->c, (size_t)nc * sizeof *nw);
        if (!nw) return -1;
        cs->c = nw, cs->cap = nc;
    }
    cs->c[cs->n++].cfg = *cfg;
    return 0;
}

/* Every configuration of one run on n devices that fits. */
static pt_status enumerate(const pt_graph *g, const pt_cluster *c, int64_t n, const pt_trials_opts *o, cands *cs,
                           pt_diag *d)
{
    pt_cluster cn;
    pt_status st;
    int maxp = o->no_spatial ? 1 : pt_spatial_max_p(g);
    int64_t node;
    if ((st = cluster_of(c, n, &cn, d)) != PT_OK) return st;
    node = cn.level[0].size < cn.devices ? cn.level[0].size : cn.devices;
    if (maxp < 1) maxp = 1;
    for (int p = 1; p <= maxp && p <= node && n % p == 0; p *= 2)
        for (int e = 0; e <= MAX_BATCH_LOG2; e++) {
            pt_spatial_cost sc;
            pt_trials_cfg cfg;
            double b = ldexp(1.0, e);
            if ((st = pt_spatial_step(g, &cn, o->dtype, p, b, o->cpu_machines, 0, &sc, d)) != PT_OK) return st;
            if (sc.mem_bytes > cn.dev.memory_GiB * 1073741824.0) break; /* larger batches hold more */
            memset(&cfg, 0, sizeof cfg);
            cfg.ok = 1;
            cfg.devices = n, cfg.p = p, cfg.groups = n / p;
            cfg.group_batch = b, cfg.global_batch = b * (double)cfg.groups;
            cfg.step_s = sc.step_s, cfg.halo_s = sc.halo_s + sc.norm_s, cfg.dp_comm_s = sc.dp_comm_s;
            cfg.mem_GiB = sc.mem_bytes / 1073741824.0;
            cfg.sync = sc.sync;
            if (push(cs, &cfg) < 0) return pt_diag_set(d, NULL, "memory", "", "out of memory");
        }
    return PT_OK;
}

/* The fastest candidate to the target under se (p_only: 1 for p = 1 only). */
static pt_trials_cfg best(const cands *cs, const pt_statef *se, double samples_per_epoch, int p_only)
{
    pt_trials_cfg b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < cs->n; i++) {
        pt_trials_cfg cfg = cs->c[i].cfg;
        pt_goal_ttt t;
        if (p_only && cfg.p != 1) continue;
        pt_goal_time_to_train(cfg.step_s, cfg.global_batch, se, samples_per_epoch, NULL, &t);
        cfg.epochs = t.epochs, cfg.steps = t.steps, cfg.time_s = t.time_s;
        if (!b.ok || cfg.time_s < b.time_s) b = cfg;
    }
    return b;
}

static double speedup_at(const cands *ind, const cands *dp, const pt_statef *se, double spe, int64_t trials,
                         int64_t waves)
{
    pt_trials_cfg a = best(ind, se, spe, 0), b = best(dp, se, spe, 1);
    return (double)trials * b.time_s / ((double)waves * a.time_s);
}

void pt_trials_cfg_string(const pt_trials_cfg *cfg, char *buf, size_t n)
{
    snprintf(buf, n, "p=%d dp=%lld batch=%.0f (%.0f per group), %s", cfg->p, (long long)cfg->groups,
             cfg->global_batch, cfg->group_batch, pt_ps_scheme_name(cfg->sync));
}

pt_status pt_trials(const pt_graph *g, const pt_cluster *c0, const pt_statef *se, const pt_trials_opts *o,
                    pt_trials_result *r, pt_diag *d)
{
    cands ind = {0}, dp = {0};
    pt_cluster c = *c0;
    pt_status st = PT_OK;
    char v[32];
    memset(r, 0, sizeof *r);
    if (o->gpus < 1) {
        snprintf(v, sizeof v, "%lld", (long long)o->gpus);
        return pt_diag_set(d, NULL, "gpus", v, "--gpus %s must be at least 1", v);
    }
    if (o->trials < 1) {
        snprintf(v, sizeof v, "%lld", (long long)o->trials);
        return pt_diag_set(d, NULL, "trials", v, "--trials %s must be at least 1", v);
    }
    if (!(se->e_min > 0 && se->b_noise > 0))
        return pt_diag_set(d, NULL, "stat-eff", "", "no statistical efficiency for %s", g->name);
    if (!(g->samples_per_epoch > 0))
        return pt_diag_set(d, NULL, "samples_per_epoch", "0",
                           "%s has no samples_per_epoch: time to train needs the epoch's size", g->name);
    /* layer graphs are priced with the layer-graph efficiencies (graph_cost.h) */
    pt_graph_device(&c0->dev, &c.dev);
    r->gpus = o->gpus, r->trials = o->trials;
    if (o->trials <= o->gpus) {
        r->per_trial = o->gpus / o->trials;
        r->concurrent = o->trials;
        r->waves = 1;
    } else {
        r->per_trial = 1;
        r->concurrent = o->gpus;
        r->waves = (o->trials + o->gpus - 1) / o->gpus;
    }
    if ((st = enumerate(g, &c, r->per_trial, o, &ind, d)) != PT_OK ||
        (st = enumerate(g, &c, o->gpus, o, &dp, d)) != PT_OK)
        goto out;
    if (!ind.n || !dp.n) {
        snprintf(v, sizeof v, "%lld", (long long)(ind.n ? o->gpus : r->per_trial));
        st = pt_diag_set(d, NULL, "gpus", v,
                         "%s does not fit on %s devices of %s at one sample per group, with or without "
                         "spatial partitioning", g->name, v, c.dev.name);
        if (st == PT_EINPUT) st = PT_INFEASIBLE;
        goto out;
    }
    r->indep = best(&ind, se, g->samples_per_epoch, 0);
    r->dp = best(&dp, se, g->samples_per_epoch, 0);
    r->dp_plain = best(&dp, se, g->samples_per_epoch, 1);
    r->indep_total_s = (double)r->waves * r->indep.time_s;
    r->dp_total_s = (double)o->trials * r->dp.time_s;
    r->speedup = r->dp_total_s / r->indep_total_s;
    r->dp_plain_total_s = (double)o->trials * r->dp_plain.time_s;
    {
        pt_cluster cn;
        double per = r->dp.group_batch / r->dp.p, dense, rho = pt_ps_push_fraction(g, r->dp.group_batch, &dense);
        if ((st = cluster_of(&c, o->gpus, &cn, d)) != PT_OK ||
            (st = pt_ps_step_price(g, &cn, o->dtype, per >= 1 ? (int64_t)per : 1, o->cpu_machines,
                                   rho, dense, &r->xchg, d)) != PT_OK)
            goto out;
    }
    r->speedup_plain = r->dp_plain_total_s / r->indep_total_s;
    {
        pt_statef half = *se, twice = *se, none = *se;
        half.b_noise *= 0.5, twice.b_noise *= 2.0, none.b_noise = INFINITY;
        r->speedup_half_bn = speedup_at(&ind, &dp, &half, g->samples_per_epoch, o->trials, r->waves);
        r->speedup_double_bn = speedup_at(&ind, &dp, &twice, g->samples_per_epoch, o->trials, r->waves);
        r->speedup_no_penalty = speedup_at(&ind, &dp, &none, g->samples_per_epoch, o->trials, r->waves);
    }
out:
    free(ind.c);
    free(dp.c);
    return st;
}
