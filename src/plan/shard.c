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
    pt_shard_choice ch;   /* placement left to the partitioner (device/node 0) */
    double perf;
} topt;

static int by_perf(const void *a, const void *b)
{
    const topt *x = a, *y = b;
    return x->perf < y->perf ? -1 : x->perf > y->perf ? 1 : 0;
}

/* TorchRec's options for table t, cheapest first: data_parallel (dense
 * kernel), table_wise, column_wise in 128-column slices (when dim > 128),
 * row_wise, table_row_wise, grid_shard (when dim > 128), each fused or
 * fused_uvm_caching. */
static int torchrec_opts(const pt_embed_job *j, int t, topt **out, int *n)
{
    const pt_glayer *tb = pt_recsys_table(j->rs, t);
    int k = (int)(tb->c / TORCHREC_MIN_CW_DIM), m = 0;
    topt *o = calloc(16, sizeof *o);
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
            m++;
        }
    qsort(o, (size_t)m, sizeof *o, by_perf);
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

/* The perf of one of an option's placed units (a slice, or the whole). */
static double shard_perf(const topt *o)
{
    return o->ch.nparts > 1 ? o->perf / o->ch.nparts : o->perf;
}

/* Places table t's option on the least-loaded devices (or hosts) that hold
 * it; returns 0 when some shard fits nowhere. */
static int place(ctx *x, pt_shard_choice *ch, int t, const topt *o, double *load)
{
    const pt_embed_job *j = x->j;
    int64_t N = j->c->devices, g = j->node;
    pt_embed_cost c;
    pt_shard_choice want = o->ch;
    int spread = want.type == PT_SHARD_DP || want.type == PT_SHARD_RW;
    int per_node = want.type == PT_SHARD_TWRW || want.type == PT_SHARD_GRID;
    int slices = spread ? 0 : want.nparts;
    if (spread) {
        ch[t] = want;
        eval(x, ch, &c);
        if (!c.fits) return 0;
        for (int64_t d = 0; d < N; d++) load[d] += o->perf / (double)N;
        return 1;
    }
    /* one slice at a time: each to the least-loaded device or host where
     * the plan so far still fits */
    ch[t] = want;
    ch[t].nparts = 0;
    for (int p = 0; p < slices; p++) {
        int64_t units = per_node ? j->nodes : N, best = -1;
        char *tried = calloc((size_t)units, 1);
        if (!tried) return 0;
        for (int64_t r = 0; r < units && best < 0; r++) {
            int64_t u = -1;
            double lu = 0;
            for (int64_t v = 0; v < units; v++) {
                double lv = 0;
                if (tried[v]) continue;
                if (per_node)
                    for (int64_t k = 0; k < g && v * g + k < N; k++) lv += load[v * g + k];
                else lv = load[v];
                if (u < 0 || lv < lu) u = v, lu = lv;
            }
            tried[u] = 1;
            ch[t].part[p] = (int)u;
            ch[t].nparts = p + 1;
            /* a partial column split prices as its slices so far */
            {
                pt_shard_choice full = ch[t];
                full.nparts = want.nparts;
                for (int q = p + 1; q < want.nparts; q++) full.part[q] = (int)u;
                ch[t] = full;
                eval(x, ch, &c);
                ch[t].nparts = p + 1;
                if (c.fits) best = u;
            }
        }
        free(tried);
        if (best < 0) return 0;
        if (per_node)
            for (int64_t k = 0; k < g && best * g + k < N; k++) load[best * g + k] += o->perf / (double)(slices * g);
        else load[best] += o->perf / (double)slices;
    }
    ch[t].nparts = want.nparts;
    return 1;
}

