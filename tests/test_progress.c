/*
 * test_progress.c -- the progress callbacks of the search and of scale
 * (pt_search_opts.progress, pt_scale_opts.progress): called with done rising
 * by one up to total, at a coarse grain (per (tp, cp) pair, not per
 * strategy), and the answer is the same with and without them, whatever the
 * thread count.
 */
#include "helpers.h"
#include "goal/scale.h"
#include "plan/search.h"

typedef struct seen {
    int64_t calls, last, total;
    int bad;     /* done did not rise by one, or total changed */
} seen;

static void record(void *arg, int64_t done, int64_t total)
{
    seen *s = arg;
    if (done != s->last + 1 || (s->calls && total != s->total) || done > total) s->bad = 1;
    s->calls++, s->last = done, s->total = total;
}

static void search_once(int threads, int with_progress, seen *s, pt_search_result *r)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 16);
    pt_diag d;
    pt_job j = th_job(4096, 32, 1);
    pt_search_opts o = th_search_opts(20, threads, 32);
    if (with_progress) o.progress = record, o.progress_arg = s;
    assert_int_equal(pt_search(&m, &c, &j, &o, r, &d), PT_OK);
}

static void test_search_progress(void **state)
{
    pt_search_result plain, r1, r3;
    seen s1 = {0}, s3 = {0};
    (void)state;
    search_once(1, 0, NULL, &plain);
    search_once(1, 1, &s1, &r1);
    search_once(3, 1, &s3, &r3);
    /* llama3-8b (32 heads, 8 kv heads) on 16 devices, seq 4096: tp in
     * {1, 2, 4, 8, 16 is refused by kv=8} x cp dividing 16/tp with seq % 2cp:
     * tp 1: cp 1,2,4,8,16; tp 2: 1,2,4,8; tp 4: 1,2,4; tp 8: 1,2 -> 14 pairs */
    assert_int_equal(s1.total, 14);
    assert_int_equal(s1.calls, 14);
    assert_int_equal(s1.last, 14);
    assert_false(s1.bad);
    assert_int_equal(s3.calls, 14);
    assert_int_equal(s3.last, 14);
    assert_false(s3.bad);
    /* far fewer calls than strategies: coarse */
    assert_true(plain.evaluated > 100 * s1.calls);
    assert_int_equal(r1.n, plain.n);
    assert_int_equal(r3.n, plain.n);
    assert_true(r1.evaluated == plain.evaluated && r3.evaluated == plain.evaluated);
    for (int i = 0; i < plain.n; i++) {
        assert_memory_equal(&r1.plans[i].st, &plain.plans[i].st, sizeof(pt_strategy));
        assert_memory_equal(&r3.plans[i].st, &plain.plans[i].st, sizeof(pt_strategy));
        assert_true(r1.plans[i].cost.step_time_s == plain.plans[i].cost.step_time_s);
        assert_true(r3.plans[i].cost.step_time_s == plain.plans[i].cost.step_time_s);
    }
    pt_search_free(&plain);
    pt_search_free(&r1);
    pt_search_free(&r3);
}

static void test_scale_progress(void **state)
{
    pt_graph g;
    pt_cluster c;
    pt_diag d;
    pt_statef se = {.e_min = 50, .b_noise = 4000};
    pt_scale_result plain, r;
    pt_scale_opts o = {.max_gpus = 32, .dtype = PT_FP16, .ilp_nodes = 50, .ilp_seconds = 30};
    seen s = {0};
    (void)state;
    assert_int_equal(pt_graph_load("tests/data/graph/small_cnn.json", &g, &d), PT_OK);
    assert_int_equal(pt_cluster_builtin("dgx-1-v100", &c, &d), PT_OK);
    assert_int_equal(pt_scale(&g, &c, &se, &o, &plain, &d), PT_OK);
    o.progress = record, o.progress_arg = &s;
    assert_int_equal(pt_scale(&g, &c, &se, &o, &r, &d), PT_OK);
    /* 6 device counts (1..32) + 4 worker sizes placed (1, 2, 4, 8 on an
     * 8-GPU node) + 3 speed-up rows (2, 4, 8) */
    assert_int_equal(s.total, 6 + 4 + 3);
    assert_int_equal(s.calls, s.total);
    assert_int_equal(s.last, s.total);
    assert_false(s.bad);
    assert_int_equal(r.n, plain.n);
    assert_int_equal(r.crossover_gpus, plain.crossover_gpus);
    for (int i = 0; i < r.n; i++) {
        assert_true(r.pt[i].dp.time_s == plain.pt[i].dp.time_s);
        assert_true(r.pt[i].hybrid.time_s == plain.pt[i].hybrid.time_s);
    }
    pt_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_search_progress),
        cmocka_unit_test(test_scale_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
