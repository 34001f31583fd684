/*
 * test_hw.c -- devices and clusters (src/hw/device.c, src/hw/cluster.c).
 *
 * Checks that every catalog entry loads and that the name tables agree with
 * data/devices.json and data/clusters.json, the A100 80GB datasheet numbers,
 * the SPEC section 2 example, that a wrong value of every key of a cluster
 * file and of an inline device is refused naming that key with a line,
 * unknown keys and syntax errors, and resizing for --gpus.
 */
#include <unistd.h>

#include <jansson.h>

#include "helpers.h"
#include "base/catalog.h"

/* ---- catalogs ---------------------------------------------------------------- */

/* The names of a catalog array in JSON order, checked against the tables. */
static void check_names(const char *text, const char *key, int count, const char *(*name)(int))
{
    json_error_t err;
    json_t *root = json_loads(text, 0, &err), *arr;
    assert_non_null(root);
    arr = json_object_get(root, key);
    assert_true(json_is_array(arr));
    assert_int_equal((int)json_array_size(arr), count);
    for (int i = 0; i < count; i++) {
        json_t *e = json_array_get(arr, (size_t)i);
        assert_string_equal(json_string_value(json_object_get(e, "name")), name(i));
        /* every entry says where its numbers come from */
        assert_true(json_is_string(json_object_get(e, "source")));
    }
    assert_null(name(count));
    assert_null(name(-1));
    json_decref(root);
}

static void test_catalog_tables_match_json(void **state)
{
    (void)state;
    check_names(pt_data_devices_json, "devices", pt_device_catalog_count(),
                pt_device_catalog_name);
    check_names(pt_data_clusters_json, "clusters", pt_cluster_catalog_count(),
                pt_cluster_catalog_name);
}

static void test_spec_catalog_names_present(void **state)
{
    static const char *const devs[] = {
        "v100-sxm2-16g", "v100-sxm2-32g", "v100-sxm3-32g", "a100-sxm4-40g", "a100-sxm4-80g",
        "h100-sxm-80g",  "h800-sxm-80g",  "h200-sxm-141g", "b200-sxm-180g", "gb200",
        "mi300x",        "l4",            "rtx-4090",
        /* issue 15 */
        "h100-sxm-96g-500w", "gh200-96g", "b300-sxm-270g", "gb300", "mi325x", "mi355x", "l40s",
        "rtx-pro-6000-server"};
    static const char *const clus[] = {"dgx-1-v100", "dgx-2-v100", "dgx-a100-40g",
                                       "dgx-a100-80g", "dgx-h100", "dgx-h200",
                                       "dgx-b200",   "gb200-nvl72",
                                       /* issue 15 */
                                       "dgx-b300", "gb300-nvl72", "hgx-h800", "grand-teton-h100",
                                       "gh200-quad", "rtx-pro-server", "l40s-server"};
    pt_device dev;
    pt_cluster c;
    pt_diag d;
    (void)state;
    for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++)
        assert_int_equal(pt_device_builtin(devs[i], &dev, &d), PT_OK);
    for (size_t i = 0; i < sizeof clus / sizeof clus[0]; i++)
        assert_int_equal(pt_cluster_builtin(clus[i], &c, &d), PT_OK);
}

static void test_every_device_loads(void **state)
{
    (void)state;
    for (int i = 0; i < pt_device_catalog_count(); i++) {
        pt_device dev;
        pt_diag d;
        const char *name = pt_device_catalog_name(i);
        pt_status st = pt_device_builtin(name, &dev, &d);
        if (st != PT_OK) fail_msg("%s: %s", name, d.msg);
        assert_string_equal(dev.name, name);
        assert_true(dev.memory_GiB > 0 && dev.memory_bw_GBps > 0 && dev.host_bw_GBps > 0);
        assert_true(dev.tflops_bf16 > 0 && dev.tflops_fp16 >= 0 && dev.tflops_fp8 >= 0);
        assert_true(dev.gemm_eff > 0 && dev.gemm_eff <= 1);
        assert_true(dev.attn_eff > 0 && dev.attn_eff <= 1);
        assert_true(dev.mem_eff > 0 && dev.mem_eff <= 1);
        assert_true(dev.kernel_us >= 0 && dev.gemm_half_GFLOP >= 0);
    }
}

