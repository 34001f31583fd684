/*
 * test_workload.c -- unit tests of src/workload: parameter counts against
 * published figures, the Hugging Face config reader (fixtures in tests/data/hf/,
 * run from the repository root), its error messages, and the built-in catalog.
 */
#include <math.h>

#include <jansson.h>

#include "helpers.h"
#include "base/catalog.h"

static pt_model load(const char *path)
{
    pt_model m;
    pt_diag d;
    memset(&m, 0, sizeof m);
    if (pt_model_load(path, &m, &d) != PT_OK) {
        char buf[1200];
        pt_diag_format(&d, buf, sizeof buf);
        fail_msg("%s", buf);
    }
    return m;
}

/* ---- parameter counts ------------------------------------------------------- */

/* GPT-3 175B as Megatron trains it (vocab 51200, s 2048): Narayanan et al.
 * SC'21 eq. P = 12lh^2 (1 + 13/(12h) + (V+s)/(12lh)) = 12lh^2 + 13lh + (V+s)h,
 * plus the final LayerNorm 2h; Table 2 of that paper says 174.6B. */
static void test_gpt3_175b(void **state)
{
    pt_model m = th_model("gpt3-175b");
    int64_t l = 96, h = 12288, V = 51200, s = 2048;
    int64_t want = 12 * l * h * h + 13 * l * h + (V + s) * h + 2 * h;
    (void)state;
    assert_int_equal(m.layers, l);
    assert_int_equal(m.hidden, h);
    assert_int_equal(m.heads, 96);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.ffn, 4 * h);
    assert_int_equal(pt_model_params(&m), want);
    assert_int_equal(want, INT64_C(174615846912));
    assert_int_equal(pt_model_layer_params(&m), 12 * h * h + 13 * h);
    assert_true(m.tied_embeddings && m.learned_pos && m.linear_bias && m.norm_bias);
    assert_true(m.dropout && !m.gated_mlp && m.act == PT_ACT_GELU);
    assert_string_equal(m.family, "gpt2");
}

/* Narayanan et al. SC'21 Table 1: the published sizes are this count rounded to
 * 0.1 billion (so gpt-1.7b is 1.652B, 2.8% below its label, and gpt-3.6b is
 * 3.562B, 1.1% below); every model of 5B or more is within 1%. */
static void test_narayanan_table1(void **state)
{
    static const struct {
        const char *name;
        double billions;
    } t[] = {
        {"gpt-1.7b", 1.7},     {"gpt-3.6b", 3.6},     {"gpt-7.5b", 7.5},
        {"gpt-18.4b", 18.4},   {"gpt-39.1b", 39.1},   {"gpt-76.1b", 76.1},
        {"gpt-145.6b", 145.6}, {"gpt-310.1b", 310.1}, {"gpt-529.6b", 529.6},
        {"gpt-1t", 1008.0},
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        pt_model m = th_model(t[i].name);
        double p = (double)pt_model_params(&m) / 1e9;
        char got[32], want[32];
        snprintf(got, sizeof got, "%.1f", p);
        snprintf(want, sizeof want, "%.1f", t[i].billions);
        if (strcmp(got, want) != 0) fail_msg("%s: %.4fB rounds to %s, not %s", t[i].name, p, got, want);
        if (t[i].billions >= 5.0 && (p / t[i].billions > 1.01 || p / t[i].billions < 0.99))
            fail_msg("%s: %.4fB is not within 1%% of %.1fB", t[i].name, p, t[i].billions);
    }
}

/* Korthikanti et al. 2022 Table 3: 22B and 530B (the same shape as Narayanan's
 * 529.6B). */
static void test_korthikanti(void **state)
{
    pt_model a = th_model("gpt-22b"), b = th_model("gpt-530b"), c = th_model("gpt-529.6b");
    double pa = (double)pt_model_params(&a) / 1e9;
    (void)state;
    assert_true(pa > 21.8 && pa < 22.3); /* 22.07B */
    assert_int_equal(pt_model_params(&b), pt_model_params(&c));
}

/* Exact counts Hugging Face reports for the released checkpoints. */
static void test_llama_exact(void **state)
{
    pt_model a = th_model("llama2-7b"), b = th_model("llama3-8b"), c = th_model("llama2-70b");
    (void)state;
    assert_int_equal(pt_model_params(&a), INT64_C(6738415616));
    assert_int_equal(pt_model_params(&b), INT64_C(8030261248));
    assert_int_equal(pt_model_params(&c), INT64_C(68976648192));
    /* hand derivation: 4h^2 + 3*h*ffn + 2h = 4*4096^2 + 3*4096*11008 + 8192 */
    assert_int_equal(pt_model_layer_params(&a), INT64_C(202383360));
    assert_true(a.gated_mlp && a.act == PT_ACT_SILU && !a.norm_bias && !a.tied_embeddings);
    assert_true(!a.linear_bias && !a.qkv_bias && !a.learned_pos && !a.dropout);
    assert_int_equal(b.kv_heads, 8);
    assert_int_equal(b.head_dim, 128);
    assert_string_equal(a.family, "llama");
}

static void test_other_builtins(void **state)
{
    pt_model m;
    (void)state;
    /* Llama-3.1-405B: explicit head_dim 128; hand derivation 405,853,388,800
     * (the "405B" of the Llama 3 paper). */
    m = th_model("llama3.1-405b");
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.max_seq, 131072);
    assert_int_equal(pt_model_params(&m), INT64_C(405853388800));
    /* Llama-3-70B: hand derivation 70,553,706,496 ("70B"). */
    m = th_model("llama3-70b");
    assert_int_equal(pt_model_params(&m), INT64_C(70553706496));
    /* Nemotron-4 15B (Parmar et al. 2024 sec. 2): 12.5B non-embedding, 3.2B
     * embedding parameters. */
    m = th_model("nemotron4-15b");
    assert_true(!m.gated_mlp && m.act == PT_ACT_RELU2 && m.norm_bias && !m.linear_bias);
    assert_true(!m.tied_embeddings);
    {
        double layers = (double)(m.layers * pt_model_layer_params(&m)) / 1e9;
        double emb = (double)(2 * m.vocab * m.hidden) / 1e9;
        assert_true(layers > 12.45 && layers < 12.55);
        assert_true(emb > 3.1 && emb < 3.2);
    }
    /* Nemotron-4 340B: hand derivation 341,029,195,776 (the report's "340B"). */
    m = th_model("nemotron4-340b");
    assert_int_equal(m.head_dim, 192);
    assert_int_equal(pt_model_params(&m), INT64_C(341029195776));
    /* MPT-7B shape with the benchmark vocab 50368: ALiBi (no learned
     * positions), no biases, tied: 32*(12h^2 + 2h) + V*h + h = 6,649,024,512. */
    m = th_model("mpt-7b");
    assert_int_equal(m.ffn, 16384);
    assert_true(!m.learned_pos && m.tied_embeddings && !m.linear_bias && !m.norm_bias);
    assert_true(!m.dropout && m.act == PT_ACT_GELU && !m.gated_mlp);
    assert_int_equal(pt_model_params(&m), INT64_C(6649024512));
    assert_string_equal(m.family, "mpt");
}

/* ---- Hugging Face config.json ------------------------------------------------ */

static void test_hf_llama3_8b(void **state)
{
    pt_model m = load("tests/data/hf/llama3-8b.json");
    (void)state;
    assert_string_equal(m.name, "tests/data/hf/llama3-8b.json");
    assert_string_equal(m.family, "llama");
    assert_int_equal(m.layers, 32);
    assert_int_equal(m.hidden, 4096);
    assert_int_equal(m.heads, 32);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.ffn, 14336);
    assert_int_equal(m.vocab, 128256);
    assert_int_equal(m.max_seq, 8192);
    assert_int_equal(pt_model_params(&m), INT64_C(8030261248)); /* Hugging Face's count */
}

