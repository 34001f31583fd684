/*
 * test_pipe.c -- the pipeline orders and their replay (src/cost/pipe.c) on
 * unit costs, against hand derivations and the papers' tables.
 *
 * Unit costs: every virtual stage's forward takes 1 and its backward 2 (the
 * zero-bubble schedules split it into B = W = 1), transfers take nothing,
 * and each virtual stage's activations weigh 1.
 */
#include "helpers.h"
#include "cost/pipe.h"

#include <stdlib.h>
#include <string.h>

#define MAXV 64

static pt_pipe pipe_of(pt_schedule s, int pp, int vpp, int64_t M)
{
    pt_strategy st;
    pt_pipe p;
    memset(&st, 0, sizeof st);
    st.schedule = s;
    st.pp = pp;
    st.vpp = vpp;
    pt_pipe_init(&p, &st, M);
    return p;
}

/* Replays p on unit costs: makespan, the busiest rank's work, the peaks. */
static void unit_run(const pt_pipe *p, pt_pipe_replay *r, double *peak)
{
    double f[MAXV], b[MAXV], a[MAXV];
    for (int i = 0; i < MAXV; i++) f[i] = 1, b[i] = 2, a[i] = 1;
    assert_true(p->V <= MAXV);
    r->peak = peak;
    assert_int_equal(pt_pipe_run(p, f, b, a, 0.0, NULL, NULL, r), 0);
}

/* Every schedule, pp 2..8, m 1..4pp (where the schedule takes m): each rank's
 * order runs every (micro-batch, virtual stage) of its own exactly once as
 * F, B and (split schedules) W, the replay ends without deadlock, and the
 * peaks from the walk (pt_pipe_peaks) are the replay's. */
static void test_orders_complete(void **state)
{
    static const struct { pt_schedule s; int vpp; } sc[] = {
        {PT_SCHED_GPIPE, 1}, {PT_SCHED_1F1B, 1}, {PT_SCHED_INTERLEAVED, 2},
        {PT_SCHED_ZBH1, 1},  {PT_SCHED_ZBV, 2},  {PT_SCHED_DUALPIPE, 1},
    };
    (void)state;
    for (size_t k = 0; k < sizeof sc / sizeof *sc; k++)
        for (int pp = 2; pp <= 8; pp *= 2)
            for (int64_t M = 1; M <= 4 * pp; M++) {
                pt_pipe p;
                pt_pipe_replay r;
                double peak[8], walk[8];
                int64_t per;
                pt_pipe_op *o;
                int *seen;
                if (sc[k].s == PT_SCHED_INTERLEAVED && M % pp) continue;
                if (sc[k].s == PT_SCHED_DUALPIPE && M % 2) continue;
                p = pipe_of(sc[k].s, pp, sc[k].vpp, M);
                per = pt_pipe_nops(&p);
                o = malloc((size_t)per * sizeof *o);
                seen = calloc((size_t)(M * p.V * 3), sizeof *seen);
                assert_non_null(o);
                assert_non_null(seen);
                for (int d = 0; d < pp; d++) {
                    int64_t n = pt_pipe_order(&p, d, o);
                    assert_int_equal(n, per);
                    for (int64_t i = 0; i < n; i++) {
                        assert_true(o[i].mb >= 0 && o[i].mb < M && o[i].vs >= 0 && o[i].vs < p.V);
                        assert_int_equal(pt_pipe_dev(&p, o[i].mb, o[i].vs), d);
                        seen[((int64_t)o[i].mb * p.V + o[i].vs) * 3 + (int)o[i].kind]++;
                    }
                }
                for (int64_t i = 0; i < M * p.V; i++) {
                    assert_int_equal(seen[i * 3 + PT_OP_F], 1);
                    assert_int_equal(seen[i * 3 + PT_OP_B], 1);
                    assert_int_equal(seen[i * 3 + PT_OP_W], p.split ? 1 : 0);
                }
                unit_run(&p, &r, peak);
                assert_int_equal(pt_pipe_peaks(&p, (double[MAXV]){[0 ... MAXV - 1] = 1}, walk), 0);
                for (int d = 0; d < pp; d++) assert_true(peak[d] == walk[d]);
                free(o);
                free(seen);
            }
}