static void test_every_cluster_loads(void **state)
{
    (void)state;
    for (int i = 0; i < pt_cluster_catalog_count(); i++) {
        pt_cluster c;
        pt_diag d;
        const char *name = pt_cluster_catalog_name(i);
        pt_status st = pt_cluster_load(name, &c, &d);
        if (st != PT_OK) fail_msg("%s: %s", name, d.msg);
        assert_string_equal(c.name, name);
        assert_true(c.dev.name[0] != '\0');
        assert_true(c.nlevels >= 2 && c.nlevels <= PT_MAX_LEVELS);
        assert_int_equal(c.level[c.nlevels - 1].size, c.devices);
        for (int j = 0; j < c.nlevels; j++) {
            assert_true(c.level[j].bw_GBps > 0);
            assert_true(c.level[j].efficiency > 0 && c.level[j].efficiency <= 1);
            assert_true(c.level[j].latency_us >= 0);
            if (j > 0) assert_int_equal(c.level[j].size % c.level[j - 1].size, 0);
        }
        assert_true(c.price_per_device_hour > 0);
        assert_true(c.mtbf_device_hours > 0);
        if (c.npools > 1) { /* pools fix the size: only their sum is a valid --gpus */
            int64_t sum = 0;
            for (int k = 0; k < c.npools; k++) sum += c.pool[k].devices;
            assert_int_equal(sum, c.devices);
            assert_int_equal(pt_cluster_resize(&c, c.devices, &d), PT_OK);
            assert_int_equal(pt_cluster_resize(&c, 2 * c.level[0].size, &d), PT_EINPUT);
            continue;
        }
        /* two nodes of it is always a valid --gpus */
        assert_int_equal(pt_cluster_resize(&c, 2 * c.level[0].size, &d), PT_OK);
        assert_int_equal(c.devices, 2 * c.level[0].size);
    }
}

/* A100 SXM4 80GB datasheet: 312 bf16/fp16, 156 tf32, 19.5 fp32, 2039 GB/s. */
static void test_a100_80g(void **state)
{
    pt_device dev;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_device_builtin("a100-sxm4-80g", &dev, &d), PT_OK);
    assert_float_equal(dev.memory_GiB, 80, 1e-9);
    assert_float_equal(dev.memory_bw_GBps, 2039, 1e-9);
    assert_float_equal(dev.tflops_bf16, 312, 1e-9);
    assert_float_equal(dev.tflops_fp16, 312, 1e-9);
    assert_float_equal(dev.tflops_fp8, 0, 1e-9);
    assert_float_equal(dev.tflops_tf32, 156, 1e-9);
    assert_float_equal(dev.tflops_fp32, 19.5, 1e-9);
    assert_float_equal(dev.host_bw_GBps, 25, 1e-9);
    /* no fp8 on A100: falls back to bf16 */
    assert_float_equal(pt_device_tflops(&dev, PT_FP8), 312, 1e-9);
    assert_float_equal(pt_device_tflops(&dev, PT_BF16), 312, 1e-9);
}

/* The devices issue 15 adds, against their datasheets (per GPU, dense):
 * GB300 NVL72 sheet per 72 GPUs: 180 PFLOPS bf16, 360 fp8, 1080 fp4 -> 2500,
 * 5000, 15000; HGX B300: 108 PFLOPS fp4 per 8 -> 13500, bf16/fp8 as B200;
 * MI355X: 2.5166 / 5.0332 / 10.0663 PFLOPS, 288 GB at 8 TB/s; MI325X: the
 * MI300X's 1307.4 with 256 GB at 6 TB/s; L40S: 362.05 bf16 (733 sparse), 733
 * fp8, 864 GB/s; the Grand Teton H100: the SXM's peaks, 95 GiB; every one of
 * them fitted on no run of its generation, and the A100 and V100 fitted on
 * their own. */