/* gpt2 (small) as on the Hub: 124,439,808 parameters (Hugging Face's count). */
static void test_hf_gpt2(void **state)
{
    pt_model m = load("tests/data/hf/gpt2.json");
    (void)state;
    assert_string_equal(m.family, "gpt2");
    assert_int_equal(m.hidden, 768);
    assert_int_equal(m.ffn, 3072); /* n_inner absent: 4 * n_embd */
    assert_int_equal(m.max_seq, 1024);
    assert_int_equal(m.vocab, 50257);
    assert_true(m.tied_embeddings && m.learned_pos && m.linear_bias && m.norm_bias);
    assert_true(m.dropout && m.act == PT_ACT_GELU && !m.gated_mlp);
    assert_int_equal(pt_model_params(&m), INT64_C(124439808));
}

/* Qwen2-0.5B: q/k/v biases, tied embeddings, GQA 14/2.  Hand derivation:
 * 24*(896*(896+2*128) + 896*896 + 3*896*4864 + (14+2*2)*64 + 2*896)
 * + 151936*896 + 896 = 494,032,768 (the Qwen2 report's 0.49B). */
static void test_hf_qwen2(void **state)
{
    pt_model m = load("tests/data/hf/qwen2-0.5b.json");
    (void)state;
    assert_true(m.qkv_bias && !m.linear_bias && m.tied_embeddings && m.gated_mlp);
    assert_int_equal(m.head_dim, 64);
    assert_int_equal(m.kv_heads, 2);
    assert_int_equal(pt_model_params(&m), INT64_C(494032768));
}

/* Llama 4 Scout as the Hub ships it (the vision-language wrapper; its
 * text_config is read) and Maverick (the catalog's llama4_text config).
 * By hand, a layer: attention 5120 x 5120 (q, o) x 2 + 5120 x 1024 (k, v)
 * x 2 = 62,914,560, two RMSNorms 10,240; an expert or the shared expert 3 x
 * 5120 x 8192 = 125,829,120; the router 5120 x E; a dense layer's MLP 3 x
 * 5120 x 16384 = 251,658,240.  Embedding and output 2 x 202048 x 5120 =
 * 2,068,971,520, the final norm 5120.
 *   Scout, 48 MoE layers of 16 experts: 48 x (62,914,560 + 10,240 + 17 x
 *   125,829,120 + 81,920) + 2,068,976,640 = 107,769,861,120 (Meta: 109B
 *   with the vision encoder); active, the shared expert and one routed:
 *   48 x (62,924,800 + 2 x 125,829,120 + 81,920) + 2,068,976,640 =
 *   17,172,894,720 (Meta: 17B).
 *   Maverick, 24 MoE layers of 128 and 24 dense: 24 x (62,924,800 + 129 x
 *   125,829,120 + 655,360) + 24 x (62,924,800 + 251,658,240) + 2,068,976,640
 *   = 400,711,848,960 (Meta: 400B).
 * Chunked attention on 36 of the 48 layers: no_rope_layers [] means the
 * class default, all but every fourth layer. */
static void test_hf_llama4(void **state)
{
    pt_model m = load("tests/data/hf/llama4-scout.json");
    pt_diag d;
    int64_t act = INT64_C(17172894720);
    (void)state;
    assert_string_equal(m.family, "llama4");
    assert_int_equal(m.experts, 16);
    assert_int_equal(m.topk, 1);
    assert_int_equal(m.moe_ffn, 8192);
    assert_int_equal(m.shared_ffn, 8192);
    assert_int_equal(m.dense_layers, 0);
    assert_true(m.router_sigmoid && !m.tied_embeddings);
    assert_int_equal(m.window, 8192);
    assert_int_equal(m.window_layers, 36);
    assert_true(m.window_chunked);
    assert_true(m.rope_theta == 500000.0 && strcmp(m.rope_type, "llama3") == 0 && m.rope_factor == 16.0);
    assert_int_equal(pt_model_params(&m), INT64_C(107769861120));
    assert_int_equal(pt_model_active_params(&m), act);
    assert_int_equal(pt_model_builtin("llama4-maverick-17b-128e", &m, &d), PT_OK);
    assert_string_equal(m.family, "llama4_text");
    assert_int_equal(m.dense_layers, 24);
    assert_int_equal(m.ffn, 16384);
    assert_int_equal(pt_model_params(&m), INT64_C(400711848960));
    /* layer_types, where given, says which layers are chunked; moe_layers
     * which are MoE; a wrapper without its text model is refused */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"llama4_text\", \"hidden_size\": 64, \"intermediate_size\": 32, "
                                 "\"num_hidden_layers\": 3, \"num_attention_heads\": 4, \"head_dim\": 16, "
                                 "\"num_local_experts\": 4, \"vocab_size\": 100, \"max_position_embeddings\": 512, "
                                 "\"moe_layers\": [2], \"attention_chunk_size\": 64, "
                                 "\"layer_types\": [\"chunked_attention\", \"full_attention\", \"full_attention\"]}",
                                 NULL, &m, &d), PT_OK);
    assert_int_equal(m.window_layers, 1);
    assert_int_equal(m.window, 64);
    assert_int_equal(m.dense_layers, 2);
    assert_int_equal(pt_hf_parse("{\"model_type\": \"llama4\", \"vision_config\": {}}", "l4.json", &m, &d),
                     PT_EINPUT);
    assert_string_equal(d.field, "text_config");
    assert_int_equal(pt_hf_parse("{\"model_type\": \"llama4_text\", \"hidden_size\": 64, \"intermediate_size\": 32, "
                                 "\"num_hidden_layers\": 3, \"num_attention_heads\": 4, \"head_dim\": 16, "
                                 "\"num_local_experts\": 4, \"vocab_size\": 100, \"max_position_embeddings\": 512, "
                                 "\"moe_layers\": [3]}", "l4.json", &m, &d), PT_EINPUT);
    assert_string_equal(d.field, "moe_layers");
}

/* DeepSeek-V3.2 (model_type deepseek_v32): V3 plus an indexer a layer,
 * wq_b 1536 x 64 x 128 = 12,582,912, wk 7168 x 128 = 917,504, k_norm 256,
 * weights_proj 7168 x 64 = 458,752: 13,959,424, 61 of them 851,524,864
 * more than deepseek-v3; the index keys default to the release's values. */
static void test_hf_deepseek_v32(void **state)
{
    pt_model s = th_model("deepseek-v3.2"), v3 = th_model("deepseek-v3"), m;
    pt_diag d;
    (void)state;
    assert_int_equal(s.index_topk, 2048);
    assert_int_equal(s.index_heads, 64);
    assert_int_equal(s.index_head_dim, 128);
    assert_int_equal(pt_model_params(&s) - pt_model_params(&v3), INT64_C(851524864));
    assert_int_equal(pt_hf_parse("{\"model_type\": \"deepseek_v32\", \"hidden_size\": 256, \"intermediate_size\": 512, "
                                 "\"moe_intermediate_size\": 64, \"num_hidden_layers\": 4, \"num_attention_heads\": 4, "
                                 "\"n_routed_experts\": 8, \"n_group\": 1, \"topk_group\": 1, \"vocab_size\": 100, "
                                 "\"max_position_embeddings\": 4096, \"q_lora_rank\": 64, \"kv_lora_rank\": 32, "
                                 "\"qk_nope_head_dim\": 16, \"qk_rope_head_dim\": 8, \"v_head_dim\": 16}",
                                 NULL, &m, &d), PT_OK);
    assert_true(m.index_topk == 2048 && m.index_heads == 64 && m.index_head_dim == 128);
    assert_int_equal(pt_hf_parse("{\"model_type\": \"deepseek_v32\", \"hidden_size\": 256, \"intermediate_size\": 512, "
                                 "\"moe_intermediate_size\": 64, \"num_hidden_layers\": 4, \"num_attention_heads\": 4, "
                                 "\"n_routed_experts\": 8, \"n_group\": 1, \"topk_group\": 1, \"vocab_size\": 100, "
                                 "\"max_position_embeddings\": 4096, \"q_lora_rank\": 64, \"kv_lora_rank\": 32, "
                                 "\"qk_nope_head_dim\": 16, \"qk_rope_head_dim\": 8, \"v_head_dim\": 16, "
                                 "\"index_topk\": 0}", "v32.json", &m, &d), PT_EINPUT);
    assert_string_equal(d.field, "index_topk");
}

