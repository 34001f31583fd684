/*
 * test_gplan.c -- data-parallel plans of a layer graph (src/plan/gplan.c):
 * which (p, dp, k) a global batch allows, the step as the sum of its
 * parts, gradient accumulation where a micro-batch must shrink, and the
 * exchange chosen with CPU machines.
 */
#include <math.h>

#include "helpers.h"
#include "plan/gplan.h"
#include "workload/graph.h"

/* 8 volumes on 32 GPUs (4 nodes of 8): p = 1 and 2 leave groups without a
 * whole volume (8 % 32, 8 % 16), so p = 4 (8 groups of 1) and p = 8 (4
 * groups of 2) remain, and the U-Net's 16-plane bottom allows both. */
static void test_gplan_unet(void **state)
{
    pt_graph g;
    pt_diag d;
    pt_gplan_result *r = malloc(sizeof *r);
    pt_cluster c = th_cluster("dgx-a100-80g", 32);
    (void)state;
    assert_non_null(r);
    assert_int_equal(pt_graph_builtin("unet3d-brats", &g, &d), PT_OK);
    assert_int_equal(pt_gplan_search(&g, &c, PT_FP16, 8, 0, r, &d), PT_OK);
    assert_int_equal(r->n, 2);
    for (int i = 0; i < r->n; i++) {
        const pt_gplan *p = &r->plan[i];
        assert_true(p->p * p->dp == 32);
        assert_true((double)p->dp * p->micro * (double)p->k == 8.0);
        th_near_rel(p->step_s,
                    (double)p->k * (p->cost.compute_s + p->cost.halo_s + p->cost.norm_s) + p->cost.dp_comm_s +
                        p->cost.optimizer_s,
                    1e-12, "step parts");
        th_near_rel(p->samples_per_s * p->step_s, 8.0, 1e-12, "samples/s");
        assert_true(p->fits);
        assert_int_equal(p->xchg.best, PT_PS_ALLREDUCE);
    }
    assert_true(r->plan[0].step_s <= r->plan[1].step_s);
    /* 7 volumes split over nothing */
    assert_int_equal(pt_gplan_search(&g, &c, PT_FP16, 7, 0, r, &d), PT_EINPUT);
    assert_string_equal(d.field, "global-batch");
    assert_string_equal(d.value, "7");
    pt_graph_free(&g);
    free(r);
}

/* ResNet-50 at 32768 images on 8 V100-32GB: 4096 per GPU does not fit, so
 * the plan accumulates; at 4096 on 64 with 4 CPU machines BytePS wins. */
static void test_gplan_resnet(void **state)
{
    pt_graph g;
    pt_diag d;
    pt_gplan_result *r = malloc(sizeof *r);
    pt_cluster c = th_cluster("dgx-1-v100", 8);
    (void)state;
    assert_non_null(r);
    assert_int_equal(pt_graph_builtin("resnet-50", &g, &d), PT_OK);
    assert_int_equal(pt_gplan_search(&g, &c, PT_FP16, 32768, 0, r, &d), PT_OK);
    assert_int_equal(r->n, 1); /* ResNet-50's 7x7 last stage: no cut */
    assert_true(r->plan[0].k > 1 && r->plan[0].fits);
    assert_true(r->plan[0].micro * (double)r->plan[0].k == 4096.0);
    c = th_cluster("dgx-1-v100", 64);
    assert_int_equal(pt_gplan_search(&g, &c, PT_FP16, 4096, 4, r, &d), PT_OK);
    assert_int_equal(r->plan[0].cost.sync, PT_PS_BYTEPS);
    assert_int_equal(r->plan[0].xchg.best, PT_PS_BYTEPS);
    pt_graph_free(&g);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gplan_unet),
        cmocka_unit_test(test_gplan_resnet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
