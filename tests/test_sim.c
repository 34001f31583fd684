/*
 * test_sim.c -- the step simulator (src/sim) against the analytic model and
 * against hand-derived pipeline bubbles.
 */
#include <math.h>

#include "helpers.h"
#include "base/base.h"
#include "validate/validate.h"
#include "sim/sim.h"
#include "cost/cost.h"
#include "emit/timeline.h"

/* A uniform pipeline on a hand example: gpt-1.7b's 24 layers with a 64-token
 * vocabulary (so the embedding and the logits weigh nothing), pp=4 with 6
 * layers per stage on one node.  1F1B idles each stage for (p-1)(t_f+t_b)
 * (Narayanan eq. 2): the simulated idle time of the busiest stage over its
 * work per micro-batch is p-1 = 3 (within 5%: the point-to-point sends);
 * interleaving (v=2, 3 layers per virtual stage) divides it by v (eq. 3);
 * GPipe idles as much as 1F1B.  tp=2 and no data parallelism: an
 * all-reduce beside the compute would slow it (OVERLAP_COMPUTE_SLOWDOWN),
 * which is not the schedule's bubble. */
static void test_bubble_hand(void **state)
{
    pt_model m = th_model("gpt-1.7b");
    pt_cluster c = th_cluster("dgx-a100-80g", 8);
    pt_job j = th_job(2048, 32, 1);
    static const struct { const char *s; double want; } cases[] = {
        {"tp=2 pp=4 dp=1 mbs=1 zero=0 schedule=1f1b", 3.0},
        {"tp=2 pp=4 dp=1 mbs=1 zero=0 schedule=gpipe", 3.0},
        {"tp=2 pp=4 dp=1 mbs=1 zero=0 vpp=2 schedule=interleaved", 1.5},
    };
    (void)state;
    m.vocab = 64;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pt_strategy st = th_strategy(cases[i].s, &m, &c, &j);
        pt_sim_result r;
        pt_diag d;
        double per_mb;
        char what[128];
        assert_int_equal(pt_sim_run(&m, &c, &j, &st, &r, &d), PT_OK);
        per_mb = r.busy_s / (double)r.microbatches;
        snprintf(what, sizeof what, "%s: bubble in micro-batches", cases[i].s);
        assert_true(r.dp_s == 0.0);
        th_near_rel(r.bubble_s / per_mb, cases[i].want, 0.05, what);
        /* one F and one B per micro-batch per virtual stage */
        {
            int nf = 0, nb = 0;
            for (int e = 0; e < r.nevents; e++) {
                nf += r.events[e].kind == PT_OP_F;
                nb += r.events[e].kind == PT_OP_B;
            }
            assert_int_equal(nf, r.microbatches * st.pp * st.vpp);
            assert_int_equal(nb, nf);
        }
        pt_sim_free(&r);
    }
}

/* Zero-bubble schedules idle less than 1F1B on the same plan, at the
 * memory they cost: the deferred weight-gradient passes keep half of their
 * micro-batches' activations (W_KEEP), so ZB-H1 peaks somewhat above 1F1B;
 * DualPipe holds two copies of the weights. */
static void test_zero_bubble(void **state)
{
    pt_model m = th_model("gpt3-175b");
    pt_cluster c = th_cluster("dgx-a100-80g", 64);
    pt_job j = th_job(2048, 64, 1);
    pt_sim_result base, zbh1, zbv, dual;
    pt_diag d;
    pt_strategy s1 = th_strategy("tp=8 pp=8 mbs=1 recompute=selective", &m, &c, &j);
    pt_strategy s2 = th_strategy("tp=8 pp=8 mbs=1 recompute=selective schedule=zb-h1", &m, &c, &j);
    pt_strategy s3 = th_strategy("tp=8 pp=8 vpp=2 mbs=1 recompute=selective schedule=zb-v", &m, &c, &j);
    pt_strategy s4 = th_strategy("tp=8 pp=8 mbs=1 recompute=selective schedule=dualpipe", &m, &c, &j);
    (void)state;
    assert_int_equal(pt_sim_run(&m, &c, &j, &s1, &base, &d), PT_OK);
    assert_int_equal(pt_sim_run(&m, &c, &j, &s2, &zbh1, &d), PT_OK);
    assert_int_equal(pt_sim_run(&m, &c, &j, &s3, &zbv, &d), PT_OK);
    assert_int_equal(pt_sim_run(&m, &c, &j, &s4, &dual, &d), PT_OK);
    assert_true(zbh1.bubble_s < 0.8 * base.bubble_s);
    assert_true(zbv.bubble_s < 0.6 * base.bubble_s);
    assert_true(dual.bubble_s < base.bubble_s);
    assert_true(zbh1.step_time_s < base.step_time_s && zbv.step_time_s < base.step_time_s);
    assert_true(zbh1.peak_bytes >= base.peak_bytes);
    assert_true((double)zbh1.peak_bytes < 1.35 * (double)base.peak_bytes);
    assert_true(dual.peak_bytes > base.peak_bytes);
    printf("  bubble (s): 1f1b %.3f, zb-h1 %.3f, zb-v %.3f, dualpipe %.3f; peak GiB: %.1f %.1f %.1f %.1f\n",
           base.bubble_s, zbh1.bubble_s, zbv.bubble_s, dual.bubble_s, (double)base.peak_bytes / PT_GiB,
           (double)zbh1.peak_bytes / PT_GiB, (double)zbv.peak_bytes / PT_GiB, (double)dual.peak_bytes / PT_GiB);
    pt_sim_free(&base);
    pt_sim_free(&zbh1);
    pt_sim_free(&zbv);
    pt_sim_free(&dual);
}