/* GLM-5 (glm_moe_dsa, transformers GlmMoeDsaConfig's defaults, which are
 * GLM-5's), by hand: a layer's MLA 12,582,912 + 2,048 + 33,554,432 +
 * 3,538,944 + 512 + 14,680,064 + 100,663,296 = 165,022,208, its indexer
 * (32 heads of 128) 8,388,608 + 786,432 + 256 + 196,608 = 9,371,904, norms
 * 12,288; 3 dense MLPs of 226,492,416; 75 MoE layers of 256 x 37,748,736
 * + 37,748,736 + 1,572,864 = 9,702,998,016; embeddings 1,903,165,440 and
 * the final norm: 743,911,199,232 (Z.ai's GLM-5 README: 744B). GLM-5.2's
 * indexer_types shares the indexer: 21 of 78 "full" layers run it. */
static void test_hf_glm_dsa(void **state)
{
    pt_model m = load("tests/data/hf/glm-5.json");
    pt_diag d;
    char cfg[2048];
    (void)state;
    assert_int_equal(pt_model_params(&m), INT64_C(743911199232));
    assert_true(m.index_topk == 2048 && m.index_heads == 32 && m.index_head_dim == 128);
    assert_int_equal(m.dense_layers, 3);
    assert_int_equal(m.index_layers, 0);
    assert_true(pt_model_index_share(&m) == 1.0);
    /* lists: 2 dense of 4 layers, 1 full indexer of 4 */
    snprintf(cfg, sizeof cfg, "{\"model_type\": \"glm_moe_dsa\", \"hidden_size\": 256, \"intermediate_size\": 512, "
             "\"moe_intermediate_size\": 64, \"num_hidden_layers\": 4, \"num_attention_heads\": 4, "
             "\"n_routed_experts\": 8, \"vocab_size\": 100, \"max_position_embeddings\": 4096, "
             "\"q_lora_rank\": 64, \"kv_lora_rank\": 32, \"qk_nope_head_dim\": 16, \"qk_rope_head_dim\": 8, "
             "\"v_head_dim\": 16, \"mlp_layer_types\": [\"dense\", \"dense\", \"sparse\", \"sparse\"], "
             "\"indexer_types\": [\"full\", \"shared\", \"shared\", \"shared\"]}");
    assert_int_equal(pt_hf_parse(cfg, NULL, &m, &d), PT_OK);
    assert_int_equal(m.dense_layers, 2);
    assert_int_equal(m.index_layers, 1);
    assert_true(pt_model_index_share(&m) == 0.25);
    assert_int_equal(pt_hf_parse("{\"model_type\": \"glm_moe_dsa\", \"hidden_size\": 256, \"intermediate_size\": 512, "
                                 "\"moe_intermediate_size\": 64, \"num_hidden_layers\": 4, \"num_attention_heads\": 4, "
                                 "\"n_routed_experts\": 8, \"vocab_size\": 100, \"max_position_embeddings\": 4096, "
                                 "\"q_lora_rank\": 64, \"kv_lora_rank\": 32, \"qk_nope_head_dim\": 16, "
                                 "\"qk_rope_head_dim\": 8, \"v_head_dim\": 16, \"indexer_types\": [\"full\", \"sometimes\", \"full\", \"full\"]}",
                                 "g.json", &m, &d), PT_EINPUT);
    assert_string_equal(d.field, "indexer_types");
}

/* The Qwen3 dense built-ins, by hand for Qwen3-8B: a layer's attention
 * 4096 x 4096 (q, o) x 2 + 4096 x 1024 (k, v) x 2 = 41,943,040, its MLP 3
 * x 4096 x 12288 = 150,994,944, two norms 8,192; 36 layers, the untied
 * embeddings 2 x 151936 x 4096 and the final norm: 8,190,726,144, Hugging
 * Face's 8,190,735,360 less the q/k norms (2 x 128 a layer) hf.c leaves
 * out.  Qwen3-32B's 64 heads of 128 are 8192 wide on a 5120 hidden size. */
static void test_catalog_qwen3_dense(void **state)
{
    pt_model m = th_model("qwen3-8b");
    (void)state;
    assert_int_equal(pt_model_params(&m), INT64_C(8190726144));
    assert_int_equal(pt_model_params(&m) + 36 * 256, INT64_C(8190735360));
    m = th_model("qwen3-32b");
    assert_true(m.head_dim == 128 && m.heads * m.head_dim == 8192 && m.hidden == 5120);
}

/* MiniMax-M2 (minimax_m2), by hand: a layer's attention 3072 x 6144 (q, o)
 * x 2 + 3072 x 1024 (k, v) x 2 = 44,040,192, norms 6,144, 256 experts of 3
 * x 3072 x 1536 = 14,155,776 each, the router 786,432: 3,668,711,424; 62
 * of them, the untied embeddings 2 x 200064 x 3072 and the final norm:
 * 228,689,304,576 (MiniMax: 230B); active, 8 experts: 11,030,092,800
 * (MiniMax: 10B without the embeddings, 9.80B here).  Rotary on 64 of 128
 * dims of a head; sigmoid routing with a bias. */
static void test_hf_minimax_m2(void **state)
{
    pt_model m = load("tests/data/hf/minimax-m2.json");
    (void)state;
    assert_int_equal(pt_model_params(&m), INT64_C(228689304576));
    assert_int_equal(pt_model_active_params(&m), INT64_C(11030092800));
    assert_true(m.rope_percent == 0.5 && m.rope_theta == 5e6);
    assert_true(m.router_sigmoid && m.router_expert_bias && m.shared_ffn == 0);
    assert_int_equal(m.moe_ffn, 1536);
    assert_int_equal(m.mtp_layers, 3);
}

/* Gemma 2 9B and Gemma 3 27B (the text model) as on the Hub: head_dim 256
 * and 128 (Gemma 2's 16 heads are 4096 wide on a 3584 hidden size), GeGLU,
 * tied embeddings, the sliding window on every other layer (Gemma 2: 21 of
 * 42) or five of every six (Gemma 3: 62 - 62/6 = 52).  Hand derivation
 * with two norms a layer (Partita's count; hf.c says what it leaves out):
 * Gemma 2: 42*(3584*(4096+2*2048) + 4096*3584 + 3*3584*14336 + 2*3584)
 * + 256000*3584 + 3584 = 9,241,404,928, Hugging Face's 9,241,705,984 less
 * the 2*3584*42 of the pre/post-feedforward norms; Gemma 3: 62*(5376*(4096
 * + 2*2048) + 4096*5376 + 3*5376*21504 + 2*5376) + 262208*5376 + 5376 =
 * 27,008,663,808. */
