/*
 * shard.c -- Partita's embedding partitioner and the TorchRec-style greedy
 * baseline (see shard.h).
 */
#include "plan/shard.h"
#include "base/base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Most local-search passes (each improves the plan or ends the search). */
#define MAX_PASSES 64
/* TorchRec's smallest column slice (planner constants MIN_CW_DIM). */
#define TORCHREC_MIN_CW_DIM 128

typedef struct ctx {
    const pt_embed_job *j;
    pt_embed_dev *dev;     /* scratch, c->devices                          */
    int64_t evaluated;
    double *ul, *uh;       /* scratch per device or node: lookup s, HBM     */
    char *taken;
} ctx;

static void eval(ctx *x, const pt_shard_choice *ch, pt_embed_cost *out)
{
    pt_embed_eval(x->j, ch, x->dev, out);
    x->evaluated++;
}

/* a < b by more than a relative hair */
static int less(double a, double b) { return a < b - 1e-9 * fabs(b); }

int pt_shard_better(const pt_embed_cost *a, const pt_embed_cost *b)
{
    if (less(a->overflow, b->overflow)) return 1;
    if (less(b->overflow, a->overflow)) return 0;
    if (less(a->step_s, b->step_s)) return 1;
    if (less(b->step_s, a->step_s)) return 0;
    /* balance counts when it moves by more than 0.01%; then fewer shards
     * (a tiny table split for a negligible gain only adds kernels and
     * messages the model does not price) */
    if (a->balance < b->balance * (1 - 1e-4)) return 1;
    if (b->balance < a->balance * (1 - 1e-4)) return 0;
    if (a->shards != b->shards) return a->shards < b->shards;
    return less(a->hbm_max, b->hbm_max);
}

/* ---- candidates ------------------------------------------------------------ */

typedef struct cands {
    pt_shard_choice *c;
    int n, cap;
} cands;

static int push(cands *cs, const pt_embed_job *j, int t, const pt_shard_choice *ch)
{
    if (!pt_embed_choice_valid(j, t, ch, NULL, 0)) return 0;
    if (cs->n == cs->cap) {
        int nc = cs->cap ? 2 * cs->cap : 256;
        pt_shard_choice *n = realloc(cs->c, (size_t)nc * sizeof *n);
        if (!n) return -1;
        cs->c = n, cs->cap = nc;
    }
    cs->c[cs->n++] = *ch;
    return 0;
}

/* The `want` least-loaded of n units (devices, or nodes of g devices) by
 * lookup seconds, then HBM, then index, into pick[] in index order;
 * returns how many.  Uses x's unit scratch. */
static int least_loaded(ctx *x, int64_t g, int64_t n, int want, int *pick)
{
    const pt_embed_dev *dev = x->dev;
    int64_t N = x->j->c->devices;
    int got = 0;
    if (want > n) want = (int)n;
    for (int64_t u = 0; u < n; u++) {
        x->ul[u] = x->uh[u] = 0;
        x->taken[u] = 0;
        for (int64_t i = u * g; i < (u + 1) * g && i < N; i++) x->ul[u] += dev[i].lookup_s, x->uh[u] += dev[i].hbm;
    }
    for (int k = 0; k < want; k++) {
        int64_t best = -1;
        for (int64_t u = 0; u < n; u++)
            if (!x->taken[u] && (best < 0 || x->ul[u] < x->ul[best] ||
                                 (x->ul[u] == x->ul[best] && x->uh[u] < x->uh[best])))
                best = u;
        x->taken[best] = 1;
        pick[got++] = (int)best;
    }
    /* index order: one spelling per set */
    for (int a = 1; a < got; a++)
        for (int b = a; b > 0 && pick[b] < pick[b - 1]; b--) {
            int tmp = pick[b];
            pick[b] = pick[b - 1], pick[b - 1] = tmp;
        }
    return got;
}

