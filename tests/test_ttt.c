/*
 * test_ttt.c -- layer graphs (src/workload/graph.c) and time to train
 * (src/goal/ttt.c).
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
#include "base/base.h"
#include "goal/ttt.h"
#include "cost/graph_cost.h"
#include "workload/graph.h"

static void near_rel(double got, double want, double rel, const char *what)
{
    if (fabs(got - want) > rel * fabs(want)) fail_msg("%s: got %.10g, want %.10g", what, got, want);
}

/* Parameter counts of the built-in CNNs against torchvision's models
 * (resnet50: 25,557,032; inception_v3 without the auxiliary head:
 * 23,834,568), and ResNet-50's 4.09 G multiply-adds per 224x224 image. */
static void test_builtin_graphs(void **state)
{
    pt_graph g;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_graph_builtin("resnet-50", &g, &d), PT_OK);
    assert_true(pt_graph_params(&g) == 25557032.0);
    near_rel(pt_graph_flops(&g) / 2.0, 4.09e9, 0.01, "resnet-50 MACs");
    pt_graph_free(&g);
    assert_int_equal(pt_graph_builtin("inception-v3", &g, &d), PT_OK);
    assert_true(pt_graph_params(&g) == 23834568.0);
    near_rel(pt_graph_flops(&g) / 2.0, 5.71e9, 0.02, "inception-v3 MACs");
    pt_graph_free(&g);
    /* GNMT with the shared embedding: MLPerf v0.6 logs 160,671,297 (our
     * attention has two more D x D projections, +1.3%); transformer-big with
     * --share-all-embeddings: fairseq logs 210,808,832. */
    assert_int_equal(pt_graph_builtin("gnmt", &g, &d), PT_OK);
    near_rel(pt_graph_params(&g), 160671297.0, 0.015, "gnmt params");
    pt_graph_free(&g);
    assert_int_equal(pt_graph_builtin("transformer-big", &g, &d), PT_OK);
    near_rel(pt_graph_params(&g), 210808832.0, 0.001, "transformer-big params");
    pt_graph_free(&g);
    /* BigLSTM, LSTM-8192-1024 (Jozefowicz et al. 2016): ~1.8 G parameters */
    assert_int_equal(pt_graph_builtin("biglstm", &g, &d), PT_OK);
    near_rel(pt_graph_params(&g), 1.8e9, 0.02, "biglstm params");
    pt_graph_free(&g);
    for (int i = 0; i < pt_graph_catalog_count(); i++) {
        assert_int_equal(pt_graph_builtin(pt_graph_catalog_name(i), &g, &d), PT_OK);
        assert_true(g.n > 3 && g.samples_per_epoch > 0);
        pt_graph_free(&g);
    }
}

/* A small graph file, by hand: conv 3->16 3x3 on 32x32 with padding keeps
 * 32x32: 16*3*9 = 432 weights + 32 batch-norm; conv 16->16: 2304 + 32;
 * fc 16->10: 170; total 2970.  MACs: 32*32*(432 + 2304) + 160 = 2,801,824. */
static void test_graph_file(void **state)
{
    pt_graph g;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_graph_load("tests/data/graph/small_cnn.json", &g, &d), PT_OK);
    assert_true(pt_graph_params(&g) == 2970.0);
    assert_true(pt_graph_flops(&g) == 2.0 * 2801824.0);
    assert_int_equal(g.l[1].h, 32);
    assert_int_equal(g.l[4].c, 16);
    pt_graph_free(&g);
}

static void expect_error(const char *text, const char *field, const char *msg_part)
{
    pt_graph g;
    pt_diag d;
    char buf[1024];
    assert_int_equal(pt_graph_parse(text, "g.json", &g, &d), PT_EINPUT);
    pt_diag_format(&d, buf, sizeof buf);
    if (strcmp(d.field, field) || !strstr(buf, msg_part))
        fail_msg("field \"%s\" (want \"%s\"), message \"%s\" lacks \"%s\"", d.field, field, buf, msg_part);
}

