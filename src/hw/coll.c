/*
 * coll.c -- time of one collective over a group of ranks placed on the cluster's
 * levels.
 *
 * A group is n ranks spaced `stride` apart in rank order (Megatron's order puts
 * tp innermost, then cp, dp, pp, so a dp group has stride tp*cp).  Level j's
 * domain of D_j devices holds k_j = clamp(D_j / stride, 1, n) members of the
 * group; the group therefore splits into g_0 = k_0 members per innermost domain,
 * g_1 = k_1/k_0 innermost domains per level-1 domain, and so on.
 *
 * Formulas (DESIGN.md "Facts"; nccl-tests doc/PERFORMANCE.md defines busbw the
 * same way, so a measured busbw plugs in as bw * efficiency):
 *   ring all-reduce of S bytes over n:   2(n-1)/n * S / bw + 2(n-1) * latency
 *   reduce-scatter, all-gather:          (n-1)/n * S / bw + (n-1) * latency
 *   all-to-all:                          (n-1)/n * S / bw
 * Across levels the collective is hierarchical: reduce-scatter inside the
 * innermost domain, then over the next level on the 1/g_0 shard each device now
 * holds, ...; all-gather mirrors it; an all-reduce is the two together.  This is
 * what NCCL's multi-channel rings reach on multi-NIC nodes: the bytes that cross
 * a node boundary per device are S/g_0, not S.
 * pt_coll_time_flat prices one ring at the slowest spanned level instead, for
 * collectives that cannot use every link of a node at once (see cost.c, ZeRO-3).
 *
 * Where the ranks really sit (levels with a unit or segment, cluster.c:
 * GB200/GB300 NVL72 racks, and every job that leaves a domain partly used).
 * Domains of level j hold E_j = pt_cluster_fill(c, j) consecutive ranks, the
 * last one fewer, so groups differ: one lies inside a rack, the next straddles
 * two.  A group is the ranks b + i*stride (i < n) of an aligned block of
 * L = n*stride ranks, so the domain starts cut [0, devices) into pieces; a
 * piece of length l holds floor(l/stride) members of some group (1 when that
 * is 0).  Per level, kmin_j is the fewest members a group has in one domain
 * (from the shortest piece) and kmax_j the most; every stage is priced for
 * the device that is worst off, the one whose part of the inner level is
 * smallest while its part of this level is largest:
 *   reduce-scatter stage j:  (1/kmin_{j-1} - 1/kmax_j) * S / bw_j
 *                            + (kmax_j/kmin_{j-1} - 1) * latency_j
 *   all-to-all at level j:   (kmax_j - kmin_{j-1}) / n * S / bw_j
 * With kmin = kmax = k these are the formulas above (a stage (g-1)/g * S/k_{j-1}
 * with g = k_j/k_{j-1}), so whole, alike domains price as before; a tp=8
 * group inside one NVL72 rack moves at NVLink speed, a group that crosses
 * racks pays the scale-out level on the shard of its smallest part.  Levels
 * without a unit or segment whose job fills whole domains keep the average
 * k_j = clamp(D_j/stride, 1, n) of the uniform model.
 *
 * Not here: which collectives a strategy issues (src/cost).
 */
#include "base/base.h"
#include "partita.h"

#include <assert.h>

/* Domain starts past which the shortest piece is bounded by gcd(E, L)
 * instead of found (every cut is a multiple of it): a job of more than
 * 4096 racks stays cheap to price. */
#define COLL_MAX_BOUNDARIES 4096

/* The shortest piece [0, n) is cut into by the multiples of L (group blocks)
 * and the domain starts d*E, 0 < d*E < n. */
static int64_t shortest_piece(int64_t n, int64_t E, int64_t L)
{
    int64_t D = (n + E - 1) / E, best = L < n ? L : n;
    if (D - 1 > COLL_MAX_BOUNDARIES) {
        int64_t g = pt_gcd(E, L);
        return g < best ? g : best;
    }
    for (int64_t d = 1; d < D; d++) {
        int64_t b = d * E, r = b % L;
        int64_t prev_a = b - (r ? r : L), next_a = b - r + L;
        int64_t prev_b = (d - 1) * E, next_b = d + 1 < D ? (d + 1) * E : n;
        int64_t left = b - (prev_a > prev_b ? prev_a : prev_b);
        int64_t right = (next_a < next_b ? next_a : next_b) - b;
        if (left < best) best = left;
        if (right < best) best = right;
    }
    return best;
}

/* Whether level j of c places ranks exactly (a unit or segment, or a domain
 * the job leaves partly used) rather than by the uniform average. */
