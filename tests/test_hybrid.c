/*
 * test_hybrid.c -- hybrid Mamba-2 / attention / MLP / MoE models (issue 15):
 * the nemotron_h config reader, parameter and FLOP counts derived by hand
 * for a small stack, the published counts of Nemotron 3 Nano and Super, the
 * cost model's per-block pricing (time and utilisation count one number,
 * tensor parallelism splits it, a pipeline stage holds its own blocks),
 * refusals with the field and value named, and serving refused.
 */
#include <math.h>

#include "helpers.h"
#include "cost/cost.h"
#include "cost/infer.h"
#include "workload/model.h"

/* A small stack, one block of each kind: Mamba-2, attention, MLP, MoE. */
#define SMALL_KEYS                                                                                      \
    "\"model_type\": \"nemotron_h\", \"hidden_size\": 64, "                    \
    "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 16, "                        \
    "\"intermediate_size\": 128, \"mamba_num_heads\": 4, \"mamba_head_dim\": 32, "                      \
    "\"n_groups\": 2, \"conv_kernel\": 4, \"chunk_size\": 8, \"n_routed_experts\": 4, "                  \
    "\"num_experts_per_tok\": 2, \"moe_intermediate_size\": 32, "                                       \
    "\"moe_shared_expert_intermediate_size\": 64, \"vocab_size\": 1000, \"max_position_embeddings\": 64"
#define SMALL                                                                                           \
    "{" SMALL_KEYS ", \"ssm_state_size\": 16, \"num_hidden_layers\": 4, \"hybrid_override_pattern\": \"M*-E\"}"

static pt_model parse(const char *text)
{
    pt_model m;
    pt_diag d;
    memset(&m, 0, sizeof m);
    if (pt_hf_parse(text, "config.json", &m, &d) != PT_OK) fail_msg("%s", d.msg);
    return m;
}

/* Parameters by hand (h 64, d_inner = 4 heads x 32 = 128, 2 groups of
 * state 16, conv 4, vocab 1000, relu2 MLPs, RMSNorm, untied):
 *   Mamba-2: in_proj 64 x (2*128 + 2*2*16 + 4) = 64 x 324 = 20736; conv1d
 *     over 128 + 64 = 192 channels, 4 weights and a bias each: 960;
 *     dt_bias, A_log, D: 12; gated norm 128; out_proj 128 x 64 = 8192;
 *     block norm 64: 30092;
 *   attention: q 64 x 64, k and v 64 x 32 each, o 64 x 64: 12288, norm 64: 12352;
 *   MLP: up and down 2 x 64 x 128 = 16384, norm 64: 16448;
 *   MoE: router 4 x 64 = 256, 4 experts of 2 x 64 x 32 = 4096 each (16384),
 *     shared 2 x 64 x 64 = 8192, norm 64: 24896 (2 experts: 16704);
 *   embedding and output layer 2 x 64000, final norm 64.
 * Total 30092 + 12352 + 16448 + 24896 + 128064 = 211852; active 203660. */
static void test_small_params(void **state)
{
    pt_model m = parse(SMALL);
    (void)state;
    assert_int_equal(m.layers, 4);
    assert_string_equal(m.hybrid, "M*-E");
    assert_string_equal(m.family, "nemotron_h");
    assert_int_equal(m.experts, 4);
    assert_int_equal(m.topk, 2);
    assert_int_equal(pt_model_moe_layers(&m), 1);
    assert_int_equal(pt_model_kind_layers(&m, 'M', 0, 4), 1);
    assert_int_equal(pt_model_kind_layers(&m, 'E', 0, 3), 0);
    assert_int_equal(pt_model_mamba_params(&m), 30092);
    assert_int_equal(pt_model_attn_params(&m), 12352);
    assert_int_equal(pt_model_layer_params(&m), 30092); /* the largest block */
    assert_int_equal(pt_model_params(&m), 211852);
    assert_int_equal(pt_model_active_params(&m), 203660);
    assert_true(m.act == PT_ACT_RELU2 && !m.gated_mlp && !m.norm_bias && !m.tied_embeddings);
}

