/*
 * edge.c -- compute units of edge devices, clusters of boards for
 * `partita pipeline`, and a layer's time on one unit (see edge.h).
 */
#include "plan/edge.h"
#include "base/base.h"
#include "base/catalog.h"
#include "cost/roofline.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEVICES_FILE "data/devices.json"

static const char *const gop_names[] = {
    "input", "conv", "maxpool", "avgpool", "globalpool", "linear", "lstm",
    "embedding", "attention", "norm", "add", "concat", "relu", "loss", "embedding_bag", "interaction"};
_Static_assert(sizeof gop_names / sizeof *gop_names == PT_G_COUNT, "one name per layer type (graph.h)");

static const char *const unit_keys[] = {"name",        "kind",        "core",      "cores",
                                        "simd_bits",   "fma_per_cycle", "ghz",     "fp16",
                                        "int8_dot",    "tflops_fp32", "tflops_fp16", "tops_int8",
                                        "ops",         "fallback",    NULL};

const char *pt_edge_dtype_name(pt_edge_dtype t)
{
    return t == PT_EDGE_FP16 ? "fp16" : t == PT_EDGE_INT8 ? "int8" : "fp32";
}

double pt_edge_elem_bytes(pt_edge_dtype t)
{
    return t == PT_EDGE_FP16 ? 2.0 : t == PT_EDGE_INT8 ? 1.0 : 4.0;
}

/* ---- units ------------------------------------------------------------------ */

static pt_status unit_num(pt_jctx *jc, const json_t *o, const char *path, const char *key, int req, double lo,
                          double hi, double *out)
{
    double x = 0;
    int found = 0;
    char full[160];
    pt_status st = pt_json_num(jc, o, path, key, req, &x, &found);
    if (st != PT_OK || !found) return st;
    if (!(x >= lo && x <= hi)) {
        pt_path_join(full, sizeof full, path, key);
        return pt_jerr(jc, full, json_object_get(o, key), "is not between %g and %g", lo, hi);
    }
    *out = x;
    return PT_OK;
}

