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
/* Points of each of the two grids over a split layer's partitioning ratio. */
#define PIPE_SPLIT_GRID 32

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

double pt_pipe_dp(int n, int m, pt_pipe_busy_fn busy, const void *ctx, const double *xfer, const double *net,
                  const int *board, pt_pipe_objective obj, int *cut_unit, int *cut_first, int *cut_last, int *nst)
{
    size_t N1 = (size_t)n + 1, cells = (size_t)m * N1 * 2;
    dpv *f = malloc(cells * sizeof *f), best = {INFINITY, INFINITY};
    int *fs = malloc(cells * sizeof *fs), *fi = malloc(cells * sizeof *fi), bs = -1;
    assert(n >= 1 && m >= 1 && busy && xfer && nst);
    *nst = 0;
    if (!f || !fs || !fi) {
        free(f), free(fs), free(fi);
        return INFINITY;
    }
    for (size_t q = 0; q < cells; q++) f[q].a = f[q].b = INFINITY, fs[q] = -1, fi[q] = -1;
    /* f[s][j][o]: the best pipeline of layers [0, j) whose last stage is unit
     * s, o = 1 when the stage after it is on another board (s then also
     * spends net[s][j] sending), 0 when it is on s's board or there is none */
#define CELL(s, j, o) (((size_t)(s) * N1 + (size_t)(j)) * 2 + (size_t)(o))
#define XF(sp, s, i) xfer[((size_t)(sp) * (size_t)m + (size_t)(s)) * N1 + (size_t)(i)]
#define NET(s, i) (net ? net[(size_t)(s) * N1 + (size_t)(i)] : 0.0)
#define APART(a, b) (board ? board[a] != board[b] : (a) != (b))
    for (int s = 0; s < m; s++)
        for (int j = 1; j <= n; j++)
            for (int o = 0; o <= (j < n); o++) {
                size_t q = CELL(s, j, o);
                double out = o ? NET(s, j) : 0.0, c0 = busy(ctx, s, 0, j, out);
                /* the first stage */
                if (c0 < INFINITY) {
                    dpv v = {c0, c0};
                    if (better(v, f[q])) f[q] = v, fs[q] = -1, fi[q] = 0;
                }
                for (int i = 1; i < j; i++) {
                    /* its time with the predecessor on its board, or not */
                    double cs = busy(ctx, s, i, j, out), cn = busy(ctx, s, i, j, out + NET(s, i));
                    if (!(cs < INFINITY) && !(cn < INFINITY)) continue;
                    for (int sp = 0; sp < s; sp++) {
                        int apart = APART(sp, s);
                        dpv prev = f[CELL(sp, i, apart)], v;
                        double x, c = apart ? cn : cs;
                        if (!(prev.a < INFINITY) || !(c < INFINITY)) continue;
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
                        if (better(v, f[q])) f[q] = v, fs[q] = sp, fi[q] = i;
                    }
                }
            }
    for (int s = 0; s < m; s++)
        if (better(f[CELL(s, n, 0)], best)) best = f[CELL(s, n, 0)], bs = s;
    if (bs >= 0) {
        int k = 0, s = bs, j = n, o = 0, tu[PT_PIPE_MAX_STAGES], tf[PT_PIPE_MAX_STAGES], tl[PT_PIPE_MAX_STAGES];
        while (s >= 0 && k < PT_PIPE_MAX_STAGES) {
            int i = fi[CELL(s, j, o)], sp = fs[CELL(s, j, o)];
            tu[k] = s, tf[k] = i, tl[k] = j, k++;
            if (sp >= 0) o = APART(sp, s);
            j = i, s = sp;
        }
        for (int q = 0; q < k; q++) {
            if (cut_unit) cut_unit[q] = tu[k - 1 - q];
            if (cut_first) cut_first[q] = tf[k - 1 - q];
            if (cut_last) cut_last[q] = tl[k - 1 - q];
        }
        *nst = k;
    }
#undef CELL
#undef XF
#undef NET
#undef APART
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
    double *in_bytes;    /* [n] bytes per sample of layer i's input            */
} pipe_ctx;

/* A slot: one unit of one board (or of w boards splitting the stage). */
typedef struct slot {
    int board, type, unit, width;
} slot;

/* The thread settings a unit tries: (intra, inter) with intra x inter <= cores
 * and inter <= batch, each inter with the most intra that fits, and the
 * settings that leave one core to the network stack; one setting (1, 1) off
 * CPUs. */
