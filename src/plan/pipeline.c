/*
 * pipeline.c -- stages and replicas of an inference pipeline over edge
 * devices (see pipeline.h for the model and its sources).
 */
#include "plan/pipeline.h"
#include "base/base.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Units of one replica the DP takes at most (m^2 n^2 work). */
#define PIPE_MAX_SLOTS 64
/* Thread-pool settings a CPU stage tries. */
#define PIPE_MAX_COMBOS 64
/* Boards one stage may be split over (latency). */
#define PIPE_MAX_SPLIT 8
/* Combinations of unit subsets (one per kind of board) tried in full. */
#define PIPE_MAX_SUBSETS 64

static int popcount(unsigned v)
{
    int k = 0;
    for (; v; v &= v - 1) k++;
    return k;
}

/* ---- the DP ------------------------------------------------------------------ */

/* (primary, secondary): bottleneck and latency (throughput) or latency and
 * bottleneck (latency); smaller is better, compared in that order. */
typedef struct dpv {
    double a, b;
} dpv;

static int better(dpv x, dpv y)
{
    return x.a < y.a * (1 - 1e-12) || (x.a <= y.a * (1 + 1e-12) && x.b < y.b * (1 - 1e-12));
}

double pt_pipe_dp(int n, int m, const double *stage, const double *xfer, pt_pipe_objective obj, int *cut_unit,
                  int *cut_first, int *cut_last, int *nst)
{
    size_t N1 = (size_t)n + 1, cells = (size_t)m * N1;
    dpv *f = malloc(cells * sizeof *f), best = {INFINITY, INFINITY};
    int *fs = malloc(cells * sizeof *fs), *fi = malloc(cells * sizeof *fi), bs = -1;
    assert(n >= 1 && m >= 1 && stage && xfer && nst);
    *nst = 0;
    if (!f || !fs || !fi) {
        free(f), free(fs), free(fi);
        return INFINITY;
    }
    for (size_t q = 0; q < cells; q++) f[q].a = f[q].b = INFINITY, fs[q] = -1, fi[q] = -1;
#define ST(s, i, j) stage[((size_t)(s) * N1 + (size_t)(i)) * N1 + (size_t)(j)]
#define XF(sp, s, i) xfer[((size_t)(sp) * (size_t)m + (size_t)(s)) * N1 + (size_t)(i)]
    for (int s = 0; s < m; s++)
        for (int j = 1; j <= n; j++) {
            dpv *cur = &f[(size_t)s * N1 + (size_t)j];
            double c0 = ST(s, 0, j);
            /* the first stage */
            if (c0 < INFINITY) {
                dpv v = obj == PT_PIPE_THROUGHPUT ? (dpv){c0, c0} : (dpv){c0, c0};
                if (better(v, *cur)) *cur = v, fs[(size_t)s * N1 + (size_t)j] = -1, fi[(size_t)s * N1 + (size_t)j] = 0;
            }
            for (int i = 1; i < j; i++) {
                double c = ST(s, i, j);
                if (!(c < INFINITY)) continue;
                for (int sp = 0; sp < s; sp++) {
                    dpv prev = f[(size_t)sp * N1 + (size_t)i], v;
                    double x;
                    if (!(prev.a < INFINITY)) continue;
                    x = XF(sp, s, i);
                    if (obj == PT_PIPE_THROUGHPUT) {
                        double bn = prev.a > c ? prev.a : c;
                        v.a = bn > x ? bn : x;
                        v.b = prev.b + x + c;
                    } else {
                        double bn = prev.b > c ? prev.b : c;
                        v.a = prev.a + x + c;
                        v.b = bn > x ? bn : x;
                    }
                    if (better(v, *cur)) *cur = v, fs[(size_t)s * N1 + (size_t)j] = sp, fi[(size_t)s * N1 + (size_t)j] = i;
                }
            }
        }
    for (int s = 0; s < m; s++)
        if (better(f[(size_t)s * N1 + (size_t)n], best)) best = f[(size_t)s * N1 + (size_t)n], bs = s;
    if (bs >= 0) {
        int k = 0, s = bs, j = n, tu[PT_PIPE_MAX_STAGES], tf[PT_PIPE_MAX_STAGES], tl[PT_PIPE_MAX_STAGES];
        while (s >= 0 && k < PT_PIPE_MAX_STAGES) {
            int i = fi[(size_t)s * N1 + (size_t)j], sp = fs[(size_t)s * N1 + (size_t)j];
            tu[k] = s, tf[k] = i, tl[k] = j, k++;
            j = i, s = sp;
        }
        for (int q = 0; q < k; q++) {
            if (cut_unit) cut_unit[q] = tu[k - 1 - q];
            if (cut_first) cut_first[q] = tf[k - 1 - q];
            if (cut_last) cut_last[q] = tl[k - 1 - q];
        }
        *nst = k;
    }
#undef ST
#undef XF
    free(f), free(fs), free(fi);
    return best.a;
}

