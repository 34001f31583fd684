/*
 * fuzz_cluster.c -- libFuzzer harness of the cluster-file reader
 * (pt_cluster_parse, src/hw/cluster.c), then of what uses a cluster:
 * pt_cluster_resize (--gpus) and the collective-time formulas (coll.c).
 *
 * On PT_OK the invariants of cluster.c's header must hold: 1..PT_MAX_LEVELS
 * levels, inner sizes strictly growing and each dividing the next (the
 * outermost: whole units of the level inside it, when that has a unit), the
 * outermost size equal to devices, bw_GBps > 0, latency_us >= 0,
 * 0 < efficiency <= 1, and a device whose rates are > 0; resizing either
 * refuses with a diagnostic or keeps the invariants; a collective over any
 * group takes a non-negative time (never NaN); and gpt-1.7b priced on it
 * (tp=1, dp = every device) has a step time > 0 and a memory total that is
 * not negative (absurd but legal rates, memory_GiB 1e300, bw_GBps 1e-300,
 * may give +inf seconds or saturated bytes, never NaN or overflow).  On
 * PT_EINPUT the diagnostic names the file and a line (fuzz.h).
 */
#include <math.h>

#include "fuzz.h"

#define FILE_NAME "cluster.json"

static void check_cluster(const pt_cluster *c)
{
    FZ_CHECK(c->name[0] != '\0' && fz_terminated(c->name, sizeof c->name));
    FZ_CHECK(c->nlevels >= 1 && c->nlevels <= PT_MAX_LEVELS);
    FZ_CHECK(c->devices >= 1 && c->devices <= INT32_MAX);
    FZ_CHECK(c->level[c->nlevels - 1].size == c->devices);
    for (int i = 0; i < c->nlevels; i++) {
        const pt_level *l = &c->level[i];
        FZ_CHECK(l->size >= 1);
        FZ_CHECK(l->bw_GBps > 0 && isfinite(l->bw_GBps));
        FZ_CHECK(l->latency_us >= 0 && isfinite(l->latency_us));
        FZ_CHECK(l->efficiency > 0 && l->efficiency <= 1);
        if (i > 0) {
            /* the outermost level: whole units of the level inside it (a
             * job may take part of an NVL72 rack, cluster.c) */
            const pt_level *in = &c->level[i - 1];
            int64_t u = in->unit > 0 && in->unit < in->size ? in->unit : in->size;
            int outer = i == c->nlevels - 1 && u < in->size;
            FZ_CHECK(outer || in->size <= l->size);
            FZ_CHECK(l->size % (outer ? u : in->size) == 0);
        }
    }
    FZ_CHECK(c->dev.memory_GiB > 0 && c->dev.memory_bw_GBps > 0 && c->dev.tflops_bf16 > 0);
    FZ_CHECK(c->dev.host_bw_GBps > 0 && c->dev.gemm_eff > 0 && c->dev.gemm_eff <= 1);
    FZ_CHECK(c->dev.attn_eff > 0 && c->dev.mem_eff > 0);
    FZ_CHECK(c->price_per_device_hour >= 0 && c->mtbf_device_hours > 0);
}

static void check_colls(const pt_cluster *c)
{
    static const int64_t bytes[] = {0, 1, 1 << 20, INT64_C(1) << 40};
    int64_t n = c->devices;
    for (int64_t stride = 1; stride <= n; stride *= 8) {
        int64_t g = n / stride;
        for (size_t b = 0; b < sizeof bytes / sizeof bytes[0]; b++) {
            double t = pt_coll_time(c, PT_ALLREDUCE, bytes[b], g, stride);
            double f = pt_coll_time_flat(c, PT_ALLGATHER, bytes[b], g, stride);
            double p = pt_p2p_time(c, bytes[b], g, stride);
            int lv = pt_coll_level(c, g, stride);
            /* >= 0 and not NaN; absurd but legal rates (bw_GBps 1e-300) may
             * give +inf */
            FZ_CHECK(t >= 0 && f >= 0 && p >= 0);
            FZ_CHECK(lv >= 0 && lv < c->nlevels);
        }
        if (stride > INT64_MAX / 8) break;
    }
}

static void check_price(const pt_cluster *c)
{
    static pt_model m;
    pt_job job = {.seq_len = 2048, .dtype = PT_BF16, .flash_attention = 1, .engine = PT_ENGINE_MEGATRON};
    pt_strategy st;
    pt_cost cost;
    pt_diag d;
    unsigned set = 0;
    if (!m.layers) FZ_CHECK(pt_model_builtin("gpt-1.7b", &m, &d) == PT_OK);
    job.global_batch = c->devices;
    FZ_CHECK(pt_strategy_parse("tp=1 pp=1 cp=1 mbs=1", &st, &set, &d) == PT_OK);
    if (pt_strategy_resolve(&st, set, &m, c, &job, &d) != PT_OK) {
        fz_check_diag(&d, NULL);
        return;
    }
    FZ_CHECK(pt_cost_eval(&m, c, &job, &st, &cost) == PT_OK);
    FZ_CHECK(cost.step_time_s > 0 && cost.mem.total >= 0 && cost.device_memory_bytes >= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_text(data, size);
    pt_cluster c;
    pt_diag d;
    pt_status st;
    memset(&c, 0, sizeof c);
    memset(&d, 0, sizeof d);
    st = pt_cluster_parse(text, FILE_NAME, &c, &d);
    FZ_CHECK(st == PT_OK || st == PT_EINPUT);
    {
        char *twin = fz_with_bom(text);
        if (twin) {
            pt_cluster c2;
            pt_diag d2;
            memset(&c2, 0, sizeof c2);
            memset(&d2, 0, sizeof d2);
            FZ_CHECK(pt_cluster_parse(twin, FILE_NAME, &c2, &d2) == st);
            if (st == PT_OK) FZ_CHECK(memcmp(&c, &c2, sizeof c) == 0);
            else fz_same_diag(&d, &d2);
            free(twin);
        }
    }
    if (st == PT_OK) {
        static const int64_t sizes[] = {1, 8, 9, 72, 1024, 4096};
        check_cluster(&c);
        check_colls(&c);
        check_price(&c);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] + 1; i++) {
            pt_cluster r = c;
            int64_t n = i < sizeof sizes / sizeof sizes[0] ? sizes[i] : 2 * c.devices;
            memset(&d, 0, sizeof d);
            if (pt_cluster_resize(&r, n, &d) == PT_OK) {
                FZ_CHECK(r.devices == n);
                check_cluster(&r);
            } else {
                fz_check_diag(&d, NULL);
            }
        }
    } else {
        fz_check_diag(&d, FILE_NAME);
    }
    free(text);
    return 0;
}