static pt_status unit_from_json(pt_jctx *jc, const json_t *o, const char *path, pt_edge_unit *u,
                                char fallback[24])
{
    char kind[16] = "", full[160];
    double cores = 0, simd = 128, fma = 1, ghz = 0;
    int fp16 = 0, dot = 0, found = 0;
    const json_t *ops;
    pt_status st;
    memset(u, 0, sizeof *u);
    u->fallback = -1;
    fallback[0] = 0;
    if (!json_is_object(o)) return pt_jerr(jc, path, o, "is not a unit object ({\"name\": ..., \"kind\": ...})");
    if ((st = pt_json_only_keys(jc, o, path, unit_keys)) != PT_OK ||
        (st = pt_json_name(jc, o, path, "name", 1, u->name, sizeof u->name, NULL)) != PT_OK ||
        (st = pt_json_name(jc, o, path, "kind", 1, kind, sizeof kind, NULL)) != PT_OK ||
        (st = pt_json_name(jc, o, path, "core", 0, u->core, sizeof u->core, NULL)) != PT_OK ||
        (st = pt_json_name(jc, o, path, "fallback", 0, fallback, 24, NULL)) != PT_OK ||
        (st = unit_num(jc, o, path, "cores", 1, 1, 1024, &cores)) != PT_OK ||
        (st = unit_num(jc, o, path, "ghz", 1, 0.01, 10, &ghz)) != PT_OK ||
        (st = unit_num(jc, o, path, "simd_bits", 0, 32, 2048, &simd)) != PT_OK ||
        (st = unit_num(jc, o, path, "fma_per_cycle", 0, 1, 16, &fma)) != PT_OK ||
        (st = unit_num(jc, o, path, "tflops_fp32", 0, 0, 1e6, &u->tflops[PT_EDGE_FP32])) != PT_OK ||
        (st = unit_num(jc, o, path, "tflops_fp16", 0, 0, 1e6, &u->tflops[PT_EDGE_FP16])) != PT_OK ||
        (st = unit_num(jc, o, path, "tops_int8", 0, 0, 1e6, &u->tflops[PT_EDGE_INT8])) != PT_OK ||
        (st = pt_json_bool(jc, o, path, "fp16", &fp16, NULL)) != PT_OK ||
        (st = pt_json_bool(jc, o, path, "int8_dot", &dot, NULL)) != PT_OK)
        return st;
    if (!u->name[0]) {
        pt_path_join(full, sizeof full, path, "name");
        return pt_jerr(jc, full, json_object_get(o, "name"), "is empty");
    }
    u->cores = (int)cores, u->simd_bits = (int)simd, u->fma_per_cycle = (int)fma, u->ghz = ghz;
    if (!strcmp(kind, "cpu")) {
        /* cores x GHz x lanes x 2 (multiply-add) x FMAs per cycle */
        double fp32 = cores * ghz * (simd / 32.0) * 2.0 * fma / 1000.0;
        u->kind = PT_UNIT_CPU;
        u->tflops[PT_EDGE_FP32] = fp32;
        u->tflops[PT_EDGE_FP16] = fp16 ? 2.0 * fp32 : fp32;
        u->tflops[PT_EDGE_INT8] = dot ? 4.0 * fp32 : fp32;
    } else if (!strcmp(kind, "gpu") || !strcmp(kind, "npu")) {
        u->kind = kind[0] == 'g' ? PT_UNIT_GPU : PT_UNIT_NPU;
        if (!(u->tflops[PT_EDGE_FP16] > 0 || u->tflops[PT_EDGE_INT8] > 0 || u->tflops[PT_EDGE_FP32] > 0)) {
            pt_path_join(full, sizeof full, path, "tflops_fp16");
            return pt_jerr(jc, full, NULL, "a %s unit needs tflops_fp32, tflops_fp16 or tops_int8 > 0", kind);
        }
        /* a GPU without an int8 rate runs int8 at its fp16 rate */
        if (u->kind == PT_UNIT_GPU && !(u->tflops[PT_EDGE_INT8] > 0))
            u->tflops[PT_EDGE_INT8] = u->tflops[PT_EDGE_FP16];
    } else {
        pt_path_join(full, sizeof full, path, "kind");
        return pt_jerr(jc, full, json_object_get(o, "kind"), "is not one of cpu, gpu, npu");
    }
    ops = json_object_get(o, "ops");
    if (!ops) {
        u->ops = (1u << PT_G_COUNT) - 1u;
    } else {
        pt_path_join(full, sizeof full, path, "ops");
        if (!json_is_array(ops)) return pt_jerr(jc, full, ops, "is not an array of layer types");
        for (size_t i = 0; i < json_array_size(ops); i++) {
            const json_t *e = json_array_get(ops, i);
            int k = -1;
            for (int j = 0; j < PT_G_COUNT && json_is_string(e); j++)
                if (!strcmp(gop_names[j], json_string_value(e))) k = j;
            if (k < 0) {
                char ep[200];
                snprintf(ep, sizeof ep, "%s[%zu]", full, i);
                return pt_jerr(jc, ep, e, "is not a layer type (conv, linear, maxpool, avgpool, globalpool, "
                                          "relu, add, concat, norm, attention, lstm, embedding, loss)");
            }
            u->ops |= 1u << k;
        }
        u->ops |= 1u << PT_G_INPUT;
    }
    (void)found;
    return PT_OK;
}

