/*
 * test_hetero.c -- clusters with pools of different devices (SPEC section
 * 10): the layer split's dynamic programming and the batch shares against
 * hand-derived answers and brute force, pools read from cluster files, the
 * layers= and batch_share= keys, the split the search gives two pools whose
 * devices differ exactly 2:1 in speed, pools of one device against the
 * homogeneous model, and the analytic model against the simulator.
 */
#include <math.h>

#include "helpers.h"
#include "base/base.h"
#include "cost/hetero.h"
#include "sim/sim_hetero.h"
#include "strategy/split.h"

/* Two stages, per-layer times 1 and 2 (speeds 2:1), nothing else: 12
 * layers split 8:4 (8 = 2 x 4: both stages take 8).  A memory cap of 6
 * layers on the first stage moves the rest to the second (6:6). */
static void test_split_layers_hand(void **state)
{
    double a[2] = {1, 2}, c0[2] = {0, 0}, ma[2] = {1, 1}, mc[2] = {0, 0}, cap[2] = {6, 100}, tiny[2] = {3, 3};
    int out[2];
    (void)state;
    assert_int_equal(pt_hetero_split_layers(12, 2, a, c0, ma, mc, NULL, out), 0);
    assert_int_equal(out[0], 8);
    assert_int_equal(out[1], 4);
    assert_int_equal(pt_hetero_split_layers(12, 2, a, c0, ma, mc, cap, out), 0);
    assert_int_equal(out[0], 6);
    assert_int_equal(out[1], 6);
    /* 3 + 3 layers cannot hold 12: -1, and the split without the cap */
    assert_int_equal(pt_hetero_split_layers(12, 2, a, c0, ma, mc, tiny, out), -1);
    assert_int_equal(out[0], 8);
    assert_int_equal(out[1], 4);
}

/* The dynamic programming against every split of small cases: the same
 * slowest stage (a fixed pseudo-random sequence of times and caps). */
static void test_split_layers_brute(void **state)
{
    uint32_t x = 12345;
    (void)state;
    for (int iter = 0; iter < 300; iter++) {
        int S = 2 + iter % 3, L = S + (iter / 3) % 9, out[4], cut[4];
        double a[4], c0[4], ma[4], mc[4], cap[4], best = HUGE_VAL, got = 0;
        for (int s = 0; s < S; s++) {
            x = x * 1664525u + 1013904223u;
            a[s] = 1.0 + (double)(x >> 24) / 32.0;
            x = x * 1664525u + 1013904223u;
            c0[s] = (double)(x >> 26);
            ma[s] = 1.0, mc[s] = 0.0;
            x = x * 1664525u + 1013904223u;
            cap[s] = (double)(1 + (x >> 28) % (unsigned)L);
        }
        /* brute force: every composition of L into S positive parts */
        for (int64_t code = 0; code < (int64_t)1 << (2 * 4 * 2); code++) {
            int64_t rest = code, sum = 0;
            double mx = 0;
            int ok = 1;
            for (int s = 0; s < S - 1; s++) {
                cut[s] = 1 + (int)(rest % L);
                rest /= L;
                sum += cut[s];
            }
            if (rest != 0) break;
            cut[S - 1] = L - (int)sum;
            for (int s = 0; s < S && ok; s++) {
                if (cut[s] < 1 || cut[s] > cap[s]) ok = 0;
                else if (a[s] * cut[s] + c0[s] > mx) mx = a[s] * cut[s] + c0[s];
            }
            if (ok && mx < best) best = mx;
        }
        if (pt_hetero_split_layers(L, S, a, c0, ma, mc, cap, out) != 0) {
            assert_true(best == HUGE_VAL);
            continue;
        }
        for (int s = 0; s < S; s++) {
            assert_true(out[s] >= 1 && out[s] <= cap[s]);
            if (a[s] * out[s] + c0[s] > got) got = a[s] * out[s] + c0[s];
        }
        th_near_rel(got, best, 1e-12, "DP's slowest stage against brute force");
    }
}

/* Shares so that b_i t_i are equal: 12 micro-batches on ranks of 1 s and
 * 2 s each: 8 and 4 (8 s both); 9 on the same: 6 and 3 (6 s both); 14 on
 * 1, 1, 3 s: 6, 6, 2 (6 s each). */
