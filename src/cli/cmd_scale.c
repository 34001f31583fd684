/*
 * cmd_scale.c -- `partita scale GRAPH --cluster C --max-gpus N`: time to
 * train against the device count, data parallelism alone against hybrid
 * data x model parallelism (src/goal/scale.h).  The table is here; the JSON
 * and the SVG are src/emit/scale_out.c's.
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/emit.h"
#include "emit/html.h"
#include "goal/statef_csv.h"
#include "goal/scale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_opt opts[] = {
    {"cluster", "C", "a built-in cluster (`partita clusters`) or a cluster file (required)"},
    {"max-gpus", "N", "the largest device count, 1..16777216 (required; powers of two up to it)"},
    {"stat-eff", "FILE.csv", "fit the statistical efficiency to runs (columns batch and steps, or batch and epochs)"},
    {"dtype", "T", "bf16, fp16 or fp8 (default fp16)"},
    {"ilp-nodes", "K", "branch-and-bound budget of the speed-up table's integer program, 1..1000000 (default 300)"},
    {"cpu-machines", "K", "spare CPU machines for a parameter server (BytePS), 0..1000000 (default 0)"},
    {"json", NULL, "print JSON instead of the table"},
    {"svg", "FILE.svg", "also write the two curves as an SVG chart"},
    {"report", "FILE.html", "also write a self-contained HTML report: the question, the curves, the table"},
    {NULL, NULL, NULL}};

const cli_cmd cli_cmd_scale = {
    "scale", "GRAPH --cluster C --max-gpus N [OPTION]...",
    "time to train against GPUs: data parallel alone vs hybrid data x model parallel",
    "GRAPH is a built-in layer graph (`partita models`, second table) or a graph file.\n", 1, opts, cmd_scale};

static void hms(double s, char *buf, size_t n)
{
    if (s >= 86400) snprintf(buf, n, "%.1f d", s / 86400);
    else if (s >= 3600) snprintf(buf, n, "%.1f h", s / 3600);
    else snprintf(buf, n, "%.1f min", s / 60);
}

static void scale_table(const pt_graph *g, const pt_cluster *c, const pt_statef *se, const char *se_src,
                        const pt_scale_result *r)
{
    char a[32], b[32], s[160], gn[300], cn[300], dn[300], src[1300];
    printf("time to train %s on %s (%s), data parallel alone vs hybrid data x model parallel\n",
           pt_str_escape(g->name, gn, sizeof gn), pt_str_escape(c->name, cn, sizeof cn),
           pt_str_escape(c->dev.name, dn, sizeof dn));
    printf("statistical efficiency: epochs(B) = %.3g x (1 + B / %.0f)  [%s]\n\n", se->e_min, se->b_noise,
           pt_str_escape(se_src, src, sizeof src));
    printf("%7s  %10s %8s %7s  %10s %8s %7s  %s\n", "gpus", "DP time", "batch", "epochs", "hybrid", "batch",
           "epochs", "hybrid strategy");
    for (int i = 0; i < r->n; i++) {
        const pt_scale_point *p = &r->pt[i];
        if (p->dp.ok) hms(p->dp.time_s, a, sizeof a);
        else snprintf(a, sizeof a, "no fit");
        if (p->hybrid.ok) hms(p->hybrid.time_s, b, sizeof b), pt_scale_cfg_string(&p->hybrid, s, sizeof s);
        else snprintf(b, sizeof b, "-"), s[0] = 0;
        printf("%7lld  %10s %8.0f %7.1f  %10s %8.0f %7.1f  %s%s\n", (long long)p->gpus, a, p->dp.global_batch,
               p->dp.epochs, b, p->hybrid.global_batch, p->hybrid.epochs, s,
               p->hybrid.ok && (!p->dp.ok || p->hybrid.time_s < p->dp.time_s) ? "  <- hybrid wins" : "");
    }
    printf("\n");
    if (r->crossover_gpus) printf("crossover: hybrid first wins at %lld GPUs\n", (long long)r->crossover_gpus);
    else printf("crossover: none up to %lld GPUs\n", (long long)r->pt[r->n - 1].gpus);
    if (r->best_dp_gpus && r->best_hybrid_gpus) {
        hms(r->best_dp_s, a, sizeof a), hms(r->best_hybrid_s, b, sizeof b);
        printf("best data parallel: %s at %lld GPUs; best hybrid: %s at %lld GPUs\n", a,
               (long long)r->best_dp_gpus, b, (long long)r->best_hybrid_gpus);
        printf("hybrid gain at scale: %.1f%%", 100.0 * r->gain);
        if (r->paper_gain > 0) printf("   (Pal et al. 2019 project at least %.1f%%)", 100.0 * r->paper_gain);
        printf("\n");
    }
    if (r->xchg.machines) { /* the gradient exchange of the best data-parallel plan */
        const pt_ps_step *x = &r->xchg;
        printf("gradient exchange at %lld GPUs (%lld machine%s):", (long long)r->best_dp_gpus, (long long)x->machines,
               x->machines == 1 ? "" : "s");
        for (int k = 0; k < PT_PS_COUNT; k++) {
            const char *sep = k + 1 < PT_PS_COUNT ? "," : "";
            if (isfinite(x->comm_s[k])) printf(" %s %.2f ms%s", pt_ps_scheme_name((pt_ps_scheme)k), x->comm_s[k] * 1e3, sep);
            else printf(" %s -%s", pt_ps_scheme_name((pt_ps_scheme)k), sep);
        }
        printf("\n  -> %s: %s\n", pt_ps_scheme_name(x->best), x->why);
        if (x->best != PT_PS_ALLREDUCE)
            printf("  (the times above exchange by all-reduce; with %s this step is %.1f ms instead of %.1f)\n",
                   pt_ps_scheme_name(x->best), x->step_s[x->best] * 1e3, x->step_s[PT_PS_ALLREDUCE] * 1e3);
    }
    if (r->nmp) {
        printf("\nmodel-parallel speed-up of one worker over one device, same batch:\n");
        printf("%7s %8s %4s %7s %10s %10s %8s  %s\n", "devices", "batch", "k", "groups", "1 device", "worker",
               "speedup", "placement");
        for (int i = 0; i < r->nmp; i++) {
            const pt_scale_mp *m = &r->mp[i];
            printf("%7d %8.0f %4d %7d %8.1f ms%s %8.1f ms %7.2fx  %s, %s\n", m->m, m->batch, m->k, m->groups,
                   m->single_s * 1e3, m->single_fits ? " " : "*", m->step_s * 1e3, m->speedup,
                   pt_place_method_name(m->method),
                   m->optimal     ? "proven optimal"
                   : m->too_large ? "not proven (too large for the integer program)"
                   : m->timed_out ? "not proven (time limit)"
                                  : "not proven (node budget)");
        }
        for (int i = 0; i < r->nmp; i++)
            if (!r->mp[i].single_fits) {
                printf("  * one device cannot hold this batch; its time is what it would take\n");
                break;
            }
    }
}

