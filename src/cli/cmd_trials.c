/*
 * cmd_trials.c -- `partita trials GRAPH --cluster C --gpus N --trials K`:
 * K hyper-parameter trials as independent experiments of N / K devices
 * each against one after another, data-parallel over all N, by the time
 * to finish all K (src/goal/trials.h).  The table is here; the JSON is
 * src/emit/trials_out.c's.
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/trials_out.h"
#include "goal/statef_csv.h"
#include "goal/trials.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_opt opts[] = {
    {"cluster", "C", "a built-in cluster (`partita clusters`) or a cluster file (required)"},
    {"gpus", "N", "devices for all the trials together, 1..16777216 (required)"},
    {"trials", "K", "hyper-parameter trials, 1..1000000 (required)"},
    {"stat-eff", "FILE.csv", "fit the statistical efficiency to runs (columns batch and steps, or batch and epochs)"},
    {"cpu-machines", "K", "spare CPU machines for a parameter server (BytePS), 0..1000000 (default 0)"},
    {"no-spatial", NULL, "data parallelism alone: no spatial partitioning of samples"},
    {"dtype", "T", "bf16, fp16 or fp8 (default fp16)"},
    {"json", NULL, "print JSON instead of the table"},
    {NULL, NULL, NULL}};

static int cmd_trials(int argc, char **argv);

const cli_cmd cli_cmd_trials = {
    "trials", "GRAPH --cluster C --gpus N --trials K [OPTION]...",
    "hyper-parameter trials: K independent runs of N/K GPUs vs data parallel over all N",
    "GRAPH is a built-in layer graph (`partita models`, second table) or a graph file.\n"
    "Each run takes its best batch, spatial partitioning and gradient exchange by time to train.\n",
    1, opts, cmd_trials};

static void hms(double s, char *buf, size_t n)
{
    if (s >= 86400) snprintf(buf, n, "%.1f d", s / 86400);
    else if (s >= 3600) snprintf(buf, n, "%.1f h", s / 3600);
    else snprintf(buf, n, "%.1f min", s / 60);
}

static void row(const char *what, const pt_trials_cfg *c)
{
    char t[32], s[160];
    hms(c->time_s, t, sizeof t);
    pt_trials_cfg_string(c, s, sizeof s);
    printf("%-24s %5lld %8.0f %8.1f %9.1f %8.2f  %9s  %s\n", what, (long long)c->devices, c->global_batch, c->epochs,
           c->step_s * 1e3, c->mem_GiB, t, s);
}

static void table(const pt_graph *g, const pt_cluster *c, const pt_statef *se, const char *se_src,
                  const pt_trials_result *r, double o_cpu)
{
    char gn[300], cn[300], dn[300], src[1300], a[32], b[32];
    printf("%lld trials of %s on %lld GPUs of %s (%s): independent runs vs data parallel over all\n",
           (long long)r->trials, pt_str_escape(g->name, gn, sizeof gn), (long long)r->gpus,
           pt_str_escape(c->name, cn, sizeof cn), pt_str_escape(c->dev.name, dn, sizeof dn));
    printf("statistical efficiency: epochs(B) = %.3g x (1 + B / %.4g)  [%s]\n\n", se->e_min, se->b_noise,
           pt_str_escape(se_src, src, sizeof src));
    printf("%-24s %5s %8s %8s %9s %8s  %9s  %s\n", "one trial", "gpus", "batch", "epochs", "step ms", "GiB",
           "time", "configuration");
    row("independent", &r->indep);
    row("data parallel", &r->dp);
    if (r->dp.p != 1) row("data parallel alone", &r->dp_plain);
    printf("\n");
    hms(r->indep_total_s, a, sizeof a);
    printf("all %lld trials, independent: %s (%lld at a time on %lld GPU%s each, %lld wave%s)\n", (long long)r->trials,
           a, (long long)r->concurrent, (long long)r->per_trial, r->per_trial == 1 ? "" : "s", (long long)r->waves,
           r->waves == 1 ? "" : "s");
    hms(r->dp_plain_total_s, b, sizeof b);
    printf("all %lld trials one after another, data parallel alone over %lld GPUs: %s  -> independent x%.1f\n",
           (long long)r->trials, (long long)r->gpus, b, r->speedup_plain);
    if (r->dp.p != 1) {
        hms(r->dp_total_s, b, sizeof b);
        printf("all %lld trials one after another, spatial x data parallel over %lld GPUs: %s  -> independent x%.1f\n",
               (long long)r->trials, (long long)r->gpus, b, r->speedup);
    }
    {
        const pt_ps_step *x = &r->xchg;
        printf("gradient exchange over %lld GPUs (%lld machine%s, %g CPU machine%s):", (long long)r->gpus,
               (long long)x->machines, x->machines == 1 ? "" : "s", o_cpu, o_cpu == 1 ? "" : "s");
        for (int k = 0; k < PT_PS_COUNT; k++) {
            const char *sep = k + 1 < PT_PS_COUNT ? "," : "";
            if (isfinite(x->comm_s[k])) printf(" %s %.2f ms%s", pt_ps_scheme_name((pt_ps_scheme)k), x->comm_s[k] * 1e3, sep);
            else printf(" %s -%s", pt_ps_scheme_name((pt_ps_scheme)k), sep);
        }
        printf("\n  -> %s: %s\n", pt_ps_scheme_name(x->best), x->why);
    }
    printf("against data parallel alone, at B_noise x0.5: x%.1f, x2: x%.1f, with no batch penalty: x%.2f\n",
           r->speedup_half_bn, r->speedup_double_bn, r->speedup_no_penalty);
    if (!strcmp(g->name, "unet3d-brats") && r->gpus == 32)
        printf("Berral et al. 2022 (seed paper #14) measured x12-x14 for a 3D U-Net on BraTS, 32 GPUs, "
               "against data parallelism\n");
}

static int cmd_trials(int argc, char **argv)
{
    const char *model, *cluster, *sefile, *v;
    int64_t gpus = 0, trials = 0;
    int rc = 0;
    pt_graph g;
    pt_cluster c;
    pt_statef se;
    pt_diag d;
    pt_status st;
    pt_trials_result r;
    pt_trials_opts o = {0};
    cli_args a;
    char se_src[300], *text = NULL;
    if ((rc = cli_parse(&cli_cmd_trials, argc, argv, &a)) != CLI_GO) return rc;
    if (a.npos < 1)
        return cli_usage("trials: give a GRAPH (a layer graph: `partita models` lists the built-in ones)");
    model = a.pos[0];
    rc = 0;
    if ((st = pt_graph_load(model, &g, &d)) != PT_OK) {
        if (!strchr(model, '/') && !strstr(model, ".json"))
            return cli_usage("trials: \"%s\" is not a layer graph (trials takes a built-in graph or a graph file)",
                             model);
        return cli_fail(st, &d);
    }
    cluster = cli_get(&a, "cluster");
    sefile = cli_get(&a, "stat-eff");
    o.dtype = PT_FP16;
    if ((v = cli_get(&a, "gpus"))) rc = cli_int("--gpus", v, 1, CLI_MAX_GPUS, &gpus);
    if (!rc && (v = cli_get(&a, "trials"))) rc = cli_int("--trials", v, 1, 1000000, &trials);
    if (!rc && (v = cli_get(&a, "cpu-machines"))) rc = cli_real("--cpu-machines", v, 0, 1000000, &o.cpu_machines);
    if (!rc && (v = cli_get(&a, "dtype"))) {
        if (!strcmp(v, "bf16")) o.dtype = PT_BF16;
        else if (!strcmp(v, "fp16")) o.dtype = PT_FP16;
        else if (!strcmp(v, "fp8")) o.dtype = PT_FP8;
        else rc = cli_usage("--dtype: \"%s\" is not one of bf16, fp16, fp8", v);
    }
    if (!rc && !cluster)
        rc = cli_usage("trials: give --cluster C (a name from `partita clusters` or a cluster file)");
    if (!rc && !gpus) rc = cli_usage("trials: give --gpus N");
    if (!rc && !trials) rc = cli_usage("trials: give --trials K");
    if (!rc && trials < gpus && gpus % trials)
        rc = cli_usage("trials: --trials %lld does not divide --gpus %lld into equal shares", (long long)trials,
                       (long long)gpus);
    o.no_spatial = cli_get(&a, "no-spatial") != NULL;
    if (rc) {
        pt_graph_free(&g);
        return rc;
    }
    if ((st = pt_cluster_load(cluster, &c, &d)) != PT_OK ||
        (st = pt_cluster_resize(&c, gpus, &d)) != PT_OK) {
        pt_graph_free(&g);
        return cli_fail(st, &d);
    }
    if (sefile) {
        char *csv = NULL;
        if ((st = pt_read_file(sefile, &csv, &d)) != PT_OK ||
            (st = pt_statef_read_csv(csv, sefile, g.samples_per_epoch, &se, &d)) != PT_OK) {
            free(csv);
            pt_graph_free(&g);
            return cli_fail(st, &d);
        }
        free(csv);
        snprintf(se_src, sizeof se_src, "fitted to %d runs in %s: E_min %.3g +- %.2g, B_noise %.4g +- %.2g", se.n,
                 sefile, se.e_min, se.e_min_se, se.b_noise, se.b_noise_se);
    } else if (pt_statef_builtin(g.name, &se)) {
        snprintf(se_src, sizeof se_src, "%s, see src/goal/ttt.c", pt_statef_recipe(g.name, NULL, NULL, NULL));
    } else {
        pt_graph_free(&g);
        return cli_usage("trials: no statistical efficiency is built in for \"%s\"; give --stat-eff FILE.csv "
                         "(columns batch and steps, or batch and epochs)", model);
    }
    o.gpus = gpus;
    o.trials = trials;
    st = pt_trials(&g, &c, &se, &o, &r, &d);
    if (st != PT_OK) {
        pt_graph_free(&g);
        return cli_fail(st, &d);
    }
    if (cli_get(&a, "json")) {
        st = pt_emit_trials_json(&g, &c, &se, se_src, &r, &text, &d);
        pt_graph_free(&g);
        if (st != PT_OK) return cli_fail(st, &d);
        fputs(text, stdout);
        free(text);
        return 0;
    }
    table(&g, &c, &se, se_src, &r, o.cpu_machines);
    pt_graph_free(&g);
    return 0;
}
