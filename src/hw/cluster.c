/*
 * cluster.c -- clusters: a device, a device count and the levels of the network
 * that joins them.  Reads cluster files (SPEC section 2) and the built-in
 * catalog (data/clusters.json, compiled in as pt_data_clusters_json), and
 * resizes a cluster for --gpus.
 *
 * Invariants of a cluster read or resized here (coll.c and the planner rely on
 * them):
 *   - 1 <= nlevels <= PT_MAX_LEVELS, innermost level first;
 *   - every inner level's size divides the next level's size, and inner sizes
 *     strictly increase outwards; the outermost level only needs to be a
 *     multiple of the unit of the level inside it, and is smaller than that
 *     level when the job takes part of one domain (16 GPUs of an NVL72 rack);
 *   - the outermost level's size equals devices (the last level spans the
 *     cluster); devices is a multiple of every inner level's unit (its size
 *     unless the level gives a smaller "unit"); when devices equals the size
 *     of the level inside it, the outermost level is a single domain of that
 *     size (e.g. dgx-a100-80g resized to 8 devices);
 *   - unit and segment are 0 (= size) or divide as the level reader checks:
 *     unit divides size and is a multiple of the inner level's unit; segment
 *     is a multiple of unit, at most size, and (outside the innermost level)
 *     a multiple of the inner level's size; the outermost level has neither;
 *   - bw_GBps > 0, latency_us >= 0, 0 < efficiency <= 1 on every level, and
 *     every number in [1e-6, 1e9] (or 0 where 0 is allowed).
 * A cluster file's outermost size says how far the network reaches; it must be
 * >= devices and is then set to devices.  pt_cluster_resize grows or shrinks
 * the outermost level in whole innermost domains (SPEC: --gpus takes whole
 * nodes); a one-level cluster can only shrink (its level is all there is).
 *
 * Partial domains.  A level with a "unit" smaller than its size lets a job
 * take part of a domain: GB200/GB300 NVL72 racks are one NVLink domain of 72
 * GPUs built of 18 compute trays of 4, and a scheduler hands out trays (Slurm
 * topology/block: a block is the rack, a node the tray).  The job's ranks
 * fill domains in order (Slurm gives consecutive ranks to the nodes of one
 * block), each domain holding pt_cluster_fill(c, j) of them, the last one
 * what is left:
 *   - a job that fits in one domain (n <= size) takes n devices of one;
 *   - a larger job takes `segment` devices of each domain (default: all of
 *     it), the last domain the rest.  NVIDIA recommends segments of 16 trays
 *     (64 GPUs) for jobs of 128 GPUs and more on GB200 NVL72 ("Unlock Exascale
 *     Performance on NVIDIA GB200 NVL72 with Slurm Topology-Aware Job
 *     Scheduling", NVIDIA technical blog, 2025: --segment=16 for large jobs,
 *     the two spare trays of each rack absorbing failures), and every public
 *     GB200 MLPerf Training v5.0 job is a multiple of 64 GPUs (256 ... 2496 =
 *     39 x 64), so the catalog's NVL72 racks say segment 64: a 128-GPU job is
 *     64 + 64 GPUs in two racks, a 100-GPU job 64 + 36.  A cluster file
 *     without segment fills whole racks: 128 = 72 + 56.
 * Outer levels scale: the fill of level j is segment_j / size_{j-1} domains
 * of level j-1, each holding its fill.  coll.c prices each group where its
 * ranks sit in these domains.
 *
 * Pools (SPEC section 10): instead of one "device" a cluster may give
 * "pools": [{"device": ..., "devices": N}, ...], up to PT_MAX_POOLS, each
 * whole innermost domains; they fill the ranks in order and the levels span
 * all of them.  Such a cluster's size is its pools' sum (--gpus cannot
 * change it); c->dev is pool 0's device, and src/cost/hetero.c prices each
 * rank on its own pool's device.
 *
 * What it does not: price collectives (coll.c) or read device objects
 * (device.c, pt_device_from_json).
 */
#include "hw.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/catalog.h"

/* File name the built-in catalog's diagnostics carry. */
#define CLUSTERS_FILE "data/clusters.json"

/* Default fraction of a level's bw_GBps that a large collective reaches, when
 * the level gives no "efficiency".  nccl-tests all-reduce bus bandwidth on
 * NVLink/NVSwitch and InfiniBand typically reaches 75-90% of the link rate;
 * Calculon's a100_80g uses 0.65 for NVLink and 0.9 for IB.  To be refitted. */
