/*
 * place.c -- model-parallel placement of a layer graph (see place.h).
 */
#include "plan/place.h"
#include "base/base.h"
#include "cost/graph_cost.h"

#include <glpk.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the objective ------------------------------------------------------- */

static int mem_ok(const pt_pprob *p, const int *dev, double *worst)
{
    double use[64] = {0}, w = 0;
    if (p->m > 64) return 0;
    if (p->mem)
        for (int v = 0; v < p->n; v++) use[dev[v]] += p->mem[v];
    for (int d = 0; d < p->m; d++)
        if (use[d] > w) w = use[d];
    if (worst) *worst = w;
    return !(p->mem_cap > 0 && w > p->mem_cap);
}

static double max_load(const pt_pprob *p, const int *dev)
{
    double load[64] = {0}, w = 0;
    for (int v = 0; v < p->n; v++) load[dev[v]] += p->dur[v];
    for (int e = 0; e < p->ne; e++)
        if (dev[p->eu[e]] != dev[p->ev[e]]) {
            load[dev[p->eu[e]]] += p->ecomm[e];
            load[dev[p->ev[e]]] += p->ecomm[e];
        }
    for (int d = 0; d < p->m; d++)
        if (load[d] > w) w = load[d];
    return w;
}

/* One micro-batch's list schedule, nodes taken in order[] (topological).  Edges are scanned
 * per consumer; the problem sizes here (<= a few hundred) make that cheap.  With dev NULL,
 * every node has a device of its own and nothing is sent: the earliest each can start, so
 * a lower bound on the latency of any placement (transfers and a busy device only delay). */
static double list_latency(const pt_pprob *p, const int *dev, const int *order, double *start)
{
    double fin_all = 0, freeat[64] = {0};
    for (int i = 0; i < p->n; i++) {
        int v = order ? order[i] : i;
        double s = dev ? freeat[dev[v]] : 0.0;
        int lo = p->inoff ? p->inoff[v] : 0, hi = p->inoff ? p->inoff[v + 1] : p->ne;
        for (int q = lo; q < hi; q++) {
            int e = p->inoff ? p->inedge[q] : q, u = p->eu[e];
            double c, t;
            if (p->ev[e] != v) continue;
            c = dev && dev[u] != dev[v] ? p->ecomm[e] : 0.0;
            t = p->estream ? p->estream[e] : 1.0;
            if (t > 1.0) {
                double a = start[u] + (p->dur[u] + c) / t;                       /* first step in */
                double b = start[u] + p->dur[u] + (p->dur[v] + c) / t - p->dur[v]; /* last step out */
                if (a > s) s = a;
                if (b > s) s = b;
            } else if (start[u] + p->dur[u] + c > s) {
                s = start[u] + p->dur[u] + c;
            }
        }
        start[v] = s;
        if (dev) freeat[dev[v]] = s + p->dur[v];
        if (s + p->dur[v] > fin_all) fin_all = s + p->dur[v];
    }
    return fin_all;
}

double pt_pprob_objective(const pt_pprob *p, const int *dev, double *bottleneck, double *latency)
{
    return pt_pprob_objective_order(p, dev, NULL, bottleneck, latency);
}

/* The default priority: longest path to the end first (highest "bottom
 * level", HLFET), ties by index.  Every edge's producer has a larger bottom
 * level than its consumer, so this is a topological order. */
static void bottom_level_order(const pt_pprob *p, double *bl, int *order)
{
    for (int v = p->n - 1; v >= 0; v--) {
        double tail = 0;
        for (int e = 0; e < p->ne; e++)
            if (p->eu[e] == v && bl[p->ev[e]] > tail) tail = bl[p->ev[e]];
        bl[v] = p->dur[v] + tail;
    }
    for (int v = 0; v < p->n; v++) order[v] = v;
    for (int i = 1; i < p->n; i++)
        for (int q = i; q > 0 && bl[order[q]] > bl[order[q - 1]]; q--) {
            int x = order[q];
            order[q] = order[q - 1], order[q - 1] = x;
        }
}

double pt_pprob_objective_order(const pt_pprob *p, const int *dev, const int *order, double *bottleneck,
                                double *latency)
{
    double *start, lat, bot;
    int *own = NULL;
    size_t nb = (size_t)(p->n > 0 ? p->n : 1);
    if (p->m > 64 || !mem_ok(p, dev, NULL)) return INFINITY;
    /* an indexed problem of a placement carries its scratch: nothing is
     * allocated here, the local search calls this thousands of times */
    if (p->work && (order || p->prio)) {
        lat = list_latency(p, dev, order ? order : p->prio, p->work);
        goto done;
    }
    if (!(start = malloc(nb * sizeof *start))) return INFINITY;
    if (!order) order = p->prio;
    if (!order) {
        if (!(own = malloc(nb * sizeof *own))) {
            free(start);
            return INFINITY;
        }
        bottom_level_order(p, start, own);
        order = own;
    }
    lat = list_latency(p, dev, order, start);
    free(start), free(own);
done:
    bot = max_load(p, dev);
    if (bottleneck) *bottleneck = bot;
    if (latency) *latency = lat;
    return (double)(p->k - 1) * bot + lat;
}

void pt_pprob_finish(const pt_pprob *p, const int *dev, const int *order, double *finish)
{
    int *own = NULL;
    if (!order) order = p->prio;
    if (!order) {
        if (!(own = malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof *own))) {
            for (int v = 0; v < p->n; v++) finish[v] = INFINITY;
            return;
        }
        bottom_level_order(p, finish, own);
        order = own;
    }
    list_latency(p, dev, order, finish);
    for (int v = 0; v < p->n; v++) finish[v] += p->dur[v];
    free(own);
}

void pt_pprob_unindex(pt_pprob *p)
{
    free(p->prio), free(p->inoff), free(p->inedge);
    p->prio = p->inoff = p->inedge = NULL;
}

int pt_pprob_index(pt_pprob *p)
{
    size_t n = (size_t)(p->n > 0 ? p->n : 1);
    double *bl = malloc(n * sizeof *bl);
    pt_pprob_unindex(p);
    p->prio = malloc(n * sizeof *p->prio);
    p->inoff = calloc(n + 1, sizeof *p->inoff);
    p->inedge = malloc((size_t)(p->ne > 0 ? p->ne : 1) * sizeof *p->inedge);
    if (!bl || !p->prio || !p->inoff || !p->inedge) {
        free(bl);
        pt_pprob_unindex(p);
        return -1;
    }
    bottom_level_order(p, bl, p->prio);
    free(bl);
    for (int e = 0; e < p->ne; e++) p->inoff[p->ev[e] + 1]++;
    for (int v = 0; v < p->n; v++) p->inoff[v + 1] += p->inoff[v];
    {
        int *fill = calloc(n, sizeof *fill);
        if (!fill) {
            pt_pprob_unindex(p);
            return -1;
        }
        for (int e = 0; e < p->ne; e++) p->inedge[p->inoff[p->ev[e]] + fill[p->ev[e]]++] = e;
        free(fill);
    }
    {
        double *start = malloc(n * sizeof *start);
        if (!start) {
            pt_pprob_unindex(p);
            return -1;
        }
        p->critical = list_latency(p, NULL, p->prio, start);
        free(start);
    }
    return 0;
}

/* pt_pprob_index from the arena, with the objective's scratch: the problem of
 * a placement, whose arena frees it all at once.  -1 out of memory. */
static int pprob_index_in(pt_pprob *p, pt_arena *a)
{
    size_t n = (size_t)(p->n > 0 ? p->n : 1);
    double *bl = pt_arena_array(a, n, sizeof *bl);
    int *fill = pt_arena_array(a, n, sizeof *fill);
    p->prio = pt_arena_array(a, n, sizeof *p->prio);
    p->inoff = pt_arena_array(a, n + 1, sizeof *p->inoff);
    p->inedge = pt_arena_array(a, (size_t)(p->ne > 0 ? p->ne : 1), sizeof *p->inedge);
    p->work = pt_arena_array(a, n, sizeof *p->work);
    if (!bl || !fill || !p->prio || !p->inoff || !p->inedge || !p->work) {
        p->prio = p->inoff = p->inedge = NULL;
        p->work = NULL;
        return -1;
    }
    bottom_level_order(p, bl, p->prio);
    for (int e = 0; e < p->ne; e++) p->inoff[p->ev[e] + 1]++;
    for (int v = 0; v < p->n; v++) p->inoff[v + 1] += p->inoff[v];
    for (int e = 0; e < p->ne; e++) p->inedge[p->inoff[p->ev[e]] + fill[p->ev[e]]++] = e;
    p->critical = list_latency(p, NULL, p->prio, bl);
    return 0;
}