/* Every published Megatron-LM run (GPipe/1F1B/interleaved): simulated and
 * analytic step times agree within 3%. */
static void test_published_runs(void **state)
{
    char *text;
    pt_diag d;
    pt_vresult r;
    int n = 0;
    double worst = 0;
    (void)state;
    assert_int_equal(pt_read_file("data/validation/published_runs.csv", &text, &d), PT_OK);
    assert_int_equal(pt_validate_csv(text, "published_runs.csv", NULL, &r, &d), PT_OK);
    free(text);
    for (int i = 0; i < r.n; i++) {
        const pt_vrow *w = &r.rows[i];
        pt_sim_result s;
        pt_cost k;
        double e;
        if (w->skipped[0] || !w->is_time || !w->engine_run) continue;
        pt_cost_eval(&w->model_v, &w->cluster_v, &w->job_v, &w->st_v, &k);
        assert_int_equal(pt_sim_run(&w->model_v, &w->cluster_v, &w->job_v, &w->st_v, &s, &d), PT_OK);
        e = fabs(s.step_time_s / k.step_time_s - 1.0);
        if (e > worst) worst = e;
        if (e > 0.03)
            fail_msg("line %d %s: simulated %.3f s, analytic %.3f s (%.1f%%)", w->line, w->model,
                     s.step_time_s, k.step_time_s, 100 * e);
        n++;
        pt_sim_free(&s);
    }
    printf("  %d published Megatron runs: simulated vs analytic worst %.2f%%\n", n, 100 * worst);
    assert_true(n >= 20);
    pt_validate_free(&r);
}

/* Mixture of experts: the simulator replays the same per-stage work as the
 * analytic model (MoE layers with their all-to-all, DeepSeek-V3's dense
 * first layers, its 3 + 14 x 4 + 2 stages; DualPipe hiding the all-to-all)
 * and agrees within 3%. */
static void test_moe_agrees(void **state)
{
    static const struct {
        const char *model, *s;
        int64_t gpus, gbs;
    } t[] = {
        {"mixtral-8x7b", "tp=1 pp=4 ep=8 mbs=1", 64, 256},
        {"mixtral-8x7b", "tp=1 pp=4 ep=8 mbs=1 schedule=dualpipe", 64, 256},
        {"qwen3-235b-a22b", "tp=2 pp=4 ep=16 etp=1 mbs=1 recompute=full", 128, 256},
        {"deepseek-v3", "tp=2 pp=16 ep=64 etp=1 mbs=1", 1024, 8192},
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        pt_model m = th_model(t[i].model);
        pt_cluster c = th_cluster("dgx-h100", t[i].gpus);
        pt_job j = th_job(4096, t[i].gbs, 1);
        pt_strategy st = th_strategy(t[i].s, &m, &c, &j);
        pt_sim_result r;
        pt_cost k;
        pt_diag d;
        char what[160];
        assert_int_equal(pt_cost_eval(&m, &c, &j, &st, &k), PT_OK);
        assert_int_equal(pt_sim_run(&m, &c, &j, &st, &r, &d), PT_OK);
        snprintf(what, sizeof what, "%s %s: simulated step against analytic", t[i].model, t[i].s);
        th_near_rel(r.step_time_s, k.step_time_s, 0.03, what);
        pt_sim_free(&r);
    }
}

/* The analytic model and the simulator agree at every micro-batch count.
 * For each shape and schedule, m = 1 .. 4 pp micro-batches per pipeline
 * (those the schedule accepts: interleaved needs multiples of pp, dualpipe
 * even counts), and 10 pp + 2 and 24 pp (past the 6 pp up to which cost.c
 * replays zb-v and dualpipe whole: their extrapolation): the analytic step
 * and peak memory within 3% of the simulated ones.  The fill and drain are
 * derived in src/cost/cost.c from the orders src/cost/pipe.c builds
 * (1F1B/GPipe: every stage but the slowest once forward and once backward,
 * Narayanan et al. eq. 2; ZB-H1: the forward fill plus the input-gradient
 * drain less one T_W per further micro-batch, down to Qi et al.'s
 * (p-1)(T_F + T_B - T_W)); zb-v and dualpipe are replayed by both models
 * (cost.c with the stage classes, the simulator with every transfer). */