static int combos(const pt_edge_unit *u, int batch, int *intra, int *inter)
{
    int k = 0;
    if (u->kind != PT_UNIT_CPU) {
        intra[0] = inter[0] = 1;
        return 1;
    }
    for (int j = 1; j <= u->cores && j <= batch; j++)
        for (int t = 1; t * j <= u->cores && k < PIPE_MAX_COMBOS; t++)
            if (t * j == u->cores || (t + 1) * j > u->cores || t * j == u->cores - 1)
                intra[k] = t, inter[k] = j, k++;
    return k;
}

/* A stage's time per batch on unit u of board type t with thread setting
 * (intra, inter), computing for comp_s while its board's CPU spends net_s on
 * the network stack: the stack runs on the cluster t->net_unit; when the
 * stage is on that cluster and uses every core, each operator waits for the
 * thread the stack interrupts (added); with a core idle, or on another unit,
 * the stack runs beside it (the larger of the two). */
static double with_net(const pt_edge_type *t, int u, int intra, int inter, double comp_s, double net_s)
{
    if (!(net_s > 0)) return comp_s;
    if (u == t->net_unit && intra * inter >= t->unit[u].cores) return comp_s + net_s;
    return comp_s > net_s ? comp_s : net_s;
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

/* Input bytes per sample that a segment of share r of layer v needs: all of
 * it when the segment is a share of the output features (one row), whole
 * samples' keys and values for attention, a convolution's rows plus its
 * receptive field's halo (kernel - stride rows, HALP's receptive-field
 * segmentation), else its share. */
static double seg_in_bytes(const pipe_ctx *x, int v, double r)
{
    const pt_glayer *l = &x->g->l[v];
    double in = x->in_bytes[v], B = x->o->batch;
    if (l->ngemm > 0 && l->gm[0] * B * r < 1.0) return in;
    if (l->op == PT_G_ATTENTION) return in * fmin(1.0, fmax(r, 1.0 / B));
    if (l->op == PT_G_CONV && !l->seq && l->nin >= 1 && l->h > 0) {
        const pt_glayer *p = &x->g->l[l->in[0]];
        double k = p->c > 0 ? round(sqrt(l->gk[0] * l->gbatch[0] / (double)p->c)) : 1.0;
        double stride = fmax(1.0, round((double)p->h / (double)l->h));
        double rows = r * (double)l->h * stride + (k > stride ? k - stride : 0.0);
        return p->h > 0 ? in * fmin(1.0, rows / (double)p->h) : in * r;
    }
    return in * r;
}

/* One layer split over w boards of one kind, as HALP (arXiv 2211.13778) and
 * MoDNN run it: a host board holds the layer's input; it sends each of the
 * w - 1 secondaries its segment (share r of the output rows, seg_in_bytes of
 * the input) one after another over its link, computes its own share
 * 1 - (w - 1) r meanwhile, and gathers the secondaries' outputs as they come
 * back, so that it holds the next layer's input.  A secondary receives,
 * computes and sends back in turn; the host's sends and receives cost its
 * CPU while it computes (with_net); each message pays the link's latency
 * and moves at the wire's rate or the CPU's, whichever is slower.  The
 * partitioning ratio r is HALP's knob: the best in [0, 1/(w-1)] (0: the host
 * alone, no transfers). */
static double split_layer_s(const pipe_ctx *x, int type, int unit, int intra, int inter, int v, int w, int busy)
{
    const pt_edge_type *t = &x->c->type[type];
    const pt_glayer *l = &x->g->l[v];
    const pt_edge_cluster *c = x->c;
    double B = x->o->batch, out = pt_edge_out_bytes(l, x->o->dtype) * B, cpb = t->net_s_per_byte;
    double best = pt_edge_layer_bw_s(l, t, unit, x->o->dtype, B, intra, inter, 1.0, 1.0 / busy, c->chip_Bps,
                                     c->chip_latency_s);
    double lo = 0, hi = 1.0 / (w - 1), rbest = 0;
    if (l->op == PT_G_INPUT) return 0;
    for (int pass = 0; pass < 2; pass++) {
        /* a grid over [lo, hi], then a finer one around the best point */
        double step = (hi - lo) / PIPE_SPLIT_GRID;
        for (int q = 0; q <= PIPE_SPLIT_GRID; q++) {
            double r = lo + step * q, r0 = 1.0 - (w - 1) * r, I, O, th, ts, tin, tout, e = 0, done;
            if (!(r > 0)) continue;
            I = seg_in_bytes(x, v, r) * B, O = r * out;
            th = r0 > 1e-12 ? pt_edge_layer_bw_s(l, t, unit, x->o->dtype, B, intra, inter, r0, 1.0 / busy,
                                                  c->chip_Bps, c->chip_latency_s)
                            : 0.0;
            ts = pt_edge_layer_bw_s(l, t, unit, x->o->dtype, B, intra, inter, r, 1.0 / busy, c->chip_Bps,
                                    c->chip_latency_s);
            tin = fmax(I / c->net_Bps, cpb * I), tout = fmax(O / c->net_Bps, cpb * O);
            for (int k = 1; k < w; k++) {
                double arrive = k * tin + c->net_latency_s;
                e = fmax(arrive + ts, e) + tout + c->net_latency_s;
            }
            done = fmax(with_net(t, unit, intra, inter, th, cpb * (w - 1) * (I + O)), e);
            if (done < best) best = done, rbest = r;
        }
        lo = fmax(0.0, rbest - step), hi = fmin(1.0 / (w - 1), rbest + step);
        if (!(rbest > 0)) break;
    }
    return best;
}

static int price_unit(const pipe_ctx *x, int type, int unit, int width, int busy, unit_prices *up)
{
    const pt_edge_type *t = &x->c->type[type];
    const pt_edge_unit *u = &t->unit[unit];
    int n = x->n;
    double B = x->o->batch;
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
            double s = width > 1 ? split_layer_s(x, type, unit, up->intra[k], up->inter[k], v, width, busy)
                                 : pt_edge_layer_bw_s(l, t, unit, x->o->dtype, B, up->intra[k], up->inter[k], 1.0,
                                                      1.0 / busy, x->c->chip_Bps, x->c->chip_latency_s);
            p[v + 1] = p[v] + s;
        }
    }
    return 0;
}