double pt_pprob_objective_serial(const pt_pprob *p, const int *dev)
{
    double lat = 0;
    if (p->m > 64 || !mem_ok(p, dev, NULL)) return INFINITY;
    for (int v = 0; v < p->n; v++) lat += p->dur[v];
    for (int e = 0; e < p->ne; e++)
        if (dev[p->eu[e]] != dev[p->ev[e]]) lat += p->ecomm[e];
    return (double)(p->k - 1) * max_load(p, dev) + lat;
}

/* ---- contiguous stages: exact dynamic programming ------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double chain_dp(const pt_pprob *p, int *dev, pt_arena *a)
{
    int n = p->n, m = p->m, nc = 0;
    size_t nn = (size_t)(n + 1) * (size_t)(n + 1), nm = (size_t)(n + 1) * (size_t)(m + 1);
    double *load = pt_arena_array(a, nn, sizeof *load), *out = pt_arena_array(a, nn, sizeof *out);
    double *mem = pt_arena_array(a, nn, sizeof *mem), *caps = pt_arena_array(a, nn, sizeof *caps);
    double *f = pt_arena_array(a, nm, sizeof *f);
    int *from = pt_arena_array(a, nm, sizeof *from), *bestcut = pt_arena_array(a, (size_t)n + 1, sizeof *bestcut);
    double best = INFINITY, sumdur = 0, maxdur = 0;
    int bests = 0;
#define IX(i, j) ((size_t)(i) * (size_t)(n + 1) + (size_t)(j))
#define FX(j, s) ((size_t)(j) * (size_t)(m + 1) + (size_t)(s))
    if (!load || !out || !mem || !caps || !f || !from || !bestcut || n < 1 || m < 1) goto done;
    for (int v = 0; v < n; v++) {
        sumdur += p->dur[v];
        if (p->dur[v] > maxdur) maxdur = p->dur[v];
    }
    /* segment [i, j): its busy time, what it sends onwards, its memory */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j <= n; j++) {
            double l = 0, o = 0, mm = 0;
            for (int v = i; v < j; v++) l += p->dur[v], mm += p->mem ? p->mem[v] : 0.0;
            for (int e = 0; e < p->ne; e++) {
                int iu = p->eu[e] >= i && p->eu[e] < j, iv = p->ev[e] >= i && p->ev[e] < j;
                if (iu != iv) l += p->ecomm[e];
                if (iu && p->ev[e] >= j) o += p->ecomm[e];
            }
            load[IX(i, j)] = l, out[IX(i, j)] = o, mem[IX(i, j)] = mm;
            if (!(p->mem_cap > 0 && mm > p->mem_cap)) caps[nc++] = l;
        }
    qsort(caps, (size_t)nc, sizeof *caps, cmp_double);
    /* For each cap C on the stage load: the partition with every stage
     * under C and the least cut traffic.  J <= (k-1) C + sum + cut, with
     * equality at the optimum's own bottleneck, so the minimum over C is
     * exact.  Caps rise, so stop once (k-1) C + sum alone is no better.
     * With one micro-batch the cap does not count: only the largest. */
    for (int c0 = p->k == 1 && nc > 0 ? nc - 1 : 0, ci = c0; ci < nc; ci++) {
        double C = caps[ci], got = INFINITY;
        int gs = 0;
        if (ci > c0 && caps[ci - 1] == C) continue;
        if (C * m < sumdur || C < maxdur) continue; /* no m stages fit under C */
        if ((double)(p->k - 1) * C + sumdur >= best) break;
        for (size_t q = 0; q < (size_t)(n + 1) * (size_t)(m + 1); q++) f[q] = INFINITY;
        f[FX(0, 0)] = 0;
        for (int s = 1; s <= m; s++)
            for (int j = 1; j <= n; j++)
                for (int i = 0; i < j; i++) {
                    double v = f[FX(i, s - 1)];
                    if (v == INFINITY || load[IX(i, j)] > C) continue;
                    if (p->mem_cap > 0 && mem[IX(i, j)] > p->mem_cap) continue;
                    v += out[IX(i, j)];
                    if (v < f[FX(j, s)]) f[FX(j, s)] = v, from[FX(j, s)] = i;
                }
        for (int s = 1; s <= m; s++)
            if (f[FX(n, s)] < got) got = f[FX(n, s)], gs = s;
        if (got == INFINITY) continue;
        got += (double)(p->k - 1) * C + sumdur;
        if (got < best) {
            best = got, bests = gs;
            /* recover the stage boundaries */
            for (int j = n, s = gs; s > 0; s--) {
                bestcut[s] = j;
                j = from[FX(j, s)];
            }
            bestcut[0] = 0;
            for (int s = 0; s < bests; s++)
                for (int v = bestcut[s]; v < bestcut[s + 1]; v++) dev[v] = s;
        }
    }
    if (best < INFINITY) best = pt_pprob_objective_serial(p, dev);
#undef IX
#undef FX
done:
    return best;
}

double pt_pprob_chain_dp(const pt_pprob *p, int *dev)
{
    pt_arena a;
    double j;
    pt_arena_init(&a, NULL, NULL, 0);
    j = chain_dp(p, dev, &a);
    pt_arena_free(&a);
    return j;
}

/* ---- heuristic ----------------------------------------------------------- */

typedef double (*place_obj)(const pt_pprob *p, const int *dev, void *ctx);

static double obj_j(const pt_pprob *p, const int *dev, void *ctx)
{
    (void)ctx;
    return pt_pprob_objective(p, dev, NULL, NULL);
}

/* J, or INFINITY as soon as it is clear J cannot go below cur: with k > 1
 * micro-batches, J >= (k - 1) max load + the critical path (streamed edges
 * included, so it is a true lower bound on the latency). */
static double j_below(const pt_pprob *p, const int *dev, double cur)
{
    if (p->k > 1 && p->prio && mem_ok(p, dev, NULL) &&
        (double)(p->k - 1) * max_load(p, dev) + p->critical >= cur)
        return INFINITY;
    return pt_pprob_objective(p, dev, NULL, NULL);
}

/* Moves and swaps while the objective drops; deterministic (fixed scan order). */
static double improve_by(const pt_pprob *p, int *dev, double j, place_obj f, void *ctx)
{
    for (int pass = 0; pass < 100; pass++) {
        int better = 0;
        for (int v = 0; v < p->n; v++)
            for (int d = 0; d < p->m; d++) {
                int old = dev[v];
                double t;
                if (d == old) continue;
                dev[v] = d;
                t = f == obj_j ? j_below(p, dev, j * (1 - 1e-12)) : f(p, dev, ctx);
                if (t < j * (1 - 1e-12)) j = t, better = 1;
                else dev[v] = old;
            }
        for (int u = 0; u < p->n; u++)
            for (int v = u + 1; v < p->n; v++) {
                int a = dev[u], b = dev[v];
                double t;
                if (a == b) continue;
                dev[u] = b, dev[v] = a;
                t = f == obj_j ? j_below(p, dev, j * (1 - 1e-12)) : f(p, dev, ctx);
                if (t < j * (1 - 1e-12)) j = t, better = 1;
                else dev[u] = a, dev[v] = b;
            }
        if (!better) break;
    }
    return j;
}

static double improve(const pt_pprob *p, int *dev, double j)
{
    return improve_by(p, dev, j, obj_j, NULL);
}

/* The heuristic; stages is the chain DP's answer when the caller has it
 * (NULL: computed here). */
static double heuristic(const pt_pprob *p, int *dev, const int *stages, pt_arena *a)
{
    int n = p->n, *try = pt_arena_array(a, (size_t)(n > 0 ? n : 1), sizeof *try);
    double best = INFINITY, total = 0, acc = 0;
    if (!try) return INFINITY;
    /* start 1: the DP's stages */
    if (stages) memcpy(try, stages, (size_t)n * sizeof *try);
    if (stages || (n <= 64 && chain_dp(p, try, a) < INFINITY)) {
        best = improve(p, try, pt_pprob_objective(p, try, NULL, NULL));
        memcpy(dev, try, (size_t)n * sizeof *dev);
    }
    /* start 2: equal shares of the work in topological order */
    for (int v = 0; v < n; v++) total += p->dur[v];
    for (int v = 0; v < n; v++) {
        int d = total > 0 ? (int)(acc / total * p->m) : 0;
        try[v] = d < p->m ? d : p->m - 1;
        acc += p->dur[v];
    }
    {
        double j = pt_pprob_objective(p, try, NULL, NULL);
        if (j < INFINITY) j = improve(p, try, j);
        if (j < best) best = j, memcpy(dev, try, (size_t)n * sizeof *dev);
    }
    /* start 3: greedy, largest node first, onto the device that keeps J least */
    for (int v = 0; v < n; v++) try[v] = 0;
    if (p->m > 1) {
        for (int v = 0; v < n; v++) {
            double bj = INFINITY;
            int bd = 0;
            for (int d = 0; d < p->m; d++) {
                double j;
                try[v] = d;
                j = pt_pprob_objective(p, try, NULL, NULL);
                if (j < bj) bj = j, bd = d;
            }
            try[v] = bd;
        }
    }
    {
        double j = pt_pprob_objective(p, try, NULL, NULL);
        if (j < INFINITY) j = improve(p, try, j);
        if (j < best) best = j, memcpy(dev, try, (size_t)n * sizeof *dev);
    }
    return best;
}

