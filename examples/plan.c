/*
 * plan.c -- Partita as a library: how should Llama 3 8B train on 16 H100s?
 *
 * Uses include/partita.h only.  Loads a built-in model and cluster, searches
 * every valid strategy at a global batch of 256 sequences of 8192 tokens
 * (counting the candidates that fit through the per-candidate callback),
 * prints the three best, replays the best one's step in the simulator and
 * writes its Megatron-LM arguments.
 *
 * Build against an installed Partita:
 *   cc -std=c11 plan.c $(pkg-config --cflags --libs partita) -o plan
 */
#include <partita.h>

#include <stdio.h>
#include <stdlib.h>

static void count_fit(const pt_strategy *st, const pt_cost *cost, void *arg)
{
    (void)st;
    (void)cost;
    ++*(long *)arg;
}

static int fail(pt_status s, const pt_diag *d)
{
    char buf[1200];
    pt_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "plan: %s\n", buf);
    return (int)s;
}

int main(void)
{
    pt_model m;
    pt_cluster c;
    pt_job job = {.seq_len = 8192, .global_batch = 256, .dtype = PT_BF16, .flash_attention = 1};
    pt_plan_opts o = {.top_k = 3, .threads = 2, .engine_only = 1};
    pt_plans *plans;
    pt_sim_summary sim;
    pt_diag d;
    pt_status s;
    char text[256], *args;
    long fitting = 0;

    if ((s = pt_model_builtin("llama3-8b", &m, &d)) != PT_OK) return fail(s, &d);
    if ((s = pt_cluster_builtin("dgx-h100", &c, &d)) != PT_OK) return fail(s, &d);
    if ((s = pt_cluster_resize(&c, 16, &d)) != PT_OK) return fail(s, &d);
    o.on_candidate = count_fit;
    o.arg = &fitting;
    if ((s = pt_plan_run(&m, &c, &job, &o, &plans, &d)) != PT_OK) return fail(s, &d);
    printf("%s on %lld x %s: %lld candidates, %ld fit\n", m.name, (long long)c.devices, c.dev.name,
           (long long)pt_plans_evaluated(plans), fitting);
    for (int i = 0; i < pt_plans_count(plans); i++) {
        const pt_cost *k = pt_plans_cost(plans, i);
        pt_strategy_format(pt_plans_strategy(plans, i), text, sizeof text);
        printf("#%d  %.3f s/step  MFU %.1f%%  %.1f GiB  %s\n", i + 1, k->step_time_s, 100.0 * k->mfu,
               (double)k->mem.total / PT_GiB, text);
    }
    if (pt_plans_count(plans) == 0) {
        pt_plans_free(plans);
        fprintf(stderr, "plan: nothing fits\n");
        return 1;
    }
    if ((s = pt_simulate(&m, &c, &job, pt_plans_strategy(plans, 0), &sim, &d)) != PT_OK) {
        pt_plans_free(plans);
        return fail(s, &d);
    }
    printf("simulated: %.3f s/step, peak %.1f GiB, %s\n", sim.step_time_s,
           (double)sim.peak_memory_bytes / PT_GiB, sim.fits ? "fits" : "does not fit");
    if ((s = pt_export("megatron", &m, &c, &job, pt_plans_strategy(plans, 0), &args, &d)) != PT_OK) {
        pt_plans_free(plans);
        return fail(s, &d);
    }
    fputs(args, stdout);
    free(args);
    pt_plans_free(plans);
    return 0;
}