/* Forward FLOPs per token by hand (2 per weight of every GEMM):
 *   Mamba-2: projections 2 x (20736 + 8192) = 57856; conv1d 2 x 4 x 192 =
 *     1536; SSD scan with chunk Q = 8 (Dao & Gu 2024 section 6): per group
 *     2QN = 256 (x 2 groups = 512), per head 2QP + 4NP = 512 + 2048 (x 4
 *     heads = 10240): 70144;
 *   attention: 2 x 12288 = 24576, core 2 x (s/2 = 32 keys) x 4 heads x
 *     (16 + 16) = 8192: 32768;
 *   MLP: 2 x 16384 = 32768;  MoE: 2 x (256 + 8192 + 2 x 4096) = 33280.
 * 168960 forward; a training step 3 x 168960 + 6 x 1000 x 64 (logits) =
 * 890880 per token, 128 tokens (s 64, batch 2): 114032640. */
static void test_small_flops(void **state)
{
    pt_model m = parse(SMALL);
    (void)state;
    th_near_rel(pt_cost_model_flops(&m, 64, 2), 114032640.0, 1e-12, "model FLOPs of the small stack");
}

/* Time and utilisation count one number: the FLOPs the blocks are priced
 * with (per micro-batch on one device) are the model's, and tp=2 halves
 * them (heads and groups split; Megatron-Core MambaMixer). */
static void test_time_counts_model_flops(void **state)
{
    pt_model m = parse(SMALL);
    pt_cluster c = th_cluster("dgx-h100", 8);
    pt_job j = th_job(64, 16, 1);
    pt_strategy st = th_strategy("tp=1 pp=1 dp=8 mbs=2 gbs=16", &m, &c, &j);
    pt_strategy st2 = th_strategy("tp=2 pp=1 dp=4 mbs=2 gbs=16", &m, &c, &j);
    pt_cost_prep pr, pr2;
    pt_cost cost;
    (void)state;
    pt_cost_prepare(&m, &c, &j, &st, &pr);
    pt_cost_prepare(&m, &c, &j, &st2, &pr2);
    th_near_rel(pr.flops_f, 128.0 * 168960.0, 1e-12, "forward FLOPs of one micro-batch of 128 tokens");
    th_near_rel(3.0 * pr.flops_f * 8.0 + 6.0 * 1000.0 * 64.0 * 64.0 * 16.0, pt_cost_model_flops(&m, 64, 16), 1e-12,
                "the priced FLOPs are the model's");
    th_near_rel(pr2.flops_f, 0.5 * pr.flops_f, 1e-12, "tp=2 splits every block");
    assert_true(pr.kind[0].f > 0 && pr.kind[1].f > 0 && pr.kind[2].f > 0 && pr.kind[3].f > 0);
    assert_true(pr.kind[3].ep_f == 0); /* ep = 1: no all-to-all */
    pt_cost_eval(&m, &c, &j, &st, &cost);
    assert_true(cost.step_time_s > 0 && cost.mfu > 0 && cost.hfu >= cost.mfu && cost.hfu < 1.0);
}

/* A pipeline stage holds its own blocks: with pp=2 the first stage holds the
 * Mamba-2 and attention blocks and the embedding (30092 + 12352 + 64000),
 * the last the MLP, the MoE block without its experts and the final norm
 * and output layer (16448 + 8512 + 64 + 64000); and its time follows them:
 * a stack whose MoE blocks come last puts more time on its last stage. */
