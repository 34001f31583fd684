/*
 * model.c -- the dense-transformer workload: parameter counts, shape checks and
 * the built-in model catalog (data/models.json).
 *
 * What it does: counts the parameters of a pt_model, checks that its shape can
 * exist, and finds a model by built-in name or by path to a Hugging Face
 * config.json (read by hf.c).
 * What it does not: costs (src/cost).
 *
 * Parameter count of one layer (weights and biases, h = hidden, a = heads,
 * g = kv_heads, d = head_dim, f = ffn):
 *   attention  h*(a*d) [q] + 2*h*(g*d) [k,v] + (a*d)*h [out]
 *   MLP        3*h*f (gated: gate, up, down) or 2*h*f (fc1, fc2)
 *   biases     linear_bias: (a+2g)*d + h + (gated ? 2f : f) + h; qkv_bias: (a+2g)*d
 *   norms      two per layer: 4h with bias (LayerNorm), 2h without (RMSNorm)
 * Whole model: layers*layer + V*h (embedding) + (tied ? 0 : V*h) (output layer)
 *   + (learned_pos ? s*h : 0) + final norm (2h or h).
 * For Megatron GPT (a = g, d = h/a, f = 4h, all biases, LayerNorm, learned
 * positions, tied) this is Narayanan et al. SC'21 eq. (section 5.1)
 *   P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h))
 * plus the final LayerNorm's 2h; for Llama-2-7B it gives 6,738,415,616, the
 * count Hugging Face reports.
 *
 * Mixture of experts: a MoE layer holds attention, the router (h*E, plus E
 * biases in gpt_oss), E routed experts (each an MLP of moe_ffn, with biases in
 * gpt_oss) and the shared experts (an MLP of shared_ffn); the first
 * dense_layers layers keep the dense MLP (ffn).  The active count uses topk
 * routed experts instead of E.  Multi-head latent attention (DeepSeek-V2/V3)
 * replaces q/k/v by low-rank projections (attn_params below).  Checked
 * against the model cards (tests/test_workload.c): Mixtral 8x7B 46.7B total,
 * 12.9B active; Qwen3-30B-A3B 30.5B / 3.3B; DeepSeek-V3 671B / 37B without
 * its multi-token-prediction module (the card's 685B includes 14B of MTP).
 *
 * Hybrid stacks (Nemotron-H, Nemotron 3; pt_model.hybrid): every block is
 * one RMSNorm (h) and one mixer (transformers modeling_nemotron_h.py,
 * Megatron-Core MambaLayer / TransformerLayer).  With d_inner = mamba_heads
 * x mamba_head_dim = di, H heads, G groups, N state, K conv width:
 *   'M' Mamba-2 (Dao & Gu 2024, arXiv 2405.21060, section 7 "Mamba-2
 *       architecture"): in_proj h x (2 di + 2 G N + H) [z, x, B, C, dt],
 *       depthwise conv1d over di + 2 G N channels (K weights and a bias
 *       each: use_conv_bias), dt_bias, A_log and D (H each), the gated
 *       RMSNorm (di), out_proj di x h;
 *   '*' attention: q, k, v, o as above, no MLP;
 *   '-' dense MLP of ffn (relu2, ungated: up, down);
 *   'E' MoE: router h x E, E experts and the shared experts (ungated); with
 *       LatentMoE (moe_latent = r > 0, Nemotron 3 Super/Ultra) the routed
 *       experts work in width r between a down projection h x r and an up
 *       projection r x h, so an expert is 2 r moe_ffn.
 * Checked against the published counts (tests/test_hybrid.c): Nemotron 3
 * Nano 31.58B total, 3.23B active without the input embedding (model card
 * 31.6B / 3.2B); Nemotron 3 Super 120,668,687,360 and 12,770,216,960 active,
 * the BF16 checkpoint's tensors less its multi-token-prediction module.
 */
#include "workload/model.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/catalog.h"

/* The built-in names, in the order of data/models.json (tests/test_workload.c
 * checks that the two agree). */