/* 1F1B on unit costs: (m + p - 1)(F + B) = 3 (m + p - 1), the bubble
 * (p-1)(F+B) of Narayanan et al. SC'21 eq. 2; at most p micro-batches in
 * flight on rank 0 (section 2.2.1), min(p, m). */
static void test_1f1b_unit(void **state)
{
    (void)state;
    for (int pp = 2; pp <= 8; pp *= 2)
        for (int64_t M = 1; M <= 4 * pp; M++) {
            pt_pipe p = pipe_of(PT_SCHED_1F1B, pp, 1, M);
            pt_pipe_replay r;
            double peak[8];
            unit_run(&p, &r, peak);
            assert_true(r.makespan == 3.0 * (double)(M + pp - 1));
            assert_true(peak[0] == (double)(M < pp ? M : pp));
        }
}

/* ZB-V, one micro-batch on two ranks, derived by hand from the order
 * (PyTorch's ScheduleZBVZeroBubble): rank 0 runs F(v0) B.. as
 *   r0: F v0 [0,1]                      F v3 [3,4] B v3 [4,5] W v3 [5,6]
 *   r1:        F v1 [1,2] F v2 [2,3]                         B v2 [5,6] W v2 [6,7] B v1 [7,8] W v1 [8,9]
 *   r0: B v0 [8,9] W v0 [9,10]
 * makespan 10.  With enough micro-batches each further one adds the six
 * operations of a rank, and the ranks hold 2p chunks (p micro-batches'
 * worth: the activation memory of 1F1B, Qi et al. 2024's comparison table
 * for ZB-V: "1x"); the replayed order idles (p-1) T_W per rank, where
 * the paper's hand-placed figure idles none. */
static void test_zbv_unit(void **state)
{
    pt_pipe_replay r;
    double peak[8];
    pt_pipe p = pipe_of(PT_SCHED_ZBV, 2, 2, 1);
    (void)state;
    unit_run(&p, &r, peak);
    assert_true(r.makespan == 10.0);
    for (int pp = 2; pp <= 8; pp *= 2)
        for (int64_t M = 2 * pp; M <= 4 * pp; M++) {
            p = pipe_of(PT_SCHED_ZBV, pp, 2, M);
            unit_run(&p, &r, peak);
            assert_true(r.busy_max == 6.0 * (double)M);
            assert_true(r.makespan - r.busy_max == (double)(pp - 1));
            for (int d = 0; d < pp; d++) assert_true(peak[d] <= 2.0 * pp);
            assert_true(peak[pp - 1] == 2.0 * pp);
        }
}

/* DualPipe on unit costs against the DeepSeek-V3 report's Table 2: bubble
 * (PP/2 - 1)(F&B + B - 3W) and PP + 1 micro-batches' activations.  Its F is
 * one forward chunk (1 here), B one full backward chunk (2), W the weight
 * half (1), F&B a forward and a backward overlapped (the pair starts and
 * ends together, 3): (PP/2 - 1)(3 + 2 - 3) = 2 (PP/2 - 1) per rank, for
 * 2 pp .. 6 pp micro-batches (DualPipe needs at least 2 pp). */
static void test_dualpipe_unit(void **state)
{
    (void)state;
    for (int pp = 2; pp <= 8; pp *= 2)
        for (int64_t M = 2 * pp; M <= 6 * pp; M += 2) {
            pt_pipe p = pipe_of(PT_SCHED_DUALPIPE, pp, 1, M);
            pt_pipe_replay r;
            double peak[8], top = 0;
            unit_run(&p, &r, peak);
            assert_true(r.busy_max == 3.0 * (double)M);
            assert_true(r.makespan - r.busy_max == 2.0 * (pp / 2 - 1));
            for (int d = 0; d < pp; d++)
                if (peak[d] > top) top = peak[d];
            assert_true(top == (double)(pp + 1));
        }
}

/* An order that cannot run is reported, not looped on: a pipeline whose
 * forward waits on a stage nobody runs (V larger than the ranks' stages). */
static void test_deadlock_reported(void **state)
{
    pt_pipe p = pipe_of(PT_SCHED_1F1B, 2, 1, 2);
    double f[MAXV], b[MAXV];
    pt_pipe_replay r = {0, 0, NULL};
    (void)state;
    for (int i = 0; i < MAXV; i++) f[i] = 1, b[i] = 2;
    p.V = 3; /* stage 2 exists for the dependencies but no rank runs it */
    assert_int_equal(pt_pipe_run(&p, f, b, NULL, 0.0, NULL, NULL, &r), -2);
}


