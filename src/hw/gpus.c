/*
 * gpus.c -- the GPU-name table of runs CSVs (see gpus.h).
 */
#include "hw/gpus.h"
#include "hw.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/catalog.h"

/* File name the built-in table's diagnostics carry. */
#define GPUS_FILE "data/gpus.json"
#define CLOCK_SCALE_MAX 10.0

static const char *const root_keys[] = {"source", "training_runs", "time_to_train", NULL};
static const char *const rule_keys[] = {"gpu", "system", "cluster", "device", "clock_scale", "source", NULL};

static int in_catalog(const char *name, int (*count)(void), const char *(*at)(int))
{
    for (int i = 0; i < count(); i++)
        if (!strcmp(at(i), name)) return 1;
    return 0;
}

/* Reads and checks rule `obj` (at `path`); *match says whether it matches
 * gpu and system. */
static pt_status read_rule(pt_jctx *jc, const json_t *obj, const char *path, const char *gpu, const char *system,
                           pt_gpu_match *out, int *match)
{
    char full[96], sys[64] = "";
    const json_t *arr;
    int found, all = 1;
    pt_status st;
    if (!json_is_object(obj)) return pt_jerr(jc, path, obj, "is not a rule object");
    if ((st = pt_json_only_keys(jc, obj, path, rule_keys)) != PT_OK) return st;
    memset(out, 0, sizeof *out);
    out->clock_scale = 1.0;
    pt_path_join(full, sizeof full, path, "gpu");
    arr = json_object_get(obj, "gpu");
    if (!json_is_array(arr) || json_array_size(arr) == 0)
        return pt_jerr(jc, full, arr, "is not a non-empty array of name parts");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *s = json_array_get(arr, i);
        char el[128];
        snprintf(el, sizeof el, "%s[%zu]", full, i);
        if (!json_is_string(s) || !json_string_value(s)[0])
            return pt_jerr(jc, el, s, "is not a non-empty string");
        if (!pt_str_has_ci(gpu, json_string_value(s))) all = 0;
    }
    if ((st = pt_json_str(jc, obj, path, "system", 0, sys, sizeof sys, &found)) != PT_OK) return st;
    if (found && !sys[0]) {
        pt_path_join(full, sizeof full, path, "system");
        return pt_jerr(jc, full, json_object_get(obj, "system"), "is empty");
    }
    if (found && !(system && pt_str_has_ci(system, sys))) all = 0;
    if ((st = pt_json_str(jc, obj, path, "cluster", 1, out->cluster, sizeof out->cluster, &found)) != PT_OK)
        return st;
    if (!in_catalog(out->cluster, pt_cluster_catalog_count, pt_cluster_catalog_name)) {
        pt_path_join(full, sizeof full, path, "cluster");
        return pt_jerr(jc, full, json_object_get(obj, "cluster"),
                       "is not a built-in cluster (`partita clusters` lists them)");
    }
    if ((st = pt_json_str(jc, obj, path, "device", 0, out->device, sizeof out->device, &found)) != PT_OK)
        return st;
    if (found && !in_catalog(out->device, pt_device_catalog_count, pt_device_catalog_name)) {
        pt_path_join(full, sizeof full, path, "device");
        return pt_jerr(jc, full, json_object_get(obj, "device"),
                       "is not a built-in device (`partita devices` lists them)");
    }
    if ((st = pt_json_num(jc, obj, path, "clock_scale", 0, &out->clock_scale, &found)) != PT_OK) return st;
    if (!(out->clock_scale > 0 && out->clock_scale <= CLOCK_SCALE_MAX)) {
        pt_path_join(full, sizeof full, path, "clock_scale");
        return pt_jerr(jc, full, json_object_get(obj, "clock_scale"), "is not in (0, %g]", CLOCK_SCALE_MAX);
    }
    *match = all;
    return PT_OK;
}

pt_status pt_gpu_lookup_text(const char *text, const char *file, const char *table, const char *gpu,
                             const char *system, pt_gpu_match *out, int *found, pt_diag *d)
{
    pt_diag scratch;
    pt_jctx jc;
    json_t *root;
    const json_t *arr;
    pt_status st = PT_OK;
    assert(text && table && gpu && out && found);
    if (!d) d = &scratch;
    *found = 0;
    memset(out, 0, sizeof *out);
    jc.text = text;
    jc.file = file;
    jc.d = d;
    if (!(root = pt_json_parse(&jc))) return PT_EINPUT;
    if (!json_is_object(root)) {
        st = pt_jerr(&jc, "", root, "is not an object of GPU tables");
        goto out;
    }
    if ((st = pt_json_only_keys(&jc, root, "", root_keys)) != PT_OK) goto out;
    arr = json_object_get(root, table);
    if (!json_is_array(arr)) {
        st = pt_jerr(&jc, table, arr, "is missing or not an array of rules");
        if (d->line == 0) pt_json_locate(text, "", &d->line, &d->col);
        goto out;
    }
    /* every rule is checked, also after the first match, so a bad rule is an
     * error whatever name is looked up */
    for (size_t i = 0; i < json_array_size(arr); i++) {
        char path[64];
        pt_gpu_match m;
        int match = 0;
        snprintf(path, sizeof path, "%s[%zu]", table, i);
        if ((st = read_rule(&jc, json_array_get(arr, i), path, gpu, system, &m, &match)) != PT_OK) {
            /* a missing key has no place of its own: point at its rule */
            if (d->line == 0) pt_json_locate(text, path, &d->line, &d->col);
            goto out;
        }
        if (match && !*found) {
            m.rule = (int)i;
            *out = m;
            *found = 1;
        }
    }
out:
    json_decref(root);
    if (st != PT_OK) {
        *found = 0;
        memset(out, 0, sizeof *out);
    }
    return st;
}

pt_status pt_gpu_lookup(const char *table, const char *gpu, const char *system, pt_gpu_match *out,
                        int *found, pt_diag *d)
{
    return pt_gpu_lookup_text(pt_data_gpus_json, GPUS_FILE, table, gpu, system, out, found, d);
}

pt_status pt_gpu_cluster(const pt_gpu_match *m, pt_cluster *out, pt_diag *d)
{
    pt_status st;
    pt_device *dev = &out->dev;
    assert(m && out);
    if ((st = pt_cluster_builtin(m->cluster, out, d)) != PT_OK) return st;
    if (m->device[0] && (st = pt_device_builtin(m->device, dev, d)) != PT_OK) return st;
    if (m->clock_scale != 1.0) {
        dev->tflops_bf16 *= m->clock_scale;
        dev->tflops_fp16 *= m->clock_scale;
        dev->tflops_fp8 *= m->clock_scale;
        dev->tflops_tf32 *= m->clock_scale;
        dev->tflops_fp32 *= m->clock_scale;
    }
    return PT_OK;
}