#define CLUSTER_DEFAULT_LEVEL_EFFICIENCY 0.8
/* Default mean time between failures per device, hours.  Llama 3 (Dubey et al.
 * 2024, section 3.3.4) saw 419 unexpected interruptions in 54 days on 16,384
 * H100s: 16384 * 54 * 24 / 419 = about 50,700 device-hours each. */
#define CLUSTER_DEFAULT_MTBF_DEVICE_HOURS 50000.0
/* Largest device count accepted (fits an int, which strategy degrees use). */
#define CLUSTER_DEVICES_MAX ((int64_t)2147483647)

/* The catalog's names, in the order of data/clusters.json (tests/test_hw.c
 * checks that the two agree). */
static const char *const cluster_names[] = {
    "dgx-1-v100",       "dgx-2-v100", "dgx-a100-40g", "dgx-a100-80g", "dgx-h100",
    "dgx-h200",         "grand-teton-h100", "gh200-quad", "hgx-h800",  "dgx-b200",
    "dgx-b300",         "gb200-nvl72", "gb300-nvl72", "rtx-pro-server", "l40s-server", "rpi4-gbe", "rpi4-wifi5",
    "orin-nano-wifi6",  "agx-orin-gbe", "phones-wifi6",     "mixed-h100-a100", "mixed-a100-40g-v100",
};
#define N_CLUSTERS ((int)(sizeof cluster_names / sizeof cluster_names[0]))

int pt_cluster_catalog_count(void)
{
    return N_CLUSTERS;
}

const char *pt_cluster_catalog_name(int i)
{
    return i >= 0 && i < N_CLUSTERS ? cluster_names[i] : NULL;
}

static int is_builtin(const char *name)
{
    for (int i = 0; i < N_CLUSTERS; i++)
        if (strcmp(cluster_names[i], name) == 0) return 1;
    return 0;
}

static int is_builtin_device(const char *name)
{
    for (int i = 0; i < pt_device_catalog_count(); i++)
        if (strcmp(pt_device_catalog_name(i), name) == 0) return 1;
    return 0;
}

/* ---- device-count rules ----------------------------------------------------- */

/* The part of a level's domain a job takes at a time, and the devices it
 * takes of each domain when it spans several (0 in the struct = size). */
static int64_t level_unit(const pt_level *l)
{
    return l->unit > 0 && l->unit < l->size ? l->unit : l->size;
}

static int64_t level_segment(const pt_level *l)
{
    return l->segment > 0 && l->segment < l->size ? l->segment : l->size;
}

int64_t pt_cluster_fill(const pt_cluster *c, int j)
{
    int64_t cap = 1, inner = 1, n = c->devices;
    assert(c && j >= 0 && j < c->nlevels);
    if (j == c->nlevels - 1 || n <= c->level[j].size) return n;
    for (int i = 0; i <= j; i++) {
        int64_t g = level_segment(&c->level[i]);
        cap = g / inner * cap;
        inner = c->level[i].size;
    }
    return cap < n ? cap : n;
}

/* Why n devices do not fit the inner levels of c (every level but the
 * outermost), written into why after "devices: N "; 0 when they fit. */
static int devices_misfit(const pt_cluster *c, int64_t n, char *why, size_t nwhy)
{
    for (int k = 0; k + 1 < c->nlevels; k++) {
        const pt_level *l = &c->level[k];
        int64_t u = level_unit(l);
        if (u < l->size) {
            if (n % u != 0) {
                snprintf(why, nwhy,
                         "is not a multiple of levels[%d].unit=%lld, the part of one \"%s\" "
                         "domain a job takes at a time",
                         k, (long long)u, l->name);
                return 1;
            }
            continue;
        }
        if (n < l->size) {
            snprintf(why, nwhy, "is smaller than levels[%d].size=%lld, one \"%s\" domain", k,
                     (long long)l->size, l->name);
            return 1;
        }
        if (n % l->size != 0) {
            snprintf(why, nwhy,
                     "is not a multiple of levels[%d].size=%lld, the size of one \"%s\" domain", k,
                     (long long)l->size, l->name);
            return 1;
        }
    }
    return 0;
}

/* ---- reading one cluster object -------------------------------------------- */


static const char *const cluster_keys[] = {
    "name",   "source", "device", "devices", "levels", "price_per_device_hour",
    "mtbf_device_hours", "pools", NULL};