static void test_stages_follow_blocks(void **state)
{
    pt_model m = parse(SMALL);
    pt_cluster c = th_cluster("dgx-h100", 8);
    pt_job j = th_job(64, 16, 1);
    pt_strategy st = th_strategy("tp=1 pp=2 dp=4 mbs=2 gbs=16", &m, &c, &j);
    (void)state;
    th_near_rel(pt_cost_stage_params(&m, &st, 1, 0, -1), 30092.0 + 12352.0 + 64000.0, 1e-12, "first stage");
    th_near_rel(pt_cost_stage_params(&m, &st, 0, 1, -1), 16448.0 + 8512.0 + 64.0 + 64000.0, 1e-12, "last stage");
    {
        pt_model a = parse("{" SMALL_KEYS ", \"ssm_state_size\": 16, \"num_hidden_layers\": 8, "
                           "\"hybrid_override_pattern\": \"MM**EE--\"}");
        pt_model b = parse("{" SMALL_KEYS ", \"ssm_state_size\": 16, \"num_hidden_layers\": 8, "
                           "\"hybrid_override_pattern\": \"EE--MM**\"}");
        pt_strategy sa = th_strategy("tp=1 pp=1 dp=8 mbs=2 gbs=16", &a, &c, &j);
        pt_strategy sb = th_strategy("tp=1 pp=1 dp=8 mbs=2 gbs=16", &b, &c, &j);
        pt_cost ca, cb;
        pt_cost_eval(&a, &c, &j, &sa, &ca);
        pt_cost_eval(&b, &c, &j, &sb, &cb);
        /* pp = 1: the same blocks in another order cost the same */
        th_near_rel(ca.time.compute, cb.time.compute, 1e-12, "order does not matter at pp=1");
        th_near_rel(ca.model_flops, cb.model_flops, 1e-12, "model FLOPs do not depend on the order");
    }
    {
        /* pp = 2 on a larger stack: Mamba-2 and attention blocks all on the
         * first stage make it the slowest, so the step is slower than with
         * the kinds spread over both stages (the same blocks, the same FLOPs) */
#define WIDE(pat)                                                                                        \
    "{\"model_type\": \"nemotron_h\", \"hidden_size\": 2048, \"hybrid_override_pattern\": \"" pat "\", " \
    "\"num_attention_heads\": 16, \"num_key_value_heads\": 2, \"head_dim\": 128, \"intermediate_size\": 8192, " \
    "\"mamba_num_heads\": 32, \"mamba_head_dim\": 64, \"ssm_state_size\": 128, \"n_groups\": 8, "          \
    "\"n_routed_experts\": 64, \"num_experts_per_tok\": 4, \"moe_intermediate_size\": 1024, "              \
    "\"vocab_size\": 32000, \"max_position_embeddings\": 4096}"
        pt_model a = parse(WIDE("MMMM****EEEE----")), b = parse(WIDE("M*E-M*E-M*E-M*E-"));
        pt_job jw = th_job(4096, 64, 1);
        pt_strategy sa = th_strategy("tp=1 pp=2 dp=4 mbs=1 gbs=64", &a, &c, &jw);
        pt_strategy sb = th_strategy("tp=1 pp=2 dp=4 mbs=1 gbs=64", &b, &c, &jw);
        pt_cost ca, cb;
        pt_cost_eval(&a, &c, &jw, &sa, &ca);
        pt_cost_eval(&b, &c, &jw, &sb, &cb);
        th_near_rel(ca.model_flops, cb.model_flops, 1e-12, "the same blocks");
        if (!(ca.time.compute > 1.1 * cb.time.compute))
            fail_msg("unbalanced stages %g s not slower than spread kinds %g s", ca.time.compute, cb.time.compute);
#undef WIDE
    }
}

/* Nemotron 3 Nano (NVIDIA, arXiv 2512.20848): 31.6B total, 3.2B active
 * without the input embedding (3.6B with both embedding matrices);
 * 23 Mamba-2, 23 MoE and 6 attention blocks. */
static void test_nemotron3_nano(void **state)
{
    pt_model m = th_model("nemotron-v3-nano-30b-a3b");
    double emb = (double)(m.vocab * m.hidden);
    (void)state;
    assert_int_equal(m.layers, 52);
    assert_int_equal(pt_model_kind_layers(&m, 'M', 0, 52), 23);
    assert_int_equal(pt_model_kind_layers(&m, 'E', 0, 52), 23);
    assert_int_equal(pt_model_kind_layers(&m, '*', 0, 52), 6);
    th_near_rel((double)pt_model_params(&m), 31.6e9, 0.01, "Nemotron 3 Nano total parameters");
    th_near_rel((double)pt_model_active_params(&m) - emb, 3.2e9, 0.01, "Nemotron 3 Nano active parameters");
    th_near_rel((double)pt_model_active_params(&m), 3.6e9, 0.01, "... with the embeddings");
}