/* The units of one catalog entry (its "units" array) into t. */
static pt_status units_from_json(pt_jctx *jc, const json_t *arr, const char *path, pt_edge_type *t)
{
    char fb[PT_EDGE_MAX_UNITS][24], up[160];
    pt_status st;
    if (!json_is_array(arr) || json_array_size(arr) < 1 || json_array_size(arr) > PT_EDGE_MAX_UNITS)
        return pt_jerr(jc, path, arr, "is not an array of 1 to %d unit objects", PT_EDGE_MAX_UNITS);
    t->nunits = (int)json_array_size(arr);
    for (int i = 0; i < t->nunits; i++) {
        snprintf(up, sizeof up, "%s[%d]", path, i);
        if ((st = unit_from_json(jc, json_array_get(arr, (size_t)i), up, &t->unit[i], fb[i])) != PT_OK) return st;
        for (int k = 0; k < i; k++)
            if (!strcmp(t->unit[k].name, t->unit[i].name))
                return pt_jerr(jc, up, json_array_get(arr, (size_t)i), "unit name \"%s\" is used twice",
                               t->unit[i].name);
    }
    for (int i = 0; i < t->nunits; i++) {
        if (!fb[i][0]) continue;
        for (int k = 0; k < t->nunits; k++)
            if (k != i && !strcmp(t->unit[k].name, fb[i])) t->unit[i].fallback = k;
        snprintf(up, sizeof up, "%s[%d].fallback", path, i);
        if (t->unit[i].fallback < 0)
            return pt_jerr(jc, up, NULL, "\"%s\" is not another unit of this device", fb[i]);
        if (t->unit[t->unit[i].fallback].ops != (1u << PT_G_COUNT) - 1u)
            return pt_jerr(jc, up, NULL, "falls back to \"%s\", which does not run every layer type", fb[i]);
    }
    return PT_OK;
}

pt_status pt_edge_type_builtin(const pt_device *dev, pt_edge_type *t, pt_diag *d)
{
    pt_jctx jc = {pt_data_devices_json, DEVICES_FILE, d};
    json_t *root, *arr;
    pt_status st = PT_OK;
    assert(dev && t && d);
    memset(t, 0, sizeof *t);
    t->dev = *dev;
    root = pt_json_parse(&jc);
    if (!root) return PT_EINPUT;
    arr = json_object_get(root, "devices");
    for (size_t i = 0; json_is_array(arr) && i < json_array_size(arr); i++) {
        const json_t *e = json_array_get(arr, i), *n = json_object_get(e, "name"), *u;
        char path[48];
        if (!json_is_string(n) || strcmp(json_string_value(n), dev->name) != 0) continue;
        u = json_object_get(e, "units");
        if (!u) break;
        snprintf(path, sizeof path, "devices[%zu].units", i);
        st = units_from_json(&jc, u, path, t);
        json_decref(root);
        if (st == PT_OK) pt_edge_type_net(t);
        return st;
    }
    json_decref(root);
    /* one GPU unit of the catalog peaks */
    t->nunits = 1;
    pt_strlcpy(t->unit[0].name, "gpu", sizeof t->unit[0].name);
    pt_strlcpy(t->unit[0].core, dev->generation[0] ? dev->generation : dev->name, sizeof t->unit[0].core);
    t->unit[0].kind = PT_UNIT_GPU;
    t->unit[0].cores = 1;
    t->unit[0].tflops[PT_EDGE_FP32] = dev->tflops_fp32 > 0 ? dev->tflops_fp32 : dev->tflops_bf16;
    t->unit[0].tflops[PT_EDGE_FP16] = pt_device_tflops(dev, PT_FP16);
    t->unit[0].tflops[PT_EDGE_INT8] = dev->tflops_fp8 > 0 ? dev->tflops_fp8 : pt_device_tflops(dev, PT_FP16);
    t->unit[0].ops = (1u << PT_G_COUNT) - 1u;
    t->unit[0].fallback = -1;
    pt_edge_type_net(t);
    return PT_OK;
}