static void test_new_devices(void **state)
{
    static const struct {
        const char *name, *gen;
        double bf16, fp8, fp4, mem_bw;
        const char *fitted; /* the generation whose runs fitted its constants */
    } want[] = {
        {"gb300", "blackwell", 2500, 5000, 15000, 8000, "blackwell"},
        {"b300-sxm-270g", "blackwell", 2250, 4500, 13500, 7700, "blackwell"},
        {"gb200", "blackwell", 2450, 4900, 9800, 8000, "blackwell"},
        {"b200-sxm-180g", "blackwell", 2250, 4500, 9000, 7700, "blackwell"},
        {"mi355x", "cdna4", 2516.6, 5033.2, 10066.3, 8000, "none"},
        {"mi325x", "cdna3", 1307.4, 2614.9, 0, 6000, "none"},
        {"l40s", "ada", 362.05, 733, 0, 864, "none"},
        {"h100-sxm-96g-500w", "hopper", 989, 1979, 0, 2460, "hopper"},
        {"gh200-96g", "hopper", 989, 1979, 0, 4000, "none"},
        {"rtx-pro-6000-server", "blackwell", 503.8, 1007.6, 2015.2, 1597, "none"},
    };
    pt_device dev;
    pt_diag d;
    (void)state;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(pt_device_builtin(want[i].name, &dev, &d), PT_OK);
        assert_string_equal(dev.generation, want[i].gen);
        assert_string_equal(dev.fitted_on, want[i].fitted);
        assert_int_equal(pt_device_unfitted(&dev), strcmp(want[i].fitted, want[i].gen) != 0);
        assert_float_equal(dev.tflops_bf16, want[i].bf16, 1e-9);
        assert_float_equal(dev.tflops_fp8, want[i].fp8, 1e-9);
        assert_float_equal(dev.tflops_fp4, want[i].fp4, 1e-9);
        assert_float_equal(dev.memory_bw_GBps, want[i].mem_bw, 1e-9);
    }
    assert_int_equal(pt_device_builtin("h100-sxm-96g-500w", &dev, &d), PT_OK);
    assert_float_equal(dev.memory_GiB, 95, 1e-9);
    /* fitted on their own generation: no note (the 96 GB H100 on torchtitan's
     * rows, the 80 GB one on the other H100 rows, issue 15) */
    assert_int_equal(pt_device_builtin("h100-sxm-80g", &dev, &d), PT_OK);
    assert_false(pt_device_unfitted(&dev));
    assert_int_equal(pt_device_builtin("a100-sxm4-80g", &dev, &d), PT_OK);
    assert_string_equal(dev.fitted_on, "ampere");
    assert_false(pt_device_unfitted(&dev));
    assert_int_equal(pt_device_builtin("v100-sxm2-32g", &dev, &d), PT_OK);
    assert_false(pt_device_unfitted(&dev));
    /* every catalog device names its generation and what fitted it */
    for (int i = 0; i < pt_device_catalog_count(); i++) {
        assert_int_equal(pt_device_builtin(pt_device_catalog_name(i), &dev, &d), PT_OK);
        assert_true(dev.generation[0] != '\0');
        assert_true(dev.fitted_on[0] != '\0');
    }
    /* an inline device without the keys: no generation, fitted on none */
    memset(&dev, 0, sizeof dev);
    strcpy(dev.fitted_on, "ampere");
    assert_true(pt_device_unfitted(&dev)); /* fitted_on is not its generation */
    strcpy(dev.generation, "ampere");
    assert_false(pt_device_unfitted(&dev));
    strcpy(dev.fitted_on, "none");
    strcpy(dev.generation, "none");
    assert_true(pt_device_unfitted(&dev)); /* "none" never counts as fitted */
}

static void test_tflops_fallback(void **state)
{
    pt_device dev;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_device_builtin("h100-sxm-80g", &dev, &d), PT_OK);
    assert_float_equal(pt_device_tflops(&dev, PT_FP8), 1979, 1e-9);
    assert_float_equal(pt_device_tflops(&dev, PT_FP16), 989, 1e-9);
    dev.tflops_fp16 = 0;
    assert_float_equal(pt_device_tflops(&dev, PT_FP16), 989, 1e-9);
}

static void test_unknown_builtin(void **state)
{
    pt_device dev;
    pt_cluster c;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_device_builtin("a100", &dev, &d), PT_EINPUT);
    assert_string_equal(d.field, "device");
    assert_non_null(strstr(d.msg, "partita devices"));
    assert_int_equal(pt_cluster_builtin("selene", &c, &d), PT_EINPUT);
    assert_non_null(strstr(d.msg, "partita clusters"));
    assert_int_equal(pt_cluster_load("no-such-cluster", &c, &d), PT_EINPUT);
    assert_string_equal(d.field, "cluster");
    assert_string_equal(d.value, "no-such-cluster");
    assert_non_null(strstr(d.msg, "partita clusters"));
}

/* ---- the SPEC section 2 example ----------------------------------------------- */

static const char spec_example[] =
    "{\n"
    "  \"name\": \"selene\",\n"
    "  \"device\": \"a100-sxm4-80g\",\n"
    "  \"devices\": 3072,\n"
    "  \"levels\": [\n"
    "    {\"name\": \"nvlink\", \"size\": 8,    \"bw_GBps\": 300, \"latency_us\": 2},\n"
    "    {\"name\": \"ib\",     \"size\": 3072, \"bw_GBps\": 25,  \"latency_us\": 6}\n"
    "  ],\n"
    "  \"price_per_device_hour\": 2.0,\n"
    "  \"mtbf_device_hours\": 50000\n"
    "}\n";

