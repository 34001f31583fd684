/*
 * test_coll.c -- collective and point-to-point times (src/hw/coll.c).
 *
 * The clusters are written by hand as pt_cluster literals with round numbers,
 * so every expected value below is the formula of coll.c's header comment
 * worked out by hand:
 *   ring all-reduce of S bytes over n:  2(n-1)/n * S / bw + 2(n-1) * latency
 *   reduce-scatter, all-gather:         (n-1)/n * S / bw + (n-1) * latency
 *   all-to-all:                         (n-1)/n * S / bw
 * and, across levels, the hierarchical form: reduce-scatter inside the node on
 * S, then over the next level on the S/g_0 shard each device holds, all-gather
 * mirrored.  bw is bw_GBps * 1e9 * efficiency.  Partial NVL72 racks: the
 * stage formulas of coll.c's header for the worst-placed group, worked out
 * from which ranks sit in which rack.
 */
#include "helpers.h"

#define S INT64_C(1000000000) /* 1e9 bytes: the buffer of every case below */

/* Relative tolerance 1e-12 (absolute 1e-12 where want <= 0) for times that are
 * a few floating-point operations; a failure names the expression. */
#define near(got, want) th_near_abs((got), (want), 1e-12 * ((want) > 0 ? (want) : 1.0), #got)

/* One level: 8 devices at 100 GB/s, no latency, efficiency 1. */
static pt_cluster one_level(double latency_us)
{
    pt_cluster c;
    memset(&c, 0, sizeof c);
    strcpy(c.name, "one");
    c.devices = 8;
    c.nlevels = 1;
    c.level[0] = (pt_level){.name = "nvlink", .size = 8, .bw_GBps = 100.0, .latency_us = latency_us,
                            .efficiency = 1.0};
    return c;
}

/* Two levels: nodes of 8 at 300 GB/s, 64 devices at 25 GB/s (a DGX A100 pod). */
static pt_cluster two_level(double lat0_us, double lat1_us)
{
    pt_cluster c;
    memset(&c, 0, sizeof c);
    strcpy(c.name, "two");
    c.devices = 64;
    c.nlevels = 2;
    c.level[0] = (pt_level){.name = "nvlink", .size = 8, .bw_GBps = 300.0, .latency_us = lat0_us,
                            .efficiency = 1.0};
    c.level[1] = (pt_level){.name = "ib", .size = 64, .bw_GBps = 25.0, .latency_us = lat1_us,
                            .efficiency = 1.0};
    return c;
}

/* ---- one level ----------------------------------------------------------------- */

static void test_one_level_ring(void **state)
{
    pt_cluster c = one_level(0);
    (void)state;
    /* all-reduce over 8: 2*7/8 * 1e9 / 100e9 = 1.75 * 0.01 = 0.0175 s */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 8, 1), 0.0175);
    /* reduce-scatter and all-gather: half of it, 7/8 * 0.01 = 0.00875 s */
    near(pt_coll_time(&c, PT_REDUCESCATTER, S, 8, 1), 0.00875);
    near(pt_coll_time(&c, PT_ALLGATHER, S, 8, 1), 0.00875);
    /* over 4 (stride 1 or 2: both inside the one domain): 2*3/4 * 0.01 = 0.015 s */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 4, 1), 0.015);
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 4, 2), 0.015);
    /* over 2: 2*1/2 * 0.01 = 0.01 s */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 2, 1), 0.01);
    /* all-to-all over 8: 7/8 * 0.01 = 0.00875 s (no latency here) */
    near(pt_coll_time(&c, PT_ALLTOALL, S, 8, 1), 0.00875);
    /* one flat ring over the one level is the same ring */
    near(pt_coll_time_flat(&c, PT_ALLREDUCE, S, 8, 1), 0.0175);
    near(pt_coll_time_flat(&c, PT_REDUCESCATTER, S, 8, 1), 0.00875);
    near(pt_coll_time_flat(&c, PT_ALLGATHER, S, 8, 1), 0.00875);
}