/* ---- the graph's side: transfers and memory at each cut ------------------------ */

typedef struct pipe_ctx {
    const pt_graph *g;
    const pt_edge_cluster *c;
    const pt_pipe_opts *o;
    int n;
    double *cut_bytes;   /* [n + 1] bytes per sample crossing cut i          */
    double *wprefix;     /* [n + 1] weight bytes of layers [0, i)             */
    double *act;         /* [n] bytes per sample of layer i's input + output  */
} pipe_ctx;

/* A slot: one unit of one board (or of w boards splitting the stage). */
typedef struct slot {
    int board, type, unit, width;
} slot;

/* The thread settings a unit tries: (intra, inter) with intra x inter <= cores
 * and inter <= batch; one setting (1, 1) off CPUs. */
static int combos(const pt_edge_unit *u, int batch, int *intra, int *inter)
{
    int k = 0;
    if (u->kind != PT_UNIT_CPU) {
        intra[0] = inter[0] = 1;
        return 1;
    }
    for (int j = 1; j <= u->cores && j <= batch; j++)
        for (int t = 1; t * j <= u->cores && k < PIPE_MAX_COMBOS; t++)
            if (t * j == u->cores || (t + 1) * j > u->cores) intra[k] = t, inter[k] = j, k++;
    return k;
}

/* Prefix sums of a unit's layer times for each thread setting. */
typedef struct unit_prices {
    int type, unit, width, ncombo;
    int busy;            /* units of its board running at once: each has
                          * 1/busy of the board's memory bandwidth          */
    int intra[PIPE_MAX_COMBOS], inter[PIPE_MAX_COMBOS];
    double *pre;         /* [ncombo][n + 1]                                    */
    int *fb;             /* [n + 1] prefix count of fallback layers           */
} unit_prices;

static int price_unit(const pipe_ctx *x, int type, int unit, int width, int busy, unit_prices *up)
{
    const pt_edge_type *t = &x->c->type[type];
    const pt_edge_unit *u = &t->unit[unit];
    int n = x->n;
    double B = x->o->batch, eb = pt_edge_elem_bytes(x->o->dtype);
    up->type = type, up->unit = unit, up->width = width, up->busy = busy;
    up->ncombo = combos(u, x->o->batch, up->intra, up->inter);
    up->pre = malloc((size_t)up->ncombo * (size_t)(n + 1) * sizeof *up->pre);
    up->fb = malloc((size_t)(n + 1) * sizeof *up->fb);
    if (!up->pre || !up->fb) return -1;
    up->fb[0] = 0;
    for (int v = 0; v < n; v++)
        up->fb[v + 1] = up->fb[v] + (x->g->l[v].op != PT_G_INPUT && !(u->ops & (1u << x->g->l[v].op)));
    for (int k = 0; k < up->ncombo; k++) {
        double *p = up->pre + (size_t)k * (size_t)(n + 1);
        p[0] = 0;
        for (int v = 0; v < n; v++) {
            const pt_glayer *l = &x->g->l[v];
            double s = pt_edge_layer_bw_s(l, t, unit, x->o->dtype, B, up->intra[k], up->inter[k], 1.0 / width,
                                          1.0 / busy, x->c->chip_Bps, x->c->chip_latency_s);
            if (width > 1 && l->op != PT_G_INPUT) {
                /* the segments' exchange, overlapped with the compute */
                double ex = (width - 1.0) / width * pt_edge_out_bytes(l, x->o->dtype) * B / x->c->net_Bps;
                s = (s > ex ? s : ex) + x->c->net_latency_s;
            }
            p[v + 1] = p[v] + s;
        }
    }
    (void)eb;
    return 0;
}