double pt_pprob_heuristic(const pt_pprob *p, int *dev)
{
    pt_arena a;
    double j;
    pt_arena_init(&a, NULL, NULL, 0);
    j = heuristic(p, dev, NULL, &a);
    pt_arena_free(&a);
    return j;
}

/* ---- the integer program (GLPK) ------------------------------------------ */

typedef struct ilp_ctx {
    const pt_pprob *p;
    int node_budget, nodes;
    double *seed;         /* a full column vector (1-based) to offer once */
    int seeded;
} ilp_ctx;

static void ilp_callback(glp_tree *tree, void *info)
{
    ilp_ctx *cx = info;
    int a, n, t;
    glp_ios_tree_size(tree, &a, &n, &t);
    cx->nodes = t;
    if (glp_ios_reason(tree) == GLP_IHEUR && !cx->seeded && cx->seed) {
        cx->seeded = 1;
        glp_ios_heur_sol(tree, cx->seed);
    }
    if (cx->node_budget > 0 && t > cx->node_budget) glp_ios_terminate(tree);
}

/* Must v start after u ends (u < v)?  Only when a path of unstreamed edges
 * leads from u to v; every other pair may overlap unless the program puts
 * the two on different devices.  reach is n x n. */
static void reachability(const pt_pprob *p, unsigned char *reach)
{
    int n = p->n;
    memset(reach, 0, (size_t)n * (size_t)n);
    for (int v = n - 1; v >= 0; v--)
        for (int e = 0; e < p->ne; e++)
            if (p->eu[e] == v && !(p->estream && p->estream[e] > 1.0)) {
                int w = p->ev[e];
                reach[(size_t)v * (size_t)n + (size_t)w] = 1;
                for (int x = 0; x < n; x++)
                    if (reach[(size_t)w * (size_t)n + (size_t)x]) reach[(size_t)v * (size_t)n + (size_t)x] = 1;
            }
}

typedef struct lp_rows {
    int *ia, *ja;
    double *ar;
    int nz, cap;
    glp_prob *lp;
} lp_rows;

static int lp_put(lp_rows *r, int row, int col, double v)
{
    if (r->nz + 1 >= r->cap) {
        int nc = r->cap ? 2 * r->cap : 4096;
        int *ia = realloc(r->ia, (size_t)nc * sizeof *ia), *ja;
        double *ar;
        if (!ia) return -1;
        r->ia = ia;
        if (!(ja = realloc(r->ja, (size_t)nc * sizeof *ja))) return -1;
        r->ja = ja;
        if (!(ar = realloc(r->ar, (size_t)nc * sizeof *ar))) return -1;
        r->ar = ar;
        r->cap = nc;
    }
    r->nz++;
    r->ia[r->nz] = row, r->ja[r->nz] = col, r->ar[r->nz] = v;
    return 0;
}

static int lp_row(lp_rows *r, int type, double lb, double ub)
{
    int i = glp_add_rows(r->lp, 1);
    glp_set_row_bnds(r->lp, i, type, lb, ub);
    return i;
}