/* The replay's hook (pt_pipe_run_hooked, what src/sim's data-parallel
 * collectives use): a hook that moves nothing gives the plain replay's
 * makespan on every schedule, with and without a visitor; one that holds
 * every operation 0.5 longer and starts each forward 0.25 late, on pp=1
 * (F B F B ...: nothing else to wait for), gives M (1 + 0.25 + 0.5 + 2 +
 * 0.5) = 4.25 M on unit costs; the visitor sees the moved times. */
typedef struct hooked { double hold, late; int calls, seen_late; } hooked;

static double h_start(void *ctx, int d, const pt_pipe_op *o, double t)
{
    hooked *h = ctx;
    (void)d;
    return o->kind == PT_OP_F ? t + h->late : t;
}

static double h_run(void *ctx, int d, const pt_pipe_op *o, double ready, double t0, double dur)
{
    hooked *h = ctx;
    (void)d;
    h->calls++;
    if (o->kind == PT_OP_F && t0 >= ready + h->late - 1e-12) h->seen_late++;
    return t0 + dur + h->hold;
}

static int h_visit(void *ctx, int d, const pt_pipe_op *o, double t0, double t1, double send_end, double act)
{
    double *longest = ctx;
    (void)d, (void)o, (void)send_end, (void)act;
    if (t1 - t0 > *longest) *longest = t1 - t0;
    return 0;
}

static void test_hook(void **state)
{
    static const struct { pt_schedule s; int vpp; } sc[] = {
        {PT_SCHED_GPIPE, 1}, {PT_SCHED_1F1B, 1}, {PT_SCHED_INTERLEAVED, 2},
        {PT_SCHED_ZBH1, 1},  {PT_SCHED_ZBV, 2},  {PT_SCHED_DUALPIPE, 1},
    };
    double f[MAXV], b[MAXV];
    (void)state;
    for (int i = 0; i < MAXV; i++) f[i] = 1, b[i] = 2;
    for (size_t k = 0; k < sizeof sc / sizeof *sc; k++) {
        pt_pipe p = pipe_of(sc[k].s, 4, sc[k].vpp, 8);
        pt_pipe_replay r0 = {0, 0, NULL}, r1 = {0, 0, NULL}, r2 = {0, 0, NULL};
        hooked h = {0, 0, 0, 0};
        pt_pipe_hook hook = {h_start, h_run, &h};
        double longest = 0;
        assert_int_equal(pt_pipe_run(&p, f, b, NULL, 0.1, NULL, NULL, &r0), 0);
        assert_int_equal(pt_pipe_run_hooked(&p, f, b, NULL, 0.1, &hook, NULL, NULL, &r1), 0);
        assert_int_equal(pt_pipe_run_hooked(&p, f, b, NULL, 0.1, &hook, h_visit, &longest, &r2), 0);
        assert_true(r1.makespan == r0.makespan && r2.makespan == r0.makespan);
        assert_int_equal(h.calls, 2 * pt_pipe_nops(&p) * p.pp);
    }
    {
        pt_pipe p = pipe_of(PT_SCHED_1F1B, 1, 1, 6);
        pt_pipe_replay r = {0, 0, NULL};
        hooked h = {0.5, 0.25, 0, 0};
        pt_pipe_hook hook = {h_start, h_run, &h};
        double longest = 0;
        assert_int_equal(pt_pipe_run_hooked(&p, f, b, NULL, 0.0, &hook, h_visit, &longest, &r), 0);
        th_near_abs(r.makespan, 4.25 * 6, 1e-12, "held and late operations, pp=1");
        th_near_abs(longest, 2.5, 1e-12, "the visitor sees a backward held 0.5 longer");
        assert_int_equal(h.seen_late, 6);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders_complete), cmocka_unit_test(test_1f1b_unit),
        cmocka_unit_test(test_zbv_unit),        cmocka_unit_test(test_dualpipe_unit),
        cmocka_unit_test(test_deadlock_reported), cmocka_unit_test(test_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
