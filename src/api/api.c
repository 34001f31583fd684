/*
 * api.c -- the public entry points that span layers (include/partita.h,
 * "planning, simulation and export"): a search with its options given as
 * text, one simulated step, an engine's launch configuration.
 *
 * Each function validates what a library user hands it as the CLI would
 * (the same limits and messages), then calls the module that does the work:
 * src/plan/search.c, src/sim/sim.c, src/emit/export.c.  Nothing is modelled
 * here.  pt_plans is the one opaque handle: it owns the search's result.
 */
#include "partita.h"
#include "base/base.h"
#include "emit/export.h"
#include "plan/search.h"
#include "sim/sim.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct pt_plans {
    pt_search_result r;
};

/* The on_candidate hook of pt_plan_opts, called by the search for each
 * candidate that fits. */
typedef struct user_hook {
    void (*fn)(const pt_strategy *st, const pt_cost *cost, void *arg);
    void *arg;
} user_hook;

static void call_user(const pt_plan *p, void *arg)
{
    const user_hook *h = arg;
    h->fn(&p->st, &p->cost, h->arg);
}

pt_status pt_plan_run(const pt_model *m, const pt_cluster *c, const pt_job *job,
                      const pt_plan_opts *o, pt_plans **out, pt_diag *d)
{
    pt_search_opts so;
    pt_plans *p;
    pt_status s;
    user_hook hook;
    int keep;
    assert(m && c && job && o && out);
    *out = NULL;
    memset(&so, 0, sizeof so);
    pt_space_init(&so.space);
    keep = o->top_k ? o->top_k : 5;
    so.top_k = pt_plan_rerank_pool(keep); /* a pool, replayed and re-ranked below */
    so.threads = o->threads ? o->threads : 1;
    so.prune = 1;
    if (job->global_batch < 1) {
        pt_diag_set(d, NULL, "global_batch", NULL, "the job's global_batch must be given (>= 1)");
        return PT_EINPUT;
    }
    so.gbs_lo = so.gbs_hi = job->global_batch;
    if (o->space && (s = pt_space_parse(o->space, "space", &so.space, d)) != PT_OK) return s;
    if (o->fix) {
        pt_strategy f;
        unsigned set;
        if ((s = pt_strategy_parse(o->fix, &f, &set, d)) != PT_OK) {
            pt_strlcpy(d->file, "fix", sizeof d->file);
            return s;
        }
        pt_space_pin(&so.space, &f, set);
    }
    if (o->on_candidate) {
        hook.fn = o->on_candidate;
        hook.arg = o->arg;
        so.on_fit = call_user;
        so.on_fit_arg = &hook;
    }
    if (!(p = calloc(1, sizeof *p))) {
        pt_diag_set(d, NULL, NULL, NULL, "out of memory");
        return PT_ENOMEM;
    }
    s = o->engine_only ? pt_search_engine(m, c, job, &so, &p->r, d) : pt_search(m, c, job, &so, &p->r, d);
    if (s == PT_OK && p->r.n > 0) { /* what plan reports first is what the simulator confirms */
        pt_plan_check *chk = NULL;
        s = pt_plan_rerank(m, c, job, &so, &p->r, keep, &chk, d);
        free(chk);
        if (s != PT_OK) pt_search_free(&p->r);
    }
    if (s != PT_OK) {
        free(p);
        return s;
    }
    *out = p;
    return PT_OK;
}

int pt_plans_count(const pt_plans *p) { return p ? p->r.n : 0; }

const pt_strategy *pt_plans_strategy(const pt_plans *p, int i)
{
    return p && i >= 0 && i < p->r.n ? &p->r.plans[i].st : NULL;
}

const pt_cost *pt_plans_cost(const pt_plans *p, int i)
{
    return p && i >= 0 && i < p->r.n ? &p->r.plans[i].cost : NULL;
}

int64_t pt_plans_evaluated(const pt_plans *p) { return p ? p->r.evaluated : 0; }

void pt_plans_free(pt_plans *p)
{
    if (!p) return;
    pt_search_free(&p->r);
    free(p);
}

pt_status pt_simulate(const pt_model *m, const pt_cluster *c, const pt_job *job,
                      const pt_strategy *st, pt_sim_summary *out, pt_diag *d)
{
    pt_sim_result r;
    pt_cost k;
    pt_status s;
    assert(m && c && job && st && out);
    memset(out, 0, sizeof *out);
    if ((s = pt_strategy_check(st, m, c, job, d)) != PT_OK) return s;
    if ((s = pt_cost_eval(m, c, job, st, &k)) != PT_OK) return s;
    if ((s = pt_sim_run(m, c, job, st, &r, d)) != PT_OK) return s;
    out->step_time_s = r.step_time_s;
    out->bubble_s = r.bubble_s;
    out->peak_memory_bytes = r.peak_bytes;
    out->fits = r.peak_bytes <= k.device_memory_bytes; /* the schedule's real peak decides */
    pt_sim_free(&r);
    return PT_OK;
}

pt_status pt_export(const char *engine, const pt_model *m, const pt_cluster *c, const pt_job *job,
                    const pt_strategy *st, char **text, pt_diag *d)
{
    pt_export_fmt fmt;
    pt_status s;
    assert(engine && m && c && job && st && text);
    *text = NULL;
    if (!pt_export_parse_fmt(engine, &fmt)) {
        pt_diag_set(d, NULL, "engine", engine, "\"%s\" is not megatron, deepspeed or torchtitan",
                    engine);
        return PT_EINPUT;
    }
    if ((s = pt_strategy_check(st, m, c, job, d)) != PT_OK) return s;
    return pt_emit_export(fmt, m, c, job, st, text, d);
}
