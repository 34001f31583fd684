/*
 * cmd_plan_graph.c -- `partita plan GRAPH --cluster C --gpus N
 * --global-batch B` for a layer graph (a built-in one from `partita
 * models`' second table, or a graph file): the data-parallel plans with
 * spatial partitioning and the gradient exchange chosen, best first, each
 * saying why its exchange won (src/plan/gplan.h).  cmd_plan.c hands a
 * graph here; the JSON is src/emit/gplan_out.c's.
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/gplan_out.h"
#include "plan/gplan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_plan_is_graph(const char *model);
int cmd_plan_graph(const cli_args *a);

int cli_plan_is_graph(const char *model)
{
    pt_graph g;
    pt_diag d;
    for (int i = 0; i < pt_graph_catalog_count(); i++)
        if (!strcmp(model, pt_graph_catalog_name(i))) return 1;
    if (!strstr(model, ".json") || pt_graph_load(model, &g, &d) != PT_OK) return 0;
    pt_graph_free(&g);
    return 1;
}

static void table(const pt_graph *g, const pt_cluster *c, int64_t gb, const pt_gplan_result *r, int top)
{
    char gn[300], cn[300], dn[300], s[160];
    const pt_gplan *b = &r->plan[0];
    printf("plan %s on %lld x %s (%s), global batch %lld: %d candidates\n\n", pt_str_escape(g->name, gn, sizeof gn),
           (long long)c->devices, pt_str_escape(c->dev.name, dn, sizeof dn), pt_str_escape(c->name, cn, sizeof cn),
           (long long)gb, r->evaluated);
    printf("%4s  %-36s %9s %11s %9s %9s %9s %8s\n", "rank", "strategy", "step ms", "samples/s", "halo ms", "dp ms",
           "GiB", "fits");
    for (int i = 0; i < r->n && i < top; i++) {
        const pt_gplan *p = &r->plan[i];
        pt_gplan_string(p, s, sizeof s);
        printf("%4d  %-36s %9.1f %11.1f %9.2f %9.2f %9.2f %8s\n", i + 1, s, p->step_s * 1e3, p->samples_per_s,
               (double)p->k * (p->cost.halo_s + p->cost.norm_s) * 1e3, p->cost.dp_comm_s * 1e3, p->mem_GiB,
               p->fits ? "yes" : "no");
    }
    printf("\nbest: ");
    pt_gplan_string(b, s, sizeof s);
    printf("%s\n", s);
    for (int i = 0; i < r->n; i++)
        if (r->plan[i].p == 1 && b->p != 1) {
            printf("  spatial: each sample cut over %d devices runs %.2fx the samples/s of data parallelism alone "
                   "(%s)\n",
                   b->p, b->samples_per_s / r->plan[i].samples_per_s,
                   r->plan[i].fits ? "which fits too" : "which does not fit");
            break;
        }
    printf("  gradient exchange over %lld machine%s:", (long long)b->xchg.machines, b->xchg.machines == 1 ? "" : "s");
    for (int k = 0; k < PT_PS_COUNT; k++) {
        const char *sep = k + 1 < PT_PS_COUNT ? "," : "";
        if (isfinite(b->xchg.comm_s[k]))
            printf(" %s %.2f ms%s", pt_ps_scheme_name((pt_ps_scheme)k), b->xchg.comm_s[k] * 1e3, sep);
        else printf(" %s -%s", pt_ps_scheme_name((pt_ps_scheme)k), sep);
    }
    printf("\n  -> %s: %s\n", pt_ps_scheme_name(b->xchg.best), b->xchg.why);
}

int cmd_plan_graph(const cli_args *a)
{
    static const char *const not_for_graphs[] = {
        "seq-len", "doc-len", "engine", "no-flash-attention", "tp-comm-overlap", "moe-dispatcher", "moe-a2a-overlap", "moe-imbalance", "moe-capacity", "mtp", "objective",
        "tokens",
        "critical-batch", "target-loss", "space", "fix", "threads", "explain", "verify", "export", "out", "trace",
        "svg", NULL};
    const char *model = a->pos[0], *cluster = cli_get(a, "cluster"), *v;
    int64_t gpus = 0, gb = 0, top = 5;
    double k = 0;
    pt_dtype dtype = PT_FP16;
    pt_graph g;
    pt_cluster c;
    pt_diag d;
    pt_status st;
    pt_gplan_result *r;
    char *text = NULL;
    int rc = 0;
    for (int i = 0; not_for_graphs[i]; i++)
        if (cli_get(a, not_for_graphs[i]))
            return cli_usage("plan: --%s does not apply to a layer graph (%s)", not_for_graphs[i], model);
    if ((st = pt_graph_load(model, &g, &d)) != PT_OK) return cli_fail(st, &d);
    if ((v = cli_get(a, "gpus"))) rc = cli_int("--gpus", v, 1, CLI_MAX_GPUS, &gpus);
    if (!rc && (v = cli_get(a, "global-batch"))) rc = cli_int("--global-batch", v, 1, CLI_MAX_BATCH, &gb);
    if (!rc && (v = cli_get(a, "top"))) rc = cli_int("--top", v, 1, CLI_MAX_TOP, &top);
    if (!rc && (v = cli_get(a, "cpu-machines"))) rc = cli_real("--cpu-machines", v, 0, 1000000, &k);
    if (!rc && (v = cli_get(a, "dtype"))) {
        if (!strcmp(v, "bf16")) dtype = PT_BF16;
        else if (!strcmp(v, "fp16")) dtype = PT_FP16;
        else if (!strcmp(v, "fp8")) dtype = PT_FP8;
        else rc = cli_usage("--dtype: \"%s\" is not bf16, fp16 or fp8", v);
    }
    if (!rc && !gb) rc = cli_usage("plan: give --global-batch B (samples per step of %s)", g.name);
    if (rc) {
        pt_graph_free(&g);
        return rc;
    }
    if ((st = pt_cluster_load(cluster ? cluster : "dgx-h100", &c, &d)) != PT_OK ||
        (gpus > 0 && (st = pt_cluster_resize(&c, gpus, &d)) != PT_OK)) {
        pt_graph_free(&g);
        return cli_fail(st, &d);
    }
    if (!(r = malloc(sizeof *r))) {
        pt_graph_free(&g);
        return cli_usage("plan: out of memory");
    }
    if ((st = pt_gplan_search(&g, &c, dtype, gb, k, r, &d)) != PT_OK) {
        free(r);
        pt_graph_free(&g);
        return cli_fail(st, &d);
    }
    if (cli_get(a, "json")) {
        if ((st = pt_emit_gplan_json(&g, &c, gb, r, (int)top, &text, &d)) == PT_OK) fputs(text, stdout);
        free(text);
        rc = st == PT_OK ? 0 : cli_fail(st, &d);
    } else {
        table(&g, &c, gb, r, (int)top);
        rc = r->plan[0].fits ? 0 : 1;
        if (rc) fprintf(stderr, "partita: plan: no plan of %s fits in %.0f GiB at --global-batch %lld\n", g.name,
                        c.dev.memory_GiB, (long long)gb);
    }
    free(r);
    pt_graph_free(&g);
    return rc;
}