static double stage_time(const unit_prices *up, int n, int i, int j, int *best)
{
    double b = INFINITY;
    for (int k = 0; k < up->ncombo; k++) {
        const double *p = up->pre + (size_t)k * (size_t)(n + 1);
        double s = p[j] - p[i];
        if (s < b) b = s, *best = k;
    }
    return b;
}

static void free_prices(unit_prices *up, int n)
{
    for (int i = 0; i < n; i++) free(up[i].pre), free(up[i].fb);
}

static int find_prices(const unit_prices *up, int nup, int type, int unit, int width, int busy)
{
    for (int i = 0; i < nup; i++)
        if (up[i].type == type && up[i].unit == unit && up[i].width == width && up[i].busy == busy) return i;
    return -1;
}

/* Memory of stage [i, j): its weights and a batch of its largest layer's
 * input and output (per inter sub-batch, at most the batch). */
static double stage_mem(const pipe_ctx *x, int i, int j)
{
    double a = 0;
    for (int v = i; v < j; v++)
        if (x->act[v] > a) a = x->act[v];
    return x->wprefix[j] - x->wprefix[i] + a * x->o->batch;
}

/* One DP over slots[0..m) (an order of one replica's units); fills *p's
 * stages when it beats *p (compared by the objective). */
static int solve_order(const pipe_ctx *x, const slot *sl, int m, int replicas, unit_prices *ups, int nup,
                       pt_pipe_plan *p, int *have)
{
    int n = x->n, units[PT_PIPE_MAX_STAGES], first[PT_PIPE_MAX_STAGES], last[PT_PIPE_MAX_STAGES], nst = 0;
    size_t N1 = (size_t)n + 1;
    double *st = malloc((size_t)m * N1 * N1 * sizeof *st), *xf = malloc((size_t)m * (size_t)m * N1 * sizeof *xf);
    int *slot_up = malloc((size_t)m * sizeof *slot_up), per_board[PT_EDGE_MAX_BOARDS] = {0};
    double B = x->o->batch, bott = 0, lat = 0, dflt_bott = 0, tput;
    const pt_edge_cluster *c = x->c;
    if (!st || !xf || !slot_up) {
        free(st), free(xf), free(slot_up);
        return -1;
    }
    for (int s = 0; s < m; s++) per_board[sl[s].board]++;
    for (int s = 0; s < m; s++) {
        const pt_edge_type *t = &c->type[sl[s].type];
        double cap = t->dev.memory_GiB * 1073741824.0 * PT_EDGE_MEM_USABLE / per_board[sl[s].board];
        int k = 0;
        slot_up[s] = find_prices(ups, nup, sl[s].type, sl[s].unit, sl[s].width, per_board[sl[s].board]);
        for (size_t q = 0; q < N1 * N1; q++) st[(size_t)s * N1 * N1 + q] = INFINITY;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j <= n; j++)
                if (stage_mem(x, i, j) / sl[s].width <= cap)
                    st[((size_t)s * N1 + (size_t)i) * N1 + (size_t)j] = stage_time(&ups[slot_up[s]], n, i, j, &k);
        for (int sp = 0; sp < m; sp++)
            for (int i = 0; i <= n; i++) {
                int chip = sl[sp].board == sl[s].board && sl[sp].width == 1 && sl[s].width == 1;
                double bw = chip ? c->chip_Bps : c->net_Bps, l = chip ? c->chip_latency_s : c->net_latency_s;
                xf[((size_t)sp * (size_t)m + (size_t)s) * N1 + (size_t)i] = l + x->cut_bytes[i] * B / bw;
            }
    }
    pt_pipe_dp(n, m, st, xf, x->o->objective, units, first, last, &nst);
    if (nst > 0) {
        pt_pipe_plan q;
        memset(&q, 0, sizeof q);
        q.replicas = replicas, q.nstages = nst;
        for (int k = 0; k < nst; k++) {
            pt_pipe_stage *g = &q.stage[k];
            const unit_prices *up = &ups[slot_up[units[k]]];
            const pt_edge_unit *u = &c->type[up->type].unit[up->unit];
            int cb = 0, dk = 0;
            g->board = sl[units[k]].board, g->width = sl[units[k]].width, g->unit = sl[units[k]].unit;
            g->first = first[k], g->last = last[k];
            g->compute_s = stage_time(up, n, first[k], last[k], &cb);
            g->intra = up->intra[cb], g->inter = up->inter[cb];
            /* the vendors' default: every core on one operator, one at a time */
            for (int z = 0; z < up->ncombo; z++)
                if (up->intra[z] == (u->kind == PT_UNIT_CPU ? u->cores : 1) && up->inter[z] == 1) dk = z;
            g->default_s = up->pre[(size_t)dk * N1 + (size_t)last[k]] - up->pre[(size_t)dk * N1 + (size_t)first[k]];
            g->transfer_s = k + 1 < nst ? xf[((size_t)units[k] * (size_t)m + (size_t)units[k + 1]) * N1 +
                                             (size_t)last[k]]
                                        : 0;
            g->mem_bytes = stage_mem(x, first[k], last[k]) / g->width;
            g->fallback_layers = up->fb[last[k]] - up->fb[first[k]];
            bott = fmax(bott, fmax(g->compute_s, g->transfer_s));
            dflt_bott = fmax(dflt_bott, fmax(g->default_s, g->transfer_s));
            lat += g->compute_s + g->transfer_s;
        }
        tput = replicas * B / bott;
        q.bottleneck_s = bott, q.latency_s = lat, q.samples_per_s = tput;
        q.threads_gain = dflt_bott / bott;
        if (!*have || (x->o->objective == PT_PIPE_THROUGHPUT
                           ? (tput > p->samples_per_s * (1 + 1e-12) ||
                              (tput >= p->samples_per_s * (1 - 1e-12) && lat < p->latency_s * (1 - 1e-12)))
                           : (lat < p->latency_s * (1 - 1e-12) ||
                              (lat <= p->latency_s * (1 + 1e-12) && tput > p->samples_per_s * (1 + 1e-12))))) {
            long long cand = p->candidates;
            int stype = p->single_type, sunit = p->single_unit;
            *p = q;
            p->candidates = cand, p->single_type = stype, p->single_unit = sunit;
            *have = 1;
        }
    }
    free(st), free(xf), free(slot_up);
    return 0;
}