static void test_shares_hand(void **state)
{
    double t2[2] = {1, 2}, t3[3] = {1, 1, 3};
    int s[3];
    (void)state;
    pt_hetero_shares(12, 2, t2, s);
    assert_int_equal(s[0], 8);
    assert_int_equal(s[1], 4);
    pt_hetero_shares(9, 2, t2, s);
    assert_int_equal(s[0], 6);
    assert_int_equal(s[1], 3);
    pt_hetero_shares(14, 3, t3, s);
    assert_int_equal(s[0], 6);
    assert_int_equal(s[1], 6);
    assert_int_equal(s[2], 2);
    /* each rank keeps at least one */
    pt_hetero_shares(2, 2, (double[]){1, 1000}, s);
    assert_int_equal(s[0], 1);
    assert_int_equal(s[1], 1);
}

/* Two inline devices, the second exactly half the first in every rate and
 * with no launch cost, so a layer takes exactly twice as long on it. */
#define DEV(name, tf, bw) \
    "{\"name\": \"" name "\", \"memory_GiB\": 80, \"memory_bw_GBps\": " bw ", \"host_bw_GBps\": 25, " \
    "\"kernel_us\": 0, \"tflops\": {\"bf16\": " tf ", \"fp16\": " tf "}}"
#define LEVELS "[{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 300}, {\"name\": \"ib\", \"size\": 16, \"bw_GBps\": 25}]"
static const char two_to_one[] =
    "{\"name\": \"two-to-one\", \"pools\": [{\"device\": " DEV("fast", "200", "2000") ", \"devices\": 8}, "
    "{\"device\": " DEV("slow", "100", "1000") ", \"devices\": 8}], \"levels\": " LEVELS "}";

static pt_cluster parse_cluster(const char *text)
{
    pt_cluster c;
    pt_diag d;
    pt_status s = pt_cluster_parse(text, "pools.json", &c, &d);
    if (s != PT_OK) fail_msg("%s", d.msg);
    return c;
}

static void resolve(const char *text, const pt_model *m, const pt_cluster *c, const pt_job *j, pt_strategy *st,
                    pt_split *sp)
{
    unsigned set;
    pt_diag d;
    if (pt_split_parse(text, st, &set, sp, &d) != PT_OK || pt_split_resolve(st, set, sp, m, c, j, &d) != PT_OK)
        fail_msg("%s: %s", text, d.msg);
}

/* The search's split on two pools of speeds 2:1: with pp=2 (stage 0 on
 * the fast pool, stage 1 on the slow one) gpt-1.7b's 24 layers go 16:8;
 * with pp=1 and 16 data-parallel ranks, 48 micro-batches go 4 to each fast
 * rank and 2 to each slow one, and every rank's pipeline takes the same
 * time.  (A 64-token vocabulary makes the embedding and the logits weigh
 * next to nothing, as in test_sim.c.) */
static void test_two_to_one(void **state)
{
    pt_model m = th_model("gpt-1.7b");
    pt_cluster c = parse_cluster(two_to_one);
    pt_job j = th_job(2048, 48, 1);
    pt_strategy st;
    pt_split sp;
    pt_hetero h;
    pt_diag d;
    (void)state;
    m.vocab = 64;
    assert_int_equal(c.npools, 2);
    assert_int_equal(c.devices, 16);
    resolve("tp=1 pp=2", &m, &c, &j, &st, &sp);
    assert_int_equal(pt_hetero_auto(&m, &c, &j, &st, &sp, &d), PT_OK);
    assert_int_equal(sp.nlayers, 2);
    assert_int_equal(sp.layers[0], 16);
    assert_int_equal(sp.layers[1], 8);
    assert_int_equal(sp.nshare, 0); /* every rank's pipeline is the same */
    assert_int_equal(pt_hetero_eval(&m, &c, &j, &st, &sp, &h, &d), PT_OK);
    th_near_rel(h.stage_s[0], h.stage_s[1], 0.01, "16 fast layers against 8 slow ones");

    resolve("tp=1 pp=1", &m, &c, &j, &st, &sp);
    assert_int_equal(pt_hetero_auto(&m, &c, &j, &st, &sp, &d), PT_OK);
    assert_int_equal(sp.nshare, 16);
    for (int r = 0; r < 16; r++) assert_int_equal(sp.share[r], r < 8 ? 4 : 2);
    assert_int_equal(pt_hetero_eval(&m, &c, &j, &st, &sp, &h, &d), PT_OK);
    th_near_rel(h.pipe_s[0], h.pipe_s[15], 1e-9, "b t of a fast and a slow rank");
}

