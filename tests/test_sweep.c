/*
 * test_sweep.c -- the sweep grid (src/goal/sweep.c) and its outputs
 * (src/emit/sweep_out.c): grid order, the cost estimate that balances MPI
 * ranks, the split itself, the Pareto front, and one answer against the plan
 * search it wraps; the same for serving grids against the serving search.  End to end (the command, GRID.json errors, MPI) is
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
    g->nisl = g->nosl = g->nrate = g->nttft = g->ntpot = 1; /* a plan grid: the serve lists unused */
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

/* A serving grid in memory: llama3-8b x dgx-h100 x gpus {8, 16} x isl
 * {512, 2048} x osl {128} x rates {offline, 4, 16} x no objectives. */
static void serve_grid(pt_sweep_grid *g, pt_model *m, pt_cluster *c)
{
    memset(g, 0, sizeof *g);
    *m = th_model("llama3-8b");
    *c = th_cluster("dgx-h100", 8);
    g->cmd = PT_SWEEP_SERVE;
    g->model = m, g->cluster = c;
    g->nmodel = g->ncluster = g->ngbs = g->nseq = g->nobj = g->nosl = g->nttft = g->ntpot = 1;
    g->ngpus = 2, g->gpus[0] = 8, g->gpus[1] = 16;
    g->nisl = 2, g->isl[0] = 512, g->isl[1] = 2048;
    g->osl[0] = 128;
    g->nrate = 3, g->rate[0] = 0, g->rate[1] = 4, g->rate[2] = 16;
    g->percentile = 90;
    g->n = 12;
}

/* Serving grid order: models, clusters, gpus, then isl, osl, rate, ttft_ms,
 * tpot_ms innermost (sweep.h). */
static void test_serve_order(void **state)
{
    pt_sweep_grid g;
    pt_model m;
    pt_cluster c;
    pt_sweep_q q;
    (void)state;
    serve_grid(&g, &m, &c);
    q = pt_sweep_question(&g, 1); /* the next rate */
    assert_int_equal(q.rate, 1);
    assert_int_equal(q.isl + q.gpus, 0);
    q = pt_sweep_question(&g, 3); /* the next prompt length */
    assert_int_equal(q.rate, 0);
    assert_int_equal(q.isl, 1);
    q = pt_sweep_question(&g, 11);
    assert_int_equal(q.gpus, 1);
    assert_int_equal(q.isl, 1);
    assert_int_equal(q.rate, 2);
    assert_int_equal(q.gbs + q.seq + q.obj + q.osl + q.ttft + q.tpot, 0);
}

/* The serving estimate by hand: llama3-8b (32 heads, 32 layers, 16 GB of
 * bf16 weights: every shape fits an 80 GB H100) on 8 GPUs of 8-GPU nodes:
 * (tp, pp) in {(1, 1), (1, 2), (1, 4), (1, 8), (2, 1), (2, 2), (2, 4),
 * (4, 1), (4, 2), (8, 1)}, the 6 with tp > 1 twice (shift parallelism):
 * 16 shapes x 8 batches x osl 128 = 16384; at 4 requests/s x (1 + 0.3 x 8
 * / 4) = 1.6.  On 16 GPUs add (1, 16), (2, 8), (4, 4), (8, 2): 1 + 3 x 2 =
 * 7 more, 23 shapes. */
static void test_serve_estimate(void **state)
{
    pt_sweep_grid g;
    pt_model m;
    pt_cluster c;
    (void)state;
    serve_grid(&g, &m, &c);
    th_near_rel(pt_sweep_estimate(&g, 0), 16.0 * 8 * 128, 1e-12, "8 GPUs, offline");
    th_near_rel(pt_sweep_estimate(&g, 1), 16.0 * 8 * 128 * 1.6, 1e-12, "8 GPUs, 4 requests/s");
    th_near_rel(pt_sweep_estimate(&g, 2), 16.0 * 8 * 128 * 1.15, 1e-12, "8 GPUs, 16 requests/s");
    th_near_rel(pt_sweep_estimate(&g, 6), 23.0 * 8 * 128, 1e-12, "16 GPUs, offline");
    /* a device that holds no shape's weights: each counts a twentieth */
    c.dev.memory_GiB = 1;
    th_near_rel(pt_sweep_estimate(&g, 0), 16.0 / 20 * 8 * 128, 1e-12, "nothing fits");
}

/* The serving front: TTFT against dollars per 10^6 tokens, among answers
 * that meet their objectives only. */
static void test_serve_front(void **state)
{
    pt_sweep_grid g;
    pt_model m;
    pt_cluster c;
    pt_sweep_answer a[12];
    int64_t *front = NULL;
    /* (TTFT ms, dollars, meets): #0 (100, 5) front; #1 (50, 2) misses its
     * objectives (would dominate #0); #2 (200, 3) front; #3 (300, 4)
     * dominated by #2; #4 no fit; the rest (1000, 100) dominated */
    const double td[12][3] = {{100, 5, 1}, {50, 2, 0}, {200, 3, 1}, {300, 4, 1}, {0, 0, 0}, {1000, 100, 1},
                              {1000, 100, 1}, {1000, 100, 1}, {1000, 100, 1}, {1000, 100, 1}, {1000, 100, 1},
                              {1000, 100, 1}};
    (void)state;
    serve_grid(&g, &m, &c);
    memset(a, 0, sizeof a);
    for (int i = 0; i < 12; i++) {
        a[i].serve.ttft_ms_p = td[i][0], a[i].dollars_per_mtok = td[i][1], a[i].serve.meets_slo = (int)td[i][2];
        a[i].any_meets = 1;
    }
    a[4].status = 1;
    assert_int_equal(pt_emit_sweep_front(&g, a, &front), 2);
    assert_true(front[0] == 0 && front[1] == 2);
    free(front);
}