static const char *const names[] = {
    "gpt-1.7b",      "gpt-3.6b",      "gpt-7.5b",   "gpt-18.4b",  "gpt-39.1b",
    "gpt-76.1b",     "gpt-145.6b",    "gpt-310.1b", "gpt-529.6b", "gpt-1t",
    "gpt3-175b",     "gpt-22b",       "gpt-530b",   "llama2-7b",  "llama2-70b",
    "llama3-8b",     "llama3-70b",    "llama3.1-405b",
    "nemotron3-8b",  "nemotron4-15b", "nemotron4-340b",
    "mpt-125m",      "mpt-350m",      "mpt-760m",   "mpt-1b",     "mpt-3b",
    "mpt-7b",        "mpt-13b",       "mpt-30b",    "mpt-70b",
    "mixtral-8x7b",  "mixtral-8x22b", "qwen3-30b-a3b", "qwen3-235b-a22b",
    "deepseek-v3",   "gpt-oss-120b",
    "llama3.1-8b",   "llama3.3-70b",  "deepseek-r1", "falcon-180b", "gpt-j-6b", /* serving (issue 16) */
    "gpt-oss-20b",   "kimi-k2", /* NeMo AutoModel's benchmarks (issue 15) */
    "nemotron-v3-nano-30b-a3b", "nemotron-v3-super-120b-a12b", /* hybrid Mamba-2 (issue 15) */
    "nemotron-v3-ultra-550b-a55b",
    "llama4-scout-17b-16e", "llama4-maverick-17b-128e", "deepseek-v3.2",
    "qwen3-8b", "qwen3-14b", "qwen3-32b", "glm-4.5-air", "glm-4.5",
};

#define NNAMES ((int)(sizeof names / sizeof names[0]))

/* ---- parameter counts ------------------------------------------------------
 * Checked int64 arithmetic: a result that would not fit sets *ovf and
 * saturates, so pt_model_check can refuse a shape before anything overflows. */

static int64_t cmul(int64_t a, int64_t b, int *ovf)
{
    if (a < 0 || b < 0) {
        *ovf = 1;
        return INT64_MAX;
    }
    if (a != 0 && b > INT64_MAX / a) {
        *ovf = 1;
        return INT64_MAX;
    }
    return a * b;
}

static int64_t cadd(int64_t a, int64_t b, int *ovf)
{
    if (a < 0 || b < 0 || a > INT64_MAX - b) {
        *ovf = 1;
        return INT64_MAX;
    }
    return a + b;
}

static int64_t kind_layers(const pt_model *m, char k, int64_t lo, int64_t hi)
{
    int64_t n = 0, len = (int64_t)strlen(m->hybrid);
    for (int64_t i = lo < 0 ? 0 : lo; i < hi && i < len; i++) n += m->hybrid[i] == k;
    return n;
}

/* One Mamba-2 block with its norm (see the header). */
static int64_t mamba_params(const pt_model *m, int *ovf)
{
    int64_t h = m->hidden, H = m->mamba_heads;
    int64_t di = cmul(H, m->mamba_head_dim, ovf);
    int64_t gn = cmul(2, cmul(m->mamba_groups, m->mamba_state, ovf), ovf); /* B and C */
    int64_t conv_ch = cadd(di, gn, ovf);
    int64_t n = cmul(h, cadd(cadd(cmul(2, di, ovf), gn, ovf), H, ovf), ovf); /* in_proj */
    n = cadd(n, cmul(conv_ch, cadd(m->mamba_conv, 1, ovf), ovf), ovf);       /* conv1d + bias */
    n = cadd(n, cmul(3, H, ovf), ovf);                                       /* dt_bias, A_log, D */
    n = cadd(n, di, ovf);                                                    /* gated RMSNorm */
    n = cadd(n, cmul(di, h, ovf), ovf);                                      /* out_proj */
    return cadd(n, h, ovf);                                                  /* block norm */
}