/* Nemotron 3 Super (LatentMoE): the BF16 checkpoint's 123,611,012,096
 * weights less its 2,942,324,736 of multi-token prediction; a token leaves
 * 107,898,470,400 expert weights unused (40 blocks x 490 experts x
 * 2 x 1024 x 2688). */
static void test_nemotron3_super(void **state)
{
    pt_model m = th_model("nemotron-v3-super-120b-a12b");
    (void)state;
    assert_int_equal(m.moe_latent, 1024);
    assert_int_equal(pt_model_params(&m), INT64_C(123611012096) - INT64_C(2942324736));
    assert_int_equal(pt_model_params(&m) - pt_model_active_params(&m), INT64_C(107898470400));
}

/* Nemotron 3 Ultra (LatentMoE, 550B total, 55B active by its name), by
 * hand: h 8192, 256 Mamba heads of 64 (d_inner 16384), 8 groups of state
 * 128, conv 4:
 *   Mamba-2: in_proj 8192 x (2*16384 + 2*8*128 + 256) = 287,309,824; conv1d
 *     18432 channels x 5 = 92,160; dt_bias, A_log, D 768; gated norm 16384;
 *     out_proj 134,217,728; norm 8192: 421,645,056 (x 48);
 *   attention: q and o 2 x 8192 x 8192, k and v 2 x 8192 x 256, norm 8192:
 *     138,420,224 (x 12);
 *   MoE: router 512 x 8192 = 4,194,304; 512 experts of 2 x 2048 x 5120
 *     (relu2 in the latent) = 10,737,418,240; latent projections
 *     2 x 8192 x 2048 = 33,554,432; shared 2 x 8192 x 10240 = 167,772,160;
 *     norm 8192: 10,942,947,328 (x 48);
 *   embedding and output layer 2 x 131072 x 8192, final norm 8192.
 * Total 549,308,968,960; a token leaves 48 x 490 x 2 x 2048 x 5120 =
 * 493,250,150,400 expert weights unused. */
static void test_nemotron3_ultra(void **state)
{
    pt_model m = th_model("nemotron-v3-ultra-550b-a55b");
    (void)state;
    assert_int_equal(pt_model_kind_layers(&m, 'M', 0, 108), 48);
    assert_int_equal(pt_model_kind_layers(&m, 'E', 0, 108), 48);
    assert_int_equal(pt_model_kind_layers(&m, '*', 0, 108), 12);
    assert_int_equal(pt_model_params(&m), INT64_C(549308968960));
    assert_int_equal(pt_model_params(&m) - pt_model_active_params(&m), INT64_C(493250150400));
    /* its multi-token-prediction depth (num_nextn_predict_layers 1,
     * mtp_hybrid_override_pattern "*E"), forward FLOPs a token at s = 4096
     * (2048 causal keys): the attention block's GEMMs 2 x 138,412,032 =
     * 276,824,064 and core 2 x 2048 x 64 x 128 x 2 = 67,108,864; the MoE
     * block's 22 experts 2 x 22 x 2 x 2048 x 5120 = 922,746,880, latent
     * projections, shared expert and router 2 x (33,554,432 + 167,772,160 +
     * 4,194,304) = 411,041,792; the three norms and the projection 2 x (3 x
     * 8192 + 2 x 8192^2) = 268,484,608; the logits 2 x 131072 x 8192 =
     * 2,147,483,648: 4,093,689,856 (training: 3x) */
    {
        pt_model n = m;
        assert_int_equal(m.mtp_layers, 1);
        assert_string_equal(m.mtp_hybrid, "*E");
        n.mtp_layers = 0;
        th_near_rel(pt_cost_model_flops(&m, 4096, 1) - pt_cost_model_flops(&n, 4096, 1), 3.0 * 4093689856.0 * 4096,
                    1e-9, "Ultra's MTP depth");
    }
}

