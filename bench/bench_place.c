/*
 * bench_place.c -- model-parallel placement (src/plan/place.c): for each
 * built-in graph and worker size, the step the heuristic finds and the time
 * it takes, against the integer program (GLPK, 300-node budget) started from
 * it: how much better the program's placement is and how much longer it
 * runs, as ratios measured in the same run.  Prints; never fails on time.
 */
#include "plan/place.h"

#include <stdio.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void)
{
    static const char *graphs[] = {"inception-v3", "resnet-50", "gnmt", "biglstm", "transformer-big"};
    pt_cluster c;
    pt_diag d;
    if (pt_cluster_builtin("dgx-1-v100", &c, &d) != PT_OK) return 1;
    printf("placement on dgx-1-v100, worker batch 64: heuristic (DP + moves/swaps) vs integer program\n");
    printf("%-16s %3s %7s %12s %10s %12s %10s %8s  %s\n", "graph", "m", "groups", "heuristic ms", "took s",
           "program ms", "took s", "x time", "program");
    for (size_t i = 0; i < sizeof graphs / sizeof *graphs; i++) {
        pt_graph g;
        if (pt_graph_builtin(graphs[i], &g, &d) != PT_OK) return 1;
        for (int m = 2; m <= 8; m *= 2) {
            pt_place_opts o = {.m = m, .batch = 64, .dp = 1, .dtype = PT_FP16, .max_nodes = 32,
                               .ilp_nodes = 300, .ilp_seconds = 60};
            pt_placement h, p;
            double t0 = now_s(), t1, t2;
            if (pt_place_graph(&g, &c, &o, &h, &d) != PT_OK) return 1;
            t1 = now_s();
            o.use_ilp = 1;
            if (pt_place_graph(&g, &c, &o, &p, &d) != PT_OK) return 1;
            t2 = now_s();
            printf("%-16s %3d %7d %12.2f %10.3f %12.2f %10.3f %7.1fx  %s%s\n", graphs[i], m, h.groups,
                   h.pipe_s * 1e3, t1 - t0, p.pipe_s * 1e3, t2 - t1, (t2 - t1) / (t1 - t0 > 1e-9 ? t1 - t0 : 1e-9),
                   p.optimal ? "proven optimal" : "not proven",
                   p.pipe_s < h.pipe_s * (1 - 1e-9) ? ", better" : "");
            pt_placement_free(&h);
            pt_placement_free(&p);
        }
        pt_graph_free(&g);
    }
    return 0;
}
