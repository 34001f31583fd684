/*
 * test_infer.c -- the inference cost model (src/cost/infer.c).  Expected
 * numbers are hand derivations: KV bytes per token from the config (wave2
 * notes formula 3: Llama-3-70B 320 KiB per token in 16 bits; MLA's latent),
 * a batch-1 decode step on a device with so many FLOPs that only memory
 * counts (every weight read once at the achieved bandwidth), and the
 * paged-KV capacity in whole blocks.
 */
#include <math.h>

#include "helpers.h"
#include "cost/infer.h"

/* dgx-h100's network with a device whose compute is effectively free and
 * 500 GB/s of memory bandwidth.  Its mem_eff (0.5) must not count: a serving
 * engine's fused decode kernels reach the engine's decode_eff of the
 * datasheet bandwidth (1 in these configurations), not the efficiency
 * fitted to training's unfused element-wise kernels (src/cost/infer.c). */
static pt_cluster memory_bound_cluster(void)
{
    pt_cluster c = th_cluster("dgx-h100", 8);
    c.dev.tflops_bf16 = c.dev.tflops_fp16 = c.dev.tflops_fp8 = 1e9;
    c.dev.gemm_eff = 1.0;
    c.dev.gemm_half_GFLOP = 0.0;
    c.dev.attn_eff = 1.0;
    c.dev.memory_bw_GBps = 500.0;
    c.dev.mem_eff = 0.5;
    return c;
}

static pt_infer_cfg roofline_cfg(int64_t tp)
{
    pt_infer_cfg cfg;
    pt_diag d;
    pt_infer_cfg_default(&cfg);
    assert_int_equal(pt_infer_engine("roofline", &cfg, &d), PT_OK);
    cfg.tp = tp;
    return cfg;
}

static void test_kv_bytes(void **state)
{
    pt_model l70 = th_model("llama3-70b"), ds = th_model("deepseek-v3");
    (void)state;
    /* 2 x 80 layers x 8 KV heads x 128 x 2 bytes = 327,680 = 320 KiB */
    th_near_rel(pt_infer_kv_bytes_per_token(&l70, PT_Q_BF16), 327680.0, 1e-12, "llama3-70b bf16");
    th_near_rel(pt_infer_kv_bytes_per_token(&l70, PT_Q_FP8), 163840.0, 1e-12, "llama3-70b fp8");
    /* MLA: 61 layers x (kv_lora 512 + qk_rope 64) x 2 bytes = 70,272 */
    th_near_rel(pt_infer_kv_bytes_per_token(&ds, PT_Q_BF16), 70272.0, 1e-12, "deepseek-v3 latent");
    /* DSA (DeepSeek-V3.2) adds the indexer's key, 128 fp8 values and an
     * fp32 scale: 61 x (1152 + 132) = 78,324 */
    ds = th_model("deepseek-v3.2");
    th_near_rel(pt_infer_kv_bytes_per_token(&ds, PT_Q_BF16), 78324.0, 1e-12, "deepseek-v3.2 latent and index keys");
    /* with the indexer shared (GLM-5.2's indexer_types), only the layers
     * that run their own keep index keys: 30 of 61, 70,272 + 30 x 132 */
    ds.index_layers = 30;
    th_near_rel(pt_infer_kv_bytes_per_token(&ds, PT_Q_BF16), 74232.0, 1e-12, "shared indexers");
}

/* DSA in serving: past index_topk tokens of context a decode step's
 * attention reads topk latents, not all, so a long-context decode is
 * cheaper than V3's; at 1k tokens of context both read everything, and
 * V3.2 pays only its indexer on top. */
static void test_dsa_decode(void **state)
{
    pt_model v3 = th_model("deepseek-v3"), v32 = th_model("deepseek-v3.2");
    pt_cluster c = th_cluster("dgx-h200", 8);
    pt_infer_cfg cfg = roofline_cfg(8);
    pt_infer_batch lng = pt_infer_batch_decode(64, 65536.0), shrt = pt_infer_batch_decode(64, 1024.0);
    pt_infer_time a, b;
    (void)state;
    pt_infer_step(&v3, &c, &cfg, &lng, &a);
    pt_infer_step(&v32, &c, &cfg, &lng, &b);
    if (!(b.attn_s < 0.25 * a.attn_s)) fail_msg("64k context: V3.2 attention %g s, V3 %g s", b.attn_s, a.attn_s);
    pt_infer_step(&v3, &c, &cfg, &shrt, &a);
    pt_infer_step(&v32, &c, &cfg, &shrt, &b);
    assert_true(b.attn_s >= a.attn_s && b.attn_s < 1.5 * a.attn_s);
}