/* Partita's candidates for table t given the rest of the plan ch (shard.h):
 * table_wise on each of the TW_DEVICES least-loaded devices, column_wise on
 * the k least-loaded (and, on up to CW_RUNS_UPTO devices, on every aligned
 * run of k), table_row_wise on each of the TWRW_NODES least-loaded
 * nodes, grid_shard on the k least-loaded nodes, row_wise and
 * data_parallel; where a table goes to a device, the least-loaded ones are
 * where it can go best, so the candidates stay few at any device count. */
#define TW_DEVICES 64
#define TWRW_NODES 8
/* Up to this many devices, column_wise also tries every aligned run of k. */
#define CW_RUNS_UPTO 64
static int partita_cands(ctx *x, pt_shard_choice *ch, int t, cands *cs)
{
    const pt_embed_job *j = x->j;
    int64_t N = j->c->devices, nodes = j->nodes;
    pt_shard_choice keep = ch[t], c1;
    pt_embed_cost cost;
    int pick[TW_DEVICES], n, rc = 0;
    ch[t].type = PT_SHARD_NONE;
    eval(x, ch, &cost); /* x->dev: the load of every other table */
    ch[t] = keep;
    cs->n = 0;
    memset(&c1, 0, sizeof c1);
    c1.type = PT_SHARD_DP;
    rc |= push(cs, j, t, &c1);
    for (int uvm = 0; uvm < 2; uvm++) {
        memset(&c1, 0, sizeof c1);
        c1.uvm = uvm;
        c1.type = PT_SHARD_RW;
        rc |= push(cs, j, t, &c1);
        c1.type = PT_SHARD_TW, c1.nparts = 1;
        n = least_loaded(x, 1, N, TW_DEVICES, pick);
        for (int k = 0; k < n; k++) {
            c1.part[0] = pick[k];
            rc |= push(cs, j, t, &c1);
        }
        for (int k = 2; k <= PT_SHARD_MAX_PARTS && k <= N; k *= 2) {
            c1.type = PT_SHARD_CW, c1.nparts = k;
            least_loaded(x, 1, N, k, c1.part);
            rc |= push(cs, j, t, &c1);
            for (int64_t s0 = 0; N <= CW_RUNS_UPTO && s0 + k <= N; s0 += k) {
                for (int p = 0; p < k; p++) c1.part[p] = (int)(s0 + p);
                rc |= push(cs, j, t, &c1);
            }
        }
        if (nodes > 1) {
            c1.type = PT_SHARD_TWRW, c1.nparts = 1;
            n = least_loaded(x, j->node, nodes, TWRW_NODES, pick);
            for (int k = 0; k < n; k++) {
                c1.part[0] = pick[k];
                rc |= push(cs, j, t, &c1);
            }
            for (int k = 2; k <= 4 && k <= nodes; k *= 2) {
                c1.type = PT_SHARD_GRID, c1.nparts = k;
                least_loaded(x, j->node, nodes, k, c1.part);
                rc |= push(cs, j, t, &c1);
            }
        }
    }
    return rc;
}

static pt_status nomem(pt_diag *d)
{
    pt_diag_set(d, NULL, NULL, NULL, "out of memory");
    return PT_ENOMEM;
}

/* Lookup bytes of a table per step: the greedy's order, heaviest first. */
static double weight(const pt_embed_job *j, int t)
{
    const pt_glayer *tb = pt_recsys_table(j->rs, t);
    double D = (double)tb->c < 32 ? 32.0 : (double)tb->c;
    return j->batch * tb->emb.pooling * D * tb->emb.bytes + 1e-9 * (double)pt_recsys_table_bytes(tb);
}

/* order[0..T) by weight, heaviest first, ties by index (insertion sort:
 * stable, no global state). */
static void sort_by_weight(const pt_embed_job *j, int *order, int T)
{
    for (int a = 1; a < T; a++)
        for (int b = a; b > 0 && weight(j, order[b]) > weight(j, order[b - 1]); b--) {
            int tmp = order[b];
            order[b] = order[b - 1], order[b - 1] = tmp;
        }
}

