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
 * Not here: which collectives a strategy issues (src/cost).
 */
#include "partita.h"

#include <assert.h>

/* Members of the group inside one domain of level j. */
static double members_in(const pt_cluster *c, int j, int64_t n, int64_t stride)
{
    double k = (double)c->level[j].size / (double)stride;
    if (j == c->nlevels - 1 || k > (double)n) k = (double)n;
    if (k < 1.0) k = 1.0;
    return k;
}

int pt_coll_level(const pt_cluster *c, int64_t n, int64_t stride)
{
    assert(c->nlevels > 0 && n >= 1 && stride >= 1);
    for (int j = 0; j < c->nlevels; j++)
        if (members_in(c, j, n, stride) >= (double)n) return j;
    return c->nlevels - 1;
}

static double level_bw(const pt_level *l)
{
    double eff = l->efficiency > 0 ? l->efficiency : 1.0;
    return l->bw_GBps * 1e9 * eff;
}

/* One reduce-scatter (or all-gather) of `bytes`, hierarchical over levels. */
static double rs_time(const pt_cluster *c, double bytes, int64_t n, int64_t stride)
{
    double t = 0, prev = 1, s = bytes;
    for (int j = 0; j < c->nlevels && prev < (double)n; j++) {
        double k = members_in(c, j, n, stride);
        double g = k / prev;
        if (g > 1.0) {
            const pt_level *l = &c->level[j];
            t += (g - 1.0) / g * s / level_bw(l) + (g - 1.0) * l->latency_us * 1e-6;
            s /= g;
        }
        prev = k;
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
            double k = members_in(c, j, n, stride);
            if (k > prev) {
                double frac = (k - prev) / (double)n;
                double t = frac * b / level_bw(&c->level[j]) +
                           (k - prev) * c->level[j].latency_us * 1e-6 / k;
                if (t > worst) worst = t;
            }
            prev = k;
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
