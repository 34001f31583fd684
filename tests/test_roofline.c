/*
 * test_roofline.c -- the one roofline (src/cost/roofline.c) and the two cost
 * models that share it: the transformer's layers (src/cost/cost.c) and a
 * layer graph's (src/cost/graph_cost.c).  Every expected number is a hand
 * derivation on a made-up device whose constants make the arithmetic round:
 * 100 TFLOPS bf16 (200 fp8), 1000 GB/s, GEMM efficiency 0.5 reached half-way
 * at 1 GFLOP, memory efficiency 0.5, attention efficiency 0.5, 10 us per
 * kernel launch.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "partita.h"
#include "cost/graph_cost.h"
#include "cost/roofline.h"
#include "workload/graph.h"

static void near_rel(double got, double want, double rel, const char *what)
{
    if (fabs(got - want) > rel * fabs(want)) fail_msg("%s: got %.10g, want %.10g", what, got, want);
}

static pt_device device(void)
{
    pt_device dev;
    memset(&dev, 0, sizeof dev);
    strcpy(dev.name, "round");
    dev.memory_GiB = 80.0;
    dev.memory_bw_GBps = 1000.0;
    dev.tflops_bf16 = dev.tflops_fp16 = 100.0;
    dev.tflops_fp8 = 200.0;
    dev.host_bw_GBps = 25.0;
    dev.gemm_eff = 0.5;
    dev.gemm_half_GFLOP = 1.0;
    dev.attn_eff = 0.5;
    dev.mem_eff = 0.5;
    dev.kernel_us = 10.0;
    return dev;
}

/* GEMM: 1000 x 500 x 1000 is 1 GFLOP, at the ramp's half-way point: 0.25 of
 * peak, 1e9 / 25e12 = 40 us (its 4 MB at 500 GB/s take 8 us, under it).
 * Two such halves (1000 x 250 x 1000) in one batched kernel climb the ramp
 * together: 40 us again; as two separate kernels each reaches 0.5 x 0.5/1.5
 * = 1/6 of peak, 30 us each.  A GEMV-shaped 1e6 x 1 x 1 with no ramp is
 * memory-bound: 2 B x (2e6 + 1) elements at 500 GB/s = 8 us. */
static void test_gemm(void **state)
{
    pt_device dev = device();
    pt_roofline r;
    (void)state;
    pt_roofline_init(&dev, PT_BF16, &r);
    near_rel(r.peak, 100e12, 1e-15, "peak");
    near_rel(r.mem_bw, 500e9, 1e-15, "achieved bandwidth");
    near_rel(pt_roofline_gemm_s(&r, r.peak, 1000, 500, 1000, 1, 2.0), 40e-6, 1e-12, "1 GFLOP GEMM");
    near_rel(pt_roofline_gemm_s(&r, r.peak, 1000, 250, 1000, 2, 2.0), 40e-6, 1e-12, "batched halves");
    near_rel(2.0 * pt_roofline_gemm_s(&r, r.peak, 1000, 250, 1000, 1, 2.0), 60e-6, 1e-12, "separate halves");
    r.gemm_half = 0;
    near_rel(pt_roofline_gemm_s(&r, r.peak, 1e6, 1, 1, 1, 2.0), 2.0 * (2e6 + 1.0) / 500e9, 1e-12,
             "memory-bound GEMV");
}

/* Element-wise: 1 GB at 500 GB/s = 2 ms.  Flash attention at 512 tokens
 * runs at 0.5 x 512/1024 = 0.25 of the 16-bit peak: 1 TFLOP in 40 ms; an fp8
 * job's GEMMs use the fp8 peak, its attention still bf16's.  Launches: 3
 * kernels take 30 us, so 1 us of work becomes 30 us and 1 ms stays 1 ms. */
