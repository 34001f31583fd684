/*
 * plan_goodput.h -- `plan --objective goodput|cost` (SPEC section 9): the
 * options, the search's score, the deadline, the tables and --explain's
 * breakdown, and `--cluster a,b,c`, one job compared across clusters.  The
 * model is src/goal/failure.c; the JSON src/emit/goodput_out.c.  cmd_plan.c
 * calls in at five points (options, score, deadline, output, comparison).
 */
#ifndef PT_CLI_PLAN_GOODPUT_H
#define PT_CLI_PLAN_GOODPUT_H

#include "cli/cli.h"
#include "goal/failure.h"
#include "plan/search.h"

/* The option lines plan's table gets (CLI_JOB_OPTS style). */
#define CLI_GOODPUT_OPTS                                                                           \
    {"deadline-hours", "H", "cost: the cheapest plan that trains --tokens within H hours, 0.001..1e7"},      \
    {"checkpoint-GBps", "BW", "goodput/cost: aggregate checkpoint storage bandwidth, GB/s, 0.001..1e9 (default 0.122 per device, Llama 3's 2 TB/s for 16,384 GPUs)"}, \
    {"checkpoint-mode", "M", "goodput/cost: sync, async (only the device-to-host copy blocks) or memory (peers' host memory, storage as fallback); default sync"}, \
    {"ft", "MODE", "goodput/cost: job (every failure restarts the job, default) or replica (FT-HSDP: the failed data-parallel replica recovers alone)"}, \
    {"spare-nodes", "K", "goodput/cost: spare nodes held (and paid for) to replace failed ones, 0..1048576 (default 0)"}, \
    {"failure-rate", "R", "goodput/cost: failures per 1000 node-days, 0.001..1e6 (default: the cluster's mtbf_device_hours)"}

typedef struct cli_goodput {
    int on;                 /* --objective goodput or cost                 */
    pt_failure_goal goal;   /* the model's inputs; goal.c set by _setup     */
} cli_goodput;

/* 1 when obj is goodput or cost (objective() lets them through). */
int cli_goodput_objective(const char *obj);
/* Reads --objective goodput|cost and the options above into g (g->on 0
 * otherwise, and then the options above are refused); 0 or 2. */
int cli_goodput_options(const cli_args *a, cli_goodput *g);
/* The cluster is loaded: the score goes into so; a cost objective needs a
 * price (exit 2 naming the cluster and price_per_device_hour). */
int cli_goodput_setup(cli_goodput *g, const pt_model *m, const pt_job *job, const pt_cluster *c,
                      pt_search_opts *so);
/* After re-ranking: drops plans that miss --deadline-hours; when none is
 * left, says how long the fastest takes and returns 1; else 0. */
int cli_goodput_deadline(cli_goodput *g, pt_search_result *r, pt_plan_check *chk);
/* The table under plan's table; with explain, where the wall-clock goes. */
void cli_goodput_print(const cli_goodput *g, const pt_search_result *r, int explain);
/* plan --json: 0 or the exit status. */
int cli_goodput_json(const cli_goodput *g, const pt_model *m, const pt_cluster *c, const pt_job *job,
                     const pt_search_result *r, const pt_plan_check *chk, int verify);
/* --cluster a,b,c: the best plan of each cluster (entries NAME or NAME:GPUS,
 * --gpus for those without), which is cheapest and which is fastest; so as
 * cmd_plan built it (space, fix, batch), top and threads its numbers. */
int cli_goodput_compare(cli_goodput *g, const pt_model *m, cli_job *o, pt_search_opts *so, int threads,
                        int json, int explain);

#endif