static void test_spec_example(void **state)
{
    pt_cluster c;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_cluster_parse(spec_example, "cluster.json", &c, &d), PT_OK);
    assert_string_equal(c.name, "selene");
    assert_string_equal(c.dev.name, "a100-sxm4-80g");
    assert_float_equal(c.dev.tflops_bf16, 312, 1e-9);
    assert_int_equal(c.devices, 3072);
    assert_int_equal(c.nlevels, 2);
    assert_string_equal(c.level[0].name, "nvlink");
    assert_int_equal(c.level[0].size, 8);
    assert_float_equal(c.level[0].bw_GBps, 300, 1e-9);
    assert_float_equal(c.level[0].latency_us, 2, 1e-9);
    assert_float_equal(c.level[0].efficiency, 0.8, 1e-9); /* the default */
    assert_string_equal(c.level[1].name, "ib");
    assert_int_equal(c.level[1].size, 3072);
    assert_float_equal(c.level[1].bw_GBps, 25, 1e-9);
    assert_float_equal(c.level[1].latency_us, 6, 1e-9);
    assert_float_equal(c.price_per_device_hour, 2.0, 1e-9);
    assert_float_equal(c.mtbf_device_hours, 50000, 1e-9);
}

/* SPEC's inline device example, and the defaults of the keys it leaves out. */
static void test_spec_inline_device(void **state)
{
    static const char text[] =
        "{\"name\": \"x\", \"devices\": 16,\n"
        " \"device\": {\"name\": \"my-a100\", \"memory_GiB\": 80, \"memory_bw_GBps\": 2039,"
        " \"tflops\": {\"bf16\": 312, \"fp16\": 312, \"fp8\": 0, \"tf32\": 156, \"fp32\": 19.5}},\n"
        " \"levels\": [{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 300},\n"
        "            {\"name\": \"ib\", \"size\": 1024, \"bw_GBps\": 25}]}\n";
    pt_cluster c;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_cluster_parse(text, "c.json", &c, &d), PT_OK);
    assert_string_equal(c.dev.name, "my-a100");
    assert_float_equal(c.dev.memory_bw_GBps, 2039, 1e-9);
    assert_float_equal(c.dev.tflops_fp32, 19.5, 1e-9);
    assert_float_equal(c.dev.host_bw_GBps, 25, 1e-9);
    assert_float_equal(c.dev.gemm_eff, 0.75, 1e-9);
    assert_float_equal(c.dev.gemm_half_GFLOP, 0.5, 1e-9);
    assert_float_equal(c.dev.attn_eff, 0.5, 1e-9);
    assert_float_equal(c.dev.mem_eff, 0.7, 1e-9);
    assert_float_equal(c.dev.kernel_us, 4, 1e-9);
    assert_string_equal(c.dev.generation, "");
    assert_string_equal(c.dev.fitted_on, "none");
    assert_float_equal(c.dev.tflops_fp4, 0, 1e-9);
    assert_int_equal(c.devices, 16);
    assert_int_equal(c.level[1].size, 16); /* the outermost level spans the cluster */
    assert_float_equal(c.level[0].latency_us, 0, 1e-9);
    assert_float_equal(c.price_per_device_hour, 0, 1e-9);
    assert_float_equal(c.mtbf_device_hours, 50000, 1e-9);
}

/* ---- bad input ------------------------------------------------------------------ */

/* A cluster file that sets every key, built from parts a case can swap out. */
#define TFLOPS \
    "\"tflops\": {\"bf16\": 312, \"fp16\": 312, \"fp8\": 0, \"tf32\": 156, \"fp32\": 19.5}"
#define DEVICE \
    "\"device\": {\"name\": \"custom\", \"source\": \"test\", \"memory_GiB\": 80,\n" \
    "    \"memory_bw_GBps\": 2039,\n" \
    "    " TFLOPS ",\n" \
    "    \"host_bw_GBps\": 25, \"gemm_eff\": 0.8, \"gemm_half_GFLOP\": 1,\n" \
    "    \"attn_eff\": 0.5, \"mem_eff\": 0.7, \"kernel_us\": 4}"
#define LEVELS \
    "\"levels\": [\n" \
    "    {\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 300, \"latency_us\": 2," \
    " \"efficiency\": 0.7},\n" \
    "    {\"name\": \"ib\", \"size\": 3072, \"bw_GBps\": 25, \"latency_us\": 6," \
    " \"efficiency\": 0.9}\n" \
    "  ]"
static const char full_file[] = "{\n"
                                "  \"name\": \"selene\",\n"
                                "  \"source\": \"a test\",\n"
                                "  " DEVICE ",\n"
                                "  \"devices\": 3072,\n"
                                "  " LEVELS ",\n"
                                "  \"price_per_device_hour\": 2.0,\n"
                                "  \"mtbf_device_hours\": 50000\n"
                                "}\n";

/* full_file with the first `find` replaced by `repl` (malloc'd). */
static char *swap(const char *find, const char *repl)
{
    const char *at = strstr(full_file, find);
    size_t n = strlen(full_file) - strlen(find) + strlen(repl) + 1;
    char *out = malloc(n);
    if (!at) fail_msg("test bug: \"%s\" is not in the file", find);
    assert_non_null(out);
    memcpy(out, full_file, (size_t)(at - full_file));
    strcpy(out + (at - full_file), repl);
    strcat(out, at + strlen(find));
    return out;
}