/* ---- Partita's search ------------------------------------------------------- */

/* Local search from ch (improved in place) until a pass changes nothing;
 * -1 when out of memory. */
static int local_search(ctx *x, cands *cs, pt_shard_choice *ch, pt_embed_cost *cur)
{
    int T = x->j->rs->ntables;
    for (int pass = 0; pass < MAX_PASSES; pass++) {
        int improved = 0;
        for (int t = 0; t < T; t++) {
            pt_shard_choice keep = ch[t];
            int best = -1;
            pt_embed_cost bc = *cur, c;
            if (partita_cands(x, ch, t, cs) < 0) return -1;
            for (int k = 0; k < cs->n; k++) {
                ch[t] = cs->c[k];
                eval(x, ch, &c);
                if (pt_shard_better(&c, &bc)) bc = c, best = k;
            }
            ch[t] = best >= 0 ? cs->c[best] : keep;
            if (best >= 0) *cur = bc, improved = 1;
        }
        for (int a = 0; a < T; a++)
            for (int b = a + 1; b < T; b++) {
                pt_embed_cost c;
                int da, db;
                if (ch[a].type != PT_SHARD_TW || ch[b].type != PT_SHARD_TW) continue;
                if ((da = ch[a].part[0]) == (db = ch[b].part[0])) continue;
                ch[a].part[0] = db, ch[b].part[0] = da;
                eval(x, ch, &c);
                if (pt_shard_better(&c, cur)) *cur = c, improved = 1;
                else ch[a].part[0] = da, ch[b].part[0] = db;
            }
        if (!improved) break;
    }
    return 0;
}

pt_status pt_shard_search(const pt_embed_job *j, const pt_shard_plan *start, pt_shard_plan *out, pt_diag *d)
{
    int T = j->rs->ntables, *order = NULL;
    cands cs = {NULL, 0, 0};
    pt_shard_choice *ch = NULL;
    pt_embed_cost cur;
    ctx x = {j, NULL, 0, NULL, NULL, NULL};
    pt_status st = PT_OK;
    memset(out, 0, sizeof *out);
    if (!(x.dev = calloc((size_t)j->c->devices, sizeof *x.dev)) || !(x.ul = malloc((size_t)j->c->devices * sizeof *x.ul)) ||
        !(x.uh = malloc((size_t)j->c->devices * sizeof *x.uh)) || !(x.taken = malloc((size_t)j->c->devices)) || !(order = malloc((size_t)T * sizeof *order)) || !(ch = malloc((size_t)T * sizeof *ch)) ||
        !(out->ch = malloc((size_t)T * sizeof *out->ch))) {
        st = nomem(d);
        goto done;
    }
    for (int t = 0; t < T; t++) order[t] = t, ch[t].type = PT_SHARD_NONE;
    sort_by_weight(j, order, T);
    /* greedy, heaviest table first */
    for (int i = 0; i < T; i++) {
        int t = order[i], best = 0;
        pt_embed_cost bc, c;
        if (partita_cands(&x, ch, t, &cs) < 0) {
            st = nomem(d);
            goto done;
        }
        for (int k = 0; k < cs.n; k++) {
            ch[t] = cs.c[k];
            eval(&x, ch, &c);
            if (k == 0 || pt_shard_better(&c, &bc)) bc = c, best = k;
        }
        ch[t] = cs.c[best];
    }
    eval(&x, ch, &cur);
    if (local_search(&x, &cs, ch, &cur) < 0) {
        st = nomem(d);
        goto done;
    }
    memcpy(out->ch, ch, (size_t)T * sizeof *ch);
    out->cost = cur;
    if (start && start->found) {
        pt_embed_cost sc;
        memcpy(ch, start->ch, (size_t)T * sizeof *ch);
        eval(&x, ch, &sc);
        if (local_search(&x, &cs, ch, &sc) < 0) {
            st = nomem(d);
            goto done;
        }
        if (pt_shard_better(&sc, &out->cost)) {
            memcpy(out->ch, ch, (size_t)T * sizeof *ch);
            out->cost = sc;
        }
    }
    out->found = out->cost.fits;
done:
    out->evaluated = x.evaluated;
    free(cs.c);
    free(order);
    free(ch);
    free(x.dev);
    free(x.ul);
    free(x.uh);
    free(x.taken);
    if (st != PT_OK) pt_shard_plan_free(out);
    return st;
}

