/*
 * test_nearmiss.c -- plan's advice when nothing fits (src/plan/nearmiss.c).
 *
 * Llama 3.1 405B on one DGX H100 node (8 x 80 GiB), gbs 8, seq 8192: no
 * strategy fits.  Each single change is the nearest miss with exactly that
 * change, priced as pt_cost_eval prices it; the device count is the hand
 * derivation in the comment below.
 */
#include "helpers.h"
#include "plan/search.h"

static void test_405b_on_one_node(void **state)
{
    pt_model m = th_model("llama3.1-405b");
    pt_cluster c = th_cluster("dgx-h100", 8);
    pt_diag d;
    pt_job j = th_job(8192, 8, 1);
    pt_search_opts o = th_search_opts(5, 1, 8);
    pt_search_result r;
    pt_nearmiss nm;
    (void)state;
    assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_OK);
    assert_int_equal(r.n, 0);
    assert_true(r.have_miss);
    assert_int_equal(pt_nearmiss_explain(&m, &c, &j, &r.miss, &nm), PT_OK);
    assert_true(nm.ntries >= 0 && nm.ntries <= PT_NEARMISS_TRIES);
    for (int i = 0; i < nm.ntries; i++) {
        const pt_nearmiss_try *t = &nm.tries[i];
        pt_cost k;
        pt_strategy want = r.miss.st;
        /* the miss with exactly the change named, nothing else */
        if (!strcmp(t->change, "recompute=full")) want.recompute = PT_RC_FULL;
        else if (!strcmp(t->change, "mbs=1")) want.mbs = 1;
        else if (!strcmp(t->change, "zero=3")) want.zero = 3;
        else if (!strcmp(t->change, "offload=optimizer")) {
            want.offload = PT_OFF_OPTIMIZER;
            if (want.zero < 1) want.zero = 1;
        } else if (!strcmp(t->change, "zero=3 offload=params")) want.zero = 3, want.offload = PT_OFF_PARAMS;
        else fail_msg("unexpected change \"%s\"", t->change);
        assert_memory_equal(&t->st, &want, sizeof want);
        assert_int_equal(pt_strategy_check(&t->st, &m, &c, &j, &d), PT_OK);
        assert_int_equal(pt_cost_eval(&m, &c, &j, &t->st, &k), PT_OK);
        assert_true(k.mem.total == t->cost.mem.total);
        assert_true(k.fits == t->cost.fits);
        assert_false(t->cost.fits); /* on one node nothing single fixes 405B */
        /* only changes that move the answer: a different strategy, less memory */
        assert_true(t->cost.mem.total < r.miss.cost.mem.total);
    }
    /* 405.85e9 parameters x 16 B = 6048 GiB; a device gives 0.8 x 80 =
     * 64 GiB to them: 6048 / 64 = 94.5 -> 95 -> whole 8-GPU nodes: 96 */
    assert_true(nm.states_bytes > 6047.0 * PT_GiB && nm.states_bytes < 6049.0 * PT_GiB);
    assert_int_equal(nm.devices_needed, 96);
    pt_search_free(&r);
}

/* The case: 405B on one node, tp=8 with mbs=1, zero=3, full
 * recompute and the optimizer offloaded already.  Four of the five changes
 * are what the miss has (they would print its own memory again); the fifth,
 * offload=params, moves the parameters and keeps the optimizer on the host:
 * it needed 700 GiB when its memory put the fp32 Adam states (12 B per
 * parameter, 405.85e9 / 8 x 12 B = 567 GiB) back on the device although its
 * step prices CPU Adam.  Now it needs less than the miss: the weights drop
 * from 2 B x 405.85e9 / 8 = 94.5 GiB to two gathered layers, optimizer 0. */
static void test_only_changes_that_move(void **state)
{
    pt_model m = th_model("llama3.1-405b");
    pt_cluster c = th_cluster("dgx-h100", 8);
    pt_job j = th_job(8192, 64, 1);
    pt_plan miss;
    pt_nearmiss nm;
    (void)state;
    memset(&miss, 0, sizeof miss);
    miss.st = th_strategy("tp=8 mbs=1 gbs=64 zero=3 recompute=full offload=optimizer", &m, &c, &j);
    assert_int_equal(pt_cost_eval(&m, &c, &j, &miss.st, &miss.cost), PT_OK);
    assert_false(miss.cost.fits);
    assert_int_equal(pt_nearmiss_explain(&m, &c, &j, &miss, &nm), PT_OK);
    assert_int_equal(nm.ntries, 1);
    assert_string_equal(nm.tries[0].change, "zero=3 offload=params");
    assert_int_equal(nm.tries[0].st.offload, PT_OFF_PARAMS);
    assert_true(nm.tries[0].cost.mem.total < miss.cost.mem.total);
    assert_int_equal(nm.tries[0].cost.mem.optimizer, 0);
    assert_true(nm.tries[0].cost.mem.weights < 4.0 * PT_GiB);
    assert_true(miss.cost.mem.weights > 90.0 * PT_GiB);
}

/* A cluster large enough for the states: no device count is advised. */
static void test_enough_devices(void **state)
{
    pt_model m = th_model("llama3.1-405b");
    pt_cluster c = th_cluster("dgx-h100", 128);
    pt_job j = th_job(8192, 8, 1);
    pt_plan miss;
    pt_nearmiss nm;
    (void)state;
    memset(&miss, 0, sizeof miss);
    miss.st = th_strategy("tp=8 pp=2 mbs=1 gbs=8", &m, &c, &j);
    assert_int_equal(pt_nearmiss_explain(&m, &c, &j, &miss, &nm), PT_OK);
    assert_int_equal(nm.devices_needed, 0); /* 96 <= 128 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_405b_on_one_node),
        cmocka_unit_test(test_only_changes_that_move),
        cmocka_unit_test(test_enough_devices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