static void test_hf_gemma(void **state)
{
    pt_model m = load("tests/data/hf/gemma2-9b.json");
    pt_diag d;
    (void)state;
    assert_string_equal(m.family, "gemma2");
    assert_true(m.gated_mlp && m.act == PT_ACT_GELU && m.tied_embeddings && !m.qkv_bias && !m.norm_bias);
    assert_int_equal(m.head_dim, 256);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.window, 4096);
    assert_int_equal(m.window_layers, 21);
    assert_int_equal(pt_model_params(&m), INT64_C(9241404928));
    m = load("tests/data/hf/gemma3-27b-text.json");
    assert_string_equal(m.family, "gemma3_text");
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.window, 1024);
    assert_int_equal(m.window_layers, 52);
    assert_true(m.rope_theta == 1e6);
    assert_int_equal(pt_model_params(&m), INT64_C(27008663808));
    /* class defaults: Gemma3TextConfig's 256-wide heads, 4 kv heads, window
     * 4096 on 5 of every 6 layers, vocab 262208 */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"gemma3_text\", \"hidden_size\": 2304, "
                                 "\"intermediate_size\": 9216, \"num_hidden_layers\": 26, "
                                 "\"num_attention_heads\": 8}", NULL, &m, &d), PT_OK);
    assert_int_equal(m.head_dim, 256);
    assert_int_equal(m.kv_heads, 4);
    assert_int_equal(m.vocab, 262208);
    assert_int_equal(m.window, 4096);
    assert_int_equal(m.window_layers, 26 - 26 / 6);
    /* a layer_types list says which layers slide; sliding_window null: none */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"gemma2\", \"hidden_size\": 64, \"intermediate_size\": 128, "
                                 "\"num_hidden_layers\": 3, \"num_attention_heads\": 4, \"head_dim\": 16, "
                                 "\"layer_types\": [\"sliding_attention\", \"full_attention\", \"full_attention\"]}",
                                 NULL, &m, &d), PT_OK);
    assert_int_equal(m.window_layers, 1);
    assert_int_equal(pt_hf_parse("{\"model_type\": \"gemma2\", \"hidden_size\": 64, \"intermediate_size\": 128, "
                                 "\"num_hidden_layers\": 3, \"num_attention_heads\": 4, \"head_dim\": 16, "
                                 "\"sliding_window\": null}", NULL, &m, &d), PT_OK);
    assert_int_equal(m.window, 0);
    assert_int_equal(m.window_layers, 0);
    /* the vision-language config: its text_config is read (the vision
     * encoder is not priced), the same model as the text config alone */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"gemma3\", \"text_config\": {\"hidden_size\": 5376, "
                                 "\"intermediate_size\": 21504, \"num_hidden_layers\": 62, \"num_attention_heads\": 32, "
                                 "\"num_key_value_heads\": 16, \"head_dim\": 128, \"sliding_window\": 1024, "
                                 "\"rope_theta\": 1000000}}", "g.json", &m, &d), PT_OK);
    assert_string_equal(m.family, "gemma3_text");
    assert_int_equal(pt_model_params(&m), INT64_C(27008663808));
    /* Kimi K2.5's wrapper: a kimi_k2 (DeepSeek-V3) text model, Kimi K2's shape */
    {
        pt_model k2 = th_model("kimi-k2");
        assert_int_equal(pt_hf_parse("{\"model_type\": \"kimi_k25\", \"tie_word_embeddings\": false, \"text_config\": "
                                     "{\"model_type\": \"kimi_k2\", \"hidden_size\": 7168, \"intermediate_size\": 18432, "
                                     "\"moe_intermediate_size\": 2048, \"num_hidden_layers\": 61, \"num_attention_heads\": 64, "
                                     "\"num_key_value_heads\": 64, \"n_routed_experts\": 384, \"n_shared_experts\": 1, "
                                     "\"num_experts_per_tok\": 8, \"first_k_dense_replace\": 1, \"q_lora_rank\": 1536, "
                                     "\"kv_lora_rank\": 512, \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, "
                                     "\"v_head_dim\": 128, \"n_group\": 1, \"topk_group\": 1, \"vocab_size\": 163840, "
                                     "\"max_position_embeddings\": 262144}}", "k.json", &m, &d), PT_OK);
        assert_int_equal(pt_model_params(&m), pt_model_params(&k2));
    }
}

/* Phi-3-mini-4k as on the Hub: llama's shape with fused projections, untied
 * embeddings and a 2047-token window on every layer.  Hand derivation:
 * 32*(4*3072^2 + 3*3072*8192 + 2*3072) + 2*32064*3072 + 3072 =
 * 3,821,079,552, Hugging Face's count.  The 128k variant's longrope scaling
 * (lists of factors, no single factor) is read as its type. */
static void test_hf_phi3(void **state)
{
    pt_model m = load("tests/data/hf/phi3-mini-4k.json");
    pt_diag d;
    (void)state;
    assert_string_equal(m.family, "phi3");
    assert_true(m.gated_mlp && m.act == PT_ACT_SILU && !m.tied_embeddings);
    assert_int_equal(m.window, 2047);
    assert_int_equal(m.window_layers, 32);
    assert_int_equal(pt_model_params(&m), INT64_C(3821079552));
    assert_int_equal(pt_hf_parse("{\"model_type\": \"phi3\", \"hidden_size\": 3072, \"intermediate_size\": 8192, "
                                 "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"vocab_size\": 32064, "
                                 "\"max_position_embeddings\": 131072, \"sliding_window\": null, "
                                 "\"rope_scaling\": {\"type\": \"longrope\", \"short_factor\": [1.0, 1.1], "
                                 "\"long_factor\": [1.2, 1.3]}, \"original_max_position_embeddings\": 4096}",
                                 NULL, &m, &d), PT_OK);
    assert_string_equal(m.rope_type, "longrope");
    assert_int_equal(m.window_layers, 0); /* Phi3Config: no window by default */
}

/* GLM-4.5-Air (zai-org's config.json): DeepSeek-V3's mixture on llama's
 * attention.  Hand derivation: attention 4096*12288 + 12288 + 2*(4096*1024
 * + 1024) + 12288*4096 = 109,066,240 (q/k/v biases, none on o_proj), norms
 * 2*4096; the dense layer's MLP 3*4096*10944; a MoE layer's 128 experts and
 * one shared of 3*4096*1408 each plus the 128*4096 router = 2,232,418,304;
 * 1 dense + 45 MoE layers + 2*151552*4096 + 4096 = 106,852,245,504, the
 * count LLaMA-Factory's GLM-4.5-Air checks (EXPECTED_LOGICAL_PARAMETERS);
 * the multi-token-prediction layer is not in it, nor in Partita's. */
static void test_hf_glm4_moe(void **state)
{
    pt_model m = load("tests/data/hf/glm4.5-air.json");
    (void)state;
    assert_string_equal(m.family, "glm4_moe");
    assert_true(m.qkv_bias && !m.linear_bias && !m.tied_embeddings && m.gated_mlp && !m.mla);
    assert_int_equal(m.experts, 128);
    assert_int_equal(m.topk, 8);
    assert_int_equal(m.moe_ffn, 1408);
    assert_int_equal(m.shared_ffn, 1408);
    assert_int_equal(m.dense_layers, 1);
    assert_int_equal(m.mtp_layers, 1);
    assert_true(m.router_sigmoid && m.router_expert_bias && !m.router_pre_softmax);
    assert_true(m.router_topk_scale == 0.0 && m.router_groups == 0); /* factor 1.0, one group */
    assert_true(m.rope_percent == 0.5 && m.rope_theta == 1e6);
    assert_int_equal(pt_model_params(&m), INT64_C(106852245504));
}

/* A Nemotron config (Minitron-4B shape): squared-ReLU ungated MLP, LayerNorm
 * with bias.  Hand derivation: 32*(3072*(3072+2*1024) + 3072*3072
 * + 2*3072*9216 + 4*3072) + 2*256000*3072 + 2*3072 = 4,190,509,056. */
static void test_hf_nemotron(void **state)
{
    pt_model m = load("tests/data/hf/nemotron-4b.json");
    (void)state;
    assert_true(!m.gated_mlp && m.act == PT_ACT_RELU2 && m.norm_bias && !m.linear_bias);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(pt_model_params(&m), INT64_C(4190509056));
}