/* Pools of one device are the homogeneous cluster: the same step, the same
 * exposed data-parallel time and the same memory to 1e-9 (measured: 2e-16),
 * every stage priced on the same device and its collectives by cost.c's
 * own mechanism (pt_cost_dp_stages_s), ZeRO 0 to 3, 1f1b and gpipe, and
 * ZeRO-3 under each engine. */
static void test_one_device_pools(void **state)
{
    static const char pools[] =
        "{\"name\": \"p\", \"pools\": [{\"device\": \"h100-sxm-80g\", \"devices\": 16}, "
        "{\"device\": \"h100-sxm-80g\", \"devices\": 16}], \"levels\": "
        "[{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 450}, {\"name\": \"ib\", \"size\": 32, \"bw_GBps\": 50}]}";
    static const char one[] =
        "{\"name\": \"p\", \"device\": \"h100-sxm-80g\", \"devices\": 32, \"levels\": "
        "[{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 450}, {\"name\": \"ib\", \"size\": 32, \"bw_GBps\": 50}]}";
    static const char *const strategies[] = {"tp=8 pp=2 mbs=1", "tp=4 pp=4 mbs=2", "tp=2 pp=1 mbs=1 zero=0",
                                             "tp=1 pp=8 recompute=full", "tp=8 pp=2 zero=3", "tp=4 pp=1 zero=3",
                                             "tp=2 pp=4 zero=0 schedule=gpipe", "tp=4 pp=2 zero=1 mbs=2"};
    static const pt_engine engines[] = {PT_ENGINE_MEGATRON, PT_ENGINE_DEEPSPEED, PT_ENGINE_FSDP};
    pt_model m = th_model("llama2-7b");
    pt_cluster cp = parse_cluster(pools), c1 = parse_cluster(one);
    pt_job j = th_job(4096, 128, 1);
    (void)state;
    /* every strategy with Megatron; ZeRO-3's with DeepSpeed's flat rings and
     * partial overlap and with FSDP's too */
    for (size_t i = 0; i < 3 * (sizeof strategies / sizeof *strategies); i++) {
        pt_strategy st, s1;
        const char *text = strategies[i % (sizeof strategies / sizeof *strategies)];
        j.engine = engines[i / (sizeof strategies / sizeof *strategies)];
        if (j.engine != PT_ENGINE_MEGATRON && !strstr(text, "zero=3")) continue;
        s1 = th_strategy(text, &m, &c1, &j);
        pt_split sp;
        pt_hetero h;
        pt_cost k;
        pt_diag d;
        resolve(text, &m, &cp, &j, &st, &sp);
        assert_int_equal(pt_hetero_eval(&m, &cp, &j, &st, &sp, &h, &d), PT_OK);
        assert_int_equal(pt_cost_eval(&m, &c1, &j, &s1, &k), PT_OK);
        assert_true(k.time.dp_comm > 0);
        th_near_rel(h.cost.step_time_s, k.step_time_s, 1e-9, text);
        th_near_rel(h.cost.time.dp_comm, k.time.dp_comm, 1e-9, text);
        th_near_rel((double)h.cost.mem.total, (double)k.mem.total, 1e-9, text);
    }
}

/* The analytic model against every pipeline replayed, on the catalog's
 * H100 + A100 pools: within 3% (measured: 1.3% at most). */
static void test_sim_agrees(void **state)
{
    static const char *const strategies[] = {
        "tp=8 pp=2 layers=20,12", "tp=4 pp=4",          "tp=2 pp=8",
        "tp=1 pp=4 dp=16 recompute=full", "tp=8 pp=2 schedule=gpipe layers=22,10",
        "tp=8 pp=2 layers=22,10 gbs=8", "tp=8 pp=1 batch_share=90,90,90,90,38,38,38,38",
        "tp=4 pp=2 layers=19,13 mbs=2"};
    pt_model m = th_model("llama2-7b");
    pt_cluster c = th_cluster("mixed-h100-a100", 64);
    pt_job j = th_job(4096, 512, 1);
    (void)state;
    for (size_t i = 0; i < sizeof strategies / sizeof *strategies; i++) {
        pt_strategy st;
        pt_split sp;
        pt_hetero h;
        pt_sim_hetero r;
        pt_diag d;
        resolve(strategies[i], &m, &c, &j, &st, &sp);
        assert_int_equal(pt_hetero_eval(&m, &c, &j, &st, &sp, &h, &d), PT_OK);
        assert_int_equal(pt_sim_hetero_run(&m, &c, &j, &st, &sp, &h, &r, &d), PT_OK);
        th_near_rel(r.step_time_s, h.cost.step_time_s, 0.03, strategies[i]);
    }
}