static const char *const pool_keys[] = {"device", "devices", NULL};
static const char *const level_keys[] = {"name",       "size", "bw_GBps", "latency_us",
                                         "efficiency", "unit", "segment",  NULL};

static pt_status level_from_json(pt_jctx *jc, const json_t *obj, const char *path, pt_level *out)
{
    pt_level l;
    char full[256];
    pt_status st;
    memset(&l, 0, sizeof l);
    l.latency_us = 0;
    l.efficiency = CLUSTER_DEFAULT_LEVEL_EFFICIENCY;
    if (!json_is_object(obj))
        return pt_jerr(jc, path, obj,
                       "is not a level object ({\"name\": ..., \"size\": ..., \"bw_GBps\": ...})");
    if ((st = pt_json_only_keys(jc, obj, path, level_keys)) != PT_OK ||
        (st = pt_json_name(jc, obj, path, "name", 1, l.name, sizeof l.name, NULL)) != PT_OK)
        return st;
    if (!l.name[0]) {
        pt_path_join(full, sizeof full, path, "name");
        return pt_jerr(jc, full, json_object_get(obj, "name"), "is empty");
    }
    if ((st = pt_json_int(jc, obj, path, "size", 1, 1, CLUSTER_DEVICES_MAX, &l.size, NULL)) !=
            PT_OK ||
        (st = pt_hw_num_in(jc, obj, path, "bw_GBps", 1, PT_HW_POS, &l.bw_GBps)) != PT_OK ||
        (st = pt_hw_num_in(jc, obj, path, "latency_us", 0, PT_HW_NONNEG, &l.latency_us)) != PT_OK ||
        (st = pt_hw_num_in(jc, obj, path, "efficiency", 0, PT_HW_FRAC, &l.efficiency)) != PT_OK ||
        (st = pt_json_int(jc, obj, path, "unit", 0, 1, CLUSTER_DEVICES_MAX, &l.unit, NULL)) !=
            PT_OK ||
        (st = pt_json_int(jc, obj, path, "segment", 0, 1, CLUSTER_DEVICES_MAX, &l.segment,
                          NULL)) != PT_OK)
        return st;
    *out = l;
    return PT_OK;
}

/* The rules of unit and segment on level i of c (levels is the JSON array, for
 * messages); the sizes are already checked. */
static pt_status level_parts_check(pt_jctx *jc, const pt_cluster *c, const json_t *levels,
                                   const char *path, int i)
{
    const pt_level *l = &c->level[i], *in = i > 0 ? &c->level[i - 1] : NULL;
    const json_t *o = json_array_get(levels, (size_t)i);
    char lpath[300];
    int64_t u = l->unit > 0 ? l->unit : l->size;
    if (i == c->nlevels - 1) {
        const char *key = l->unit > 0 ? "unit" : l->segment > 0 ? "segment" : NULL;
        if (!key) return PT_OK;
        snprintf(lpath, sizeof lpath, "%s[%d].%s", path, i, key);
        return pt_jerr(jc, lpath, json_object_get(o, key),
                       "is given on the outermost level, which spans the whole job (unit and "
                       "segment belong to an inner level, e.g. the NVLink domain of a rack)");
    }
    if (l->unit > 0) {
        snprintf(lpath, sizeof lpath, "%s[%d].unit", path, i);
        if (l->unit > l->size || l->size % l->unit != 0)
            return pt_jerr(jc, lpath, json_object_get(o, "unit"),
                           "does not divide levels[%d].size=%lld (a domain is whole units)", i,
                           (long long)l->size);
        if (in && l->unit % level_unit(in) != 0)
            return pt_jerr(jc, lpath, json_object_get(o, "unit"),
                           "is not a multiple of levels[%d]'s unit %lld", i - 1,
                           (long long)level_unit(in));
    }
    if (l->segment > 0) {
        snprintf(lpath, sizeof lpath, "%s[%d].segment", path, i);
        if (l->segment > l->size)
            return pt_jerr(jc, lpath, json_object_get(o, "segment"),
                           "is larger than levels[%d].size=%lld", i, (long long)l->size);
        if (l->segment % u != 0)
            return pt_jerr(jc, lpath, json_object_get(o, "segment"),
                           "is not a multiple of levels[%d].unit=%lld (whole units per domain)",
                           i, (long long)u);
        if (in && l->segment % in->size != 0)
            return pt_jerr(jc, lpath, json_object_get(o, "segment"),
                           "is not a multiple of levels[%d].size=%lld (whole inner domains)",
                           i - 1, (long long)in->size);
    }
    return PT_OK;
}

