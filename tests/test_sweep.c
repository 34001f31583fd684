/*
 * test_sweep.c -- the sweep grid (src/goal/sweep.c) and its outputs
 * (src/emit/sweep_out.c): grid order, the cost estimate that balances MPI
 * ranks, the split itself, the Pareto front, and one answer against the plan
 * search it wraps.  End to end (the command, GRID.json errors, MPI) is
 * tests/e2e/sweep.sh and sweep_mpi.sh.
 */
#include <math.h>

#include "helpers.h"
#include "base/base.h"
#include "emit/sweep_out.h"
#include "goal/sweep.h"

/* A grid built in memory: 2 models (32 and 80 layers) x 1 cluster x
 * gpus {8, 64} x batches {64, 96, 128}, one sequence length, one objective. */
static void small_grid(pt_sweep_grid *g, pt_model *models, pt_cluster *cl)
{
    memset(g, 0, sizeof *g);
    memset(models, 0, 2 * sizeof *models);
    models[0].layers = 32, models[1].layers = 80;
    g->model = models, g->cluster = cl;
    g->nmodel = 2, g->ncluster = 1, g->ngpus = 2, g->ngbs = 3, g->nseq = 1, g->nobj = 1;
    g->gpus[0] = 8, g->gpus[1] = 64;
    g->gbs[0] = 64, g->gbs[1] = 96, g->gbs[2] = 128;
    g->n = 12;
}

/* Grid order: models outermost, objectives innermost (SPEC section 11's
 * "cartesian product of its lists", in the order it names them). */
static void test_order(void **state)
{
    pt_sweep_grid g;
    pt_model m[2];
    pt_cluster c;
    (void)state;
    small_grid(&g, m, &c);
    {
        pt_sweep_q q = pt_sweep_question(&g, 0);
        assert_int_equal(q.model + q.cluster + q.gpus + q.gbs + q.seq + q.obj, 0);
    }
    {
        pt_sweep_q q = pt_sweep_question(&g, 1); /* the next batch */
        assert_int_equal(q.gbs, 1);
        assert_int_equal(q.gpus, 0);
    }
    {
        pt_sweep_q q = pt_sweep_question(&g, 3); /* the next device count */
        assert_int_equal(q.gbs, 0);
        assert_int_equal(q.gpus, 1);
        assert_int_equal(q.model, 0);
    }
    {
        pt_sweep_q q = pt_sweep_question(&g, 11);
        assert_int_equal(q.model, 1);
        assert_int_equal(q.gpus, 1);
        assert_int_equal(q.gbs, 2);
    }
}

/* The estimate: ordered factorizations of the devices into (tp, pp, cp, dp)
 * -- for 2^e, C(e+3, 3): 8 = 2^3 gives 20, 64 = 2^6 gives 84 -- times those
 * of the batch into (mbs, rest) -- 64 = 2^6: 7; 96 = 2^5 * 3: 6 * 2 = 12 --
 * times the layers. */
static void test_estimate(void **state)
{
    pt_sweep_grid g;
    pt_model m[2];
    pt_cluster c;
    (void)state;
    small_grid(&g, m, &c);
    th_near_rel(pt_sweep_estimate(&g, 0), 20.0 * 7 * 32, 1e-12, "8 GPUs, batch 64, 32 layers");
    th_near_rel(pt_sweep_estimate(&g, 1), 20.0 * 12 * 32, 1e-12, "8 GPUs, batch 96");
    th_near_rel(pt_sweep_estimate(&g, 3), 84.0 * 7 * 32, 1e-12, "64 GPUs, batch 64");
    th_near_rel(pt_sweep_estimate(&g, 9), 84.0 * 7 * 80, 1e-12, "64 GPUs, batch 64, 80 layers");
}

/* The split: every question has a rank, the same split twice, one rank
 * takes everything, and with 2 and 3 ranks the largest load is within the
 * largest single question of the mean (the longest-first greedy's bound). */