static void test_graph_errors(void **state)
{
    (void)state;
    expect_error("{\"name\": \"x\", \"layers\": [{\"name\": \"i\", \"op\": \"input\", \"shape\": [3, 8, 8]},"
                 " {\"name\": \"c\", \"op\": \"convolution\"}]}",
                 "layers[1].op", "g.json:1:");
    expect_error("{\"name\": \"x\", \"layers\": [{\"name\": \"i\", \"op\": \"input\", \"shape\": [3, 8, 8]},"
                 " {\"name\": \"c\", \"op\": \"conv\", \"out_channels\": 4, \"kernel\": 9}]}",
                 "layers[1].kernel", "kernel larger than its input");
    expect_error("{\"name\": \"x\", \"layers\": [{\"name\": \"i\", \"op\": \"input\", \"shape\": [3, 8, 8]},"
                 " {\"name\": \"a\", \"op\": \"add\", \"in\": [\"i\", \"nope\"]}]}",
                 "layers[1].in", "input \"nope\" is not an earlier layer");
    expect_error("{\"name\": \"x\", \"layers\": [{\"name\": \"i\", \"op\": \"input\", \"shape\": [3, 8, 8],"
                 " \"colour\": 1}]}",
                 "layers[0].colour", "unknown key");
    expect_error("{\"name\": \"x\", \"layers\": []}", "layers", "non-empty array");
    expect_error("{\"name\": \"x\", \"layers\": [{\"name\": \"i\", \"op\": \"input\", \"shape\": [16]},"
                 " {\"name\": \"l\", \"op\": \"lstm\", \"hidden\": 8}]}",
                 "layers[1].in", "lstm l needs a sequence of features");
}

/* McCandlish et al.: E(B) = E_min (1 + B/B_noise).  Exact synthetic points
 * give the constants back; points with +-2% noise give them within 10%. */
static void test_statef_fit(void **state)
{
    double B[8], E[8];
    pt_statef s;
    pt_diag d;
    (void)state;
    for (int i = 0; i < 8; i++) {
        B[i] = 1024.0 * (1 << i);
        E[i] = 60.0 * (1.0 + B[i] / 50000.0);
    }
    assert_int_equal(pt_statef_fit(B, E, 8, &s, &d), PT_OK);
    near_rel(s.e_min, 60.0, 1e-9, "e_min");
    near_rel(s.b_noise, 50000.0, 1e-9, "b_noise");
    for (int i = 0; i < 8; i++) E[i] *= 1.0 + ((i % 2) ? 0.02 : -0.02);
    assert_int_equal(pt_statef_fit(B, E, 8, &s, &d), PT_OK);
    near_rel(s.b_noise, 50000.0, 0.10, "b_noise with noise");
    assert_true(s.b_noise_se > 0 && s.b_noise_se < 0.5 * s.b_noise);
    assert_int_equal(pt_statef_fit(B, E, 1, &s, &d), PT_EINPUT);
}

/* Time to train = epochs(B) * samples per epoch / B * step time: with
 * E_min 60, B_noise 50000 and B = 50000 the model needs 120 epochs; ResNet-50
 * on 16 GPUs at 64 images each (B = 1024, 61.2 epochs). */
static void test_time_to_train(void **state)
{
    pt_statef s = {60.0, 50000.0, 0, 0, 0};
    pt_graph g;
    pt_cluster c;
    pt_graph_cost k, k2;
    pt_diag d;
    double epochs, ttt;
    (void)state;
    near_rel(pt_statef_epochs(&s, 50000.0), 120.0, 1e-12, "epochs at B_noise");
    assert_int_equal(pt_graph_builtin("resnet-50", &g, &d), PT_OK);
    assert_int_equal(pt_cluster_builtin("dgx-1-v100", &c, &d), PT_OK);
    assert_int_equal(pt_cluster_resize(&c, 16, &d), PT_OK);
    pt_graph_step(&g, &c, PT_FP16, 64, &k);
    epochs = pt_statef_epochs(&s, 1024.0);
    near_rel(epochs, 61.2288, 1e-9, "epochs at 1024");
    ttt = epochs * g.samples_per_epoch / 1024.0 * k.step_time_s;
    near_rel(ttt, epochs * 1281167.0 / 1024.0 * k.step_time_s, 1e-12, "time to train");
    near_rel(k.step_time_s, k.compute_s + k.dp_comm_s + k.optimizer_s, 1e-12, "step parts");
    near_rel(k.samples_per_s, 1024.0 / k.step_time_s, 1e-12, "throughput");
    /* twice the per-device batch: no faster per sample */
    pt_graph_step(&g, &c, PT_FP16, 128, &k2);
    assert_true(k2.step_time_s > k.step_time_s);
    pt_graph_free(&g);
}