void pt_edge_type_net(pt_edge_type *t)
{
    double copy_Bps = PT_EDGE_COPY_FRAC * t->dev.memory_bw_GBps * 1e9;
    assert(t);
    t->net_unit = -1;
    t->net_s_per_byte = 0;
    for (int u = 0; u < t->nunits; u++)
        if (t->unit[u].kind == PT_UNIT_CPU && (t->net_unit < 0 || t->unit[u].ghz > t->unit[t->net_unit].ghz))
            t->net_unit = u;
    if (t->net_unit < 0) return;
    t->net_s_per_byte = PT_EDGE_NET_CYCLES_PER_BYTE / (t->unit[t->net_unit].ghz * 1e9);
    /* each copy reads and writes every byte */
    if (copy_Bps > 0) t->net_s_per_byte += PT_EDGE_NET_COPIES * 2.0 / copy_Bps;
}

/* ---- clusters --------------------------------------------------------------- */

/* The links of c from its levels (innermost first): a size-1 innermost level
 * is the on-chip link, the outermost the network. */
static void links_from_levels(pt_edge_cluster *c, const pt_level *lv, int n, double mem_bw_GBps)
{
    c->chip_Bps = 0.5 * mem_bw_GBps * 1e9 * PT_EDGE_MEM_EFF;
    c->chip_latency_s = 2e-6;
    if (n > 0 && lv[0].size == 1) {
        c->chip_Bps = lv[0].bw_GBps * 1e9 * (lv[0].efficiency > 0 ? lv[0].efficiency : 1.0);
        c->chip_latency_s = lv[0].latency_us * 1e-6;
    }
    c->net_Bps = lv[n - 1].bw_GBps * 1e9 * (lv[n - 1].efficiency > 0 ? lv[n - 1].efficiency : 1.0);
    c->net_latency_s = lv[n - 1].latency_us * 1e-6;
    pt_strlcpy(c->net_name, lv[n - 1].name, sizeof c->net_name);
}

static pt_status add_type(pt_edge_cluster *c, const pt_device *dev, int *idx, pt_diag *d)
{
    pt_status st;
    for (int i = 0; i < c->ntypes; i++)
        if (!strcmp(c->type[i].dev.name, dev->name)) {
            *idx = i;
            return PT_OK;
        }
    if (c->ntypes >= PT_EDGE_MAX_TYPES)
        return pt_diag_set(d, NULL, "pools", dev->name, "a cluster holds at most %d kinds of device",
                           PT_EDGE_MAX_TYPES);
    if ((st = pt_edge_type_builtin(dev, &c->type[c->ntypes], d)) != PT_OK) return st;
    *idx = c->ntypes++;
    return PT_OK;
}

static pt_status from_cluster(const pt_cluster *pc, pt_edge_cluster *c, pt_diag *d)
{
    int t = 0;
    pt_status st;
    memset(c, 0, sizeof *c);
    pt_strlcpy(c->name, pc->name, sizeof c->name);
    if ((st = add_type(c, &pc->dev, &t, d)) != PT_OK) return st;
    c->devices_given = (long long)pc->devices;
    c->nboards = pc->devices > PT_EDGE_MAX_BOARDS ? PT_EDGE_MAX_BOARDS : (int)pc->devices;
    for (int i = 0; i < c->nboards; i++) c->board_type[i] = t;
    links_from_levels(c, pc->level, pc->nlevels, pc->dev.memory_bw_GBps);
    return PT_OK;
}

static const char *const pools_keys[] = {"name", "source", "pools", "levels", "price_per_device_hour",
                                         "mtbf_device_hours", NULL};
static const char *const pool_keys[] = {"device", "devices", NULL};
static const char *const plevel_keys[] = {"name", "size", "bw_GBps", "latency_us", "efficiency", "unit",
                                          "segment", NULL};