/* Pythia-160M (gpt_neox): the Pythia model card lists 162,322,944 parameters
 * (85,056,000 non-embedding). */
static void test_hf_pythia(void **state)
{
    pt_model m = load("tests/data/hf/pythia-160m.json");
    (void)state;
    assert_true(m.linear_bias && m.norm_bias && !m.learned_pos && !m.tied_embeddings);
    assert_true(!m.dropout && m.act == PT_ACT_GELU);
    assert_true(m.rope_percent == 0.25); /* rotary_pct: a quarter of each head rotated */
    assert_int_equal(pt_model_params(&m), INT64_C(162322944));
    assert_int_equal(m.layers * pt_model_layer_params(&m) + 2 * m.hidden, INT64_C(85056000));
}

static void test_hf_defaults(void **state)
{
    pt_model m;
    pt_diag d;
    (void)state;
    /* qwen3-style explicit head_dim that differs from hidden/heads; unknown keys
     * (rope_scaling, nested objects) are ignored; name defaults to config.json. */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"qwen3\", \"hidden_size\": 4096,"
                                 " \"intermediate_size\": 12288, \"num_hidden_layers\": 36,"
                                 " \"num_attention_heads\": 64, \"num_key_value_heads\": 4,"
                                 " \"head_dim\": 128, \"vocab_size\": 151936,"
                                 " \"max_position_embeddings\": 40960,"
                                 " \"rope_scaling\": {\"type\": \"yarn\"}, \"foo\": [1, 2]}",
                                 NULL, &m, &d),
                     PT_OK);
    assert_string_equal(m.name, "config.json");
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.kv_heads, 4);
    assert_true(!m.tied_embeddings && !m.qkv_bias && m.act == PT_ACT_SILU);
    assert_int_equal(pt_model_check(&m, &d), PT_OK);
    /* mistral: head_dim null and no num_key_value_heads -> hidden/heads, heads. */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"mistral\", \"hidden_size\": 4096,"
                                 " \"intermediate_size\": 14336, \"num_hidden_layers\": 32,"
                                 " \"num_attention_heads\": 32, \"head_dim\": null,"
                                 " \"vocab_size\": 32000, \"max_position_embeddings\": 32768,"
                                 " \"attention_dropout\": 0.1}",
                                 "m.json", &m, &d),
                     PT_OK);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.kv_heads, 32);
    assert_true(m.dropout);
    /* llama attention_bias + mlp_bias: biases on every linear layer. */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"llama\", \"hidden_size\": 64,"
                                 " \"intermediate_size\": 128, \"num_hidden_layers\": 2,"
                                 " \"num_attention_heads\": 4, \"vocab_size\": 100,"
                                 " \"max_position_embeddings\": 32, \"attention_bias\": true,"
                                 " \"mlp_bias\": true, \"tie_word_embeddings\": true}",
                                 "b.json", &m, &d),
                     PT_OK);
    assert_true(m.linear_bias && m.qkv_bias && m.tied_embeddings);
    /* 2*(4*64*64 + 3*64*128 + (3*64 + 64 + 2*128 + 64) + 2*64) + 100*64 + 64 */
    assert_int_equal(pt_model_params(&m), INT64_C(89792));
    /* mpt with grouped-query attention and learned positions, gpt2 defaults. */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"mpt\", \"d_model\": 256, \"n_heads\": 8,"
                                 " \"n_layers\": 2, \"expansion_ratio\": 2.5,"
                                 " \"max_seq_len\": 128, \"vocab_size\": 1000,"
                                 " \"attn_config\": {\"attn_type\": \"grouped_query_attention\","
                                 " \"kv_n_heads\": 2}}",
                                 "mpt.json", &m, &d),
                     PT_OK);
    assert_int_equal(m.ffn, 640);
    assert_int_equal(m.kv_heads, 2);
    assert_true(m.learned_pos && m.tied_embeddings && !m.linear_bias && !m.dropout);
    assert_int_equal(pt_hf_parse("{\"model_type\": \"gpt2\", \"n_embd\": 64, \"n_layer\": 2,"
                                 " \"n_head\": 4, \"n_inner\": null, \"n_ctx\": 128,"
                                 " \"vocab_size\": 100}",
                                 "g.json", &m, &d),
                     PT_OK);
    assert_int_equal(m.ffn, 256);
    assert_int_equal(m.max_seq, 128);
    assert_true(m.dropout && m.tied_embeddings); /* pdrop defaults 0.1 */
}

/* ---- bad input ----------------------------------------------------------------- */

#define LLAMA_REST                                                                \
    "  \"intermediate_size\": 11008,\n  \"num_hidden_layers\": 32,\n"             \
    "  \"vocab_size\": 32000,\n  \"max_position_embeddings\": 4096\n"