/* Every built-in graph has statistical-efficiency constants; recipes are
 * told apart by target and optimizer (ResNet-50 at B = 16384: LARS to 75.9%
 * needs 57.03 (1 + 16384/108094) = 65.7 epochs, momentum SGD to 74.9%
 * 58.75 (1 + 16384/42170) = 81.6, as MLPerf v0.5's 82). */
static void test_statef_recipes(void **state)
{
    pt_statef lars, sgd, def, s;
    (void)state;
    for (int i = 0; i < pt_graph_catalog_count(); i++) {
        assert_int_equal(pt_statef_builtin(pt_graph_catalog_name(i), &s), 1);
        assert_true(s.e_min > 0 && s.b_noise > 0);
    }
    assert_int_equal(pt_statef_builtin("no-such-graph", &s), 0);
    assert_int_equal(pt_statef_builtin_for("resnet-50", "top-1 75.9%", "lars", NULL, &lars), 1);
    assert_int_equal(pt_statef_builtin_for("resnet-50", "top-1 74.9%", "sgd", NULL, &sgd), 1);
    assert_int_equal(pt_statef_builtin("resnet-50", &def), 1);
    assert_true(def.e_min == lars.e_min && def.b_noise == lars.b_noise);
    assert_true(sgd.b_noise < lars.b_noise);
    assert_true(pt_statef_epochs(&sgd, 16384.0) > pt_statef_epochs(&lars, 16384.0) + 5.0);
    /* an unknown target falls back to the default recipe */
    assert_int_equal(pt_statef_builtin_for("resnet-50", "top-1 80%", "", NULL, &s), 1);
    assert_true(s.e_min == def.e_min);
    /* GNMT: the lower BLEU target needs fewer epochs at the same batch */
    assert_int_equal(pt_statef_builtin_for("gnmt", "BLEU 21.8", "adam", NULL, &sgd), 1);
    assert_int_equal(pt_statef_builtin_for("gnmt", "BLEU 24.0", "adam", NULL, &lars), 1);
    assert_true(pt_statef_epochs(&sgd, 1024.0) < pt_statef_epochs(&lars, 1024.0));
    /* Transformer: the v0.5 recipe loses efficiency at a smaller batch;
     * the default is the latest round's */
    assert_int_equal(pt_statef_builtin_for("transformer-big", "BLEU 25.0", "adam", "v0.5", &sgd), 1);
    assert_int_equal(pt_statef_builtin_for("transformer-big", "BLEU 25.0", "adam", "v0.6", &lars), 1);
    assert_int_equal(pt_statef_builtin("transformer-big", &def), 1);
    assert_true(def.b_noise == lars.b_noise && sgd.b_noise < lars.b_noise);
    near_rel(pt_statef_epochs(&sgd, 5208.0), 5.0, 1e-3, "v0.5 recipe at its fitted line");
}

/* Evaluation time, by hand: one linear layer 1024 -> 1024 on a device of
 * 100 TFLOPS at GEMM efficiency 0.5 (no size ramp), 1000 GB/s, no launch
 * cost.  1000 eval samples on 10 devices at 1 pass: 100 each, a GEMM of
 * 2 x 100 x 1024 x 1024 = 209.7 MFLOP = 4.194 us (its 2.5 MB move in 2.5
 * us, under it); plus 0.5 s fixed.  With 4 passes (beam 4): 16.78 us.
 * Evaluations: every 4 epochs over 82 epochs is 21 (the last at the end). */