/* The device v names (a catalog name or an inline object) at path. */
static pt_status device_of(pt_jctx *jc, const json_t *v, const char *path, pt_device *out)
{
    if (!v || json_is_null(v)) return pt_jerr(jc, path, NULL, "required key is missing");
    if (json_is_string(v)) {
        if (!is_builtin_device(json_string_value(v)))
            return pt_jerr(jc, path, v,
                           "is not a built-in device (`partita devices` lists them; or give "
                           "an inline device object)");
        return pt_device_builtin(json_string_value(v), out, jc->d);
    }
    if (json_is_object(v)) return pt_device_from_json(jc, v, path, out);
    return pt_jerr(jc, path, v, "is neither a device name nor a device object");
}

/* "pools": [{"device": ..., "devices": N}, ...] (SPEC section 10) into c:
 * 1..PT_MAX_POOLS pools; "device" must then be absent and "devices", if
 * given, the pools' sum.  One pool is a plain cluster of its device. */
static pt_status pools_from_json(pt_jctx *jc, const json_t *obj, const json_t *pools,
                                 const char *path, pt_cluster *c)
{
    char full[256], ppath[300], dpath[320];
    size_t np;
    int64_t sum = 0, given = 0;
    pt_status st;
    pt_path_join(full, sizeof full, path, "pools");
    if (json_object_get(obj, "device"))
        return pt_jerr(jc, full, pools, "and \"device\" are both given (a cluster has one device or "
                       "pools of devices)");
    if (!json_is_array(pools))
        return pt_jerr(jc, full, pools, "is not an array of pools ({\"device\": ..., \"devices\": N})");
    np = json_array_size(pools);
    if (np < 1 || np > PT_MAX_POOLS)
        return pt_jerr(jc, full, pools, "must hold 1 to %d pools, not %zu", PT_MAX_POOLS, np);
    for (size_t i = 0; i < np; i++) {
        const json_t *p = json_array_get(pools, i);
        pt_pool *q = &c->pool[i];
        snprintf(ppath, sizeof ppath, "%s[%zu]", full, i);
        if (!json_is_object(p))
            return pt_jerr(jc, ppath, p, "is not a pool object ({\"device\": ..., \"devices\": N})");
        if ((st = pt_json_only_keys(jc, p, ppath, pool_keys)) != PT_OK) return st;
        snprintf(dpath, sizeof dpath, "%s.device", ppath);
        if ((st = device_of(jc, json_object_get(p, "device"), dpath, &q->dev)) != PT_OK) return st;
        if ((st = pt_json_int(jc, p, ppath, "devices", 1, 1, CLUSTER_DEVICES_MAX, &q->devices,
                              NULL)) != PT_OK)
            return st;
        if (q->devices > CLUSTER_DEVICES_MAX - sum)
            return pt_jerr(jc, ppath, json_object_get(p, "devices"), "makes the pools hold more than %lld devices",
                           (long long)CLUSTER_DEVICES_MAX);
        sum += q->devices;
    }
    if ((st = pt_json_int(jc, obj, path, "devices", 0, 1, CLUSTER_DEVICES_MAX, &given, NULL)) != PT_OK)
        return st;
    if (given && given != sum) {
        pt_path_join(full, sizeof full, path, "devices");
        return pt_jerr(jc, full, json_object_get(obj, "devices"),
                       "is not the pools' sum, %lld (leave it out with pools)", (long long)sum);
    }
    c->devices = sum;
    c->dev = c->pool[0].dev;
    c->npools = np > 1 ? (int)np : 0;
    if (np == 1) memset(&c->pool[0], 0, sizeof c->pool[0]);
    return PT_OK;
}

/* Each pool is whole innermost domains (pools fill nodes in order). */
static pt_status pools_check(pt_jctx *jc, const pt_cluster *c, const json_t *obj, const char *path)
{
    char full[300];
    int64_t u;
    if (c->npools < 2 || c->nlevels < 2) return PT_OK;
    u = level_unit(&c->level[0]);
    for (int i = 0; i < c->npools; i++)
        if (c->pool[i].devices % u != 0) {
            snprintf(full, sizeof full, "%s%spools[%d].devices", path, path[0] ? "." : "", i);
            return pt_jerr(jc, full,
                           json_object_get(json_array_get(json_object_get(obj, "pools"), (size_t)i), "devices"),
                           "is not a multiple of levels[0]'s %lld (pools fill whole \"%s\" domains, in order)",
                           (long long)u, c->level[0].name);
        }
    return PT_OK;
}

