/*
 * cmd_pipeline.c -- `partita pipeline GRAPH --cluster C [--batch B] [--json]`
 * (SPEC section 10): an inference pipeline of a layer graph over edge
 * devices, stages and replicas (src/plan/pipeline.h).  The table is here;
 * the JSON is src/emit/pipeline_out.c's.
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/pipeline_out.h"
#include "plan/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_opt opts[] = {
    {"cluster", "C", "a built-in cluster (`partita clusters`) or a cluster file, one device kind or \"pools\" (required)"},
    {"batch", "B", "samples per batch through the pipeline, 1..65536 (default 1)"},
    {"objective", "O", "throughput (samples/s, stages and replicas) or latency (one batch; stages may be split over boards) (default throughput)"},
    {"dtype", "T", "fp32, fp16 or int8: what every unit computes in (default fp32)"},
    {"devices", "N", "resize a cluster of one device kind to N boards, 1..256 (default: its size)"},
    {"units", "K[,K]", "only these kinds of compute unit: cpu, gpu, npu (default: every kind)"},
    {"replicas", "R", "exactly R pipelines, each on its own boards, 1..256 (default: the best count)"},
    {"json", NULL, "print JSON instead of the table"},
    {NULL, NULL, NULL}};

const cli_cmd cli_cmd_pipeline = {
    "pipeline", "GRAPH --cluster C [OPTION]...",
    "inference pipeline of a layer graph over (mixed) edge devices: stages, replicas, threads",
    "GRAPH is a built-in layer graph (`partita models`, second table) or a graph file.\n"
    "Each stage runs on one compute unit (a CPU cluster, a GPU, an NPU) of one board; the\n"
    "speed-up is over the best single unit running the whole graph.\n",
    1, opts, cmd_pipeline};

static void table(const pt_graph *g, const pt_edge_cluster *c, const pt_pipe_opts *o, const pt_pipe_plan *p)
{
    char a[300], b[300];
    const pt_edge_type *st = &c->type[p->single_type];
    printf("pipeline %s on %s (%d device%s, %s), batch %d, %s, objective %s\n", pt_str_escape(g->name, a, sizeof a),
           pt_str_escape(c->name, b, sizeof b), c->nboards, c->nboards == 1 ? "" : "s", c->net_name, o->batch,
           pt_edge_dtype_name(o->dtype),
           o->objective == PT_PIPE_LATENCY ? "latency" : "throughput");
    printf("%5s  %-32s %6s  %-28s %11s %11s %11s %7s %9s\n", "stage", "device/unit", "layers", "first..last",
           "compute ms", "net cpu ms", "transfer ms", "threads", "inter-op");
    for (int k = 0; k < p->nstages; k++) {
        const pt_pipe_stage *s = &p->stage[k];
        const pt_edge_type *t = &c->type[c->board_type[s->board]];
        char dev[96], span[120];
        if (s->width > 1) snprintf(dev, sizeof dev, "%s x%d/%s", t->dev.name, s->width, t->unit[s->unit].name);
        else snprintf(dev, sizeof dev, "%s#%d/%s", t->dev.name, s->board, t->unit[s->unit].name);
        snprintf(span, sizeof span, "%s..%s", g->l[s->first].name, g->l[s->last - 1].name);
        printf("%5d  %-32s %6d  %-28s %11.1f %11.1f %11.1f %7d %9d%s\n", k, dev, s->last - s->first, span,
               s->compute_s * 1e3, s->net_cpu_s * 1e3, s->transfer_s * 1e3, s->intra, s->inter,
               s->fallback_layers ? "  (+fallback)" : "");
    }
    printf("\n");
    if (p->replicas > 1) printf("replicas          %d (each on its own boards)\n", p->replicas);
    printf("throughput        %.3g samples/s (bottleneck %.1f ms per batch)\n", p->samples_per_s,
           p->bottleneck_s * 1e3);
    printf("latency           %.1f ms per batch\n", p->latency_s * 1e3);
    printf("best single unit  %s/%s: %.3g samples/s, %.1f ms per batch%s\n", st->dev.name,
           st->unit[p->single_unit].name, p->single_samples_per_s, p->single_latency_s * 1e3,
           p->single_fits ? "" : " (if its memory held the whole graph: none does)");
    printf("speed-up          %.2fx (%s)\n", p->speedup,
           o->objective == PT_PIPE_LATENCY ? "latency, over the best single unit"
                                           : "throughput, over the best single unit");
    for (int k = 0; k < p->nstages; k++)
        if (c->type[c->board_type[p->stage[k].board]].unit[p->stage[k].unit].kind == PT_UNIT_CPU) {
            printf("threads           set intra-op threads and inter-op concurrency per stage as above "
                   "(torch.set_num_threads / set_num_interop_threads; TF intra_op/inter_op_parallelism_threads): "
                   "%.2fx over all cores on one operator\n", p->threads_gain);
            break;
        }
}

int cmd_pipeline(int argc, char **argv)
{
    const char *cluster, *v;
    int64_t batch = 1, devices = 0;
    int rc = 0;
    pt_graph g;
    pt_edge_cluster *c;
    pt_pipe_plan *p;
    pt_pipe_opts o = {1, PT_EDGE_FP32, PT_PIPE_THROUGHPUT, 0, 0};
    pt_diag d;
    pt_status st;
    cli_args a;
    char *text = NULL;
    if ((rc = cli_parse(&cli_cmd_pipeline, argc, argv, &a)) != CLI_GO) return rc;
    if (a.npos < 1)
        return cli_usage("pipeline: give a GRAPH (a layer graph: `partita models` lists the built-in ones)");
    if ((st = pt_graph_load(a.pos[0], &g, &d)) != PT_OK) {
        if (!strchr(a.pos[0], '/') && !strstr(a.pos[0], ".json"))
            return cli_usage("pipeline: \"%s\" is not a layer graph (pipeline takes a built-in graph or a graph "
                             "file)", a.pos[0]);
        return cli_fail(st, &d);
    }
    cluster = cli_get(&a, "cluster");
    rc = 0;
    if ((v = cli_get(&a, "batch"))) rc = cli_int("--batch", v, 1, 65536, &batch);
    if (!rc && (v = cli_get(&a, "devices"))) rc = cli_int("--devices", v, 1, PT_EDGE_MAX_BOARDS, &devices);
    if (!rc && (v = cli_get(&a, "replicas"))) {
        int64_t r = 0;
        rc = cli_int("--replicas", v, 1, PT_EDGE_MAX_BOARDS, &r);
        o.replicas = (int)r;
    }
    if (!rc && (v = cli_get(&a, "units"))) {
        char buf[64], *save = NULL;
        pt_strlcpy(buf, v, sizeof buf);
        for (char *k = strtok_r(buf, ",", &save); k && !rc; k = strtok_r(NULL, ",", &save)) {
            if (!strcmp(k, "cpu")) o.kinds |= 1u << PT_UNIT_CPU;
            else if (!strcmp(k, "gpu")) o.kinds |= 1u << PT_UNIT_GPU;
            else if (!strcmp(k, "npu")) o.kinds |= 1u << PT_UNIT_NPU;
            else rc = cli_usage("--units: \"%s\" is not one of cpu, gpu, npu", k);
        }
        if (!rc && !o.kinds) rc = cli_usage("--units: give one or more of cpu, gpu, npu");
    }
    if (!rc && (v = cli_get(&a, "objective"))) {
        if (!strcmp(v, "throughput")) o.objective = PT_PIPE_THROUGHPUT;
        else if (!strcmp(v, "latency")) o.objective = PT_PIPE_LATENCY;
        else rc = cli_usage("--objective: \"%s\" is not one of throughput, latency", v);
    }
    if (!rc && (v = cli_get(&a, "dtype"))) {
        if (!strcmp(v, "fp32")) o.dtype = PT_EDGE_FP32;
        else if (!strcmp(v, "fp16")) o.dtype = PT_EDGE_FP16;
        else if (!strcmp(v, "int8")) o.dtype = PT_EDGE_INT8;
        else rc = cli_usage("--dtype: \"%s\" is not one of fp32, fp16, int8", v);
    }
    if (!rc && !cluster)
        rc = cli_usage("pipeline: give --cluster C (a name from `partita clusters` or a cluster file)");
    if (rc) {
        pt_graph_free(&g);
        return rc;
    }
    o.batch = (int)batch;
    c = malloc(sizeof *c);
    p = malloc(sizeof *p);
    if (!c || !p) {
        free(c), free(p), pt_graph_free(&g);
        pt_diag_set(&d, NULL, NULL, NULL, "out of memory");
        return cli_fail(PT_ENOMEM, &d);
    }
    st = pt_edge_cluster_load(cluster, c, &d);
    if (st == PT_OK && devices) st = pt_edge_cluster_resize(c, (int)devices, &d);
    if (st == PT_OK) st = pt_pipe_plan_graph(&g, c, &o, p, &d);
    if (st == PT_OK && cli_get(&a, "json")) st = pt_emit_pipeline_json(&g, c, &o, p, &text, &d);
    if (st != PT_OK) rc = cli_fail(st, &d);
    else if (text) printf("%s\n", text);
    else table(&g, c, &o, p);
    free(text), free(c), free(p);
    pt_graph_free(&g);
    return rc;
}
