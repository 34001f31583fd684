/*
 * test_nearmiss.c -- plan's advice when nothing fits (src/plan/nearmiss.c).
 *
 * Llama 3.1 405B on one DGX H100 node (8 x 80 GiB), gbs 8, seq 8192: no
 * strategy fits.  Each single change is the nearest miss with exactly that
 * change, priced as pt_cost_eval prices it; the device count is the hand
 * derivation in the comment below.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "partita.h"
#include "plan/search.h"

static void test_405b_on_one_node(void **state)
{
    pt_model m;
    pt_cluster c;
    pt_diag d;
    pt_job j = {8192, 8, PT_BF16, 1, PT_ENGINE_MEGATRON, 0, 0};
    pt_search_opts o;
    pt_search_result r;
    pt_nearmiss nm;
    (void)state;
    assert_int_equal(pt_model_builtin("llama3.1-405b", &m, &d), PT_OK);
    assert_int_equal(pt_cluster_builtin("dgx-h100", &c, &d), PT_OK);
    assert_int_equal(pt_cluster_resize(&c, 8, &d), PT_OK);
    memset(&o, 0, sizeof o);
    pt_space_init(&o.space);
    o.top_k = 5, o.threads = 1, o.prune = 1, o.gbs_lo = o.gbs_hi = 8;
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
    pt_model m;
    pt_cluster c;
    pt_diag d;
    pt_job j = {8192, 8, PT_BF16, 1, PT_ENGINE_MEGATRON, 0, 0};
    pt_plan miss;
    pt_nearmiss nm;
    unsigned set;
    (void)state;
    assert_int_equal(pt_model_builtin("llama3.1-405b", &m, &d), PT_OK);
    assert_int_equal(pt_cluster_builtin("dgx-h100", &c, &d), PT_OK);
    assert_int_equal(pt_cluster_resize(&c, 128, &d), PT_OK);
    memset(&miss, 0, sizeof miss);
    assert_int_equal(pt_strategy_parse("tp=8 pp=2 mbs=1 gbs=8", &miss.st, &set, &d), PT_OK);
    assert_int_equal(pt_strategy_resolve(&miss.st, set, &m, &c, &j, &d), PT_OK);
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