static void test_one_level_latency(void **state)
{
    pt_cluster c = one_level(5.0); /* 5 us per hop */
    (void)state;
    /* all-reduce over 8: 0.0175 s + 2*7 hops * 5e-6 s = 0.0175 + 7e-5 = 0.01757 s */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 8, 1), 0.01757);
    /* reduce-scatter: 0.00875 + 7 * 5e-6 = 0.008785 s */
    near(pt_coll_time(&c, PT_REDUCESCATTER, S, 8, 1), 0.008785);
    /* a tiny all-reduce is latency-bound: 8 bytes, 2*7/8*8/1e11 + 7e-5 = 1.4e-10 + 7e-5 */
    near(pt_coll_time(&c, PT_ALLREDUCE, 8, 8, 1), 1.4e-10 + 7e-5);
    /* point-to-point: 1e9 / 100e9 + 5e-6 = 0.010005 s */
    near(pt_p2p_time(&c, S, 8, 1), 0.010005);
}

static void test_efficiency(void **state)
{
    pt_cluster c = one_level(0);
    (void)state;
    /* efficiency 0.8: bw 80 GB/s, all-reduce 2*7/8 * 1e9 / 80e9 = 0.021875 s */
    c.level[0].efficiency = 0.8;
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 8, 1), 0.021875);
    /* p2p: 1e9 / 80e9 = 0.0125 s */
    near(pt_p2p_time(&c, S, 2, 1), 0.0125);
    /* efficiency 0 (a literal that leaves it out) reads as 1: 0.0175 s again */
    c.level[0].efficiency = 0;
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 8, 1), 0.0175);
}

/* ---- two levels ----------------------------------------------------------------- */

static void test_two_level_hierarchical(void **state)
{
    pt_cluster c = two_level(0, 0);
    double inner_rs = 7.0 / 8.0 * 1e9 / 300e9;       /* 0.0029166.. s on S     */
    double outer_rs = 7.0 / 8.0 * (1e9 / 8) / 25e9;  /* 0.004375 s on S/8     */
    (void)state;
    /* 64 ranks, stride 1 (a dp group with tp=1): inner reduce-scatter over the 8
     * of a node on S, outer all-reduce over the 8 nodes on the S/8 shard, inner
     * all-gather on S:
     *   7/8 * 1e9/300e9 + 2*7/8 * 1.25e8/25e9 + 7/8 * 1e9/300e9
     *   = 0.00291667 + 0.00875 + 0.00291667 = 0.01458333 s */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 64, 1), 2 * inner_rs + 2 * outer_rs);
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 64, 1), 0.0029166666666666666 * 2 + 0.00875);
    /* reduce-scatter / all-gather: one of each level, 0.00729167 s */
    near(pt_coll_time(&c, PT_REDUCESCATTER, S, 64, 1), inner_rs + outer_rs);
    near(pt_coll_time(&c, PT_ALLGATHER, S, 64, 1), inner_rs + outer_rs);
    /* the same group priced as one flat ring at the slowest level (25 GB/s):
     *   2*63/64 * 1e9/25e9 = 0.07875 s; reduce-scatter 0.039375 s */
    near(pt_coll_time_flat(&c, PT_ALLREDUCE, S, 64, 1), 0.07875);
    near(pt_coll_time_flat(&c, PT_REDUCESCATTER, S, 64, 1), 0.039375);
    near(pt_coll_time_flat(&c, PT_ALLGATHER, S, 64, 1), 0.039375);
    /* the hierarchical ring is the faster of the two */
    assert_true(pt_coll_time(&c, PT_ALLREDUCE, S, 64, 1) <
                pt_coll_time_flat(&c, PT_ALLREDUCE, S, 64, 1));
}

static void test_two_level_one_per_node(void **state)
{
    pt_cluster c = two_level(0, 0);
    (void)state;
    /* 8 ranks, stride 8 (a dp group with tp=8): one rank per node, so only the
     * outer level, on the full S: 2*7/8 * 1e9/25e9 = 0.07 s */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 8, 8), 0.07);
    near(pt_coll_time(&c, PT_REDUCESCATTER, S, 8, 8), 0.035);
    near(pt_coll_time_flat(&c, PT_ALLREDUCE, S, 8, 8), 0.07);
    /* all-to-all: 7/8 of S leaves the node: 7/8 * 1e9/25e9 = 0.035 s */
    near(pt_coll_time(&c, PT_ALLTOALL, S, 8, 8), 0.035);
    /* 2 ranks, stride 8 (neighbouring pipeline stages of tp=8): 2*1/2*1e9/25e9 = 0.04 s */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 2, 8), 0.04);
    /* 8 ranks, stride 1 (tp=8 inside a node): 2*7/8 * 1e9/300e9 = 0.00583333 s */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 8, 1), 2.0 * 7.0 / 8.0 * 1e9 / 300e9);
}