pt_status pt_pprob_ilp(const pt_pprob *p, int node_budget, double seconds, int *dev, int *order,
                       pt_ilp_result *res, pt_diag *d)
{
    int n = p->n, m = p->m, ne = p->ne, np = 0, ncol, ret, st, fail = 0, lp_ok;
    int cx0, cy0, cz0, cZ, cS0, cW, co0;
    pt_arena A; /* everything but GLPK's own and its matrix triplets */
    int *pu = NULL, *pv = NULL, *heur;
    unsigned char *reach;
    double H = 0, tu, mu, hj, *hstart;
    lp_rows R = {0};
    pt_arena_init(&A, NULL, NULL, (size_t)n * (size_t)n + 16 * (size_t)(n + 1) * 8 + 4096);
    heur = pt_arena_array(&A, (size_t)(n > 0 ? n : 1), sizeof *heur);
    reach = pt_arena_array(&A, (size_t)n * (size_t)n + 1, 1);
    hstart = pt_arena_array(&A, (size_t)(n > 0 ? n : 1), sizeof *hstart);
    glp_iocp parm;
    ilp_ctx cx = {0};
    memset(res, 0, sizeof *res);
    if (!heur || !reach || !hstart) goto nomem;
    hj = heuristic(p, heur, NULL, &A);
    {   /* devices are alike: number them in order of first use, as the
         * program's symmetry breaking expects of the seed */
        int map[64];
        for (int k = 0; k < 64; k++) map[k] = -1;
        for (int v = 0, next = 0; v < n && m <= 64; v++) {
            if (map[heur[v]] < 0) map[heur[v]] = next++;
            heur[v] = map[heur[v]];
        }
    }
    memcpy(dev, heur, (size_t)n * sizeof *dev);
    bottom_level_order(p, hstart, order);
    res->objective = hj;
    if (m > 64) {
        pt_arena_free(&A);
        return pt_diag_set(d, NULL, "gpus", "", "placement over more than 64 devices is not supported");
    }
    reachability(p, reach);
    for (int u = 0; u < n; u++)
        for (int v = u + 1; v < n; v++)
            if (!reach[(size_t)u * (size_t)n + (size_t)v]) np++;
    if (!(pu = pt_arena_array(&A, (size_t)np + 1, sizeof *pu)) || !(pv = pt_arena_array(&A, (size_t)np + 1, sizeof *pv)))
        goto nomem;
    np = 0;
    for (int u = 0; u < n; u++)
        for (int v = u + 1; v < n; v++)
            if (!reach[(size_t)u * (size_t)n + (size_t)v]) pu[np] = u, pv[np] = v, np++;
    /* times in units of a hundredth of everything serialised, memory in
     * units of the device: the simplex needs numbers near 1 */
    for (int v = 0; v < n; v++) H += p->dur[v];
    for (int e = 0; e < ne; e++) H += p->ecomm[e];
    tu = H > 0 ? H / 100.0 : 1.0;
    mu = p->mem_cap > 0 ? p->mem_cap : 1.0;
    H = 101.0;

    glp_term_out(GLP_OFF);
    R.lp = glp_create_prob();
    glp_set_obj_dir(R.lp, GLP_MIN);
    /* columns: x[v][d], y[e], z[e][d], Z, S[v], W, o[p], s[p] */
    cx0 = 1, cy0 = cx0 + n * m, cz0 = cy0 + ne, cZ = cz0 + ne * m, cS0 = cZ + 1, cW = cS0 + n, co0 = cW + 1;
    ncol = co0 + 2 * np - 1;
    glp_add_cols(R.lp, ncol);
    for (int v = 0; v < n; v++)
        for (int k = 0; k < m; k++) {
            int c = cx0 + v * m + k;
            glp_set_col_kind(R.lp, c, GLP_BV);
            /* devices are alike: node v goes on one of the first v+1 */
            if (k > v) glp_set_col_bnds(R.lp, c, GLP_FX, 0, 0);
        }
    for (int e = 0; e < ne; e++) glp_set_col_bnds(R.lp, cy0 + e, GLP_DB, 0, 1);
    for (int q = 0; q < ne * m; q++) glp_set_col_bnds(R.lp, cz0 + q, GLP_DB, 0, 1);
    glp_set_col_bnds(R.lp, cZ, GLP_LO, 0, 0);
    for (int v = 0; v < n; v++) glp_set_col_bnds(R.lp, cS0 + v, GLP_DB, 0, H);
    glp_set_col_bnds(R.lp, cW, GLP_LO, 0, 0);
    for (int q = 0; q < np; q++) {
        glp_set_col_kind(R.lp, co0 + q, GLP_BV);
        glp_set_col_bnds(R.lp, co0 + np + q, GLP_DB, 0, 1);
    }
    glp_set_obj_coef(R.lp, cZ, (double)(p->k - 1));
    glp_set_obj_coef(R.lp, cW, 1.0);

    for (int v = 0; v < n; v++) { /* each node on one device */
        int r = lp_row(&R, GLP_FX, 1, 1);
        for (int k = 0; k < m; k++) fail |= lp_put(&R, r, cx0 + v * m + k, 1);
    }
    for (int k = 0; k < m; k++) { /* Z >= load(k); memory */
        int r = lp_row(&R, GLP_LO, 0, 0);
        fail |= lp_put(&R, r, cZ, 1);
        for (int v = 0; v < n; v++) fail |= lp_put(&R, r, cx0 + v * m + k, -(p->dur[v] / tu));
        for (int e = 0; e < ne; e++) fail |= lp_put(&R, r, cz0 + e * m + k, -(p->ecomm[e] / tu));
        if (p->mem && p->mem_cap > 0) {
            r = lp_row(&R, GLP_UP, 0, 1.0);
            for (int v = 0; v < n; v++) fail |= lp_put(&R, r, cx0 + v * m + k, p->mem[v] / mu);
        }
    }
    for (int e = 0; e < ne; e++) {
        int u = p->eu[e], v = p->ev[e], r;
        double t = p->estream ? p->estream[e] : 1.0;
        for (int k = 0; k < m; k++) {
            /* y_e >= x_uk - x_vk: cut when the ends differ */
            r = lp_row(&R, GLP_LO, 0, 0);
            fail |= lp_put(&R, r, cy0 + e, 1) | lp_put(&R, r, cx0 + u * m + k, -1) | lp_put(&R, r, cx0 + v * m + k, 1);
            /* z_ek >= |x_uk - x_vk|: device k sends or receives e */
            r = lp_row(&R, GLP_LO, 0, 0);
            fail |= lp_put(&R, r, cz0 + e * m + k, 1) | lp_put(&R, r, cx0 + u * m + k, -1) | lp_put(&R, r, cx0 + v * m + k, 1);
            r = lp_row(&R, GLP_LO, 0, 0);
            fail |= lp_put(&R, r, cz0 + e * m + k, 1) | lp_put(&R, r, cx0 + u * m + k, 1) | lp_put(&R, r, cx0 + v * m + k, -1);
        }
        if (t > 1.0) { /* streamed: first step in, last step out */
            r = lp_row(&R, GLP_LO, (p->dur[u] / tu) / t, 0);
            fail |= lp_put(&R, r, cS0 + v, 1) | lp_put(&R, r, cS0 + u, -1) | lp_put(&R, r, cy0 + e, -(p->ecomm[e] / tu) / t);
            r = lp_row(&R, GLP_LO, (p->dur[u] / tu) + (p->dur[v] / tu) / t - (p->dur[v] / tu), 0);
            fail |= lp_put(&R, r, cS0 + v, 1) | lp_put(&R, r, cS0 + u, -1) | lp_put(&R, r, cy0 + e, -(p->ecomm[e] / tu) / t);
        } else { /* S_v >= S_u + dur_u + comm_e y_e */
            r = lp_row(&R, GLP_LO, (p->dur[u] / tu), 0);
            fail |= lp_put(&R, r, cS0 + v, 1) | lp_put(&R, r, cS0 + u, -1) | lp_put(&R, r, cy0 + e, -(p->ecomm[e] / tu));
        }
    }
    for (int q = 0; q < np; q++) { /* two independent nodes on one device do not overlap */
        int u = pu[q], v = pv[q], o = co0 + q, s = co0 + np + q, r;
        for (int k = 0; k < m; k++) {
            r = lp_row(&R, GLP_LO, -1, 0);
            fail |= lp_put(&R, r, s, 1) | lp_put(&R, r, cx0 + u * m + k, -1) | lp_put(&R, r, cx0 + v * m + k, -1);
        }
        r = lp_row(&R, GLP_LO, (p->dur[u] / tu) - 2 * H, 0); /* o = 1: u first */
        fail |= lp_put(&R, r, cS0 + v, 1) | lp_put(&R, r, cS0 + u, -1) | lp_put(&R, r, o, -H) | lp_put(&R, r, s, -H);
        r = lp_row(&R, GLP_LO, (p->dur[v] / tu) - H, 0); /* o = 0: v first */
        fail |= lp_put(&R, r, cS0 + u, 1) | lp_put(&R, r, cS0 + v, -1) | lp_put(&R, r, o, H) | lp_put(&R, r, s, -H);
    }
    for (int k = 0; k < m; k++) { /* W >= the busy time of every device (a valid cut) */
        int r = lp_row(&R, GLP_LO, 0, 0);
        fail |= lp_put(&R, r, cW, 1);
        for (int v = 0; v < n; v++) fail |= lp_put(&R, r, cx0 + v * m + k, -(p->dur[v] / tu));
    }
    for (int v = 0; v < n; v++) { /* W >= end of every node */
        int r = lp_row(&R, GLP_LO, (p->dur[v] / tu), 0);
        fail |= lp_put(&R, r, cW, 1) | lp_put(&R, r, cS0 + v, -1);
    }
    if (fail) goto nomem;
    glp_load_matrix(R.lp, R.nz, R.ia, R.ja, R.ar);

    /* the heuristic's placement and its list schedule, as a column vector */
    if (hj < INFINITY) {
        double *x = pt_arena_array(&A, (size_t)ncol + 1, sizeof *x), bot = 0, lat = 0;
        if (!x) goto nomem;
        pt_pprob_objective(p, heur, &bot, &lat);
        list_latency(p, heur, order, hstart);
        for (int v = 0; v < n; v++) x[cx0 + v * m + heur[v]] = 1;
        for (int e = 0; e < ne; e++) {
            int cut = heur[p->eu[e]] != heur[p->ev[e]];
            x[cy0 + e] = cut;
            if (cut) x[cz0 + e * m + heur[p->eu[e]]] = 1, x[cz0 + e * m + heur[p->ev[e]]] = 1;
        }
        x[cZ] = bot / tu;
        for (int v = 0; v < n; v++) x[cS0 + v] = hstart[v] / tu;
        x[cW] = lat / tu;
        for (int q = 0; q < np; q++) {
            x[co0 + q] = hstart[pu[q]] <= hstart[pv[q]];
            x[co0 + np + q] = heur[pu[q]] == heur[pv[q]];
        }
        cx.seed = x;
    }
    cx.p = p;
    cx.node_budget = node_budget;
    /* no MIP presolver: the seed's columns must be the program's own */
    {
        glp_smcp sp;
        glp_init_smcp(&sp);
        sp.msg_lev = GLP_MSG_OFF;
        sp.presolve = GLP_OFF;
        lp_ok = glp_simplex(R.lp, &sp) == 0 && glp_get_status(R.lp) == GLP_OPT;
    }
    glp_init_iocp(&parm);
    parm.presolve = lp_ok ? GLP_OFF : GLP_ON;
    if (!lp_ok) cx.seed = NULL; /* the presolver's columns are not ours: no seed */
    parm.msg_lev = GLP_MSG_OFF;
    parm.tm_lim = seconds > 0 ? (int)(seconds * 1000) : INT32_MAX;
    parm.cb_func = ilp_callback;
    parm.cb_info = &cx;
    ret = glp_intopt(R.lp, &parm);
    st = glp_mip_status(R.lp);
    res->nodes = cx.nodes;
    res->timed_out = ret == GLP_ETMLIM;
    if ((ret == 0 || ret == GLP_ETMLIM || ret == GLP_ESTOP) && (st == GLP_OPT || st == GLP_FEAS)) {
        int *sol = pt_arena_array(&A, (size_t)n + 1, sizeof *sol), *ord = pt_arena_array(&A, (size_t)n + 1, sizeof *ord);
        double j;
        if (!sol || !ord) goto nomem;
        for (int v = 0; v < n; v++) {
            sol[v] = 0;
            for (int k = 0; k < m; k++)
                if (glp_mip_col_val(R.lp, cx0 + v * m + k) > 0.5) sol[v] = k;
            hstart[v] = glp_mip_col_val(R.lp, cS0 + v);
            ord[v] = v;
        }
        /* the program's start times give the order each device runs its
         * nodes in (a topological order: every edge delays its consumer) */
        for (int i = 1; i < n; i++)
            for (int q = i; q > 0 && hstart[ord[q]] < hstart[ord[q - 1]] - 1e-9; q--) {
                int x = ord[q];
                ord[q] = ord[q - 1], ord[q - 1] = x;
            }
        j = pt_pprob_objective_order(p, sol, ord, NULL, NULL);
        res->bound = glp_mip_obj_val(R.lp) * tu;
        res->optimal = ret == 0 && st == GLP_OPT && !(cx.node_budget > 0 && cx.nodes > cx.node_budget);
        if (j < res->objective) {
            res->objective = j;
            memcpy(dev, sol, (size_t)n * sizeof *dev);
            memcpy(order, ord, (size_t)n * sizeof *ord);
        }
        /* proven: the program closed its gap and its schedule is what the
         * list schedule in its order gives */
        if (res->optimal && res->objective > res->bound * (1 + 1e-6)) res->optimal = 0;
    } else if (ret != GLP_ETMLIM && ret != GLP_ESTOP && ret != GLP_ENOPFS && ret != GLP_ENODFS) {
        pt_diag_set(d, NULL, "ilp", "", "GLPK failed (glp_intopt returned %d)", ret);
        glp_delete_prob(R.lp);
        free(R.ia), free(R.ja), free(R.ar);
        pt_arena_free(&A);
        return PT_EINPUT;
    }
    glp_delete_prob(R.lp);
    free(R.ia), free(R.ja), free(R.ar);
    pt_arena_free(&A);
    return PT_OK;
nomem:
    if (R.lp) glp_delete_prob(R.lp);
    free(R.ia), free(R.ja), free(R.ar);
    pt_arena_free(&A);
    pt_diag_set(d, NULL, "memory", "", "out of memory");
    return PT_ENOMEM;
}

