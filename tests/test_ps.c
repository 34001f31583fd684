/*
 * test_ps.c -- gradient exchange by all-reduce, parameter servers and
 * BytePS (src/cost/ps.c): the OSDI'20 formulas worked by hand, sparse
 * pushes, and the choice a data-parallel step makes with its reason.
 */
#include <math.h>

#include "helpers.h"
#include "cost/ps.h"
#include "workload/graph.h"

/* n = 8 GPU machines, k = 4 CPU machines, M = 100 MB, B = 10 GB/s:
 *   all-reduce      2 * 7 / 8 * 1e8 / 1e10            = 17.5 ms
 *   colocated PS    the same bytes                     = 17.5 ms
 *   CPU servers     max(1e8 / 1e10, 8 * 1e8 / (4e10))  = max(10, 20) = 20 ms
 *   BytePS          2 * 8 * 7 / (64 + 32 - 8) * 10 ms = 112 / 88 * 10 = 12.727 ms
 *   CPU share x     2 * 4 * 7 / 88                     = 0.63636 */
static void test_byteps_by_hand(void **state)
{
    pt_ps_in in = {.n = 8, .k = 4, .model_bytes = 1e8, .nic_Bps = 1e10, .push_frac = 1, .index_over = 1};
    pt_ps_out o;
    (void)state;
    th_near_rel(pt_ps_allreduce_s(8, 1e8, 1e10), 17.5e-3, 1e-12, "all-reduce");
    th_near_rel(pt_ps_servers_s(8, 4, 1e8, 1e10), 20e-3, 1e-12, "non-colocated PS");
    th_near_rel(pt_ps_byteps_s(8, 4, 1e8, 1e10), 112.0 / 88.0 * 10e-3, 1e-12, "BytePS");
    pt_ps_time(&in, &o);
    th_near_rel(o.time_s[PT_PS_ALLREDUCE], 17.5e-3, 1e-12, "all-reduce (pt_ps_time)");
    th_near_rel(o.time_s[PT_PS_COLOCATED], 17.5e-3, 1e-12, "colocated (pt_ps_time)");
    th_near_rel(o.time_s[PT_PS_SERVERS], 20e-3, 1e-12, "servers (pt_ps_time)");
    /* the share that balances the two NICs gives the closed form */
    th_near_rel(o.time_s[PT_PS_BYTEPS], 112.0 / 88.0 * 10e-3, 1e-12, "BytePS (pt_ps_time)");
    th_near_rel(o.cpu_share, 56.0 / 88.0, 1e-12, "BytePS CPU share");
    assert_int_equal(o.best, PT_PS_BYTEPS);
    /* 37.5% faster than the ring here: 17.5 / 12.727 */
    th_near_rel(o.time_s[PT_PS_ALLREDUCE] / o.time_s[PT_PS_BYTEPS], 1.375, 1e-12, "BytePS gain");
    /* k = 0: BytePS is the all-reduce (2 * 8 * 7 / 64 = 1.75), the servers cannot run */
    in.k = 0;
    pt_ps_time(&in, &o);
    th_near_rel(o.time_s[PT_PS_BYTEPS], 17.5e-3, 1e-12, "BytePS, k = 0");
    th_near_rel(pt_ps_byteps_s(8, 0, 1e8, 1e10), 17.5e-3, 1e-12, "BytePS formula, k = 0");
    assert_true(isinf(o.time_s[PT_PS_SERVERS]));
    assert_int_equal(o.best, PT_PS_ALLREDUCE);
    /* k = n: every scheme with CPU machines reaches M / B = 10 ms */
    in.k = 8;
    pt_ps_time(&in, &o);
    th_near_rel(o.time_s[PT_PS_BYTEPS], 10e-3, 1e-12, "BytePS, k = n");
    th_near_rel(o.time_s[PT_PS_SERVERS], 10e-3, 1e-12, "servers, k = n");
    th_near_rel(pt_ps_byteps_s(8, 8, 1e8, 1e10), 10e-3, 1e-12, "BytePS formula, k = n");
    /* k = 16 > n: the CPU machines take it all (x = 1), still M / B */
    in.k = 16;
    pt_ps_time(&in, &o);
    th_near_rel(o.cpu_share, 1.0, 1e-12, "share, k > n");
    th_near_rel(o.time_s[PT_PS_BYTEPS], 10e-3, 1e-12, "BytePS, k > n");
    th_near_rel(pt_ps_byteps_s(8, 16, 1e8, 1e10), 10e-3, 1e-12, "BytePS formula, k > n");
    /* one machine: nothing crosses a NIC for the ring */
    in = (pt_ps_in){.n = 1, .k = 0, .model_bytes = 1e8, .nic_Bps = 1e10, .push_frac = 1, .index_over = 1};
    pt_ps_time(&in, &o);
    assert_true(o.time_s[PT_PS_ALLREDUCE] == 0 && o.time_s[PT_PS_BYTEPS] == 0);
}

