/*
 * test_pipeline.c -- inference pipelines over edge devices (src/plan/edge.c,
 * src/plan/pipeline.c): the cut DP against brute force on small problems,
 * units' peaks from their datasheet fields, NPU fallback, the thread-pool
 * knob, the pools cluster form and its errors, and the plan's invariants on
 * the built-in graphs; the network stack's CPU work by hand; HALP's
 * three-Raspberry-Pi VGG-16 setting.
 */
#include <math.h>

#include "helpers.h"
#include "plan/edge.h"
#include "plan/pipeline.h"
#include "base/base.h"
#include "workload/graph.h"

/* deterministic pseudo-random numbers in [lo, hi) */
static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double urand(double lo, double hi)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

#define BN 7
#define BM 4

/* A stage's time from a table of per-unit layer-range times, plus the
 * network CPU it is handed (the busy() the DP takes). */
typedef struct table_ctx {
    int n;
    const double *st;
} table_ctx;

static double table_busy(const void *ctx, int s, int i, int j, double net_s)
{
    const table_ctx *t = ctx;
    size_t N1 = (size_t)t->n + 1;
    return t->st[((size_t)s * N1 + (size_t)i) * N1 + (size_t)j] + net_s;
}

/* Brute force: every way to cut layers [at, n) into stages on units after
 * `prev` (in order, units may be skipped); returns the best objective.  A
 * stage pays net[s][i] when its predecessor is on another board and
 * net[s][j] when its successor is, so each stage's time is known only once
 * the next is chosen: `pend` is the previous stage's time so far. */
static double brute(int n, int m, const double *st, const double *xf, const double *net, const int *board,
                    pt_pipe_objective obj, int at, int prev, double pend, double acc_max, double acc_sum)
{
    size_t N1 = (size_t)n + 1;
    double best = INFINITY;
    if (at == n) return obj == PT_PIPE_THROUGHPUT ? fmax(acc_max, pend) : acc_sum + pend;
    for (int s = prev + 1; s < m; s++)
        for (int j = at + 1; j <= n; j++) {
            double c = st[((size_t)s * N1 + (size_t)at) * N1 + (size_t)j], x = 0, p = pend, v;
            if (!(c < INFINITY)) continue;
            if (prev >= 0) {
                x = xf[((size_t)prev * (size_t)m + (size_t)s) * N1 + (size_t)at];
                if (board[prev] != board[s])
                    p += net[(size_t)prev * N1 + (size_t)at], c += net[(size_t)s * N1 + (size_t)at];
            }
            v = brute(n, m, st, xf, net, board, obj, j, s, c, prev >= 0 ? fmax(acc_max, fmax(p, x)) : acc_max,
                      prev >= 0 ? acc_sum + p + x : acc_sum);
            if (v < best) best = v;
        }
    return best;
}

/* The DP equals brute force on random problems: per-layer times per unit
 * (the stage time is their sum, or INFINITY when a random memory cap is
 * exceeded), random transfers per cut and unit pair, random network CPU per
 * unit and cut paid between units of different boards (units placed on
 * boards at random), both objectives. */