static void sweep(const char *model, const char *cluster, int64_t gpus, int64_t seq, int tp, const char *sched,
                  int vpp, int *cases, double *worst_t, double *worst_m)
{
    pt_model m = th_model(model);
    pt_cluster c = th_cluster(cluster, gpus);
    for (int pp = 2; pp <= 8; pp *= 2) {
        int64_t dp = gpus / ((int64_t)tp * pp);
        for (int i = 1; i <= 4 * pp + 2; i++) {
            int mb = i <= 4 * pp ? i : i == 4 * pp + 1 ? 10 * pp + 2 : 24 * pp;
            pt_job j = th_job(seq, mb * dp, 1);
            pt_strategy st;
            pt_sim_result r;
            pt_cost k;
            pt_diag d;
            unsigned set = 0;
            char text[160], what[240];
            double et, em;
            snprintf(text, sizeof text, "tp=%d pp=%d dp=%lld mbs=1 schedule=%s vpp=%d", tp, pp, (long long)dp,
                     sched, vpp);
            memset(&st, 0, sizeof st);
            assert_int_equal(pt_strategy_parse(text, &st, &set, &d), PT_OK);
            if (pt_strategy_resolve(&st, set, &m, &c, &j, &d) != PT_OK) continue; /* m not a multiple of pp */
            assert_int_equal(pt_cost_eval(&m, &c, &j, &st, &k), PT_OK);
            assert_int_equal(pt_sim_run(&m, &c, &j, &st, &r, &d), PT_OK);
            et = r.step_time_s / k.step_time_s - 1.0;
            em = (double)r.peak_bytes / (double)k.mem.total - 1.0;
            snprintf(what, sizeof what, "%s %s m=%d: simulated step against analytic", model, text, mb);
            th_near_rel(r.step_time_s, k.step_time_s, 0.03, what);
            snprintf(what, sizeof what, "%s %s m=%d: simulated peak memory against analytic", model, text, mb);
            th_near_rel((double)r.peak_bytes, (double)k.mem.total, 0.03, what);
            if (fabs(et) > *worst_t) *worst_t = fabs(et);
            if (fabs(em) > *worst_m) *worst_m = fabs(em);
            (*cases)++;
            pt_sim_free(&r);
        }
    }
}