/* What stage (first, last) of n layers exposes on pool `pool`'s device
 * alone, by cost.c's pt_cost_dp_stages_s: over one micro-batch its gathers
 * and reduce-scatters e, over two also its pace with them less its own
 * forward and backward t (ZeRO-3). */
static void stage_alone(const pt_model *m, const pt_cluster *pools, int pool, const pt_job *j, const pt_strategy *st,
                        int first, int last, int64_t n, double Pst, double *e, double *pace_less_t, double *t)
{
    pt_cluster c = *pools;
    pt_cost_prep pr;
    pt_cost_dp k;
    pt_cost_dp_stage s;
    c.dev = pools->pool[pool].dev, c.npools = 0;
    pt_cost_prepare(m, &c, j, st, &pr);
    memset(&s, 0, sizeof s);
    s.first = first, s.last = last, s.layers = n, s.count = 1;
    s.f = pr.lf + pr.ltp_f + pr.lcp_f, s.b = pr.lb + pr.ltp_b + pr.lcp_b;
    s.emb_f = pr.emb_f + pr.emb_tp, s.emb_b = pr.emb_b + (st->sp ? pr.emb_tp : 0.0);
    s.head_f = pr.head_f, s.head_b = pr.head_b;
    s.Pemb = first ? pt_cost_bucket_params(m, st, 0, 0, 0, NULL) : 0.0;
    s.Phead = last ? pt_cost_bucket_params(m, st, 2, 0, !first, NULL) : 0.0;
    s.P = (pt_cost_stage_params(m, st, first, last, n) - s.Pemb - s.Phead) / (double)n;
    s.t = *t = (double)n * (s.f + s.b) + (first ? s.emb_f + s.emb_b : 0.0) + (last ? s.head_f + s.head_b : 0.0);
    pt_cost_dp_colls(pools, j, st, Pst, 0.0, &k);
    *e = pt_cost_dp_stages_s(st, &k, Pst, 0.0, 1, &s, 1, 0.0);
    *pace_less_t = pt_cost_dp_stages_s(st, &k, Pst, 0.0, 2, &s, 1, 0.0) - *e;
}

/* Data-parallel collectives on pools, each stage's priced by cost.c's
 * mechanism at its slowest member's times, against clusters of one device
 * (one fabric: the same levels):
 *  - pp=1, its one stage over both pools: the A100 ranks are every
 *    collective's slowest member, so zero=0, 1 and 3 expose exactly the
 *    A100 cluster's time (under zero=3, whose shares are even, the whole
 *    step and the fullest device's memory too);
 *  - pp=2 layers=16,16, stage 0 on H100, stage 1 on A100: under zero=0 and
 *    1 the first stage ends the step's last backward, on H100, and its
 *    reductions drain behind that as on the H100 cluster; the A100 stage's
 *    reductions overlap its slower last backward and slow it (compute
 *    beside a collective runs 1/1.189 as fast) for longer than the H100
 *    cluster's stage 1: more than the H100 cluster's time, by less than
 *    (1 - 1/1.189) of the stage's all-reduce.
 *    Under zero=3 every micro-batch but one runs at the pace of the A100
 *    stage with its gathers and the fill and the drain pass each stage
 *    once with what its own gathers expose (the H100 stage more, having
 *    less compute to hide them behind): (M - 1)(pace_1 - t_1) + e_0 + e_1,
 *    each from its stage alone (the closed form).  The pipeline is priced
 *    by replaying each rank's stream beside the order, within 1% of that
 *    (measured 6.916 s against 6.947 s, 0.44%), and below the A100
 *    cluster's 7.089 s (its first stage on an A100 too) by 2.4%; the
 *    fullest device's memory is the A100 cluster's exactly.
 * Every data-parallel rank gathers each layer's parameters at each of its
 * micro-batches, so under zero=3 all must run as many: the search's shares
 * stay even (zero=1 gives the H100 ranks more) and uneven batch_share is
 * refused naming it; sharded states take less memory than zero=1; the
 * simulator agrees within 3%. */