static void expect_refused(const char *text, const char *field, const char *value_part, const char *msg_part)
{
    pt_model m;
    pt_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pt_hf_parse(text, "config.json", &m, &d), PT_EINPUT);
    assert_string_equal(d.field, field);
    assert_string_equal(d.file, "config.json");
    if (value_part[0]) assert_true(d.line == 1 && d.col > 0); /* a missing key has no place */
    if (!strstr(d.value, value_part)) fail_msg("value \"%s\" lacks \"%s\"", d.value, value_part);
    if (!strstr(d.msg, msg_part)) fail_msg("message \"%s\" lacks \"%s\"", d.msg, msg_part);
}

static void test_refusals(void **state)
{
    (void)state;
    expect_refused("{" SMALL_KEYS ", \"ssm_state_size\": 16, \"hybrid_override_pattern\": \"M*X-\"}",
                   "hybrid_override_pattern", "M*X-", "holds 'X' at layer 2");
    expect_refused("{" SMALL_KEYS ", \"ssm_state_size\": 16, \"num_hidden_layers\": 4, "
                   "\"hybrid_override_pattern\": \"M*-E-\"}",
                   "hybrid_override_pattern", "M*-E-", "names 5 blocks but num_hidden_layers is 4");
    expect_refused("{" SMALL_KEYS ", \"ssm_state_size\": 16, \"hybrid_override_pattern\": 7}",
                   "hybrid_override_pattern", "7", "is not a string");
    expect_refused("{" SMALL_KEYS ", \"hybrid_override_pattern\": \"M*-E\"}", "ssm_state_size", "",
                   "required key is missing");
    expect_refused("{\"model_type\": \"nemotron_h\", \"hidden_size\": 64, \"num_attention_heads\": 4, "
                   "\"vocab_size\": 1000, \"mamba_num_heads\": 4, \"mamba_head_dim\": 32, \"ssm_state_size\": 16, "
                   "\"n_groups\": 3, \"hybrid_override_pattern\": \"M*\"}",
                   "n_groups", "3", "does not divide mamba_num_heads=4");
    expect_refused("{" SMALL_KEYS ", \"ssm_state_size\": 16, \"layers_block_type\": "
                   "[\"mamba\", \"attention\", \"mlp\", \"ssm\"]}",
                   "layers_block_type", "", "at layer 3");
    expect_refused("{" SMALL_KEYS ", \"ssm_state_size\": 16, \"hybrid_override_pattern\": \"M*-E\", "
                   "\"num_nextn_predict_layers\": 1, \"mtp_hybrid_override_pattern\": \"*X\"}",
                   "mtp_hybrid_override_pattern", "*X", "holds 'X' at block 1");
}

/* Tensor parallelism splits a Mamba-2 mixer's heads and its B, C groups
 * (Megatron-Core's mamba_mixer.py asserts both divisible by tp): with 8
 * attention and KV heads tp=8 passes the attention's rules, and is refused
 * by 4 Mamba heads; 8 Mamba heads in 2 groups take tp=2 and refuse tp=4,
 * naming n_groups.  Nemotron 3 Nano (64 Mamba heads in 8 groups; 2 KV
 * heads, its limit) runs at tp=2. */
static void expect_tp_model(const pt_model *mp, int tp, const char *msg)
{
    pt_model m = *mp;
    pt_cluster c = th_cluster("dgx-h100", 8);
    pt_job j = th_job(64, 8, 1);
    pt_strategy st;
    unsigned set;
    pt_diag d;
    char s[32];
    snprintf(s, sizeof s, "tp=%d", tp);
    memset(&d, 0, sizeof d);
    assert_int_equal(pt_strategy_parse(s, &st, &set, &d), PT_OK);
    if (!msg) {
        if (pt_strategy_resolve(&st, set, &m, &c, &j, &d) != PT_OK) fail_msg("%s", d.msg);
        return;
    }
    assert_int_equal(pt_strategy_resolve(&st, set, &m, &c, &j, &d), PT_EINPUT);
    assert_string_equal(d.field, "tp");
    assert_string_equal(d.msg, msg);
}

