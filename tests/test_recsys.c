/*
 * test_recsys.c -- recommendation models (src/workload/recsys.c), their
 * sharded step (src/cost/embed_cost.c), the partitioners (src/plan/shard.c)
 * and the TorchRec export (src/emit/shard_out.c).  Expected numbers are
 * derived by hand in the comments next to them.
 */
#include "helpers.h"

#include "workload/recsys.h"
#include "cost/embed_cost.h"
#include "plan/shard.h"
#include "emit/shard_out.h"

static pt_recsys load(const char *name)
{
    pt_recsys rs;
    pt_diag d;
    pt_status st = pt_recsys_builtin(name, &rs, &d);
    if (st != PT_OK) fail_msg("%s: %s", name, d.msg);
    return rs;
}

static pt_embed_job job(const pt_recsys *rs, const pt_cluster *c, double batch)
{
    pt_embed_job j;
    pt_diag d;
    memset(&j, 0, sizeof j);
    j.rs = rs, j.c = c, j.dtype = PT_BF16, j.batch = batch, j.host_bytes = PT_EMBED_HOST_GIB_DEFAULT * PT_GiB;
    if (pt_embed_job_init(&j, &d) != PT_OK) fail_msg("job: %s", d.msg);
    return j;
}

/* The table sizes of the two built-ins, summed from their sources' lists
 * (recsys.h): MLPerf DLRM's 26 Terabyte tables at --max-ind-range 40M,
 * DLRM-DCNv2's num_embeddings_per_feature and multi_hot_sizes. */
static void test_builtin_tables(void **state)
{
    pt_recsys v1 = load("dlrm"), v2 = load("dlrm-dcnv2");
    double pool = 0;
    (void)state;
    assert_int_equal(v1.ntables, 26);
    assert_int_equal(v2.ntables, 26);
    assert_int_equal(pt_recsys_rows(&v1), 187767399);
    assert_int_equal(pt_recsys_rows(&v2), 204184588);
    /* fp32, dimension 128: rows x 128 x 4 bytes */
    assert_int_equal(pt_recsys_embedding_bytes(&v2), (int64_t)204184588 * 128 * 4);
    for (int i = 0; i < v2.ntables; i++) {
        const pt_glayer *t = pt_recsys_table(&v2, i);
        assert_int_equal(t->c, 128);
        assert_int_equal(t->emb.bytes, 4);
        pool += t->emb.pooling;
    }
    th_near_abs(pool, 214, 0, "DCNv2 ids per sample (sum of multi_hot_sizes)");
    th_near_abs(pt_recsys_table(&v2, 20)->emb.pooling, 100, 0, "table 20's pooling");
    /* row-wise Adagrad: one fp32 per row; SGD: none */
    assert_int_equal(pt_recsys_table_state_bytes(pt_recsys_table(&v2, 0)), 4 * 40000000);
    assert_int_equal(pt_recsys_table_state_bytes(pt_recsys_table(&v1, 0)), 0);
    /* dense parameters.  DLRM: bottom 13*512+512 + 512*256+256 + 256*128+128
     * = 171392; the dot interaction's 128 + 27*26/2 = 479 features into top
     * 479*1024+1024 + 1024*1024+1024 + 1024*512+512 + 512*256+256 + 256+1
     * = 2197505: 2368897.  DCNv2: the same bottom, 3 cross layers of
     * 2*3456*512 + 3456 (W = 27*128 = 3456) = 10627200, top from 3456:
     * 5245953: 16044545. */
    th_near_abs(pt_recsys_dense_params(&v1), 2368897, 0, "DLRM dense parameters");
    th_near_abs(pt_recsys_dense_params(&v2), 16044545, 0, "DLRM-DCNv2 dense parameters");
    pt_recsys_free(&v1);
    pt_recsys_free(&v2);
}

