/*
 * test_gpus.c -- the GPU-name table of runs CSVs (data/gpus.json, read by
 * src/hw/gpus.c): what each name of the validation CSVs means, and that a
 * malformed table is refused with its file, line, field and value.
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
#include "hw/gpus.h"

static void expect(const char *table, const char *gpu, const char *system, const char *cluster,
                   const char *device, double clock)
{
    pt_gpu_match m;
    pt_diag d;
    int found = -1;
    if (pt_gpu_lookup(table, gpu, system, &m, &found, &d) != PT_OK) fail_msg("%s: %s", gpu, d.msg);
    if (!cluster) {
        if (found) fail_msg("%s / %s: matched rule %d (%s), want none", gpu, system ? system : "-", m.rule,
                            m.cluster);
        return;
    }
    if (!found) fail_msg("%s / %s: no rule matched, want %s", gpu, system ? system : "-", cluster);
    if (strcmp(m.cluster, cluster) || strcmp(m.device, device) || m.clock_scale != clock)
        fail_msg("%s: got %s/%s x%g, want %s/%s x%g", gpu, m.cluster, m.device, m.clock_scale, cluster, device,
                 clock);
}

/* The names in the validation CSVs (data/validation), as validate reads them:
 * A100 (40 GB when the name says 40) and V100 rows on dgx-a100-80g's nodes,
 * torchtitan's 96 GB 500 W H100s on Meta's Grand Teton servers, other H100
 * rows on dgx-h100's, and every H200, B200, B300, GB200 and GB300 name of
 * published_runs.csv on its own catalog cluster (GB200 and GB300 before B200
 * and B300, whose names they contain; GH200 before H200).  MLPerf V100
 * systems: DGX-2 and DGX-2H by their system column, the 2H's 450 W parts
 * 5% faster, everything else a DGX-1; TPUs are not predicted. */
static void test_builtin_names(void **state)
{
    (void)state;
    expect("training_runs", "A100-SXM4-80GB", NULL, "dgx-a100-80g", "a100-sxm4-80g", 1.0);
    expect("training_runs", "A100-80GB (1600Gbps RoCE)", NULL, "dgx-a100-80g", "a100-sxm4-80g", 1.0);
    expect("training_runs", "A100 (single node)", NULL, "dgx-a100-80g", "a100-sxm4-80g", 1.0);
    expect("training_runs", "a100-sxm4-40gb", NULL, "dgx-a100-80g", "a100-sxm4-40g", 1.0);
    expect("training_runs", "H100-SXM-HBM2e-96GB-500W", NULL, "grand-teton-h100", "", 1.0);
    expect("training_runs", "H100-SXM5-80GB", NULL, "dgx-h100", "h100-sxm-80g", 1.0);
    expect("training_runs", "H100-80GB", NULL, "dgx-h100", "h100-sxm-80g", 1.0);
    expect("training_runs", "H100", NULL, "dgx-h100", "h100-sxm-80g", 1.0);
    expect("training_runs", "Tesla V100-SXM2-16GB", NULL, "dgx-a100-80g", "v100-sxm2-32g", 1.0);
    expect("training_runs", "H200-SXM-141GB", NULL, "dgx-h200", "", 1.0);
    expect("training_runs", "GH200", NULL, "gh200-quad", "", 1.0);
    expect("training_runs", "H800", NULL, "hgx-h800", "", 1.0);
    expect("training_runs", "GB200-NVL72", NULL, "gb200-nvl72", "", 1.0);
    expect("training_runs", "GB300-NVL72", NULL, "gb300-nvl72", "", 1.0);
    expect("training_runs", "B200-SXM-180GB", NULL, "dgx-b200", "", 1.0);
    expect("training_runs", "B200", NULL, "dgx-b200", "", 1.0);
    expect("training_runs", "B300", NULL, "dgx-b300", "", 1.0);
    expect("training_runs", "MI300X", NULL, NULL, NULL, 0);
    expect("time_to_train", "Tesla V100-SXM3-32GB-H", "MLPerf v0.6 NVIDIA dgx2h_n16_ngc19.05_pytorch", "dgx-2-v100",
           "", 1.05);
    expect("time_to_train", "V100-SXM3-32GB", "MLPerf v0.5 nvidia dgx2_ngc18.11_pytorch", "dgx-2-v100", "", 1.0);
    expect("time_to_train", "Tesla V100-SXM2-16GB", "MLPerf v0.6 Fujitsu abci_2048xV100_mxnet", "dgx-1-v100", "",
           1.0);
    expect("time_to_train", "V100-SXM3-32GB-H (450W)", NULL, "dgx-1-v100", "", 1.05);
    expect("time_to_train", "tpu-v3", "MLPerf v0.6 Google tpu-v3-32", NULL, NULL, 0);
}

/* A match's cluster: the catalog cluster, the rule's device in it, the
 * clock scale on every TFLOPS figure (DGX-2H: 1.05 x the catalog V100's). */