/* Attention of one layer with its two norms (a hybrid attention block: one). */
static int64_t attn_params(const pt_model *m, int *ovf)
{
    int64_t h = m->hidden;
    int64_t n = 0;
    if (m->mla) {
        /* DeepSeek-V2/V3 MLA (modeling_deepseek_v3.py): q_a_proj h*q_lora +
         * q_a_layernorm q_lora + q_b_proj q_lora*a*(nope+rope) (or q_proj
         * h*a*(nope+rope) without q_lora); kv_a_proj_with_mqa
         * h*(kv_lora+rope) + kv_a_layernorm kv_lora + kv_b_proj
         * kv_lora*a*(nope+v); o_proj a*v*h. */
        int64_t qk = cadd(m->qk_nope, m->qk_rope, ovf);
        int64_t aq = cmul(m->heads, qk, ovf);
        if (m->q_lora > 0) {
            n = cadd(n, cmul(h, m->q_lora, ovf), ovf);
            n = cadd(n, m->q_lora, ovf);
            n = cadd(n, cmul(m->q_lora, aq, ovf), ovf);
        } else {
            n = cadd(n, cmul(h, aq, ovf), ovf);
        }
        n = cadd(n, cmul(h, cadd(m->kv_lora, m->qk_rope, ovf), ovf), ovf);
        n = cadd(n, m->kv_lora, ovf);
        n = cadd(n, cmul(m->kv_lora, cmul(m->heads, cadd(m->qk_nope, m->v_head, ovf), ovf), ovf), ovf);
        n = cadd(n, cmul(cmul(m->heads, m->v_head, ovf), h, ovf), ovf);
        if (m->index_topk > 0) {
            /* DSA's indexer (DeepSeek-V3.2 inference/model.py, Indexer):
             * wq_b q_lora (or h) x heads*dim, wk h x dim, k_norm LayerNorm
             * 2 dim, weights_proj h x heads */
            n = cadd(n, cmul(m->q_lora > 0 ? m->q_lora : h, cmul(m->index_heads, m->index_head_dim, ovf), ovf),
                     ovf);
            n = cadd(n, cmul(h, m->index_head_dim, ovf), ovf);
            n = cadd(n, cmul(2, m->index_head_dim, ovf), ovf);
            n = cadd(n, cmul(h, m->index_heads, ovf), ovf);
        }
    } else {
        int64_t q = cmul(m->heads, m->head_dim, ovf);    /* a*d */
        int64_t kv = cmul(m->kv_heads, m->head_dim, ovf); /* g*d */
        int64_t qkv_out = cadd(q, cmul(2, kv, ovf), ovf); /* (a+2g)*d */
        n = cadd(n, cmul(h, qkv_out, ovf), ovf);           /* q, k, v */
        n = cadd(n, cmul(q, h, ovf), ovf);                 /* out projection */
        if (m->linear_bias) {
            n = cadd(n, qkv_out, ovf);
            n = cadd(n, h, ovf); /* out proj */
        } else if (m->qkv_bias) {
            n = cadd(n, qkv_out, ovf);
        }
    }
    n = cadd(n, cmul(m->hybrid[0] ? 1 : m->norm_bias ? 4 : 2, h, ovf), ovf); /* two norms */
    return n;
}

/* An MLP of inner size f (gate, up, down or fc1, fc2), with its biases. */
static int64_t mlp_params(const pt_model *m, int64_t f, int bias, int *ovf)
{
    int64_t h = m->hidden;
    int64_t n = cmul(m->gated_mlp ? 3 : 2, cmul(h, f, ovf), ovf);
    if (bias) {
        n = cadd(n, cmul(m->gated_mlp ? 2 : 1, f, ovf), ovf); /* gate, up / fc1 */
        n = cadd(n, h, ovf);                                  /* down / fc2 */
    }
    return n;
}

static int64_t experts_params(const pt_model *m, int64_t count, int *ovf)
{
    if (m->moe_latent > 0) /* LatentMoE: up and down in the latent width */
        return cmul(count, cmul(m->gated_mlp ? 3 : 2, cmul(m->moe_latent, m->moe_ffn, ovf), ovf), ovf);
    return cmul(count, mlp_params(m, m->moe_ffn, m->expert_bias, ovf), ovf);
}

/* Router (h x experts, with a bias in gpt_oss), the shared experts and
 * LatentMoE's two projections. */
static int64_t moe_other_params(const pt_model *m, int *ovf)
{
    int64_t n = cmul(m->experts, m->hidden, ovf);
    if (m->expert_bias) n = cadd(n, m->experts, ovf);
    if (m->shared_ffn > 0) n = cadd(n, mlp_params(m, m->shared_ffn, 0, ovf), ovf);
    if (m->moe_latent > 0) n = cadd(n, cmul(2, cmul(m->hidden, m->moe_latent, ovf), ovf), ovf);
    return n;
}

static int64_t moe_layers(const pt_model *m)
{
    return m->experts > 0 ? m->layers - m->dense_layers : 0;
}

