/*
 * search.c -- enumerate, prune, price, keep the best (see search.h).
 */
#include "plan/search.h"
#include "base/base.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- ordering ----------------------------------------------------------- */

/* 1 if a ranks before b: more tokens/s, then the strategy keys ascending. */
int pt_plan_better(const pt_plan *a, const pt_plan *b)
{
    if (a->score != b->score) return a->score > b->score;
    for (int k = 0; k < PT_D_COUNT; k++) {
        int64_t x = pt_strategy_dim(&a->st, k), y = pt_strategy_dim(&b->st, k);
        if (x != y) return x < y;
    }
    return 0;
}

/* Nearest miss: the smallest memory, then the keys. */
int pt_plan_closer(const pt_plan *a, const pt_plan *b)
{
    if (a->cost.mem.total != b->cost.mem.total) return a->cost.mem.total < b->cost.mem.total;
    for (int k = 0; k < PT_D_COUNT; k++) {
        int64_t x = pt_strategy_dim(&a->st, k), y = pt_strategy_dim(&b->st, k);
        if (x != y) return x < y;
    }
    return 0;
}

#define SLOTS 64

typedef struct worker {
    const pt_model *m;
    const pt_cluster *c;
    const pt_job *job;
    const pt_search_opts *o;
    int id;
    int npairs;
    const int (*pairs)[2];
    /* results */
    int64_t evaluated, priced, pruned, fitting;
    int64_t refused[PT_RULE_COUNT];
    pt_plan *heap; /* min-heap on `better`: the worst kept at [0] */
    int n;
    int have_miss;
    pt_plan miss;
    int nslot[PT_D_COUNT];
    int64_t slotv[PT_D_COUNT][SLOTS];
    pt_plan slot[PT_D_COUNT][SLOTS];
    pthread_mutex_t *mu;  /* serialises o->progress and o->on_fit over the workers */
    int64_t *done;        /* (tp, cp) pairs finished, all workers     */
} worker;

static void heap_push(worker *w, const pt_plan *p)
{
    int k = w->o->top_k, i;
    if (w->n < k) {
        i = w->n++;
        w->heap[i] = *p;
        while (i > 0) { /* sift up: parent must be worse than child */
            int up = (i - 1) / 2;
            if (!pt_plan_better(&w->heap[up], &w->heap[i])) break;
            pt_plan t = w->heap[up];
            w->heap[up] = w->heap[i];
            w->heap[i] = t;
            i = up;
        }
        return;
    }
    if (!pt_plan_better(p, &w->heap[0])) return;
    w->heap[0] = *p;
    i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, worst = i;
        if (l < w->n && pt_plan_better(&w->heap[worst], &w->heap[l])) worst = l;
        if (r < w->n && pt_plan_better(&w->heap[worst], &w->heap[r])) worst = r;
        if (worst == i) break;
        pt_plan t = w->heap[worst];
        w->heap[worst] = w->heap[i];
        w->heap[i] = t;
        i = worst;
    }
}

static void note_slots(worker *w, const pt_plan *p)
{
    for (int d = 0; d < PT_D_COUNT; d++) {
        int64_t v = pt_strategy_dim(&p->st, d);
        int i;
        for (i = 0; i < w->nslot[d]; i++)
            if (w->slotv[d][i] == v) break;
        if (i == w->nslot[d]) {
            if (i == SLOTS) continue;
            w->nslot[d]++;
            w->slotv[d][i] = v;
            w->slot[d][i] = *p;
        } else if (pt_plan_better(p, &w->slot[d][i])) {
            w->slot[d][i] = *p;
        }
    }
}

/* Whether p (its score an upper bound) could enter the best kept or be a
 * dimension's best for its value. */
static int could_keep(const worker *w, const pt_plan *p)
{
    if (w->n < w->o->top_k || pt_plan_better(p, &w->heap[0])) return 1;
    for (int d = 0; d < PT_D_COUNT; d++) {
        int64_t v = pt_strategy_dim(&p->st, d);
        int i;
        for (i = 0; i < w->nslot[d]; i++)
            if (w->slotv[d][i] == v) break;
        if (i == w->nslot[d] ? i < SLOTS : pt_plan_better(p, &w->slot[d][i])) return 1;
    }
    return 0;
}