/* ---- the TorchRec-style baseline --------------------------------------------- */

typedef struct topt {
    pt_shard_choice ch;   /* placement left to the partitioner                */
    double perf;          /* the sum of its shards' perf                      */
    double depth;         /* its largest shard's perf (shards are alike)      */
    double hbm, host;     /* bytes per shard                                  */
    int64_t shards;
} topt;

/* TorchRec's options for table t: data_parallel (dense kernel), table_wise,
 * column_wise in 128-column slices (when dim > 128), row_wise,
 * table_row_wise, grid_shard (when dim > 128), each fused or
 * fused_uvm_caching; unsorted. */
static int torchrec_opts(const pt_embed_job *j, int t, topt **out, int *n)
{
    const pt_glayer *tb = pt_recsys_table(j->rs, t);
    int k = (int)(tb->c / TORCHREC_MIN_CW_DIM), m = 0;
    topt *o = calloc(2 * PT_SHARD_COUNT, sizeof *o);
    if (!o) return -1;
    if (tb->c % TORCHREC_MIN_CW_DIM || k > PT_SHARD_MAX_PARTS) k = 1;
    for (int ty = 0; ty < PT_SHARD_COUNT; ty++)
        for (int uvm = 0; uvm < 2; uvm++) {
            pt_shard_choice ch;
            memset(&ch, 0, sizeof ch);
            ch.type = (pt_shard_type)ty;
            ch.uvm = uvm;
            if (ty == PT_SHARD_DP && uvm) continue;
            if (ty == PT_SHARD_TW || ty == PT_SHARD_TWRW) ch.nparts = 1;
            if (ty == PT_SHARD_CW || ty == PT_SHARD_GRID) {
                if (k < 2) continue;
                ch.nparts = k;
            }
            if ((ty == PT_SHARD_TWRW || ty == PT_SHARD_GRID) && j->nodes < 2) continue;
            if (!pt_embed_choice_valid(j, t, &ch, NULL, 0)) continue;
            o[m].ch = ch;
            o[m].perf = pt_embed_option_perf(j, t, &ch);
            o[m].shards = pt_embed_option_shards(j, &ch);
            o[m].depth = o[m].perf / (double)o[m].shards;
            pt_embed_shard_bytes(j, t, &ch, &o[m].hbm, &o[m].host);
            m++;
        }
    *out = o;
    *n = m;
    return 0;
}

/* TorchRec's partition_by groups, in the order GreedyPerfPartitioner
 * places them: uniform (row_wise, data_parallel: a shard on every device),
 * host (table_row_wise, grid_shard), device (table_wise, column_wise). */
static int part_group(const pt_shard_choice *ch)
{
    if (ch->type == PT_SHARD_RW || ch->type == PT_SHARD_DP) return 0;
    return ch->type == PT_SHARD_TWRW || ch->type == PT_SHARD_GRID ? 1 : 2;
}

/* What the partitioner tracks per device. */
typedef struct tdev {
    double perf, hbm, host;
} tdev;

/* A proposal (one option per table) placed as GreedyPerfPartitioner does:
 * the uniform group, then the host group, then the device group; inside a
 * group by shard perf, largest first; each shard on the device (host: the
 * node whose busiest device has) the least perf so far among those with the
 * storage.  Fills ch; returns 1 and *rating (TorchRec's: the largest
 * device perf) when everything is placed, else 0. */