int cmd_scale(int argc, char **argv)
{
    const char *model, *cluster, *svg, *sefile, *v;
    int64_t max_gpus = 0, ilp_nodes = 300;
    int rc;
    pt_graph g;
    pt_cluster c;
    pt_statef se;
    pt_diag d;
    pt_status st;
    pt_scale_result r;
    pt_scale_opts o = {0};
    cli_args a;
    cli_progress prog;
    char se_src[300], *text = NULL;
    if ((rc = cli_parse(&cli_cmd_scale, argc, argv, &a)) != CLI_GO) return rc;
    if (a.npos < 1) return cli_usage("scale: give a MODEL (a layer graph: `partita models` lists the built-in ones)");
    model = a.pos[0];
    /* the graph first, then the other arguments */
    if ((st = pt_graph_load(model, &g, &d)) != PT_OK) {
        if (!strchr(model, '/') && !strstr(model, ".json"))
            return cli_usage("scale: \"%s\" is not a layer graph (%s); for transformers use "
                             "`partita plan MODEL --objective time-to-train`", model,
                             "scale takes a built-in graph or a graph file");
        return cli_fail(st, &d);
    }
    cluster = cli_get(&a, "cluster");
    svg = cli_get(&a, "svg");
    sefile = cli_get(&a, "stat-eff");
    o.dtype = PT_FP16;
    o.ilp_seconds = 20;
    rc = 0;
    if ((v = cli_get(&a, "max-gpus"))) rc = cli_int("--max-gpus", v, 1, CLI_MAX_GPUS, &max_gpus);
    if (!rc && (v = cli_get(&a, "cpu-machines")))
        rc = cli_real("--cpu-machines", v, 0, 1000000, &o.cpu_machines);
    if (!rc && (v = cli_get(&a, "ilp-nodes"))) rc = cli_int("--ilp-nodes", v, 1, CLI_MAX_ILP_NODES, &ilp_nodes);
    if (!rc && (v = cli_get(&a, "dtype"))) {
        if (!strcmp(v, "bf16")) o.dtype = PT_BF16;
        else if (!strcmp(v, "fp16")) o.dtype = PT_FP16;
        else if (!strcmp(v, "fp8")) o.dtype = PT_FP8;
        else rc = cli_usage("--dtype: \"%s\" is not one of bf16, fp16, fp8", v);
    }
    if (!rc && !cluster)
        rc = cli_usage("scale: give --cluster C (a name from `partita clusters` or a cluster file)");
    if (!rc && !max_gpus) rc = cli_usage("scale: give --max-gpus N");
    if (rc) {
        pt_graph_free(&g);
        return rc;
    }
    if ((st = pt_cluster_load(cluster, &c, &d)) != PT_OK) {
        pt_graph_free(&g);
        return cli_fail(st, &d);
    }
    if (sefile) {
        char *csv = NULL;
        if ((st = pt_read_file(sefile, &csv, &d)) != PT_OK ||
            (st = pt_statef_read_csv(csv, sefile, g.samples_per_epoch, &se, &d)) != PT_OK) {
            if (st != PT_OK && csv) free(csv);
            pt_graph_free(&g);
            return cli_fail(st, &d);
        }
        free(csv);
        snprintf(se_src, sizeof se_src, "fitted to %d runs in %s: E_min %.3g +- %.2g, B_noise %.0f +- %.0f", se.n,
                 sefile, se.e_min, se.e_min_se, se.b_noise, se.b_noise_se);
    } else if (pt_statef_builtin(g.name, &se)) {
        snprintf(se_src, sizeof se_src, "built in for %s, see src/goal/ttt.c", g.name);
    } else {
        pt_graph_free(&g);
        return cli_usage("scale: no statistical efficiency is built in for \"%s\"; give --stat-eff FILE.csv "
                         "(columns batch and steps, or batch and epochs)", model);
    }
    o.max_gpus = max_gpus;
    o.ilp_nodes = (int)ilp_nodes;
    cli_progress_start(&prog, "scale: placing and pricing");
    o.progress = cli_progress_cb;
    o.progress_arg = &prog;
    st = pt_scale(&g, &c, &se, &o, &r, &d);
    cli_progress_end(&prog);
    if (st != PT_OK) {
        pt_graph_free(&g);
        return cli_fail(st, &d);
    }
    if (svg) {
        if ((st = pt_emit_scale_svg(&g, &c, &r, &text, &d)) != PT_OK) {
            pt_graph_free(&g);
            return cli_fail(st, &d);
        }
        rc = cli_output(svg, text);
        free(text);
        if (rc) {
            pt_graph_free(&g);
            return rc;
        }
    }
    if (cli_get(&a, "report")) {
        if ((st = pt_emit_html_scale(&g, &c, &se, se_src, &r, &text, &d)) != PT_OK) {
            pt_graph_free(&g);
            return cli_fail(st, &d);
        }
        rc = cli_output(cli_get(&a, "report"), text);
        free(text);
        if (rc) {
            pt_graph_free(&g);
            return rc;
        }
    }
    if (cli_get(&a, "json")) {
        st = pt_emit_scale_json(&g, &c, &se, se_src, &r, &text, &d);
        pt_graph_free(&g);
        if (st != PT_OK) return cli_fail(st, &d);
        fputs(text, stdout);
        free(text);
        return 0;
    }
    scale_table(&g, &c, &se, se_src, &r);
    pt_graph_free(&g);
    return 0;
}