static void test_eval_time(void **state)
{
    const char *text = "{\"name\": \"one\", \"layers\": [{\"name\": \"x\", \"op\": \"input\","
                       " \"shape\": [1024, 1, 1]}, {\"name\": \"fc\", \"op\": \"linear\", \"out\": 1024}]}";
    pt_graph g;
    pt_cluster c;
    pt_diag d;
    pt_ttt_eval e = {1000.0, 4.0, 1.0, 0.5};
    double gemm = 2.0 * 100 * 1024 * 1024 / (100e12 * 0.5);
    (void)state;
    memset(&c, 0, sizeof c);
    c.dev.tflops_fp16 = c.dev.tflops_bf16 = 100.0;
    c.dev.memory_bw_GBps = 1000.0;
    c.dev.gemm_eff = 0.5;
    c.dev.mem_eff = 1.0;
    c.devices = 10;
    c.nlevels = 1;
    c.level[0].size = 10;
    c.level[0].bw_GBps = 100.0;
    c.level[0].efficiency = 1.0;
    assert_int_equal(pt_graph_parse(text, "one.json", &g, &d), PT_OK);
    near_rel(pt_ttt_eval_s(&g, &c, PT_FP16, &e), 0.5 + gemm, 1e-9, "eval, 1 pass");
    e.passes = 4.0;
    near_rel(pt_ttt_eval_s(&g, &c, PT_FP16, &e) - 0.5, 4.0 * gemm, 1e-9, "eval, beam 4");
    assert_int_equal(pt_ttt_evals(&e, 82.0), 21);
    assert_int_equal(pt_ttt_evals(&e, 80.0), 20);
    e.every_epochs = 1.0;
    assert_int_equal(pt_ttt_evals(&e, 3.0), 3);
    assert_int_equal(pt_ttt_evals(&e, 0.0), 0);
    /* the MLPerf evaluations are built in for the three MLPerf graphs */
    assert_int_equal(pt_ttt_eval_builtin("resnet-50", &e), 1);
    assert_true(e.samples == 50000.0 && e.every_epochs == 4.0);
    assert_int_equal(pt_ttt_eval_builtin("transformer-big", &e), 1);
    assert_true(e.passes == 4.0 && e.every_epochs == 1.0);
    assert_int_equal(pt_ttt_eval_builtin("biglstm", &e), 0);
    pt_graph_free(&g);
}

/* The older gradient exchanges (pt_dp_impl): a flat ring over 640 devices
 * adds 2 x 639 hops of the IB latency (6 us) per call; a Horovod cycle of
 * 5 ms cuts the backward into ceil(bwd / 5 ms) calls; an all-reduce after
 * the backward hides nothing.  All zero is pt_graph_step. */
static void test_dp_impl(void **state)
{
    pt_graph g;
    pt_cluster c;
    pt_graph_cost base, k, flat, hvd;
    pt_dp_impl impl;
    pt_diag d;
    double bwd;
    (void)state;
    assert_int_equal(pt_graph_builtin("resnet-50", &g, &d), PT_OK);
    assert_int_equal(pt_cluster_builtin("dgx-1-v100", &c, &d), PT_OK);
    assert_int_equal(pt_cluster_resize(&c, 640, &d), PT_OK);
    memset(&impl, 0, sizeof impl);
    pt_graph_step(&g, &c, PT_FP16, 26, &base);
    pt_graph_step_dp(&g, &c, PT_FP16, 26, &impl, &k);
    near_rel(k.step_time_s, base.step_time_s, 1e-12, "zero impl = default");
    bwd = base.compute_s * 2.0 / 3.0;
    impl.cycle_s = 0.005;
    pt_graph_step_dp(&g, &c, PT_FP16, 26, &impl, &hvd);
    impl.flat_ring = 1;
    pt_graph_step_dp(&g, &c, PT_FP16, 26, &impl, &flat);
    /* calls = ceil(bwd / 5 ms); the flat ring adds calls x 2 x 639 x 6 us
     * to the all-reduce, of which the backward hides all but a 1/calls
     * share or all but bwd (1 - 1/calls) */
    {
        double calls = ceil(bwd / 0.005), extra = calls * 2.0 * 639.0 * 6e-6;
        assert_true(flat.dp_comm_s >= hvd.dp_comm_s + extra / calls - 1e-12);
        assert_true(flat.dp_comm_s <= hvd.dp_comm_s + extra + 1e-12);
    }
    memset(&impl, 0, sizeof impl);
    impl.after_backward = 1;
    pt_graph_step_dp(&g, &c, PT_FP16, 26, &impl, &k);
    assert_true(k.dp_comm_s > base.dp_comm_s);
    near_rel(k.dp_comm_s, pt_coll_time(&c, PT_ALLREDUCE, (int64_t)(2.0 * pt_graph_params(&g)), 640, 1), 1e-12,
             "after the backward: the whole all-reduce");
    pt_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_graphs),
        cmocka_unit_test(test_graph_file),
        cmocka_unit_test(test_graph_errors),
        cmocka_unit_test(test_statef_fit),
        cmocka_unit_test(test_time_to_train),
        cmocka_unit_test(test_statef_recipes),
        cmocka_unit_test(test_eval_time),
        cmocka_unit_test(test_dp_impl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
