/*
 * device.c -- accelerator descriptions: the built-in catalog (data/devices.json,
 * compiled in as pt_data_devices_json) and the reader of one device object,
 * shared with inline devices in cluster files (hw.h lists the keys).
 *
 * Numbers are vendor datasheet peaks, dense (no 2:4 sparsity); each catalog
 * entry's "source" says which sheet.  The efficiency constants that turn peaks
 * into achieved rates default to the values in hw.h unless an entry carries a
 * fitted one.
 * What it does not: clusters and links (cluster.c), collectives (coll.c), or
 * how the cost model uses any of these numbers (src/cost).
 */
#include "hw.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "base/catalog.h"

/* File name the built-in catalog's diagnostics carry. */
#define DEVICES_FILE "data/devices.json"

/* The catalog's names, in the order of data/devices.json (tests/test_hw.c
 * checks that the two agree). */
static const char *const device_names[] = {
    "v100-sxm2-16g", "v100-sxm2-32g",       "v100-sxm3-32g", "a100-sxm4-40g",
    "a100-sxm4-80g", "h100-sxm-80g",        "h100-sxm-96g-500w", "h800-sxm-80g",
    "h200-sxm-141g", "gh200-96g",           "b200-sxm-180g", "b300-sxm-270g",
    "gb200",         "gb300",               "mi300x",        "mi325x",
    "mi355x",        "l4",                  "l40s",          "rtx-4090",
    "rtx-pro-6000-server", "raspberry-pi-4b", "raspberry-pi-5", "jetson-agx-orin",
    "jetson-orin-nano", "snapdragon-8-gen3",
};
#define N_DEVICES ((int)(sizeof device_names / sizeof device_names[0]))

int pt_device_catalog_count(void)
{
    return N_DEVICES;
}

const char *pt_device_catalog_name(int i)
{
    return i >= 0 && i < N_DEVICES ? device_names[i] : NULL;
}

/* ---- reading one device object -------------------------------------------- */

/* obj[key] as a number in the given range.  *out keeps its value (the default)
 * when the key is absent and not required. */
pt_status pt_hw_num_in(pt_jctx *jc, const json_t *obj, const char *path, const char *key,
                       int required, pt_hw_range r, double *out)
{
    char full[256];
    double x = 0;
    int found = 0;
    pt_status st = pt_json_num(jc, obj, path, key, required, &x, &found);
    if (st != PT_OK || !found) return st;
    pt_path_join(full, sizeof full, path, key);
    switch (r) {
    case PT_HW_POS:
        if (!(x > 0)) return pt_jerr(jc, full, json_object_get(obj, key), "is not > 0");
        if (x < PT_HW_NUM_LO || x > PT_HW_NUM_HI)
            return pt_jerr(jc, full, json_object_get(obj, key), "is not between %g and %g",
                           PT_HW_NUM_LO, PT_HW_NUM_HI);
        break;
    case PT_HW_NONNEG:
        if (!(x >= 0))
            return pt_jerr(jc, full, json_object_get(obj, key), "is negative (must be >= 0)");
        if (x != 0 && (x < PT_HW_NUM_LO || x > PT_HW_NUM_HI))
            return pt_jerr(jc, full, json_object_get(obj, key), "is not 0 or between %g and %g",
                           PT_HW_NUM_LO, PT_HW_NUM_HI);
        break;
    case PT_HW_FRAC:
        if (!(x > 0 && x <= 1))
            return pt_jerr(jc, full, json_object_get(obj, key),
                           "is not a fraction in (0, 1]");
        if (x < PT_HW_NUM_LO)
            return pt_jerr(jc, full, json_object_get(obj, key), "is not between %g and 1",
                           PT_HW_NUM_LO);
        break;
    }
    *out = x;
    return PT_OK;
}

static const char *const device_keys[] = {
    "name",     "source",  "memory_GiB", "memory_bw_GBps", "tflops",    "host_bw_GBps",
    "gemm_eff", "gemm_half_GFLOP", "attn_eff", "mem_eff", "kernel_us", "best_published_mfu",
    "fp8_gemm_ratio",
    "generation", "fitted_on",
    "units", /* an edge device's compute units: read by src/plan/edge.c */
    NULL};