static void test_tp_spills_to_network(void **state)
{
    pt_cluster c = two_level(0, 0);
    (void)state;
    /* tp=16 on 8-GPU nodes: inner reduce-scatter over 8 on S, then the 2 nodes
     * on the S/8 shard, all-gather mirrored:
     *   2 * (7/8 * 1e9/300e9 + 1/2 * 1.25e8/25e9) = 2 * (0.00291667 + 0.0025)
     *   = 0.01083333 s, almost twice the 0.00583333 s of tp=8 */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 16, 1),
         2.0 * (7.0 / 8.0 * 1e9 / 300e9 + 0.5 * 1.25e8 / 25e9));
    assert_true(pt_coll_time(&c, PT_ALLREDUCE, S, 16, 1) >
                1.8 * pt_coll_time(&c, PT_ALLREDUCE, S, 8, 1));
    assert_int_equal(pt_coll_level(&c, 16, 1), 1);
    /* a p2p between its ends crosses the network: 1e9/25e9 = 0.04 s */
    near(pt_p2p_time(&c, S, 16, 1), 0.04);
}

static void test_two_level_latency(void **state)
{
    pt_cluster c = two_level(2.0, 5.0);
    (void)state;
    /* each level adds (g-1) hops per reduce-scatter: 7 * 2 us + 7 * 5 us = 49 us,
     * twice for an all-reduce: 0.01458333 + 98e-6 s */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 64, 1),
         2.0 * (7.0 / 8.0 * 1e9 / 300e9 + 7.0 / 8.0 * 1.25e8 / 25e9) + 98e-6);
    /* flat ring at the outer level: 0.07875 s + 2*63 * 5 us = 0.07875 + 630e-6 */
    near(pt_coll_time_flat(&c, PT_ALLREDUCE, S, 64, 1), 0.07875 + 630e-6);
    /* tp=16: 7 hops of 2 us and 1 hop of 5 us per half: 0.01083333 + 2*19e-6 */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 16, 1),
         2.0 * (7.0 / 8.0 * 1e9 / 300e9 + 0.5 * 1.25e8 / 25e9) + 38e-6);
    /* p2p inside a node: 1e9/300e9 + 2e-6; across nodes: 1e9/25e9 + 5e-6 */
    near(pt_p2p_time(&c, S, 2, 1), 1e9 / 300e9 + 2e-6);
    near(pt_p2p_time(&c, S, 8, 8), 0.04 + 5e-6);
}

static void test_coll_level(void **state)
{
    pt_cluster c = two_level(0, 0);
    (void)state;
    /* inside one node of 8 */
    assert_int_equal(pt_coll_level(&c, 1, 1), 0);
    assert_int_equal(pt_coll_level(&c, 8, 1), 0);
    assert_int_equal(pt_coll_level(&c, 4, 2), 0);  /* ranks 0,2,4,6 */
    assert_int_equal(pt_coll_level(&c, 2, 4), 0);  /* ranks 0,4     */
    /* spanning nodes */
    assert_int_equal(pt_coll_level(&c, 2, 8), 1);  /* ranks 0,8     */
    assert_int_equal(pt_coll_level(&c, 8, 8), 1);
    assert_int_equal(pt_coll_level(&c, 4, 4), 1);  /* ranks 0,4,8,12 */
    assert_int_equal(pt_coll_level(&c, 16, 1), 1);
    assert_int_equal(pt_coll_level(&c, 64, 1), 1);
    /* one level: always 0 */
    c = one_level(0);
    assert_int_equal(pt_coll_level(&c, 8, 1), 0);
}