static void test_sweep_microbatches(void **state)
{
    static const struct {
        const char *model, *cluster;
        int64_t gpus, seq;
        int tp;
    } shapes[] = {
        {"llama3-8b", "dgx-h100", 64, 4096, 1},      /* 32 layers: 16 virtual stages at pp=8 v=2 */
        {"gpt3-175b", "dgx-a100-80g", 512, 2048, 8}, /* 96 layers, tied embeddings */
        {"llama3-70b", "dgx-h100", 128, 8192, 8},    /* 80 layers, a heavy logits stage */
    };
    static const struct { const char *s; int vpp; } sched[] = {
        {"gpipe", 1}, {"1f1b", 1}, {"interleaved", 2}, {"zb-h1", 1}, {"zb-v", 2}, {"dualpipe", 1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (size_t k = 0; k < sizeof sched / sizeof *sched; k++) {
            int n = 0;
            double wt = 0, wm = 0;
            sweep(shapes[i].model, shapes[i].cluster, shapes[i].gpus, shapes[i].seq, shapes[i].tp, sched[k].s,
                  sched[k].vpp, &n, &wt, &wm);
            printf("  %-10s %-11s %3d steps (pp 2, 4, 8; m 1..4pp, 10pp+2, 24pp): worst step %.2f%%, peak %.2f%%\n",
                   shapes[i].model, sched[k].s, n, 100 * wt, 100 * wm);
            assert_true(n >= 12); /* interleaved: the 4 multiples of pp per pp */
        }
}

/* One micro-batch through a ZB-V pipeline (the nemotron4-340b plan of issue
 * 14, which the analytic model once priced with no bubble at 3.285 s): the
 * step is one pass down the V and back, all 2p chunk forwards and
 * input-gradient halves and the first chunk's weight gradient; the analytic
 * model and the simulator agree within 3%. */
static void test_zbv_one_microbatch(void **state)
{
    pt_model m = th_model("nemotron4-340b");
    pt_cluster c = th_cluster("dgx-h100", 2048);
    pt_job j = th_job(4096, 512, 1);
    pt_strategy st = th_strategy("tp=1 pp=4 dp=512 vpp=2 mbs=1 zero=3 schedule=zb-v", &m, &c, &j);
    pt_sim_result r;
    pt_cost k;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_cost_eval(&m, &c, &j, &st, &k), PT_OK);
    assert_int_equal(k.microbatches, 1);
    assert_int_equal(pt_sim_run(&m, &c, &j, &st, &r, &d), PT_OK);
    th_near_rel(r.step_time_s, k.step_time_s, 0.03, "nemotron4-340b zb-v, one micro-batch");
    assert_true(k.time.bubble > 0.5 * k.time.compute); /* most of the step idles */
    pt_sim_free(&r);
}

/* DualPipe with one micro-batch each way: both cross every rank, where the
 * many-micro-batch bubble of the DeepSeek-V3 report would make the
 * pipeline several times faster than it is; gpt3-175b tp=8 on 512 A100,
 * pp 4 and 8: the two models within 3% (both replay DeepSeek's order). */
static void test_dualpipe_two_microbatches(void **state)
{
    pt_model m = th_model("gpt3-175b");
    pt_cluster c = th_cluster("dgx-a100-80g", 512);
    (void)state;
    for (int pp = 4; pp <= 8; pp *= 2) {
        pt_job j = th_job(2048, 2 * 512 / 8 / pp, 1);
        pt_strategy st;
        pt_sim_result r;
        pt_cost k;
        pt_diag d;
        char text[96], what[160];
        snprintf(text, sizeof text, "tp=8 pp=%d mbs=1 schedule=dualpipe", pp);
        st = th_strategy(text, &m, &c, &j);
        assert_int_equal(pt_cost_eval(&m, &c, &j, &st, &k), PT_OK);
        assert_int_equal(k.microbatches, 2);
        assert_int_equal(pt_sim_run(&m, &c, &j, &st, &r, &d), PT_OK);
        snprintf(what, sizeof what, "gpt3-175b %s, one micro-batch each way", text);
        th_near_rel(r.step_time_s, k.step_time_s, 0.03, what);
        th_near_rel(r.pipeline_s, k.step_time_s - r.tail_s, 0.03, what); /* the pipeline alone */
        assert_true(k.time.bubble > 0.5 * k.time.compute); /* one micro-batch each way mostly idles */
        pt_sim_free(&r);
    }
}

/* Re-ranking by simulation (src/plan/rerank.c): the plans kept are the pool's
 * best by simulated step time, each reports its simulated step and fits by
 * its simulated peak, no plan of the pool that fits is faster than the first
 * one, and the answer is the same for 1 and 3 threads. */
static void test_rerank(void **state)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 16);
    pt_job j = th_job(4096, 64, 1);
    pt_search_result r[2];
    pt_plan_check *k[2];
    pt_diag d;
    int keep = 3, pool = pt_plan_rerank_pool(keep);
    int64_t device = (int64_t)(c.dev.memory_GiB * PT_GiB);
    (void)state;
    assert_int_equal(pool, 20);
    assert_int_equal(pt_plan_rerank_pool(100), 400);
    for (int t = 0; t < 2; t++) {
        pt_search_opts o = th_search_opts(pool, t == 0 ? 1 : 3, 64);
        assert_int_equal(pt_search(&m, &c, &j, &o, &r[t], &d), PT_OK);
        assert_int_equal(r[t].n, pool);
        if (t == 0) {
            /* the pool's fastest fitting plan by simulation, replayed here */
            double best = 1e300;
            for (int i = 0; i < r[0].n; i++) {
                pt_sim_result s;
                assert_int_equal(pt_sim_run(&m, &c, &j, &r[0].plans[i].st, &s, &d), PT_OK);
                if (s.peak_bytes <= device && s.step_time_s < best) best = s.step_time_s;
                pt_sim_free(&s);
            }
            assert_int_equal(pt_plan_rerank(&m, &c, &j, &o, &r[0], keep, &k[0], &d), PT_OK);
            th_near_rel(r[0].plans[0].cost.step_time_s, best, 1e-12, "first plan: the pool's fastest simulated");
        } else {
            assert_int_equal(pt_plan_rerank(&m, &c, &j, &o, &r[1], keep, &k[1], &d), PT_OK);
        }
        assert_int_equal(r[t].n, keep);
        for (int i = 0; i < r[t].n; i++) {
            assert_true(k[t][i].simulated);
            th_near_rel(r[t].plans[i].cost.step_time_s, k[t][i].simulated_step_time_s, 1e-12, "reported step");
            th_near_rel(r[t].plans[i].cost.tokens_per_s,
                        (double)r[t].plans[i].st.gbs * 4096 / k[t][i].simulated_step_time_s, 1e-9, "tokens/s");
            assert_true(k[t][i].simulated_peak_bytes <= device);
            if (i > 0) assert_true(r[t].plans[i].cost.step_time_s >= r[t].plans[i - 1].cost.step_time_s);
        }
    }
    for (int i = 0; i < keep; i++) {
        char a[256], b[256];
        pt_strategy_format(&r[0].plans[i].st, a, sizeof a);
        pt_strategy_format(&r[1].plans[i].st, b, sizeof b);
        assert_string_equal(a, b);
    }
    for (int t = 0; t < 2; t++) {
        free(k[t]);
        pt_search_free(&r[t]);
    }
}


/* ---- data-parallel collectives, hand-derived ---------------------------------
 * A model whose embedding and output layer hold no parameters (gpt3-175b's
 * layers with a 0-token vocabulary and no learned positions): the buckets are
 * its L equal layers and the final norm.  Per bucket: a its gradient collective, g its
 * gather, r its reduce-scatter (the rank's totals, pt_cost_dp_colls, in
 * proportion to the bucket's parameters); f, b a layer's forward and
 * backward; f_e, b_e and f_h, b_h the embedding's and the output layer's
 * (the lookup and the final norm: they take time but hold nothing). */
typedef struct dp_hand {
    pt_model m;
    pt_cluster c;
    pt_job j;
    pt_strategy st;
    double a, g, r, a_h, g_h, r_h, f, b, f_e, b_e, f_h, b_h, F, B;
} dp_hand;