static void test_dp_brute_force(void **state)
{
    (void)state;
    for (int trial = 0; trial < 600; trial++) {
        int n = 1 + (int)urand(0, BN), m = 1 + (int)urand(0, BM), board[BM], withnet = trial % 3 != 0;
        size_t N1 = (size_t)n + 1;
        double lt[BM][BN], mem[BN], cap[BM];
        double st[BM * (BN + 1) * (BN + 1)], xf[BM * BM * (BN + 1)], net[BM * (BN + 1)];
        table_ctx tc = {n, st};
        for (int s = 0; s < m; s++) {
            cap[s] = urand(1.5, 6);
            board[s] = (int)urand(0, 3);
            for (int v = 0; v < n; v++) lt[s][v] = urand(0.1, 3);
        }
        for (int v = 0; v < n; v++) mem[v] = urand(0.5, 2);
        for (int s = 0; s < m; s++)
            for (int i = 0; i <= n; i++)
                for (int j = 0; j <= n; j++) {
                    double t = 0, mm = 0;
                    for (int v = i; v < j; v++) t += lt[s][v], mm += mem[v];
                    st[((size_t)s * N1 + (size_t)i) * N1 + (size_t)j] = j > i && mm <= cap[s] ? t : INFINITY;
                }
        for (size_t q = 0; q < (size_t)m * (size_t)m * N1; q++) xf[q] = urand(0, 2);
        for (size_t q = 0; q < (size_t)m * N1; q++) net[q] = withnet ? urand(0, 1.5) : 0;
        for (int o = 0; o < 2; o++) {
            pt_pipe_objective obj = (pt_pipe_objective)o;
            int cu[PT_PIPE_MAX_STAGES], cf[PT_PIPE_MAX_STAGES], cl[PT_PIPE_MAX_STAGES], nst = 0;
            double want = brute(n, m, st, xf, net, board, obj, 0, -1, 0, 0, 0);
            double got = pt_pipe_dp(n, m, table_busy, &tc, xf, net, board, obj, cu, cf, cl, &nst);
            if (!(want < INFINITY)) {
                assert_true(!(got < INFINITY));
                assert_int_equal(nst, 0);
                continue;
            }
            if (fabs(got - want) > 1e-9 * want) fail_msg("trial %d obj %d: DP %.12g, brute force %.12g", trial, o, got, want);
            /* the cut it returns covers [0, n) in order on rising units and
             * has the value it claims */
            {
                double mx = 0, sum = 0;
                assert_true(nst >= 1);
                assert_int_equal(cf[0], 0);
                assert_int_equal(cl[nst - 1], n);
                for (int k = 0; k < nst; k++) {
                    double c = st[((size_t)cu[k] * N1 + (size_t)cf[k]) * N1 + (size_t)cl[k]], x = 0;
                    if (k > 0) {
                        assert_int_equal(cf[k], cl[k - 1]);
                        assert_true(cu[k] > cu[k - 1]);
                        x = xf[((size_t)cu[k - 1] * (size_t)m + (size_t)cu[k]) * N1 + (size_t)cf[k]];
                        if (board[cu[k - 1]] != board[cu[k]]) c += net[(size_t)cu[k] * N1 + (size_t)cf[k]];
                    }
                    if (k + 1 < nst && board[cu[k + 1]] != board[cu[k]]) c += net[(size_t)cu[k] * N1 + (size_t)cl[k]];
                    mx = fmax(mx, fmax(c, x)), sum += c + x;
                }
                th_near_rel(obj == PT_PIPE_THROUGHPUT ? mx : sum, got, 1e-12, "the cut's own value");
            }
        }
    }
}

/* A hand example: two units, three layers; unit 0 is fast on layer 0, unit
 * 1 on layers 1-2; a transfer of 1 at every cut.  Throughput: [0] on 0,
 * [1, 3) on 1: max(1, 1, 2) = 2; latency: all on unit 1 (2 + 1 + 1 = 4)
 * ties [0] on 0 then the rest (1 + 1 + 2 = 4): the DP gives 4.
 * With the network's CPU work: two units on two boards, two layers of 10
 * each on either, a transfer of 8 whose sending and receiving take 12 of
 * each board's CPU.  Split, each stage is busy 10 + 12 = 22 a batch; one
 * unit alone takes 20: the DP keeps one stage (20).  Without the CPU work
 * it splits (max(10, 10, 8) = 10); on one board (no network) too. */
static void test_dp_hand(void **state)
{
    enum { n = 3, m = 2 };
    double lt[m][n] = {{1, 5, 5}, {2, 1, 1}}, st[m * (n + 1) * (n + 1)], xf[m * m * (n + 1)];
    double st2[m * 3 * 3], xf2[m * m * 3], net2[m * 3];
    int cu[8], cf[8], cl[8], nst, apart[m] = {0, 1}, together[m] = {0, 0};
    table_ctx tc = {n, st}, tc2 = {2, st2};
    (void)state;
    for (int s = 0; s < m; s++)
        for (int i = 0; i <= n; i++)
            for (int j = 0; j <= n; j++) {
                double t = 0;
                for (int v = i; v < j; v++) t += lt[s][v];
                st[(s * (n + 1) + i) * (n + 1) + j] = j > i ? t : INFINITY;
            }
    for (int q = 0; q < m * m * (n + 1); q++) xf[q] = 1;
    th_near_rel(pt_pipe_dp(n, m, table_busy, &tc, xf, NULL, NULL, PT_PIPE_THROUGHPUT, cu, cf, cl, &nst), 2.0, 1e-12,
                "bottleneck");
    assert_int_equal(nst, 2);
    assert_int_equal(cl[0], 1);
    th_near_rel(pt_pipe_dp(n, m, table_busy, &tc, xf, NULL, NULL, PT_PIPE_LATENCY, cu, cf, cl, &nst), 4.0, 1e-12,
                "latency");
    for (int s = 0; s < m; s++)
        for (int i = 0; i <= 2; i++) {
            for (int j = 0; j <= 2; j++) st2[(s * 3 + i) * 3 + j] = j > i ? 10.0 * (j - i) : INFINITY;
            net2[s * 3 + i] = 12;
        }
    for (int q = 0; q < m * m * 3; q++) xf2[q] = 8;
    th_near_rel(pt_pipe_dp(2, m, table_busy, &tc2, xf2, net2, apart, PT_PIPE_THROUGHPUT, cu, cf, cl, &nst), 20.0,
                1e-12, "network CPU: one stage");
    assert_int_equal(nst, 1);
    th_near_rel(pt_pipe_dp(2, m, table_busy, &tc2, xf2, NULL, apart, PT_PIPE_THROUGHPUT, cu, cf, cl, &nst), 10.0,
                1e-12, "no network CPU: two stages");
    assert_int_equal(nst, 2);
    th_near_rel(pt_pipe_dp(2, m, table_busy, &tc2, xf2, net2, together, PT_PIPE_THROUGHPUT, cu, cf, cl, &nst), 10.0,
                1e-12, "one board: no network");
    assert_int_equal(nst, 2);
}