static void test_zero3(void **state)
{
    static const char pools[] =
        "{\"name\": \"p\", \"pools\": [{\"device\": \"h100-sxm-80g\", \"devices\": 32}, "
        "{\"device\": \"a100-sxm4-80g\", \"devices\": 32}], \"levels\": "
        "[{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 300}, {\"name\": \"ib\", \"size\": 64, \"bw_GBps\": 25}]}";
    static const char a100[] =
        "{\"name\": \"p\", \"device\": \"a100-sxm4-80g\", \"devices\": 64, \"levels\": "
        "[{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 300}, {\"name\": \"ib\", \"size\": 64, \"bw_GBps\": 25}]}";
    static const char h100[] =
        "{\"name\": \"p\", \"device\": \"h100-sxm-80g\", \"devices\": 64, \"levels\": "
        "[{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 300}, {\"name\": \"ib\", \"size\": 64, \"bw_GBps\": 25}]}";
    pt_model m = th_model("llama2-7b");
    pt_cluster cp = parse_cluster(pools), ca = parse_cluster(a100), ch = parse_cluster(h100);
    pt_job j = th_job(4096, 512, 1);
    pt_strategy st, s1;
    pt_split sp;
    pt_hetero *h = malloc(2 * sizeof *h);
    pt_sim_hetero r;
    pt_cost k, kh;
    pt_diag d;
    unsigned set;
    char text[64], one[64];
    (void)state;
    assert_non_null(h);
    for (int z = 0; z <= 3; z += z == 1 ? 2 : 1) {
        /* pp=1: the A100 cluster's */
        snprintf(text, sizeof text, "tp=8 pp=1 zero=%d", z);
        resolve(text, &m, &cp, &j, &st, &sp);
        s1 = th_strategy(text, &m, &ca, &j);
        assert_int_equal(pt_hetero_eval(&m, &cp, &j, &st, &sp, &h[0], &d), PT_OK);
        assert_int_equal(pt_cost_eval(&m, &ca, &j, &s1, &k), PT_OK);
        assert_true(k.time.dp_comm > 0.05);
        th_near_rel(h[0].cost.time.dp_comm, k.time.dp_comm, 1e-9, text);
        if (z == 3) {
            assert_true(k.time.dp_comm > 1.0); /* 64 micro-batches' gathers: seconds */
            th_near_rel(h[0].cost.step_time_s, k.step_time_s, 1e-9, text);
            th_near_rel((double)h[0].cost.mem.total, (double)k.mem.total, 1e-9, text);
        }
        if (z == 3) continue;
        /* pp=2, zero 0 and 1: the H100 cluster's */
        snprintf(text, sizeof text, "tp=8 pp=2 layers=16,16 zero=%d", z);
        resolve(text, &m, &cp, &j, &st, &sp);
        snprintf(one, sizeof one, "tp=8 pp=2 zero=%d", z);
        s1 = th_strategy(one, &m, &ch, &j);
        assert_int_equal(pt_hetero_eval(&m, &cp, &j, &st, &sp, &h[0], &d), PT_OK);
        assert_int_equal(pt_cost_eval(&m, &ch, &j, &s1, &kh), PT_OK);
        assert_true(kh.time.dp_comm > 0.05);
        {
            pt_cost ka2;
            pt_strategy s2 = th_strategy(one, &m, &ca, &j);
            assert_int_equal(pt_cost_eval(&m, &ca, &j, &s2, &ka2), PT_OK);
            printf("  pp=2 zero=%d: DP exposed: H100 cluster %.4f s, pools %.4f s, A100 cluster %.4f s\n", z,
                   kh.time.dp_comm, h[0].cost.time.dp_comm, ka2.time.dp_comm);
            /* the H100 stage drains as on the H100 cluster; the A100
             * stage's reductions overlap its slower last backward and slow
             * it for longer, at most (1 - 1/1.189) of their seconds */
            pt_cost_dp kk;
            pt_cost_dp_colls(&ch, &j, &s1, pt_cost_stage_params(&m, &s1, 0, 1, 16), 0, &kk);
            assert_true(h[0].cost.time.dp_comm > kh.time.dp_comm);
            assert_true(h[0].cost.time.dp_comm - kh.time.dp_comm < (1.0 - 1.0 / 1.189) * kk.grad);
        }
    }

    /* pp=2 under zero=3: the A100 stage paces */
    s1 = th_strategy("tp=8 pp=2 zero=3", &m, &ca, &j);
    resolve("tp=8 pp=2 layers=16,16 zero=3", &m, &cp, &j, &st, &sp);
    assert_int_equal(pt_hetero_eval(&m, &cp, &j, &st, &sp, &h[0], &d), PT_OK);
    assert_int_equal(pt_cost_eval(&m, &ca, &j, &s1, &k), PT_OK);
    {
        double Pst = pt_cost_stage_params(&m, &st, 0, 1, 16), e0, e1, x0, x1, t0, t1, M = 128;
        stage_alone(&m, &cp, 0, &j, &st, 1, 0, 16, Pst, &e0, &x0, &t0);
        stage_alone(&m, &cp, 1, &j, &st, 0, 1, 16, Pst, &e1, &x1, &t1);
        assert_true(pt_cost_stage_params(&m, &st, 1, 0, 16) < Pst); /* the output layer's norm */
        assert_true(t0 < t1 && x1 + t1 > x0 + t0 && e0 > e1);        /* H100 first, A100 paces  */
        th_near_rel(h[0].stage_s[0], t0, 1e-9, "H100 stage alone");
        th_near_rel(h[0].stage_s[1], t1, 1e-9, "A100 stage alone");
        th_near_rel(h[0].cost.time.dp_comm, (M - 1) * x1 + e0 + e1, 0.01, "zero=3: (M-1)(pace_1 - t_1) + e_0 + e_1");
    }
    assert_true(k.time.dp_comm > 1.0); /* 128 micro-batches' gathers: seconds */
    assert_true(h[0].cost.time.dp_comm < k.time.dp_comm);
    th_near_rel(h[0].cost.time.dp_comm, k.time.dp_comm, 0.03, "ZeRO-3 collectives near the A100 cluster's");
    th_near_rel((double)h[0].cost.mem.total, (double)k.mem.total, 1e-9, "ZeRO-3 memory as on the A100 cluster");
    assert_int_equal(pt_sim_hetero_run(&m, &cp, &j, &st, &sp, &h[0], &r, &d), PT_OK);
    th_near_rel(r.step_time_s, h[0].cost.step_time_s, 0.03, "simulated");
    resolve("tp=8 pp=2 layers=16,16 zero=1", &m, &cp, &j, &st, &sp);
    assert_int_equal(pt_hetero_eval(&m, &cp, &j, &st, &sp, &h[1], &d), PT_OK);
    assert_true(h[0].cost.mem.weights < h[1].cost.mem.weights && h[0].cost.mem.total < h[1].cost.mem.total);
    assert_true(h[0].cost.step_time_s > h[1].cost.step_time_s); /* the gathers cost time */

    /* shares: even under zero=3, by speed under zero=1 */
    resolve("tp=8 pp=1 zero=3", &m, &cp, &j, &st, &sp);
    assert_int_equal(pt_hetero_auto(&m, &cp, &j, &st, &sp, &d), PT_OK);
    assert_int_equal(sp.nshare, 0);
    resolve("tp=8 pp=1 zero=1", &m, &cp, &j, &st, &sp);
    assert_int_equal(pt_hetero_auto(&m, &cp, &j, &st, &sp, &d), PT_OK);
    assert_int_equal(sp.nshare, 8);
    assert_true(sp.share[0] > sp.share[7]);
    assert_int_equal(pt_split_parse("tp=8 zero=3 batch_share=90x4,38x4", &st, &set, &sp, &d), PT_OK);
    assert_int_equal(pt_split_resolve(&st, set, &sp, &m, &cp, &j, &d), PT_EINPUT);
    assert_string_equal(d.field, "batch_share");
    assert_string_equal(d.value, "38");
    assert_non_null(strstr(d.msg, "zero=3 needs even batch shares"));
    free(h);
}