static void expect_tp(const char *text, int tp, const char *msg)
{
    pt_model m = parse(text);
    expect_tp_model(&m, tp, msg);
}

#define TP_KEYS(mheads, groups)                                                                          \
    "{\"model_type\": \"nemotron_h\", \"hidden_size\": 128, \"num_attention_heads\": 8, "               \
    "\"num_key_value_heads\": 8, \"head_dim\": 16, \"intermediate_size\": 256, "                        \
    "\"mamba_num_heads\": " #mheads ", \"mamba_head_dim\": 16, \"n_groups\": " #groups ", "                \
    "\"conv_kernel\": 4, \"chunk_size\": 8, \"ssm_state_size\": 16, \"vocab_size\": 1024, "            \
    "\"max_position_embeddings\": 64, \"num_hidden_layers\": 4, \"hybrid_override_pattern\": \"M*-M\"}"

static void test_tp_rules(void **state)
{
    pt_model nano = th_model("nemotron-v3-nano-30b-a3b");
    (void)state;
    expect_tp(TP_KEYS(8, 8), 8, NULL);
    expect_tp(TP_KEYS(4, 4), 8, "tp=8 does not divide mamba_num_heads=4");
    expect_tp(TP_KEYS(8, 2), 2, NULL);
    expect_tp(TP_KEYS(8, 2), 4, "tp=4 does not divide n_groups=2");
    expect_tp_model(&nano, 2, NULL);
}

/* transformers' newer layers_block_type list reads as the pattern. */
static void test_layers_block_type(void **state)
{
    pt_model a = parse(SMALL);
    pt_model b = parse("{" SMALL_KEYS ", \"ssm_state_size\": 16, \"layers_block_type\": "
                       "[\"mamba\", \"attention\", \"mlp\", \"moe\"]}");
    (void)state;
    assert_string_equal(b.hybrid, "M*-E");
    assert_int_equal(pt_model_params(&a), pt_model_params(&b));
    /* and an MTP depth's blocks as mtp_layers_block_type lists them; none
     * given: attention and, with MoE blocks in the stack, MoE */
    b = parse("{" SMALL_KEYS ", \"ssm_state_size\": 16, \"hybrid_override_pattern\": \"M*-E\", "
              "\"num_nextn_predict_layers\": 2, \"mtp_layers_block_type\": [\"attention\", \"mlp\"]}");
    assert_int_equal(b.mtp_layers, 2);
    assert_string_equal(b.mtp_hybrid, "*-");
    b = parse("{" SMALL_KEYS ", \"ssm_state_size\": 16, \"hybrid_override_pattern\": \"M*-E\", "
              "\"num_nextn_predict_layers\": 1}");
    assert_string_equal(b.mtp_hybrid, "*E");
}

/* Serving prices attention and a KV cache in every layer: a hybrid model is
 * refused, naming it. */
static void test_serving_refused(void **state)
{
    pt_model m = parse(SMALL);
    pt_cluster c = th_cluster("dgx-h100", 8);
    pt_infer_cfg cfg;
    pt_diag d;
    (void)state;
    pt_infer_cfg_default(&cfg);
    assert_int_equal(pt_infer_check(&m, &c, &cfg, &d), PT_EINPUT);
    assert_string_equal(d.field, "model");
    assert_non_null(strstr(d.msg, "hybrid Mamba-2"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_params),     cmocka_unit_test(test_small_flops),
        cmocka_unit_test(test_time_counts_model_flops), cmocka_unit_test(test_stages_follow_blocks),
        cmocka_unit_test(test_nemotron3_nano),   cmocka_unit_test(test_nemotron3_super),
        cmocka_unit_test(test_nemotron3_ultra),
        cmocka_unit_test(test_refusals),         cmocka_unit_test(test_layers_block_type),
        cmocka_unit_test(test_serving_refused),  cmocka_unit_test(test_tp_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