static int partition(const pt_embed_job *j, const topt *const *prop, pt_shard_choice *ch, tdev *dv, int *order,
                     double *rating)
{
    int T = j->rs->ntables;
    int64_t N = j->c->devices, g = j->node;
    double fixed = pt_embed_fixed_bytes(j);
    for (int64_t d = 0; d < N; d++) dv[d] = (tdev){0, fixed, 0};
    for (int t = 0; t < T; t++) order[t] = t;
    for (int a = 1; a < T; a++) /* insertion sort: stable, deterministic */
        for (int b = a; b > 0; b--) {
            const topt *x1 = prop[order[b]], *x0 = prop[order[b - 1]];
            int g1 = part_group(&x1->ch), g0 = part_group(&x0->ch);
            if (g1 < g0 || (g1 == g0 && (x1->depth > x0->depth || (x1->depth == x0->depth && x1->hbm > x0->hbm)))) {
                int tmp = order[b];
                order[b] = order[b - 1], order[b - 1] = tmp;
            } else break;
        }
    for (int i = 0; i < T; i++) {
        int t = order[i];
        const topt *o = prop[t];
        int grp = part_group(&o->ch);
        ch[t] = o->ch;
        if (grp == 0) {
            for (int64_t d = 0; d < N; d++)
                if (dv[d].hbm + o->hbm > j->hbm_cap || dv[d].host + o->host > j->host_bytes) return 0;
            for (int64_t d = 0; d < N; d++) dv[d].perf += o->depth, dv[d].hbm += o->hbm, dv[d].host += o->host;
            continue;
        }
        for (int p = 0; p < o->ch.nparts; p++) {
            int64_t units = grp == 1 ? j->nodes : N, per = grp == 1 ? g : 1, best = -1;
            double bl = 0;
            for (int64_t u = 0; u < units; u++) {
                double l = 0;
                int fits = 1;
                for (int64_t d = u * per; d < (u + 1) * per && d < N; d++) {
                    if (dv[d].perf > l) l = dv[d].perf;
                    if (dv[d].hbm + o->hbm > j->hbm_cap || dv[d].host + o->host > j->host_bytes) fits = 0;
                }
                if (fits && (best < 0 || l < bl)) best = u, bl = l;
            }
            if (best < 0) return 0;
            ch[t].part[p] = (int)best;
            for (int64_t d = best * per; d < (best + 1) * per && d < N; d++)
                dv[d].perf += o->depth, dv[d].hbm += o->hbm, dv[d].host += o->host;
        }
    }
    *rating = 0;
    for (int64_t d = 0; d < N; d++)
        if (dv[d].perf > *rating) *rating = dv[d].perf;
    return 1;
}

/* GreedyProposer's storage order of an option: (largest shard HBM, all its
 * HBM, largest shard host memory, all its host memory). */
static int storage_larger(const topt *a, const topt *b)
{
    double x[4] = {a->hbm, a->hbm * (double)a->shards, a->host, a->host * (double)a->shards};
    double y[4] = {b->hbm, b->hbm * (double)b->shards, b->host, b->host * (double)b->shards};
    for (int k = 0; k < 4; k++)
        if (x[k] != y[k]) return x[k] > y[k];
    return 0;
}

/* Sorts one table's options by depth (use_depth) or by perf, stable. */
static void sort_opts(topt *o, int n, int use_depth)
{
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0; b--) {
            double k1 = use_depth ? o[b].depth : o[b].perf, k0 = use_depth ? o[b - 1].depth : o[b - 1].perf;
            if (k1 < k0) {
                topt tmp = o[b];
                o[b] = o[b - 1], o[b - 1] = tmp;
            } else break;
        }
}

