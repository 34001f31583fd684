/*
 * cmd_list.c -- `partita models | devices | clusters`: what is built in.
 */
#include "cli/cli.h"
#include "workload/graph.h"
#include "workload/recsys.h"

#include <stdio.h>
#include <string.h>

static const cli_opt no_opts[] = {{NULL, NULL, NULL}};

const cli_cmd cli_cmd_models = {"models", "", "list the built-in models and layer graphs", NULL, 0, no_opts,
                                cmd_models};
const cli_cmd cli_cmd_devices = {"devices", "", "list the built-in devices", NULL, 0, no_opts, cmd_devices};
const cli_cmd cli_cmd_clusters = {"clusters", "", "list the built-in clusters", NULL, 0, no_opts, cmd_clusters};

int cmd_models(int argc, char **argv)
{
    cli_args a;
    int rc;
    int w = 16; /* the name column: as wide as the longest name */
    if ((rc = cli_parse(&cli_cmd_models, argc, argv, &a)) != CLI_GO) return rc;
    for (int i = 0; i < pt_model_catalog_count(); i++)
        if ((int)strlen(pt_model_catalog_name(i)) > w) w = (int)strlen(pt_model_catalog_name(i));
    /* params: all of them; active: what one token uses (MoE: topk of the
     * routed experts); experts: routed experts / per token, and the width */
    printf("%-*s %9s %9s %7s %7s %6s %5s %7s %8s  %s\n", w, "name", "params", "active", "layers",
           "hidden", "heads", "kv", "ffn", "vocab", "experts");
    for (int i = 0; i < pt_model_catalog_count(); i++) {
        pt_model m;
        pt_diag d;
        char ex[64] = "-";
        if (pt_model_builtin(pt_model_catalog_name(i), &m, &d) != PT_OK) return cli_fail(PT_EINPUT, &d);
        if (m.experts > 0)
            snprintf(ex, sizeof ex, "%lld top-%lld x %lld%s", (long long)m.experts, (long long)m.topk,
                     (long long)m.moe_ffn, m.shared_ffn > 0 ? " + shared" : "");
        printf("%-*s %8.2fB %8.2fB %7lld %7lld %6lld %5lld %7lld %8lld  %s\n", w, m.name,
               (double)pt_model_params(&m) / 1e9, (double)pt_model_active_params(&m) / 1e9,
               (long long)m.layers, (long long)m.hidden, (long long)m.heads, (long long)m.kv_heads,
               (long long)m.ffn, (long long)m.vocab, ex);
    }
    printf("\n%-16s %9s %7s %14s  %s\n", "graph", "params", "layers", "GFLOP/sample", "sample");
    for (int i = 0; i < pt_graph_catalog_count(); i++) {
        pt_graph g;
        pt_diag d;
        if (pt_graph_builtin(pt_graph_catalog_name(i), &g, &d) != PT_OK) return cli_fail(PT_EINPUT, &d);
        printf("%-16s %8.3fB %7d %14.2f  %s\n", g.name, pt_graph_params(&g) / 1e9, g.n,
               pt_graph_flops(&g) / 1e9, g.sample);
        pt_graph_free(&g);
    }
    /* recommendation models (`plan` shards their tables) */
    printf("\n%-16s %7s %11s %9s %9s %13s  %s\n", "recommendation", "tables", "rows", "emb GiB", "ids/smpl",
           "dense params", "interaction");
    for (int i = 0; i < pt_recsys_catalog_count(); i++) {
        pt_recsys rs;
        pt_diag d;
        double ids = 0;
        const char *kind = "dot";
        if (pt_recsys_builtin(pt_recsys_catalog_name(i), &rs, &d) != PT_OK) return cli_fail(PT_EINPUT, &d);
        for (int t = 0; t < rs.ntables; t++) ids += pt_recsys_table(&rs, t)->emb.pooling;
        for (int k = 0; k < rs.g.n; k++)
            if (rs.g.l[k].op == PT_G_INTERACTION && rs.g.l[k].ngemm == 2) kind = "dcn"; /* dot: one GEMM */
        printf("%-16s %7d %11lld %9.1f %9.0f %12.2fM  %s\n", rs.g.name, rs.ntables, (long long)pt_recsys_rows(&rs),
               (double)pt_recsys_embedding_bytes(&rs) / PT_GiB, ids, pt_recsys_dense_params(&rs) / 1e6, kind);
        pt_recsys_free(&rs);
    }
    return 0;
}

int cmd_devices(int argc, char **argv)
{
    cli_args a;
    int rc;
    if ((rc = cli_parse(&cli_cmd_devices, argc, argv, &a)) != CLI_GO) return rc;
    /* fitted: the generation whose measured runs fitted the efficiency
     * constants ("none": not fitted; eval and plan then print a note) */
    printf("%-19s %8s %9s %9s %9s %9s  %s\n", "name", "mem GiB", "HBM GB/s", "bf16 TF", "fp8 TF",
           "fp4 TF", "fitted on");
    for (int i = 0; i < pt_device_catalog_count(); i++) {
        pt_device v;
        pt_diag d;
        if (pt_device_builtin(pt_device_catalog_name(i), &v, &d) != PT_OK) return cli_fail(PT_EINPUT, &d);
        printf("%-19s %8.1f %9.0f %9.1f %9.1f %9.1f  %s\n", v.name, v.memory_GiB, v.memory_bw_GBps,
               v.tflops_bf16, v.tflops_fp8, v.tflops_fp4, v.fitted_on);
    }
    return 0;
}

int cmd_clusters(int argc, char **argv)
{
    cli_args a;
    int rc;
    if ((rc = cli_parse(&cli_cmd_clusters, argc, argv, &a)) != CLI_GO) return rc;
    printf("%-16s %-19s %8s  %s\n", "name", "device", "devices",
           "levels (size x GB/s per device; [a job's unit, devices per domain])");
    for (int i = 0; i < pt_cluster_catalog_count(); i++) {
        pt_cluster c;
        pt_diag d;
        if (pt_cluster_builtin(pt_cluster_catalog_name(i), &c, &d) != PT_OK) return cli_fail(PT_EINPUT, &d);
        if (c.npools > 1) { /* pools: "32 h100-sxm-80g + 32 a100-sxm4-80g" */
            char dev[256];
            size_t used = 0;
            dev[0] = '\0';
            for (int k = 0; k < c.npools && used < sizeof dev; k++) {
                int w = snprintf(dev + used, sizeof dev - used, "%s%lld %s", k ? " + " : "",
                                 (long long)c.pool[k].devices, c.pool[k].dev.name);
                if (w < 0) break;
                used += (size_t)w;
            }
            printf("%-16s %-19s %8lld ", c.name, dev, (long long)c.devices);
        } else
            printf("%-16s %-19s %8lld ", c.name, c.dev.name, (long long)c.devices);
        for (int j = 0; j < c.nlevels; j++) {
            const pt_level *l = &c.level[j];
            printf(" %s %lld x %.0f", l->name, (long long)l->size, l->bw_GBps);
            if (l->unit > 0 || l->segment > 0)
                printf(" [unit %lld, %lld per domain]", (long long)(l->unit > 0 ? l->unit : l->size),
                       (long long)(l->segment > 0 ? l->segment : l->size));
        }
        printf("\n");
    }
    return 0;
}