/* Peaks from the datasheet fields (data/devices.json): Raspberry Pi 4B,
 * 4 x 1.5 GHz x 4 lanes x 2 = 48 GFLOPS fp32; Pi 5, 4 x 2.4 x 2 pipes x 4 x 2
 * = 153.6, fp16 twice; the phone's three CPU clusters and NPU fallback. */
static void test_units(void **state)
{
    pt_device dev;
    pt_edge_type t;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_device_builtin("raspberry-pi-4b", &dev, &d), PT_OK);
    assert_int_equal(pt_edge_type_builtin(&dev, &t, &d), PT_OK);
    assert_int_equal(t.nunits, 1);
    assert_int_equal(t.unit[0].kind, PT_UNIT_CPU);
    th_near_rel(t.unit[0].tflops[PT_EDGE_FP32], 0.048, 1e-12, "Pi 4 fp32");
    th_near_rel(t.unit[0].tflops[PT_EDGE_FP16], 0.048, 1e-12, "Pi 4 has no fp16 arithmetic");
    assert_int_equal(pt_device_builtin("raspberry-pi-5", &dev, &d), PT_OK);
    assert_int_equal(pt_edge_type_builtin(&dev, &t, &d), PT_OK);
    th_near_rel(t.unit[0].tflops[PT_EDGE_FP32], 0.1536, 1e-12, "Pi 5 fp32");
    th_near_rel(t.unit[0].tflops[PT_EDGE_FP16], 0.3072, 1e-12, "Pi 5 fp16");
    assert_int_equal(pt_device_builtin("snapdragon-8-gen3", &dev, &d), PT_OK);
    assert_int_equal(pt_edge_type_builtin(&dev, &t, &d), PT_OK);
    assert_int_equal(t.nunits, 5);
    assert_string_equal(t.unit[2].name, "cpu-big");
    th_near_rel(t.unit[2].tflops[PT_EDGE_FP32], 1 * 3.3 * 4 * 2 * 4 / 1000.0, 1e-12, "X4");
    assert_int_equal(t.unit[0].kind, PT_UNIT_NPU);
    assert_int_equal(t.unit[0].fallback, 2);
    assert_true(t.unit[0].tflops[PT_EDGE_FP32] == 0); /* the NPU has no fp32 */
    /* a datacenter GPU without units is one GPU unit of its peaks */
    assert_int_equal(pt_device_builtin("a100-sxm4-80g", &dev, &d), PT_OK);
    assert_int_equal(pt_edge_type_builtin(&dev, &t, &d), PT_OK);
    assert_int_equal(t.nunits, 1);
    assert_int_equal(t.unit[0].kind, PT_UNIT_GPU);
    th_near_rel(t.unit[0].tflops[PT_EDGE_FP16], dev.tflops_fp16, 1e-12, "A100 fp16");
}

/* An NPU's unsupported layer runs on its fallback unit, plus the on-chip
 * crossing of its output both ways; a supported one on the NPU. */