pt_status pt_shard_torchrec(const pt_embed_job *j, pt_shard_plan *out, pt_diag *d)
{
    int T = j->rs->ntables, *order = NULL, *idx = NULL, *nopt = NULL, have = 0;
    topt **opt = NULL;
    const topt **prop = NULL;
    pt_shard_choice *ch = NULL;
    tdev *dv = NULL;
    double best = 0;
    ctx x = {j, NULL, 0, NULL, NULL, NULL};
    pt_status st = PT_OK;
    int64_t N = j->c->devices;
    memset(out, 0, sizeof *out);
    if (!(x.dev = calloc((size_t)N, sizeof *x.dev)) || !(opt = calloc((size_t)T, sizeof *opt)) ||
        !(nopt = calloc((size_t)T, sizeof *nopt)) || !(idx = calloc((size_t)T, sizeof *idx)) ||
        !(order = malloc((size_t)T * sizeof *order)) || !(dv = malloc((size_t)N * sizeof *dv)) ||
        !(prop = malloc((size_t)T * sizeof *prop)) || !(ch = malloc((size_t)T * sizeof *ch)) ||
        !(out->ch = malloc((size_t)T * sizeof *out->ch))) {
        st = nomem(d);
        goto done;
    }
    for (int t = 0; t < T; t++)
        if (torchrec_opts(j, t, &opt[t], &nopt[t]) < 0) {
            st = nomem(d);
            goto done;
        }
    /* EmbeddingShardingPlanner's proposers: GreedyProposer with use_depth
     * (options by their largest shard's perf) and without (by the sum),
     * then UniformProposer (one sharding type for every table); every
     * proposal partitioned, the best perf rating kept */
    for (int prp = 0; prp < 3; prp++) {
        if (prp < 2) {
            for (int t = 0; t < T; t++) sort_opts(opt[t], nopt[t], prp == 0), idx[t] = 0;
            for (;;) {
                int worst = -1;
                double r;
                for (int t = 0; t < T; t++) prop[t] = &opt[t][idx[t]];
                x.evaluated++;
                if (partition(j, prop, ch, dv, order, &r) && (!have || r < best)) {
                    memcpy(out->ch, ch, (size_t)T * sizeof *ch);
                    best = r, have = 1;
                }
                /* feedback: the table whose option holds the most storage
                 * takes its next option, until none has one */
                for (int t = 0; t < T; t++)
                    if (idx[t] + 1 < nopt[t] && (worst < 0 || storage_larger(&opt[t][idx[t]], &opt[worst][idx[worst]])))
                        worst = t;
                if (worst < 0) break;
                idx[worst]++;
            }
        } else {
            for (int ty = 0; ty < PT_SHARD_COUNT; ty++) {
                int all = 1;
                double r;
                for (int t = 0; t < T && all; t++) {
                    prop[t] = NULL;
                    sort_opts(opt[t], nopt[t], 1);
                    for (int k = 0; k < nopt[t] && !prop[t]; k++)
                        if (opt[t][k].ch.type == (pt_shard_type)ty) prop[t] = &opt[t][k];
                    all = prop[t] != NULL;
                }
                if (!all) continue;
                x.evaluated++;
                if (partition(j, prop, ch, dv, order, &r) && (!have || r < best)) {
                    memcpy(out->ch, ch, (size_t)T * sizeof *ch);
                    best = r, have = 1;
                }
            }
        }
    }
    if (!have) /* nothing partitions: the cheapest options, unplaced, as the nearest */
        for (int t = 0; t < T; t++) {
            sort_opts(opt[t], nopt[t], 1);
            out->ch[t] = opt[t][0].ch;
        }
    eval(&x, out->ch, &out->cost);
    out->found = have && out->cost.fits;
done:
    out->evaluated = x.evaluated;
    if (opt)
        for (int t = 0; t < T; t++) free(opt[t]);
    free(opt);
    free(nopt);
    free(idx);
    free(order);
    free(dv);
    free(prop);
    free(ch);
    free(x.dev);
    if (st != PT_OK) pt_shard_plan_free(out);
    return st;
}

void pt_shard_plan_free(pt_shard_plan *p)
{
    free(p->ch);
    memset(p, 0, sizeof *p);
}