static void test_hf_errors(void **state)
{
    static const struct {
        const char *what, *text, *field, *msg;
        int line; /* 0: the key is not in the text */
    } t[] = {
        {"missing hidden_size",
         "{\n  \"model_type\": \"llama\",\n  \"num_attention_heads\": 32,\n" LLAMA_REST "}\n",
         "hidden_size", "hidden_size: required key is missing", 0},
        {"heads do not divide hidden",
         "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,\n"
         "  \"num_attention_heads\": 48,\n" LLAMA_REST "}\n",
         "num_attention_heads", "num_attention_heads: 48 does not divide hidden_size=4096", 4},
        {"kv heads do not divide heads",
         "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,\n"
         "  \"num_attention_heads\": 32,\n  \"num_key_value_heads\": 5,\n" LLAMA_REST "}\n",
         "num_key_value_heads", "num_key_value_heads: 5 does not divide num_attention_heads=32",
         5},
        {"string for a number",
         "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,\n"
         "  \"num_attention_heads\": 32,\n  \"intermediate_size\": 11008,\n"
         "  \"num_hidden_layers\": \"32\",\n  \"vocab_size\": 32000,\n"
         "  \"max_position_embeddings\": 4096\n}\n",
         "num_hidden_layers", "num_hidden_layers: \"32\" is not a whole number", 6},
        {"zero vocab",
         "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,\n"
         "  \"num_attention_heads\": 32,\n  \"intermediate_size\": 11008,\n"
         "  \"num_hidden_layers\": 32,\n  \"vocab_size\": 0,\n"
         "  \"max_position_embeddings\": 4096\n}\n",
         "vocab_size", "vocab_size: 0 is not > 0", 7},
        {"unknown model_type", "{\n  \"model_type\": \"bert\",\n  \"hidden_size\": 768\n}\n",
         "model_type", "model_type: \"bert\" is not a supported model_type (supported: llama,", 2},
        {"missing model_type", "{\n  \"hidden_size\": 768\n}\n", "model_type",
         "model_type: required key is missing", 0},
        {"MoE model_type without an expert count",
         "{\n  \"architectures\": [\"MixtralForCausalLM\"],\n  \"model_type\": \"mixtral\",\n"
         "  \"hidden_size\": 4096,\n  \"num_attention_heads\": 32,\n" LLAMA_REST "}\n",
         "num_local_experts", "num_local_experts: required key is missing (the expert count", 0},
        {"MoE by expert count on a dense model_type",
         "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,\n"
         "  \"num_attention_heads\": 32,\n  \"num_local_experts\": 8,\n" LLAMA_REST "}\n",
         "num_local_experts",
         "num_local_experts 8: model_type \"llama\" is a dense model; a config with experts names its "
         "MoE model_type", 5},
        {"MoE model_type not supported",
         "{\n  \"model_type\": \"dbrx\",\n  \"d_model\": 6144\n}\n", "model_type",
         "model_type \"dbrx\": this model type is not supported yet (mixture-of-experts model types: "
         "mixtral,", 2},
        {"gpt2 heads", "{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_layer\": 2,\n"
                       " \"n_head\": 5, \"n_positions\": 64, \"vocab_size\": 10}",
         "n_head", "n_head: 5 does not divide n_embd=768", 2},
        {"bad activation",
         "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,\n"
         "  \"num_attention_heads\": 32,\n  \"hidden_act\": \"tanh\",\n" LLAMA_REST "}\n",
         "hidden_act", "hidden_act: \"tanh\" is not a supported activation", 5},
        {"mpt expansion ratio",
         "{\"model_type\": \"mpt\", \"d_model\": 256, \"n_heads\": 8, \"n_layers\": 2,\n"
         " \"expansion_ratio\": 0, \"max_seq_len\": 128, \"vocab_size\": 1000}",
         "expansion_ratio", "expansion_ratio: 0 times d_model=256", 2},
        {"mpt kv heads",
         "{\"model_type\": \"mpt\", \"d_model\": 256, \"n_heads\": 8, \"n_layers\": 2,\n"
         " \"max_seq_len\": 128, \"vocab_size\": 1000, \"attn_config\":\n"
         "  {\"attn_type\": \"grouped_query_attention\", \"kv_n_heads\": 3}}",
         "attn_config.kv_n_heads", "attn_config.kv_n_heads: 3 does not divide n_heads=8", 3},
        {"dropout out of range",
         "{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_layer\": 2, \"n_head\": 12,\n"
         " \"n_positions\": 64, \"vocab_size\": 10, \"resid_pdrop\": 1.5}",
         "resid_pdrop", "resid_pdrop: 1.5 is not a probability in [0, 1]", 2},
        {"negative rope base",
         "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,\n"
         "  \"num_attention_heads\": 32,\n  \"rope_theta\": -1,\n" LLAMA_REST "}\n",
         "rope_theta", "rope_theta: -1 is not a number in (0, 1e12]", 5},
        {"rope scaling without a type",
         "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,\n"
         "  \"num_attention_heads\": 32,\n  \"rope_scaling\": {\"factor\": 8},\n" LLAMA_REST "}\n",
         "rope_scaling", "rope_scaling: {\"factor\":8} has no rope_type (or type)", 5},
        {"rope scaling factor zero",
         "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,\n"
         "  \"num_attention_heads\": 32,\n  \"rope_scaling\": {\"rope_type\": \"llama3\",\n"
         "    \"factor\": 0},\n" LLAMA_REST "}\n",
         "rope_scaling.factor", "rope_scaling.factor: 0 is not a number in (0, 1e12]", 6},
        {"unknown router score",
         "{\n  \"model_type\": \"qwen3_moe\",\n  \"hidden_size\": 4096,\n"
         "  \"num_attention_heads\": 32,\n  \"num_experts\": 8,\n  \"moe_intermediate_size\": 512,\n"
         "  \"scoring_func\": \"tanh\",\n" LLAMA_REST "}\n",
         "scoring_func", "scoring_func: \"tanh\" is not \"softmax\" or \"sigmoid\"", 7},
        {"window on a null window",
         "{\n  \"model_type\": \"qwen2\",\n  \"hidden_size\": 64,\n  \"intermediate_size\": 128,\n"
         "  \"num_hidden_layers\": 2,\n  \"num_attention_heads\": 4,\n  \"vocab_size\": 100,\n"
         "  \"max_position_embeddings\": 32,\n  \"sliding_window\": null,\n"
         "  \"layer_types\": [\"sliding_attention\", \"full_attention\"]\n}\n",
         "layer_types", "layer_types: [\"sliding_attention\",\"full_attention\"] names sliding_attention", 10},
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        pt_model m;
        pt_diag d;
        pt_status st;
        memset(&m, 0x5a, sizeof m);
        st = pt_hf_parse(t[i].text, "bad.json", &m, &d);
        if (st != PT_EINPUT) fail_msg("%s: status %d", t[i].what, (int)st);
        if (strcmp(d.field, t[i].field) != 0)
            fail_msg("%s: field \"%s\", want \"%s\" (%s)", t[i].what, d.field, t[i].field, d.msg);
        if (strncmp(d.msg, t[i].msg, strlen(t[i].msg)) != 0)
            fail_msg("%s: message \"%s\", want \"%s...\"", t[i].what, d.msg, t[i].msg);
        if (d.line != t[i].line)
            fail_msg("%s: line %d, want %d (%s)", t[i].what, d.line, t[i].line, d.msg);
        if (t[i].line > 0 && d.col <= 0) fail_msg("%s: no column", t[i].what);
        assert_string_equal(d.file, "bad.json");
        assert_int_equal(((unsigned char *)&m)[0], 0x5a); /* *out untouched */
    }
}

static void test_hf_syntax_error(void **state)
{
    pt_model m;
    pt_diag d;
    char buf[1200];
    (void)state;
    /* a trailing comma on line 3 */
    assert_int_equal(pt_hf_parse("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,\n}\n",
                                 "syntax.json", &m, &d),
                     PT_EINPUT);
    assert_true(d.line >= 3);
    assert_true(d.col > 0);
    assert_non_null(strstr(d.msg, "invalid JSON"));
    pt_diag_format(&d, buf, sizeof buf);
    assert_true(strncmp(buf, "syntax.json:", 12) == 0);
    /* not an object */
    assert_int_equal(pt_hf_parse("[1, 2]", "a.json", &m, &d), PT_EINPUT);
    assert_int_equal(d.line, 1);
}

/* ---- pt_model_check ---------------------------------------------------------------- */

/* Rotary, sliding-window and router settings as the configs give them
 * (transformers' configuration classes for the defaults: LlamaConfig rope
 * base 10000, MixtralConfig 1e6, MistralConfig sliding_window 4096 on every
 * layer, Qwen2Config use_sliding_window false and max_window_layers 28,
 * DeepseekV3Config sigmoid / noaux_tc / 2.5 / norm_topk_prob true). */