static void test_npu_fallback(void **state)
{
    pt_device dev;
    pt_edge_type t;
    pt_graph g;
    pt_diag d;
    int norm = -1, conv = -1, dla = 1, gpu = 0;
    double chip = 100e9, lat = 2e-6;
    (void)state;
    assert_int_equal(pt_device_builtin("jetson-agx-orin", &dev, &d), PT_OK);
    assert_int_equal(pt_edge_type_builtin(&dev, &t, &d), PT_OK);
    assert_string_equal(t.unit[dla].name, "dla0");
    assert_int_equal(t.unit[dla].fallback, gpu);
    assert_int_equal(pt_graph_builtin("vit-large", &g, &d), PT_OK);
    for (int v = 0; v < g.n; v++) {
        if (g.l[v].op == PT_G_NORM && norm < 0) norm = v;
        if (g.l[v].op == PT_G_CONV && conv < 0) conv = v;
    }
    assert_true(norm > 0 && conv > 0);
    {
        double on_gpu = pt_edge_layer_s(&g.l[norm], &t, gpu, PT_EDGE_INT8, 4, 1, 1, 1.0, chip, lat);
        double on_dla = pt_edge_layer_s(&g.l[norm], &t, dla, PT_EDGE_INT8, 4, 1, 1, 1.0, chip, lat);
        double x = 2.0 * (pt_edge_out_bytes(&g.l[norm], PT_EDGE_INT8) * 4 / chip + lat);
        th_near_rel(on_dla, on_gpu + x, 1e-12, "norm falls back to the GPU");
        /* the patch embedding (a convolution) runs on the DLA at its own rate */
        on_gpu = pt_edge_layer_s(&g.l[conv], &t, gpu, PT_EDGE_INT8, 4, 1, 1, 1.0, chip, lat);
        on_dla = pt_edge_layer_s(&g.l[conv], &t, dla, PT_EDGE_INT8, 4, 1, 1, 1.0, chip, lat);
        assert_true(on_dla > on_gpu); /* 26 dense TOPS against the GPU's 85 */
    }
    pt_graph_free(&g);
}

/* The thread-pool knob: MobileNet-V2's small operators at batch 12 on a
 * 12-core CPU run faster as several sub-batches with fewer threads each
 * (seed paper #8's effect, smaller here) than with the vendors' default of
 * every core on one operator; VGG-16's big ones at batch 1 want every core. */
static void test_threads(void **state)
{
    pt_device dev;
    pt_edge_type t;
    pt_graph g;
    pt_diag d;
    int cpu = 3;
    double one = 0, best = INFINITY;
    int bi = 0, bj = 0;
    (void)state;
    assert_int_equal(pt_device_builtin("jetson-agx-orin", &dev, &d), PT_OK);
    assert_int_equal(pt_edge_type_builtin(&dev, &t, &d), PT_OK);
    assert_string_equal(t.unit[cpu].name, "cpu");
    assert_int_equal(pt_graph_builtin("mobilenet-v2", &g, &d), PT_OK);
    for (int intra = 1; intra <= 12; intra++)
        for (int inter = 1; intra * inter <= 12; inter++) {
            double s = 0;
            for (int v = 0; v < g.n; v++)
                s += pt_edge_layer_s(&g.l[v], &t, cpu, PT_EDGE_FP32, 12, intra, inter, 1.0, 1e11, 2e-6);
            if (intra == 12 && inter == 1) one = s;
            if (s < best) best = s, bi = intra, bj = inter;
        }
    /* measured on this model: 2 threads x 6 sub-batches, 48.0 ms against
     * 49.9 ms at 12 x 1 (4%: the barriers and the ramp of small per-thread
     * shares are all it prices; seed paper #8's 1.29-1.38x is Xeon training) */
    assert_true(bj > 1 && bi < 12);
    assert_true(one / best > 1.02 && one / best < 1.5);
    pt_graph_free(&g);
    assert_int_equal(pt_graph_builtin("vgg-16", &g, &d), PT_OK);
    best = INFINITY;
    for (int intra = 1; intra <= 12; intra++) {
        double s = 0;
        for (int v = 0; v < g.n; v++)
            s += pt_edge_layer_s(&g.l[v], &t, cpu, PT_EDGE_FP32, 1, intra, 1, 1.0, 1e11, 2e-6);
        if (s < best) best = s, bi = intra;
    }
    assert_int_equal(bi, 12);
    pt_graph_free(&g);
}

/* The pools form: mixed boards in order, the network from the outermost
 * level; errors name the field. */