static void consider(worker *w, pt_strategy *st, const pt_cost_prep *pr)
{
    pt_plan p;
    int fits, lazy, exact = 0;
    const pt_space *sp = &w->o->space;
    if (!pt_space_allows(sp, PT_D_ZERO, st->zero) || !pt_space_allows(sp, PT_D_OFFLOAD, st->offload) ||
        !pt_space_allows(sp, PT_D_SCHEDULE, st->schedule))
        return;
    if (w->o->admit && !w->o->admit(st, w->o->admit_arg)) return;
    w->evaluated++;
    p.st = *st;
    if (w->o->prune) {
        pt_cost_memory_prepared(w->m, w->c, w->job, st, pr, &p.cost.mem, &fits);
        if (!fits) {
            w->pruned++;
            if (!w->have_miss || pt_plan_closer(&p, &w->miss)) {
                w->miss = p;
                w->have_miss = 1;
            }
            return;
        }
    }
    /* Ranked by tokens/s alone, a strategy is first priced with the
     * data-parallel exposure cost.c would replay taken as 0: when even that
     * bound enters neither the best kept nor any dimension's best, the
     * replay cannot change what the search keeps. */
    lazy = !w->o->on_fit && !w->o->score;
    if (lazy) exact = pt_cost_eval_bound(w->m, w->c, w->job, st, pr, &p.cost);
    else pt_cost_eval_prepared(w->m, w->c, w->job, st, pr, &p.cost);
    w->priced++;
    if (!p.cost.fits) {
        if (!w->have_miss || pt_plan_closer(&p, &w->miss)) {
            w->miss = p;
            w->have_miss = 1;
        }
        return;
    }
    w->fitting++;
    if (lazy && !exact) { /* a replay was left out: replayed if the bound could rank */
        p.score = p.cost.tokens_per_s;
        if (!could_keep(w, &p)) return;
        pt_cost_eval_prepared(w->m, w->c, w->job, st, pr, &p.cost);
    }
    if (w->o->on_fit) {
        pthread_mutex_lock(w->mu);
        w->o->on_fit(&p, w->o->on_fit_arg);
        pthread_mutex_unlock(w->mu);
    }
    p.score = w->o->score ? w->o->score(&p, w->job, w->o->score_arg) : p.cost.tokens_per_s;
    heap_push(w, &p);
    note_slots(w, &p);
}

/* Counts a refusal by rule r of a value of dimension dim, when the space
 * names that dimension (dim < 0: always). */
static void refused(int64_t *counts, const pt_space *sp, int r, int dim)
{
    if (dim < 0 || sp->kind[dim] != 0) counts[r]++;
}

/* Schedules, ZeRO stages and offloads for one (tp, cp, pp, dp, vpp, mbs, gbs). */
static void inner(worker *w, pt_strategy *st, const pt_cost_prep *pr, int64_t mb)
{
    static const pt_schedule flat[] = {PT_SCHED_1F1B, PT_SCHED_GPIPE, PT_SCHED_ZBH1, PT_SCHED_DUALPIPE};
    const pt_space *sp = &w->o->space;
    pt_schedule cand[4];
    int ns = 0;
    if (st->vpp == 1) {
        for (int i = 0; i < 4; i++) {
            if (st->pp == 1 && i > 0) { /* no pipeline: one schedule */
                if (pt_space_allows(sp, PT_D_SCHEDULE, flat[i]) && flat[i] != PT_SCHED_GPIPE)
                    refused(w->refused, sp, PT_RULE_SCHEDULE, PT_D_SCHEDULE);
                continue;
            }
            if (flat[i] == PT_SCHED_DUALPIPE && (st->pp % 2 || mb % 2 || st->pp_first)) {
                if (pt_space_allows(sp, PT_D_SCHEDULE, flat[i]))
                    refused(w->refused, sp, PT_RULE_SCHEDULE, PT_D_SCHEDULE);
                continue;
            }
            cand[ns++] = flat[i];
        }
    } else {
        if (mb % st->pp == 0) cand[ns++] = PT_SCHED_INTERLEAVED;
        else if (pt_space_allows(sp, PT_D_SCHEDULE, PT_SCHED_INTERLEAVED))
            refused(w->refused, sp, PT_RULE_SCHEDULE, PT_D_SCHEDULE);
        if (st->vpp == 2) cand[ns++] = PT_SCHED_ZBV;
    }
    for (int s = 0; s < ns; s++) {
        st->schedule = cand[s];
        for (int z = 0; z <= 3; z++) {
            st->zero = z;
            for (int off = 0; off <= 2; off++) {
                if ((off == PT_OFF_OPTIMIZER && z < 1) || (off == PT_OFF_PARAMS && z != 3)) {
                    if (pt_space_allows(sp, PT_D_ZERO, z) && pt_space_allows(sp, PT_D_OFFLOAD, off))
                        refused(w->refused, sp, PT_RULE_OFFLOAD, PT_D_OFFLOAD);
                    continue;
                }
                st->offload = (pt_offload)off;
                consider(w, st, pr);
            }
        }
    }
}