static void dp_hand_init(dp_hand *h, int L, int64_t gpus, const char *strat, int64_t gbs, int64_t seq)
{
    pt_cost_prep pr;
    pt_cost_dp k;
    double Pl, Ph, P;
    h->m = th_model("gpt3-175b");
    h->m.vocab = 0;
    h->m.learned_pos = 0;
    h->m.layers = L;
    h->c = th_cluster("dgx-a100-80g", gpus);
    h->j = th_job(seq, gbs, 1);
    h->st = th_strategy(strat, &h->m, &h->c, &h->j);
    assert_true(pt_cost_bucket_params(&h->m, &h->st, 0, 0, 0, NULL) == 0.0);
    Pl = pt_cost_bucket_params(&h->m, &h->st, 1, 0, 0, NULL);
    Ph = pt_cost_bucket_params(&h->m, &h->st, 2, 0, h->st.pp > 1, NULL);
    P = (double)L / h->st.pp * Pl + Ph;
    pt_cost_dp_colls(&h->c, &h->j, &h->st, P, 0, &k);
    h->a = (k.grad > 0 ? k.grad : 0) * Pl / P, h->a_h = k.grad * Ph / P;
    h->g = k.gather * Pl / P, h->g_h = k.gather * Ph / P;
    h->r = k.scatter * Pl / P, h->r_h = k.scatter * Ph / P;
    pt_cost_prepare(&h->m, &h->c, &h->j, &h->st, &pr);
    h->f = pr.lf + pr.ltp_f + pr.lcp_f, h->b = pr.lb + pr.ltp_b + pr.lcp_b;
    h->f_e = pr.emb_f + pr.emb_tp, h->b_e = pr.emb_b + (h->st.sp ? pr.emb_tp : 0.0);
    h->f_h = pr.head_f, h->b_h = pr.head_b;
    h->F = L * h->f + h->f_e + h->f_h, h->B = L * h->b + h->b_e + h->b_h; /* pp = 1 */
}


/* Compute beside a collective runs 1/SIGMA as fast (Lee et al., arXiv
 * 2507.03114: 18.9% slower on average), the collective at its pace; what x
 * seconds of collective beside c seconds of compute add when both start
 * together: with the compute ending first (c SIGMA <= x) x - c, else the
 * compute loses (1 - 1/SIGMA) x. */
#define SIGMA 1.189
static double beside(double x, double c) { return c * SIGMA <= x ? x - c : (1.0 - 1.0 / SIGMA) * x; }

/* pp=1, dp=2, ZeRO 0, 2 micro-batches.  The last backward runs the output
 * layer, layers L-1 .. 0, then the embedding; each layer's all-reduce is
 * issued as its backward ends, one after the other (FIFO), and slows the
 * compute it overlaps:
 *   a <= b: each all-reduce ends inside the next bucket's backward: layer
 *           L-1 loses (1 - 1/SIGMA) a_h, layers L-2 .. 0 (1 - 1/SIGMA) a each,
 *           the embedding beside(a, b_e); past the backward's end the stream
 *           runs a - SIGMA b_e (here SIGMA b_e <= a);
 *   a > b:  (and a >= SIGMA b) from layer L-1's end the stream never idles:
 *           the backward of layers L-2 .. 0 and the embedding runs SIGMA as
 *           long and the stream ends L a after layer L-1's backward, which
 *           lost (1 - 1/SIGMA) a_h: past the backward L a - SIGMA ((L-1) b +
 *           b_e), the step (1 - 1/SIGMA) a_h + L a - (L-1) b - b_e longer.
 * The step is the compute, 2 (F + B), plus that, plus the optimizer's tail.
 * a <= b: 8 layers at tp=4 dp=2 inside a node (NVLink); a > b: at tp=8,
 * dp=2 across two nodes (InfiniBand). */
static void test_dp_allreduce_hand(void **state)
{
    (void)state;
    for (int slow = 0; slow < 2; slow++) {
        dp_hand h;
        pt_sim_result r;
        pt_diag d;
        double want, step;
        int L = 8;
        pt_cost_dp k;
        dp_hand_init(&h, L, slow ? 16 : 8, slow ? "tp=8 pp=1 dp=2 mbs=1 zero=0" : "tp=4 pp=1 dp=2 mbs=1 zero=0", 4,
                     2048);
        pt_cost_dp_colls(&h.c, &h.j, &h.st, 1.0, 0, &k);
        assert_true(k.slow_c == SIGMA && k.slow == 1.0);
        assert_true(slow ? h.a >= SIGMA * h.b : h.a <= h.b);
        assert_true(h.a >= SIGMA * h.b_e && h.a_h < h.b);
        if (slow) {
            want = L * h.a - SIGMA * ((L - 1) * h.b + h.b_e);
            step = (1.0 - 1.0 / SIGMA) * h.a_h + L * h.a - (L - 1) * h.b - h.b_e;
        } else {
            want = h.a - SIGMA * h.b_e;
            step = (1.0 - 1.0 / SIGMA) * (h.a_h + (L - 1) * h.a) + beside(h.a, h.b_e);
        }
        assert_int_equal(pt_sim_run(&h.m, &h.c, &h.j, &h.st, &r, &d), PT_OK);
        th_near_rel(r.dp_s, want, 1e-9, slow ? "all-reduce past the backward, a > b" : "all-reduce past the backward, a <= b");
        th_near_rel(r.step_time_s, 2 * (h.F + h.B) + step + r.tail_s, 1e-9, "step: compute + exposed + tail");
        /* one all-reduce per layer and one for the final norm, on stream 2 */
        {
            int n = 0;
            for (int e = 0; e < r.nevents; e++) n += r.events[e].stream == 2 && r.events[e].kind == PT_OP_ALLREDUCE;
            assert_int_equal(n, L + 1);
        }
        printf("  ZeRO 0, %s: a %.3f ms, b %.3f ms, exposed %.3f ms\n", slow ? "a > b" : "a <= b", 1e3 * h.a,
               1e3 * h.b, 1e3 * r.dp_s);
        pt_sim_free(&r);
    }
}