static const char tiny[] =
    "{\"name\": \"tiny-rec\", \"layers\": [\n"
    " {\"name\": \"dense\", \"op\": \"input\", \"shape\": [4, 1, 1]},\n"
    " {\"name\": \"bot\", \"op\": \"linear\", \"out\": 64},\n"
    " {\"name\": \"a\", \"op\": \"embedding_bag\", \"rows\": 1000, \"dim\": 64, \"pooling\": 2, \"optimizer\": \"sgd\"},\n"
    " {\"name\": \"b\", \"op\": \"embedding_bag\", \"rows\": 500, \"dim\": 64, \"pooling\": 3, \"optimizer\": \"sgd\"},\n"
    " {\"name\": \"x\", \"op\": \"interaction\", \"in\": \"bot\"},\n"
    " {\"name\": \"top\", \"op\": \"linear\", \"out\": 1},\n"
    " {\"name\": \"loss\", \"op\": \"loss\"}]}\n";

static pt_recsys tiny_rs(void)
{
    pt_graph g;
    pt_recsys rs;
    pt_diag d;
    if (pt_graph_parse(tiny, "tiny.json", &g, &d) != PT_OK) fail_msg("parse: %s", d.msg);
    if (pt_recsys_from_graph(&g, &rs, &d) != PT_OK) fail_msg("recsys: %s", d.msg);
    return rs;
}

/* The graph file's recommendation ops: the dot interaction of the bottom
 * vector and two tables, F = 3 vectors of 64: 64 + 3 = 67 features. */
static void test_graph_file(void **state)
{
    pt_recsys rs = tiny_rs();
    pt_graph g;
    pt_diag d;
    static const char bad_in[] = "{\"name\": \"x\", \"layers\": [{\"name\": \"d\", \"op\": \"input\", \"shape\": [4, 1, 1]},\n"
                                 " {\"name\": \"a\", \"op\": \"embedding_bag\", \"in\": \"d\", \"rows\": 10, \"dim\": 4}]}\n";
    static const char bad_dim[] = "{\"name\": \"x\", \"layers\": [{\"name\": \"d\", \"op\": \"input\", \"shape\": [4, 1, 1]},\n"
                                  " {\"name\": \"bot\", \"op\": \"linear\", \"out\": 8},\n"
                                  " {\"name\": \"a\", \"op\": \"embedding_bag\", \"rows\": 10, \"dim\": 4},\n"
                                  " {\"name\": \"x\", \"op\": \"interaction\", \"in\": \"bot\"}]}\n";
    static const char bad_pool[] = "{\"name\": \"x\", \"layers\": [\n"
                                   " {\"name\": \"a\", \"op\": \"embedding_bag\", \"rows\": 10, \"dim\": 4, \"pooling\": 0}]}\n";
    static const char bad_dcn[] = "{\"name\": \"x\", \"layers\": [{\"name\": \"d\", \"op\": \"input\", \"shape\": [4, 1, 1]},\n"
                                  " {\"name\": \"bot\", \"op\": \"linear\", \"out\": 8},\n"
                                  " {\"name\": \"a\", \"op\": \"embedding_bag\", \"rows\": 10, \"dim\": 4},\n"
                                  " {\"name\": \"x\", \"op\": \"interaction\", \"in\": \"bot\", \"kind\": \"dcn\", "
                                  "\"cross_layers\": 2}]}\n";
    static const char no_table[] = "{\"name\": \"x\", \"layers\": [{\"name\": \"d\", \"op\": \"input\", \"shape\": [4, 1, 1]},\n"
                                   " {\"name\": \"x\", \"op\": \"interaction\"}]}\n";
    (void)state;
    assert_int_equal(pt_graph_parse(bad_dcn, "f.json", &g, &d), PT_EINPUT);
    assert_string_equal(d.field, "layers[3].rank");
    assert_int_equal(d.line, 4);
    assert_int_equal(pt_graph_parse(no_table, "f.json", &g, &d), PT_EINPUT);
    assert_non_null(strstr(d.msg, "no embedding_bag layer before it"));
    /* a graph without tables is no recommendation model */
    assert_int_equal(pt_graph_builtin("resnet-50", &g, &d), PT_OK);
    {
        pt_recsys r2;
        assert_int_equal(pt_recsys_from_graph(&g, &r2, &d), PT_EINPUT);
        assert_non_null(strstr(d.msg, "no embedding_bag layer"));
    }
    assert_int_equal(pt_recsys_probe("resnet-50"), 0);
    assert_int_equal(pt_recsys_probe("dlrm"), 1);
    assert_int_equal(rs.ntables, 2);
    assert_int_equal(rs.g.l[4].c, 67);
    th_near_abs(rs.g.l[5].params, 68, 0, "top's parameters (67 + bias)");
    th_near_abs(pt_recsys_table(&rs, 1)->emb.hot_rows, 0.2, 0, "default hot rows (TorchRec's 0.2)");
    th_near_abs(pt_recsys_table(&rs, 1)->emb.hit_rate, 0.2, 0, "default hit rate (uniform: the hot rows)");
    pt_recsys_free(&rs);
    assert_int_equal(pt_graph_parse(bad_in, "f.json", &g, &d), PT_EINPUT);
    assert_string_equal(d.field, "layers[1].in");
    assert_int_equal(d.line, 2);
    assert_int_equal(pt_graph_parse(bad_dim, "f.json", &g, &d), PT_EINPUT);
    assert_string_equal(d.field, "layers[3].in");
    assert_non_null(strstr(d.msg, "has dim 4"));
    assert_int_equal(pt_graph_parse(bad_pool, "f.json", &g, &d), PT_EINPUT);
    assert_string_equal(d.field, "layers[0].pooling");
    assert_string_equal(d.value, "0");
}