static const char *const tflops_keys[] = {"bf16", "fp16", "fp8", "fp4", "tf32", "fp32", NULL};

int pt_device_unfitted(const pt_device *dev)
{
    assert(dev);
    return !dev->fitted_on[0] || !strcmp(dev->fitted_on, "none") ||
           strcmp(dev->fitted_on, dev->generation) != 0;
}

pt_status pt_device_from_json(pt_jctx *jc, const json_t *obj, const char *path, pt_device *out)
{
    pt_device dev;
    char full[256];
    const json_t *v;
    pt_status st;
    assert(jc && jc->d && obj && path && out);
    memset(&dev, 0, sizeof dev);
    dev.host_bw_GBps = PT_DEV_DEFAULT_HOST_BW_GBPS;
    dev.gemm_eff = PT_DEV_DEFAULT_GEMM_EFF;
    dev.gemm_half_GFLOP = PT_DEV_DEFAULT_GEMM_HALF_GFLOP;
    dev.attn_eff = PT_DEV_DEFAULT_ATTN_EFF;
    dev.mem_eff = PT_DEV_DEFAULT_MEM_EFF;
    dev.kernel_us = PT_DEV_DEFAULT_KERNEL_US;
    pt_strlcpy(dev.fitted_on, "none", sizeof dev.fitted_on);

    if (!json_is_object(obj))
        return pt_jerr(jc, path, obj, "is not a device object ({\"name\": ..., \"memory_GiB\": "
                                      "..., \"memory_bw_GBps\": ..., \"tflops\": {...}})");
    if ((st = pt_json_only_keys(jc, obj, path, device_keys)) != PT_OK) return st;

    if ((st = pt_json_str(jc, obj, path, "name", 1, dev.name, sizeof dev.name, NULL)) != PT_OK)
        return st;
    if (!dev.name[0]) {
        pt_path_join(full, sizeof full, path, "name");
        return pt_jerr(jc, full, json_object_get(obj, "name"), "is empty");
    }
    v = json_object_get(obj, "source");
    if (v && !json_is_string(v)) {
        pt_path_join(full, sizeof full, path, "source");
        return pt_jerr(jc, full, v, "is not a string");
    }
    if ((st = pt_json_name(jc, obj, path, "generation", 0, dev.generation, sizeof dev.generation,
                           NULL)) != PT_OK ||
        (st = pt_json_name(jc, obj, path, "fitted_on", 0, dev.fitted_on, sizeof dev.fitted_on,
                           NULL)) != PT_OK)
        return st;
    if ((st = pt_hw_num_in(jc, obj, path, "memory_GiB", 1, PT_HW_POS, &dev.memory_GiB)) != PT_OK ||
        (st = pt_hw_num_in(jc, obj, path, "memory_bw_GBps", 1, PT_HW_POS, &dev.memory_bw_GBps)) != PT_OK)
        return st;

    pt_path_join(full, sizeof full, path, "tflops");
    v = json_object_get(obj, "tflops");
    if (!v || json_is_null(v)) return pt_jerr(jc, full, NULL, "required key is missing");
    if (!json_is_object(v))
        return pt_jerr(jc, full, v,
                       "is not an object ({\"bf16\": ..., \"fp16\": ..., \"fp8\": ..., "
                       "\"fp4\": ..., \"tf32\": ..., \"fp32\": ...})");
    if ((st = pt_json_only_keys(jc, v, full, tflops_keys)) != PT_OK ||
        (st = pt_hw_num_in(jc, v, full, "bf16", 1, PT_HW_POS, &dev.tflops_bf16)) != PT_OK ||
        (st = pt_hw_num_in(jc, v, full, "fp16", 0, PT_HW_NONNEG, &dev.tflops_fp16)) != PT_OK ||
        (st = pt_hw_num_in(jc, v, full, "fp8", 0, PT_HW_NONNEG, &dev.tflops_fp8)) != PT_OK ||
        (st = pt_hw_num_in(jc, v, full, "fp4", 0, PT_HW_NONNEG, &dev.tflops_fp4)) != PT_OK ||
        (st = pt_hw_num_in(jc, v, full, "tf32", 0, PT_HW_NONNEG, &dev.tflops_tf32)) != PT_OK ||
        (st = pt_hw_num_in(jc, v, full, "fp32", 0, PT_HW_NONNEG, &dev.tflops_fp32)) != PT_OK)
        return st;

    if ((st = pt_hw_num_in(jc, obj, path, "host_bw_GBps", 0, PT_HW_POS, &dev.host_bw_GBps)) != PT_OK ||
        (st = pt_hw_num_in(jc, obj, path, "gemm_eff", 0, PT_HW_FRAC, &dev.gemm_eff)) != PT_OK ||
        (st = pt_hw_num_in(jc, obj, path, "gemm_half_GFLOP", 0, PT_HW_NONNEG, &dev.gemm_half_GFLOP)) !=
            PT_OK ||
        (st = pt_hw_num_in(jc, obj, path, "attn_eff", 0, PT_HW_FRAC, &dev.attn_eff)) != PT_OK ||
        (st = pt_hw_num_in(jc, obj, path, "mem_eff", 0, PT_HW_FRAC, &dev.mem_eff)) != PT_OK ||
        (st = pt_hw_num_in(jc, obj, path, "kernel_us", 0, PT_HW_NONNEG, &dev.kernel_us)) != PT_OK ||
        (st = pt_hw_num_in(jc, obj, path, "best_published_mfu", 0, PT_HW_FRAC, &dev.best_mfu)) != PT_OK ||
        (st = pt_hw_num_in(jc, obj, path, "fp8_gemm_ratio", 0, PT_HW_FRAC, &dev.fp8_gemm_ratio)) != PT_OK)
        return st;

    *out = dev;
    return PT_OK;
}