/* pp=1, dp=2 across two nodes, ZeRO-3, one micro-batch, a layer's gather g
 * longer than its forward f (even slowed: SIGMA f <= g).  Forward
 * (embedding, layers, output layer): the embedding holds nothing to gather;
 * each bucket's gather is issued when the previous bucket's compute starts,
 * so layer 0 starts at g and every further layer g later (the stream is the
 * bottleneck); the output layer's gather g_h runs beside the last layer:
 *   F' = L g + f + beside(g_h, f) + f_h.
 * Backward (output layer, layers, embedding), gathers one ahead and each
 * bucket's reduce-scatter after its backward, FIFO G2 R1 G3 R2 ...: bucket k
 * starts when both its compute and its gather allow, the stream running
 * r_{k-1} + g_{k+1} beside bucket k from its start; with buckets (g_h, b_h,
 * r_h), L x (g, b, r), (0, b_e, 0):
 *   B' = B + g_h + beside(g, b_h) + beside(r_h + g, b)
 *        + (L - 2) beside(r + g, b) + beside(r, b) + beside(r, b_e).
 * The step is F' + B' + the optimizer's tail. */
static void test_dp_zero3_hand(void **state)
{
    dp_hand h;
    pt_sim_result r;
    pt_diag d;
    double fwd, bwd, fend = -1;
    int L = 8;
    (void)state;
    dp_hand_init(&h, L, 16, "tp=8 pp=1 dp=2 mbs=1 zero=3", 2, 512);
    assert_true(h.g >= SIGMA * h.f && h.g >= SIGMA * h.f_e); /* the compute waits for every gather */
    fwd = L * h.g + h.f + beside(h.g_h, h.f) + h.f_h;
    bwd = h.B + h.g_h + beside(h.g, h.b_h) + beside(h.r_h + h.g, h.b) + (L - 2) * beside(h.r + h.g, h.b) +
          beside(h.r, h.b) + beside(h.r, h.b_e);
    assert_int_equal(pt_sim_run(&h.m, &h.c, &h.j, &h.st, &r, &d), PT_OK);
    for (int e = 0; e < r.nevents; e++)
        if (r.events[e].stream == 0 && r.events[e].kind == PT_OP_F) fend = r.events[e].end_s;
    th_near_rel(fend, fwd, 1e-9, "ZeRO-3 forward waiting for its gathers");
    assert_true(fend > h.F * 1.5);
    th_near_rel(r.step_time_s, fwd + bwd + r.tail_s, 1e-9, "ZeRO-3 step");
    printf("  ZeRO-3: g %.3f ms > f %.3f ms: forward %.3f ms (compute %.3f), step %.3f ms\n", 1e3 * h.g, 1e3 * h.f,
           1e3 * fend, 1e3 * h.F, 1e3 * r.step_time_s);
    pt_sim_free(&r);
}

/* pp=2 1F1B, dp=2 across two nodes, ZeRO 0, 4 micro-batches, a >= SIGMA b:
 * rank 0 (the embedding and layers 0-3) ends the step with the last
 * micro-batch's backward, and its layers' all-reduces start while that
 * backward still runs (each as its layer's backward ends): they overlap it
 * and slow it.  Past its end, as for pp=1, (L/2) a - SIGMA ((L/2 - 1) b +
 * b_e); rank 1 (layers 4-7 and the final norm) finished its backwards a
 * stage backward earlier and its all-reduces with them. */
static void test_dp_pipeline_hand(void **state)
{
    dp_hand h;
    pt_sim_result r;
    pt_diag d;
    double last_b = 0, first_ar = 1e300, want;
    int L = 8, n = L / 2;
    (void)state;
    dp_hand_init(&h, L, 32, "tp=8 pp=2 dp=2 mbs=1 zero=0 schedule=1f1b", 8, 2048);
    assert_true(h.a >= SIGMA * h.b);
    want = n * h.a - SIGMA * ((n - 1) * h.b + h.b_e);
    assert_int_equal(pt_sim_run(&h.m, &h.c, &h.j, &h.st, &r, &d), PT_OK);
    for (int e = 0; e < r.nevents; e++) {
        const pt_sim_event *v = &r.events[e];
        if (v->stage != 0) continue;
        if (v->stream == 0 && v->kind == PT_OP_B && v->end_s > last_b) last_b = v->end_s;
        if (v->stream == 2 && v->start_s < first_ar) first_ar = v->start_s;
    }
    assert_true(first_ar < last_b); /* overlapping rank 0's last backward */
    /* (a difference of two times a hundred times larger: 1e-8) */
    th_near_rel(r.dp_s, want, 1e-8, "rank 0's all-reduces past the pipeline");
    printf("  pp=2: rank 0's first all-reduce at %.3f ms, its last backward ends %.3f ms, exposed %.3f ms\n",
           1e3 * first_ar, 1e3 * last_b, 1e3 * r.dp_s);
    pt_sim_free(&r);
}