static void test_split(void **state)
{
    pt_sweep_grid g;
    pt_model m[2];
    pt_cluster c;
    pt_diag d;
    int owner[12], again[12];
    (void)state;
    small_grid(&g, m, &c);
    assert_int_equal(pt_sweep_split(&g, 1, owner, &d), PT_OK);
    for (int i = 0; i < 12; i++) assert_int_equal(owner[i], 0);
    for (int k = 2; k <= 3; k++) {
        double load[3] = {0}, total = 0, biggest = 0;
        assert_int_equal(pt_sweep_split(&g, k, owner, &d), PT_OK);
        assert_int_equal(pt_sweep_split(&g, k, again, &d), PT_OK);
        assert_memory_equal(owner, again, sizeof owner);
        for (int i = 0; i < 12; i++) {
            double e = pt_sweep_estimate(&g, i);
            assert_true(owner[i] >= 0 && owner[i] < k);
            load[owner[i]] += e, total += e;
            if (e > biggest) biggest = e;
        }
        for (int r = 0; r < k; r++) {
            assert_true(load[r] > 0);
            assert_true(load[r] <= total / k + biggest);
        }
    }
}

/* The Pareto front of (hours, dollars): hand-made answers. */
static void test_front(void **state)
{
    pt_sweep_grid g;
    pt_model m[2];
    pt_cluster c;
    pt_sweep_answer a[12];
    int64_t *front = NULL;
    /* (hours, dollars): #0 (1, 10) front; #1 (2, 5) front; #2 (2, 6)
     * dominated by #1; #3 (3, 5) dominated by #1; #4 (0.5, 20) front;
     * #5 no fit; #6 (1, 10) equal to #0: only the first; #7 no price;
     * the rest (10, 100), dominated */
    const double hd[12][2] = {{1, 10}, {2, 5}, {2, 6}, {3, 5}, {0.5, 20}, {0, 0},
                              {1, 10}, {4, 0}, {10, 100}, {10, 100}, {10, 100}, {10, 100}};
    int n;
    (void)state;
    small_grid(&g, m, &c);
    memset(a, 0, sizeof a);
    for (int i = 0; i < 12; i++) a[i].hours_per_btok = hd[i][0], a[i].dollars_per_btok = hd[i][1];
    a[5].status = 1;
    n = pt_emit_sweep_front(&g, a, &front);
    assert_int_equal(n, 3);
    assert_true(front[0] == 0 && front[1] == 1 && front[2] == 4);
    free(front);
    for (int i = 0; i < 12; i++) a[i].dollars_per_btok = 0; /* no prices: no front */
    assert_int_equal(pt_emit_sweep_front(&g, a, &front), 0);
    assert_null(front);
}

/* One answer is plan's best plan for that question: the same strategy and
 * step time as the search + re-rank with --top 1 (tests/e2e/sweep.sh
 * compares the JSON of two more). */
static void test_answer_is_plan(void **state)
{
    pt_sweep_grid g;
    pt_sweep_answer a;
    pt_diag d;
    char path[] = "/tmp/test_sweep_XXXXXX";
    int fd = mkstemp(path);
    FILE *f;
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 16);
    pt_job job = th_job(4096, 64, 1);
    pt_search_opts so = th_search_opts(pt_plan_rerank_pool(1), 1, 64);
    pt_search_result r;
    pt_plan_check *chk = NULL;
    (void)state;
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("{\"models\": [\"llama3-8b\"], \"clusters\": [\"dgx-h100\"], \"gpus\": [16], \"global_batch\": [64],"
          " \"objective\": [\"step\", \"cost\"]}\n", f);
    fclose(f);
    assert_int_equal(pt_sweep_read(path, &g, &d), PT_OK);
    remove(path);
    assert_int_equal(g.n, 2);
    assert_int_equal(pt_search_engine(&m, &c, &job, &so, &r, &d), PT_OK);
    assert_int_equal(pt_plan_rerank(&m, &c, &job, &so, &r, 1, &chk, &d), PT_OK);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pt_sweep_answer_one(&g, i, 2, &a, &d), PT_OK);
        assert_int_equal(a.status, 0);
        assert_memory_equal(&a.best.st, &r.plans[0].st, sizeof a.best.st);
        assert_true(a.best.cost.step_time_s == r.plans[0].cost.step_time_s);
        /* hours per 1e9 tokens from tokens/s; dollars at dgx-h100's price */
        th_near_rel(a.hours_per_btok, 1e9 / r.plans[0].cost.tokens_per_s / 3600, 1e-12, "hours per 1e9 tokens");
        th_near_rel(a.dollars_per_btok, a.hours_per_btok * 16 * c.price_per_device_hour, 1e-12, "dollars");
    }
    free(chk);
    pt_search_free(&r);
    pt_sweep_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_estimate),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_front),
        cmocka_unit_test(test_answer_is_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