static void test_pools(void **state)
{
    pt_edge_cluster c;
    pt_diag d;
    const char *ok = "{\"name\": \"mixed\", \"pools\": [{\"device\": \"raspberry-pi-4b\", \"devices\": 2},\n"
                     " {\"device\": \"raspberry-pi-5\", \"devices\": 1}],\n"
                     " \"levels\": [{\"name\": \"gbe\", \"size\": 3, \"bw_GBps\": 0.125, \"latency_us\": 150, "
                     "\"efficiency\": 0.94}]}";
    (void)state;
    assert_int_equal(pt_edge_cluster_parse(ok, "mixed.json", &c, &d), PT_OK);
    assert_int_equal(c.nboards, 3);
    assert_int_equal(c.ntypes, 2);
    assert_int_equal(c.board_type[2], 1);
    th_near_rel(c.net_Bps, 0.125e9 * 0.94, 1e-12, "network");
    th_near_rel(c.net_latency_s, 150e-6, 1e-12, "latency");
    assert_int_equal(pt_edge_cluster_parse("{\"name\": \"x\", \"pools\": [{\"device\": \"rpi\", \"devices\": 2}],"
                                           " \"levels\": [{\"name\": \"gbe\", \"size\": 2, \"bw_GBps\": 1, "
                                           "\"latency_us\": 1}]}",
                                           "x.json", &c, &d),
                     PT_EINPUT);
    assert_non_null(strstr(d.msg, "pools[0].device"));
    assert_int_equal(pt_edge_cluster_parse("{\"name\": \"x\", \"pools\": [{\"device\": \"raspberry-pi-4b\", "
                                           "\"devices\": 4}], \"levels\": [{\"name\": \"gbe\", \"size\": 2, "
                                           "\"bw_GBps\": 1, \"latency_us\": 1}]}",
                                           "x.json", &c, &d),
                     PT_EINPUT);
    assert_non_null(strstr(d.msg, "levels[0].size"));
    assert_int_equal(pt_edge_cluster_parse("{\"name\": \"x\", \"pools\": [{\"device\": \"raspberry-pi-4b\", "
                                           "\"devices\": 0}], \"levels\": []}",
                                           "x.json", &c, &d),
                     PT_EINPUT);
    assert_non_null(strstr(d.msg, "pools[0].devices"));
    /* a built-in cluster: the on-chip link from its size-1 level */
    assert_int_equal(pt_edge_cluster_load("rpi4-gbe", &c, &d), PT_OK);
    assert_int_equal(c.nboards, 3);
    th_near_rel(c.chip_Bps, 6.4e9 * 0.7, 1e-12, "shared memory");
    assert_int_equal(pt_edge_cluster_resize(&c, 5, &d), PT_OK);
    assert_int_equal(c.nboards, 5);
}

static void check_plan(const pt_graph *g, const pt_edge_cluster *c, const pt_pipe_opts *o, const pt_pipe_plan *p)
{
    double bott = 0, lat = 0;
    assert_true(p->nstages >= 1 && p->replicas >= 1);
    assert_int_equal(p->stage[0].first, 0);
    assert_int_equal(p->stage[p->nstages - 1].last, g->n);
    for (int k = 0; k < p->nstages; k++) {
        const pt_pipe_stage *s = &p->stage[k];
        const pt_edge_type *t = &c->type[c->board_type[s->board]];
        if (k) assert_int_equal(s->first, p->stage[k - 1].last);
        assert_true(s->last > s->first);
        assert_true(s->mem_bytes <= t->dev.memory_GiB * 1073741824.0 * PT_EDGE_MEM_USABLE);
        assert_true(s->compute_s <= s->default_s * (1 + 1e-12)); /* the knob never loses */
        bott = fmax(bott, fmax(s->compute_s, s->transfer_s));
        lat += s->compute_s + s->transfer_s;
    }
    th_near_rel(p->bottleneck_s, bott, 1e-12, "bottleneck");
    th_near_rel(p->latency_s, lat, 1e-12, "latency");
    th_near_rel(p->samples_per_s, p->replicas * o->batch / bott, 1e-12, "throughput");
    /* the best single unit is one of the plans searched */
    assert_true(p->speedup >= 1 - 1e-12);
}

/* Every built-in inference graph on every built-in edge cluster, both
 * objectives: the plan's invariants hold. */
static void test_plans(void **state)
{
    const char *graphs[] = {"vgg-16", "mobilenet-v2", "vit-large", "bert-large"};
    const char *clusters[] = {"rpi4-gbe", "rpi4-wifi5", "orin-nano-wifi6", "agx-orin-gbe", "phones-wifi6"};
    (void)state;
    for (int gi = 0; gi < 4; gi++) {
        pt_graph g;
        pt_diag d;
        assert_int_equal(pt_graph_builtin(graphs[gi], &g, &d), PT_OK);
        for (int ci = 0; ci < 5; ci++)
            for (int ob = 0; ob < 2; ob++) {
                pt_edge_cluster c;
                pt_pipe_plan *p = malloc(sizeof *p);
                pt_pipe_opts o = {2, ci >= 2 ? PT_EDGE_FP16 : PT_EDGE_FP32, (pt_pipe_objective)ob, 0, 0};
                pt_status st;
                assert_non_null(p);
                assert_int_equal(pt_edge_cluster_load(clusters[ci], &c, &d), PT_OK);
                st = pt_pipe_plan_graph(&g, &c, &o, p, &d);
                if (st != PT_OK) fail_msg("%s on %s: %s", graphs[gi], clusters[ci], d.msg);
                check_plan(&g, &c, &o, p);
                free(p);
            }
        pt_graph_free(&g);
    }
}