/* Reads the cluster object obj (named by path inside jc's document: "" for a
 * cluster file, "clusters[3]" in the catalog) into *out; untouched on failure. */
static pt_status cluster_from_json(pt_jctx *jc, const json_t *obj, const char *path,
                                   pt_cluster *out)
{
    pt_cluster c;
    char full[256], lpath[288], why[256];
    const json_t *v, *levels;
    pt_status st;
    size_t nl;
    int last;

    memset(&c, 0, sizeof c);
    c.price_per_device_hour = 0;
    c.mtbf_device_hours = CLUSTER_DEFAULT_MTBF_DEVICE_HOURS;
    if (!json_is_object(obj)) return pt_jerr(jc, path, obj, "is not a cluster object");
    if ((st = pt_json_only_keys(jc, obj, path, cluster_keys)) != PT_OK ||
        (st = pt_json_name(jc, obj, path, "name", 1, c.name, sizeof c.name, NULL)) != PT_OK)
        return st;
    if (!c.name[0]) {
        pt_path_join(full, sizeof full, path, "name");
        return pt_jerr(jc, full, json_object_get(obj, "name"), "is empty");
    }
    v = json_object_get(obj, "source");
    if (v && !json_is_string(v)) {
        pt_path_join(full, sizeof full, path, "source");
        return pt_jerr(jc, full, v, "is not a string");
    }

    /* device: a catalog name or an inline device object; or pools of them */
    v = json_object_get(obj, "pools");
    if (v && !json_is_null(v)) {
        if ((st = pools_from_json(jc, obj, v, path, &c)) != PT_OK) return st;
    } else {
        pt_path_join(full, sizeof full, path, "device");
        if ((st = device_of(jc, json_object_get(obj, "device"), full, &c.dev)) != PT_OK) return st;
        if ((st = pt_json_int(jc, obj, path, "devices", 1, 1, CLUSTER_DEVICES_MAX, &c.devices,
                              NULL)) != PT_OK)
            return st;
    }

    /* levels, innermost first */
    pt_path_join(full, sizeof full, path, "levels");
    levels = json_object_get(obj, "levels");
    if (!levels || json_is_null(levels)) return pt_jerr(jc, full, NULL, "required key is missing");
    if (!json_is_array(levels))
        return pt_jerr(jc, full, levels, "is not an array of levels (innermost first)");
    nl = json_array_size(levels);
    if (nl < 1 || nl > PT_MAX_LEVELS)
        return pt_jerr(jc, full, levels, "must hold 1 to %d levels (innermost first), not %zu",
                       PT_MAX_LEVELS, nl);
    c.nlevels = (int)nl;
    for (int i = 0; i < c.nlevels; i++) {
        snprintf(lpath, sizeof lpath, "%s[%d]", full, i);
        if ((st = level_from_json(jc, json_array_get(levels, (size_t)i), lpath, &c.level[i])) !=
            PT_OK)
            return st;
    }

    if ((st = pt_hw_num_in(jc, obj, path, "price_per_device_hour", 0, PT_HW_NONNEG,
                     &c.price_per_device_hour)) != PT_OK ||
        (st = pt_hw_num_in(jc, obj, path, "mtbf_device_hours", 0, PT_HW_POS, &c.mtbf_device_hours)) != PT_OK)
        return st;

    /* the rules between levels, and between levels and devices */
    last = c.nlevels - 1;
    for (int i = 0; i < c.nlevels; i++)
        if ((st = level_parts_check(jc, &c, levels, full, i)) != PT_OK) return st;
    for (int i = 1; i < c.nlevels; i++) {
        const pt_level *in = &c.level[i - 1], *l = &c.level[i];
        snprintf(lpath, sizeof lpath, "%s[%d].size", full, i);
        if (l->size <= in->size)
            return pt_jerr(jc, lpath, json_object_get(json_array_get(levels, (size_t)i), "size"),
                           "is not larger than levels[%d].size=%lld (levels go from the "
                           "innermost domain outwards)",
                           i - 1, (long long)in->size);
        if (i == last && level_unit(in) < in->size) {
            /* the network's reach: whole units of the level inside it */
            if (l->size % level_unit(in) != 0)
                return pt_jerr(jc, lpath,
                               json_object_get(json_array_get(levels, (size_t)i), "size"),
                               "is not a multiple of levels[%d].unit=%lld", i - 1,
                               (long long)level_unit(in));
        } else if (l->size % in->size != 0)
            return pt_jerr(jc, lpath, json_object_get(json_array_get(levels, (size_t)i), "size"),
                           "is not a multiple of levels[%d].size=%lld", i - 1,
                           (long long)in->size);
    }
    if (c.level[last].size < c.devices) {
        snprintf(lpath, sizeof lpath, "%s[%d].size", full, last);
        return pt_jerr(jc, lpath, json_object_get(json_array_get(levels, (size_t)last), "size"),
                       "is smaller than devices=%lld (the outermost level must span the "
                       "cluster)",
                       (long long)c.devices);
    }
    if ((st = pools_check(jc, &c, obj, path)) != PT_OK) return st;
    if (devices_misfit(&c, c.devices, why, sizeof why)) {
        pt_path_join(full, sizeof full, path, "devices");
        return pt_jerr(jc, full, json_object_get(obj, "devices"), "%s", why);
    }
    c.level[last].size = c.devices;
    *out = c;
    return PT_OK;
}

