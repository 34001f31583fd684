/*
 * cmd_eval.c -- `partita eval`: price one strategy (SPEC sections 1 and 5).
 */
#include "cli/cli.h"
#include "plan/search.h"
#include "emit/emit.h"
#include "sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_opt opts[] = {
    CLI_JOB_OPTS,
    {"strategy", "STRATEGY", "the strategy to price, \"tp=8 pp=8 mbs=1 ...\" (keys tp pp dp cp ep etp vpp mbs gbs sp zero recompute schedule offload; required)"},
    {"global-batch", "B", "sequences per step, 1..1073741824 (or gbs= in the strategy)"},
    {"json", NULL, "print one JSON object instead of the table"},
    {"simulate", NULL, "also replay the step event by event (the step simulator)"},
    {"trace", "FILE.json", "write the simulated step as a Chrome trace (implies --simulate)"},
    {"svg", "FILE.svg", "write the simulated step as an SVG timeline (implies --simulate)"},
    {NULL, NULL, NULL}};

const cli_cmd cli_cmd_eval = {
    "eval", "MODEL --cluster C --strategy STRATEGY [OPTION]...",
    "price one strategy: step time, throughput, memory per device",
    "MODEL is a built-in name (`partita models`) or a Hugging Face config.json.\n", 1, opts, cmd_eval};

int cmd_eval(int argc, char **argv)
{
    cli_args a;
    cli_job o;
    pt_model m;
    pt_cluster c;
    pt_strategy st;
    pt_cost cost;
    pt_diag d;
    pt_status s;
    unsigned set;
    int rc, simulate;
    const char *trace, *svg, *strategy, *gb;
    char *text = NULL;
    pt_sim_result sim;
    if ((rc = cli_parse(&cli_cmd_eval, argc, argv, &a)) != CLI_GO) return rc;
    if (a.npos < 1) return cli_usage("eval: give a MODEL (a name from `partita models` or a config.json)");
    memset(&o, 0, sizeof o);
    o.model = a.pos[0];
    if ((rc = cli_load_model(o.model, &m)) != 0) return rc;
    if ((rc = cli_job_options(&o, &a)) != 0) return rc;
    cli_job_model(&o, &m);
    trace = cli_get(&a, "trace");
    svg = cli_get(&a, "svg");
    strategy = cli_get(&a, "strategy");
    simulate = cli_get(&a, "simulate") || trace || svg;
    if ((gb = cli_get(&a, "global-batch")) && cli_int("--global-batch", gb, 1, CLI_MAX_BATCH, &o.job.global_batch))
        return 2;
    if (!o.cluster) return cli_usage("eval: give --cluster C (a name from `partita clusters` or a cluster file)");
    if (!strategy) return cli_usage("eval: give --strategy \"tp=.. pp=.. ...\"");
    if ((rc = cli_load_cluster(&o, &m, &c)) != 0) return rc;
    if (c.npools > 1) return cli_eval_pools(&a, &o, &m, &c, strategy, simulate);
    if ((s = pt_strategy_parse(strategy, &st, &set, &d)) != PT_OK) return cli_fail(s, &d);
    if ((s = pt_strategy_resolve(&st, set, &m, &c, &o.job, &d)) != PT_OK) return cli_fail(s, &d);
    if (o.job.engine != PT_ENGINE_ANY && !pt_engine_admits(o.job.engine, &m, &o.job, &st))
        fprintf(stderr, "partita: note: %s's current release does not run this strategy (`plan --engine %s` "
                "would not propose it; src/plan/engine_space.c says what it runs): priced as if it did\n",
                pt_engine_label(o.job.engine), pt_engine_label(o.job.engine));
    pt_cost_eval(&m, &c, &o.job, &st, &cost);
    memset(&sim, 0, sizeof sim);
    if (simulate && (s = pt_sim_run(&m, &c, &o.job, &st, &sim, &d)) != PT_OK) return cli_fail(s, &d);
    if (simulate && (rc = cli_write_timeline(&sim, &m, &st, trace, svg)) != 0) {
        pt_sim_free(&sim);
        return rc;
    }
    /* the schedule's actual peak decides whether it fits */
    if (simulate) cost.fits = sim.peak_bytes <= cost.device_memory_bytes;
    if (cli_get(&a, "json")) {
        s = pt_emit_eval_json(&m, &c, &o.job, &st, &cost, simulate ? &sim : NULL, &text, &d);
        pt_sim_free(&sim);
        if (s != PT_OK) return cli_fail(s, &d);
        fputs(text, stdout);
        free(text);
        return 0;
    }
    pt_emit_plan_table(stdout, &m, &c, &o.job, &st, &cost);
    if (simulate) {
        printf("\nsimulated, event by event: step %.3f s (pipeline and data-parallel collectives %.3f s, of "
               "which %.3f s idle on the busiest stage; then %.3f s of optimizer)\n",
               sim.step_time_s, sim.pipeline_s, sim.bubble_s, sim.tail_s);
        printf("  peak memory per stage (GiB):");
        for (int i = 0; i < sim.pp; i++) printf(" %.1f", (double)sim.stage_peak[i] / PT_GiB);
        printf("\n");
    }
    pt_sim_free(&sim);
    return 0;
}