/* Layers [i, j) on one unit with its best thread setting (no network). */
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

/* What the DP's busy() needs of one order's slots. */
typedef struct order_ctx {
    const pipe_ctx *x;
    const slot *sl;
    const unit_prices *ups;
    const int *slot_up;   /* [m] the slot's prices                           */
    const int *jmax;      /* [m][n + 1] the last layer end that fits from i  */
    int n;
} order_ctx;

/* A stage's best time per batch over its unit's thread settings (with_net),
 * the setting in *combo; INFINITY when [i, j) does not fit its memory. */
static double stage_busy(const order_ctx *oc, int s, int i, int j, double net_s, int *combo)
{
    const unit_prices *up = &oc->ups[oc->slot_up[s]];
    const pt_edge_type *t = &oc->x->c->type[up->type];
    size_t N1 = (size_t)oc->n + 1;
    double b = INFINITY;
    if (j > oc->jmax[(size_t)s * N1 + (size_t)i]) return INFINITY;
    for (int k = 0; k < up->ncombo; k++) {
        const double *p = up->pre + (size_t)k * N1;
        double v = with_net(t, up->unit, up->intra[k], up->inter[k], p[j] - p[i], net_s);
        if (v < b) b = v, *combo = k;
    }
    return b;
}

static double busy_cb(const void *ctx, int s, int i, int j, double net_s)
{
    int k = 0;
    return stage_busy(ctx, s, i, j, net_s, &k);
}

/* One DP over slots[0..m) (an order of one replica's units); fills *p's
 * stages when it beats *p (compared by the objective). */