/* Partial pushes, n = 8, M = 1e8, B = 1e10, whole rows (x = 1).
 * rho = 0.05: p = 5e6, q = 0.4 M = 4e7;
 *   all-reduce: min(dense 1.75e8, all-gather 7 p = 3.5e7) -> 3.5 ms;
 *   colocated:  7/8 (p + q) = 3.9375e7 -> 3.9375 ms.
 * rho = 0.25: p = 2.5e7, q = min(1, 2) M = 1e8;
 *   all-reduce: min(1.75e8, 1.75e8) -> 17.5 ms;
 *   colocated:  7/8 * 1.25e8 -> 10.9375 ms  (the parameter server wins);
 *   k = 4 CPU servers: max(1e8, 8 * 1e8 / 4) -> 20 ms;
 *   BytePS, k = 4: c = 1.09375e8, m = 1e8, x = c / (c + 2m - m) = 0.522388,
 *   both NICs 1.044776e8 -> 10.44776 ms (best).
 * Element indices (x = (2 + 4) / 2 = 3) triple the pushed bytes. */
static void test_sparse_pushes(void **state)
{
    pt_ps_in in = {.n = 8, .k = 0, .model_bytes = 1e8, .nic_Bps = 1e10, .push_frac = 0.05, .index_over = 1};
    pt_ps_out o;
    double x = 1.09375 / 2.09375;
    (void)state;
    pt_ps_time(&in, &o);
    th_near_rel(o.push_bytes, 5e6, 1e-12, "push");
    th_near_rel(o.pull_bytes, 4e7, 1e-12, "pull");
    th_near_rel(o.time_s[PT_PS_ALLREDUCE], 3.5e-3, 1e-12, "sparse all-gather");
    th_near_rel(o.time_s[PT_PS_COLOCATED], 3.9375e-3, 1e-12, "colocated, 5%");
    assert_int_equal(o.best, PT_PS_ALLREDUCE);
    in.push_frac = 0.25;
    pt_ps_time(&in, &o);
    th_near_rel(o.time_s[PT_PS_ALLREDUCE], 17.5e-3, 1e-12, "all-reduce, 25%");
    th_near_rel(o.time_s[PT_PS_COLOCATED], 10.9375e-3, 1e-12, "colocated, 25%");
    assert_int_equal(o.best, PT_PS_COLOCATED);
    in.k = 4;
    pt_ps_time(&in, &o);
    th_near_rel(o.time_s[PT_PS_SERVERS], 20e-3, 1e-12, "servers, 25%");
    th_near_rel(o.cpu_share, x, 1e-12, "share, 25%");
    th_near_rel(o.time_s[PT_PS_BYTEPS], (x + (1 - x) * 1.09375) * 1e-2, 1e-12, "BytePS, 25%");
    th_near_rel(o.time_s[PT_PS_BYTEPS], 10.44776e-3, 1e-6, "BytePS, 25% (number)");
    assert_int_equal(o.best, PT_PS_BYTEPS);
    in = (pt_ps_in){.n = 8, .k = 0, .model_bytes = 1e8, .nic_Bps = 1e10, .push_frac = 0.01, .index_over = 3};
    pt_ps_time(&in, &o);
    th_near_rel(o.push_bytes, 3e6, 1e-12, "push with element indices");
}

/* Dense and sparse parts, n = 8, M = 1e8, B = 1e10: rho = 0.1 of which
 * delta = 0.05 dense (sigma = 0.05 sparse rows):
 *   p = 0.1 M; q = (0.05 + min(0.95, 8 x 0.05)) M = 0.45 M;
 *   all-reduce: ring on 0.05 M (0.0875 M) + min(ring on 0.95 M, all-gather
 *   7 x 0.05 M = 0.35 M) = 0.4375 M -> 4.375 ms;
 *   colocated: 7/8 (0.1 + 0.45) M = 0.48125 M -> 4.8125 ms;
 *   4 CPU servers: max(0.45 M, 8 x 0.45 M / 4) -> 9 ms;
 *   BytePS, 4 CPUs: x = 0.48125 / (0.48125 + 0.9 - 0.45) = 0.516779,
 *   8 x 0.516779 x 0.45 M / 4 = 0.465101 M -> 4.651 ms.
 * BigLSTM at 256 sequences of 20 words pushes its two LSTMs (151.1 M
 * parameters, dense), 5,120 embedding rows and 8,192 + 5,120 softmax rows
 * of 1024: 169.98 M of 1,776.1 M = 0.0957, 0.0851 of it dense. */
