/*
 * test_api.c -- the public planning API (include/partita.h, src/api/api.c):
 * pt_plan_run, its per-candidate callback, pt_simulate and pt_export.
 */
#include "helpers.h"

/* Every case plans llama3-8b on 16 H100, seq 4096, gbs 128. */
static void setup(pt_model *m, pt_cluster *c, pt_job *job)
{
    *m = th_model("llama3-8b");
    *c = th_cluster("dgx-h100", 16);
    *job = th_job(4096, 128, 1);
}

static void count(const pt_strategy *st, const pt_cost *cost, void *arg)
{
    assert_true(cost->fits);
    assert_true(st->tp * st->pp * st->dp * st->cp == 16);
    ++*(long *)arg;
}

/* The callback sees every candidate that fits, once, whatever the thread
 * count; the plans kept do not depend on it either. */
static void test_callback_counts(void **state)
{
    pt_model m;
    pt_cluster c;
    pt_job job;
    pt_diag d;
    pt_plans *a, *b;
    long n1 = 0, n3 = 0;
    pt_plan_opts o = {.top_k = 4, .threads = 1, .on_candidate = count, .arg = &n1};
    (void)state;
    setup(&m, &c, &job);
    assert_int_equal(pt_plan_run(&m, &c, &job, &o, &a, &d), PT_OK);
    o.threads = 3;
    o.arg = &n3;
    assert_int_equal(pt_plan_run(&m, &c, &job, &o, &b, &d), PT_OK);
    assert_true(n1 > 100);
    assert_int_equal(n1, n3);
    assert_int_equal(pt_plans_count(a), 4);
    assert_true(pt_plans_evaluated(a) >= n1);
    for (int i = 0; i < 4; i++) {
        char x[256], y[256];
        pt_strategy_format(pt_plans_strategy(a, i), x, sizeof x);
        pt_strategy_format(pt_plans_strategy(b, i), y, sizeof y);
        assert_string_equal(x, y);
        if (i) assert_true(pt_plans_cost(a, i)->step_time_s >= pt_plans_cost(a, i - 1)->step_time_s);
    }
    assert_null(pt_plans_strategy(a, 4));
    assert_null(pt_plans_cost(a, -1));
    pt_plans_free(a);
    pt_plans_free(b);
}

/* --fix and --space as text; a bad one is refused by name. */
static void test_fix_space(void **state)
{
    pt_model m;
    pt_cluster c;
    pt_job job;
    pt_diag d;
    pt_plans *p;
    pt_plan_opts o = {.top_k = 2, .fix = "tp=2 mbs=1", .space = "pp=1,2"};
    (void)state;
    setup(&m, &c, &job);
    assert_int_equal(pt_plan_run(&m, &c, &job, &o, &p, &d), PT_OK);
    assert_int_equal(pt_plans_count(p), 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pt_plans_strategy(p, i)->tp, 2);
        assert_int_equal(pt_plans_strategy(p, i)->mbs, 1);
        assert_true(pt_plans_strategy(p, i)->pp <= 2);
    }
    pt_plans_free(p);
    o.fix = "tq=2";
    assert_int_equal(pt_plan_run(&m, &c, &job, &o, &p, &d), PT_EINPUT);
    assert_null(p);
    assert_non_null(strstr(d.msg, "tq"));
    o.fix = NULL;
    job.global_batch = 0;
    assert_int_equal(pt_plan_run(&m, &c, &job, &o, &p, &d), PT_EINPUT);
    assert_string_equal(d.field, "global_batch");
}

/* The simulator agrees with the analytic model on a plain 1F1B plan, and
 * pt_export writes the engine's flags or refuses an unknown engine. */
static void test_simulate_export(void **state)
{
    pt_model m;
    pt_cluster c;
    pt_job job;
    pt_diag d;
    pt_strategy st;
    pt_cost k;
    pt_sim_summary s;
    char *text;
    (void)state;
    setup(&m, &c, &job);
    st = th_strategy("tp=2 pp=2 mbs=1", &m, &c, &job);
    assert_int_equal(pt_cost_eval(&m, &c, &job, &st, &k), PT_OK);
    assert_int_equal(pt_simulate(&m, &c, &job, &st, &s, &d), PT_OK);
    /* src/sim and src/cost agree within 3% on 1F1B (tests/test_sim.c) */
    th_near_rel(s.step_time_s, k.step_time_s, 0.03, "pt_simulate step against pt_cost_eval");
    assert_true(s.fits);
    assert_int_equal(pt_export("megatron", &m, &c, &job, &st, &text, &d), PT_OK);
    assert_non_null(strstr(text, "--tensor-model-parallel-size 2"));
    assert_non_null(strstr(text, "--pipeline-model-parallel-size 2"));
    free(text);
    assert_int_equal(pt_export("jax", &m, &c, &job, &st, &text, &d), PT_EINPUT);
    assert_null(text);
    assert_string_equal(d.value, "jax");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_callback_counts),
        cmocka_unit_test(test_fix_space),
        cmocka_unit_test(test_simulate_export),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