/* The trace of a step with data parallelism: the collectives on tid 2,
 * named after their bucket, and a thread name for that row. */
static void test_dp_trace(void **state)
{
    dp_hand h;
    pt_sim_result r;
    pt_diag d;
    char *text = NULL;
    (void)state;
    dp_hand_init(&h, 4, 16, "tp=8 pp=1 dp=2 mbs=1 zero=1", 2, 512);
    assert_int_equal(pt_sim_run(&h.m, &h.c, &h.j, &h.st, &r, &d), PT_OK);
    assert_int_equal(pt_emit_trace(&r, &h.m, &h.st, &text, &d), PT_OK);
    assert_non_null(strstr(text, "\"data-parallel collectives\""));
    assert_non_null(strstr(text, "\"all-gather mb0 v0 L0\""));
    assert_non_null(strstr(text, "\"reduce-scatter mb0 v0 L3\""));
    assert_non_null(strstr(text, "\"reduce-scatter mb0 v0 output layer\""));
    free(text);
    assert_int_equal(pt_emit_svg(&r, &h.m, &h.st, &text, &d), PT_OK);
    assert_non_null(strstr(text, "DP reduce-scatter"));
    assert_non_null(strstr(text, "DP all-gather"));
    assert_null(strstr(text, "DP all-reduce")); /* a legend entry only for what the step has */
    free(text);
    pt_sim_free(&r);
}

/* ZeRO-3 with a pipeline (FSDP under torchtitan's schedules): the analytic
 * model replays each rank's stream beside the order as src/sim does
 * (dp_zero3_replay, coarser: one time per stream), so the two agree within
 * 3% either way, from one micro-batch to 12 pp (extrapolated past two
 * replayed windows). */
static void test_dp_zero3_pipelines(void **state)
{
    static const struct { const char *s; int vpp; } sched[] = {
        {"1f1b", 1}, {"interleaved", 2}, {"zb-h1", 1}, {"zb-v", 2}, {"dualpipe", 1},
    };
    static const struct { const char *model, *cluster; int64_t gpus, seq; int tp; } shape[] = {
        {"llama3-8b", "dgx-h100", 64, 4096, 1}, {"gpt3-175b", "dgx-a100-80g", 512, 2048, 8},
    };
    double lo = 0, hi = 0;
    int n = 0;
    (void)state;
    for (size_t i = 0; i < sizeof shape / sizeof *shape; i++)
        for (size_t k = 0; k < sizeof sched / sizeof *sched; k++)
            for (int pp = 2; pp <= 8; pp *= 2)
                for (int q = 0; q < 6; q++) {
                    pt_model m = th_model(shape[i].model);
                    pt_cluster c = th_cluster(shape[i].cluster, shape[i].gpus);
                    /* 1 and 2 micro-batches, pp, pp + 1, 4 pp, and 12 pp (past
                     * 4 lcm(pp, 2): two windows replayed, the rest extrapolated) */
                    static const int mul[] = {0, 0, 1, 1, 4, 12}, add[] = {1, 2, 0, 1, 0, 0};
                    int64_t dp = shape[i].gpus / ((int64_t)shape[i].tp * pp), mb = mul[q] * pp + add[q];
                    if (k == 1 && mb % pp) continue; /* interleaved: a multiple of pp */
                    if (k == 4 && mb % 2) continue;  /* dualpipe: an even number     */
                    pt_job j = th_job(shape[i].seq, mb * dp, 1);
                    pt_strategy st;
                    pt_sim_result r;
                    pt_cost k2;
                    pt_diag d;
                    char text[160];
                    double e;
                    snprintf(text, sizeof text, "tp=%d pp=%d dp=%lld mbs=1 zero=3 schedule=%s vpp=%d", shape[i].tp, pp,
                             (long long)dp, sched[k].s, sched[k].vpp);
                    st = th_strategy(text, &m, &c, &j);
                    assert_int_equal(pt_cost_eval(&m, &c, &j, &st, &k2), PT_OK);
                    assert_int_equal(pt_sim_run(&m, &c, &j, &st, &r, &d), PT_OK);
                    e = r.step_time_s / k2.step_time_s - 1.0;
                    if (e > 0.03 || e < -0.03)
                        fail_msg("%s %s m=%lld: simulated %.4f s, analytic %.4f s (%+.1f%%)", shape[i].model, text,
                                 (long long)mb, r.step_time_s, k2.step_time_s, 100 * e);
                    if (e < lo) lo = e;
                    if (e > hi) hi = e;
                    n++;
                    pt_sim_free(&r);
                }
    printf("  %d pipelined ZeRO-3 steps: simulated vs analytic %+.2f%% .. %+.2f%%\n", n, 100 * lo, 100 * hi);
}

/* A step too long to replay whole (70000 micro-batches per pipeline: two
 * windows, extrapolated): the data-parallel part stays right -- ZeRO 1's
 * collectives are the same in both windows, ZeRO-3's grow with the
 * micro-batches -- so the step agrees with the analytic model's (pp=1,
 * where the two agree to the bit when replayed whole) within 1e-6. */