static int level_exact(const pt_cluster *c, int j)
{
    const pt_level *l = &c->level[j];
    if (j == c->nlevels - 1) return 0;
    if ((l->unit > 0 && l->unit < l->size) || (l->segment > 0 && l->segment < l->size)) return 1;
    return c->devices % pt_cluster_fill(c, j) != 0;
}

/* Members of the group inside one domain of level j: the fewest any group
 * has in a domain it touches (*kmin) and the most (*kmax). */
static void members_in(const pt_cluster *c, int j, int64_t n, int64_t stride, double *kmin,
                       double *kmax)
{
    double k;
    if (level_exact(c, j)) {
        int64_t E = pt_cluster_fill(c, j), L = n * stride;
        int64_t lo = shortest_piece(c->devices, E, L) / stride;
        int64_t hi = L <= E ? n : (E + stride - 1) / stride;
        if (lo < 1) lo = 1;
        if (lo > n) lo = n;
        if (hi > n) hi = n;
        if (hi < lo) hi = lo;
        *kmin = (double)lo;
        *kmax = (double)hi;
        return;
    }
    k = (double)c->level[j].size / (double)stride;
    if (j == c->nlevels - 1 || k > (double)n) k = (double)n;
    if (k < 1.0) k = 1.0;
    *kmin = *kmax = k;
}

int pt_coll_level(const pt_cluster *c, int64_t n, int64_t stride)
{
    assert(c->nlevels > 0 && n >= 1 && stride >= 1);
    for (int j = 0; j < c->nlevels; j++) {
        double lo, hi;
        members_in(c, j, n, stride, &lo, &hi);
        if (lo >= (double)n) return j;
    }
    return c->nlevels - 1;
}

static double level_bw(const pt_level *l)
{
    double eff = l->efficiency > 0 ? l->efficiency : 1.0;
    return l->bw_GBps * 1e9 * eff;
}

/* One reduce-scatter (or all-gather) of `bytes`, hierarchical over levels:
 * s is the shard the worst-off device holds entering a stage, prev its part
 * of the inner level. */
static double rs_time(const pt_cluster *c, double bytes, int64_t n, int64_t stride)
{
    double t = 0, prev = 1, s = bytes;
    for (int j = 0; j < c->nlevels && prev < (double)n; j++) {
        double lo, k, g;
        members_in(c, j, n, stride, &lo, &k);
        g = k / prev;
        if (g > 1.0) {
            const pt_level *l = &c->level[j];
            t += (g - 1.0) / g * s / level_bw(l) + (g - 1.0) * l->latency_us * 1e-6;
        }
        if (lo == k) {
            if (g > 1.0) s /= g;
        } else {
            s = bytes / lo;
        }
        prev = lo;
    }
    return t;
}

double pt_coll_time(const pt_cluster *c, pt_coll_op op, int64_t bytes, int64_t n, int64_t stride)
{
    double b = (double)bytes;
    if (n <= 1 || bytes <= 0) return 0.0;
    switch (op) {
    case PT_ALLREDUCE: return 2.0 * rs_time(c, b, n, stride);
    case PT_REDUCESCATTER:
    case PT_ALLGATHER: return rs_time(c, b, n, stride);
    case PT_ALLTOALL: {
        /* Every device sends (n-1)/n of its buffer; the part that leaves a
         * level-(j-1) domain crosses level j.  Transfers on different levels
         * proceed at once, so the slowest level sets the time. */
        double worst = 0, prev = 1;
        for (int j = 0; j < c->nlevels && prev < (double)n; j++) {
            double lo, k;
            members_in(c, j, n, stride, &lo, &k);
            if (k > prev) {
                double frac = (k - prev) / (double)n;
                double t = frac * b / level_bw(&c->level[j]) +
                           (k - prev) * c->level[j].latency_us * 1e-6 / k;
                if (t > worst) worst = t;
            }
            prev = lo;
        }
        return worst;
    }
    }
    return 0.0;
}

double pt_coll_time_flat(const pt_cluster *c, pt_coll_op op, int64_t bytes, int64_t n,
                         int64_t stride)
{
    const pt_level *l;
    double nn = (double)n, b = (double)bytes, one;
    if (n <= 1 || bytes <= 0) return 0.0;
    l = &c->level[pt_coll_level(c, n, stride)];
    one = (nn - 1.0) / nn * b / level_bw(l) + (nn - 1.0) * l->latency_us * 1e-6;
    return op == PT_ALLREDUCE ? 2.0 * one : one;
}

double pt_p2p_time(const pt_cluster *c, int64_t bytes, int64_t n, int64_t stride)
{
    const pt_level *l;
    if (n <= 1 || bytes <= 0) return 0.0;
    l = &c->level[pt_coll_level(c, n, stride)];
    return (double)bytes / level_bw(l) + l->latency_us * 1e-6;
}
