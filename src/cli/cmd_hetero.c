/*
 * cmd_hetero.c -- `partita eval` and `partita plan` on a cluster with pools
 * of different devices (SPEC section 10): the strategy string's layers= and
 * batch_share=, the search of src/plan/hsearch.c, every plan replayed by the
 * simulator (src/sim/sim_hetero.c), the tables and JSON of
 * src/emit/hetero_out.c, --trace/--svg (the simulated step's slowest
 * data-parallel pipeline, sim_hetero.h's events through the timeline
 * writers), and --explain (the best plan against the best with another value
 * of each key, and against even layers and even shares).  cmd_eval.c and cmd_plan.c hand over here once the
 * cluster is loaded.
 */
#include "cli/cli.h"
#include "emit/hetero_out.h"
#include "plan/hsearch.h"
#include "sim/sim_hetero.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --trace / --svg: the simulated step of (st, sp) -- its slowest data-parallel
 * rank's pipeline -- through the timeline writers. */
static int write_timeline(const cli_args *a, const pt_model *m, const pt_cluster *c, const pt_job *job,
                          const pt_strategy *st, const pt_split *sp, const pt_hetero *h, const pt_sim_hetero *sim)
{
    const char *trace = cli_get(a, "trace"), *svg = cli_get(a, "svg");
    pt_sim_result r;
    pt_diag d;
    pt_status s;
    int rc;
    if (!trace && !svg) return 0;
    if ((s = pt_sim_hetero_events(m, c, job, st, sp, h, sim, &r, &d)) != PT_OK) return cli_fail(s, &d);
    rc = cli_write_timeline(&r, m, st, trace, svg);
    pt_sim_free(&r);
    return rc;
}

/* Options that have no meaning on pools yet: refused, named.  --export (and
 * its --out) for a reason of the engines': none that Partita exports to
 * runs a mixed plan. */
static int refuse_opts(const cli_args *a, const char *const *names, const char *cmd)
{
    for (int i = 0; names[i]; i++) {
        if (!cli_get(a, names[i])) continue;
        if (!strcmp(names[i], "export") || !strcmp(names[i], "out"))
            return cli_usage("%s --%s: not available on a cluster with pools: Megatron-LM, DeepSpeed and "
                             "torchtitan give every data-parallel rank the same micro-batches and every "
                             "pipeline stage the same layers (Megatron-LM lets only the first and last "
                             "differ), so no launch configuration runs a plan's batch_share= and layers=",
                             cmd, names[i]);
        return cli_usage("%s --%s: not available on a cluster with pools (SPEC section 10: eval and plan "
                         "price and search it; --%s is for clusters of one device)",
                         cmd, names[i], names[i]);
    }
    return 0;
}