/* A stage over pools of different memories fits only if it fits the
 * smaller: llama2-7b at tp=2 mbs=2 needs 39.5 GiB per device, under the
 * A100-40GB's 40 but over the V100's 32 (the same bytes on both: gradient
 * accumulation keeps one micro-batch's activations whatever the share). */
static void test_smaller_memory(void **state)
{
    pt_model m = th_model("llama2-7b");
    pt_cluster c = th_cluster("mixed-a100-40g-v100", 64);
    pt_job j = th_job(4096, 256, 1);
    pt_strategy st;
    pt_split sp;
    pt_hetero h;
    pt_diag d;
    (void)state;
    resolve("tp=2 mbs=2", &m, &c, &j, &st, &sp);
    assert_int_equal(pt_hetero_eval(&m, &c, &j, &st, &sp, &h, &d), PT_OK);
    assert_true((double)h.cost.mem.total > 32.0 * PT_GiB && (double)h.cost.mem.total < 40.0 * PT_GiB);
    assert_int_equal(h.cost.device_memory_bytes, (int64_t)(32.0 * PT_GiB));
    assert_false(h.cost.fits);
    resolve("tp=2 mbs=1", &m, &c, &j, &st, &sp);
    assert_int_equal(pt_hetero_eval(&m, &c, &j, &st, &sp, &h, &d), PT_OK);
    assert_true(h.cost.fits);
}