static void test_hf_rope_window_router(void **state)
{
    pt_model m;
    pt_diag d;
    (void)state;
    /* built-ins: Llama 3.1's base and llama3 scaling, DeepSeek-V3's router and yarn */
    m = th_model("llama3.1-405b");
    assert_true(m.rope_theta == 500000.0);
    assert_string_equal(m.rope_type, "llama3");
    assert_true(m.rope_factor == 8.0 && m.rope_low_freq == 1.0 && m.rope_high_freq == 4.0);
    assert_int_equal(m.rope_orig_max, 8192);
    m = th_model("llama2-7b");
    assert_true(m.rope_theta == 10000.0);
    assert_string_equal(m.rope_type, "");
    m = th_model("mixtral-8x7b");
    assert_true(m.rope_theta == 1e6);
    assert_true(!m.router_sigmoid && !m.router_expert_bias && !m.router_pre_softmax);
    m = th_model("deepseek-v3");
    assert_true(m.router_sigmoid && m.router_expert_bias && !m.router_pre_softmax);
    assert_true(m.router_topk_scale == 2.5);
    assert_int_equal(m.router_groups, 8);
    assert_int_equal(m.router_group_topk, 4);
    assert_string_equal(m.rope_type, "yarn");
    assert_true(m.rope_factor == 40.0 && m.rope_mscale == 1.0 && m.rope_mscale_all_dim == 1.0);
    assert_int_equal(m.rope_orig_max, 4096);
    m = th_model("qwen3-235b-a22b");
    assert_true(m.rope_theta == 1e6 && !m.router_pre_softmax);
    /* newer transformers: rope_parameters holds the base and the scaling */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128,"
                                 " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 100,"
                                 " \"max_position_embeddings\": 32, \"rope_parameters\": {\"rope_theta\": 1e6,"
                                 " \"rope_type\": \"linear\", \"factor\": 4}}", "p.json", &m, &d), PT_OK);
    assert_true(m.rope_theta == 1e6 && m.rope_factor == 4.0);
    assert_string_equal(m.rope_type, "linear");
    /* "default" is no scaling */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128,"
                                 " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 100,"
                                 " \"max_position_embeddings\": 32, \"rope_scaling\": {\"rope_type\": \"default\"}}",
                                 "q.json", &m, &d), PT_OK);
    assert_string_equal(m.rope_type, "");
    /* Mistral: 4096 by default on every layer, null for none, or as given */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"mistral\", \"hidden_size\": 64, \"intermediate_size\": 128,"
                                 " \"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"vocab_size\": 100,"
                                 " \"max_position_embeddings\": 32768}", "m.json", &m, &d), PT_OK);
    assert_int_equal(m.window, 4096);
    assert_int_equal(m.window_layers, 4);
    assert_int_equal(pt_hf_parse("{\"model_type\": \"mistral\", \"hidden_size\": 64, \"intermediate_size\": 128,"
                                 " \"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"vocab_size\": 100,"
                                 " \"max_position_embeddings\": 32768, \"sliding_window\": null}", "m.json", &m, &d),
                     PT_OK);
    assert_int_equal(m.window, 0);
    assert_int_equal(m.window_layers, 0);
    /* Qwen2: off unless use_sliding_window; then the layers from max_window_layers */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"qwen2\", \"hidden_size\": 64, \"intermediate_size\": 128,"
                                 " \"num_hidden_layers\": 24, \"num_attention_heads\": 4, \"vocab_size\": 100,"
                                 " \"max_position_embeddings\": 32768, \"sliding_window\": 4096,"
                                 " \"max_window_layers\": 20}", "w.json", &m, &d), PT_OK);
    assert_int_equal(m.window_layers, 0);
    assert_int_equal(pt_hf_parse("{\"model_type\": \"qwen2\", \"hidden_size\": 64, \"intermediate_size\": 128,"
                                 " \"num_hidden_layers\": 24, \"num_attention_heads\": 4, \"vocab_size\": 100,"
                                 " \"max_position_embeddings\": 32768, \"use_sliding_window\": true,"
                                 " \"sliding_window\": 2048, \"max_window_layers\": 20}", "w.json", &m, &d), PT_OK);
    assert_int_equal(m.window, 2048);
    assert_int_equal(m.window_layers, 4);
    /* DeepSeek-V2 (its config.json): softmax, group-limited greedy, x16, top-k not renormalised */
    assert_int_equal(pt_hf_parse("{\"model_type\": \"deepseek_v2\", \"hidden_size\": 5120, \"intermediate_size\": 12288,"
                                 " \"moe_intermediate_size\": 1536, \"num_hidden_layers\": 60, \"num_attention_heads\": 128,"
                                 " \"n_routed_experts\": 160, \"n_shared_experts\": 2, \"num_experts_per_tok\": 6,"
                                 " \"first_k_dense_replace\": 1, \"n_group\": 8, \"topk_group\": 3,"
                                 " \"q_lora_rank\": 1536, \"kv_lora_rank\": 512, \"qk_nope_head_dim\": 128,"
                                 " \"qk_rope_head_dim\": 64, \"v_head_dim\": 128, \"vocab_size\": 102400,"
                                 " \"max_position_embeddings\": 163840, \"norm_topk_prob\": false,"
                                 " \"routed_scaling_factor\": 16.0, \"scoring_func\": \"softmax\","
                                 " \"topk_method\": \"group_limited_greedy\","
                                 " \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 40, \"mscale\": 0.707,"
                                 " \"mscale_all_dim\": 0.707, \"original_max_position_embeddings\": 4096}}",
                                 "v2.json", &m, &d), PT_OK);
    assert_true(!m.router_sigmoid && !m.router_expert_bias && m.router_pre_softmax);
    assert_true(m.router_topk_scale == 16.0);
    assert_int_equal(m.router_groups, 8);
    assert_int_equal(m.router_group_topk, 3);
    assert_true(m.rope_mscale == 0.707);
}

static void test_model_check(void **state)
{
    pt_model m = th_model("llama2-7b");
    pt_diag d;
    (void)state;
    assert_int_equal(pt_model_check(&m, &d), PT_OK);
    m.kv_heads = 3;
    assert_int_equal(pt_model_check(&m, &d), PT_EINPUT);
    assert_string_equal(d.field, "num_key_value_heads");
    assert_string_equal(d.value, "3");
    assert_string_equal(d.msg, "num_key_value_heads: 3 does not divide num_attention_heads=32");
    m = th_model("llama2-7b");
    m.heads = m.kv_heads = 48;
    m.head_dim = 4096 / 48; /* the default rule on an impossible shape */
    assert_int_equal(pt_model_check(&m, &d), PT_EINPUT);
    assert_string_equal(d.msg, "num_attention_heads: 48 does not divide hidden_size=4096");
    m.head_dim = 128; /* an explicit head_dim is fine */
    assert_int_equal(pt_model_check(&m, &d), PT_OK);
    m = th_model("llama2-7b");
    m.layers = 0;
    assert_int_equal(pt_model_check(&m, &d), PT_EINPUT);
    assert_string_equal(d.msg, "num_hidden_layers: 0 is not > 0");
    m = th_model("llama2-7b");
    m.vocab = -5;
    assert_int_equal(pt_model_check(&m, &d), PT_EINPUT);
    assert_string_equal(d.field, "vocab_size");
    /* too big to count in int64: refused, and the count says so (-1) */
    m = th_model("llama2-7b");
    m.layers = m.hidden = m.ffn = INT64_C(1) << 30;
    assert_int_equal(pt_model_check(&m, &d), PT_EINPUT);
    assert_int_equal(pt_model_params(&m), -1);
    m.layers = 1000000;
    m.hidden = m.ffn = 1 << 20;
    m.heads = m.kv_heads = 1 << 13;
    assert_int_equal(pt_model_check(&m, &d), PT_EINPUT);
    assert_non_null(strstr(d.msg, "parameters"));
}

/* ---- catalog ------------------------------------------------------------------------- */

/* The names table in model.c and data/models.json list the same models in the
 * same order, and every one loads and passes pt_model_check. */
/* Total and active parameters of MoE models read from their Hub config.json
 * (tests/data/hf: the Hub files' keys, values as in the copies named in
 * docs/reference/engines-and-formats.md section e), against the model
 * cards, within 1%:
 *   Mixtral 8x7B (Jiang et al. 2024, "Mixtral of Experts"): 46.7B total,
 *     12.9B active.  Partita: 46,702,792,704 and 12,879,921,152 (both
 *     embedding matrices, 2 x 131M, counted in both).
 *   Qwen3-30B-A3B (Qwen3 model card): 30.5B total, 3.3B activated.  Partita
 *     30.53B and 3.35B; the card's 3.3B is rounded down, and Partita leaves
 *     out q_norm/k_norm (256 per layer).
 *   DeepSeek-V3 (model card / technical report): 671B total, 37B activated,
 *     without the multi-token-prediction module (the Hub's 685B = 671B + 14B
 *     MTP).  Partita 671.03B and 37.55B: 1.5% over 37B because Partita counts
 *     the input embedding (0.93B) as active too; without it 36.6B (1.0% under).
 * Hand check of one DeepSeek-V3 MoE layer: MLA 187.1M (q_a 7168*1536, q_b
 * 1536*128*192, kv_a 7168*576, kv_b 512*128*256, o 128*128*7168, norms),
 * 256 experts x 3*7168*2048, shared 3*7168*2048, router 256*7168. */