/* ---- entry points ------------------------------------------------------------ */

pt_status pt_cluster_parse(const char *text, const char *file, pt_cluster *out, pt_diag *d)
{
    pt_diag scratch;
    pt_jctx jc;
    json_t *root;
    pt_status st;
    assert(text && out);
    if (!d) d = &scratch;
    jc.text = text;
    jc.file = file ? file : "";
    jc.d = d;
    root = pt_json_parse(&jc);
    if (!root) return PT_EINPUT;
    st = cluster_from_json(&jc, root, "", out);
    json_decref(root);
    return st;
}

static pt_status read_cluster(pt_jctx *jc, const json_t *obj, const char *path, void *out)
{
    return cluster_from_json(jc, obj, path, out);
}

pt_status pt_cluster_builtin(const char *name, pt_cluster *out, pt_diag *d)
{
    assert(name && out);
    return pt_hw_catalog_entry(pt_data_clusters_json, CLUSTERS_FILE, "clusters", "cluster", name, read_cluster, out,
                               d);
}

pt_status pt_cluster_load(const char *name_or_path, pt_cluster *out, pt_diag *d)
{
    pt_diag scratch;
    char *text = NULL;
    pt_status st;
    assert(name_or_path && out);
    if (!d) d = &scratch;
    if (is_builtin(name_or_path)) return pt_cluster_builtin(name_or_path, out, d);
    st = pt_read_file(name_or_path, &text, d);
    if (st != PT_OK) {
        char why[sizeof d->msg];
        if (st != PT_EINPUT) return st;
        pt_strlcpy(why, d->msg, sizeof why);
        return pt_diag_set(d, NULL, "cluster", name_or_path,
                           "\"%s\" is not a built-in cluster (`partita clusters` lists them) "
                           "nor a readable cluster file (%s)",
                           name_or_path, why);
    }
    st = pt_cluster_parse(text, name_or_path, out, d);
    free(text);
    return st;
}

pt_status pt_cluster_resize(pt_cluster *c, int64_t n, pt_diag *d)
{
    char why[256], val[32];
    pt_diag scratch;
    assert(c && c->nlevels >= 1 && c->nlevels <= PT_MAX_LEVELS);
    if (!d) d = &scratch;
    snprintf(val, sizeof val, "%lld", (long long)n);
    if (n < 1 || n > CLUSTER_DEVICES_MAX)
        return pt_diag_set(d, NULL, "devices", val, "devices: %s is not in [1, %lld]", val,
                           (long long)CLUSTER_DEVICES_MAX);
    if (c->npools > 1 && n != c->devices)
        return pt_diag_set(d, NULL, "devices", val,
                           "devices: %s: cluster %s has pools of different devices, which fix its "
                           "size at %lld (change the pools' \"devices\" in the cluster file)",
                           val, c->name, (long long)c->devices);
    if (c->nlevels == 1 && n > c->level[0].size)
        return pt_diag_set(d, NULL, "devices", val,
                           "devices: %s is larger than cluster %s, whose one level \"%s\" "
                           "holds %lld devices",
                           val, c->name, c->level[0].name, (long long)c->level[0].size);
    if (devices_misfit(c, n, why, sizeof why))
        return pt_diag_set(d, NULL, "devices", val,
                           "devices: %s %s (cluster %s; --gpus takes whole nodes)", val, why,
                           c->name);
    c->devices = n;
    c->level[c->nlevels - 1].size = n;
    return PT_OK;
}