/* A hybrid model's blocks with `active` routed experts per MoE block. */
static int64_t hybrid_params(const pt_model *m, int64_t active, int *ovf)
{
    int64_t L = m->layers, h = m->hidden;
    int64_t n = cmul(kind_layers(m, 'M', 0, L), mamba_params(m, ovf), ovf);
    n = cadd(n, cmul(kind_layers(m, '*', 0, L), attn_params(m, ovf), ovf), ovf);
    n = cadd(n, cmul(kind_layers(m, '-', 0, L), cadd(mlp_params(m, m->ffn, m->linear_bias, ovf), h, ovf), ovf),
             ovf);
    if (m->experts > 0)
        n = cadd(n, cmul(kind_layers(m, 'E', 0, L),
                         cadd(cadd(experts_params(m, active, ovf), moe_other_params(m, ovf), ovf), h, ovf), ovf),
                 ovf);
    return n;
}

/* The largest block of a hybrid model (a MoE block with all its experts). */
static int64_t hybrid_largest(const pt_model *m, int *ovf)
{
    int64_t h = m->hidden, best = 0, v[4];
    v[0] = kind_layers(m, 'M', 0, m->layers) ? mamba_params(m, ovf) : 0;
    v[1] = kind_layers(m, '*', 0, m->layers) ? attn_params(m, ovf) : 0;
    v[2] = kind_layers(m, '-', 0, m->layers) ? cadd(mlp_params(m, m->ffn, m->linear_bias, ovf), h, ovf) : 0;
    v[3] = m->experts > 0 ? cadd(cadd(experts_params(m, m->experts, ovf), moe_other_params(m, ovf), ovf), h, ovf)
                          : 0;
    for (int i = 0; i < 4; i++)
        if (v[i] > best) best = v[i];
    return best;
}

/* Layer parameters with `active` routed experts per MoE layer (all of them
 * for the total). */
static int64_t layers_params(const pt_model *m, int64_t active, int *ovf)
{
    int64_t attn, nmoe = moe_layers(m), ndense = m->layers - nmoe;
    if (m->hybrid[0]) return hybrid_params(m, active, ovf);
    attn = attn_params(m, ovf);
    int64_t n = cmul(ndense, cadd(attn, mlp_params(m, m->ffn, m->linear_bias, ovf), ovf), ovf);
    if (nmoe > 0) {
        int64_t moe = cadd(attn, cadd(experts_params(m, active, ovf), moe_other_params(m, ovf), ovf), ovf);
        n = cadd(n, cmul(nmoe, moe, ovf), ovf);
    }
    return n;
}

static int64_t layer_params(const pt_model *m, int *ovf)
{
    if (m->hybrid[0]) return hybrid_largest(m, ovf);
    if (moe_layers(m) > 0)
        return cadd(attn_params(m, ovf),
                    cadd(experts_params(m, m->experts, ovf), moe_other_params(m, ovf), ovf), ovf);
    return cadd(attn_params(m, ovf), mlp_params(m, m->ffn, m->linear_bias, ovf), ovf);
}

static int64_t model_params_with(const pt_model *m, int64_t active, int *ovf)
{
    int64_t h = m->hidden;
    int64_t emb = cmul(m->vocab, h, ovf);
    int64_t n = layers_params(m, active, ovf);
    n = cadd(n, emb, ovf);
    if (!m->tied_embeddings) n = cadd(n, emb, ovf);
    if (m->learned_pos) n = cadd(n, cmul(m->max_seq, h, ovf), ovf);
    n = cadd(n, m->norm_bias ? cmul(2, h, ovf) : h, ovf); /* final norm */
    return n;
}

static int64_t model_params(const pt_model *m, int *ovf)
{
    return model_params_with(m, m->experts, ovf);
}

int64_t pt_model_layer_params(const pt_model *m)
{
    int ovf = 0;
    int64_t n;
    assert(m);
    n = layer_params(m, &ovf);
    return ovf ? -1 : n;
}

int64_t pt_model_params(const pt_model *m)
{
    int ovf = 0;
    int64_t n;
    assert(m);
    n = model_params(m, &ovf);
    return ovf ? -1 : n;
}

int64_t pt_model_active_params(const pt_model *m)
{
    int ovf = 0;
    int64_t n;
    assert(m);
    n = model_params_with(m, m->experts > 0 ? m->topk : 0, &ovf);
    return ovf ? -1 : n;
}

int64_t pt_model_attn_params(const pt_model *m)
{
    int ovf = 0;
    int64_t n = attn_params(m, &ovf);
    return ovf ? -1 : n;
}