static void test_full_file_parses(void **state)
{
    pt_cluster c;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_cluster_parse(full_file, "c.json", &c, &d), PT_OK);
    assert_float_equal(c.dev.gemm_eff, 0.8, 1e-9);
    assert_float_equal(c.dev.gemm_half_GFLOP, 1, 1e-9);
    assert_float_equal(c.level[0].efficiency, 0.7, 1e-9);
    assert_float_equal(c.level[1].efficiency, 0.9, 1e-9);
}

typedef struct bad_case {
    const char *find, *repl; /* the swap          */
    const char *field;       /* d.field it gives  */
} bad_case;

static const bad_case bad_cases[] = {
    /* the cluster file */
    {"\"name\": \"selene\"", "\"name\": 7", "name"},
    {"\"name\": \"selene\"", "\"name\": \"\"", "name"},
    {"\"source\": \"a test\"", "\"source\": 1", "source"},
    {DEVICE, "\"device\": 5", "device"},
    {DEVICE, "\"device\": \"a100\"", "device"},
    {"\"devices\": 3072", "\"devices\": 0", "devices"},
    {"\"devices\": 3072", "\"devices\": 12.5", "devices"},
    {"\"devices\": 3072", "\"devices\": \"all\"", "devices"},
    {"\"devices\": 3072", "\"devices\": 3068", "devices"}, /* not whole nodes */
    {"\"devices\": 3072", "\"devices\": 4", "devices"},    /* less than one node */
    {LEVELS, "\"levels\": {}", "levels"},
    {LEVELS, "\"levels\": []", "levels"},
    {"\"name\": \"nvlink\"", "\"name\": 5", "levels[0].name"},
    {"\"size\": 8,", "\"size\": 0,", "levels[0].size"},
    {"\"size\": 8,", "\"size\": 8.5,", "levels[0].size"},
    {"\"size\": 3072", "\"size\": 3000", "levels[1].size"},  /* not a multiple of 8 */
    {"\"size\": 3072", "\"size\": 1024", "levels[1].size"},  /* smaller than devices */
    {"\"size\": 8,", "\"size\": 4096,", "levels[1].size"},   /* not increasing */
    {"\"bw_GBps\": 300", "\"bw_GBps\": -300", "levels[0].bw_GBps"},
    {"\"bw_GBps\": 25,", "\"bw_GBps\": 0,", "levels[1].bw_GBps"},
    {"\"latency_us\": 2", "\"latency_us\": -1", "levels[0].latency_us"},
    {"\"latency_us\": 6", "\"latency_us\": \"6\"", "levels[1].latency_us"},
    {"\"efficiency\": 0.7", "\"efficiency\": 1.5", "levels[0].efficiency"},
    {"\"efficiency\": 0.9", "\"efficiency\": 0", "levels[1].efficiency"},
    {"\"price_per_device_hour\": 2.0", "\"price_per_device_hour\": -2",
     "price_per_device_hour"},
    {"\"mtbf_device_hours\": 50000", "\"mtbf_device_hours\": 0", "mtbf_device_hours"},
    /* the inline device */
    {"\"name\": \"custom\"", "\"name\": 3", "device.name"},
    {"\"source\": \"test\"", "\"source\": []", "device.source"},
    {"\"memory_GiB\": 80", "\"memory_GiB\": 0", "device.memory_GiB"},
    {"\"memory_bw_GBps\": 2039", "\"memory_bw_GBps\": -1", "device.memory_bw_GBps"},
    {TFLOPS, "\"tflops\": 312", "device.tflops"},
    {"\"bf16\": 312", "\"bf16\": 0", "device.tflops.bf16"},
    {"\"fp16\": 312", "\"fp16\": -1", "device.tflops.fp16"},
    {"\"fp8\": 0", "\"fp8\": -2", "device.tflops.fp8"},
    {"\"tf32\": 156", "\"tf32\": \"a\"", "device.tflops.tf32"},
    {"\"fp32\": 19.5", "\"fp32\": -19.5", "device.tflops.fp32"},
    {"\"host_bw_GBps\": 25", "\"host_bw_GBps\": 0", "device.host_bw_GBps"},
    {"\"gemm_eff\": 0.8", "\"gemm_eff\": 1.2", "device.gemm_eff"},
    {"\"gemm_half_GFLOP\": 1", "\"gemm_half_GFLOP\": -1", "device.gemm_half_GFLOP"},
    {"\"attn_eff\": 0.5", "\"attn_eff\": 0", "device.attn_eff"},
    {"\"mem_eff\": 0.7", "\"mem_eff\": 2", "device.mem_eff"},
    {"\"kernel_us\": 4", "\"kernel_us\": -4", "device.kernel_us"},
    /* unknown keys (typos) */
    {"\"bw_GBps\": 25,", "\"bw_gbps\": 25,", "levels[1].bw_gbps"},
    {"\"mtbf_device_hours\"", "\"mtbf_hours\"", "mtbf_hours"},
    {"\"memory_GiB\"", "\"memory_GB\"", "device.memory_GB"},
    {"\"fp32\"", "\"int8\"", "device.tflops.int8"},
    /* fp4, generation, fitted_on */
    {"\"fp8\": 0", "\"fp8\": 0, \"fp4\": -1", "device.tflops.fp4"},
    {"\"kernel_us\": 4", "\"kernel_us\": 4, \"generation\": 5", "device.generation"},
    {"\"kernel_us\": 4", "\"kernel_us\": 4, \"fitted_on\": [\"a\"]", "device.fitted_on"},
    /* unit and segment (partial domains) */
    {"\"efficiency\": 0.7", "\"efficiency\": 0.7, \"unit\": 0", "levels[0].unit"},
    {"\"efficiency\": 0.7", "\"efficiency\": 0.7, \"unit\": 3", "levels[0].unit"},
    {"\"efficiency\": 0.7", "\"efficiency\": 0.7, \"unit\": 16", "levels[0].unit"},
    {"\"efficiency\": 0.7", "\"efficiency\": 0.7, \"segment\": 12", "levels[0].segment"},
    {"\"efficiency\": 0.7", "\"efficiency\": 0.7, \"unit\": 4, \"segment\": 6", "levels[0].segment"},
    {"\"efficiency\": 0.7", "\"efficiency\": 0.7, \"segment\": 2.5", "levels[0].segment"},
    {"\"efficiency\": 0.9", "\"efficiency\": 0.9, \"unit\": 8", "levels[1].unit"},
    {"\"efficiency\": 0.9", "\"efficiency\": 0.9, \"segment\": 8", "levels[1].segment"},
};