/* Micro-batches per pipeline to try for a global-batch range: powers of two
 * and three times powers of two. */
static int gbs_list(const pt_search_opts *o, int64_t unit, int64_t *out, int max)
{
    int n = 0;
    if (o->gbs_lo == o->gbs_hi) {
        if (o->gbs_lo % unit == 0) out[n++] = o->gbs_lo;
        return n;
    }
    /* m <= hi / unit: unit * m never overflows (pt_search bounds hi) */
    for (int64_t base = 1; base <= 3; base += 2)
        for (int64_t m = base; m <= o->gbs_hi / unit && n < max; m *= 2)
            if (unit * m >= o->gbs_lo) out[n++] = unit * m;
    return n;
}

/* Whether pp_first=f pp_last=l (0: as the middle stages) is a layout
 * Megatron-LM can run: the stages between them take the rest of the layers
 * evenly and every stage holds at least one (pt_strategy_check's rule;
 * Megatron's --decoder-first/last-pipeline-num-layers, whose remaining layers
 * must divide by the remaining stages, megatron/training/arguments.py). */
static int layout_ok(int64_t layers, int pp, int64_t f, int64_t l)
{
    int64_t nmid = pp - (f > 0) - (l > 0), rest = layers - f - l;
    if (pp < 2 || (f == 0 && l == 0) || f < 0 || l < 0) return 0;
    if (nmid == 0) return rest == 0;
    return rest >= nmid && rest % nmid == 0;
}

/* Adds (f, l) to out[0..n) unless it is there, invalid or out is full. */
static int add_layout(int out[][2], int n, int max, int64_t layers, int pp, int64_t f, int64_t l)
{
    if (n >= max || !layout_ok(layers, pp, f, l)) return n;
    for (int i = 0; i < n; i++)
        if (out[i][0] == f && out[i][1] == l) return n;
    out[n][0] = (int)f;
    out[n][1] = (int)l;
    return n + 1;
}

#define UNEVEN_MAX 32

/* Uneven pipelines worth pricing, next to the even split when pp divides
 * the layers and instead of it when it does not.
 *
 * pp dividing the layers: the first and/or the last stage give up layers to
 * the middle ones (whose count must stay whole), so the embedding, the
 * logits and the first stage's extra in-flight activations can be
 * balanced.
 *
 * pp not dividing them (Llama 3.1 405B's 126 layers on 8 stages): the
 * middle pp-2 stages take mid = ceil(layers/pp) or one more layer each and
 * the first and last split what is left, either way round (126 on 8: 15
 * 16x6 15 and 12 17x6 12; DeepSeek-V3's 61 on 8: 7|6 8x6 6|7 and 4|3 9x6
 * 3|4): the most even layout, and one that takes a layer more off the
 * ends (the embedding, the logits, the first stage's in-flight
 * activations).  With pp=2 the two stages split the layers as evenly as
 * they can, or one more apart.  At most four layouts per pp: DeepSeek-V3,
 * whose 61 layers no pp divides, searches about 3.5 times the candidates it
 * did with its one MoE layout (pt_strategy_moe_layout, the first of these).
 *
 * A --space or --fix list of pp_first/pp_last values is tried as given
 * (with the other key from the same rules, or 0), so a layout the user
 * names is priced even where these rules would not reach it.  Returns how
 * many layouts were set. */