int64_t pt_model_dense_mlp_params(const pt_model *m)
{
    int ovf = 0;
    int64_t n = mlp_params(m, m->ffn, m->linear_bias, &ovf);
    return ovf ? -1 : n;
}

int64_t pt_model_expert_params(const pt_model *m)
{
    int ovf = 0;
    int64_t n = moe_layers(m) > 0 ? experts_params(m, m->experts, &ovf) : 0;
    return ovf ? -1 : n;
}

int64_t pt_model_moe_other_params(const pt_model *m)
{
    int ovf = 0;
    int64_t n = moe_layers(m) > 0 ? moe_other_params(m, &ovf) : 0;
    return ovf ? -1 : n;
}

int64_t pt_model_moe_layers(const pt_model *m) { return moe_layers(m); }

double pt_model_index_share(const pt_model *m)
{
    return m->index_layers > 0 && m->index_layers < m->layers ? (double)m->index_layers / (double)m->layers : 1.0;
}

int64_t pt_model_kind_layers(const pt_model *m, char k, int64_t lo, int64_t hi)
{
    assert(m);
    return kind_layers(m, k, lo, hi);
}

int64_t pt_model_mamba_params(const pt_model *m)
{
    int ovf = 0;
    int64_t n;
    assert(m);
    if (!m->hybrid[0]) return 0;
    n = mamba_params(m, &ovf);
    return ovf ? -1 : n;
}

/* ---- shape checks ---------------------------------------------------------- */