static void test_cluster_of_match(void **state)
{
    pt_gpu_match m;
    pt_cluster c, plain;
    pt_diag d;
    int found;
    (void)state;
    assert_int_equal(pt_gpu_lookup("training_runs", "A100-SXM4-40GB", NULL, &m, &found, &d), PT_OK);
    assert_int_equal(pt_gpu_cluster(&m, &c, &d), PT_OK);
    assert_string_equal(c.name, "dgx-a100-80g");
    assert_string_equal(c.dev.name, "a100-sxm4-40g");
    assert_int_equal(pt_gpu_lookup("time_to_train", "V100-SXM3-32GB-H", "dgx2h", &m, &found, &d), PT_OK);
    assert_int_equal(pt_gpu_cluster(&m, &c, &d), PT_OK);
    assert_int_equal(pt_cluster_builtin("dgx-2-v100", &plain, &d), PT_OK);
    assert_string_equal(c.dev.name, plain.dev.name);
    assert_true(c.dev.tflops_fp16 == plain.dev.tflops_fp16 * 1.05);
    assert_true(c.dev.tflops_bf16 == plain.dev.tflops_bf16 * 1.05);
    assert_true(c.dev.memory_bw_GBps == plain.dev.memory_bw_GBps);
    assert_true(c.devices == plain.devices && c.nlevels == plain.nlevels);
}

/* The new generations' names build their catalog cluster and device, and a
 * GB200 job of 128 GPUs (every NeMo 25.04 GB200 row above 72) resizes to two
 * racks of 64, where it once was refused as not whole racks of 72. */
static void test_new_generations(void **state)
{
    static const char *const want[][3] = {
        {"H100-SXM-HBM2e-96GB-500W", "grand-teton-h100", "h100-sxm-96g-500w"},
        {"H200-SXM-141GB", "dgx-h200", "h200-sxm-141g"},
        {"B200", "dgx-b200", "b200-sxm-180g"},
        {"B300", "dgx-b300", "b300-sxm-270g"},
        {"GB200-NVL72", "gb200-nvl72", "gb200"},
        {"GB300-NVL72", "gb300-nvl72", "gb300"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        pt_gpu_match m;
        pt_cluster c;
        pt_diag d;
        int found = 0;
        assert_int_equal(pt_gpu_lookup("training_runs", want[i][0], NULL, &m, &found, &d), PT_OK);
        assert_int_equal(found, 1);
        assert_int_equal(pt_gpu_cluster(&m, &c, &d), PT_OK);
        assert_string_equal(c.name, want[i][1]);
        assert_string_equal(c.dev.name, want[i][2]);
        if (strstr(want[i][0], "NVL72")) {
            assert_int_equal(pt_cluster_resize(&c, 128, &d), PT_OK);
            assert_int_equal(pt_cluster_fill(&c, 0), 64);
        }
    }
}

static void expect_error(const char *text, const char *field, const char *value, int line, const char *msg_part)
{
    pt_gpu_match m;
    pt_diag d;
    int found = -1;
    char buf[1024];
    assert_int_equal(pt_gpu_lookup_text(text, "g.json", "training_runs", "A100", NULL, &m, &found, &d), PT_EINPUT);
    assert_int_equal(found, 0);
    pt_diag_format(&d, buf, sizeof buf);
    if (strcmp(d.file, "g.json") || strcmp(d.field, field) || (value && strcmp(d.value, value)) ||
        d.line != line || !strstr(buf, msg_part))
        fail_msg("want g.json:%d field \"%s\" value \"%s\" and \"%s\"; got %s:%d field \"%s\" value \"%s\": %s", line,
                 field, value ? value : "", msg_part, d.file, d.line, d.field, d.value, buf);
}

/* Every rule is checked, also one after the rule that matches. */
static void test_malformed_table(void **state)
{
    (void)state;
    expect_error("{\"training_runs\": [\n {\"gpu\": [\"A100\"], \"cluster\": \"dgx-a100-80g\", \"colour\": 1}]}",
                 "training_runs[0].colour", "colour", 2, "unknown key");
    expect_error("{\"training_runs\": [\n {\"gpu\": [\"A100\"], \"cluster\": \"dgx-a100-80g\"},\n"
                 " {\"gpu\": [\"H100\"], \"cluster\": \"dgx-h1000\"}]}",
                 "training_runs[1].cluster", "\"dgx-h1000\"", 3, "not a built-in cluster");
    expect_error("{\"training_runs\": [\n {\"gpu\": [\"A100\"], \"cluster\": \"dgx-a100-80g\", \"device\": \"a100\"}]}",
                 "training_runs[0].device", "\"a100\"", 2, "not a built-in device");
    expect_error("{\"training_runs\": [\n {\"gpu\": [], \"cluster\": \"dgx-a100-80g\"}]}", "training_runs[0].gpu",
                 "[]", 2, "non-empty array");
    expect_error("{\"training_runs\": [\n {\"gpu\": [\"A100\", \"\"], \"cluster\": \"dgx-a100-80g\"}]}",
                 "training_runs[0].gpu[1]", "\"\"", 2, "non-empty string");
    expect_error("{\"training_runs\": [\n {\"gpu\": [\"A100\"], \"cluster\": \"dgx-a100-80g\", \"clock_scale\": 0}]}",
                 "training_runs[0].clock_scale", "0", 2, "is not in (0, 10]");
    expect_error("{\"training_runs\": [\n {\"gpu\": [\"A100\"]}]}", "training_runs[0].cluster", NULL, 2,
                 "required key is missing");
    expect_error("{\"time_to_train\": []}", "training_runs", NULL, 1, "array of rules");
    expect_error("{\"training_runs\": [], \"gpus\": 1}", "gpus", "gpus", 1, "unknown key");
    expect_error("{\"training_runs\": [}", "", NULL, 1, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_names),
        cmocka_unit_test(test_cluster_of_match),
        cmocka_unit_test(test_new_generations),
        cmocka_unit_test(test_malformed_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