static void test_kv_split_by_tp(void **state)
{
    pt_model m = th_model("llama3-8b"); /* 32 layers, 8 KV heads of 128 */
    pt_cluster c = th_cluster("dgx-h100", 16);
    pt_infer_cfg cfg = roofline_cfg(4);
    pt_infer_mem mem;
    (void)state;
    /* tp=4: 2 heads per device: 2 x 2 x 128 x 2 bytes x 32 layers = 32,768 */
    pt_infer_memory(&m, &c, &cfg, &mem);
    th_near_rel(mem.kv_bytes_per_token, 32768.0, 1e-12, "tp=4 KV per device");
    /* tp=16 > 8 heads: one head per device, replicated: 16,384 */
    cfg.tp = 16;
    pt_infer_memory(&m, &c, &cfg, &mem);
    th_near_rel(mem.kv_bytes_per_token, 16384.0, 1e-12, "tp=16 KV per device");
    /* capacity: whole blocks of 32 tokens */
    assert_true(fmod(mem.kv_tokens, 32.0) == 0.0);
    th_near_rel(pt_infer_max_seqs(&cfg, &mem, 1000, 24), floor(mem.kv_tokens / 1024.0), 1e-12,
                "sequences of 1024 tokens");
}

static void test_decode_batch1_memory_bound(void **state)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = memory_bound_cluster();
    pt_infer_cfg cfg = roofline_cfg(1);
    pt_infer_batch b = pt_infer_batch_decode(1.0, 1.0);
    pt_infer_time t, t2;
    double read = 2.0 * (double)(pt_model_params(&m) - m.vocab * m.hidden); /* all but the embedding */
    (void)state;
    pt_infer_step(&m, &c, &cfg, &b, &t);
    /* every weight read once at 500 GB/s; activations, one token of KV and
     * element-wise passes are under 0.1% of it */
    th_near_rel(t.total_s, read / 500e9, 2e-3, "batch-1 decode = weight bytes / bandwidth");
    /* tp=2 halves the bytes per device and adds two all-reduces a layer */
    cfg.tp = 2;
    pt_infer_step(&m, &c, &cfg, &b, &t2);
    th_near_rel(t2.total_s - t2.comm_s, read / 2.0 / 500e9, 2e-3, "tp=2 reads half");
    assert_true(t2.comm_s > 0);
    /* fp8 weights halve the bytes again (the 16-bit output layer stays) */
    cfg.tp = 1;
    cfg.wq = PT_Q_FP8;
    pt_infer_step(&m, &c, &cfg, &b, &t2);
    th_near_rel(t2.total_s, (read / 2.0 + (double)(m.vocab * m.hidden)) / 500e9, 2e-3, "fp8 weights");
}

static void test_decode_grows_with_kv(void **state)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = memory_bound_cluster();
    pt_infer_cfg cfg = roofline_cfg(1);
    pt_infer_batch b1 = pt_infer_batch_decode(64.0, 1000.0), b2 = pt_infer_batch_decode(64.0, 2000.0);
    pt_infer_time t1, t2;
    (void)state;
    pt_infer_step(&m, &c, &cfg, &b1, &t1);
    pt_infer_step(&m, &c, &cfg, &b2, &t2);
    /* 64 more thousand tokens of KV: 64000 x 131,072 bytes (32 layers x 2 x
     * 8 x 128 x 2) at 500 GB/s */
    th_near_rel(t2.attn_s - t1.attn_s, 64000.0 * 131072.0 / 500e9, 1e-9, "KV read per step");
}

static void test_refusals(void **state)
{
    pt_model m = th_model("llama3-8b"), moe = th_model("mixtral-8x7b");
    pt_cluster c = th_cluster("dgx-h100", 8);
    pt_infer_cfg cfg = roofline_cfg(3);
    pt_diag d;
    (void)state;
    assert_int_equal(pt_infer_check(&m, &c, &cfg, &d), PT_EINPUT);
    assert_non_null(strstr(d.msg, "tp=3 does not divide"));
    cfg = roofline_cfg(1);
    cfg.wq = PT_Q_FP4;
    assert_int_equal(pt_infer_check(&m, &c, &cfg, &d), PT_EINPUT);
    assert_non_null(strstr(d.msg, "fp4"));
    cfg = roofline_cfg(2);
    cfg.ep = 4;
    assert_int_equal(pt_infer_check(&moe, &c, &cfg, &d), PT_EINPUT);
    assert_non_null(strstr(d.msg, "ep=4 does not divide tp=2"));
    assert_int_equal(pt_infer_engine("tgi", &cfg, &d), PT_EINPUT);
}