static void test_trivial_groups(void **state)
{
    pt_cluster c = two_level(2.0, 5.0);
    (void)state;
    /* a group of one moves nothing and waits for no one */
    for (int op = PT_ALLREDUCE; op <= PT_ALLTOALL; op++) {
        near(pt_coll_time(&c, (pt_coll_op)op, S, 1, 1), 0);
        near(pt_coll_time(&c, (pt_coll_op)op, S, 1, 8), 0);
        near(pt_coll_time_flat(&c, (pt_coll_op)op, S, 1, 1), 0);
        /* nor does an empty buffer */
        near(pt_coll_time(&c, (pt_coll_op)op, 0, 64, 1), 0);
        near(pt_coll_time_flat(&c, (pt_coll_op)op, 0, 64, 1), 0);
    }
    near(pt_p2p_time(&c, S, 1, 1), 0);
    near(pt_p2p_time(&c, 0, 8, 8), 0);
}

/* The same formulas on a catalog cluster: dgx-a100-80g is nodes of 8 at
 * 300 GB/s and 2 us, InfiniBand at 25 GB/s and 5 us, efficiency 0.8 by default
 * (data/clusters.json).  tp=8 all-reduce of one GPT-3 activation, b*s*h*2 bytes
 * = 1*2048*12288*2 = 50331648: 2*7/8 * 50331648 / 240e9 + 14 * 2e-6. */
static void test_catalog_cluster(void **state)
{
    pt_cluster c;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_cluster_builtin("dgx-a100-80g", &c, &d), PT_OK);
    near(c.level[0].bw_GBps, 300);
    near(c.level[0].latency_us, 2);
    near(pt_coll_time(&c, PT_ALLREDUCE, 50331648, 8, 1),
         2.0 * 7.0 / 8.0 * 50331648.0 / (300e9 * c.level[0].efficiency) + 14 * 2e-6);
}

/* ---- partial NVLink domains (GB200 NVL72) -------------------------------------- */

/* NVL72 racks: one NVLink domain of 72 at 900 GB/s, jobs in 4-GPU trays,
 * `segment` GPUs of each rack when a job spans several (0: whole racks), and
 * 50 GB/s per GPU between racks; n devices; no latency, efficiency 1. */
static pt_cluster nvl72(int64_t segment, int64_t n)
{
    pt_cluster c;
    memset(&c, 0, sizeof c);
    strcpy(c.name, "nvl72");
    c.devices = n;
    c.nlevels = 2;
    c.level[0] = (pt_level){.name = "nvlink", .size = 72, .bw_GBps = 900.0, .efficiency = 1.0,
                            .unit = 4, .segment = segment};
    c.level[1] = (pt_level){.name = "ib", .size = n, .bw_GBps = 50.0, .efficiency = 1.0};
    return c;
}

#define NV (1e9 / 900e9) /* S over NVLink: 1.1111 ms */
#define IB (1e9 / 50e9)  /* S over the network: 20 ms */

/* 128 GPUs as a scheduler places them (segments of 16 trays): 64 + 64. */
static void test_nvl72_128_in_segments(void **state)
{
    pt_cluster c = nvl72(64, 128);
    (void)state;
    assert_int_equal(pt_cluster_fill(&c, 0), 64);
    assert_int_equal(pt_cluster_fill(&c, 1), 128);
    /* tp=8 inside one rack at NVLink speed: 2*7/8 * S/900e9 = 1.9444 ms */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 8, 1), 2.0 * 7.0 / 8.0 * NV);
    assert_int_equal(pt_coll_level(&c, 8, 1), 0);
    /* ep=64 all-to-all, a whole rack: 63/64 * S/900e9 */
    near(pt_coll_time(&c, PT_ALLTOALL, S, 64, 1), 63.0 / 64.0 * NV);
    assert_int_equal(pt_coll_level(&c, 64, 1), 0);
    /* dp=16 at stride 8 (tp=8): 8 ranks in each rack; reduce-scatter over
     * the 8 of a rack on S, then the 2 racks on the S/8 shard:
     *   2 * (7/8 * S/900e9 + 1/2 * S/8 / 50e9) = 2 * (0.97222 + 1.25) ms */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 16, 8), 2.0 * (7.0 / 8.0 * NV + 0.5 / 8.0 * IB));
    assert_int_equal(pt_coll_level(&c, 16, 8), 1);
    /* ep=128 all-to-all: half of every buffer leaves the rack: 1/2 * S/50e9 = 10 ms */
    near(pt_coll_time(&c, PT_ALLTOALL, S, 128, 1), 0.5 * IB);
}