/* ---- a layer graph on a worker ------------------------------------------- */

const char *pt_place_method_name(pt_place_method m)
{
    static const char *names[] = {"dp", "heuristic", "ilp"};
    return names[m];
}

/* The problem's arrays, from the arena (freed with it).  -1 out of memory. */
static int pprob_alloc(pt_pprob *p, int n, int ne, pt_arena *a)
{
    memset(p, 0, sizeof *p);
    p->n = n, p->ne = ne;
    p->dur = pt_arena_array(a, (size_t)n + 1, sizeof *p->dur);
    p->mem = pt_arena_array(a, (size_t)n + 1, sizeof *p->mem);
    p->eu = pt_arena_array(a, (size_t)ne + 1, sizeof *p->eu);
    p->ev = pt_arena_array(a, (size_t)ne + 1, sizeof *p->ev);
    p->ecomm = pt_arena_array(a, (size_t)ne + 1, sizeof *p->ecomm);
    p->estream = pt_arena_array(a, (size_t)ne + 1, sizeof *p->estream);
    return p->dur && p->mem && p->eu && p->ev && p->ecomm && p->estream ? 0 : -1;
}

/* A layer that works one time step at a time: a consumer of it can start
 * before the whole sequence is done.  Bidirectional LSTMs and self-attention
 * need the whole sequence; cross-attention (GNMT's decoder, Wu et al. 2016)
 * attends from each decoder step to an encoder output that is already
 * there, so it goes step by step with its query. */
static int per_step(const pt_glayer *l)
{
    if (!l->seq || l->t <= 1) return 0;
    switch (l->op) {
    case PT_G_LSTM: return l->ngemm > 0 && l->gbatch[0] < 1.5;
    case PT_G_ATTENTION: return l->kv >= 0;
    case PT_G_INPUT: case PT_G_EMBEDDING: case PT_G_ADD: case PT_G_CONCAT: case PT_G_RELU:
    case PT_G_NORM: case PT_G_LINEAR: case PT_G_LOSS: return 1;
    default: return 0;
    }
}

static double out_elems(const pt_glayer *l)
{
    return l->seq ? (double)l->t * (double)l->d : (double)l->c * (double)l->h * (double)l->w;
}

/* The layer-level problem for micro-batches of mu samples, k of them. */
static int layer_problem(const pt_graph *g, const pt_cluster *c, const pt_place_opts *o, double mu, int k,
                         pt_pprob *p, pt_arena *a)
{
    int ne = 0;
    for (int i = 0; i < g->n; i++) ne += g->l[i].nin + (g->l[i].kv >= 0);
    if (pprob_alloc(p, g->n, ne, a) < 0) return -1;
    p->m = o->m, p->k = k, p->ne = 0;
    p->mem_cap = c->dev.memory_GiB * 1073741824.0;
    for (int i = 0; i < g->n; i++) {
        const pt_glayer *l = &g->l[i];
        int first = p->ne; /* the edges into i start here */
        p->dur[i] = 3.0 * pt_glayer_fwd_s(l, &c->dev, o->dtype, mu);
        /* weights, gradients, optimizer (16 B per parameter, mixed
         * precision) and the activations of all k micro-batches (GPipe) */
        p->mem[i] = 16.0 * l->params + l->act_bytes * mu * (double)k;
        for (int j = 0; j <= l->nin; j++) {
            int u = j < l->nin ? l->in[j] : l->kv, dup = 0;
            if (u < 0 || u >= i) continue;
            /* a duplicate can only be among i's own edges (at most 9) */
            for (int e = first; e < p->ne; e++) dup |= p->eu[e] == u;
            if (dup) continue;
            p->eu[p->ne] = u, p->ev[p->ne] = i;
            p->ecomm[p->ne] = 2.0 * pt_p2p_time(c, (int64_t)(2.0 * out_elems(&g->l[u]) * mu), o->m, 1);
            p->estream[p->ne] = j < l->nin && per_step(&g->l[u]) && per_step(l) ? (double)l->t : 1.0;
            p->ne++;
        }
    }
    return 0;
}

/* ---- coarsening ------------------------------------------------------------
 * Contracts the problem to at most max nodes: first series pairs (a node
 * whose only consumer has no other input), the cheapest first, then the
 * cheapest edge whose contraction leaves no cycle (no other path from its
 * producer to its consumer).  Ties go to the smaller producer, then the
 * smaller consumer; the survivor of a merge keeps the producer's number.
 * group[i] gets the new node of old node i; the new nodes are in the
 * topological order that takes the smallest ready number first.
 *
 * This is the contraction the n x n matrix version did (its scans were
 * O(n^2) per merge, O(n^3) in all: 1,000 layers took two minutes), with the
 * same choices in the same order, on sparse structures:
 *   - the live edges in a hash table on (producer, consumer) and in linked
 *     lists per node, each merge moving the absorbed node's edges (O(its
 *     degree));
 *   - two heaps of candidates with lazy deletion: series pairs keyed by
 *     (cost, producer), edges by (cost, producer, consumer), each entry
 *     stamped with its nodes' versions (a merge bumps the survivor's, so an
 *     entry whose cost changed is skipped when it surfaces).  After merging
 *     into u, only u and its producers can become series pairs, and only
 *     edges at u change cost, so those are pushed again;
 *   - an edge that is not safe when it surfaces is dropped: it becomes safe
 *     only when one of its ends absorbs the other path's last node, a merge
 *     into that end, which pushes it again.  The safety test is a search
 *     from the producer's other consumers.
 * O((n + e) log(n + e)) for the heaps plus the safety searches; on the
 * built-in graphs and residual chains the searches are short. */

typedef struct cedge {
    int u, v, alive;
    int next_out, next_in;   /* lists of u's out-edges and v's in-edges */
    double w, st;            /* transfer seconds; time steps it streams over */
} cedge;

typedef struct cent {        /* a heap entry */
    double cost;
    int u, v;
    unsigned vu, vv;         /* versions of u and v when pushed */
} cent;

typedef struct cheap {
    cent *e;
    int n, cap;
} cheap;

typedef struct cg {
    pt_arena *a;
    int n;
    double *dur, *mem;
    int *parent;             /* merged into; parent[i] == i: alive */
    unsigned *ver;
    int *outdeg, *indeg, *out_head, *in_head;
    cedge *E;
    int ne, ecap;
    int *hash, hmask, hused; /* edge ids by (u, v); -1 empty, -2 deleted */
    int *mark, *markb, stamp, *stack, *stackb; /* the two searches of cg_other_path */
    cheap series, edges;
} cg;

static int cent_less(const cent *x, const cent *y)
{
    if (x->cost != y->cost) return x->cost < y->cost;
    if (x->u != y->u) return x->u < y->u;
    return x->v < y->v;
}

static int cheap_push(cg *g, cheap *h, cent x)
{
    int i;
    if (h->n == h->cap) { /* grow in the arena: the old array is left behind */
        int nc = h->cap ? 2 * h->cap : 1024;
        cent *ne = pt_arena_array(g->a, (size_t)nc, sizeof *ne);
        if (!ne) return -1;
        if (h->n) memcpy(ne, h->e, (size_t)h->n * sizeof *ne);
        h->e = ne, h->cap = nc;
    }
    i = h->n++;
    h->e[i] = x;
    while (i > 0 && cent_less(&h->e[i], &h->e[(i - 1) / 2])) {
        cent t = h->e[i];
        h->e[i] = h->e[(i - 1) / 2], h->e[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return 0;
}

static cent cheap_pop(cheap *h)
{
    cent top = h->e[0];
    int i = 0;
    h->e[0] = h->e[--h->n];
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && cent_less(&h->e[l], &h->e[m])) m = l;
        if (r < h->n && cent_less(&h->e[r], &h->e[m])) m = r;
        if (m == i) break;
        cent t = h->e[i];
        h->e[i] = h->e[m], h->e[m] = t;
        i = m;
    }
    return top;
}

static uint32_t cg_slot(const cg *g, int u, int v)
{
    uint64_t k = ((uint64_t)(uint32_t)u << 32 | (uint32_t)v) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(k >> 32) & (uint32_t)g->hmask;
}

static int cg_find(const cg *g, int u, int v)
{
    for (uint32_t i = cg_slot(g, u, v);; i = (i + 1) & (uint32_t)g->hmask) {
        int e = g->hash[i];
        if (e == -1) return -1;
        if (e >= 0 && g->E[e].u == u && g->E[e].v == v) return e;
    }
}

/* Puts edge e in the table under its current ends (not there yet); a table
 * whose live and deleted slots pass half is rebuilt from the live edges, so
 * a probe always ends at an empty slot. */