static void test_bad_values_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *b = &bad_cases[i];
        char *text = swap(b->find, b->repl);
        pt_cluster c;
        pt_diag d;
        pt_status st;
        memset(&c, 0x5a, sizeof c);
        st = pt_cluster_parse(text, "cluster.json", &c, &d);
        if (st != PT_EINPUT) fail_msg("case %zu (%s): accepted", i, b->repl);
        if (strcmp(d.field, b->field) != 0)
            fail_msg("case %zu (%s): field \"%s\", want \"%s\" (%s)", i, b->repl, d.field,
                     b->field, d.msg);
        if (d.line <= 0 || d.col <= 0)
            fail_msg("case %zu (%s): no location (%s)", i, b->repl, d.msg);
        assert_string_equal(d.file, "cluster.json");
        assert_true(d.value[0] != '\0');
        assert_non_null(strstr(d.msg, b->field));
        /* *out is untouched on failure */
        assert_int_equal(((unsigned char *)&c)[0], 0x5a);
        free(text);
    }
}

static void test_messages(void **state)
{
    pt_cluster c;
    pt_diag d;
    char *text;
    (void)state;
    /* the rule between level sizes, in the words the brief gives */
    text = swap("\"size\": 3072", "\"size\": 3076");
    assert_int_equal(pt_cluster_parse(text, "c.json", &c, &d), PT_EINPUT);
    assert_string_equal(d.msg, "levels[1].size: 3076 is not a multiple of levels[0].size=8");
    free(text);
    /* an unknown key: the field, the key as the value, and where */
    text = swap("\"bw_GBps\": 25,", "\"bw_gbps\": 25,");
    assert_int_equal(pt_cluster_parse(text, "c.json", &c, &d), PT_EINPUT);
    assert_string_equal(d.value, "bw_gbps");
    assert_non_null(strstr(d.msg, "unknown key \"bw_gbps\""));
    assert_int_equal(d.line, 12);
    free(text);
    /* a value: its line and column */
    text = swap("\"bf16\": 312", "\"bf16\": -3");
    assert_int_equal(pt_cluster_parse(text, "c.json", &c, &d), PT_EINPUT);
    assert_string_equal(d.msg, "device.tflops.bf16: -3 is not > 0");
    assert_string_equal(d.value, "-3");
    assert_int_equal(d.line, 6);
    free(text);
}