static int solve_order(const pipe_ctx *x, const slot *sl, int m, int replicas, unit_prices *ups, int nup,
                       pt_pipe_plan *p, int *have)
{
    int n = x->n, units[PT_PIPE_MAX_STAGES], first[PT_PIPE_MAX_STAGES], last[PT_PIPE_MAX_STAGES], nst = 0;
    size_t N1 = (size_t)n + 1;
    double *xf = malloc((size_t)m * (size_t)m * N1 * sizeof *xf), *net = malloc((size_t)m * N1 * sizeof *net);
    int *slot_up = malloc((size_t)m * sizeof *slot_up), *jmax = malloc((size_t)m * N1 * sizeof *jmax);
    int per_board[PT_EDGE_MAX_BOARDS] = {0}, bid[PIPE_MAX_SLOTS];
    double B = x->o->batch, bott = 0, lat = 0, dflt_bott = 0, tput;
    const pt_edge_cluster *c = x->c;
    order_ctx oc = {x, sl, ups, slot_up, jmax, n};
    if (!xf || !net || !slot_up || !jmax) {
        free(xf), free(net), free(slot_up), free(jmax);
        return -1;
    }
    for (int s = 0; s < m; s++) per_board[sl[s].board]++;
    for (int s = 0; s < m; s++) {
        const pt_edge_type *t = &c->type[sl[s].type];
        double cap = t->dev.memory_GiB * 1073741824.0 * PT_EDGE_MEM_USABLE / per_board[sl[s].board];
        /* units of one board pass tensors through its memory; a stage split
         * over boards sends over the network */
        bid[s] = sl[s].width == 1 ? sl[s].board : PT_EDGE_MAX_BOARDS + s;
        slot_up[s] = find_prices(ups, nup, sl[s].type, sl[s].unit, sl[s].width, per_board[sl[s].board]);
        /* a stage's memory grows with its end: the last end that fits */
        for (int i = 0, j = 0; i <= n; i++) {
            if (j < i) j = i;
            while (j < n && stage_mem(x, i, j + 1) / sl[s].width <= cap) j++;
            jmax[(size_t)s * N1 + (size_t)i] = j;
        }
        for (int i = 0; i <= n; i++) net[(size_t)s * N1 + (size_t)i] = t->net_s_per_byte * x->cut_bytes[i] * B;
    }
    for (int s = 0; s < m; s++)
        for (int sp = 0; sp < m; sp++)
            for (int i = 0; i <= n; i++) {
                double bytes = x->cut_bytes[i] * B, *q = &xf[((size_t)sp * (size_t)m + (size_t)s) * N1 + (size_t)i];
                if (bid[sp] == bid[s]) {
                    *q = c->chip_latency_s + bytes / c->chip_Bps;
                } else {
                    /* the wire, or the slower of the two ends' network stacks */
                    double w = bytes / c->net_Bps;
                    w = fmax(w, fmax(net[(size_t)sp * N1 + (size_t)i], net[(size_t)s * N1 + (size_t)i]));
                    *q = c->net_latency_s + w;
                }
            }
    pt_pipe_dp(n, m, busy_cb, &oc, xf, net, bid, x->o->objective, units, first, last, &nst);
    if (nst > 0) {
        pt_pipe_plan q;
        memset(&q, 0, sizeof q);
        q.replicas = replicas, q.nstages = nst;
        for (int k = 0; k < nst; k++) {
            pt_pipe_stage *g = &q.stage[k];
            int s = units[k];
            const unit_prices *up = &ups[slot_up[s]];
            const pt_edge_type *t = &c->type[up->type];
            const pt_edge_unit *u = &t->unit[up->unit];
            int cb = 0, dk = 0;
            double ns = 0, dflt;
            if (k > 0 && bid[units[k - 1]] != bid[s]) ns += net[(size_t)s * N1 + (size_t)first[k]];
            if (k + 1 < nst && bid[units[k + 1]] != bid[s]) ns += net[(size_t)s * N1 + (size_t)last[k]];
            g->board = sl[s].board, g->width = sl[s].width, g->unit = sl[s].unit;
            g->first = first[k], g->last = last[k];
            g->net_cpu_s = ns;
            g->compute_s = stage_busy(&oc, s, first[k], last[k], ns, &cb);
            g->intra = up->intra[cb], g->inter = up->inter[cb];
            /* the vendors' default: every core on one operator, one at a time */
            for (int z = 0; z < up->ncombo; z++)
                if (up->intra[z] == (u->kind == PT_UNIT_CPU ? u->cores : 1) && up->inter[z] == 1) dk = z;
            dflt = up->pre[(size_t)dk * N1 + (size_t)last[k]] - up->pre[(size_t)dk * N1 + (size_t)first[k]];
            g->default_s = with_net(t, up->unit, up->intra[dk], up->inter[dk], dflt, ns);
            g->transfer_s = k + 1 < nst ? xf[((size_t)s * (size_t)m + (size_t)units[k + 1]) * N1 + (size_t)last[k]]
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
    free(xf), free(net), free(slot_up), free(jmax);
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
    x.in_bytes = calloc((size_t)n, sizeof *x.in_bytes);
    last_use = malloc((size_t)n * sizeof *last_use);
    if (!x.cut_bytes || !x.wprefix || !x.act || !x.in_bytes || !last_use || !ups) {
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
        x.in_bytes[v] = in;
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
    free(x.cut_bytes), free(x.wprefix), free(x.act), free(x.in_bytes), free(last_use);
    return st;
}