/* The "pools" form (SPEC section 10): catalog devices by name, boards in order. */
static pt_status parse_pools(pt_jctx *jc, const json_t *root, pt_edge_cluster *c)
{
    const json_t *pools = json_object_get(root, "pools"), *levels = json_object_get(root, "levels");
    pt_level lv[PT_MAX_LEVELS];
    int nl;
    pt_status st;
    char path[64], full[96];
    double dummy = 0;
    if ((st = pt_json_only_keys(jc, root, "", pools_keys)) != PT_OK ||
        (st = pt_json_name(jc, root, "", "name", 1, c->name, sizeof c->name, NULL)) != PT_OK ||
        (st = pt_json_num(jc, root, "", "price_per_device_hour", 0, &dummy, NULL)) != PT_OK ||
        (st = pt_json_num(jc, root, "", "mtbf_device_hours", 0, &dummy, NULL)) != PT_OK)
        return st;
    if (!json_is_array(pools) || json_array_size(pools) < 1)
        return pt_jerr(jc, "pools", pools, "is not a non-empty array of {\"device\": NAME, \"devices\": N}");
    for (size_t i = 0; i < json_array_size(pools); i++) {
        const json_t *p = json_array_get(pools, i);
        char name[48];
        int64_t n = 0;
        int t = 0;
        pt_device dev;
        snprintf(path, sizeof path, "pools[%zu]", i);
        if (!json_is_object(p)) return pt_jerr(jc, path, p, "is not a pool object ({\"device\": ..., \"devices\": ...})");
        if ((st = pt_json_only_keys(jc, p, path, pool_keys)) != PT_OK ||
            (st = pt_json_name(jc, p, path, "device", 1, name, sizeof name, NULL)) != PT_OK ||
            (st = pt_json_int(jc, p, path, "devices", 1, 1, PT_EDGE_MAX_BOARDS, &n, NULL)) != PT_OK)
            return st;
        snprintf(full, sizeof full, "%s.device", path);
        if (pt_device_builtin(name, &dev, jc->d) != PT_OK)
            return pt_jerr(jc, full, json_object_get(p, "device"),
                           "is not a built-in device (`partita devices` lists them)");
        if (c->nboards + n > PT_EDGE_MAX_BOARDS) {
            snprintf(full, sizeof full, "%s.devices", path);
            return pt_jerr(jc, full, json_object_get(p, "devices"), "makes more than %d devices in all",
                           PT_EDGE_MAX_BOARDS);
        }
        if ((st = add_type(c, &dev, &t, jc->d)) != PT_OK) return pt_jerr(jc, full, NULL, "%s", jc->d->msg);
        for (int64_t k = 0; k < n; k++) c->board_type[c->nboards++] = t;
    }
    c->devices_given = c->nboards;
    if (!json_is_array(levels) || json_array_size(levels) < 1 || json_array_size(levels) > PT_MAX_LEVELS)
        return pt_jerr(jc, "levels", levels, "is not an array of 1 to %d level objects", PT_MAX_LEVELS);
    nl = (int)json_array_size(levels);
    for (int i = 0; i < nl; i++) {
        const json_t *o = json_array_get(levels, (size_t)i);
        int64_t size = 0;
        double eff = 0.8;
        snprintf(path, sizeof path, "levels[%d]", i);
        memset(&lv[i], 0, sizeof lv[i]);
        if (!json_is_object(o)) return pt_jerr(jc, path, o, "is not a level object");
        if ((st = pt_json_only_keys(jc, o, path, plevel_keys)) != PT_OK ||
            (st = pt_json_name(jc, o, path, "name", 1, lv[i].name, sizeof lv[i].name, NULL)) != PT_OK ||
            (st = pt_json_int(jc, o, path, "size", 1, 1, INT64_C(1) << 30, &size, NULL)) != PT_OK ||
            (st = unit_num(jc, o, path, "bw_GBps", 1, 1e-6, 1e9, &lv[i].bw_GBps)) != PT_OK ||
            (st = unit_num(jc, o, path, "latency_us", 1, 0, 1e9, &lv[i].latency_us)) != PT_OK ||
            (st = unit_num(jc, o, path, "efficiency", 0, 1e-6, 1, &eff)) != PT_OK)
            return st;
        lv[i].size = size, lv[i].efficiency = eff;
    }
    if (lv[nl - 1].size < c->nboards) {
        snprintf(path, sizeof path, "levels[%d].size", nl - 1);
        return pt_jerr(jc, path, json_object_get(json_array_get(levels, (size_t)nl - 1), "size"),
                       "is smaller than the %d devices of the pools (the outermost level joins them all)",
                       c->nboards);
    }
    links_from_levels(c, lv, nl, c->type[0].dev.memory_bw_GBps);
    return PT_OK;
}

