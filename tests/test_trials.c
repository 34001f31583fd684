/*
 * test_trials.c -- hyper-parameter trials as independent experiments
 * against data parallelism over all devices (src/goal/trials.c): the
 * bookkeeping of shares and waves, the totals from one trial's time, the
 * seed paper's direction and size, and refusals.
 */
#include <math.h>

#include "helpers.h"
#include "goal/trials.h"
#include "workload/graph.h"

static pt_cluster cte_power(void)
{
    pt_cluster c;
    pt_diag d;
    size_t n = 0;
    char *text = th_slurp("examples/cte-power.json", &n);
    assert_non_null(text);
    assert_int_equal(pt_cluster_parse(text, "examples/cte-power.json", &c, &d), PT_OK);
    free(text);
    return c;
}

/* Berral et al. 2022: x12-x14 on 32 GPUs for a 3D U-Net on BraTS against
 * data parallelism.  With the assumed B_noise of 2 volumes the model gives
 * about x11 (the README shows the run); what must hold whatever the
 * constants: independent trials win, by more when B_noise is smaller, and
 * with no batch penalty the two are within the exchange's few percent. */
static void test_paper_direction(void **state)
{
    pt_graph g;
    pt_diag d;
    pt_statef se;
    pt_trials_result r;
    pt_cluster c = cte_power();
    pt_trials_opts o = {.gpus = 32, .trials = 32, .dtype = PT_FP16};
    (void)state;
    assert_int_equal(pt_graph_builtin("unet3d-brats", &g, &d), PT_OK);
    assert_true(pt_statef_builtin("unet3d-brats", &se));
    assert_int_equal(pt_trials(&g, &c, &se, &o, &r, &d), PT_OK);
    assert_int_equal(r.per_trial, 1);
    assert_int_equal(r.concurrent, 32);
    assert_int_equal(r.waves, 1);
    /* one device, one volume: 1 + 1/2 of E_min epochs */
    assert_true(r.indep.devices == 1 && r.indep.global_batch == 1);
    th_near_rel(r.indep.epochs, 250.0 * 1.5, 1e-12, "independent epochs");
    /* data parallelism alone over 32: one volume per GPU */
    assert_true(r.dp_plain.p == 1 && r.dp_plain.global_batch == 32);
    th_near_rel(r.dp_plain.epochs, 250.0 * 17.0, 1e-12, "data-parallel epochs");
    /* the totals are one trial's time, K times or once */
    th_near_rel(r.indep_total_s, r.indep.time_s, 1e-12, "one wave");
    th_near_rel(r.dp_plain_total_s, 32.0 * r.dp_plain.time_s, 1e-12, "32 in a row");
    th_near_rel(r.speedup_plain, r.dp_plain_total_s / r.indep_total_s, 1e-12, "speed-up");
    /* the paper's size, loosely: x10 to x16 */
    assert_true(r.speedup_plain > 10.0 && r.speedup_plain < 16.0);
    /* the epochs ratio 17 / 1.5 = 11.3 times the steps' ratio (near 1) */
    th_near_rel(r.speedup_plain, 17.0 / 1.5 * r.dp_plain.step_s / r.indep.step_s, 1e-9, "ratio of ratios");
    assert_true(r.speedup_half_bn > r.speedup_plain && r.speedup_plain > r.speedup_double_bn);
    assert_true(r.speedup_no_penalty > 0.95 && r.speedup_no_penalty < 1.1);
    /* spatial partitioning reaches 32 GPUs with a smaller batch: the gap narrows but stays */
    assert_true(r.dp.p > 1 && r.dp.global_batch < 32);
    assert_true(r.speedup > 1.0 && r.speedup < r.speedup_plain);
    pt_graph_free(&g);
}

/* Shares and waves: 8 trials on 32 GPUs run 8 at once on 4 each; 64
 * trials on 32 run in 2 waves of 32 on one GPU each; one trial is the
 * same run both ways (x1). */
static void test_shares_and_waves(void **state)
{
    pt_graph g;
    pt_diag d;
    pt_statef se;
    pt_trials_result r;
    pt_cluster c = cte_power();
    pt_trials_opts o = {.gpus = 32, .trials = 8, .dtype = PT_FP16};
    (void)state;
    assert_int_equal(pt_graph_builtin("unet3d-brats", &g, &d), PT_OK);
    assert_true(pt_statef_builtin("unet3d-brats", &se));
    assert_int_equal(pt_trials(&g, &c, &se, &o, &r, &d), PT_OK);
    assert_true(r.per_trial == 4 && r.concurrent == 8 && r.waves == 1);
    assert_int_equal(r.indep.devices, 4);
    o.trials = 64;
    assert_int_equal(pt_trials(&g, &c, &se, &o, &r, &d), PT_OK);
    assert_true(r.per_trial == 1 && r.concurrent == 32 && r.waves == 2);
    th_near_rel(r.indep_total_s, 2.0 * r.indep.time_s, 1e-12, "two waves");
    th_near_rel(r.dp_plain_total_s, 64.0 * r.dp_plain.time_s, 1e-12, "64 in a row");
    o.trials = 1;
    assert_int_equal(pt_trials(&g, &c, &se, &o, &r, &d), PT_OK);
    th_near_rel(r.speedup, 1.0, 1e-12, "one trial");
    /* data parallelism alone, asked for */
    o.trials = 32, o.no_spatial = 1;
    assert_int_equal(pt_trials(&g, &c, &se, &o, &r, &d), PT_OK);
    assert_int_equal(r.dp.p, 1);
    th_near_rel(r.speedup, r.speedup_plain, 1e-12, "no spatial");
    /* refusals name the field */
    o.trials = 0;
    assert_int_equal(pt_trials(&g, &c, &se, &o, &r, &d), PT_EINPUT);
    assert_string_equal(d.field, "trials");
    o.trials = 4, o.gpus = 0;
    assert_int_equal(pt_trials(&g, &c, &se, &o, &r, &d), PT_EINPUT);
    assert_string_equal(d.field, "gpus");
    se.b_noise = 0;
    o.gpus = 32;
    assert_int_equal(pt_trials(&g, &c, &se, &o, &r, &d), PT_EINPUT);
    assert_string_equal(d.field, "stat-eff");
    pt_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_direction),
        cmocka_unit_test(test_shares_and_waves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