pt_status pt_model_check(const pt_model *m, pt_diag *d)
{
    /* Field names are the Hugging Face (Llama) config keys users know. */
    const struct {
        const char *key;
        int64_t v;
    } dims[] = {
        {"num_hidden_layers", m->layers},   {"hidden_size", m->hidden},
        {"num_attention_heads", m->heads},  {"num_key_value_heads", m->kv_heads},
        {"head_dim", m->head_dim},          {"intermediate_size", m->ffn},
        {"vocab_size", m->vocab},           {"max_position_embeddings", m->max_seq},
    };
    char v[64];
    int ovf = 0;
    int64_t p;
    assert(m);
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        snprintf(v, sizeof v, "%lld", (long long)dims[i].v);
        if (dims[i].v <= 0)
            return pt_diag_set(d, NULL, dims[i].key, v, "%s: %s is not > 0", dims[i].key, v);
        if (dims[i].v > PT_MODEL_DIM_MAX)
            return pt_diag_set(d, NULL, dims[i].key, v, "%s: %s is larger than %lld",
                               dims[i].key, v, (long long)PT_MODEL_DIM_MAX);
    }
    if (m->heads % m->kv_heads != 0) {
        snprintf(v, sizeof v, "%lld", (long long)m->kv_heads);
        return pt_diag_set(d, NULL, "num_key_value_heads", v,
                           "num_key_value_heads: %s does not divide num_attention_heads=%lld", v,
                           (long long)m->heads);
    }
    /* pt_model carries head_dim explicitly, so a head_dim that differs from
     * hidden/heads is legal (Qwen3, Mistral-Nemo give it in the config).  But a
     * head_dim equal to the truncated hidden/heads while heads does not divide
     * hidden is the default rule applied to an impossible shape. */
    if (m->hidden % m->heads != 0 && m->head_dim == m->hidden / m->heads) {
        snprintf(v, sizeof v, "%lld", (long long)m->heads);
        return pt_diag_set(d, NULL, "num_attention_heads", v,
                           "num_attention_heads: %s does not divide hidden_size=%lld", v,
                           (long long)m->hidden);
    }
    if (m->experts > 0) {
        const struct {
            const char *key;
            int64_t v, lo, hi;
        } moe[] = {
            {"num_local_experts", m->experts, 1, PT_MODEL_DIM_MAX},
            {"moe_intermediate_size", m->moe_ffn, 1, PT_MODEL_DIM_MAX},
            {"num_experts_per_tok", m->topk, 1, m->experts},
            {"shared_expert_intermediate_size", m->shared_ffn, 0, PT_MODEL_DIM_MAX},
            {"first_k_dense_replace", m->dense_layers, 0, m->layers},
            {"num_nextn_predict_layers", m->mtp_layers, 0, PT_MODEL_DIM_MAX},
        };
        for (size_t i = 0; i < sizeof moe / sizeof moe[0]; i++) {
            if (moe[i].v >= moe[i].lo && moe[i].v <= moe[i].hi) continue;
            snprintf(v, sizeof v, "%lld", (long long)moe[i].v);
            return pt_diag_set(d, NULL, moe[i].key, v, "%s: %s is not in [%lld, %lld]", moe[i].key, v,
                               (long long)moe[i].lo, (long long)moe[i].hi);
        }
    }
    if (m->mla) {
        const struct {
            const char *key;
            int64_t v, lo;
        } mla[] = {
            {"q_lora_rank", m->q_lora, 0},     {"kv_lora_rank", m->kv_lora, 1},
            {"qk_nope_head_dim", m->qk_nope, 1}, {"qk_rope_head_dim", m->qk_rope, 1},
            {"v_head_dim", m->v_head, 1},        {"index_topk", m->index_topk, 0},
            {"index_n_heads", m->index_heads, m->index_topk > 0},
            {"index_head_dim", m->index_head_dim, m->index_topk > 0},
        };
        for (size_t i = 0; i < sizeof mla / sizeof mla[0]; i++) {
            if (mla[i].v >= mla[i].lo && mla[i].v <= PT_MODEL_DIM_MAX) continue;
            snprintf(v, sizeof v, "%lld", (long long)mla[i].v);
            return pt_diag_set(d, NULL, mla[i].key, v, "%s: %s is not in [%lld, %lld]", mla[i].key, v,
                               (long long)mla[i].lo, (long long)PT_MODEL_DIM_MAX);
        }
    }
    if (m->hybrid[0]) {
        const struct {
            const char *key;
            int64_t v;
        } mb[] = {
            {"mamba_num_heads", m->mamba_heads}, {"mamba_head_dim", m->mamba_head_dim},
            {"ssm_state_size", m->mamba_state},  {"n_groups", m->mamba_groups},
            {"conv_kernel", m->mamba_conv},      {"chunk_size", m->mamba_chunk},
        };
        size_t len = strlen(m->hybrid), bad = strspn(m->hybrid, "M*-E");
        if (bad < len || (int64_t)len != m->layers) {
            snprintf(v, sizeof v, "%.60s", m->hybrid);
            return pt_diag_set(d, NULL, "hybrid_override_pattern", v,
                               "hybrid_override_pattern: \"%s\" is not one of M, *, - or E per layer for "
                               "num_hidden_layers=%lld", v, (long long)m->layers);
        }
        for (size_t i = 0; i < sizeof mb / sizeof mb[0] && strchr(m->hybrid, 'M'); i++) {
            if (mb[i].v >= 1 && mb[i].v <= PT_MODEL_DIM_MAX) continue;
            snprintf(v, sizeof v, "%lld", (long long)mb[i].v);
            return pt_diag_set(d, NULL, mb[i].key, v, "%s: %s is not in [1, %lld]", mb[i].key, v,
                               (long long)PT_MODEL_DIM_MAX);
        }
        if (m->mamba_heads % (m->mamba_groups > 0 ? m->mamba_groups : 1)) {
            snprintf(v, sizeof v, "%lld", (long long)m->mamba_groups);
            return pt_diag_set(d, NULL, "n_groups", v, "n_groups: %s does not divide mamba_num_heads=%lld", v,
                               (long long)m->mamba_heads);
        }
    }
    if (m->window < 0 || m->window_layers < 0 || m->window_layers > m->layers) {
        snprintf(v, sizeof v, "%lld", (long long)m->window);
        return pt_diag_set(d, NULL, "sliding_window", v, "sliding_window: %s (on %lld of %lld layers) "
                           "is not a window size", v, (long long)m->window_layers, (long long)m->layers);
    }
    p = model_params(m, &ovf);
    if (ovf || p > PT_MODEL_PARAMS_MAX) {
        snprintf(v, sizeof v, "%lld", (long long)m->layers);
        return pt_diag_set(d, NULL, "num_hidden_layers", v,
                           "the model has more than %lld parameters (num_hidden_layers=%s, "
                           "hidden_size=%lld, intermediate_size=%lld)",
                           (long long)PT_MODEL_PARAMS_MAX, v, (long long)m->hidden,
                           (long long)m->ffn);
    }
    return PT_OK;
}

/* ---- catalog ----------------------------------------------------------------- */

int pt_model_catalog_count(void)
{
    return NNAMES;
}

const char *pt_model_catalog_name(int i)
{
    return i >= 0 && i < NNAMES ? names[i] : NULL;
}

