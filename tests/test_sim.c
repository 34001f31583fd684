/*
 * test_sim.c -- the step simulator (src/sim) against the analytic model and
 * against hand-derived pipeline bubbles.
 */
#include <math.h>

#include "helpers.h"
#include "base/base.h"
#include "validate/validate.h"
#include "sim/sim.h"

/* A uniform pipeline on a hand example: gpt-1.7b's 24 layers with a 64-token
 * vocabulary (so the embedding and the logits weigh nothing), pp=4 with 6
 * layers per stage on one node.  1F1B idles each stage for (p-1)(t_f+t_b)
 * (Narayanan eq. 2): the simulated idle time of the busiest stage over its
 * work per micro-batch is p-1 = 3 (within 5%: the point-to-point sends);
 * interleaving (v=2, 3 layers per virtual stage) divides it by v (eq. 3);
 * GPipe idles as much as 1F1B. */
static void test_bubble_hand(void **state)
{
    pt_model m = th_model("gpt-1.7b");
    pt_cluster c = th_cluster("dgx-a100-80g", 8);
    pt_job j = th_job(2048, 32, 1);
    static const struct { const char *s; double want; } cases[] = {
        {"tp=1 pp=4 dp=2 mbs=1 schedule=1f1b", 3.0},
        {"tp=1 pp=4 dp=2 mbs=1 schedule=gpipe", 3.0},
        {"tp=1 pp=4 dp=2 mbs=1 vpp=2 schedule=interleaved", 1.5},
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bubble_hand),
        cmocka_unit_test(test_zero_bubble),
        cmocka_unit_test(test_published_runs),
        cmocka_unit_test(test_moe_agrees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
