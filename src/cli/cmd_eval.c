/*
 * cmd_eval.c -- `partita eval`: price one strategy (SPEC sections 1 and 5).
 */
#include "cli/cli.h"
#include "emit/emit.h"
#include "sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_eval(int argc, char **argv)
{
    cli_job o;
    pt_model m;
    pt_cluster c;
    pt_strategy st;
    pt_cost cost;
    pt_diag d;
    pt_status s;
    unsigned set;
    int rc, simulate = 0;
    const char *trace = NULL, *svg = NULL;
    pt_sim_result sim;
    memset(&o, 0, sizeof o);
    o.job.dtype = PT_BF16;
    o.job.flash_attention = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int used = cli_job_option(&o, a, v);
        if (used < 0) return -used;
        if (used) {
            i += used - 1;
            continue;
        }
        if ((!strcmp(a, "--strategy") || !strcmp(a, "--global-batch") || !strcmp(a, "--trace") ||
             !strcmp(a, "--svg")) && !v)
            return cli_usage("%s needs a value", a);
        if (!strcmp(a, "--strategy")) o.strategy = argv[++i];
        else if (!strcmp(a, "--trace")) simulate = 1, trace = argv[++i];
        else if (!strcmp(a, "--svg")) simulate = 1, svg = argv[++i];
        else if (!strcmp(a, "--global-batch")) { if (cli_int(a, argv[++i], 1, &o.job.global_batch)) return 2; }
        else if (!strcmp(a, "--json")) o.json = 1;
        else if (!strcmp(a, "--simulate")) simulate = 1;
        else if (a[0] == '-') return cli_usage("eval: unknown option \"%s\"", a);
        else if (!o.model) o.model = a;
        else return cli_usage("eval: unexpected argument \"%s\"", a);
    }
    if (!o.model) return cli_usage("eval: give a MODEL (a name from `partita models` or a config.json)");
    if (!o.cluster) return cli_usage("eval: give --cluster C (a name from `partita clusters` or a cluster file)");
    if (!o.strategy) return cli_usage("eval: give --strategy \"tp=.. pp=.. ...\"");
    if ((rc = cli_load(&o, &m, &c)) != 0) return rc;
    if ((s = pt_strategy_parse(o.strategy, &st, &set, &d)) != PT_OK) return cli_fail(s, &d);
    if ((s = pt_strategy_resolve(&st, set, &m, &c, &o.job, &d)) != PT_OK) return cli_fail(s, &d);
    pt_cost_eval(&m, &c, &o.job, &st, &cost);
    memset(&sim, 0, sizeof sim);
    if (simulate && (s = pt_sim_run(&m, &c, &o.job, &st, &sim, &d)) != PT_OK) return cli_fail(s, &d);
    if (simulate && (rc = cli_write_timeline(&sim, &m, &st, trace, svg)) != 0) {
        pt_sim_free(&sim);
        return rc;
    }
    /* the schedule's actual peak decides whether it fits */
    if (simulate) cost.fits = sim.peak_bytes <= cost.device_memory_bytes;
    if (o.json) {
        json_t *j = pt_emit_plan_json(&st, &cost);
        char *text;
        json_t *head = json_object();
        json_object_set_new(head, "model", json_string(m.name));
        /* parameters: all of them, and what one token uses (MoE: topk experts) */
        json_object_set_new(head, "params_total", json_integer(pt_model_params(&m)));
        json_object_set_new(head, "params_active", json_integer(pt_model_active_params(&m)));
        json_object_set_new(head, "cluster", json_string(c.name));
        json_object_set_new(head, "device", json_string(c.dev.name));
        json_object_set_new(head, "devices", json_integer(c.devices));
        json_object_set_new(head, "seq_len", json_integer(o.job.seq_len));
        json_object_set_new(head, "dtype", json_string(pt_dtype_name(o.job.dtype)));
        json_object_set_new(head, "flash_attention", json_boolean(o.job.flash_attention));
        json_object_set_new(head, "engine", json_string(pt_engine_name(o.job.engine)));
        json_object_update(head, j);
        if (simulate) {
            json_object_set_new(head, "simulated_step_time_s", json_real(sim.step_time_s));
            json_object_set_new(head, "simulated_bubble_s", json_real(sim.bubble_s));
            json_object_set_new(head, "simulated_peak_memory_GiB", json_real((double)sim.peak_bytes / PT_GiB));
        }
        text = pt_emit_json_text(head);
        printf("%s\n", text);
        free(text);
        json_decref(j);
        json_decref(head);
    } else {
        pt_emit_plan_table(stdout, &m, &c, &o.job, &st, &cost);
        if (simulate) {
            printf("\nsimulated, event by event: step %.3f s (pipeline %.3f s, of which %.3f s idle "
                   "on the busiest stage; then %.3f s of DP and optimizer)\n",
                   sim.step_time_s, sim.pipeline_s, sim.bubble_s, sim.tail_s);
            printf("  peak memory per stage (GiB):");
            for (int i = 0; i < sim.pp; i++) printf(" %.1f", (double)sim.stage_peak[i] / PT_GiB);
            printf("\n");
        }
    }
    pt_sim_free(&sim);
    return 0;
}