pt_status pt_edge_cluster_parse(const char *text, const char *file, pt_edge_cluster *c, pt_diag *d)
{
    pt_jctx jc = {text, file, d};
    json_t *root;
    pt_status st;
    pt_cluster pc;
    assert(text && c && d);
    memset(c, 0, sizeof *c);
    root = pt_json_parse(&jc);
    if (!root) return PT_EINPUT;
    if (json_is_object(root) && json_object_get(root, "pools")) {
        st = parse_pools(&jc, root, c);
        json_decref(root);
        return st;
    }
    json_decref(root);
    if ((st = pt_cluster_parse(text, file, &pc, d)) != PT_OK) return st;
    return from_cluster(&pc, c, d);
}

pt_status pt_edge_cluster_load(const char *name_or_path, pt_edge_cluster *c, pt_diag *d)
{
    char *text = NULL;
    pt_status st;
    pt_cluster pc;
    assert(name_or_path && c && d);
    for (int i = 0; i < pt_cluster_catalog_count(); i++)
        if (!strcmp(pt_cluster_catalog_name(i), name_or_path)) {
            if ((st = pt_cluster_builtin(name_or_path, &pc, d)) != PT_OK) return st;
            return from_cluster(&pc, c, d);
        }
    if ((st = pt_read_file(name_or_path, &text, d)) != PT_OK) {
        char why[200];
        pt_strlcpy(why, d->msg, sizeof why);
        return pt_diag_set(d, NULL, "cluster", name_or_path,
                           "\"%s\" is not a built-in cluster (`partita clusters` lists them) nor a readable "
                           "cluster file (%s)", name_or_path, why);
    }
    st = pt_edge_cluster_parse(text, name_or_path, c, d);
    free(text);
    return st;
}

pt_status pt_edge_cluster_resize(pt_edge_cluster *c, int n, pt_diag *d)
{
    assert(c && d);
    if (c->ntypes != 1)
        return pt_diag_set(d, NULL, "devices", c->name, "--devices resizes a cluster of one device kind; "
                                                        "give the pools' counts in the cluster file");
    if (n < 1 || n > PT_EDGE_MAX_BOARDS)
        return pt_diag_set(d, NULL, "devices", c->name, "--devices must be 1..%d", PT_EDGE_MAX_BOARDS);
    c->nboards = n;
    c->devices_given = n;
    for (int i = 0; i < n; i++) c->board_type[i] = 0;
    return PT_OK;
}

/* ---- a layer on a unit ------------------------------------------------------ */

double pt_edge_out_bytes(const pt_glayer *l, pt_edge_dtype dt)
{
    double e = l->seq ? (double)l->t * (double)(l->d > 0 ? l->d : 1) : (double)l->c * (double)l->h * (double)l->w;
    return e * pt_edge_elem_bytes(dt);
}