static void test_missing_required(void **state)
{
    static const char *const cases[][2] = {
        {"\"devices\": 3072,", "devices"},
        {"\"memory_GiB\": 80,", "device.memory_GiB"},
        {"\"bf16\": 312,", "device.tflops.bf16"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = swap(cases[i][0], "");
        pt_cluster c;
        pt_diag d;
        assert_int_equal(pt_cluster_parse(text, "c.json", &c, &d), PT_EINPUT);
        assert_string_equal(d.field, cases[i][1]);
        assert_non_null(strstr(d.msg, "missing"));
        free(text);
    }
}

static void test_syntax_error(void **state)
{
    static const char text[] = "{\n"
                               "  \"name\": \"x\",\n"
                               "  \"devices\": 8\n"
                               "  \"device\": \"l4\"\n"
                               "}\n";
    pt_cluster c;
    pt_diag d;
    char buf[1024];
    (void)state;
    assert_int_equal(pt_cluster_parse(text, "bad.json", &c, &d), PT_EINPUT);
    assert_int_equal(d.line, 4);
    assert_true(d.col > 0);
    pt_diag_format(&d, buf, sizeof buf);
    assert_true(strncmp(buf, "bad.json:4:", 11) == 0);
}

/* ---- resize and load ----------------------------------------------------------- */

static void test_resize(void **state)
{
    pt_cluster c;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_cluster_builtin("dgx-a100-80g", &c, &d), PT_OK);
    assert_int_equal(pt_cluster_resize(&c, 12, &d), PT_EINPUT);
    assert_string_equal(d.field, "devices");
    assert_string_equal(d.value, "12");
    assert_non_null(strstr(d.msg, "levels[0].size=8"));
    assert_int_equal(c.devices, 1024); /* untouched */
    assert_int_equal(pt_cluster_resize(&c, 4, &d), PT_EINPUT);
    assert_int_equal(pt_cluster_resize(&c, 0, &d), PT_EINPUT);
    assert_int_equal(pt_cluster_resize(&c, -8, &d), PT_EINPUT);
    assert_int_equal(pt_cluster_resize(&c, 16, &d), PT_OK);
    assert_int_equal(c.devices, 16);
    assert_int_equal(c.level[1].size, 16);
    assert_int_equal(c.level[0].size, 8);
    assert_int_equal(pt_cluster_resize(&c, 8, &d), PT_OK); /* one node */
    assert_int_equal(c.level[1].size, 8);
    assert_int_equal(pt_cluster_resize(&c, 4096, &d), PT_OK); /* the outermost level grows */
    assert_int_equal(c.devices, 4096);
    /* NVL72: whole 4-GPU trays, not whole racks (test_partial_racks) */
    assert_int_equal(pt_cluster_builtin("gb200-nvl72", &c, &d), PT_OK);
    assert_int_equal(pt_cluster_resize(&c, 64, &d), PT_OK);
    assert_int_equal(pt_cluster_resize(&c, 144, &d), PT_OK);
    assert_int_equal(pt_cluster_resize(&c, 66, &d), PT_EINPUT);
}

/* GB200 and GB300 NVL72 take any whole number of 4-GPU trays: a job fills
 * 64 GPUs (16 trays) of each rack it spans, as Slurm's --segment=16 places
 * it, the last rack what is left; a job of one rack or less takes part of
 * one rack. */
static void test_partial_racks(void **state)
{
    static const char *const racks[] = {"gb200-nvl72", "gb300-nvl72"};
    (void)state;
    for (size_t i = 0; i < sizeof racks / sizeof racks[0]; i++) {
        static const int64_t n[] = {128, 256, 512, 100, 16, 72, 2496};
        /* 128 = 64 + 64 ... 100 = 64 + 36; 16 and 72: one rack; 2496 = 39 x 64 */
        static const int64_t fill[] = {64, 64, 64, 64, 16, 72, 64};
        pt_cluster c;
        pt_diag d;
        assert_int_equal(pt_cluster_builtin(racks[i], &c, &d), PT_OK);
        assert_int_equal(c.level[0].size, 72);
        assert_int_equal(c.level[0].unit, 4);
        assert_int_equal(c.level[0].segment, 64);
        for (size_t k = 0; k < sizeof n / sizeof n[0]; k++) {
            if (pt_cluster_resize(&c, n[k], &d) != PT_OK) fail_msg("%s %lld: %s", racks[i], (long long)n[k], d.msg);
            assert_int_equal(c.devices, n[k]);
            assert_int_equal(c.level[1].size, n[k]);
            assert_int_equal(c.level[0].size, 72); /* the rack is still 72 GPUs */
            assert_int_equal(pt_cluster_fill(&c, 0), fill[k]);
            assert_int_equal(pt_cluster_fill(&c, 1), n[k]);
        }
        /* not whole trays: refused, naming the unit */
        assert_int_equal(pt_cluster_resize(&c, 130, &d), PT_EINPUT);
        assert_string_equal(d.field, "devices");
        assert_string_equal(d.value, "130");
        assert_non_null(strstr(d.msg, "levels[0].unit=4"));
        assert_int_equal(pt_cluster_resize(&c, 2, &d), PT_EINPUT);
    }
}