static void test_dense_and_sparse(void **state)
{
    pt_ps_in in = {.n = 8, .k = 4, .model_bytes = 1e8, .nic_Bps = 1e10, .push_frac = 0.1, .index_over = 1,
                   .dense_frac = 0.05};
    pt_ps_out o;
    pt_graph g;
    pt_diag d;
    double dense, rho;
    (void)state;
    pt_ps_time(&in, &o);
    th_near_rel(o.push_bytes, 1e7, 1e-12, "push");
    th_near_rel(o.pull_bytes, 4.5e7, 1e-12, "pull");
    th_near_rel(o.time_s[PT_PS_ALLREDUCE], 4.375e-3, 1e-12, "all-reduce, dense + sparse");
    th_near_rel(o.time_s[PT_PS_COLOCATED], 4.8125e-3, 1e-12, "colocated, dense + sparse");
    th_near_rel(o.time_s[PT_PS_SERVERS], 9e-3, 1e-12, "servers, dense + sparse");
    th_near_rel(o.time_s[PT_PS_BYTEPS], 4.65101e-3, 1e-5, "BytePS, dense + sparse");
    assert_int_equal(o.best, PT_PS_ALLREDUCE);
    assert_int_equal(pt_graph_builtin("biglstm", &g, &d), PT_OK);
    rho = pt_ps_push_fraction(&g, 256, &dense);
    th_near_rel(rho, 169.98e6 / 1776.1e6, 0.002, "BigLSTM push");
    th_near_rel(dense, 151.1e6 / 1776.1e6, 0.002, "BigLSTM dense");
    pt_graph_free(&g);
    assert_int_equal(pt_graph_builtin("resnet-50", &g, &d), PT_OK);
    assert_true(pt_ps_push_fraction(&g, 256, &dense) == 1.0 && dense == 1.0);
    pt_graph_free(&g);
}

/* The step of a graph under each scheme, on 8 DGX-1 nodes (NIC: 6.25 GB/s
 * x 0.3088 x 8 GPUs = 15.44 GB/s per machine).  ResNet-50's gradient is
 * 2 x 25,557,032 bytes. */
static void test_step_choice(void **state)
{
    pt_graph g;
    pt_diag d;
    pt_ps_step s;
    pt_cluster c = th_cluster("dgx-1-v100", 64);
    (void)state;
    assert_int_equal(pt_graph_builtin("resnet-50", &g, &d), PT_OK);
    assert_int_equal(pt_ps_step_price(&g, &c, PT_FP16, 64, 0, 1, 1, &s, &d), PT_OK);
    assert_int_equal(s.machines, 8);
    th_near_rel(s.nic_GBps, 6.25 * 0.3088 * 8, 1e-12, "machine NIC");
    assert_true(s.grad_bytes == 2.0 * 25557032.0);
    th_near_rel(s.comm_s[PT_PS_ALLREDUCE] - s.intra_s, pt_ps_allreduce_s(8, s.grad_bytes, s.nic_GBps * 1e9), 1e-12,
                "between machines");
    assert_int_equal(s.best, PT_PS_ALLREDUCE);
    assert_non_null(strstr(s.why, "no CPU machines"));
    assert_true(isinf(s.step_s[PT_PS_SERVERS]));
    /* 8 CPU machines: the server bytes halve (M / B against 1.75 M / B) */
    assert_int_equal(pt_ps_step_price(&g, &c, PT_FP16, 64, 8, 1, 1, &s, &d), PT_OK);
    assert_true(s.best == PT_PS_SERVERS || s.best == PT_PS_BYTEPS);
    assert_true(s.comm_s[s.best] < s.comm_s[PT_PS_ALLREDUCE]);
    assert_true(s.step_s[s.best] <= s.step_s[PT_PS_ALLREDUCE]);
    assert_non_null(strstr(s.why, "CPU machines"));
    /* 4 CPU machines: BytePS, with its share in the reason */
    assert_int_equal(pt_ps_step_price(&g, &c, PT_FP16, 64, 4, 1, 1, &s, &d), PT_OK);
    assert_int_equal(s.best, PT_PS_BYTEPS);
    assert_non_null(strstr(s.why, "64% of the summation"));
    /* bad inputs name the field */
    assert_int_equal(pt_ps_step_price(&g, &c, PT_FP16, 64, -1, 1, 1, &s, &d), PT_EINPUT);
    assert_string_equal(d.field, "cpu-machines");
    assert_int_equal(pt_ps_step_price(&g, &c, PT_FP16, 64, 0, 0, 1, &s, &d), PT_EINPUT);
    assert_string_equal(d.field, "push-fraction");
    assert_int_equal(pt_ps_step_price(&g, &c, PT_FP16, 64, 0, 0.5, 0.6, &s, &d), PT_EINPUT);
    assert_string_equal(d.field, "dense-fraction");
    pt_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_byteps_by_hand),
        cmocka_unit_test(test_sparse_pushes),
        cmocka_unit_test(test_dense_and_sparse),
        cmocka_unit_test(test_step_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