/* The keys and the rules, with the messages users see. */
static void test_keys(void **state)
{
    pt_model m = th_model("llama2-7b");
    pt_cluster c = th_cluster("mixed-h100-a100", 64);
    pt_job j = th_job(4096, 512, 1);
    pt_strategy st;
    pt_split sp;
    unsigned set;
    pt_diag d;
    char buf[512];
    static const struct { const char *s, *msg; } bad[] = {
        {"tp=8 pp=2 layers=20,10", "layers sum to 30, not num_layers=32"},
        {"tp=8 pp=2 layers=10,10,12", "layers has 3 entries but pp=2 (one per pipeline stage)"},
        {"tp=8 pp=3", "tp*pp*cp=24 does not divide the cluster's 64 devices"},
        {"tp=8 pp=1 batch_share=1,2", "batch_share has 2 entries but dp=8 (one per data-parallel rank)"},
        {"tp=8 batch_share=1,1,1,1,1,1,1,1 gbs=9", "gbs=9 is not mbs times the sum of batch_share, 1*8 = 8"},
        {"tp=8 pp=2 schedule=interleaved vpp=2", "vpp=2: on a cluster with pools each stage is one chunk (vpp=1)"},
        {"tp=8 zero=3 batch_share=2,1,1,1,1,1,1,1",
         "batch_share: zero=3 needs even batch shares (every data-parallel rank gathers each layer's "
         "parameters at each of its micro-batches, so all run as many): rank 1 has 1, rank 0 2; give zero<=2 "
         "or even shares"},
        {"tp=8 pp=2 pp_first=10", "on a cluster with pools give every stage's layers as layers=a,b,... instead"},
        {"tp=8 gbs=500", "gbs/mbs = 500 micro-batches do not split evenly over dp=8 (give batch_share=a,b,... "
                         "with one count per data-parallel rank)"},
    };
    (void)state;
    assert_int_equal(pt_split_parse("tp=8 layers=20,12,pp=2 batch_share=3,1,3,1", &st, &set, &sp, &d), PT_OK);
    assert_int_equal(st.tp, 8);
    assert_int_equal(st.pp, 2);
    assert_int_equal(sp.nlayers, 2);
    assert_int_equal(sp.layers[0], 20);
    assert_int_equal(sp.nshare, 4);
    assert_int_equal(sp.share[3], 1);
    assert_int_equal(pt_split_resolve(&st, set, &sp, &m, &c, &j, &d), PT_OK);
    assert_int_equal(st.gbs, 8); /* mbs x the shares */
    pt_split_format(&st, &sp, buf, sizeof buf);
    assert_non_null(strstr(buf, "gbs=8 "));
    assert_non_null(strstr(buf, " layers=20,12 batch_share=3,1,3,1"));
    /* repeats: "AxN" is A N times, and the text writes runs so */
    assert_int_equal(pt_split_parse("tp=8 batch_share=6x3,2,2", &st, &set, &sp, &d), PT_OK);
    assert_int_equal(sp.nshare, 5);
    assert_int_equal(sp.share[2], 6);
    assert_int_equal(sp.share[3], 2);
    pt_split_format(&st, &sp, buf, sizeof buf);
    assert_non_null(strstr(buf, " batch_share=6x3,2x2"));
    assert_int_equal(pt_split_parse("tp=8 batch_share=6x0", &st, &set, &sp, &d), PT_EINPUT);
    assert_int_equal(pt_split_parse("tp=8 layers=x,2", &st, &set, &sp, &d), PT_EINPUT);
    assert_string_equal(d.msg, "layers: \"x\" is not a count from 1 to 1048576 (write layers=a,b,c)");
    assert_int_equal(d.col, 6);
    assert_int_equal(pt_split_parse("layers=1 layers=2", &st, &set, &sp, &d), PT_EINPUT);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(pt_split_parse(bad[i].s, &st, &set, &sp, &d), PT_OK);
        if (pt_split_resolve(&st, set, &sp, &m, &c, &j, &d) != PT_EINPUT) fail_msg("%s was accepted", bad[i].s);
        if (strcmp(d.msg, bad[i].msg) != 0) fail_msg("%s: got \"%s\"", bad[i].s, d.msg);
    }
}