/* A cluster file's unit and segment: whole racks when there is no segment,
 * and the rules between unit, segment and size. */
static void test_unit_and_segment(void **state)
{
    static const char text[] =
        "{\"name\": \"racks\", \"device\": \"gb200\", \"devices\": 128,\n"
        " \"levels\": [{\"name\": \"nvlink\", \"size\": 72, \"unit\": 4, \"bw_GBps\": 900},\n"
        "            {\"name\": \"ib\", \"size\": 4096, \"bw_GBps\": 50}]}\n";
    pt_cluster c;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_cluster_parse(text, "racks.json", &c, &d), PT_OK);
    assert_int_equal(c.level[0].unit, 4);
    assert_int_equal(c.level[0].segment, 0);
    assert_int_equal(pt_cluster_fill(&c, 0), 72); /* 72 + 56 */
    assert_int_equal(pt_cluster_resize(&c, 300, &d), PT_OK);
    assert_int_equal(pt_cluster_fill(&c, 0), 72); /* 4 x 72 + 12 */
    /* a cluster of whole nodes keeps its rule */
    assert_int_equal(pt_cluster_builtin("dgx-h100", &c, &d), PT_OK);
    assert_int_equal(pt_cluster_fill(&c, 0), 8);
    assert_int_equal(pt_cluster_resize(&c, 12, &d), PT_EINPUT);
    assert_non_null(strstr(d.msg, "levels[0].size=8"));
}

static void test_single_level(void **state)
{
    static const char text[] =
        "{\"name\": \"box\", \"device\": \"rtx-4090\", \"devices\": 4,\n"
        " \"levels\": [{\"name\": \"pcie\", \"size\": 8, \"bw_GBps\": 25}]}\n";
    pt_cluster c;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_cluster_parse(text, "box.json", &c, &d), PT_OK);
    assert_int_equal(c.nlevels, 1);
    assert_int_equal(c.level[0].size, 4);
    assert_int_equal(pt_cluster_resize(&c, 3, &d), PT_OK);
    assert_int_equal(c.level[0].size, 3);
    assert_int_equal(pt_cluster_resize(&c, 8, &d), PT_EINPUT);
}

static void test_too_many_levels(void **state)
{
    static const char text[] =
        "{\"name\": \"deep\", \"device\": \"h100-sxm-80g\", \"devices\": 1024,\n"
        " \"levels\": [{\"name\": \"a\", \"size\": 2, \"bw_GBps\": 1},\n"
        "            {\"name\": \"b\", \"size\": 4, \"bw_GBps\": 1},\n"
        "            {\"name\": \"c\", \"size\": 8, \"bw_GBps\": 1},\n"
        "            {\"name\": \"d\", \"size\": 16, \"bw_GBps\": 1},\n"
        "            {\"name\": \"e\", \"size\": 1024, \"bw_GBps\": 1}]}\n";
    pt_cluster c;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_cluster_parse(text, "deep.json", &c, &d), PT_EINPUT);
    assert_string_equal(d.field, "levels");
    assert_int_equal(d.line, 2);
}

static void test_load_file(void **state)
{
    char path[] = "/tmp/test_hw_XXXXXX";
    int fd = mkstemp(path);
    pt_cluster c;
    pt_diag d;
    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, spec_example, strlen(spec_example)), (ssize_t)strlen(spec_example));
    close(fd);
    assert_int_equal(pt_cluster_load(path, &c, &d), PT_OK);
    assert_string_equal(c.name, "selene");
    assert_int_equal(c.devices, 3072);
    remove(path);
    assert_int_equal(pt_cluster_load("dgx-h100", &c, &d), PT_OK);
    assert_int_equal(c.devices, 256);
    assert_string_equal(c.dev.name, "h100-sxm-80g");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalog_tables_match_json),
        cmocka_unit_test(test_spec_catalog_names_present),
        cmocka_unit_test(test_every_device_loads),
        cmocka_unit_test(test_every_cluster_loads),
        cmocka_unit_test(test_a100_80g),
        cmocka_unit_test(test_tflops_fallback),
        cmocka_unit_test(test_new_devices),
        cmocka_unit_test(test_unknown_builtin),
        cmocka_unit_test(test_spec_example),
        cmocka_unit_test(test_spec_inline_device),
        cmocka_unit_test(test_full_file_parses),
        cmocka_unit_test(test_bad_values_refused),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_missing_required),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_resize),
        cmocka_unit_test(test_partial_racks),
        cmocka_unit_test(test_unit_and_segment),
        cmocka_unit_test(test_single_level),
        cmocka_unit_test(test_too_many_levels),
        cmocka_unit_test(test_load_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