static void cg_hash(cg *g, int e)
{
    uint32_t i;
    if (2 * (g->hused + 1) > g->hmask + 1) {
        for (int k = 0; k <= g->hmask; k++) g->hash[k] = -1;
        g->hused = 0;
        for (int f = 0; f < g->ne; f++)
            if (g->E[f].alive && f != e) {
                for (i = cg_slot(g, g->E[f].u, g->E[f].v); g->hash[i] != -1; i = (i + 1) & (uint32_t)g->hmask) {}
                g->hash[i] = f, g->hused++;
            }
    }
    for (i = cg_slot(g, g->E[e].u, g->E[e].v); g->hash[i] >= 0; i = (i + 1) & (uint32_t)g->hmask) {}
    if (g->hash[i] == -1) g->hused++;
    g->hash[i] = e;
}

static void cg_unhash(cg *g, int e)
{
    for (uint32_t i = cg_slot(g, g->E[e].u, g->E[e].v);; i = (i + 1) & (uint32_t)g->hmask)
        if (g->hash[i] == e) {
            g->hash[i] = -2;
            return;
        }
}

/* A new edge (only while loading the problem). */
static void cg_add(cg *g, int u, int v, double w, double st)
{
    int e = g->ne++;
    g->E[e] = (cedge){u, v, 1, g->out_head[u], g->in_head[v], w, st};
    g->out_head[u] = e, g->in_head[v] = e;
    g->outdeg[u]++, g->indeg[v]++;
    cg_hash(g, e);
}

static void cg_kill(cg *g, int e)
{
    g->E[e].alive = 0;
    g->outdeg[g->E[e].u]--, g->indeg[g->E[e].v]--;
    cg_unhash(g, e);
}

/* The first live out-edge of u (dead ones unlinked on the way). */
static int cg_first_out(cg *g, int u)
{
    while (g->out_head[u] >= 0 && !g->E[g->out_head[u]].alive) g->out_head[u] = g->E[g->out_head[u]].next_out;
    return g->out_head[u];
}

/* u's series candidate, when it has one: its only consumer has no other input. */
static int cg_push_series(cg *g, int u)
{
    int e, v;
    if (g->parent[u] != u || g->outdeg[u] != 1) return 0;
    e = cg_first_out(g, u);
    v = g->E[e].v;
    if (g->indeg[v] != 1) return 0;
    return cheap_push(g, &g->series, (cent){g->dur[u] + g->dur[v], u, v, g->ver[u], g->ver[v]});
}

static int cg_push_edge(cg *g, int e)
{
    int u = g->E[e].u, v = g->E[e].v;
    return cheap_push(g, &g->edges, (cent){g->dur[u] + g->dur[v], u, v, g->ver[u], g->ver[v]});
}

static int cg_current(const cg *g, const cent *x)
{
    return g->parent[x->u] == x->u && g->parent[x->v] == x->v && g->ver[x->u] == x->vu &&
           g->ver[x->v] == x->vv && cg_find(g, x->u, x->v) >= 0;
}

/* Is v reachable from u other than by the edge (u, v)?  Searched from both
 * ends at once, one edge at a time each way (forward from u over out-edges,
 * backward from v over in-edges), until either side runs out (no such path)
 * or finds the other: the work is about twice the smaller search, so an
 * input feeding thousands of layers is settled from the short side. */
static int cg_other_path(cg *g, int u, int v)
{
    int topF = 0, topB = 0, curF = u, curB = v, eF = g->out_head[u], eB = g->in_head[v];
    g->stamp++;
    g->mark[u] = g->stamp;
    g->markb[v] = g->stamp;
    for (;;) {
        /* one edge forward */
        while (eF < 0) {
            if (topF == 0) return 0;
            curF = g->stack[--topF];
            eF = g->out_head[curF];
        }
        {
            const cedge *e = &g->E[eF];
            eF = e->next_out;
            if (e->alive && !(curF == u && e->v == v)) {
                int y = e->v;
                if (y == v || g->markb[y] == g->stamp) return 1;
                if (g->mark[y] != g->stamp) g->mark[y] = g->stamp, g->stack[topF++] = y;
            }
        }
        /* one edge backward */
        while (eB < 0) {
            if (topB == 0) return 0;
            curB = g->stackb[--topB];
            eB = g->in_head[curB];
        }
        {
            const cedge *e = &g->E[eB];
            eB = e->next_in;
            if (e->alive && !(curB == v && e->u == u)) {
                int w = e->u;
                if (w == u || g->mark[w] == g->stamp) return 1;
                if (g->markb[w] != g->stamp) g->markb[w] = g->stamp, g->stackb[topB++] = w;
            }
        }
    }
}

/* Merges bv into bu and pushes the candidates that changed.  An edge of bv
 * whose other end bu has no edge to yet is moved (its record relinked), one
 * it has is added into bu's and dropped: records are never made here, so
 * the edge array keeps the size of the input's edges. */
static int cg_merge(cg *g, int bu, int bv)
{
    int rc = 0, next;
    g->dur[bu] += g->dur[bv], g->mem[bu] += g->mem[bv];
    for (int e = g->out_head[bv]; e >= 0; e = next) {
        int x = g->E[e].v, f;
        next = g->E[e].next_out;
        if (!g->E[e].alive) continue;
        f = x == bu ? -1 : cg_find(g, bu, x);
        if (x == bu || f >= 0) {
            if (f >= 0) {
                if (g->E[e].st < g->E[f].st) g->E[f].st = g->E[e].st;
                g->E[f].w += g->E[e].w;
            }
            cg_kill(g, e);
            continue;
        }
        cg_unhash(g, e);
        g->E[e].u = bu;
        cg_hash(g, e);
        g->outdeg[bv]--, g->outdeg[bu]++;
        g->E[e].next_out = g->out_head[bu], g->out_head[bu] = e;
    }
    for (int e = g->in_head[bv]; e >= 0; e = next) {
        int x = g->E[e].u, f;
        next = g->E[e].next_in;
        if (!g->E[e].alive) continue;
        f = x == bu ? -1 : cg_find(g, x, bu);
        if (x == bu || f >= 0) { /* x == bu: the contracted edge itself */
            if (f >= 0) {
                if (g->E[e].st < g->E[f].st) g->E[f].st = g->E[e].st;
                g->E[f].w += g->E[e].w;
            }
            cg_kill(g, e);
            continue;
        }
        cg_unhash(g, e);
        g->E[e].v = bu;
        cg_hash(g, e);
        g->indeg[bv]--, g->indeg[bu]++;
        g->E[e].next_in = g->in_head[bu], g->in_head[bu] = e;
    }
    g->parent[bv] = bu;
    g->ver[bu]++;
    rc |= cg_push_series(g, bu);
    for (int e = g->in_head[bu], *prev = &g->in_head[bu]; e >= 0; e = *prev) {
        if (!g->E[e].alive) { /* unlink as we go: lists stay as long as the live degree */
            *prev = g->E[e].next_in;
            continue;
        }
        rc |= cg_push_series(g, g->E[e].u) | cg_push_edge(g, e);
        prev = &g->E[e].next_in;
    }
    for (int e = g->out_head[bu], *prev = &g->out_head[bu]; e >= 0; e = *prev) {
        if (!g->E[e].alive) {
            *prev = g->E[e].next_out;
            continue;
        }
        rc |= cg_push_edge(g, e);
        prev = &g->E[e].next_out;
    }
    return rc;
}

static int cmp_edge_uv(const void *a, const void *b)
{
    const cedge *x = a, *y = b;
    if (x->u != y->u) return (x->u > y->u) - (x->u < y->u);
    return (x->v > y->v) - (x->v < y->v);
}