static void test_spec_tokens(void **state)
{
    (void)state;
    /* Leviathan et al. eq. 1: (1 - 0.5^4) / (1 - 0.5) = 1.875 */
    th_near_rel(pt_infer_spec_tokens(0.5, 3), 1.875, 1e-12, "alpha 0.5, k 3");
    th_near_rel(pt_infer_spec_tokens(0.0, 3), 1.0, 1e-12, "nothing accepted");
}

static void test_shift_takes_the_faster(void **state)
{
    pt_model m = th_model("llama3-70b");
    pt_cluster c = th_cluster("dgx-h200", 8);
    pt_infer_cfg tp = roofline_cfg(8), sp, sh;
    (void)state;
    sp = tp, sh = tp;
    sp.seq_par = 1;
    sh.seq_par = 2;
    for (double n = 1; n <= 16384; n *= 4) {
        pt_infer_batch b = pt_infer_batch_prefill(1.0, n);
        pt_infer_time a, s, h;
        pt_infer_step(&m, &c, &tp, &b, &a);
        pt_infer_step(&m, &c, &sp, &b, &s);
        pt_infer_step(&m, &c, &sh, &b, &h);
        th_near_rel(h.total_s, a.total_s < s.total_s ? a.total_s : s.total_s, 1e-12, "shift = min(TP, SP)");
    }
    {
        /* one token: SP reads all 70B weights on every GPU, TP an eighth */
        pt_infer_batch b = pt_infer_batch_decode(1.0, 100.0);
        pt_infer_time a, s;
        pt_infer_step(&m, &c, &tp, &b, &a);
        pt_infer_step(&m, &c, &sp, &b, &s);
        assert_true(s.total_s > 4.0 * a.linear_s);
    }
}

static void test_dwdp_and_imbalance(void **state)
{
    pt_model m = th_model("deepseek-v3");
    pt_cluster c = th_cluster("gb200-nvl72", 72);
    pt_infer_cfg ep = roofline_cfg(8), dw = roofline_cfg(1);
    pt_infer_batch small = pt_infer_batch_prefill(1.0, 1024.0), big = pt_infer_batch_prefill(16.0, 8192.0);
    pt_infer_time t0, t1;
    (void)state;
    ep.ep = 8;
    ep.attn_dp = 1;
    ep.wq = ep.kvq = dw.wq = dw.kvq = PT_Q_FP8;
    /* synchronous EP waits for the busiest rank: cv 0.2 over 8 ranks makes
     * the expert GEMMs of a compute-bound step slower, never faster */
    pt_infer_step(&m, &c, &ep, &big, &t0);
    ep.moe_cv = 0.2;
    pt_infer_step(&m, &c, &ep, &big, &t1);
    assert_true(t1.linear_s > t0.linear_s);
    th_near_rel(t1.comm_s, t0.comm_s, 1e-12, "imbalance is not communication");
    /* DWDP: a layer costs max(compute, prefetch); 1K tokens cannot hide the
     * fetch of 7/8 of a layer's experts (the excess shows as comm), 128K can */
    dw.ep = 8;
    dw.dwdp = 1;
    pt_infer_step(&m, &c, &dw, &small, &t0);
    assert_true(t0.comm_s > t0.linear_s);
    pt_infer_step(&m, &c, &dw, &big, &t1);
    th_near_abs(t1.comm_s, 0.0, 1e-12, "prefetch hidden behind 128K tokens");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kv_bytes),
        cmocka_unit_test(test_dsa_decode),
        cmocka_unit_test(test_kv_split_by_tp),
        cmocka_unit_test(test_decode_batch1_memory_bound),
        cmocka_unit_test(test_decode_grows_with_kv),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_spec_tokens),
        cmocka_unit_test(test_shift_takes_the_faster),
        cmocka_unit_test(test_dwdp_and_imbalance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
