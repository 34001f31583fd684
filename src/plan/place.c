/*
 * place.c -- model-parallel placement of a layer graph (see place.h).
 */
#include "plan/place.h"
#include "base/base.h"
#include "cost/graph_cost.h"

#include <glpk.h>
#include <math.h>
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

double pt_pprob_chain_dp(const pt_pprob *p, int *dev)
{
    int n = p->n, m = p->m, nc = 0;
    size_t nn = (size_t)(n + 1) * (size_t)(n + 1);
    double *load = malloc(nn * sizeof *load), *out = malloc(nn * sizeof *out), *mem = malloc(nn * sizeof *mem);
    double *caps = malloc(nn * sizeof *caps), *f = malloc((size_t)(n + 1) * (size_t)(m + 1) * sizeof *f);
    int *from = malloc((size_t)(n + 1) * (size_t)(m + 1) * sizeof *from), *bestcut = malloc((size_t)(n + 1) * sizeof *bestcut);
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
    free(load), free(out), free(mem), free(caps), free(f), free(from), free(bestcut);
    return best;
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
static double heuristic(const pt_pprob *p, int *dev, const int *stages)
{
    int n = p->n, *try = malloc((size_t)(n > 0 ? n : 1) * sizeof *try);
    double best = INFINITY, total = 0, acc = 0;
    if (!try) return INFINITY;
    /* start 1: the DP's stages */
    if (stages) memcpy(try, stages, (size_t)n * sizeof *try);
    if (stages || (n <= 64 && pt_pprob_chain_dp(p, try) < INFINITY)) {
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
    free(try);
    return best;
}

double pt_pprob_heuristic(const pt_pprob *p, int *dev)
{
    return heuristic(p, dev, NULL);
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
    int *pu = NULL, *pv = NULL, *heur = malloc((size_t)(n > 0 ? n : 1) * sizeof *heur);
    unsigned char *reach = malloc((size_t)n * (size_t)n + 1);
    double H = 0, tu, mu, hj, *hstart = malloc((size_t)(n > 0 ? n : 1) * sizeof *hstart);
    lp_rows R = {0};
    glp_iocp parm;
    ilp_ctx cx = {0};
    memset(res, 0, sizeof *res);
    if (!heur || !reach || !hstart) goto nomem;
    hj = pt_pprob_heuristic(p, heur);
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
        free(heur), free(reach), free(hstart);
        return pt_diag_set(d, NULL, "gpus", "", "placement over more than 64 devices is not supported");
    }
    reachability(p, reach);
    for (int u = 0; u < n; u++)
        for (int v = u + 1; v < n; v++)
            if (!reach[(size_t)u * (size_t)n + (size_t)v]) np++;
    if (!(pu = malloc((size_t)(np + 1) * sizeof *pu)) || !(pv = malloc((size_t)(np + 1) * sizeof *pv))) goto nomem;
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
        double *x = calloc((size_t)ncol + 1, sizeof *x), bot = 0, lat = 0;
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
    if (!lp_ok) { /* the presolver's columns are not ours: no seed */
        free(cx.seed);
        cx.seed = NULL;
    }
    parm.msg_lev = GLP_MSG_OFF;
    parm.tm_lim = seconds > 0 ? (int)(seconds * 1000) : INT32_MAX;
    parm.cb_func = ilp_callback;
    parm.cb_info = &cx;
    ret = glp_intopt(R.lp, &parm);
    st = glp_mip_status(R.lp);
    res->nodes = cx.nodes;
    res->timed_out = ret == GLP_ETMLIM;
    if ((ret == 0 || ret == GLP_ETMLIM || ret == GLP_ESTOP) && (st == GLP_OPT || st == GLP_FEAS)) {
        int *sol = malloc((size_t)n * sizeof *sol), *ord = malloc((size_t)n * sizeof *ord);
        double j;
        if (!sol || !ord) {
            free(sol), free(ord);
            goto nomem;
        }
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
        free(sol), free(ord);
    } else if (ret != GLP_ETMLIM && ret != GLP_ESTOP && ret != GLP_ENOPFS && ret != GLP_ENODFS) {
        pt_diag_set(d, NULL, "ilp", "", "GLPK failed (glp_intopt returned %d)", ret);
        glp_delete_prob(R.lp);
        free(R.ia), free(R.ja), free(R.ar), free(cx.seed), free(pu), free(pv), free(heur), free(reach), free(hstart);
        return PT_EINPUT;
    }
    glp_delete_prob(R.lp);
    free(R.ia), free(R.ja), free(R.ar), free(cx.seed), free(pu), free(pv), free(heur), free(reach), free(hstart);
    return PT_OK;
nomem:
    if (R.lp) glp_delete_prob(R.lp);
    free(R.ia), free(R.ja), free(R.ar), free(cx.seed), free(pu), free(pv), free(heur), free(reach), free(hstart);
    return pt_diag_set(d, NULL, "memory", "", "out of memory");
}

/* ---- a layer graph on a worker ------------------------------------------- */

const char *pt_place_method_name(pt_place_method m)
{
    static const char *names[] = {"dp", "heuristic", "ilp"};
    return names[m];
}

static void pprob_free(pt_pprob *p)
{
    pt_pprob_unindex(p);
    free(p->dur), free(p->mem), free(p->eu), free(p->ev), free(p->ecomm), free(p->estream);
    memset(p, 0, sizeof *p);
}

static int pprob_alloc(pt_pprob *p, int n, int ne)
{
    memset(p, 0, sizeof *p);
    p->n = n, p->ne = ne;
    p->dur = calloc((size_t)n + 1, sizeof *p->dur);
    p->mem = calloc((size_t)n + 1, sizeof *p->mem);
    p->eu = calloc((size_t)ne + 1, sizeof *p->eu);
    p->ev = calloc((size_t)ne + 1, sizeof *p->ev);
    p->ecomm = calloc((size_t)ne + 1, sizeof *p->ecomm);
    p->estream = calloc((size_t)ne + 1, sizeof *p->estream);
    if (!p->dur || !p->mem || !p->eu || !p->ev || !p->ecomm || !p->estream) {
        pprob_free(p);
        return -1;
    }
    return 0;
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
                         pt_pprob *p)
{
    int ne = 0;
    for (int i = 0; i < g->n; i++) ne += g->l[i].nin + (g->l[i].kv >= 0);
    if (pprob_alloc(p, g->n, ne) < 0) return -1;
    p->m = o->m, p->k = k, p->ne = 0;
    p->mem_cap = c->dev.memory_GiB * 1073741824.0;
    for (int i = 0; i < g->n; i++) {
        const pt_glayer *l = &g->l[i];
        p->dur[i] = 3.0 * pt_glayer_fwd_s(l, &c->dev, o->dtype, mu);
        /* weights, gradients, optimizer (16 B per parameter, mixed
         * precision) and the activations of all k micro-batches (GPipe) */
        p->mem[i] = 16.0 * l->params + l->act_bytes * mu * (double)k;
        for (int j = 0; j <= l->nin; j++) {
            int u = j < l->nin ? l->in[j] : l->kv, dup = 0;
            if (u < 0 || u >= i) continue;
            for (int e = 0; e < p->ne; e++) dup |= p->eu[e] == u && p->ev[e] == i;
            if (dup) continue;
            p->eu[p->ne] = u, p->ev[p->ne] = i;
            p->ecomm[p->ne] = 2.0 * pt_p2p_time(c, (int64_t)(2.0 * out_elems(&g->l[u]) * mu), o->m, 1);
            p->estream[p->ne] = j < l->nin && per_step(&g->l[u]) && per_step(l) ? (double)l->t : 1.0;
            p->ne++;
        }
    }
    return 0;
}

/* Contracts the problem to at most max nodes: first series pairs (a node
 * whose only consumer has no other input), the cheapest first, then the
 * cheapest edge whose contraction leaves no cycle.  group[i] gets the new
 * node of old node i; the new nodes are in topological order. */
static int coarsen(const pt_pprob *in, int max, pt_pprob *out, int *group)
{
    int n = in->n, alive = n, rc = -1, ne = 0;
    size_t nb = (size_t)(n > 0 ? n : 1);
    double *w = calloc((size_t)n * (size_t)n + 1, sizeof *w), *st = calloc((size_t)n * (size_t)n + 1, sizeof *st);
    double *dur = malloc((size_t)n * sizeof *dur), *mem = malloc((size_t)n * sizeof *mem);
    unsigned char *adj = calloc((size_t)n * (size_t)n + 1, 1), *seen = malloc((size_t)n + 1);
    int *rep = malloc((size_t)n * sizeof *rep), *order = malloc((size_t)n * sizeof *order);
    int *stack = malloc((size_t)n * sizeof *stack), *indeg = malloc((size_t)n * sizeof *indeg);
#define A(i, j) adj[(size_t)(i) * (size_t)n + (size_t)(j)]
#define W(i, j) w[(size_t)(i) * (size_t)n + (size_t)(j)]
#define ST(i, j) st[(size_t)(i) * (size_t)n + (size_t)(j)]
    if (n < 1 || !w || !st || !dur || !mem || !adj || !seen || !rep || !order || !stack || !indeg) goto done;
    for (int i = 0; i < n; i++) rep[i] = i, dur[i] = in->dur[i], mem[i] = in->mem ? in->mem[i] : 0;
    for (int e = 0; e < in->ne; e++) {
        int u = in->eu[e], v = in->ev[e];
        double s = in->estream ? in->estream[e] : 1.0;
        ST(u, v) = A(u, v) ? (s < ST(u, v) ? s : ST(u, v)) : s;
        A(u, v) = 1, W(u, v) += in->ecomm[e];
    }
    while (alive > max) {
        int bu = -1, bv = -1, series = 0;
        double best = INFINITY;
        for (int u = 0; u < n; u++) {
            int outs = 0, last = -1;
            if (rep[u] != u) continue;
            for (int v = 0; v < n; v++)
                if (A(u, v)) outs++, last = v;
            if (outs == 1) {
                int ins = 0;
                for (int x = 0; x < n; x++) ins += A(x, last);
                if (ins == 1 && dur[u] + dur[last] < best) best = dur[u] + dur[last], bu = u, bv = last, series = 1;
            }
        }
        if (!series) { /* cheapest safe edge: v not reachable from u but through it */
            best = INFINITY;
            for (int u = 0; u < n; u++)
                for (int v = 0; v < n; v++) {
                    int top = 0, bad = 0;
                    if (!A(u, v) || dur[u] + dur[v] >= best) continue;
                    memset(seen, 0, nb);
                    for (int x = 0; x < n; x++)
                        if (A(u, x) && x != v) stack[top++] = x, seen[x] = 1;
                    while (top > 0 && !bad) {
                        int x = stack[--top];
                        if (x == v) bad = 1;
                        for (int y = 0; y < n; y++)
                            if (A(x, y) && !seen[y]) seen[y] = 1, stack[top++] = y;
                    }
                    if (!bad) best = dur[u] + dur[v], bu = u, bv = v;
                }
        }
        if (bu < 0) break;
        /* merge bv into bu */
        dur[bu] += dur[bv], mem[bu] += mem[bv];
        for (int x = 0; x < n; x++) {
            if (A(bv, x) && x != bu) {
                ST(bu, x) = A(bu, x) ? (ST(bv, x) < ST(bu, x) ? ST(bv, x) : ST(bu, x)) : ST(bv, x);
                A(bu, x) = 1, W(bu, x) += W(bv, x);
            }
            if (A(x, bv) && x != bu) {
                ST(x, bu) = A(x, bu) ? (ST(x, bv) < ST(x, bu) ? ST(x, bv) : ST(x, bu)) : ST(x, bv);
                A(x, bu) = 1, W(x, bu) += W(x, bv);
            }
            A(bv, x) = A(x, bv) = 0;
        }
        A(bu, bu) = 0;
        for (int i = 0; i < n; i++)
            if (rep[i] == bv) rep[i] = bu;
        alive--;
    }
    /* topological order of the survivors, smallest index first */
    for (int v = 0; v < n; v++) {
        indeg[v] = 0;
        for (int u = 0; u < n; u++) indeg[v] += A(u, v);
    }
    {
        int cnt = 0;
        memset(seen, 0, nb);
        while (cnt < alive) {
            int pick = -1;
            for (int v = 0; v < n && pick < 0; v++)
                if (rep[v] == v && !seen[v] && indeg[v] == 0) pick = v;
            if (pick < 0) goto done; /* cannot happen: contractions keep a DAG */
            seen[pick] = 1;
            order[pick] = cnt++;
            for (int x = 0; x < n; x++)
                if (A(pick, x)) indeg[x]--;
        }
    }
    for (int u = 0; u < n; u++)
        for (int v = 0; v < n; v++) ne += A(u, v);
    if (pprob_alloc(out, alive, ne) < 0) goto done;
    out->m = in->m, out->k = in->k, out->mem_cap = in->mem_cap, out->ne = 0;
    for (int v = 0; v < n; v++)
        if (rep[v] == v) out->dur[order[v]] = dur[v], out->mem[order[v]] = mem[v];
    for (int u = 0; u < n; u++)
        for (int v = 0; v < n; v++)
            if (A(u, v)) {
                int e = out->ne++;
                out->eu[e] = order[u], out->ev[e] = order[v];
                out->ecomm[e] = W(u, v), out->estream[e] = ST(u, v);
            }
    for (int i = 0; i < n; i++) group[i] = order[rep[i]];
    rc = 0;
#undef A
#undef W
#undef ST
done:
    free(w), free(st), free(dur), free(mem), free(adj), free(seen), free(rep), free(order), free(stack), free(indeg);
    return rc;
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

static void try_free(place_try *t)
{
    pprob_free(&t->p);
    free(t->group), free(t->dev), free(t->order);
    memset(t, 0, sizeof *t);
}

static int solve_k(const pt_graph *g, const pt_cluster *c, const pt_place_opts *o, int k, place_try *t)
{
    pt_pprob lay;
    int max = o->max_nodes > 1 ? o->max_nodes : 40;
    memset(t, 0, sizeof *t);
    if (layer_problem(g, c, o, o->batch / k, k, &lay) < 0) return -1;
    t->group = malloc((size_t)g->n * sizeof *t->group);
    if (!t->group || coarsen(&lay, max < 64 ? max : 64, &t->p, t->group) < 0) {
        pprob_free(&lay);
        return -1;
    }
    pprob_free(&lay);
    pt_pprob_index(&t->p); /* only a speed-up: unindexed works the same */
    if (!(t->dev = calloc((size_t)t->p.n + 1, sizeof *t->dev))) return -1;
    if (o->m == 1) {
        t->j = t->step = pt_pprob_objective(&t->p, t->dev, NULL, NULL);
        t->method = PT_PLACE_DP, t->optimal = 1;
        return 0;
    }
    {
        double jd = pt_pprob_chain_dp(&t->p, t->dev), jh;
        int *h = malloc((size_t)t->p.n * sizeof *h);
        if (!h) return -1;
        if (jd < INFINITY) jd = pt_pprob_objective(&t->p, t->dev, NULL, NULL);
        jh = heuristic(&t->p, h, jd < INFINITY ? t->dev : NULL);
        t->j = jd, t->method = PT_PLACE_DP, t->optimal = jd < INFINITY && is_chain(&t->p);
        if (jh < jd * (1 - 1e-12)) {
            t->j = jh, t->method = PT_PLACE_HEURISTIC, t->optimal = 0;
            memcpy(t->dev, h, (size_t)t->p.n * sizeof *h);
        }
        free(h);
    }
    t->step = t->j;
    /* a worker among others: its devices' gradient all-reduces are part of
     * the step, so balance them too, from the best placement for J */
    if (o->dp > 1 && t->j < INFINITY) {
        size_t n = (size_t)t->p.n;
        dp_ctx x = {.c = c, .dp = o->dp, .membw = c->dev.memory_bw_GBps * 1e9 * c->dev.mem_eff};
        int *h = malloc(n * sizeof *h);
        x.params = calloc(n, sizeof *x.params);
        x.players = calloc(n, sizeof *x.players);
        x.fin = malloc(n * sizeof *x.fin);
        if (!h || !x.params || !x.players || !x.fin) {
            free(h), free(x.params), free(x.players), free(x.fin);
            return -1;
        }
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
        free(h), free(x.params), free(x.players), free(x.fin);
    }
    return 0;
}

void pt_placement_free(pt_placement *p)
{
    free(p->layer_dev);
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

pt_status pt_place_graph(const pt_graph *g, const pt_cluster *c, const pt_place_opts *o, pt_placement *out,
                         pt_diag *d)
{
    place_try best = {0};
    memset(out, 0, sizeof *out);
    if (o->m < 1 || o->m > 64) return pt_diag_set(d, NULL, "gpus", "", "a worker has 1 to 64 devices, not %d", o->m);
    if (!(o->batch >= 1)) return pt_diag_set(d, NULL, "batch", "", "a worker needs at least one sample per step");
    best.j = best.step = INFINITY;
    /* micro-batch counts: powers of two that leave whole samples */
    for (int k = 1; k <= 16 && o->batch / k >= 1.0; k *= 2) {
        place_try t;
        if (fmod(o->batch, (double)k) != 0) break;
        if (solve_k(g, c, o, k, &t) < 0) {
            try_free(&best);
            return pt_diag_set(d, NULL, "memory", "", "out of memory");
        }
        if (t.step < best.step || !best.dev) { /* the first is kept even if nothing fits */
            try_free(&best);
            best = t;
        } else {
            try_free(&t);
        }
        if (o->m == 1) break; /* one device: micro-batches only add steps */
    }
    if (!best.dev) return pt_diag_set(d, NULL, "batch", "", "no micro-batch count divides the batch");
    out->timed_out = 0;
    out->too_large = o->use_ilp && o->m > 1 && best.p.n > PT_ILP_MAX_NODES;
    if (o->use_ilp && o->m > 1 && o->dp <= 1 && best.j < INFINITY && !out->too_large) {
        pt_ilp_result r;
        int *sol = malloc((size_t)best.p.n * sizeof *sol), *ord = malloc((size_t)best.p.n * sizeof *ord);
        pt_status st;
        if (!sol || !ord) {
            free(sol), free(ord);
            try_free(&best);
            return pt_diag_set(d, NULL, "memory", "", "out of memory");
        }
        st = pt_pprob_ilp(&best.p, o->ilp_nodes, o->ilp_seconds, sol, ord, &r, d);
        if (st != PT_OK) {
            free(sol), free(ord);
            try_free(&best);
            return st;
        }
        out->timed_out = r.timed_out;
        if (r.objective < best.j * (1 - 1e-12)) {
            best.j = r.objective, best.method = PT_PLACE_ILP;
            memcpy(best.dev, sol, (size_t)best.p.n * sizeof *sol);
            best.order = ord, ord = NULL;
        }
        if (r.optimal) best.optimal = 1;
        free(sol), free(ord);
    }
    out->m = o->m, out->k = best.p.k, out->groups = best.p.n, out->micro = o->batch / best.p.k;
    out->method = best.method, out->optimal = best.optimal;
    out->pipe_s = pt_pprob_objective_order(&best.p, best.dev, best.order, &out->bottleneck_s, &out->latency_s);
    if (!(out->layer_dev = malloc((size_t)g->n * sizeof *out->layer_dev))) {
        try_free(&best);
        return pt_diag_set(d, NULL, "memory", "", "out of memory");
    }
    for (int i = 0; i < g->n; i++) out->layer_dev[i] = best.dev[best.group[i]];
    {
        double *fin = malloc((size_t)best.p.n * sizeof *fin);
        if (!fin) {
            try_free(&best);
            pt_placement_free(out);
            return pt_diag_set(d, NULL, "memory", "", "out of memory");
        }
        pt_pprob_finish(&best.p, best.dev, best.order, fin);
        for (int v = 0; v < best.p.n; v++)
            if (2.0 / 3.0 * fin[v] > out->grad_window_s[best.dev[v]])
                out->grad_window_s[best.dev[v]] = 2.0 / 3.0 * fin[v];
        free(fin);
    }
    pt_place_data_parallel(g, c, o->dtype, o->batch, o->dp, out);
    try_free(&best);
    return PT_OK;
}