static int coarsen(const pt_pprob *in, int max, pt_pprob *out, int *group, pt_arena *a)
{
    cg g;
    int n = in->n, alive = n, ecap = in->ne + 1, hcap = 64, nlive = 0, cnt = 0;
    int *order, *ready, nready = 0;
    cedge *live;
    memset(&g, 0, sizeof g);
    if (n < 1) return -1;
    while (hcap < 4 * ecap) hcap *= 2;
    g.a = a, g.n = n, g.ecap = ecap, g.hmask = hcap - 1;
    g.dur = pt_arena_array(a, (size_t)n, sizeof *g.dur);
    g.mem = pt_arena_array(a, (size_t)n, sizeof *g.mem);
    g.parent = pt_arena_array(a, (size_t)n, sizeof *g.parent);
    g.ver = pt_arena_array(a, (size_t)n, sizeof *g.ver);
    g.outdeg = pt_arena_array(a, (size_t)n, sizeof *g.outdeg);
    g.indeg = pt_arena_array(a, (size_t)n, sizeof *g.indeg);
    g.out_head = pt_arena_array(a, (size_t)n, sizeof *g.out_head);
    g.in_head = pt_arena_array(a, (size_t)n, sizeof *g.in_head);
    g.mark = pt_arena_array(a, (size_t)n, sizeof *g.mark);
    g.stack = pt_arena_array(a, (size_t)n, sizeof *g.stack);
    g.markb = pt_arena_array(a, (size_t)n, sizeof *g.markb);
    g.stackb = pt_arena_array(a, (size_t)n, sizeof *g.stackb);
    g.E = pt_arena_array(a, (size_t)ecap, sizeof *g.E);
    g.hash = pt_arena_array(a, (size_t)hcap, sizeof *g.hash);
    order = pt_arena_array(a, (size_t)n, sizeof *order);
    ready = pt_arena_array(a, (size_t)n, sizeof *ready);
    if (!g.dur || !g.mem || !g.parent || !g.ver || !g.outdeg || !g.indeg || !g.out_head || !g.in_head ||
        !g.mark || !g.markb || !g.stack || !g.stackb || !g.E || !g.hash || !order || !ready)
        return -1;
    for (int i = 0; i < n; i++) {
        g.dur[i] = in->dur[i], g.mem[i] = in->mem ? in->mem[i] : 0;
        g.parent[i] = i, g.out_head[i] = g.in_head[i] = -1;
    }
    for (int i = 0; i < hcap; i++) g.hash[i] = -1;
    for (int e = 0; e < in->ne; e++) { /* a repeated edge: the least streaming, the transfers added */
        double s = in->estream ? in->estream[e] : 1.0;
        int f = cg_find(&g, in->eu[e], in->ev[e]);
        if (f >= 0 && s > g.E[f].st) s = g.E[f].st;
        if (f >= 0) g.E[f].st = s, g.E[f].w += in->ecomm[e];
        else cg_add(&g, in->eu[e], in->ev[e], in->ecomm[e], s);
    }
    if (alive > max) {
        for (int u = 0; u < n; u++)
            if (cg_push_series(&g, u)) return -1;
        for (int e = 0; e < g.ne; e++)
            if (cg_push_edge(&g, e)) return -1;
    }
    while (alive > max) {
        int bu = -1, bv = -1;
        while (g.series.n > 0 && bu < 0) {
            cent x = cheap_pop(&g.series);
            if (cg_current(&g, &x) && g.outdeg[x.u] == 1 && g.indeg[x.v] == 1) bu = x.u, bv = x.v;
        }
        while (g.edges.n > 0 && bu < 0) {
            cent x = cheap_pop(&g.edges);
            if (cg_current(&g, &x) && !cg_other_path(&g, x.u, x.v)) bu = x.u, bv = x.v;
        }
        if (bu < 0) break;
        if (cg_merge(&g, bu, bv)) return -1;
        alive--;
    }
    /* topological order of the survivors, smallest number first (a min-heap
     * of the ready ones) */
    for (int v = 0; v < n; v++)
        if (g.parent[v] == v && g.indeg[v] == 0) {
            int i = nready++;
            ready[i] = v;
            while (i > 0 && ready[i] < ready[(i - 1) / 2]) {
                int t = ready[i];
                ready[i] = ready[(i - 1) / 2], ready[(i - 1) / 2] = t;
                i = (i - 1) / 2;
            }
        }
    while (nready > 0) {
        int pick = ready[0], i = 0;
        ready[0] = ready[--nready];
        for (;;) {
            int l = 2 * i + 1, r = l + 1, m = i;
            if (l < nready && ready[l] < ready[m]) m = l;
            if (r < nready && ready[r] < ready[m]) m = r;
            if (m == i) break;
            int t = ready[i];
            ready[i] = ready[m], ready[m] = t;
            i = m;
        }
        order[pick] = cnt++;
        for (int e = g.out_head[pick]; e >= 0; e = g.E[e].next_out)
            if (g.E[e].alive && --g.indeg[g.E[e].v] == 0) {
                int j = nready++;
                ready[j] = g.E[e].v;
                while (j > 0 && ready[j] < ready[(j - 1) / 2]) {
                    int t = ready[j];
                    ready[j] = ready[(j - 1) / 2], ready[(j - 1) / 2] = t;
                    j = (j - 1) / 2;
                }
            }
    }
    if (cnt != alive) return -1; /* cannot happen: contractions keep a DAG */
    /* the edges in (producer, consumer) order of the old numbers, as before */
    if (!(live = pt_arena_array(a, (size_t)(g.ne > 0 ? g.ne : 1), sizeof *live))) return -1;
    for (int e = 0; e < g.ne; e++)
        if (g.E[e].alive) live[nlive++] = g.E[e];
    qsort(live, (size_t)nlive, sizeof *live, cmp_edge_uv);
    if (pprob_alloc(out, alive, nlive, a) < 0) return -1;
    out->m = in->m, out->k = in->k, out->mem_cap = in->mem_cap;
    for (int v = 0; v < n; v++)
        if (g.parent[v] == v) out->dur[order[v]] = g.dur[v], out->mem[order[v]] = g.mem[v];
    for (int e = 0; e < nlive; e++) {
        out->eu[e] = order[live[e].u], out->ev[e] = order[live[e].v];
        out->ecomm[e] = live[e].w, out->estream[e] = live[e].st;
    }
    for (int i = 0; i < n; i++) {
        int r = i;
        while (g.parent[r] != r) r = g.parent[r];
        group[i] = order[r];
    }
    return 0;
}

/* a chain: every node feeds the next and nothing else, nothing streams */
static int is_chain(const pt_pprob *p)
{
    if (p->ne != p->n - 1) return 0;
    for (int e = 0; e < p->ne; e++)
        if (p->ev[e] != p->eu[e] + 1 || (p->estream && p->estream[e] > 1.0)) return 0;
    return 1;
}

typedef struct place_try {
    pt_pprob p;
    int *group, *dev, *order; /* order: NULL = index order */
    double j;
    double step;              /* j plus, with dp > 1, the data-parallel tail */
    pt_place_method method;
    int optimal;
} place_try;

/* The part of a device's gradient all-reduce (ar seconds) that the
 * backward cannot hide: it runs bucket by bucket during the window from
 * when the device's last micro-batch's gradients start to appear to the end
 * of the worker's backward (which includes the backward of the devices
 * upstream of it), and the last of its nl layers' buckets never hides. */
static double dp_exposed(double ar, double window, int nl)
{
    double e;
    if (ar <= 0) return 0;
    if (nl < 1) nl = 1;
    e = ar - window * (1.0 - 1.0 / nl);
    return e < ar / nl ? ar / nl : e;
}

/* What data parallelism adds to a worker's step over dp workers of c. */
typedef struct dp_ctx {
    const pt_cluster *c;
    int64_t dp;
    double membw;           /* bytes/s the optimizer streams at            */
    double *params;         /* [n] parameters of each node                  */
    int *players;           /* [n] layers with parameters in each node      */
    double *fin;            /* [n] scratch                                  */
} dp_ctx;

/* The busiest device's exposed all-reduce plus its optimizer step; the
 * window of device d is 2/3 of its last node's finish in the forward-and-
 * backward schedule (the backward mirrors the forward at twice its cost). */
static double dp_tail(const pt_pprob *p, const int *dev, const int *order, const dp_ctx *x)
{
    double P[64] = {0}, win[64] = {0}, worst = 0;
    int nl[64] = {0};
    pt_pprob_finish(p, dev, order, x->fin);
    for (int v = 0; v < p->n; v++) {
        P[dev[v]] += x->params[v];
        nl[dev[v]] += x->players[v];
        if (2.0 / 3.0 * x->fin[v] > win[dev[v]]) win[dev[v]] = 2.0 / 3.0 * x->fin[v];
    }
    for (int d = 0; d < p->m; d++) {
        double ar = pt_coll_time(x->c, PT_ALLREDUCE, (int64_t)(2.0 * P[d]), x->dp, p->m);
        double t = dp_exposed(ar, win[d], nl[d]) + 16.0 * P[d] / x->membw;
        if (t > worst) worst = t;
    }
    return worst;
}

static double obj_step(const pt_pprob *p, const int *dev, void *ctx)
{
    double j = pt_pprob_objective(p, dev, NULL, NULL);
    return j < INFINITY ? j + dp_tail(p, dev, NULL, ctx) : j;
}