/* One serving answer is `serve --top 1`'s plan: pt_serve_search with the
 * grid's values gives the same plan, byte for byte; the dollars are the
 * deployment's price over its output tokens. */
static void test_answer_is_serve(void **state)
{
    pt_sweep_grid g;
    pt_sweep_answer a;
    pt_diag d;
    pt_serve_opts o;
    pt_serve_result *r = calloc(1, sizeof *r);
    char path[] = "/tmp/test_sweep_XXXXXX";
    int fd = mkstemp(path);
    FILE *f;
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 8);
    (void)state;
    assert_non_null(r);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("{\"command\": \"serve\", \"models\": [\"llama3-8b\"], \"clusters\": [\"dgx-h100\"], \"gpus\": [8],"
          " \"isl\": [1024], \"osl\": [64], \"rate\": [20], \"tpot_ms\": [30, 1]}\n", f);
    fclose(f);
    assert_int_equal(pt_sweep_read(path, &g, &d), PT_OK);
    remove(path);
    assert_int_equal(g.n, 2);
    assert_int_equal(g.cmd, PT_SWEEP_SERVE);
    for (int i = 0; i < 2; i++) {
        pt_serve_opts_default(&o);
        o.isl = 1024, o.osl = 64, o.mode = PT_SERVE_RATE, o.rate = 20, o.tpot_ms = i == 0 ? 30 : 1, o.top = 1;
        assert_int_equal(pt_serve_search(&m, &c, &o, r, &d), PT_OK);
        assert_int_equal(pt_sweep_answer_one(&g, i, 1, &a, &d), PT_OK);
        assert_int_equal(a.status, 0);
        assert_memory_equal(&a.serve, &r->plans[0], sizeof a.serve);
        assert_int_equal(a.any_meets, r->any_meets);
        assert_int_equal(a.evaluated, r->evaluated);
        if (i == 0) assert_true(a.any_meets && a.serve.meets_slo); /* 30 ms: met */
        th_near_rel(a.dollars_per_mtok, 8 * c.price_per_device_hour / 3600 / r->plans[0].tokens_per_s * 1e6,
                    1e-12, "dollars per 10^6 output tokens");
    }
    /* 1 ms per output token is out of reach for an 8B model on H100s:
     * the answer is the closest plan, marked as missing */
    assert_false(a.any_meets);
    assert_false(a.serve.meets_slo);
    free(r);
    pt_sweep_free(&g);
}

/* The report's chart draws at most 16 series: a grid of 17 models puts
 * models 15-17 in one series ("3 other models") and still draws the front,
 * each of its points labelled (before, the front was the 18th series and
 * was dropped). */
static void test_many_models_report(void **state)
{
    pt_sweep_grid g;
    pt_model m[17];
    pt_cluster c = th_cluster("dgx-h100", 8);
    char (*args)[256] = calloc(17, sizeof *args), cargs[1][256] = {"dgx-h100"};
    pt_sweep_answer *a = calloc(17, sizeof *a);
    pt_diag d;
    char *html = NULL, want[64];
    (void)state;
    assert_non_null(args);
    assert_non_null(a);
    memset(&g, 0, sizeof g);
    memset(m, 0, sizeof m);
    for (int i = 0; i < 17; i++) {
        snprintf(m[i].name, sizeof m[i].name, "model-%02d", i);
        snprintf(args[i], sizeof args[i], "model-%02d", i);
        /* answer i: (i + 1) hours and (18 - i) dollars: every one on the front */
        a[i].hours_per_btok = i + 1, a[i].dollars_per_btok = 18 - i, a[i].devices = 8, a[i].seq_len = 4096;
    }
    pt_strlcpy(g.file, "grid.json", sizeof g.file);
    g.model = m, g.model_arg = args, g.cluster = &c, g.cluster_arg = cargs;
    g.nmodel = 17, g.ncluster = g.ngpus = g.ngbs = g.nseq = g.nobj = 1;
    g.nisl = g.nosl = g.nrate = g.nttft = g.ntpot = 1;
    g.gpus[0] = 8, g.gbs[0] = 64, g.n = 17;
    assert_int_equal(pt_emit_html_sweep(&g, a, &html, &d), PT_OK);
    assert_non_null(strstr(html, ">model-13</text>"));
    assert_null(strstr(html, ">model-14</text>")); /* in the legend as ... */
    assert_non_null(strstr(html, ">3 other models</text>"));
    assert_non_null(strstr(html, ">Pareto front (labelled: answer #)</text>"));
    for (int i = 0; i < 17; i++) {
        snprintf(want, sizeof want, "font-size=\"11\">#%d</text>", i + 1);
        assert_non_null(strstr(html, want));
    }
    free(html);
    free(a);
    free(args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_estimate),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_front),
        cmocka_unit_test(test_answer_is_plan),
        cmocka_unit_test(test_serve_order),
        cmocka_unit_test(test_serve_estimate),
        cmocka_unit_test(test_serve_front),
        cmocka_unit_test(test_answer_is_serve),
        cmocka_unit_test(test_many_models_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
