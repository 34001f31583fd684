/*
 * rerank.c -- the search's best plans replayed by the step simulator and
 * ranked by what it says (see search.h, "re-ranking by simulation").
 *
 * The analytic model (src/cost) and the simulator (src/sim) agree within 3%
 * on every schedule at any number of micro-batches (tests/test_sim.c sweeps
 * them; ZB-V and DualPipe the analytic model prices by replaying the same
 * orders).  A search that ranks by the analytic model alone would still
 * drift towards where it is most optimistic, so the pool of its best plans is
 * replayed and re-ranked here: the plan reported first is the one the
 * simulator confirms, in time and in memory.
 * A replay is independent of the analytic model (pt_plan_sim_independent)
 * where it orders something the analytic model only estimates: a pipeline
 * priced in closed form (pp > 1, not zb-v or dualpipe), or data-parallel
 * collectives (dp*cp > 1, or a MoE model's expert data-parallel group),
 * whose buckets the simulator runs on their own stream against the compute,
 * each compute operation slowed while the stream runs beside it.  At pp = 1
 * cost.c prices that overlap in closed form (exact for one collective beside
 * one bucket, approximate where the stream sets the pace); with a pipeline
 * under ZeRO 0-2 it replays the order itself at the granularity of
 * operations (dp_stages_replay), and for zb-v and dualpipe the pipeline
 * order is the same computation in both models (both replay
 * src/cost/pipe.c): there what the check confirms is the bucket-level
 * order, the gathers' waits and the sends, not the order.
 * Not here: the search (search.c), the replay (src/sim), output (src/emit).
 */
#include "plan/search.h"
#include "base/base.h"
#include "sim/sim.h"

#include <stdlib.h>
#include <string.h>

int pt_plan_sim_independent(const pt_model *m, const pt_strategy *st)
{
    int dp = pt_strategy_group_size(st, PT_GROUP_DP_CP) > 1 ||
             (m->experts > 0 && pt_strategy_group_size(st, PT_GROUP_EDP) > 1);
    return (st->pp > 1 && !pt_pipe_replayed(st)) || dp;
}

int pt_plan_rerank_pool(int keep)
{
    int64_t n = 4 * (int64_t)keep;
    if (n < 20) n = 20;
    if (n > PT_SEARCH_MAX_TOP) n = PT_SEARCH_MAX_TOP;
    return (int)n;
}

/* A plan with the simulator's step in place of the analytic one: the rates
 * scale with 1/step (tokens and FLOPs per step are the same). */
static void take_step(pt_plan *p, double step_s)
{
    double k = p->cost.step_time_s / step_s;
    p->cost.step_time_s = step_s;
    p->cost.tokens_per_s *= k;
    p->cost.model_tflops_per_gpu *= k;
    p->cost.mfu *= k;
    p->cost.hfu *= k;
}

static double score_of(const pt_search_opts *o, const pt_plan *p, const pt_job *job)
{
    return o->score ? o->score(p, job, o->score_arg) : p->cost.tokens_per_s;
}

/* Replays p (its rates replaced by the simulated step's) into *k. */
static pt_status check_plan(const pt_model *m, const pt_cluster *c, const pt_job *job,
                            const pt_search_opts *o, pt_plan *p, pt_plan_check *k)
{
    pt_sim_result s;
    pt_diag d;
    pt_job j = *job;
    pt_status st;
    memset(k, 0, sizeof *k);
    k->analytic_step_time_s = p->cost.step_time_s;
    k->analytic_peak_bytes = p->cost.mem.total;
    j.global_batch = p->st.gbs;
    j.engine = pt_engine_of(m, job, &p->st); /* under --engine any, as its own engine runs it */
    st = pt_sim_run(m, c, &j, &p->st, &s, &d);
    if (st == PT_ENOMEM) return st;
    if (st != PT_OK) return PT_OK; /* beyond the simulator's limits: analytic numbers stay */
    k->simulated = 1;
    k->independent = pt_plan_sim_independent(m, &p->st);
    k->simulated_step_time_s = s.step_time_s;
    k->simulated_bubble_s = s.bubble_s;
    k->simulated_peak_bytes = s.peak_bytes;
    pt_sim_free(&s);
    take_step(p, k->simulated_step_time_s);
    p->score = score_of(o, p, &j);
    return PT_OK;
}

typedef struct ranked {
    pt_plan p;
    pt_plan_check k;
    int fits;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->fits != y->fits) return x->fits ? -1 : 1;
    if (pt_plan_better(&x->p, &y->p)) return -1;
    if (pt_plan_better(&y->p, &x->p)) return 1;
    return 0;
}

pt_status pt_plan_rerank(const pt_model *m, const pt_cluster *c, const pt_job *job,
                         const pt_search_opts *o, pt_search_result *r, int keep,
                         pt_plan_check **checks, pt_diag *d)
{
    ranked *all;
    pt_plan_check *out;
    int n = r->n, nfit = 0;
    int64_t device = (int64_t)(c->dev.memory_GiB * PT_GiB);
    *checks = NULL;
    if (n == 0) return PT_OK;
    all = calloc((size_t)n, sizeof *all);
    if (!all) goto oom;
    for (int i = 0; i < n; i++) {
        all[i].p = r->plans[i];
        if (check_plan(m, c, job, o, &all[i].p, &all[i].k) != PT_OK) {
            free(all);
            goto oom;
        }
        all[i].fits = all[i].k.simulated ? all[i].k.simulated_peak_bytes <= device : all[i].p.cost.fits;
        nfit += all[i].fits;
    }
    /* nothing the simulator confirms fits: keep them all, ranked by its time */
    if (nfit == 0)
        for (int i = 0; i < n; i++) all[i].fits = 1;
    qsort(all, (size_t)n, sizeof *all, cmp_ranked);
    if (nfit > 0 && n > nfit) n = nfit;
    if (n > keep) n = keep;
    out = calloc((size_t)n, sizeof *out);
    if (!out) {
        free(all);
        goto oom;
    }
    for (int i = 0; i < n; i++) {
        r->plans[i] = all[i].p;
        out[i] = all[i].k;
    }
    /* --explain's alternatives, replayed, and re-chosen against the new
     * first plan: per dimension the best of the old alternative and the
     * pool whose value differs from the winner's */
    for (int dd = 0; dd < PT_D_COUNT; dd++) {
        int64_t win = pt_strategy_dim(&r->plans[0].st, dd);
        int have = 0;
        pt_plan best;
        memset(&best, 0, sizeof best);
        if (r->have_alt[dd] && pt_strategy_dim(&r->alt[dd].st, dd) != win) {
            pt_plan_check k;
            best = r->alt[dd];
            if (check_plan(m, c, job, o, &best, &k) == PT_ENOMEM) {
                free(all);
                free(out);
                goto oom;
            }
            have = !k.simulated || k.simulated_peak_bytes <= device;
        }
        for (int i = 0; i < (nfit > 0 ? nfit : r->n); i++) {
            if (pt_strategy_dim(&all[i].p.st, dd) == win) continue;
            if (!have || pt_plan_better(&all[i].p, &best)) {
                best = all[i].p;
                have = 1;
            }
        }
        r->have_alt[dd] = have;
        if (have) r->alt[dd] = best;
    }
    free(all);
    r->n = n;
    *checks = out;
    return PT_OK;
oom:
    pt_diag_set(d, NULL, NULL, NULL, "out of memory while re-ranking plans by simulation");
    return PT_ENOMEM;
}
