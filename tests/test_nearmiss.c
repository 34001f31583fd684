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
    assert_true(nm.ntries >= 1 && nm.ntries <= PT_NEARMISS_TRIES);
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
    }
    /* 405.85e9 parameters x 16 B = 6048 GiB; a device gives 0.8 x 80 =
     * 64 GiB to them: 6048 / 64 = 94.5 -> 95 -> whole 8-GPU nodes: 96 */
    assert_true(nm.states_bytes > 6047.0 * PT_GiB && nm.states_bytes < 6049.0 * PT_GiB);
    assert_int_equal(nm.devices_needed, 96);
    pt_search_free(&r);
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
        cmocka_unit_test(test_enough_devices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