/* Next permutation of a[0..n) in lexicographic order; 0 after the last. */
static int next_perm(int *a, int n)
{
    int i = n - 2, j = n - 1;
    while (i >= 0 && a[i] >= a[i + 1]) i--;
    if (i < 0) return 0;
    while (a[j] <= a[i]) j--;
    int t = a[i];
    a[i] = a[j], a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) t = a[l], a[l] = a[r], a[r] = t;
    return 1;
}

pt_status pt_pipe_plan_graph(const pt_graph *g, const pt_edge_cluster *c, const pt_pipe_opts *o, pt_pipe_plan *p,
                             pt_diag *d)
{
    pipe_ctx x;
    int n = g->n, have = 0, count[PT_EDGE_MAX_TYPES] = {0}, nup = 0, *last_use;
    unit_prices *ups = NULL;
    unsigned allowed[PT_EDGE_MAX_TYPES] = {0};
    double eb = pt_edge_elem_bytes(o->dtype), best_single = INFINITY;
    pt_status st = PT_OK;
    assert(g && c && o && p && d);
    memset(p, 0, sizeof *p);
    if (o->batch < 1 || o->batch > 65536)
        return pt_diag_set(d, NULL, "batch", "", "--batch must be 1..65536, not %d", o->batch);
    if (n < 1 || c->nboards < 1) return pt_diag_set(d, NULL, "model", g->name, "nothing to place");
    if (c->devices_given > PT_EDGE_MAX_BOARDS)
        return pt_diag_set(d, NULL, "devices", c->name,
                           "%s has %lld devices: a pipeline plans over at most %d (give --devices N)", c->name,
                           c->devices_given, PT_EDGE_MAX_BOARDS);
    if (o->replicas < 0 || o->replicas > c->nboards ||
        (o->replicas > 1 && o->objective == PT_PIPE_LATENCY))
        return pt_diag_set(d, NULL, "replicas", "", "--replicas %d: %s", o->replicas,
                           o->replicas > 1 && o->objective == PT_PIPE_LATENCY
                               ? "replicas do not shorten one batch's latency (use the throughput objective)"
                               : "must be 1..the cluster's devices");
    x.g = g, x.c = c, x.o = o, x.n = n;
    ups = calloc(PT_EDGE_MAX_TYPES * PT_EDGE_MAX_UNITS * PIPE_MAX_SPLIT * PT_EDGE_MAX_UNITS, sizeof *ups);
    x.cut_bytes = calloc((size_t)n + 1, sizeof *x.cut_bytes);
    x.wprefix = calloc((size_t)n + 1, sizeof *x.wprefix);
    x.act = calloc((size_t)n, sizeof *x.act);
    last_use = malloc((size_t)n * sizeof *last_use);
    if (!x.cut_bytes || !x.wprefix || !x.act || !last_use || !ups) {
        st = pt_diag_set(d, NULL, NULL, NULL, "out of memory");
        goto out;
    }
    /* a tensor crosses every cut between its layer and its last reader */
    for (int v = 0; v < n; v++) last_use[v] = v;
    for (int v = 0; v < n; v++)
        for (int k = 0; k < g->l[v].nin; k++)
            if (last_use[g->l[v].in[k]] < v) last_use[g->l[v].in[k]] = v;
    for (int v = 0; v < n; v++) {
        const pt_glayer *l = &g->l[v];
        double in = 0;
        for (int k = 0; k < l->nin; k++) in += pt_edge_out_bytes(&g->l[l->in[k]], o->dtype);
        x.act[v] = in + pt_edge_out_bytes(l, o->dtype);
        x.wprefix[v + 1] = x.wprefix[v] + l->params * eb;
        for (int cut = v + 1; cut <= last_use[v]; cut++) x.cut_bytes[cut] += pt_edge_out_bytes(l, o->dtype);
    }
    /* prices of every (kind, unit) with 1..nunits units of its board busy,
     * and split over w boards for latency */
    for (int b = 0; b < c->nboards; b++) count[c->board_type[b]]++;
    for (int t = 0; t < c->ntypes; t++) {
        allowed[t] = 0;
        for (int u = 0; u < c->type[t].nunits; u++)
            if (c->type[t].unit[u].tflops[o->dtype] > 0 &&
                (!o->kinds || (o->kinds & (1u << c->type[t].unit[u].kind))))
                allowed[t] |= 1u << u;
    }
    for (int t = 0; t < c->ntypes; t++)
        for (int u = 0; u < c->type[t].nunits; u++)
            for (int w = 1; w <= (o->objective == PT_PIPE_LATENCY ? count[t] : 1) && w <= PIPE_MAX_SPLIT; w++)
                for (int busy = 1; busy <= popcount(allowed[t]); busy++) {
                    if (!(allowed[t] & (1u << u))) continue;
                    if (price_unit(&x, t, u, w, busy, &ups[nup++]) < 0) {
                        st = pt_diag_set(d, NULL, NULL, NULL, "out of memory");
                        goto out;
                    }
                }
    if (nup == 0) {
        st = pt_diag_set(d, NULL, "dtype", pt_edge_dtype_name(o->dtype),
                         "no unit of cluster \"%s\" computes in %s%s", c->name, pt_edge_dtype_name(o->dtype),
                         o->kinds ? " among the unit kinds allowed (--units)" : "");
        goto out;
    }
    /* the best single unit (alone on its board), whole graph, best threads */
    for (int i = 0; i < nup; i++) {
        int k = 0;
        double s;
        const pt_edge_type *t = &c->type[ups[i].type];
        if (ups[i].width != 1 || ups[i].busy != 1) continue;
        if (stage_mem(&x, 0, n) > t->dev.memory_GiB * 1073741824.0 * PT_EDGE_MEM_USABLE) continue;
        s = stage_time(&ups[i], n, 0, n, &k);
        if (s < best_single) best_single = s, p->single_type = ups[i].type, p->single_unit = ups[i].unit;
    }
    /* replicas r: each gets count[t] / r boards of each kind; the kinds in
     * every order; on each board the same subset of its units (every subset
     * while there are few, else all of them and each alone), in catalog
     * order or reversed */
    for (int r = 1; r <= c->nboards; r++) {
        int per[PT_EDGE_MAX_TYPES], perm[PT_EDGE_MAX_TYPES], nt = 0, any = 0;
        if (o->objective == PT_PIPE_LATENCY && r > 1) break;
        if (o->replicas > 0 && r != o->replicas) continue;
        for (int t = 0; t < c->ntypes; t++) per[t] = count[t] / r, any |= per[t] > 0 && allowed[t];
        if (!any) break;
        for (int t = 0; t < c->ntypes; t++)
            if (per[t] > 0 && allowed[t]) perm[nt++] = t;
        do {
            unsigned masks[PT_EDGE_MAX_TYPES][1 << PT_EDGE_MAX_UNITS];
            int nmask[PT_EDGE_MAX_TYPES], pick[PT_EDGE_MAX_TYPES] = {0};
            long long combos_n = 1;
            for (int q = 0; q < nt; q++) {
                unsigned a = allowed[perm[q]];
                nmask[q] = 0;
                for (unsigned sm = a; sm; sm = (sm - 1) & a) masks[q][nmask[q]++] = sm;
                combos_n *= nmask[q];
            }
            if (combos_n > PIPE_MAX_SUBSETS)
                for (int q = 0; q < nt; q++) {
                    unsigned a = allowed[perm[q]];
                    nmask[q] = 0;
                    masks[q][nmask[q]++] = a;
                    for (int u = 0; u < PT_EDGE_MAX_UNITS; u++)
                        if ((a & (1u << u)) && a != (1u << u)) masks[q][nmask[q]++] = 1u << u;
                }
            for (;;) {
                for (int rev = 0; rev < 2; rev++) {
                    slot sl[PIPE_MAX_SLOTS];
                    int m = 0, over = 0, multi = 0;
                    for (int q = 0; q < nt; q++) {
                        int t = perm[q], seen = 0;
                        unsigned mk = masks[q][pick[q]];
                        multi |= popcount(mk) > 1;
                        for (int b = 0; b < c->nboards && seen < per[t]; b++) {
                            if (c->board_type[b] != t) continue;
                            seen++;
                            for (int k = 0; k < c->type[t].nunits; k++) {
                                int u = rev ? c->type[t].nunits - 1 - k : k;
                                if (!(mk & (1u << u))) continue;
                                if (m == PIPE_MAX_SLOTS) over = 1;
                                else sl[m++] = (slot){b, t, u, 1};
                            }
                        }
                    }
                    if (over || m == 0) continue;
                    p->candidates++;
                    if (solve_order(&x, sl, m, r, ups, nup, p, &have) < 0) {
                        st = pt_diag_set(d, NULL, NULL, NULL, "out of memory");
                        goto out;
                    }
                    if (!multi) break; /* one unit per board: reversing changes nothing */
                }
                /* the next combination of subsets */
                {
                    int q = 0;
                    while (q < nt && ++pick[q] == nmask[q]) pick[q++] = 0;
                    if (q == nt) break;
                }
            }
        } while (next_perm(perm, nt));
    }
    /* latency: w boards of one kind splitting every stage */
    if (o->objective == PT_PIPE_LATENCY)
        for (int t = 0; t < c->ntypes; t++)
            for (int w = 2; w <= count[t] && w <= PIPE_MAX_SPLIT; w++) {
                slot sl[PT_EDGE_MAX_UNITS];
                int m = 0, b0 = 0;
                while (c->board_type[b0] != t) b0++;
                for (int u = 0; u < c->type[t].nunits; u++)
                    if (allowed[t] & (1u << u)) sl[m++] = (slot){b0, t, u, w};
                if (m == 0) continue;
                p->candidates++;
                if (solve_order(&x, sl, m, 1, ups, nup, p, &have) < 0) {
                    st = pt_diag_set(d, NULL, NULL, NULL, "out of memory");
                    goto out;
                }
            }
    if (!have) {
        pt_diag_set(d, NULL, "cluster", c->name,
                    "%s does not fit: no partition keeps every stage within its board's memory", g->name);
        st = PT_INFEASIBLE;
        goto out;
    }
    if (!(best_single < INFINITY)) {
        /* no one unit holds the whole graph: the speed-up is over the best
         * single unit as if its memory sufficed (its time is what it would take) */
        for (int i = 0; i < nup; i++) {
            int k = 0;
            double s0;
            if (ups[i].width != 1 || ups[i].busy != 1) continue;
            s0 = stage_time(&ups[i], n, 0, n, &k);
            if (s0 < best_single) best_single = s0, p->single_type = ups[i].type, p->single_unit = ups[i].unit;
        }
        p->single_fits = 0;
    } else {
        p->single_fits = 1;
    }
    p->single_latency_s = best_single;
    p->single_samples_per_s = o->batch / best_single;
    p->speedup = o->objective == PT_PIPE_THROUGHPUT ? p->samples_per_s / p->single_samples_per_s
                                                    : p->single_latency_s / p->latency_s;
out:
    if (ups) free_prices(ups, nup);
    free(ups);
    free(x.cut_bytes), free(x.wprefix), free(x.act), free(last_use);
    return st;
}
