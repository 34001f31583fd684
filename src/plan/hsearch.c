/*
 * hsearch.c -- the search on clusters with pools (see hsearch.h).
 */
#include "plan/hsearch.h"
#include "base/base.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static double mem_ratio(const pt_hetero *h)
{
    return h->cost.device_memory_bytes > 0 ? (double)h->cost.mem.total / (double)h->cost.device_memory_bytes
                                           : 1e300;
}

/* Puts p among the kept plans if it ranks (strictly faster than the last). */
static void keep(pt_hsearch_result *r, int top_k, const pt_hplan *p)
{
    int i = r->n;
    if (r->n == top_k && !(p->h.cost.tokens_per_s > r->plans[r->n - 1].h.cost.tokens_per_s)) return;
    if (r->n < top_k) r->n++;
    else i = r->n - 1;
    while (i > 0 && p->h.cost.tokens_per_s > r->plans[i - 1].h.cost.tokens_per_s) {
        r->plans[i] = r->plans[i - 1];
        i--;
    }
    r->plans[i] = *p;
}

pt_status pt_hsearch(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_space *space,
                     int top_k, pt_hsearch_result *r, pt_diag *d)
{
    static const int mbs_v[] = {1, 2, 4, 8};
    int64_t node = c->nlevels > 1 ? c->level[0].size : c->devices;
    int maxpp = m->layers < PT_SPLIT_MAX_STAGES ? (int)m->layers : PT_SPLIT_MAX_STAGES;
    pt_hplan *cand;
    pt_status s = PT_OK;
    assert(c->npools > 1 && top_k >= 1 && top_k <= PT_HSEARCH_MAX_TOP);
    memset(r, 0, sizeof *r);
    if (m->experts > 0)
        return pt_diag_set(d, NULL, "model", m->name,
                           "%s is a mixture-of-experts model: clusters with pools price dense models only", m->name);
    r->plans = malloc((size_t)top_k * sizeof *r->plans);
    cand = malloc(sizeof *cand);
    if (!r->plans || !cand) {
        free(r->plans), free(cand);
        r->plans = NULL;
        return pt_diag_set(d, NULL, NULL, NULL, "out of memory");
    }
    for (int tp = 1; tp <= 64 && tp <= node; tp++) {
        if (node % tp || !pt_space_allows(space, PT_D_TP, tp)) continue;
        for (int pp = 1; pp <= maxpp; pp++) {
            int64_t dp64;
            if (c->devices % ((int64_t)tp * pp) || !pt_space_allows(space, PT_D_PP, pp)) continue;
            dp64 = c->devices / ((int64_t)tp * pp);
            if (dp64 > PT_SPLIT_MAX_DP || !pt_space_allows(space, PT_D_DP, dp64)) continue;
            for (size_t mi = 0; mi < sizeof mbs_v / sizeof mbs_v[0]; mi++) {
                int mbs = mbs_v[mi];
                if (!pt_space_allows(space, PT_D_MBS, mbs) || job->global_batch % mbs ||
                    job->global_batch / mbs < dp64)
                    continue;
                for (int rc = PT_RC_NONE; rc <= PT_RC_FULL; rc++) {
                    if (!pt_space_allows(space, PT_D_RECOMPUTE, rc)) continue;
                    for (int z = 0; z <= 3; z++) {
                        pt_diag scratch;
                        /* zero=2 prices as zero=1 with less memory: tried
                         * only when the space leaves out zero=1; zero=3
                         * (even shares, per-micro-batch gathers) where a
                         * data-parallel group shards */
                        if (z >= 2 && pt_space_allows(space, PT_D_ZERO, 1) && (z == 2 || dp64 == 1)) continue;
                        unsigned set = PT_K_TP | PT_K_PP | PT_K_DP | PT_K_CP | PT_K_MBS | PT_K_RECOMPUTE |
                                       PT_K_ZERO | PT_K_SCHEDULE;
                        if (!pt_space_allows(space, PT_D_ZERO, z) || !pt_space_allows(space, PT_D_CP, 1) ||
                            !pt_space_allows(space, PT_D_SCHEDULE, PT_SCHED_1F1B) ||
                            !pt_space_allows(space, PT_D_SP, tp > 1) || !pt_space_allows(space, PT_D_VPP, 1) ||
                            !pt_space_allows(space, PT_D_OFFLOAD, PT_OFF_NONE))
                            continue;
                        memset(cand, 0, sizeof *cand);
                        cand->st.tp = tp, cand->st.pp = pp, cand->st.dp = (int)dp64, cand->st.cp = 1;
                        cand->st.mbs = mbs, cand->st.recompute = (pt_recompute)rc, cand->st.zero = z;
                        cand->st.schedule = PT_SCHED_1F1B;
                        /* a stand-in split for the rules; pt_hetero_auto sets the real one */
                        cand->sp.nlayers = pp;
                        for (int i = 0; i < pp; i++)
                            cand->sp.layers[i] = (int)(m->layers / pp + (i < m->layers % pp));
                        cand->sp.nshare = (int)dp64;
                        for (int i = 0; i < (int)dp64; i++)
                            cand->sp.share[i] = (int)(job->global_batch / mbs / dp64 +
                                                      (i < job->global_batch / mbs % dp64));
                        if (pt_split_resolve(&cand->st, set, &cand->sp, m, c, job, &scratch) != PT_OK) continue;
                        if (pt_hetero_auto(m, c, job, &cand->st, &cand->sp, &scratch) != PT_OK) continue;
                        if ((s = pt_hetero_eval(m, c, job, &cand->st, &cand->sp, &cand->h, d)) != PT_OK) goto out;
                        r->evaluated++;
                        if (!cand->h.cost.fits) {
                            if (!r->n && (!r->have_miss || mem_ratio(&cand->h) < mem_ratio(&r->miss.h))) {
                                r->miss = *cand;
                                r->have_miss = 1;
                            }
                            continue;
                        }
                        r->fitting++;
                        keep(r, top_k, cand);
                    }
                }
            }
        }
    }
out:
    free(cand);
    if (s != PT_OK) pt_hsearch_free(r);
    return s;
}

void pt_hsearch_free(pt_hsearch_result *r)
{
    free(r->plans);
    r->plans = NULL;
    r->n = 0;
}