/* The network stack's CPU work per byte (edge.h): a Raspberry Pi 4's
 * Cortex-A72 cluster at 1.5 GHz, 8 cycles a byte in the kernel (Foong et
 * al.'s 1 GHz per 1 Gb/s) and 2 copies at 0.43 x 12.8 GB/s, each reading and
 * writing: 8 / 1.5e9 + 2 x 2 / 5.504e9 = 6.060e-9 s a byte.  A datacenter
 * GPU (no CPU unit: RDMA) pays nothing.
 * Then a two-stage pipeline by hand: two Pi 4 boards on gigabit Ethernet
 * (0.125 GB/s x 0.94, 150 us), two 3x3 convolutions of 64 channels at
 * 56 x 56, one per board; the cut carries a's output, 64 x 56 x 56 x 4 =
 * 802,816 bytes.  Each board spends 802,816 x 6.060e-9 = 4.865 ms of CPU
 * sending or receiving it; the wire takes 802,816 / 117.5e6 = 6.832 ms,
 * plus 0.15.  A stage on all four cores loses that time (c4 + 4.865), on
 * three it runs beside the stack on the fourth (max(c3, 4.865)), so a stage
 * is busy min(c4 + n, max(c3, n)) and the pipeline delivers one image per
 * max(stage a, stage b, transfer).  c3 and c4 come from the layer pricing
 * (pt_edge_layer_s); the rest is the formula above. */
static const char two_convs[] =
    "{\"name\": \"two-convs\", \"layers\": [\n"
    " {\"name\": \"x\", \"op\": \"input\", \"shape\": [64, 56, 56]},\n"
    " {\"name\": \"a\", \"op\": \"conv\", \"out\": 64, \"kernel\": 3, \"pad\": 1},\n"
    " {\"name\": \"b\", \"op\": \"conv\", \"out\": 64, \"kernel\": 3, \"pad\": 1}]}\n";

static void test_net_cpu(void **state)
{
    const char *two = "{\"name\": \"two-pis\", \"pools\": [{\"device\": \"raspberry-pi-4b\", \"devices\": 2}],"
                      " \"levels\": [{\"name\": \"gbe\", \"size\": 2, \"bw_GBps\": 0.125, \"latency_us\": 150,"
                      " \"efficiency\": 0.94}]}";
    pt_device dev;
    pt_edge_type t;
    pt_edge_cluster c;
    pt_graph g;
    pt_diag d;
    pt_pipe_plan *p = malloc(sizeof *p);
    pt_pipe_opts o = {1, PT_EDGE_FP32, PT_PIPE_THROUGHPUT, 1, 0};
    double per_byte = 8.0 / 1.5e9 + 2.0 * 2.0 / (0.43 * 12.8e9), bytes = 64.0 * 56 * 56 * 4, n, x, busy[2];
    (void)state;
    assert_non_null(p);
    assert_int_equal(pt_device_builtin("raspberry-pi-4b", &dev, &d), PT_OK);
    assert_int_equal(pt_edge_type_builtin(&dev, &t, &d), PT_OK);
    th_near_rel(t.net_s_per_byte, per_byte, 1e-12, "Pi 4 network CPU per byte");
    th_near_rel(t.net_s_per_byte, 6.060e-9, 1e-3, "6.06 ns a byte");
    assert_int_equal(t.net_unit, 0);
    assert_int_equal(pt_device_builtin("h100-sxm-80g", &dev, &d), PT_OK);
    assert_int_equal(pt_edge_type_builtin(&dev, &t, &d), PT_OK);
    assert_true(t.net_unit == -1 && t.net_s_per_byte == 0);

    if (pt_graph_parse(two_convs, "two-convs.json", &g, &d) != PT_OK) fail_msg("parse: %s", d.msg);
    assert_int_equal(pt_edge_cluster_parse(two, "two.json", &c, &d), PT_OK);
    assert_int_equal(pt_pipe_plan_graph(&g, &c, &o, p, &d), PT_OK);
    n = bytes * per_byte;
    x = 150e-6 + bytes / (0.125e9 * 0.94);
    th_near_rel(n, 4.865e-3, 1e-3, "CPU on the cut");
    th_near_rel(x, 6.982e-3, 1e-3, "the transfer");
    for (int k = 0; k < 2; k++) {
        const pt_edge_type *pt4 = &c.type[0];
        double c4 = pt_edge_layer_s(&g.l[1 + k], pt4, 0, PT_EDGE_FP32, 1, 4, 1, 1.0, c.chip_Bps, c.chip_latency_s);
        double c3 = pt_edge_layer_s(&g.l[1 + k], pt4, 0, PT_EDGE_FP32, 1, 3, 1, 1.0, c.chip_Bps, c.chip_latency_s);
        busy[k] = fmin(c4 + n, fmax(c3, n));
    }
    assert_int_equal(p->nstages, 2);
    assert_int_equal(p->stage[0].last, 2); /* input and a | b */
    th_near_rel(p->stage[0].net_cpu_s, n, 1e-12, "stage a's network CPU");
    th_near_rel(p->stage[1].net_cpu_s, n, 1e-12, "stage b's network CPU");
    th_near_rel(p->stage[0].compute_s, busy[0], 1e-9, "stage a busy");
    th_near_rel(p->stage[1].compute_s, busy[1], 1e-9, "stage b busy");
    th_near_rel(p->stage[0].transfer_s, x, 1e-9, "transfer");
    th_near_rel(p->samples_per_s, 1.0 / fmax(fmax(busy[0], busy[1]), x), 1e-9, "throughput = hand formula");
    /* the CPU work matters: the stage is slower than its computation alone */
    assert_true(p->stage[0].compute_s > pt_edge_layer_s(&g.l[1], &c.type[0], 0, PT_EDGE_FP32, 1, 4, 1, 1.0,
                                                         c.chip_Bps, c.chip_latency_s));
    pt_graph_free(&g);
    free(p);
}