/* All-to-all volume and lookups by hand, tiny-rec on 8 H100s, B = 1024:
 *  both tables table-wise on device 0: it sends the pooled vectors of every
 *  sample, 1024 x 64 x 4 bytes per table = 524288 bytes, and receives all
 *  ids, 1024 x (2 x 8 + 4) + 1024 x (3 x 8 + 4) = 49152 bytes; every device
 *  receives its 128 samples' vectors, 128 x 128 x 4 = 65536 (less).  Its
 *  lookups read 1024 x (2 + 3) rows of 64 x 4 bytes and write 2 x 1024 x 64
 *  x 4, forward; backward twice that.
 *  both row-wise: no pooled all-to-all; a reduce-scatter of 2 x 1024 x 64 x
 *  4 = 524288 bytes forward and an all-gather back; ids 128 x 48 = 6144 per
 *  device. */
static void test_a2a_volume(void **state)
{
    pt_recsys rs = tiny_rs();
    pt_cluster c = th_cluster("dgx-h100", 8);
    pt_embed_job j = job(&rs, &c, 1024);
    pt_embed_dev dev[8];
    pt_embed_cost k;
    pt_shard_choice tw[2] = {{PT_SHARD_TW, 0, 1, {0}}, {PT_SHARD_TW, 0, 1, {0}}};
    pt_shard_choice rw[2] = {{PT_SHARD_RW, 0, 0, {0}}, {PT_SHARD_RW, 0, 0, {0}}};
    double bw = c.dev.memory_bw_GBps * 1e9 * c.dev.mem_eff;
    (void)state;
    pt_embed_eval(&j, tw, dev, &k);
    th_near_abs(k.a2a_bytes, 524288, 0, "pooled all-to-all bytes of device 0");
    th_near_rel(k.pooled_a2a_s, 2 * pt_coll_time(&c, PT_ALLTOALL, 524288, 8, 1), 1e-12, "pooled all-to-all s");
    th_near_rel(k.ids_a2a_s, pt_coll_time(&c, PT_ALLTOALL, 49152, 8, 1), 1e-12, "ids all-to-all s");
    th_near_abs(k.rs_ag_s, 0, 0, "no reduce-scatter");
    /* rows of 64 elements (above TorchRec's floor of 32) */
    th_near_rel(k.lookup_s, 3.0 * 1024.0 * 256.0 * (5.0 + 2.0) / bw, 1e-12, "device 0's lookups");
    th_near_abs(dev[1].lookup_s, 0, 0, "device 1 looks nothing up");
    /* device 0 holds the weights, 256000 + 128000 bytes, and both tables'
     * pooled outputs and gradients, 2 x 2 x 1024 x 64 x 4 */
    th_near_abs(dev[0].hbm - dev[1].hbm, 384000 + 1048576, 1e-6, "device 0's extra HBM");
    pt_embed_eval(&j, rw, dev, &k);
    th_near_abs(k.pooled_a2a_s, 0, 0, "row-wise: no pooled all-to-all");
    th_near_rel(k.rs_ag_s, 2 * pt_coll_time(&c, PT_REDUCESCATTER, 524288, 8, 1), 1e-12, "reduce-scatter + all-gather");
    th_near_rel(k.ids_a2a_s, pt_coll_time(&c, PT_ALLTOALL, 6144, 8, 1), 1e-12, "row-wise ids");
    th_near_rel(dev[3].lookup_s, dev[0].lookup_s, 1e-12, "row-wise lookups are even");
    /* data-parallel: the tables' gradients join the dense all-reduce,
     * 2 bytes per dense parameter (4*64+64 + 67+1 = 388) and 4 per element */
    {
        pt_shard_choice dp[2] = {{PT_SHARD_DP, 0, 0, {0}}, {PT_SHARD_DP, 0, 0, {0}}};
        pt_embed_eval(&j, dp, dev, &k);
        th_near_abs(k.allreduce_bytes, 2.0 * 388 + 384000, 0, "all-reduce bytes");
        th_near_abs(k.a2a_s, 0, 0, "data-parallel: no all-to-all");
    }
    pt_recsys_free(&rs);
}