static int uneven_variants(int64_t layers, int pp, const pt_space *sp, int out[UNEVEN_MAX][2])
{
    int n = 0, pf = sp->kind[PT_D_PP_FIRST] == 1, pl = sp->kind[PT_D_PP_LAST] == 1;
    int64_t lm;
    if (pp < 2) return 0;
    if (pf || pl) {
        int64_t ceil_mid = (layers + pp - 1) / pp;
        int nf = pf ? sp->n[PT_D_PP_FIRST] : 1, nl = pl ? sp->n[PT_D_PP_LAST] : 1;
        for (int i = 0; i < nf; i++)
            for (int k = 0; k < nl; k++) {
                int64_t f = pf ? sp->v[PT_D_PP_FIRST][i] : 0, l = pl ? sp->v[PT_D_PP_LAST][k] : 0;
                if (pf && pl) {
                    n = add_layout(out, n, UNEVEN_MAX, layers, pp, f, l);
                    continue;
                }
                n = add_layout(out, n, UNEVEN_MAX, layers, pp, f, l); /* the other key 0 */
                for (int64_t mid = ceil_mid; mid <= ceil_mid + 2 && pp > 2; mid++) {
                    int64_t other = layers - (pf ? f : l) - (int64_t)(pp - 2) * mid;
                    n = add_layout(out, n, UNEVEN_MAX, layers, pp, pf ? f : other, pf ? other : l);
                }
            }
        return n;
    }
    if (layers % pp) {
        if (pp == 2) {
            for (int64_t k = 0; k <= 1; k++) {
                int64_t a = (layers - 1) / 2 - k;
                n = add_layout(out, n, UNEVEN_MAX, layers, pp, a, layers - a);
                n = add_layout(out, n, UNEVEN_MAX, layers, pp, layers - a, a);
            }
            return n;
        }
        for (int64_t mid = (layers + pp - 1) / pp, j = 0; j <= 1; j++, mid++) {
            int64_t rest = layers - (int64_t)(pp - 2) * mid;
            if (rest < 2) break;
            n = add_layout(out, n, UNEVEN_MAX, layers, pp, rest - rest / 2, rest / 2);
            n = add_layout(out, n, UNEVEN_MAX, layers, pp, rest / 2, rest - rest / 2);
        }
        return n;
    }
    lm = layers / pp;
    if (pp == 2) {
        for (int k = 1; k <= 2; k++)
            if (lm - k >= 1) {
                n = add_layout(out, n, UNEVEN_MAX, layers, pp, lm - k, lm + k);
                n = add_layout(out, n, UNEVEN_MAX, layers, pp, lm + k, lm - k);
            }
        return n;
    }
    for (int j = 1; j <= 2; j++) {
        int64_t s = (int64_t)(pp - 2) * j; /* layers the middle stages take */
        int64_t pairs[3][2] = {{s, 0}, {0, s}, {s / 2, s - s / 2}};
        for (int k = 0; k < 3 && n < 8; k++) {
            int64_t a = pairs[k][0], b = pairs[k][1];
            if (k == 2 && (s % 2 || s < 2)) continue;
            if (lm - a < 1 || lm - b < 1) continue;
            n = add_layout(out, n, UNEVEN_MAX, layers, pp, lm - a, lm - b);
        }
    }
    return n;
}