/* HALP (Dong et al., arXiv 2211.13778): three Raspberry Pi 4 boards run
 * VGG-16 1.7x faster than one (latency of one image against stand-alone
 * computation; segment-based partition, a host and secondary devices, the
 * partitioning ratio chosen to overlap communication with computation).
 * Taken: the boards, VGG-16 at 224x224 in fp32, batch 1, one image's
 * latency, host and secondaries.  Assumed: gigabit Ethernet (0.94 of
 * 1 Gb/s, 150 us), per-layer scatter and gather through the host (as MoDNN,
 * which HALP compares with), the CPU efficiency of edge.h, the network
 * stack's CPU cost (edge.h: 6.06 ns a byte on a Pi 4).  Measured on this
 * model: 2.14x with every board exchanging every layer's segments with the
 * others, perfectly overlapped (before); 2.05x with the host's link carrying
 * each layer's scatter and gather; 1.65x once the stack's CPU work shares
 * the host's cores (it leaves one core to it: 3 threads).  The check: within
 * 10% of 1.7x; throughput, where replicas need no exchange, the full 3x. */
static void test_halp(void **state)
{
    pt_graph g;
    pt_edge_cluster c;
    pt_diag d;
    pt_pipe_plan *p = malloc(sizeof *p);
    pt_pipe_opts o = {1, PT_EDGE_FP32, PT_PIPE_LATENCY, 0, 0};
    (void)state;
    assert_non_null(p);
    assert_int_equal(pt_graph_builtin("vgg-16", &g, &d), PT_OK);
    assert_int_equal(pt_edge_cluster_load("rpi4-gbe", &c, &d), PT_OK);
    assert_int_equal(pt_pipe_plan_graph(&g, &c, &o, p, &d), PT_OK);
    assert_int_equal(p->stage[0].width, 3);
    if (!(p->speedup > 1.7 / 1.1 && p->speedup < 1.7 * 1.1)) fail_msg("HALP setting: %.3fx", p->speedup);
    o.objective = PT_PIPE_THROUGHPUT;
    assert_int_equal(pt_pipe_plan_graph(&g, &c, &o, p, &d), PT_OK);
    th_near_rel(p->speedup, 3.0, 1e-9, "three replicas");
    /* one pipeline of three stages: below 3x (the layers do not split evenly) */
    o.replicas = 1;
    assert_int_equal(pt_pipe_plan_graph(&g, &c, &o, p, &d), PT_OK);
    assert_int_equal(p->nstages, 3);
    assert_true(p->speedup > 2.0 && p->speedup < 3.0);
    free(p);
    pt_graph_free(&g);
}

/* An event simulation of the plan agrees with its analytic throughput and
 * latency: K batches flow through the stages, each stage computing one batch
 * at a time and sending each output over its link one at a time (the link
 * to the next stage is the stage's own: double buffering, as pipeline.h
 * models); the first batch's arrival is the latency, the spacing of the
 * last batches the bottleneck.  Mixed boards (Pi 4 and Pi 5 pools) and one
 * SoC's mixed units (the phone's CPU clusters, GPU and NPU). */