/* A table_row_wise table on the second rack of a 128-GPU NVL72 job (racks
 * of 72 and 56): its rows and lookups split over the 56 devices there.
 * Per device, forward: 1024 x (2 + 3) / 56 rows of 256 bytes, and the two
 * tables' partial sums for all 1024 samples, 2 x 1024 x 256 bytes. */
static void test_partial_node(void **state)
{
    pt_recsys rs = tiny_rs();
    pt_cluster c = th_cluster("gb200-nvl72", 128);
    pt_embed_job j = job(&rs, &c, 1024);
    pt_embed_dev *dev = calloc(128, sizeof *dev);
    pt_embed_cost k;
    pt_shard_choice tr[2] = {{PT_SHARD_TWRW, 0, 1, {1}}, {PT_SHARD_TWRW, 0, 1, {1}}};
    double bw = c.dev.memory_bw_GBps * 1e9 * c.dev.mem_eff;
    (void)state;
    assert_int_equal(j.node, 72);
    assert_int_equal(j.nodes, 2);
    pt_embed_eval(&j, tr, dev, &k);
    th_near_rel(dev[72].lookup_s, 3.0 * (1024.0 * 5.0 / 56.0 * 256.0 + 2.0 * 1024.0 * 256.0) / bw, 1e-12,
                "a device of the 56-GPU rack");
    th_near_rel(dev[127].lookup_s, dev[72].lookup_s, 1e-12, "the rack's last device");
    th_near_abs(dev[71].lookup_s, 0, 0, "the first rack looks nothing up");
    free(dev);
    pt_recsys_free(&rs);
}

static void test_choice_rules(void **state)
{
    pt_recsys rs = load("dlrm-dcnv2");
    pt_cluster c = th_cluster("dgx-b200", 16);
    pt_embed_job j = job(&rs, &c, 55296);
    char why[160];
    pt_shard_choice cw3 = {PT_SHARD_CW, 0, 3, {0, 1, 2}}, twrw = {PT_SHARD_TWRW, 0, 1, {2}};
    pt_shard_choice rw = {PT_SHARD_RW, 0, 0, {0}};
    pt_diag d;
    (void)state;
    assert_int_equal(pt_embed_choice_valid(&j, 0, &cw3, why, sizeof why), 0);
    assert_non_null(strstr(why, "do not divide dim 128"));
    assert_int_equal(pt_embed_choice_valid(&j, 0, &twrw, why, sizeof why), 0); /* 2 nodes: 0 and 1 */
    assert_int_equal(pt_embed_choice_valid(&j, 5, &rw, why, sizeof why), 0);  /* 3 rows on 16 devices */
    j.batch = 1000; /* not a multiple of 16 */
    assert_int_equal(pt_embed_job_init(&j, &d), PT_EINPUT);
    pt_recsys_free(&rs);
}

/* The done-when: Partita's plan beats or matches the TorchRec-style
 * greedy plan on every built-in example (and fits). */