/* 128 GPUs filling whole racks (no segment): 72 + 56, so groups whose
 * blocks straddle rank 72 cross racks. */
static void test_nvl72_128_filled(void **state)
{
    pt_cluster c = nvl72(0, 128);
    (void)state;
    assert_int_equal(pt_cluster_fill(&c, 0), 72);
    /* tp=8: 72 is 9 groups of 8, every group inside a rack */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 8, 1), 2.0 * 7.0 / 8.0 * NV);
    assert_int_equal(pt_coll_level(&c, 8, 1), 0);
    /* tp=16: the group of ranks 64..79 has 8 in each rack.  Reduce-scatter
     * over 16 on NVLink (the groups inside a rack), then the worst group's
     * 2 parts of 8 exchange the S/8 shard over the network:
     *   2 * (15/16 * S/900e9 + 1/2 * S/8 / 50e9) */
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 16, 1), 2.0 * (15.0 / 16.0 * NV + 0.5 / 8.0 * IB));
    assert_int_equal(pt_coll_level(&c, 16, 1), 1);
    /* dp=16 at stride 8: 9 ranks in rack 0 (0, 8, .., 64), 7 in rack 1.  The
     * stage in a rack reduces over up to 9, then the device of the 7-part
     * holds S/7 and keeps S/16: (1/7 - 1/16) * S/50e9 */
    near(pt_coll_time(&c, PT_REDUCESCATTER, S, 16, 8), 8.0 / 9.0 * NV + (1.0 / 7.0 - 1.0 / 16.0) * IB);
    /* ep=64 all-to-all: ranks 64..127 are 8 in rack 0 and 56 in rack 1; a
     * device of the 8 sends 56/64 of its buffer over the network: 17.5 ms */
    near(pt_coll_time(&c, PT_ALLTOALL, S, 64, 1), 56.0 / 64.0 * IB);
    assert_int_equal(pt_coll_level(&c, 64, 1), 1);
}

/* A job smaller than a rack takes part of one: 16 GPUs, all on NVLink. */
static void test_nvl72_part_of_one_rack(void **state)
{
    pt_cluster c = nvl72(64, 16);
    (void)state;
    assert_int_equal(pt_cluster_fill(&c, 0), 16);
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 16, 1), 2.0 * 15.0 / 16.0 * NV);
    assert_int_equal(pt_coll_level(&c, 16, 1), 0);
    /* 100 GPUs in segments of 64: 64 + 36; tp=4 groups stay in a rack */
    c = nvl72(64, 100);
    assert_int_equal(pt_cluster_fill(&c, 0), 64);
    near(pt_coll_time(&c, PT_ALLREDUCE, S, 4, 1), 2.0 * 3.0 / 4.0 * NV);
    /* dp=25 at stride 4: 16 in rack 0, 9 in rack 1; the 9-part's device
     * holds S/9 and keeps S/25 */
    near(pt_coll_time(&c, PT_REDUCESCATTER, S, 25, 4), 15.0 / 16.0 * NV + (1.0 / 9.0 - 1.0 / 25.0) * IB);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_level_ring),
        cmocka_unit_test(test_one_level_latency),
        cmocka_unit_test(test_efficiency),
        cmocka_unit_test(test_two_level_hierarchical),
        cmocka_unit_test(test_two_level_one_per_node),
        cmocka_unit_test(test_tp_spills_to_network),
        cmocka_unit_test(test_two_level_latency),
        cmocka_unit_test(test_coll_level),
        cmocka_unit_test(test_trivial_groups),
        cmocka_unit_test(test_catalog_cluster),
        cmocka_unit_test(test_nvl72_128_in_segments),
        cmocka_unit_test(test_nvl72_128_filled),
        cmocka_unit_test(test_nvl72_part_of_one_rack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