static void simulate(const pt_pipe_plan *p, int K, double *first_s, double *period_s)
{
    double comp_free[PT_PIPE_MAX_STAGES] = {0}, link_free[PT_PIPE_MAX_STAGES] = {0}, done_prev = 0;
    for (int k = 0; k < K; k++) {
        double t = 0; /* batch k is available at time 0 (a backlog) */
        for (int s = 0; s < p->nstages; s++) {
            double start = fmax(t, comp_free[s]), end = start + p->stage[s].compute_s;
            comp_free[s] = end;
            t = end;
            if (s + 1 < p->nstages) {
                double ss = fmax(t, link_free[s]);
                link_free[s] = ss + p->stage[s].transfer_s;
                t = link_free[s];
            }
        }
        if (k == 0) *first_s = t;
        if (k == K - 1) *period_s = t - done_prev;
        done_prev = t;
    }
}

static void test_simulated(void **state)
{
    const char *mixed = "{\"name\": \"mixed\", \"pools\": [{\"device\": \"raspberry-pi-4b\", \"devices\": 3},"
                        " {\"device\": \"raspberry-pi-5\", \"devices\": 2}], \"levels\": [{\"name\": \"gbe\", "
                        "\"size\": 5, \"bw_GBps\": 0.125, \"latency_us\": 150, \"efficiency\": 0.94}]}";
    struct {
        const char *graph;
        int phone;
        pt_edge_dtype dt;
    } cases[] = {{"vit-large", 0, PT_EDGE_FP32}, {"vgg-16", 0, PT_EDGE_FP32}, {"mobilenet-v2", 1, PT_EDGE_FP16},
                 {"resnet-50", 1, PT_EDGE_INT8}};
    (void)state;
    for (int i = 0; i < 4; i++) {
        pt_graph g;
        pt_edge_cluster c;
        pt_diag d;
        pt_pipe_plan *p = malloc(sizeof *p);
        pt_pipe_opts o = {1, cases[i].dt, PT_PIPE_THROUGHPUT, 1, 0};
        double first = 0, period = 0;
        assert_non_null(p);
        assert_int_equal(pt_graph_builtin(cases[i].graph, &g, &d), PT_OK);
        if (cases[i].phone) {
            assert_int_equal(pt_edge_cluster_load("phones-wifi6", &c, &d), PT_OK);
            assert_int_equal(pt_edge_cluster_resize(&c, 1, &d), PT_OK);
        } else {
            assert_int_equal(pt_edge_cluster_parse(mixed, "mixed.json", &c, &d), PT_OK);
        }
        assert_int_equal(pt_pipe_plan_graph(&g, &c, &o, p, &d), PT_OK);
        assert_true(p->nstages >= 2); /* a real pipeline, not one unit */
        simulate(p, 400, &first, &period);
        th_near_rel(first, p->latency_s, 1e-9, "simulated latency");
        th_near_rel(period, p->bottleneck_s, 1e-6, "simulated bottleneck");
        free(p);
        pt_graph_free(&g);
    }
}

/* Refusals: a batch out of range, replicas with the latency objective, a
 * dtype no unit computes in. */
static void test_refusals(void **state)
{
    pt_graph g;
    pt_edge_cluster c;
    pt_diag d;
    pt_pipe_plan *p = malloc(sizeof *p);
    pt_pipe_opts o = {0, PT_EDGE_FP32, PT_PIPE_THROUGHPUT, 0, 0};
    (void)state;
    assert_non_null(p);
    assert_int_equal(pt_graph_builtin("mobilenet-v2", &g, &d), PT_OK);
    assert_int_equal(pt_edge_cluster_load("rpi4-gbe", &c, &d), PT_OK);
    assert_int_equal(pt_pipe_plan_graph(&g, &c, &o, p, &d), PT_EINPUT);
    assert_non_null(strstr(d.msg, "--batch"));
    o.batch = 1, o.objective = PT_PIPE_LATENCY, o.replicas = 2;
    assert_int_equal(pt_pipe_plan_graph(&g, &c, &o, p, &d), PT_EINPUT);
    assert_non_null(strstr(d.msg, "latency"));
    o.objective = PT_PIPE_THROUGHPUT, o.replicas = 0, o.kinds = 1u << PT_UNIT_NPU;
    assert_int_equal(pt_pipe_plan_graph(&g, &c, &o, p, &d), PT_EINPUT);
    assert_non_null(strstr(d.msg, "fp32"));
    free(p);
    pt_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dp_brute_force), cmocka_unit_test(test_dp_hand), cmocka_unit_test(test_units),
        cmocka_unit_test(test_npu_fallback),   cmocka_unit_test(test_threads), cmocka_unit_test(test_pools),
        cmocka_unit_test(test_plans),          cmocka_unit_test(test_net_cpu), cmocka_unit_test(test_halp),
        cmocka_unit_test(test_simulated),      cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