static int is_builtin_name(const char *name)
{
    for (int i = 0; i < NNAMES; i++)
        if (strcmp(names[i], name) == 0) return 1;
    return 0;
}

/* "gpt-1.7b, gpt-3.6b, ..." into buf (truncated with "..." if it does not fit). */
static void list_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < NNAMES; i++) {
        size_t need = strlen(names[i]) + 2;
        if (used + need + 4 >= n) {
            snprintf(buf + used, n - used, "...");
            return;
        }
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", names[i]);
    }
}

static const char *const entry_keys[] = {"name", "source", "config", NULL};
static const char *const root_keys[] = {"models", NULL};

/* Reads the catalog's entries in one parse: the one named `name` into
 * out[0] (name non-NULL), or every entry into out[0..max) (name NULL);
 * *n is how many were read. */
static pt_status catalog_read(const char *name, pt_model *out, int max, int *n, pt_diag *d)
{
    pt_jctx jc;
    json_t *root, *models;
    pt_status st = PT_OK;
    size_t i;
    *n = 0;
    jc.text = pt_data_models_json;
    jc.file = "data/models.json";
    jc.d = d;
    root = pt_json_parse(&jc);
    if (!root) return PT_EINPUT;
    if ((st = pt_json_only_keys(&jc, root, "", root_keys)) != PT_OK) goto done;
    models = json_object_get(root, "models");
    if (!json_is_array(models)) {
        st = pt_jerr(&jc, "models", models, "is not an array");
        goto done;
    }
    for (i = 0; i < json_array_size(models) && *n < max; i++) {
        const json_t *e = json_array_get(models, i);
        char path[64], cpath[80], ename[sizeof out->name];
        snprintf(path, sizeof path, "models[%zu]", i);
        if (!json_is_object(e)) {
            st = pt_jerr(&jc, path, e, "is not an object");
            goto done;
        }
        if ((st = pt_json_only_keys(&jc, e, path, entry_keys)) != PT_OK) goto done;
        if ((st = pt_json_str(&jc, e, path, "name", 1, ename, sizeof ename, NULL)) != PT_OK)
            goto done;
        if (name && strcmp(ename, name) != 0) continue;
        snprintf(cpath, sizeof cpath, "%s.config", path);
        if (!json_is_object(json_object_get(e, "config"))) {
            st = pt_jerr(&jc, cpath, json_object_get(e, "config"), "is not an object");
            goto done;
        }
        st = pt_hf_read_json(&jc, json_object_get(e, "config"), cpath, &out[*n]);
        if (st != PT_OK) goto done;
        pt_strlcpy(out[*n].name, ename, sizeof out->name);
        (*n)++;
    }
done:
    json_decref(root);
    return st;
}

pt_status pt_model_builtin(const char *name, pt_model *out, pt_diag *d)
{
    pt_diag local;
    pt_status st;
    int n;
    assert(name && out);
    if (!d) d = &local;
    if ((st = catalog_read(name, out, 1, &n, d)) != PT_OK) return st;
    if (!n) {
        char list[480];
        list_names(list, sizeof list);
        return pt_diag_set(d, NULL, "model", name, "unknown model \"%s\" (built-in: %s)", name, list);
    }
    return PT_OK;
}

pt_status pt_model_catalog_read(pt_model *out, int max, int *n, pt_diag *d)
{
    pt_diag local;
    assert(out && n && max >= 0);
    return catalog_read(NULL, out, max, n, d ? d : &local);
}

pt_status pt_model_load(const char *name_or_path, pt_model *out, pt_diag *d)
{
    pt_diag local;
    char *text = NULL;
    pt_status st;
    assert(name_or_path && out);
    if (!d) d = &local;
    if (is_builtin_name(name_or_path)) return pt_model_builtin(name_or_path, out, d);
    {
        /* Neither a built-in name nor a file that opens: say both. */
        FILE *f = fopen(name_or_path, "rb");
        if (!f)
            return pt_diag_set(d, NULL, "model", name_or_path,
                               "unknown model \"%s\": not a built-in model (`partita models` "
                               "lists them) and not a readable config.json (%s)",
                               name_or_path, strerror(errno));
        fclose(f);
    }
    if ((st = pt_read_file(name_or_path, &text, d)) != PT_OK) return st;
    st = pt_hf_parse(text, name_or_path, out, d);
    free(text);
    return st;
}