/* One micro-batch count: everything from the arena.  -1 out of memory. */
static int solve_k(const pt_graph *g, const pt_cluster *c, const pt_place_opts *o, int k, place_try *t,
                   pt_arena *a)
{
    pt_pprob lay;
    int max = o->max_nodes > 1 ? o->max_nodes : 40;
    memset(t, 0, sizeof *t);
    if (layer_problem(g, c, o, o->batch / k, k, &lay, a) < 0) return -1;
    t->group = pt_arena_array(a, (size_t)g->n, sizeof *t->group);
    if (!t->group || coarsen(&lay, max < 64 ? max : 64, &t->p, t->group, a) < 0) return -1;
    if (pprob_index_in(&t->p, a) < 0) return -1;
    if (!(t->dev = pt_arena_array(a, (size_t)t->p.n + 1, sizeof *t->dev))) return -1;
    if (o->m == 1) {
        t->j = t->step = pt_pprob_objective(&t->p, t->dev, NULL, NULL);
        t->method = PT_PLACE_DP, t->optimal = 1;
        return 0;
    }
    {
        double jd = chain_dp(&t->p, t->dev, a), jh;
        int *h = pt_arena_array(a, (size_t)t->p.n + 1, sizeof *h);
        if (!h) return -1;
        if (jd < INFINITY) jd = pt_pprob_objective(&t->p, t->dev, NULL, NULL);
        jh = heuristic(&t->p, h, jd < INFINITY ? t->dev : NULL, a);
        t->j = jd, t->method = PT_PLACE_DP, t->optimal = jd < INFINITY && is_chain(&t->p);
        if (jh < jd * (1 - 1e-12)) {
            t->j = jh, t->method = PT_PLACE_HEURISTIC, t->optimal = 0;
            memcpy(t->dev, h, (size_t)t->p.n * sizeof *h);
        }
    }
    t->step = t->j;
    /* a worker among others: its devices' gradient all-reduces are part of
     * the step, so balance them too, from the best placement for J */
    if (o->dp > 1 && t->j < INFINITY) {
        size_t n = (size_t)t->p.n;
        dp_ctx x = {.c = c, .dp = o->dp, .membw = c->dev.memory_bw_GBps * 1e9 * c->dev.mem_eff};
        int *h = pt_arena_array(a, n, sizeof *h);
        x.params = pt_arena_array(a, n, sizeof *x.params);
        x.players = pt_arena_array(a, n, sizeof *x.players);
        x.fin = pt_arena_array(a, n, sizeof *x.fin);
        if (!h || !x.params || !x.players || !x.fin) return -1;
        for (int i = 0; i < g->n; i++) {
            x.params[t->group[i]] += g->l[i].params;
            x.players[t->group[i]] += g->l[i].params > 0;
        }
        memcpy(h, t->dev, n * sizeof *h);
        t->step = obj_step(&t->p, h, &x);
        {
            double s = improve_by(&t->p, h, t->step, obj_step, &x);
            if (s < t->step * (1 - 1e-12)) {
                memcpy(t->dev, h, n * sizeof *h);
                t->step = s, t->j = pt_pprob_objective(&t->p, h, NULL, NULL);
                t->method = PT_PLACE_HEURISTIC, t->optimal = 0;
            }
        }
    }
    return a->failed ? -1 : 0;
}

void pt_placement_free(pt_placement *p)
{
    if (p->layer_dev) {
        pt_alloc_fn fn = p->alloc ? p->alloc : pt_alloc_default;
        fn(p->alloc_ud, p->layer_dev, p->layer_dev_bytes, 0);
    }
    memset(p, 0, sizeof *p);
}

void pt_place_data_parallel(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, double batch, int64_t dp,
                            pt_placement *out)
{
    double bw = c->dev.memory_bw_GBps * 1e9 * c->dev.mem_eff;
    double params[64] = {0}, mem[64] = {0};
    int layers[64] = {0};
    (void)dtype;
    for (int i = 0; i < g->n; i++) {
        int dv = out->layer_dev[i];
        const pt_glayer *l = &g->l[i];
        params[dv] += l->params;
        layers[dv] += l->params > 0;
        mem[dv] += 16.0 * l->params + l->act_bytes * batch;
    }
    out->dp_comm_s = out->optimizer_s = out->mem_bytes = 0;
    /* each device all-reduces its own gradients with its peers in the other
     * workers (stride m), as dp_tail prices it */
    for (int dv = 0; dv < out->m; dv++) {
        double ar = pt_coll_time(c, PT_ALLREDUCE, (int64_t)(2.0 * params[dv]), dp, out->m);
        double exposed = dp_exposed(ar, out->grad_window_s[dv], layers[dv]);
        if (exposed + 16.0 * params[dv] / bw > out->dp_comm_s + out->optimizer_s)
            out->dp_comm_s = exposed, out->optimizer_s = 16.0 * params[dv] / bw;
        if (mem[dv] > out->mem_bytes) out->mem_bytes = mem[dv];
    }
    out->step_s = out->pipe_s + out->dp_comm_s + out->optimizer_s;
    out->fits = out->pipe_s < INFINITY && out->mem_bytes <= c->dev.memory_GiB * 1073741824.0;
}

/* Bytes one micro-batch count's work takes in the arena (a generous guess:
 * more only costs another block). */
static size_t arena_guess(const pt_graph *g)
{
    size_t n = (size_t)g->n, e = 0;
    for (int i = 0; i < g->n; i++) e += (size_t)g->l[i].nin + 1;
    return 6 * (n * 160 + e * 240) + ((size_t)1 << 20);
}

static pt_status nomem(pt_arena *a, pt_placement *out, pt_diag *d)
{
    pt_arena_free(a);
    pt_placement_free(out);
    pt_diag_set(d, NULL, "memory", "", "out of memory");
    return PT_ENOMEM;
}

pt_status pt_place_graph(const pt_graph *g, const pt_cluster *c, const pt_place_opts *o, pt_placement *out,
                         pt_diag *d)
{
    place_try best = {0};
    pt_arena a;
    pt_alloc_fn fn = o->alloc ? o->alloc : pt_alloc_default;
    memset(out, 0, sizeof *out);
    if (o->m < 1 || o->m > 64) return pt_diag_set(d, NULL, "gpus", "", "a worker has 1 to 64 devices, not %d", o->m);
    if (!(o->batch >= 1)) return pt_diag_set(d, NULL, "batch", "", "a worker needs at least one sample per step");
    if (g->n < 1) return pt_diag_set(d, NULL, "layers", "", "the graph has no layers");
    /* one arena for the whole placement: one allocation when the guess holds */
    pt_arena_init(&a, fn, o->alloc_ud, arena_guess(g));
    best.j = best.step = INFINITY;
    /* micro-batch counts: powers of two that leave whole samples */
    for (int k = 1; k <= 16 && o->batch / k >= 1.0; k *= 2) {
        place_try t;
        if (fmod(o->batch, (double)k) != 0) break;
        if (solve_k(g, c, o, k, &t, &a) < 0) return nomem(&a, out, d);
        if (t.step < best.step || !best.dev) best = t; /* the first is kept even if nothing fits */
        if (o->m == 1) break; /* one device: micro-batches only add steps */
    }
    if (!best.dev) {
        pt_arena_free(&a);
        return pt_diag_set(d, NULL, "batch", "", "no micro-batch count divides the batch");
    }
    out->timed_out = 0;
    out->too_large = o->use_ilp && o->m > 1 && best.p.n > PT_ILP_MAX_NODES;
    if (o->use_ilp && o->m > 1 && o->dp <= 1 && best.j < INFINITY && !out->too_large) {
        pt_ilp_result r;
        int *sol = pt_arena_array(&a, (size_t)best.p.n, sizeof *sol);
        int *ord = pt_arena_array(&a, (size_t)best.p.n, sizeof *ord);
        pt_status st;
        if (!sol || !ord) return nomem(&a, out, d);
        st = pt_pprob_ilp(&best.p, o->ilp_nodes, o->ilp_seconds, sol, ord, &r, d);
        if (st != PT_OK) {
            pt_arena_free(&a);
            return st;
        }
        out->timed_out = r.timed_out;
        if (r.objective < best.j * (1 - 1e-12)) {
            best.j = r.objective, best.method = PT_PLACE_ILP;
            memcpy(best.dev, sol, (size_t)best.p.n * sizeof *sol);
            best.order = ord;
        }
        if (r.optimal) best.optimal = 1;
    }
    out->m = o->m, out->k = best.p.k, out->groups = best.p.n, out->micro = o->batch / best.p.k;
    out->method = best.method, out->optimal = best.optimal;
    out->pipe_s = pt_pprob_objective_order(&best.p, best.dev, best.order, &out->bottleneck_s, &out->latency_s);
    /* the answer outlives the arena: its own block, from the same hook */
    out->alloc = o->alloc, out->alloc_ud = o->alloc_ud;
    out->layer_dev_bytes = (size_t)g->n * sizeof *out->layer_dev;
    if (!(out->layer_dev = fn(o->alloc_ud, NULL, 0, out->layer_dev_bytes))) return nomem(&a, out, d);
    for (int i = 0; i < g->n; i++) out->layer_dev[i] = best.dev[best.group[i]];
    {
        double *fin = pt_arena_array(&a, (size_t)best.p.n, sizeof *fin);
        if (!fin) return nomem(&a, out, d);
        pt_pprob_finish(&best.p, best.dev, best.order, fin);
        for (int v = 0; v < best.p.n; v++)
            if (2.0 / 3.0 * fin[v] > out->grad_window_s[best.dev[v]])
                out->grad_window_s[best.dev[v]] = 2.0 / 3.0 * fin[v];
    }
    pt_place_data_parallel(g, c, o->dtype, o->batch, o->dp, out);
    out->arena_blocks = a.blocks;
    pt_arena_free(&a);
    return PT_OK;
}