static void test_moe_params(void **state)
{
    static const struct {
        const char *path;
        double total, active, tol;
        int64_t experts, topk, moe_ffn, dense;
    } t[] = {
        {"tests/data/hf/mixtral-8x7b.json", 46.7e9, 12.9e9, 0.01, 8, 2, 14336, 0},
        {"tests/data/hf/qwen3-30b-a3b.json", 30.5e9, 3.3e9, 0.02, 128, 8, 768, 0},
        {"tests/data/hf/deepseek-v3.json", 671e9, 37e9, 0.02, 256, 8, 2048, 3},
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        pt_model m = load(t[i].path);
        double tot = (double)pt_model_params(&m), act = (double)pt_model_active_params(&m);
        if (fabs(tot / t[i].total - 1.0) > t[i].tol || fabs(act / t[i].active - 1.0) > t[i].tol)
            fail_msg("%s: %.3fB total, %.3fB active; model card %.1fB / %.1fB", t[i].path, tot / 1e9,
                     act / 1e9, t[i].total / 1e9, t[i].active / 1e9);
        assert_int_equal(m.experts, t[i].experts);
        assert_int_equal(m.topk, t[i].topk);
        assert_int_equal(m.moe_ffn, t[i].moe_ffn);
        assert_int_equal(m.dense_layers, t[i].dense);
    }
    {
        pt_model m = load("tests/data/hf/mixtral-8x7b.json");
        assert_int_equal(pt_model_params(&m), 46702792704LL);
        assert_int_equal(pt_model_active_params(&m), 12879925248LL);
    }
    {
        /* DeepSeek-V3's MLA and layer split; the MTP module is not counted */
        pt_model m = load("tests/data/hf/deepseek-v3.json");
        assert_int_equal(m.mla, 1);
        assert_int_equal(m.mtp_layers, 1);
        assert_int_equal(m.shared_ffn, 2048);
        assert_int_equal(pt_model_attn_params(&m),
                         7168LL * 1536 + 1536 + 1536LL * 128 * 192 + 7168LL * 576 + 512 +
                             512LL * 128 * 256 + 128LL * 128 * 7168 + 2 * 7168);
        assert_int_equal(pt_model_expert_params(&m), 256LL * 3 * 7168 * 2048);
        assert_int_equal(pt_model_moe_layers(&m), 58);
    }
    {
        /* the built-ins: the other model cards (Mixtral 8x22B 141B / 39B;
         * Qwen3-235B-A22B 235B / 22B; gpt-oss-120b 116.8B / 5.1B, the card
         * counting one of its two 0.58B embedding matrices) */
        static const struct {
            const char *name;
            double total, active, tol;
        } b[] = {
            {"mixtral-8x22b", 141e9, 39e9, 0.01},     {"qwen3-235b-a22b", 235e9, 22e9, 0.01},
            {"gpt-oss-120b", 116.8e9, 5.1e9 + 0.58e9, 0.01}, {"deepseek-v3", 671e9, 37e9, 0.02},
            {"mixtral-8x7b", 46.7e9, 12.9e9, 0.01},   {"qwen3-30b-a3b", 30.5e9, 3.3e9, 0.02},
        };
        for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
            pt_model m = th_model(b[i].name);
            double tot, act;
            tot = (double)pt_model_params(&m);
            act = (double)pt_model_active_params(&m);
            if (fabs(tot / b[i].total - 1.0) > b[i].tol || fabs(act / b[i].active - 1.0) > b[i].tol)
                fail_msg("%s: %.3fB total, %.3fB active; model card %.1fB / %.2fB", b[i].name,
                         tot / 1e9, act / 1e9, b[i].total / 1e9, b[i].active / 1e9);
        }
    }
    {
        /* the SimAI Hub copy's spelling of the DeepSeek expert keys */
        pt_model m;
        pt_diag d;
        const char *cfg =
            "{\"model_type\": \"deepseek_v3\", \"hidden_size\": 7168, \"intermediate_size\": 18432, "
            "\"moe_intermediate_size\": 2048, \"num_hidden_layers\": 61, \"num_attention_heads\": 128, "
            "\"num_routed_experts\": 256, \"num_shared_experts\": 1, \"num_experts_per_tok\": 8, "
            "\"first_k_dense_replace\": 3, \"q_lora_rank\": 1536, \"kv_lora_rank\": 512, "
            "\"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, \"v_head_dim\": 128, "
            "\"vocab_size\": 129280, \"max_position_embeddings\": 163840}";
        pt_model ref = load("tests/data/hf/deepseek-v3.json");
        assert_int_equal(pt_hf_parse(cfg, "simai.json", &m, &d), PT_OK);
        assert_int_equal(pt_model_params(&m), pt_model_params(&ref));
        assert_int_equal(pt_model_active_params(&m), pt_model_active_params(&ref));
    }
}

static void test_catalog(void **state)
{
    json_error_t err;
    json_t *root = json_loads(pt_data_models_json, 0, &err);
    json_t *models;
    int n = pt_model_catalog_count();
    (void)state;
    assert_non_null(root);
    models = json_object_get(root, "models");
    assert_true(json_is_array(models));
    assert_int_equal(json_array_size(models), n);
    assert_true(n >= 29);
    for (int i = 0; i < n; i++) {
        const char *name = pt_model_catalog_name(i);
        const char *jname = json_string_value(json_object_get(json_array_get(models, (size_t)i), "name"));
        pt_model m = th_model(name);
        pt_model l;
        pt_diag d;
        assert_non_null(jname);
        assert_string_equal(name, jname);
        assert_string_equal(m.name, name);
        assert_int_equal(pt_model_check(&m, &d), PT_OK);
        assert_true(pt_model_params(&m) > 0);
        assert_int_equal(pt_model_load(name, &l, &d), PT_OK);
        assert_memory_equal(&l, &m, sizeof m);
        for (int j = 0; j < i; j++) assert_string_not_equal(name, pt_model_catalog_name(j));
    }
    assert_null(pt_model_catalog_name(-1));
    assert_null(pt_model_catalog_name(n));
    json_decref(root);
}

static void test_unknown_names(void **state)
{
    pt_model m;
    pt_diag d;
    (void)state;
    assert_int_equal(pt_model_builtin("gpt-4", &m, &d), PT_EINPUT);
    assert_string_equal(d.field, "model");
    assert_string_equal(d.value, "gpt-4");
    assert_non_null(strstr(d.msg, "gpt3-175b"));
    assert_int_equal(pt_model_load("no-such-model", &m, &d), PT_EINPUT);
    assert_string_equal(d.field, "model");
    assert_non_null(strstr(d.msg, "partita models"));
    assert_non_null(strstr(d.msg, "no-such-model"));
    /* a file that exists but is not a model config: the parser's error */
    assert_int_equal(pt_model_load("tests/data/hf", &m, &d) != PT_OK, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt3_175b),     cmocka_unit_test(test_narayanan_table1),
        cmocka_unit_test(test_korthikanti),   cmocka_unit_test(test_llama_exact),
        cmocka_unit_test(test_other_builtins), cmocka_unit_test(test_hf_llama3_8b),
        cmocka_unit_test(test_hf_gpt2),       cmocka_unit_test(test_hf_qwen2),
        cmocka_unit_test(test_hf_gemma),      cmocka_unit_test(test_hf_llama4),      cmocka_unit_test(test_hf_deepseek_v32),      cmocka_unit_test(test_hf_glm_dsa),      cmocka_unit_test(test_hf_minimax_m2),      cmocka_unit_test(test_catalog_qwen3_dense),      cmocka_unit_test(test_hf_glm4_moe),      cmocka_unit_test(test_hf_phi3),      cmocka_unit_test(test_hf_nemotron),   cmocka_unit_test(test_hf_pythia),
        cmocka_unit_test(test_hf_defaults),   cmocka_unit_test(test_hf_errors),
        cmocka_unit_test(test_hf_syntax_error), cmocka_unit_test(test_model_check),
        cmocka_unit_test(test_moe_params),   cmocka_unit_test(test_catalog),       cmocka_unit_test(test_unknown_names),
        cmocka_unit_test(test_hf_rope_window_router),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