static void test_dp_window(void **state)
{
    (void)state;
    for (int zero = 1; zero <= 3; zero += 2) {
        pt_model m = th_model("gpt-1.7b");
        pt_cluster c = th_cluster("dgx-a100-80g", 8);
        pt_job j = th_job(2048, 70000 * 8, 1);
        pt_strategy st;
        pt_sim_result r;
        pt_cost k;
        pt_diag d;
        char text[96];
        m.layers = 4;
        snprintf(text, sizeof text, "tp=1 pp=1 dp=8 mbs=1 zero=%d", zero);
        st = th_strategy(text, &m, &c, &j);
        assert_int_equal(pt_cost_eval(&m, &c, &j, &st, &k), PT_OK);
        assert_int_equal(pt_sim_run(&m, &c, &j, &st, &r, &d), PT_OK);
        assert_true(r.window > 0 && r.microbatches == 70000);
        th_near_rel(r.step_time_s, k.step_time_s, 1e-6, zero == 3 ? "ZeRO-3, extrapolated" : "ZeRO 1, extrapolated");
        pt_sim_free(&r);
    }
}

/* The analytic model's data-parallel overlap against the replay's (pp=1, so
 * the collectives are all the two differ in): dp 2..64 (tp 4..1 on 8..64
 * H100), ZeRO 0..3, 4..96 layers of llama3-8b (its embedding and output
 * layer each weigh 2.4 layers: the buckets are unequal) and gpt3-175b at
 * tp=8, 1 and 4 micro-batches, Megatron and DeepSpeed: within 3%. */
static void test_dp_sweep(void **state)
{
    static const struct { const char *model; int tp, dp; } shape[] = {
        {"llama3-8b", 4, 2}, {"llama3-8b", 1, 8}, {"llama3-8b", 1, 64}, {"gpt3-175b", 8, 8}, {"gpt3-175b", 8, 64},
    };
    static const int layers[] = {4, 16, 48, 96};
    int n = 0;
    double worst = 0;
    char wname[512] = "";
    (void)state;
    for (size_t i = 0; i < sizeof shape / sizeof *shape; i++)
        for (size_t li = 0; li < sizeof layers / sizeof *layers; li++)
            for (int zero = 0; zero <= 3; zero++)
                for (int eng = 0; eng < 2; eng++)
                    for (int mb = 1; mb <= 4; mb *= 4) {
                        pt_model m = th_model(shape[i].model);
                        pt_cluster c = th_cluster("dgx-h100", (int64_t)shape[i].tp * shape[i].dp);
                        pt_job j = th_job(shape[i].model[0] == 'g' ? 2048 : 4096, (int64_t)mb * shape[i].dp, 1);
                        pt_strategy st;
                        pt_sim_result r;
                        pt_cost k;
                        pt_diag d;
                        char text[160], what[512];
                        double e;
                        m.layers = layers[li];
                        j.engine = eng ? PT_ENGINE_DEEPSPEED : PT_ENGINE_MEGATRON;
                        snprintf(text, sizeof text, "tp=%d pp=1 dp=%d mbs=1 zero=%d recompute=full", shape[i].tp,
                                 shape[i].dp, zero);
                        st = th_strategy(text, &m, &c, &j);
                        assert_int_equal(pt_cost_eval(&m, &c, &j, &st, &k), PT_OK);
                        assert_int_equal(pt_sim_run(&m, &c, &j, &st, &r, &d), PT_OK);
                        e = r.step_time_s / k.step_time_s - 1.0;
                        snprintf(what, sizeof what, "%s L=%lld %s %s m=%d: simulated step against analytic (dp %.3f s of %.3f)",
                                 shape[i].model, (long long)m.layers, text, eng ? "deepspeed" : "megatron", mb,
                                 k.time.dp_comm, k.step_time_s);
                        if (getenv("PT_SWEEP_PRINT"))
                            printf("  %+6.2f%%  sim %.4f an %.4f  %s\n", 100 * e, r.step_time_s, k.step_time_s, what);
                        if (fabs(e) > worst) worst = fabs(e), snprintf(wname, sizeof wname, "%s", what);
                        n++;
                        pt_sim_free(&r);
                    }
    printf("  %d pp=1 steps with data parallelism: worst %.2f%% (%s)\n", n, 100 * worst, wname);
    assert_true(worst <= 0.03);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bubble_hand),
        cmocka_unit_test(test_zero_bubble),
        cmocka_unit_test(test_published_runs),
        cmocka_unit_test(test_moe_agrees),
        cmocka_unit_test(test_sweep_microbatches),
        cmocka_unit_test(test_zbv_one_microbatch),
        cmocka_unit_test(test_dualpipe_two_microbatches),
        cmocka_unit_test(test_rerank),
        cmocka_unit_test(test_dp_sweep),
        cmocka_unit_test(test_dp_allreduce_hand),
        cmocka_unit_test(test_dp_zero3_hand),
        cmocka_unit_test(test_dp_pipeline_hand),
        cmocka_unit_test(test_dp_trace),
        cmocka_unit_test(test_dp_zero3_pipelines),
        cmocka_unit_test(test_dp_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