/* Bytes a table's option keeps on each device it uses (the feedback's measure). */
static double bytes_per_device(const pt_embed_job *j, int t, const pt_shard_choice *ch)
{
    const pt_glayer *tb = pt_recsys_table(j->rs, t);
    double b = (double)(pt_recsys_table_bytes(tb) + pt_recsys_table_state_bytes(tb));
    if (ch->uvm) b *= tb->emb.hot_rows;
    switch (ch->type) {
    case PT_SHARD_CW: return b / ch->nparts;
    case PT_SHARD_RW: return b / (double)j->c->devices;
    case PT_SHARD_TWRW: return b / (double)j->node;
    case PT_SHARD_GRID: return b / (double)(j->node * ch->nparts);
    default: return b;
    }
}

pt_status pt_shard_torchrec(const pt_embed_job *j, pt_shard_plan *out, pt_diag *d)
{
    int T = j->rs->ntables, *order = NULL, *idx = NULL, *nopt = NULL;
    topt **opt = NULL;
    double *load = NULL;
    ctx x = {j, NULL, 0, NULL, NULL, NULL};
    pt_status st = PT_OK;
    int64_t N = j->c->devices;
    memset(out, 0, sizeof *out);
    if (!(x.dev = calloc((size_t)N, sizeof *x.dev)) || !(opt = calloc((size_t)T, sizeof *opt)) ||
        !(nopt = calloc((size_t)T, sizeof *nopt)) || !(idx = calloc((size_t)T, sizeof *idx)) ||
        !(order = malloc((size_t)T * sizeof *order)) || !(load = malloc((size_t)N * sizeof *load)) ||
        !(out->ch = malloc((size_t)T * sizeof *out->ch))) {
        st = nomem(d);
        goto done;
    }
    for (int t = 0; t < T; t++)
        if (torchrec_opts(j, t, &opt[t], &nopt[t]) < 0) {
            st = nomem(d);
            goto done;
        }
    for (;;) {
        int ok = 1, worst = -1;
        double wb = -1;
        /* partition the proposal: tables by perf, largest first */
        for (int t = 0; t < T; t++) order[t] = t, out->ch[t].type = PT_SHARD_NONE;
        for (int a = 1; a < T; a++) /* insertion sort: stable, deterministic */
            for (int b = a; b > 0; b--) {
                const topt *x1 = &opt[order[b]][idx[order[b]]], *x0 = &opt[order[b - 1]][idx[order[b - 1]]];
                int g1 = part_group(&x1->ch), g0 = part_group(&x0->ch);
                if (g1 < g0 || (g1 == g0 && shard_perf(x1) > shard_perf(x0))) {
                    int tmp = order[b];
                    order[b] = order[b - 1], order[b - 1] = tmp;
                } else break;
            }
        for (int64_t k = 0; k < N; k++) load[k] = 0;
        for (int i = 0; i < T && ok; i++) ok = place(&x, out->ch, order[i], &opt[order[i]][idx[order[i]]], load);
        if (ok) {
            eval(&x, out->ch, &out->cost);
            out->found = out->cost.fits;
            break;
        }
        /* the proposer's next step: the table with the most bytes per device
         * takes its next option */
        for (int t = 0; t < T; t++) {
            double b;
            if (idx[t] + 1 >= nopt[t]) continue;
            b = bytes_per_device(j, t, &opt[t][idx[t]].ch);
            if (b > wb) wb = b, worst = t;
        }
        if (worst < 0) { /* nothing left to propose */
            for (int t = 0; t < T; t++)
                if (out->ch[t].type == PT_SHARD_NONE) out->ch[t] = opt[t][idx[t]].ch;
            eval(&x, out->ch, &out->cost);
            out->found = 0;
            break;
        }
        idx[worst]++;
    }
done:
    out->evaluated = x.evaluated;
    if (opt)
        for (int t = 0; t < T; t++) free(opt[t]);
    free(opt);
    free(nopt);
    free(idx);
    free(order);
    free(load);
    free(x.dev);
    if (st != PT_OK) pt_shard_plan_free(out);
    return st;
}

void pt_shard_plan_free(pt_shard_plan *p)
{
    free(p->ch);
    memset(p, 0, sizeof *p);
}