static void test_ew_flash_launch(void **state)
{
    pt_device dev = device();
    pt_roofline r;
    (void)state;
    pt_roofline_init(&dev, PT_BF16, &r);
    near_rel(pt_roofline_ew_s(&r, 1e9), 2e-3, 1e-12, "element-wise");
    near_rel(pt_roofline_flash_s(&r, 1e12, 512.0), 0.04, 1e-12, "flash at 512");
    near_rel(pt_roofline_launch_s(&r, 3.0), 30e-6, 1e-12, "3 launches");
    near_rel(pt_roofline_floor_s(&r, 1e-6, 3.0), 30e-6, 1e-12, "launch-bound");
    near_rel(pt_roofline_floor_s(&r, 1e-3, 3.0), 1e-3, 1e-12, "work-bound");
    pt_roofline_init(&dev, PT_FP8, &r);
    near_rel(r.peak, 200e12, 1e-15, "fp8 GEMM peak");
    near_rel(pt_roofline_flash_s(&r, 1e12, 512.0), 0.04, 1e-12, "fp8 job's attention in bf16");
}

/* Both cost models stop at the same launch floor.  With 10 ms per launch
 * everything is launch-bound: a transformer layer (flash attention, tp = 1,
 * bf16) launches 4 GEMMs + 1 attention kernel + 7 element-wise kernels = 12
 * forward (0.12 s) and twice that backward; a graph's linear layer launches
 * its GEMM plus one (0.02 s); an LSTM of 20 steps launches 20 recurrent GEMM
 * steps, its input GEMM and one more (0.22 s). */
static void test_shared_launch_floor(void **state)
{
    const char *text = "{\"name\": \"two\", \"layers\": [{\"name\": \"x\", \"op\": \"input\", \"shape\": [20]},"
                       " {\"name\": \"e\", \"op\": \"embedding\", \"vocab\": 100, \"dim\": 64},"
                       " {\"name\": \"l\", \"op\": \"lstm\", \"hidden\": 64},"
                       " {\"name\": \"fc\", \"op\": \"linear\", \"out\": 10}]}";
    pt_model m;
    pt_cluster c;
    pt_job job;
    pt_strategy st;
    pt_graph g;
    pt_diag d;
    unsigned set;
    double fw, bw;
    (void)state;
    assert_int_equal(pt_model_builtin("gpt-1.7b", &m, &d), PT_OK);
    assert_int_equal(pt_cluster_builtin("dgx-h100", &c, &d), PT_OK);
    assert_int_equal(pt_cluster_resize(&c, 8, &d), PT_OK);
    c.dev = device();
    c.dev.kernel_us = 10000.0;
    memset(&job, 0, sizeof job);
    job.seq_len = 1024;
    job.global_batch = 8;
    job.dtype = PT_BF16;
    job.flash_attention = 1;
    assert_int_equal(pt_strategy_parse("tp=1 pp=1 mbs=1", &st, &set, &d), PT_OK);
    if (pt_strategy_resolve(&st, set, &m, &c, &job, &d) != PT_OK) fail_msg("strategy: %s", d.msg);
    pt_cost_layer_time(&m, &c, &job, &st, &fw, &bw);
    near_rel(fw, 0.12, 1e-12, "transformer layer forward");
    near_rel(bw, 0.24, 1e-12, "transformer layer backward");

    if (pt_graph_parse(text, "two.json", &g, &d) != PT_OK) fail_msg("two.json: %s: %s", d.field, d.msg);
    assert_int_equal(g.l[3].op, PT_G_LINEAR);
    near_rel(pt_glayer_fwd_s(&g.l[3], &c.dev, PT_BF16, 4.0), 0.02, 1e-12, "graph linear layer");
    assert_int_equal(g.l[2].op, PT_G_LSTM);
    near_rel(pt_glayer_fwd_s(&g.l[2], &c.dev, PT_BF16, 4.0), 0.01 * (2.0 + 20.0), 1e-12, "graph LSTM layer");
    pt_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_ew_flash_launch),
        cmocka_unit_test(test_shared_launch_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