static double unit_layer_s(const pt_glayer *l, const pt_edge_type *t, const pt_edge_unit *u, pt_edge_dtype dt,
                           double samples, int intra, int inter, double share, double bw_frac)
{
    double peak = u->tflops[dt] * 1e12, eb = pt_edge_elem_bytes(dt), busy = 0, ops = 1.0, per_thread;
    double sub = ceil(samples / inter), op_us;
    pt_roofline r;
    if (!(peak > 0)) return INFINITY;
    memset(&r, 0, sizeof r);
    /* the sub-batches share the unit's part of the board's bandwidth */
    r.mem_bw = t->dev.memory_bw_GBps * 1e9 * PT_EDGE_MEM_EFF * bw_frac / inter;
    switch (u->kind) {
    case PT_UNIT_CPU:
        r.gemm_eff = PT_EDGE_CPU_EFF, r.gemm_half = PT_EDGE_CPU_HALF_FLOP, op_us = PT_EDGE_CPU_OP_US;
        break;
    case PT_UNIT_GPU: r.gemm_eff = PT_EDGE_GPU_EFF, r.gemm_half = PT_EDGE_GPU_HALF_FLOP, op_us = PT_EDGE_GPU_OP_US; break;
    default: r.gemm_eff = PT_EDGE_NPU_EFF, r.gemm_half = PT_EDGE_NPU_HALF_FLOP, op_us = PT_EDGE_NPU_OP_US; break;
    }
    /* a CPU cluster: each of `intra` threads has 1/cores of the peak and
     * 1/intra of the work; other units are one device */
    per_thread = u->kind == PT_UNIT_CPU ? peak / u->cores : peak;
    for (int k = 0; k < l->ngemm; k++) {
        /* the gbatch GEMMs of a step (grouped and depthwise convolutions,
         * attention heads) are one batched kernel, vectorised across them
         * (XNNPACK's depthwise kernels run over channels); recurrent steps
         * follow one another */
        double M = l->gm[k] * sub, N = l->gn[k], K = l->gk[k], nb = l->gbatch[k];
        double reps = l->gserial[k];
        /* a segment of the layer: its share of the rows (or of the output
         * features when there is one row) */
        if (M * share >= 1.0) M *= share;
        else N *= share;
        if (u->kind == PT_UNIT_CPU && intra > 1) {
            /* the threads split the rows (or columns) of each GEMM */
            double tc, tm, f = 2.0 * M * N * K * nb / intra;
            double eff = r.gemm_eff * f / (f + r.gemm_half);
            tc = f / (per_thread * eff);
            tm = eb * (M * K + K * N + M * N) * nb / r.mem_bw;
            busy += reps * (tc > tm ? tc : tm);
        } else {
            busy += reps * pt_roofline_gemm_s(&r, per_thread, M, N, K, nb, eb);
        }
        ops += l->gserial[k] - 1.0;
    }
    /* element-wise bytes are counted at 2 bytes an element (graph.c) */
    busy += pt_roofline_ew_s(&r, l->mem_bytes * sub * share * eb / 2.0);
    if (u->kind == PT_UNIT_CPU && intra > 1) op_us += PT_EDGE_CPU_SYNC_US * (intra - 1);
    return busy + ops * op_us * 1e-6;
}

double pt_edge_layer_s(const pt_glayer *l, const pt_edge_type *t, int ui, pt_edge_dtype dt, double samples,
                       int intra, int inter, double share, double chip_Bps, double chip_latency_s)
{
    return pt_edge_layer_bw_s(l, t, ui, dt, samples, intra, inter, share, 1.0, chip_Bps, chip_latency_s);
}

double pt_edge_layer_bw_s(const pt_glayer *l, const pt_edge_type *t, int ui, pt_edge_dtype dt, double samples,
                          int intra, int inter, double share, double bw_frac, double chip_Bps,
                          double chip_latency_s)
{
    const pt_edge_unit *u;
    assert(l && t && ui >= 0 && ui < t->nunits && samples > 0 && intra >= 1 && inter >= 1 && bw_frac > 0);
    u = &t->unit[ui];
    if (l->op == PT_G_INPUT) return 0;
    if (!(u->ops & (1u << l->op))) {
        /* falls back: the fallback unit runs it with all its cores, its
         * input and output crossing the on-chip link */
        const pt_edge_unit *f = u->fallback >= 0 ? &t->unit[u->fallback] : NULL;
        double x = 2.0 * (pt_edge_out_bytes(l, dt) * samples * share / chip_Bps + chip_latency_s);
        if (!f) return INFINITY;
        return unit_layer_s(l, t, f, dt, samples, f->kind == PT_UNIT_CPU ? f->cores : 1, 1, share, bw_frac) + x;
    }
    return unit_layer_s(l, t, u, dt, samples, intra, inter, share, bw_frac);
}