/* Cluster files with pools: read, and refused with the field named. */
static void test_pools_file(void **state)
{
    static const struct { const char *text, *msg; } bad[] = {
        {"{\"name\": \"x\", \"device\": \"h100-sxm-80g\", \"pools\": [{\"device\": \"h100-sxm-80g\", \"devices\": 8}], "
         "\"levels\": [{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 450}]}",
         "and \"device\" are both given (a cluster has one device or pools of devices)"},
        {"{\"name\": \"x\", \"pools\": [{\"device\": \"h100-sxm-80g\", \"devices\": 4}, {\"device\": \"a100-sxm4-80g\", "
         "\"devices\": 12}], \"levels\": " LEVELS "}",
         "pools[0].devices: 4 is not a multiple of levels[0]'s 8 (pools fill whole \"nvlink\" domains, in order)"},
        {"{\"name\": \"x\", \"pools\": [{\"device\": \"h100-sxm-80g\", \"devices\": 8, \"count\": 1}], \"levels\": "
         LEVELS "}", "pools[0].count: unknown key \"count\" (known: device, devices)"},
        {"{\"name\": \"x\", \"devices\": 24, \"pools\": [{\"device\": \"h100-sxm-80g\", \"devices\": 8}, "
         "{\"device\": \"a100-sxm4-80g\", \"devices\": 8}], \"levels\": " LEVELS "}",
         "devices: 24 is not the pools' sum, 16 (leave it out with pools)"},
        {"{\"name\": \"x\", \"pools\": [{\"device\": \"h99\", \"devices\": 8}], \"levels\": " LEVELS "}",
         "pools[0].device: \"h99\" is not a built-in device (`partita devices` lists them; or give an inline device "
         "object)"},
    };
    static const char big[] =
        "{\"name\": \"big\", \"pools\": [{\"device\": \"h100-sxm-80g\", \"devices\": 1024}, "
        "{\"device\": \"a100-sxm4-80g\", \"devices\": 1024}], \"levels\": [{\"name\": \"nvlink\", \"size\": 8, "
        "\"bw_GBps\": 300}, {\"name\": \"ib\", \"size\": 2048, \"bw_GBps\": 25}]}";
    pt_cluster c = parse_cluster(two_to_one), cb = parse_cluster(big);
    pt_model m = th_model("llama2-7b");
    pt_job j = th_job(4096, 4096, 1);
    pt_strategy st;
    pt_split sp;
    unsigned set;
    pt_diag d;
    (void)state;
    /* 2048 data-parallel ranks are more than a batch_share list holds */
    assert_int_equal(pt_split_parse("tp=1", &st, &set, &sp, &d), PT_OK);
    assert_int_equal(pt_split_resolve(&st, set, &sp, &m, &cb, &j, &d), PT_EINPUT);
    assert_string_equal(d.msg, "dp=2048: on a cluster with pools at most 1024 data-parallel ranks (give a larger tp or pp)");
    assert_int_equal(pt_split_parse("tp=2", &st, &set, &sp, &d), PT_OK);
    assert_int_equal(pt_split_resolve(&st, set, &sp, &m, &cb, &j, &d), PT_OK);
    assert_string_equal(c.pool[0].dev.name, "fast");
    assert_string_equal(c.pool[1].dev.name, "slow");
    assert_string_equal(c.dev.name, "fast");
    assert_int_equal(pt_hetero_pool_of(&c, 7), 0);
    assert_int_equal(pt_hetero_pool_of(&c, 8), 1);
    assert_int_equal(pt_cluster_resize(&c, 32, &d), PT_EINPUT);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pt_cluster x;
        assert_int_equal(pt_cluster_parse(bad[i].text, "pools.json", &x, &d), PT_EINPUT);
        if (!strstr(d.msg, bad[i].msg)) fail_msg("got \"%s\", want \"%s\"", d.msg, bad[i].msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_layers_hand), cmocka_unit_test(test_split_layers_brute),
        cmocka_unit_test(test_shares_hand),       cmocka_unit_test(test_two_to_one),
        cmocka_unit_test(test_one_device_pools),  cmocka_unit_test(test_sim_agrees),
        cmocka_unit_test(test_keys),              cmocka_unit_test(test_pools_file),
        cmocka_unit_test(test_smaller_memory),   cmocka_unit_test(test_zero3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