/* Every pp, gbs, vpp and stage layout for one preparation key. */
static void price_tree(worker *w, const pt_model *m, const pt_cluster *c, const pt_job *job,
                             const pt_space *sp, int tp, int cp, int mbs, int spv, int rc, int ep,
                             int etp)
{
    pt_strategy st;
    pt_cost_prep pr;
    memset(&st, 0, sizeof st);
    st.tp = tp;
    st.cp = cp;
    st.ep = ep;
    st.etp = etp;
    st.mbs = mbs;
    st.sp = spv;
    st.recompute = (pt_recompute)rc;
    st.pp = 1;
    st.vpp = 1;
    pt_cost_prepare(m, c, job, &st, &pr);
    /* pp ranges over the divisors of devices / (tp*cp) (at most the layer
     * count): the work depends on the device count, not on num_hidden_layers */
    int64_t rest = c->devices / ((int64_t)tp * cp), divs[2048];
    int ndiv = 0, nhi = 0;
    int64_t his[1024];
    for (int64_t q = 1; q * q <= rest; q++)
        if (rest % q == 0) {
            if (ndiv < 1024) divs[ndiv++] = q;
            if (q * q != rest && nhi < 1024) his[nhi++] = rest / q;
        }
    while (nhi > 0) divs[ndiv++] = his[--nhi]; /* ascending */
    if (sp->kind[PT_D_PP] == 1) /* a pp named by --fix/--space that is no divisor */
        for (int i = 0; i < sp->n[PT_D_PP]; i++)
            if (sp->v[PT_D_PP][i] < 1 || rest % sp->v[PT_D_PP][i]) w->refused[PT_RULE_DEVICES]++;
    for (int id = 0; id < ndiv; id++) {
        int64_t model = (int64_t)tp * cp * divs[id], dp, gl[64];
        int ng, nv, var[UNEVEN_MAX][2], pp = (int)divs[id];
        if (c->devices % model) continue;
        if (!pt_space_allows(sp, PT_D_PP, pp)) continue;
        if (divs[id] > m->layers) {
            refused(w->refused, sp, PT_RULE_PP_LAYERS, PT_D_PP);
            continue;
        }
        /* the stage layouts: the even split where pp divides the layers,
         * and the uneven ones Megatron allows (uneven_variants) */
        nv = uneven_variants(m->layers, pp, sp, var);
        if (m->layers % pp && nv == 0) {
            refused(w->refused, sp, PT_RULE_PP_LAYERS, -1);
            continue;
        }
        dp = c->devices / model;
        if (!pt_space_allows(sp, PT_D_DP, dp)) continue;
        /* the expert grid: ep*etp divides tp*cp*dp */
        if (((int64_t)tp * cp * dp) % ((int64_t)ep * etp)) {
            refused(w->refused, sp, PT_RULE_EXPERTS, -1);
            continue;
        }
        st.pp = pp;
        st.dp = (int)dp;
        ng = gbs_list(w->o, (int64_t)mbs * dp, gl, 64);
        if (ng == 0) refused(w->refused, sp, PT_RULE_GBS, -1);
        for (int g = 0; g < ng; g++) {
            int64_t mb = gl[g] / ((int64_t)mbs * dp);
            if (!pt_space_allows(sp, PT_D_GBS, gl[g])) continue;
            st.gbs = gl[g];
            for (int vpp = 1; vpp <= 16; vpp++) {
                if (!pt_space_allows(sp, PT_D_VPP, vpp)) continue;
                if (vpp > 1 && (pp == 1 || m->layers % ((int64_t)pp * vpp))) {
                    refused(w->refused, sp, PT_RULE_VPP, PT_D_VPP);
                    continue;
                }
                st.vpp = vpp;
                /* uneven stages run with one stage per rank (vpp=1) */
                for (int u = m->layers % pp ? 0 : -1; u < (vpp == 1 ? nv : 0); u++) {
                    st.pp_first = u < 0 ? 0 : var[u][0];
                    st.pp_last = u < 0 ? 0 : var[u][1];
                    if (!pt_space_allows(sp, PT_D_PP_FIRST, st.pp_first) ||
                        !pt_space_allows(sp, PT_D_PP_LAST, st.pp_last))
                        continue;
                    inner(w, &st, &pr, mb);
                }
                st.pp_first = st.pp_last = 0;
            }
        }
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    const pt_model *m = w->m;
    const pt_cluster *c = w->c;
    const pt_job *job = w->job;
    const pt_space *sp = &w->o->space;
    for (int i = w->id; i < w->npairs; i += w->o->threads) {
        int tp = w->pairs[i][0], cp = w->pairs[i][1];
        for (int mbs = 1; mbs <= 512; mbs++) {
            int odd = mbs;
            while (odd % 2 == 0) odd /= 2;
            /* 2^a and 3*2^a: the sizes people run, and any --fix/--space lists */
            if (odd != 1 && odd != 3 && sp->kind[PT_D_MBS] != 1) continue;
            if (!pt_space_allows(sp, PT_D_MBS, mbs)) continue;
            if (mbs > w->o->gbs_hi) {
                refused(w->refused, sp, PT_RULE_GBS, PT_D_MBS);
                continue;
            }
            if (w->o->gbs_lo == w->o->gbs_hi && (w->o->gbs_hi % mbs)) {
                refused(w->refused, sp, PT_RULE_GBS, PT_D_MBS);
                continue;
            }
            for (int spv = 0; spv <= 1; spv++) {
                if (!pt_space_allows(sp, PT_D_SP, spv)) continue;
                if (spv && tp == 1) { /* sp=1 needs tp > 1 */
                    refused(w->refused, sp, PT_RULE_SP, PT_D_SP);
                    continue;
                }
                if (spv && (job->seq_len / cp) % tp) {
                    refused(w->refused, sp, PT_RULE_SP, -1);
                    continue;
                }
                for (int rc = 0; rc <= 2; rc++) {
                    if (!pt_space_allows(sp, PT_D_RECOMPUTE, rc)) continue;
                    /* with flash attention selective recompute has nothing left
                     * to recompute: it prices the same as none, so it is only
                     * tried when asked for */
                    if (rc == PT_RC_SELECTIVE && job->flash_attention &&
                        sp->kind[PT_D_RECOMPUTE] == 0)
                        continue;
                    /* Megatron: a MoE model with tp > 1 needs sequence parallelism */
                    if (m->experts > 0 && tp > 1 && !spv) {
                        refused(w->refused, sp, PT_RULE_SP, -1);
                        continue;
                    }
                    /* experts: etp dividing tp (Megatron allows any etp; these
                     * are the ones its recipes and torchtitan use), ep dividing
                     * the expert count; a dense model has ep=1, etp=tp */
                    for (int etp = 1; etp <= tp; etp++) {
                        if (!pt_space_allows(sp, PT_D_ETP, etp)) continue;
                        if (m->experts == 0 ? etp != tp : (tp % etp || m->moe_ffn % etp)) {
                            refused(w->refused, sp, PT_RULE_EXPERTS, PT_D_ETP);
                            continue;
                        }
                        for (int ep = 1; ep <= (m->experts > 0 ? m->experts : 1) && ep <= c->devices; ep++) {
                            if (!pt_space_allows(sp, PT_D_EP, ep)) continue;
                            if (m->experts > 0 && m->experts % ep) {
                                refused(w->refused, sp, PT_RULE_EXPERTS, PT_D_EP);
                                continue;
                            }
                            price_tree(w, m, c, job, sp, tp, cp, mbs, spv, rc, ep, etp);
                        }
                    }
                }
            }
        }
        if (w->o->progress) {
            pthread_mutex_lock(w->mu);
            w->o->progress(w->o->progress_arg, ++*w->done, w->npairs);
            pthread_mutex_unlock(w->mu);
        }
    }
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int pt_plan_cmp(const void *a, const void *b)
{
    const pt_plan *x = a, *y = b;
    if (pt_plan_better(x, y)) return -1;
    if (pt_plan_better(y, x)) return 1;
    return 0;
}

pt_status pt_search(const pt_model *m, const pt_cluster *c, const pt_job *job,
                    const pt_search_opts *o, pt_search_result *r, pt_diag *d)
{
    int pairs[4096][2], npairs = 0, T = o->threads < 1 ? 1 : o->threads;
    worker *w;
    pthread_t *th;
    double t0 = now_s();
    const pt_space *sp = &o->space;
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    int64_t done = 0;

    memset(r, 0, sizeof *r);
    {
        pt_status js;
        char v[32];
        if (o->top_k < 1 || o->top_k > PT_SEARCH_MAX_TOP) {
            snprintf(v, sizeof v, "%d", o->top_k);
            return pt_diag_set(d, NULL, "top", v, "--top %s is outside 1..%d", v, PT_SEARCH_MAX_TOP);
        }
        if (o->threads < 1 || o->threads > PT_SEARCH_MAX_THREADS) {
            snprintf(v, sizeof v, "%d", o->threads);
            return pt_diag_set(d, NULL, "threads", v, "--threads %s is outside 1..%d", v,
                               PT_SEARCH_MAX_THREADS);
        }
        if (o->gbs_lo < 1 || o->gbs_hi < o->gbs_lo || o->gbs_hi > PT_MAX_GLOBAL_BATCH) {
            snprintf(v, sizeof v, "%lld", (long long)o->gbs_hi);
            return pt_diag_set(d, NULL, "global-batch", v, "--global-batch %lld..%lld is not within 1..%lld "
                               "sequences", (long long)o->gbs_lo, (long long)o->gbs_hi,
                               (long long)PT_MAX_GLOBAL_BATCH);
        }
        if (c->devices < 1 || c->devices > PT_MAX_DEVICES) {
            snprintf(v, sizeof v, "%lld", (long long)c->devices);
            return pt_diag_set(d, NULL, "devices", v, "the cluster's %s devices are outside 1..%lld", v,
                               (long long)PT_MAX_DEVICES);
        }
        if ((js = pt_job_check(job, d)) != PT_OK) return js;
    }
    /* (tp, cp) pairs the model and the cluster allow */
    for (int tp = 1; tp <= 512; tp++) {
        if (!pt_space_allows(sp, PT_D_TP, tp)) continue;
        if (c->devices % tp) {
            refused(r->refused, sp, PT_RULE_DEVICES, PT_D_TP);
            continue;
        }
        if (m->heads % tp || m->kv_heads % tp || ((m->experts == 0 || m->dense_layers > 0) && m->ffn % tp) ||
            (m->experts > 0 && m->shared_ffn % tp)) {
            refused(r->refused, sp, PT_RULE_TP_SHAPE, -1);
            continue;
        }
        for (int cp = 1; cp <= 256; cp++) {
            if (!pt_space_allows(sp, PT_D_CP, cp)) continue;
            if (c->devices % ((int64_t)tp * cp)) {
                refused(r->refused, sp, PT_RULE_DEVICES, PT_D_CP);
                continue;
            }
            if (cp > 1 && job->seq_len % (2 * (int64_t)cp)) {
                refused(r->refused, sp, PT_RULE_CP_SEQ, -1);
                continue;
            }
            if (npairs < 4096) {
                pairs[npairs][0] = tp;
                pairs[npairs][1] = cp;
                npairs++;
            }
        }
    }
    if (T > npairs && npairs > 0) T = npairs;
    w = calloc((size_t)T, sizeof *w);
    th = calloc((size_t)T, sizeof *th);
    if (!w || !th) {
        free(w);
        free(th);
        pt_diag_set(d, NULL, NULL, NULL, "out of memory");
        return PT_ENOMEM;
    }
    {
        pt_search_opts oo = *o;
        oo.threads = T;
        for (int i = 0; i < T; i++) {
            w[i].m = m;
            w[i].c = c;
            w[i].job = job;
            w[i].o = o;
            w[i].id = i;
            w[i].npairs = npairs;
            w[i].pairs = (const int (*)[2])pairs;
            w[i].heap = calloc((size_t)o->top_k, sizeof(pt_plan));
            if (!w[i].heap) {
                for (int k = 0; k <= i; k++) free(w[k].heap);
                free(w);
                free(th);
                pt_diag_set(d, NULL, NULL, NULL, "out of memory");
                return PT_ENOMEM;
            }
            w[i].mu = &mu;
            w[i].done = &done;
        }
        /* workers step through pairs by the real thread count */
        for (int i = 0; i < T; i++) w[i].o = &oo;
        if (T == 1) {
            work(&w[0]);
        } else {
            /* a thread that cannot start: its share runs here, after the others */
            int *started = calloc((size_t)T, sizeof *started);
            for (int i = 0; i < T; i++)
                started[i] = started && pthread_create(&th[i], NULL, work, &w[i]) == 0;
            for (int i = 0; i < T; i++) {
                if (started && started[i]) pthread_join(th[i], NULL);
                else work(&w[i]);
            }
            free(started);
        }
        /* merge: the same total order whatever T */
        {
            int total = 0;
            pt_plan *all;
            for (int i = 0; i < T; i++) total += w[i].n;
            all = calloc((size_t)(total ? total : 1), sizeof *all);
            if (!all) {
                for (int i = 0; i < T; i++) free(w[i].heap);
                free(w);
                free(th);
                pt_diag_set(d, NULL, NULL, NULL, "out of memory");
                return PT_ENOMEM;
            }
            for (int i = 0, k = 0; i < T; i++)
                for (int j = 0; j < w[i].n; j++) all[k++] = w[i].heap[j];
            qsort(all, (size_t)total, sizeof *all, pt_plan_cmp);
            r->n = total < o->top_k ? total : o->top_k;
            r->plans = all;
            for (int i = 0; i < T; i++) {
                r->evaluated += w[i].evaluated;
                r->priced += w[i].priced;
                r->pruned += w[i].pruned;
                r->fitting += w[i].fitting;
                for (int k = 0; k < PT_RULE_COUNT; k++) r->refused[k] += w[i].refused[k];
                if (w[i].have_miss && (!r->have_miss || pt_plan_closer(&w[i].miss, &r->miss))) {
                    r->miss = w[i].miss;
                    r->have_miss = 1;
                }
            }
            if (r->have_miss) pt_cost_eval(m, c, job, &r->miss.st, &r->miss.cost);
            if (r->n > 0)
                for (int dd = 0; dd < PT_D_COUNT; dd++) {
                    int64_t win = pt_strategy_dim(&all[0].st, dd);
                    for (int i = 0; i < T; i++)
                        for (int s = 0; s < w[i].nslot[dd]; s++) {
                            if (w[i].slotv[dd][s] == win) continue;
                            if (!r->have_alt[dd] || pt_plan_better(&w[i].slot[dd][s], &r->alt[dd])) {
                                r->alt[dd] = w[i].slot[dd][s];
                                r->have_alt[dd] = 1;
                            }
                        }
                }
        }
        for (int i = 0; i < T; i++) free(w[i].heap);
    }
    free(w);
    free(th);
    r->seconds = now_s() - t0;
    return PT_OK;
}

void pt_search_free(pt_search_result *r)
{
    free(r->plans);
    r->plans = NULL;
    r->n = 0;
}

void pt_search_rule_describe(int r, const pt_model *m, const pt_cluster *c, const pt_job *job,
                             char *buf, size_t n)
{
    switch (r) {
    case PT_RULE_TP_SHAPE:
        snprintf(buf, n, "tp must divide num_attention_heads=%lld, num_key_value_heads=%lld and the "
                 "MLP width %lld", (long long)m->heads, (long long)m->kv_heads,
                 (long long)(m->experts > 0 && m->dense_layers == 0 ? m->shared_ffn : m->ffn));
        break;
    case PT_RULE_DEVICES:
        snprintf(buf, n, "tp*cp*pp must divide the %lld devices", (long long)c->devices);
        break;
    case PT_RULE_CP_SEQ:
        snprintf(buf, n, "cp: seq_len=%lld must be a multiple of 2*cp", (long long)job->seq_len);
        break;
    case PT_RULE_PP_LAYERS:
        snprintf(buf, n, "pp: num_layers=%lld must give every stage a layer, the middle stages an "
                 "even share", (long long)m->layers);
        break;
    case PT_RULE_VPP:
        snprintf(buf, n, "vpp: pp*vpp must divide num_layers=%lld (and vpp > 1 needs pp > 1)",
                 (long long)m->layers);
        break;
    case PT_RULE_EXPERTS:
        snprintf(buf, n, "experts: ep must divide the %lld experts, etp tp and the expert width, "
                 "ep*etp tp*cp*dp", (long long)m->experts);
        break;
    case PT_RULE_SP:
        snprintf(buf, n, "sp: sequence parallelism needs tp > 1 and seq_len/cp a multiple of tp; "
                 "a MoE model with tp > 1 needs it");
        break;
    case PT_RULE_GBS:
        snprintf(buf, n, "gbs: the global batch must be a multiple of mbs*dp");
        break;
    case PT_RULE_SCHEDULE:
        snprintf(buf, n, "schedule: interleaved needs micro-batches a multiple of pp, dualpipe an "
                 "even pp and micro-batch count and even stages, pp=1 runs 1f1b");
        break;
    case PT_RULE_OFFLOAD:
        snprintf(buf, n, "offload: offload=optimizer needs zero>=1, offload=params zero=3");
        break;
    default: snprintf(buf, n, "rule %d", r); break;
    }
}