/* ---- the built-in catalog ------------------------------------------------- */

pt_status pt_hw_catalog_entry(const char *text, const char *file, const char *key, const char *what,
                              const char *name, pt_hw_entry_reader read, void *out, pt_diag *d)
{
    pt_diag scratch;
    pt_jctx jc;
    json_t *root, *arr;
    pt_status st;
    assert(text && key && what && name && read && out);
    if (!d) d = &scratch;
    jc.text = text;
    jc.file = file;
    jc.d = d;
    root = pt_json_parse(&jc);
    if (!root) return PT_EINPUT;
    arr = json_object_get(root, key);
    if (!json_is_array(arr)) {
        json_decref(root);
        return pt_jerr(&jc, key, NULL, "the built-in catalog holds no \"%s\" array", key);
    }
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *e = json_array_get(arr, i);
        const json_t *n = json_is_object(e) ? json_object_get(e, "name") : NULL;
        if (json_is_string(n) && strcmp(json_string_value(n), name) == 0) {
            char path[32];
            snprintf(path, sizeof path, "%s[%zu]", key, i);
            st = read(&jc, e, path, out);
            json_decref(root);
            return st;
        }
    }
    json_decref(root);
    return pt_diag_set(d, NULL, what, name, "unknown %s \"%s\" (`partita %ss` lists the built-in ones)", what,
                       name, what);
}

static pt_status read_device(pt_jctx *jc, const json_t *obj, const char *path, void *out)
{
    return pt_device_from_json(jc, obj, path, out);
}

pt_status pt_device_builtin(const char *name, pt_device *out, pt_diag *d)
{
    assert(name && out);
    return pt_hw_catalog_entry(pt_data_devices_json, DEVICES_FILE, "devices", "device", name, read_device, out, d);
}

double pt_device_tflops(const pt_device *dev, pt_dtype t)
{
    assert(dev);
    switch (t) {
    case PT_BF16: return dev->tflops_bf16;
    case PT_FP16: return dev->tflops_fp16 > 0 ? dev->tflops_fp16 : dev->tflops_bf16;
    case PT_FP8: return dev->tflops_fp8 > 0 ? dev->tflops_fp8 : dev->tflops_bf16;
    }
    return dev->tflops_bf16;
}