static void test_beats_baseline(void **state)
{
    static const char *const models[] = {"dlrm", "dlrm-dcnv2"};
    static const int64_t gpus[] = {8, 64};
    (void)state;
    for (int m = 0; m < 2; m++)
        for (int g = 0; g < 2; g++) {
            pt_recsys rs = load(models[m]);
            pt_cluster c = th_cluster("dgx-b200", gpus[g]);
            pt_embed_job j = job(&rs, &c, 55296);
            pt_shard_plan base, best;
            pt_diag d;
            assert_int_equal(pt_shard_torchrec(&j, &base, &d), PT_OK);
            assert_int_equal(pt_shard_search(&j, &base, &best, &d), PT_OK);
            assert_true(best.found);
            assert_true(best.cost.step_s <= base.cost.step_s * (1 + 1e-12));
            /* every table placed, each shard on a device that exists */
            for (int t = 0; t < rs.ntables; t++)
                assert_int_equal(pt_embed_choice_valid(&j, t, &best.ch[t], NULL, 0), 1);
            th_near_rel(best.cost.samples_per_s, 55296 / best.cost.step_s, 1e-12, "samples/s");
            th_near_rel(best.cost.step_s, best.cost.lookup_s + best.cost.a2a_s + best.cost.dense_s + best.cost.allreduce_s,
                        1e-12, "the split adds up");
            pt_shard_plan_free(&base);
            pt_shard_plan_free(&best);
            pt_recsys_free(&rs);
        }
}

/* Tables that do not fit in HBM go to host memory with a cache of hot rows:
 * DLRM's 89.5 GiB of SGD tables on four 16-GiB devices (13.6 usable each). */
static void test_uvm(void **state)
{
    static const char cl[] =
        "{\"name\": \"small\", \"device\": {\"name\": \"small-gpu\", \"memory_GiB\": 16, \"memory_bw_GBps\": 900, "
        "\"tflops\": {\"bf16\": 125}}, \"devices\": 4, \"levels\": [{\"name\": \"nvlink\", \"size\": 4, "
        "\"bw_GBps\": 150, \"latency_us\": 2}], \"price_per_device_hour\": 1, \"mtbf_device_hours\": 50000}";
    pt_recsys rs = load("dlrm");
    pt_cluster c;
    pt_diag d;
    pt_embed_job j;
    pt_shard_plan base, best;
    int uvm = 0;
    (void)state;
    if (pt_cluster_parse(cl, "small.json", &c, &d) != PT_OK) fail_msg("cluster: %s", d.msg);
    j = job(&rs, &c, 8192);
    assert_int_equal(pt_shard_torchrec(&j, &base, &d), PT_OK);
    assert_int_equal(pt_shard_search(&j, &base, &best, &d), PT_OK);
    assert_true(best.found);
    for (int t = 0; t < rs.ntables; t++) uvm += best.ch[t].uvm;
    assert_true(uvm > 0);
    assert_true(best.cost.host_max > 0);
    assert_true(best.cost.hbm_max <= j.hbm_cap);
    /* with no host memory nothing fits */
    j.host_bytes = 0;
    pt_shard_plan_free(&best);
    assert_int_equal(pt_shard_search(&j, NULL, &best, &d), PT_OK);
    assert_false(best.found);
    pt_shard_plan_free(&base);
    pt_shard_plan_free(&best);
    pt_recsys_free(&rs);
}

/* --export torchrec of DLRM-DCNv2 on 8 B200s (tests/golden/export). */
static void test_export_golden(void **state)
{
    pt_recsys rs = load("dlrm-dcnv2");
    pt_cluster c = th_cluster("dgx-b200", 8);
    pt_embed_job j = job(&rs, &c, 55296);
    pt_shard_plan base, best;
    pt_diag d;
    char *text = NULL;
    (void)state;
    assert_int_equal(pt_shard_torchrec(&j, &base, &d), PT_OK);
    assert_int_equal(pt_shard_search(&j, &base, &best, &d), PT_OK);
    assert_int_equal(pt_emit_export_torchrec(&j, &best, &base, &text, &d), PT_OK);
    th_golden("tests/golden/export/", "torchrec_dlrm_dcnv2_b200x8.py", text,
              "UPDATE_GOLDEN=1 build/tests/test_recsys");
    free(text);
    pt_shard_plan_free(&base);
    pt_shard_plan_free(&best);
    pt_recsys_free(&rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_tables), cmocka_unit_test(test_graph_file),
        cmocka_unit_test(test_a2a_volume),     cmocka_unit_test(test_partial_node),
        cmocka_unit_test(test_choice_rules),
        cmocka_unit_test(test_beats_baseline), cmocka_unit_test(test_uvm),
        cmocka_unit_test(test_export_golden),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