int cli_eval_pools(const cli_args *a, cli_job *o, const pt_model *m, const pt_cluster *c, const char *strategy,
                   int simulate)
{
    pt_strategy st;
    pt_split sp;
    pt_hetero h;
    pt_sim_hetero sim;
    pt_diag d;
    pt_status s;
    unsigned set;
    char *text = NULL;
    int rc;
    if ((s = pt_split_parse(strategy, &st, &set, &sp, &d)) != PT_OK) return cli_fail(s, &d);
    if ((s = pt_split_resolve(&st, set, &sp, m, c, &o->job, &d)) != PT_OK) return cli_fail(s, &d);
    if ((s = pt_hetero_eval(m, c, &o->job, &st, &sp, &h, &d)) != PT_OK) return cli_fail(s, &d);
    if (simulate && (s = pt_sim_hetero_run(m, c, &o->job, &st, &sp, &h, &sim, &d)) != PT_OK) return cli_fail(s, &d);
    if (simulate && (rc = write_timeline(a, m, c, &o->job, &st, &sp, &h, &sim)) != 0) return rc;
    if (cli_get(a, "json")) {
        if ((s = pt_emit_hetero_eval_json(m, c, &o->job, &st, &sp, &h, simulate ? &sim : NULL, &text, &d)) != PT_OK)
            return cli_fail(s, &d);
        fputs(text, stdout);
        free(text);
        return 0;
    }
    pt_emit_hetero_table(stdout, m, c, &o->job, &st, &sp, &h, simulate ? &sim : NULL);
    return 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The best plan again with even layers and with even shares, for --explain. */
static int explain_best(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_hsearch_result *r)
{
    const pt_hplan *b = &r->plans[0];
    pt_hetero *h = malloc(2 * sizeof *h);
    pt_split even;
    pt_diag d;
    pt_status s;
    int have_l = 0, have_s = 0;
    if (!h) return cli_usage("out of memory");
    if (b->sp.nlayers && m->layers % b->st.pp == 0) {
        even = b->sp;
        even.nlayers = 0;
        if ((s = pt_hetero_eval(m, c, job, &b->st, &even, &h[0], &d)) != PT_OK) {
            free(h);
            return cli_fail(s, &d);
        }
        have_l = 1;
    }
    if (b->sp.nshare && (b->st.gbs / b->st.mbs) % b->st.dp == 0) {
        even = b->sp;
        even.nshare = 0;
        if ((s = pt_hetero_eval(m, c, job, &b->st, &even, &h[1], &d)) != PT_OK) {
            free(h);
            return cli_fail(s, &d);
        }
        have_s = 1;
    }
    pt_emit_hetero_explain(stdout, r, have_l ? &h[0] : NULL, have_s ? &h[1] : NULL);
    free(h);
    return 0;
}

int cli_plan_pools(const cli_args *a, cli_job *o, const pt_model *m, const pt_cluster *c, const pt_space *space,
                   int64_t top)
{
    static const char *const no[] = {"tokens", "critical-batch", "target-loss", "export", "out", "report", NULL};
    int explain = cli_get(a, "explain") != NULL, keep = (int)top;
    const char *obj = cli_get(a, "objective"), *gb = cli_get(a, "global-batch");
    pt_hsearch_result r;
    pt_sim_hetero *sims;
    pt_diag d;
    pt_status s;
    char *text = NULL;
    double t0 = now_s(), secs;
    int rc;
    if ((rc = refuse_opts(a, no, "plan")) != 0) return rc;
    if (obj && strcmp(obj, "step") != 0)
        return cli_usage("plan --objective %s: on a cluster with pools plans are ranked by step time only", obj);
    if (!gb || strstr(gb, ".."))
        return cli_usage("plan: on a cluster with pools give one --global-batch B (not a range)");
    if (top > PT_HSEARCH_MAX_TOP)
        return cli_usage("plan --top %lld: on a cluster with pools at most %d plans are kept", (long long)top,
                         PT_HSEARCH_MAX_TOP);
    if (explain && cli_get(a, "json"))
        return cli_usage("plan --explain: on a cluster with pools the explanation is text (leave out --json)");
    /* --explain picks its alternatives from the best PT_HSEARCH_MAX_TOP */
    if ((s = pt_hsearch(m, c, &o->job, space, explain ? PT_HSEARCH_MAX_TOP : keep, &r, &d)) != PT_OK)
        return cli_fail(s, &d);
    secs = now_s() - t0;
    if (r.n == 0) {
        char buf[8192];
        if (r.have_miss) {
            pt_split_format(&r.miss.st, &r.miss.sp, buf, sizeof buf);
            fprintf(stderr, "partita: no plan fits: of %lld candidates the nearest is %s at %.1f GiB of %.1f GiB\n",
                    (long long)r.evaluated, buf, (double)r.miss.h.cost.mem.total / PT_GiB,
                    (double)r.miss.h.cost.device_memory_bytes / PT_GiB);
        } else {
            fprintf(stderr, "partita: no plan fits: no candidate passes the rules (--space/--fix, the global "
                    "batch against mbs and dp)\n");
        }
        pt_hsearch_free(&r);
        return 1;
    }
    sims = calloc((size_t)r.n, sizeof *sims);
    if (!sims) {
        pt_hsearch_free(&r);
        return cli_usage("out of memory");
    }
    for (int i = 0; i < r.n; i++)
        if ((s = pt_sim_hetero_run(m, c, &o->job, &r.plans[i].st, &r.plans[i].sp, &r.plans[i].h, &sims[i], &d)) !=
            PT_OK) {
            free(sims);
            pt_hsearch_free(&r);
            return cli_fail(s, &d);
        }
    rc = write_timeline(a, m, c, &o->job, &r.plans[0].st, &r.plans[0].sp, &r.plans[0].h, &sims[0]);
    if (rc) {
        /* the files could not be written: nothing printed */
    } else if (cli_get(a, "json")) {
        if ((s = pt_emit_hetero_search_json(m, c, &o->job, &r, sims, secs, &text, &d)) != PT_OK) rc = cli_fail(s, &d);
        else fputs(text, stdout);
        free(text);
    } else {
        pt_hsearch_result shown = r;
        if (shown.n > keep) shown.n = keep;
        pt_emit_hetero_search_table(stdout, m, c, &o->job, &shown, sims);
        if (explain) rc = explain_best(m, c, &o->job, &r);
    }
    free(sims);
    pt_hsearch_free(&r);
    return rc;
}
