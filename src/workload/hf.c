/*
 * hf.c -- reads a Hugging Face config.json (a dense transformer) into a pt_model.
 *
 * What it does: maps the keys of each supported model_type onto pt_model, with
 * the defaults of transformers' configuration classes (LlamaConfig, GPT2Config,
 * GPTNeoXConfig, NemotronConfig, ...; MPTConfig from mosaicml/llm-foundry), and
 * names the key, its value and its line:col when a key it needs is missing, of
 * the wrong type or impossible.  Keys it does not need are ignored: Hub configs
 * carry many (torch_dtype, bos_token_id, ...).  Rotary settings (rope_theta,
 * rope_scaling / rope_parameters), sliding windows (mistral, qwen2, qwen3,
 * phi3, gemma2, gemma3_text, gpt_oss) and MoE router settings (scoring_func, topk_method,
 * routed_scaling_factor, n_group / topk_group, norm_topk_prob) are read into
 * the fields the engine exports need.
 * Mixture-of-experts and MLA configs (mixtral, qwen2_moe, qwen3_moe,
 * deepseek_v2, deepseek_v3, glm4_moe, gpt_oss, llama4 with its chunked
 * attention) are read by the readers after
 * read_mpt; partial rotary embeddings (partial_rotary_factor, gpt_neox's
 * rotary_pct) into rope_percent, which the Megatron export writes;
 * hybrid Mamba-2 stacks (nemotron_h: Nemotron-H, Nemotron 3) by
 * read_nemotron_h, into pt_model.hybrid and the mamba_* fields;
 * vision-language wrappers (gemma3, kimi_k25; llama4 in read_llama4) by
 * their text_config, the language model.
 * What it does not: other MoE model types (refused with a message naming the
 * key), encoder or encoder-decoder models, gpt_oss's attention sinks (one
 * number per head) and DeepSeek's expert-score correction bias as
 * parameters (not trained by gradients; router_expert_bias says it is there).
 *
 * Approximations (the pt_model fields cannot say more):
 *   - llama's attention_bias also puts a bias on o_proj (h per layer), and
 *     qwen3 has q_norm/k_norm (2*head_dim per layer); both are left out;
 *   - llama's mlp_bias is counted as biases on every linear layer;
 *   - gpt_neox's attention_bias=false is ignored (linear biases everywhere).
 */
#include "workload/model.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The config object being read and where it sits in its document. */
typedef struct hf {
    pt_jctx *jc;
    const json_t *obj; /* NULL reads as an empty object (all keys missing) */
    const char *path;  /* "" for a config.json, "models[3].config" in the catalog */
} hf;

#define TRY(x)                               \
    do {                                     \
        pt_status try_st_ = (x);             \
        if (try_st_ != PT_OK) return try_st_; \
    } while (0)

static const char supported[] = "llama, mistral, qwen2, qwen3, phi3, gemma2, gemma3_text, gpt2, gpt_neox, "
                                "nemotron, mpt, mixtral, qwen2_moe, qwen3_moe, deepseek_v2, deepseek_v3, deepseek_v32, "
                                "glm4_moe, glm_moe_dsa, gpt_oss, kimi_k2, llama4, llama4_text, minimax_m2, nemotron_h; "
                                "and the text model of gemma3 and kimi_k25";
static const char supported_moe[] = "mixtral, qwen2_moe, qwen3_moe, deepseek_v2, deepseek_v3, deepseek_v32, glm4_moe, "
                                    "glm_moe_dsa, gpt_oss, kimi_k2, llama4, minimax_m2";

static pt_status key_err(const hf *h, const char *key, const char *fmt, ...) PT_PRINTF(3, 4);

/* An error about h->obj[key]: "key: VALUE msg" with the key's line:col. */
static pt_status key_err(const hf *h, const char *key, const char *fmt, ...)
{
    char full[256], msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pt_path_join(full, sizeof full, h->path, key);
    return pt_jerr(h->jc, full, json_object_get(h->obj, key), "%s", msg);
}

/* A whole number in [1, PT_MODEL_DIM_MAX]; *out keeps its value when absent. */
static pt_status get_pos(const hf *h, const char *key, int required, int64_t *out, int *found)
{
    int64_t v = 0;
    int f = 0;
    const json_t *j = json_object_get(h->obj, key);
    if (json_is_real(j) && !(json_real_value(j) > 0)) /* -1e30: not "out of range [INT64_MIN, ...]" */
        return key_err(h, key, "is not > 0");
    if (json_is_real(j) && json_real_value(j) > (double)PT_MODEL_DIM_MAX)
        return key_err(h, key, "is larger than %lld", (long long)PT_MODEL_DIM_MAX);
    TRY(pt_json_int(h->jc, h->obj, h->path, key, required, INT64_MIN, INT64_MAX, &v, &f));
    if (found) *found = f;
    if (!f) return PT_OK;
    if (v <= 0) return key_err(h, key, "is not > 0");
    if (v > PT_MODEL_DIM_MAX)
        return key_err(h, key, "is larger than %lld", (long long)PT_MODEL_DIM_MAX);
    *out = v;
    return PT_OK;
}

static pt_status get_bool(const hf *h, const char *key, int dflt, int *out)
{
    *out = dflt;
    return pt_json_bool(h->jc, h->obj, h->path, key, out, NULL);
}

/* A dropout probability; *on becomes 1 when it is > 0 (dflt when absent). */
static pt_status get_drop(const hf *h, const char *key, double dflt, int *on)
{
    double p = dflt;
    TRY(pt_json_num(h->jc, h->obj, h->path, key, 0, &p, NULL));
    if (!(p >= 0.0 && p <= 1.0)) return key_err(h, key, "is not a probability in [0, 1]");
    if (p > 0.0) *on = 1;
    return PT_OK;
}

static pt_status get_act(const hf *h, const char *key, const char *dflt, pt_act *out)
{
    char a[64];
    pt_strlcpy(a, dflt, sizeof a);
    TRY(pt_json_str(h->jc, h->obj, h->path, key, 0, a, sizeof a, NULL));
    if (strcmp(a, "silu") == 0 || strcmp(a, "swish") == 0 || strcmp(a, "swiglu") == 0)
        *out = PT_ACT_SILU;
    else if (strncmp(a, "gelu", 4) == 0)
        *out = PT_ACT_GELU;
    else if (strcmp(a, "relu2") == 0 || strcmp(a, "squared_relu") == 0)
        *out = PT_ACT_RELU2;
    else
        return key_err(h, key, "is not a supported activation (silu, swiglu, gelu*, relu2)");
    return PT_OK;
}

/* h->obj[key] as a nested object read through *sub (absent: an empty one). */
static pt_status get_obj(const hf *h, const char *key, hf *sub, char *path, size_t n)
{
    const json_t *v = json_object_get(h->obj, key);
    pt_path_join(path, n, h->path, key);
    sub->jc = h->jc;
    sub->path = path;
    sub->obj = NULL;
    if (!v || json_is_null(v)) return PT_OK;
    if (!json_is_object(v)) return key_err(h, key, "is not an object");
    sub->obj = v;
    return PT_OK;
}

/* A positive real at obj[key] into *out (unchanged when absent). */
static pt_status get_posnum(const hf *h, const char *key, double *out)
{
    double v = *out;
    int f = 0;
    TRY(pt_json_num(h->jc, h->obj, h->path, key, 0, &v, &f));
    if (!f) return PT_OK;
    if (!(v > 0.0) || v > 1e12) return key_err(h, key, "is not a number in (0, 1e12]");
    *out = v;
    return PT_OK;
}

/* ---- rotary embedding ------------------------------------------------------
 * The base is theta_key (rope_theta; gpt_neox: rotary_emb_base), default
 * dflt (the configuration class's: 10000 for LlamaConfig, 1e6 for
 * MixtralConfig, 150000 for GptOssConfig).  Scaling is rope_scaling's
 * rope_type (older configs: "type"; "default" is none) with factor,
 * original_max_position_embeddings, low/high_freq_factor (llama3) and
 * mscale/mscale_all_dim (yarn, DeepSeek).  transformers' newer configs hold
 * theta and scaling together in rope_parameters; both forms are read
 * (docs/reference/engines-and-formats.md section e, convert_rope_params_to_dict). */
static pt_status read_rope(const hf *h, pt_model *m, const char *theta_key, double dflt)
{
    hf rp, rs;
    const hf *sc;
    char ppath[256], spath[256], t[64] = "";
    int tf = 0;
    int64_t orig = 0;
    double part = 0;
    m->rope_theta = dflt;
    TRY(get_posnum(h, theta_key, &m->rope_theta));
    /* partial rotary: partial_rotary_factor (GLM, Phi-4-mini), gpt_neox's
     * rotary_pct (GPTNeoXConfig default 0.25, set by read_neox) */
    TRY(get_posnum(h, "partial_rotary_factor", &part));
    if (part > 1.0) return key_err(h, "partial_rotary_factor", "is above 1 (the share of each head rotated)");
    if (part > 0) m->rope_percent = part < 1.0 ? part : 0.0;
    TRY(get_obj(h, "rope_parameters", &rp, ppath, sizeof ppath));
    if (rp.obj) TRY(get_posnum(&rp, "rope_theta", &m->rope_theta));
    TRY(get_obj(h, "rope_scaling", &rs, spath, sizeof spath));
    sc = rs.obj ? &rs : rp.obj ? &rp : NULL;
    if (!sc) return PT_OK;
    TRY(pt_json_str(sc->jc, sc->obj, sc->path, "rope_type", 0, t, sizeof t, &tf));
    if (!tf) TRY(pt_json_str(sc->jc, sc->obj, sc->path, "type", 0, t, sizeof t, &tf));
    if (!tf && sc == &rs)
        return key_err(h, "rope_scaling", "has no rope_type (or type)");
    if (strcmp(t, "default") == 0) t[0] = 0;
    if (strlen(t) >= sizeof m->rope_type)
        return key_err(sc, json_object_get(sc->obj, "rope_type") ? "rope_type" : "type",
                       "is longer than %d characters", (int)sizeof m->rope_type - 1);
    pt_strlcpy(m->rope_type, t, sizeof m->rope_type);
    if (!t[0]) return PT_OK;
    TRY(get_posnum(sc, "factor", &m->rope_factor));
    TRY(pt_json_int(sc->jc, sc->obj, sc->path, "original_max_position_embeddings", 0, 1,
                    PT_MODEL_DIM_MAX, &orig, NULL));
    m->rope_orig_max = orig;
    TRY(get_posnum(sc, "low_freq_factor", &m->rope_low_freq));
    TRY(get_posnum(sc, "high_freq_factor", &m->rope_high_freq));
    TRY(get_posnum(sc, "mscale", &m->rope_mscale));
    TRY(get_posnum(sc, "mscale_all_dim", &m->rope_mscale_all_dim));
    return PT_OK;
}

/* ---- MoE router (deepseek_v2, deepseek_v3, qwen MoE) -----------------------
 * scoring_func "softmax" / "sigmoid" (DeepseekV3Config: sigmoid), topk_method
 * "noaux_tc" (V3: a score-correction bias per expert, aux-loss-free
 * balancing) or "greedy" / "group_limited_greedy", routed_scaling_factor
 * (V3 2.5), norm_topk_prob (V3 true; Qwen2/3-MoE and DeepSeek-V2 classes
 * false: softmax over every expert with the top-k weights kept as they are). */
static pt_status read_router(const hf *h, pt_model *m, const char *dflt_score, const char *dflt_topk,
                             double dflt_scale, int dflt_norm)
{
    char score[32], method[32];
    int norm = dflt_norm;
    double scale = dflt_scale;
    pt_strlcpy(score, dflt_score, sizeof score);
    pt_strlcpy(method, dflt_topk, sizeof method);
    TRY(pt_json_str(h->jc, h->obj, h->path, "scoring_func", 0, score, sizeof score, NULL));
    TRY(pt_json_str(h->jc, h->obj, h->path, "topk_method", 0, method, sizeof method, NULL));
    TRY(get_bool(h, "norm_topk_prob", dflt_norm, &norm));
    if (strcmp(score, "sigmoid") == 0) m->router_sigmoid = 1;
    else if (strcmp(score, "softmax") != 0)
        return key_err(h, "scoring_func", "is not \"softmax\" or \"sigmoid\"");
    m->router_expert_bias = strcmp(method, "noaux_tc") == 0;
    m->router_pre_softmax = !m->router_sigmoid && !norm;
    TRY(get_posnum(h, "routed_scaling_factor", &scale)); /* dflt_scale 0: none */
    m->router_topk_scale = scale == 1.0 ? 0.0 : scale;
    return PT_OK;
}

/* heads | hidden when head_dim is derived (then sets it), kv_heads | heads. */
static pt_status heads_shape(const hf *h, pt_model *m, const char *heads_key,
                             const char *hidden_key, const char *kv_key, int head_dim_given)
{
    if (!head_dim_given) {
        if (m->hidden % m->heads != 0)
            return key_err(h, heads_key, "does not divide %s=%lld", hidden_key,
                           (long long)m->hidden);
        m->head_dim = m->hidden / m->heads;
    }
    if (m->heads % m->kv_heads != 0) {
        if (!json_object_get(h->obj, kv_key)) /* the class default: blame the key that is there */
            return key_err(h, heads_key, "is not a multiple of the %lld key/value heads %s defaults to",
                           (long long)m->kv_heads, kv_key);
        return key_err(h, kv_key, "does not divide %s=%lld", heads_key, (long long)m->heads);
    }
    return PT_OK;
}

/* window_layers from a layer_types list (transformers: one "sliding_attention"
 * or "full_attention" per layer); *given 0 when the config has none. */
static pt_status layer_types_windows(const hf *h, pt_model *m, int *given)
{
    const json_t *lt = json_object_get(h->obj, "layer_types");
    *given = lt && !json_is_null(lt);
    if (!*given) return PT_OK;
    if (!json_is_array(lt) || (int64_t)json_array_size(lt) != m->layers)
        return key_err(h, "layer_types", "is not a list of num_hidden_layers=%lld layer types",
                       (long long)m->layers);
    m->window_layers = 0;
    for (size_t i = 0; i < json_array_size(lt); i++) {
        const char *t = json_string_value(json_array_get(lt, i));
        if (!t || (strcmp(t, "sliding_attention") && strcmp(t, "full_attention")))
            return key_err(h, "layer_types", "holds a value that is not \"sliding_attention\" "
                           "or \"full_attention\"");
        m->window_layers += strcmp(t, "sliding_attention") == 0;
    }
    return PT_OK;
}

/* Sliding-window attention of the llama-style types (transformers):
 * MistralConfig sliding_window 4096 by default, on every layer (null: none);
 * MixtralConfig and Phi3Config None by default (Phi-3-mini-4k gives 2047,
 * on every layer); Qwen2Config and Qwen3Config slide only with
 * use_sliding_window (default false), on the layers i >= max_window_layers
 * (default 28).  A layer_types list, where given, says which layers slide.
 * Other types (llama, nemotron) have no window; gpt_oss reads its own. */
static pt_status read_window(const hf *h, const char *type, pt_model *m)
{
    int qwen = strncmp(type, "qwen", 4) == 0, use = 1, given = 0, found = 0;
    int64_t w = strcmp(type, "mistral") == 0 || qwen ? 4096 : 0, from = qwen ? 28 : 0;
    const json_t *j = json_object_get(h->obj, "sliding_window");
    if (!qwen && strcmp(type, "mistral") && strcmp(type, "mixtral") && strcmp(type, "phi3"))
        return PT_OK; /* llama: no window */
    if (qwen) {
        TRY(get_bool(h, "use_sliding_window", 0, &use));
        TRY(pt_json_int(h->jc, h->obj, h->path, "max_window_layers", 0, 0, PT_MODEL_DIM_MAX, &from, NULL));
    }
    if (j && json_is_null(j)) w = 0;
    TRY(get_pos(h, "sliding_window", 0, &w, &found));
    m->window = m->window_layers = 0;
    TRY(layer_types_windows(h, m, &given)); /* a layer_types list overrides the rest */
    if (!given && !use) return PT_OK;
    if (w == 0) { /* sliding_window null: no window, so no layer may slide */
        if (given && m->window_layers > 0)
            return key_err(h, "layer_types", "names sliding_attention layers but sliding_window is null");
        m->window_layers = 0;
        return PT_OK;
    }
    m->window = w;
    if (!given) m->window_layers = qwen ? (from < m->layers ? m->layers - from : 0) : m->layers;
    if (m->window_layers == 0) m->window = 0;
    return PT_OK;
}

/* ---- llama, mistral, qwen2, qwen3, phi3, nemotron --------------------------
 * Phi3Config has LlamaConfig's keys and defaults (its q/k/v and gate/up
 * projections fused into one matrix each: the same parameters and FLOPs).
 * LlamaConfig: num_key_value_heads None -> num_attention_heads, head_dim None ->
 * hidden_size // num_attention_heads, hidden_act "silu", tie_word_embeddings
 * False, attention_bias/mlp_bias False; RMSNorm; gated MLP (gate, up, down).
 * Qwen2 always has q/k/v biases.  NemotronConfig: the same keys, but an
 * ungated MLP with squared ReLU ("relu2") and LayerNorm1P (with bias). */
static pt_status read_llama(const hf *h, const char *type, pt_model *m)
{
    int nemotron = strcmp(type, "nemotron") == 0;
    int kv_found = 0, hd_found = 0, ab = 0, mb = 0;
    TRY(get_pos(h, "hidden_size", 1, &m->hidden, NULL));
    TRY(get_pos(h, "intermediate_size", 1, &m->ffn, NULL));
    TRY(get_pos(h, "num_hidden_layers", 1, &m->layers, NULL));
    TRY(get_pos(h, "num_attention_heads", 1, &m->heads, NULL));
    TRY(get_pos(h, "num_key_value_heads", 0, &m->kv_heads, &kv_found));
    if (!kv_found) m->kv_heads = m->heads;
    TRY(get_pos(h, "head_dim", 0, &m->head_dim, &hd_found));
    TRY(get_pos(h, "vocab_size", 1, &m->vocab, NULL));
    TRY(get_pos(h, "max_position_embeddings", 1, &m->max_seq, NULL));
    TRY(heads_shape(h, m, "num_attention_heads", "hidden_size", "num_key_value_heads",
                    hd_found));
    TRY(get_bool(h, "tie_word_embeddings", 0, &m->tied_embeddings));
    TRY(get_act(h, "hidden_act", nemotron ? "relu2" : "silu", &m->act));
    TRY(get_bool(h, "attention_bias", 0, &ab));
    TRY(get_bool(h, "mlp_bias", 0, &mb));
    TRY(get_drop(h, "attention_dropout", 0.0, &m->dropout));
    m->gated_mlp = !nemotron;
    m->norm_bias = nemotron;
    m->linear_bias = mb;
    m->qkv_bias = ab || strcmp(type, "qwen2") == 0;
    m->learned_pos = 0;
    TRY(read_rope(h, m, "rope_theta", 10000.0));
    return read_window(h, type, m);
}

/* ---- gemma2, gemma3_text ------------------------------------------------------
 * Gemma2Config and Gemma3TextConfig (transformers configuration_gemma2.py,
 * configuration_gemma3.py): the llama keys, but head_dim 256 by default (not
 * hidden_size // num_attention_heads: Gemma 2 9B's 16 heads of 256 are 4096
 * wide on a 3584 hidden size), num_key_value_heads 4, hidden_activation
 * "gelu_pytorch_tanh" into a gated MLP (GeGLU), tied embeddings, vocab_size
 * 256000 / 262208, max_position_embeddings 8192 / 131072, rope_theta 10000 /
 * 1000000 (Gemma 3's local layers use rope_local_base_freq 10000; the
 * exports carry the global one), sliding_window 4096 on the layers
 * layer_types marks "sliding_attention", or where it is absent: Gemma 2
 * every other layer from the first (modeling_gemma2: is_sliding = not
 * layer_idx % 2), Gemma 3 all but every sliding_window_pattern-th (default
 * 6: five local to one global; modeling_gemma3: is_sliding = (layer_idx + 1)
 * % pattern != 0).  Left out: the pre/post-feedforward norms (4 RMSNorms a
 * layer, not 2) and Gemma 3's q/k norms, 2 h + 2 head_dim parameters a
 * layer; the logit soft-capping, which costs no GEMM. */
static pt_status read_gemma(const hf *h, const char *type, pt_model *m)
{
    int g3 = strcmp(type, "gemma3_text") == 0, found = 0, given = 0, ab = 0;
    int64_t pattern = 6;
    const json_t *j;
    m->kv_heads = 4;
    m->head_dim = 256;
    m->vocab = g3 ? 262208 : 256000;
    m->max_seq = g3 ? 131072 : 8192;
    TRY(get_pos(h, "hidden_size", 1, &m->hidden, NULL));
    TRY(get_pos(h, "intermediate_size", 1, &m->ffn, NULL));
    TRY(get_pos(h, "num_hidden_layers", 1, &m->layers, NULL));
    TRY(get_pos(h, "num_attention_heads", 1, &m->heads, NULL));
    TRY(get_pos(h, "num_key_value_heads", 0, &m->kv_heads, NULL));
    TRY(get_pos(h, "head_dim", 0, &m->head_dim, NULL));
    TRY(get_pos(h, "vocab_size", 0, &m->vocab, NULL));
    TRY(get_pos(h, "max_position_embeddings", 0, &m->max_seq, NULL));
    TRY(heads_shape(h, m, "num_attention_heads", "hidden_size", "num_key_value_heads", 1));
    TRY(get_bool(h, "tie_word_embeddings", 1, &m->tied_embeddings));
    TRY(get_act(h, json_object_get(h->obj, "hidden_activation") ? "hidden_activation" : "hidden_act",
                "gelu_pytorch_tanh", &m->act));
    TRY(get_bool(h, "attention_bias", 0, &ab));
    TRY(get_drop(h, "attention_dropout", 0.0, &m->dropout));
    m->gated_mlp = 1;
    m->qkv_bias = ab;
    TRY(read_rope(h, m, "rope_theta", g3 ? 1000000.0 : 10000.0));
    m->window = 4096;
    j = json_object_get(h->obj, "sliding_window");
    if (j && json_is_null(j)) m->window = 0;
    else TRY(get_pos(h, "sliding_window", 0, &m->window, &found));
    TRY(layer_types_windows(h, m, &given));
    if (!given) {
        if (g3) TRY(get_pos(h, "sliding_window_pattern", 0, &pattern, &found));
        m->window_layers = g3 ? m->layers - m->layers / pattern : (m->layers + 1) / 2;
    }
    if (m->window == 0 && given && m->window_layers > 0)
        return key_err(h, "layer_types", "names sliding_attention layers but sliding_window is null");
    if (m->window == 0 || m->window_layers == 0) m->window = m->window_layers = 0;
    return PT_OK;
}

/* ---- gpt2 ----------------------------------------------------------------
 * GPT2Config: n_inner None -> 4 * n_embd, activation_function "gelu_new",
 * resid/embd/attn_pdrop 0.1, tie_word_embeddings True; LayerNorm with bias,
 * biases on every Conv1D, learned position embeddings (n_positions). */
static pt_status read_gpt2(const hf *h, const char *type, pt_model *m)
{
    int found = 0;
    (void)type;
    TRY(get_pos(h, "n_embd", 1, &m->hidden, NULL));
    TRY(get_pos(h, "n_layer", 1, &m->layers, NULL));
    TRY(get_pos(h, "n_head", 1, &m->heads, NULL));
    TRY(get_pos(h, "n_inner", 0, &m->ffn, &found));
    if (!found) m->ffn = 4 * m->hidden;
    TRY(get_pos(h, "n_positions", 0, &m->max_seq, &found));
    if (!found) { /* old configs: n_ctx; else n_positions is required */
        TRY(get_pos(h, "n_ctx", 0, &m->max_seq, &found));
        if (!found) TRY(get_pos(h, "n_positions", 1, &m->max_seq, NULL));
    }
    TRY(get_pos(h, "vocab_size", 1, &m->vocab, NULL));
    m->kv_heads = m->heads;
    TRY(heads_shape(h, m, "n_head", "n_embd", "n_head", 0));
    TRY(get_act(h, "activation_function", "gelu_new", &m->act));
    TRY(get_bool(h, "tie_word_embeddings", 1, &m->tied_embeddings));
    TRY(get_drop(h, "resid_pdrop", 0.1, &m->dropout));
    TRY(get_drop(h, "embd_pdrop", 0.1, &m->dropout));
    TRY(get_drop(h, "attn_pdrop", 0.1, &m->dropout));
    m->gated_mlp = 0;
    m->norm_bias = 1;
    m->linear_bias = 1;
    m->learned_pos = 1;
    return PT_OK;
}

/* ---- gpt_neox ------------------------------------------------------------
 * GPTNeoXConfig: hidden_act "gelu", tie_word_embeddings False, attention and
 * hidden dropout 0.0; LayerNorm with bias, biased linears, rotary positions. */
static pt_status read_neox(const hf *h, const char *type, pt_model *m)
{
    (void)type;
    TRY(get_pos(h, "hidden_size", 1, &m->hidden, NULL));
    TRY(get_pos(h, "intermediate_size", 1, &m->ffn, NULL));
    TRY(get_pos(h, "num_hidden_layers", 1, &m->layers, NULL));
    TRY(get_pos(h, "num_attention_heads", 1, &m->heads, NULL));
    TRY(get_pos(h, "vocab_size", 1, &m->vocab, NULL));
    TRY(get_pos(h, "max_position_embeddings", 1, &m->max_seq, NULL));
    m->kv_heads = m->heads;
    TRY(heads_shape(h, m, "num_attention_heads", "hidden_size", "num_attention_heads", 0));
    TRY(get_act(h, "hidden_act", "gelu", &m->act));
    TRY(get_bool(h, "tie_word_embeddings", 0, &m->tied_embeddings));
    TRY(get_drop(h, "attention_dropout", 0.0, &m->dropout));
    TRY(get_drop(h, "hidden_dropout", 0.0, &m->dropout));
    m->gated_mlp = 0;
    m->norm_bias = 1;
    m->linear_bias = 1;
    m->learned_pos = 0;
    TRY(read_rope(h, m, "rotary_emb_base", 10000.0));
    {
        double pct = 0.25; /* GPTNeoXConfig */
        TRY(get_posnum(h, "rotary_pct", &pct));
        if (pct > 1.0) return key_err(h, "rotary_pct", "is above 1 (the share of each head rotated)");
        m->rope_percent = pct < 1.0 ? pct : 0.0;
    }
    return PT_OK;
}

/* ---- mpt (MosaicML) ------------------------------------------------------
 * MPTConfig (llm-foundry): expansion_ratio 4 (ffn = d_model * expansion_ratio,
 * or ffn_config.ffn_hidden_size), no_bias True (no linear or LayerNorm biases),
 * learned_pos_emb True unless attn_config.alibi, resid/emb_pdrop 0.0, output
 * layer tied to wte; attn_config.attn_type multihead / multiquery (1 kv head) /
 * grouped_query (attn_config.kv_n_heads, default 1); GELU MLP. */
static pt_status read_mpt(const hf *h, const char *type, pt_model *m)
{
    hf attn, ffnc;
    char apath[256], fpath[256], atype[64] = "multihead_attention";
    double ratio = 4.0;
    int found = 0, no_bias = 1, lpe = 1, alibi = 0;
    (void)type;
    TRY(get_pos(h, "d_model", 1, &m->hidden, NULL));
    TRY(get_pos(h, "n_heads", 1, &m->heads, NULL));
    TRY(get_pos(h, "n_layers", 1, &m->layers, NULL));
    TRY(get_obj(h, "ffn_config", &ffnc, fpath, sizeof fpath));
    TRY(get_pos(&ffnc, "ffn_hidden_size", 0, &m->ffn, &found));
    if (!found) {
        double f;
        int rfound = 0;
        TRY(pt_json_num(h->jc, h->obj, h->path, "expansion_ratio", 0, &ratio, &rfound));
        f = ratio * (double)m->hidden;
        if (!rfound && f > (double)PT_MODEL_DIM_MAX) /* the default ratio: blame d_model */
            return key_err(h, "d_model", "times the default expansion_ratio 4 is larger than "
                           "%lld", (long long)PT_MODEL_DIM_MAX);
        if (!(ratio > 0.0) || f != floor(f) || f > (double)PT_MODEL_DIM_MAX)
            return key_err(h, "expansion_ratio", "times d_model=%lld is not a whole number "
                           "in [1, %lld]", (long long)m->hidden, (long long)PT_MODEL_DIM_MAX);
        m->ffn = (int64_t)f;
    }
    TRY(get_pos(h, "max_seq_len", 1, &m->max_seq, NULL));
    TRY(get_pos(h, "vocab_size", 1, &m->vocab, NULL));
    TRY(get_obj(h, "attn_config", &attn, apath, sizeof apath));
    TRY(pt_json_str(h->jc, attn.obj, attn.path, "attn_type", 0, atype, sizeof atype, NULL));
    if (strcmp(atype, "multihead_attention") == 0) {
        m->kv_heads = m->heads;
    } else if (strcmp(atype, "multiquery_attention") == 0) {
        m->kv_heads = 1;
    } else if (strcmp(atype, "grouped_query_attention") == 0) {
        m->kv_heads = 1;
        TRY(get_pos(&attn, "kv_n_heads", 0, &m->kv_heads, NULL));
    } else {
        return key_err(&attn, "attn_type", "is not multihead_attention, multiquery_attention "
                       "or grouped_query_attention");
    }
    if (m->heads % m->kv_heads != 0)
        return key_err(&attn, "kv_n_heads", "does not divide n_heads=%lld", (long long)m->heads);
    TRY(heads_shape(h, m, "n_heads", "d_model", "n_heads", 0));
    TRY(get_bool(&attn, "alibi", 0, &alibi));
    TRY(get_bool(h, "learned_pos_emb", 1, &lpe));
    TRY(get_bool(h, "no_bias", 1, &no_bias));
    TRY(get_drop(h, "resid_pdrop", 0.0, &m->dropout));
    TRY(get_drop(h, "emb_pdrop", 0.0, &m->dropout));
    TRY(get_drop(&attn, "attn_pdrop", 0.0, &m->dropout));
    m->act = PT_ACT_GELU;
    m->gated_mlp = 0;
    m->tied_embeddings = 1;
    m->learned_pos = lpe && !alibi;
    m->linear_bias = !no_bias;
    m->norm_bias = !no_bias;
    return PT_OK;
}

/* ---- mixture of experts ----------------------------------------------------
 * Key names, as the Hub configs and transformers' classes spell them (see
 * docs/reference/engines-and-formats.md section e, and the configuration
 * classes MixtralConfig, Qwen3MoeConfig, DeepseekV3Config, GptOssConfig):
 *   expert count: num_local_experts (mixtral, gpt_oss), num_experts (qwen2_moe,
 *     qwen3_moe), n_routed_experts (deepseek), num_routed_experts (a Hub copy of
 *     the DeepSeek-V3 config, aliyun/SimAI vidur-alibabacloud/data/hf_configs);
 *   top-k: num_experts_per_tok; gpt_oss's original config.json also has
 *     experts_per_token (openai/gpt-oss-120b, GptOssConfig: 4);
 *   expert width: moe_intermediate_size (qwen, deepseek); intermediate_size
 *     is the expert width in mixtral and gpt_oss (every layer is MoE);
 *   shared experts: n_shared_experts / num_shared_experts times
 *     moe_intermediate_size (deepseek), shared_expert_intermediate_size (qwen2_moe);
 *   dense layers: first_k_dense_replace (deepseek: the first k layers keep the
 *     dense MLP of intermediate_size), mlp_only_layers + decoder_sparse_step
 *     (qwen: layer i is sparse unless listed or (i+1) % step != 0); Partita
 *     places those dense layers first (exact for DeepSeek; Hub Qwen3-MoE configs
 *     have mlp_only_layers [] and step 1, no dense layer at all). */

static const char *const count_keys[] = {
    "num_local_experts", "n_routed_experts", "num_routed_experts", "num_experts", NULL,
};

/* The first of keys[] present: its value into *out, its name into *which. */
static pt_status get_alias(const hf *h, const char *const *keys, int64_t *out, const char **which)
{
    for (size_t i = 0; keys[i]; i++) {
        int f = 0;
        TRY(get_pos(h, keys[i], 0, out, &f));
        if (f) {
            *which = keys[i];
            return PT_OK;
        }
    }
    *which = NULL;
    return PT_OK;
}

/* Expert count (required, one of count_keys) and top-k (default dflt_topk,
 * the configuration class's default). */
static pt_status moe_counts(const hf *h, pt_model *m, int64_t dflt_topk)
{
    static const char *const topk_keys[] = {"num_experts_per_tok", "experts_per_token", NULL};
    const char *ek = NULL, *tk = NULL;
    TRY(get_alias(h, count_keys, &m->experts, &ek));
    if (!ek)
        return key_err(h, "num_local_experts", "required key is missing (the expert count: "
                       "num_local_experts, n_routed_experts, num_routed_experts or num_experts)");
    m->topk = dflt_topk;
    TRY(get_alias(h, topk_keys, &m->topk, &tk));
    if (m->topk > m->experts && tk)
        return key_err(h, tk, "is more than the %lld experts (%s) a token can be routed to",
                       (long long)m->experts, ek);
    if (m->topk > m->experts) /* the default top-k: blame the key that is there */
        return key_err(h, ek, "is fewer than the %lld experts per token num_experts_per_tok "
                       "defaults to", (long long)dflt_topk);
    return PT_OK;
}

/* mixtral: every layer is MoE, intermediate_size is the expert width;
 * MixtralConfig: num_experts_per_tok 2, sliding_window None. */
static pt_status read_mixtral(const hf *h, const char *type, pt_model *m)
{
    TRY(read_llama(h, "llama", m));
    TRY(read_window(h, type, m));
    TRY(moe_counts(h, m, 2));
    m->moe_ffn = m->ffn;
    TRY(read_rope(h, m, "rope_theta", 1e6)); /* MixtralConfig default_theta */
    /* softmax over the experts, top-k renormalised (MixtralSparseMoeBlock) */
    return PT_OK;
}

/* qwen2_moe, qwen3_moe (Qwen3MoeConfig: num_experts 128, num_experts_per_tok
 * 8, decoder_sparse_step 1, mlp_only_layers []; the Hub Qwen3-30B-A3B and
 * -235B-A22B configs give every one of them). */
static pt_status read_qwen_moe(const hf *h, const char *type, pt_model *m)
{
    int64_t step = 1;
    int found = 0;
    const json_t *only = json_object_get(h->obj, "mlp_only_layers");
    TRY(read_llama(h, strcmp(type, "qwen2_moe") == 0 ? "qwen2" : "qwen3", m));
    TRY(moe_counts(h, m, 8));
    TRY(read_router(h, m, "softmax", "greedy", 0.0, 0));
    TRY(get_pos(h, "moe_intermediate_size", 1, &m->moe_ffn, NULL));
    TRY(get_pos(h, "shared_expert_intermediate_size", 0, &m->shared_ffn, &found));
    TRY(get_pos(h, "decoder_sparse_step", 0, &step, NULL));
    if (only && !json_is_null(only) && !json_is_array(only))
        return key_err(h, "mlp_only_layers", "is not a list of layer numbers");
    for (int64_t i = 0; i < m->layers; i++) {
        int dense = (i + 1) % step != 0;
        for (size_t k = 0; !dense && only && k < json_array_size(only); k++)
            if (json_is_integer(json_array_get(only, k)) &&
                json_integer_value(json_array_get(only, k)) == i)
                dense = 1;
        m->dense_layers += dense;
    }
    for (size_t k = 0; only && k < json_array_size(only); k++) {
        const json_t *e = json_array_get(only, k);
        if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) >= m->layers)
            return key_err(h, "mlp_only_layers", "holds %s, not a layer number in [0, %lld)",
                           json_is_integer(e) ? "a number out of range" : "something else",
                           (long long)m->layers);
    }
    if (m->dense_layers == m->layers)
        return key_err(h, json_object_get(h->obj, "decoder_sparse_step") && step > 1 ? "decoder_sparse_step"
                       : only && json_array_size(only) > 0 ? "mlp_only_layers" : "num_hidden_layers",
                       "leaves no MoE layer (num_hidden_layers=%lld, decoder_sparse_step=%lld)",
                       (long long)m->layers, (long long)step);
    return PT_OK;
}

/* Group-limited routing (deepseek, glm4_moe): n_group groups of experts
 * (it must divide them), of which a token may use topk_group; one group
 * (the default) is plain top-k routing. */
static pt_status read_groups(const hf *h, pt_model *m)
{
    int64_t groups = 1, topk_group = 1;
    TRY(get_pos(h, "n_group", 0, &groups, NULL));
    TRY(get_pos(h, "topk_group", 0, &topk_group, NULL));
    if (m->experts % groups)
        return key_err(h, "n_group", "does not divide the %lld routed experts", (long long)m->experts);
    if (topk_group > groups)
        return key_err(h, "topk_group", "is more than n_group=%lld", (long long)groups);
    if (groups > 1) {
        m->router_groups = groups;
        m->router_group_topk = topk_group;
    }
    return PT_OK;
}

/* GLM-5's per-layer lists (transformers GlmMoeDsaConfig): mlp_layer_types
 * "dense" or "sparse" (default: the first first_k_dense_replace dense), and
 * GLM-5.2's indexer_types "full" or "shared" (a shared layer reuses the
 * top-k of the last full one; absent: every layer runs its indexer). */
static pt_status glm_layer_types(const hf *h, pt_model *m)
{
    static const struct { const char *key, *a, *b; } lists[] = {
        {"mlp_layer_types", "dense", "sparse"}, {"indexer_types", "full", "shared"},
    };
    for (int k = 0; k < 2; k++) {
        const json_t *l = json_object_get(h->obj, lists[k].key);
        int64_t n = 0;
        if (!l || json_is_null(l)) continue;
        if (!json_is_array(l) || (int64_t)json_array_size(l) != m->layers)
            return key_err(h, lists[k].key, "is not a list of num_hidden_layers=%lld values", (long long)m->layers);
        for (size_t i = 0; i < json_array_size(l); i++) {
            const char *v = json_string_value(json_array_get(l, i));
            if (!v || (strcmp(v, lists[k].a) && strcmp(v, lists[k].b)))
                return key_err(h, lists[k].key, "holds a value that is not \"%s\" or \"%s\"", lists[k].a,
                               lists[k].b);
            n += strcmp(v, lists[k].a) == 0;
        }
        if (k == 0) {
            if (n == m->layers) return key_err(h, "mlp_layer_types", "leaves no MoE (\"sparse\") layer");
            m->dense_layers = n;
        } else {
            if (n == 0) return key_err(h, "indexer_types", "has no \"full\" layer to share");
            m->index_layers = n < m->layers ? n : 0;
        }
    }
    return PT_OK;
}

/* deepseek_v2, deepseek_v3 (DeepseekV3Config), deepseek_v32 (DeepSeek-V3.2:
 * V3's keys and index_topk 2048, index_n_heads 64, index_head_dim 128 for
 * its sparse attention): MLA, n_shared_experts 1,
 * first_k_dense_replace 3, num_experts_per_tok 8, n_group / topk_group
 * (group-limited routing: n_group must divide the experts), moe_layer_freq 1,
 * num_nextn_predict_layers (V3's multi-token prediction: 1). */
static pt_status read_deepseek(const hf *h, const char *type, pt_model *m)
{
    static const char *const shared_keys[] = {"n_shared_experts", "num_shared_experts", NULL};
    int glm = strcmp(type, "glm_moe_dsa") == 0;
    int v3 = strcmp(type, "deepseek_v3") == 0 || strcmp(type, "deepseek_v32") == 0 || strcmp(type, "kimi_k2") == 0 ||
             glm, found = 0;
    int64_t shared = v3 ? 1 : 0, freq = 1;
    const char *sk = NULL;
    const json_t *ql = json_object_get(h->obj, "q_lora_rank");
    TRY(get_pos(h, "hidden_size", 1, &m->hidden, NULL));
    TRY(get_pos(h, "intermediate_size", 1, &m->ffn, NULL));
    TRY(get_pos(h, "moe_intermediate_size", 1, &m->moe_ffn, NULL));
    TRY(get_pos(h, "num_hidden_layers", 1, &m->layers, NULL));
    TRY(get_pos(h, "num_attention_heads", 1, &m->heads, NULL));
    TRY(get_pos(h, "vocab_size", 1, &m->vocab, NULL));
    TRY(get_pos(h, "max_position_embeddings", 1, &m->max_seq, NULL));
    TRY(moe_counts(h, m, 8));
    TRY(get_alias(h, shared_keys, &shared, &sk));
    if (!sk) {
        int64_t z = 0; /* an explicit 0 shared experts */
        TRY(pt_json_int(h->jc, h->obj, h->path, "n_shared_experts", 0, 0, 0, &z, &found));
        if (found) shared = 0;
    }
    if (shared > PT_MODEL_DIM_MAX / m->moe_ffn)
        return key_err(h, sk ? sk : "n_shared_experts", "times moe_intermediate_size is larger than %lld",
                       (long long)PT_MODEL_DIM_MAX);
    m->shared_ffn = shared * m->moe_ffn;
    m->dense_layers = v3 ? 3 : 0;
    {
        int64_t k = m->dense_layers;
        int64_t z = 0;
        int ffound = 0;
        TRY(pt_json_int(h->jc, h->obj, h->path, "first_k_dense_replace", 0, 0, PT_MODEL_DIM_MAX, &z, &found));
        if (found) k = z;
        TRY(get_pos(h, "moe_layer_freq", 0, &freq, &ffound));
        /* layer i is MoE when i >= k and i % freq == 0 */
        m->dense_layers = 0;
        for (int64_t i = 0; i < m->layers; i++) m->dense_layers += !(i >= k && i % freq == 0);
        if (m->dense_layers == m->layers) /* blame a key that is in the file */
            return key_err(h, found ? "first_k_dense_replace" : ffound ? "moe_layer_freq" : "num_hidden_layers",
                           "leaves no MoE layer (num_hidden_layers=%lld, first_k_dense_replace=%lld%s, "
                           "moe_layer_freq=%lld)", (long long)m->layers, (long long)k,
                           found ? "" : " by default", (long long)freq);
    }
    TRY(read_groups(h, m));
    TRY(read_router(h, m, v3 ? "sigmoid" : "softmax", v3 ? "noaux_tc" : "greedy", v3 ? 2.5 : 0.0, v3));
    TRY(read_rope(h, m, "rope_theta", 10000.0));
    /* MLA: q_lora_rank null (DeepSeek-V2-Lite) projects q directly */
    m->mla = 1;
    if (ql && !json_is_null(ql)) TRY(get_pos(h, "q_lora_rank", 1, &m->q_lora, NULL));
    TRY(get_pos(h, "kv_lora_rank", 1, &m->kv_lora, NULL));
    TRY(get_pos(h, "qk_nope_head_dim", 1, &m->qk_nope, NULL));
    TRY(get_pos(h, "qk_rope_head_dim", 1, &m->qk_rope, NULL));
    TRY(get_pos(h, "v_head_dim", 1, &m->v_head, NULL));
    {
        int64_t z = 0;
        TRY(pt_json_int(h->jc, h->obj, h->path, "num_nextn_predict_layers", 0, 0, PT_MODEL_DIM_MAX,
                        &z, &found));
        if (found) m->mtp_layers = z;
    }
    if (strcmp(type, "deepseek_v32") == 0 || glm) { /* DSA: DeepSeek-V3.2's config.json values */
        m->index_topk = 2048, m->index_heads = glm ? 32 : 64, m->index_head_dim = 128;
        TRY(get_pos(h, "index_topk", 0, &m->index_topk, NULL));
        TRY(get_pos(h, "index_n_heads", 0, &m->index_heads, NULL));
        TRY(get_pos(h, "index_head_dim", 0, &m->index_head_dim, NULL));
    }
    if (glm) TRY(glm_layer_types(h, m));
    m->kv_heads = m->heads;
    m->head_dim = m->qk_nope + m->qk_rope; /* the q.k width, for activation sizes */
    TRY(get_bool(h, "tie_word_embeddings", 0, &m->tied_embeddings));
    TRY(get_act(h, "hidden_act", "silu", &m->act));
    TRY(get_drop(h, "attention_dropout", 0.0, &m->dropout));
    m->gated_mlp = 1;
    return PT_OK;
}

/* glm4_moe (transformers Glm4MoeConfig, modular_glm4_moe.py: GLM-4.5,
 * -Air, 4.6): llama's attention (GQA, head_dim, q/k/v biases with
 * attention_bias, no o_proj bias) with half of each head rotated
 * (partial_rotary_factor 0.5) and DeepSeek-V3's mixture: the first
 * first_k_dense_replace (1) layers dense of intermediate_size, then
 * n_routed_experts (128) of moe_intermediate_size, num_experts_per_tok 8,
 * n_shared_experts (1) shared experts of the same width, a sigmoid router
 * with a score-correction bias (Glm4MoeTopkRouter is DeepseekV3TopkRouter),
 * routed_scaling_factor (1.0), n_group / topk_group (1), norm_topk_prob
 * (true); num_nextn_predict_layers multi-token prediction.  use_qk_norm's
 * q/k norms (2 head_dim a layer) are left out, as qwen3's. */
static pt_status read_glm4_moe(const hf *h, const char *type, pt_model *m)
{
    int64_t shared = 1, k = 1, z = 0;
    int found = 0;
    (void)type;
    TRY(read_llama(h, "llama", m));
    TRY(moe_counts(h, m, 8));
    TRY(get_pos(h, "moe_intermediate_size", 1, &m->moe_ffn, NULL));
    TRY(pt_json_int(h->jc, h->obj, h->path, "n_shared_experts", 0, 0, PT_MODEL_DIM_MAX, &shared, NULL));
    if (shared > PT_MODEL_DIM_MAX / m->moe_ffn)
        return key_err(h, "n_shared_experts", "times moe_intermediate_size is larger than %lld",
                       (long long)PT_MODEL_DIM_MAX);
    m->shared_ffn = shared * m->moe_ffn;
    TRY(pt_json_int(h->jc, h->obj, h->path, "first_k_dense_replace", 0, 0, PT_MODEL_DIM_MAX, &k, &found));
    if (k >= m->layers)
        return key_err(h, found ? "first_k_dense_replace" : "num_hidden_layers",
                       "leaves no MoE layer (num_hidden_layers=%lld, first_k_dense_replace=%lld)",
                       (long long)m->layers, (long long)k);
    m->dense_layers = k;
    TRY(read_groups(h, m));
    TRY(read_router(h, m, "sigmoid", "noaux_tc", 1.0, 1));
    TRY(pt_json_int(h->jc, h->obj, h->path, "num_nextn_predict_layers", 0, 0, PT_MODEL_DIM_MAX, &z, &found));
    if (found) m->mtp_layers = z;
    /* Glm4MoeConfig sets partial_rotary_factor 0.5 unless the config says */
    if (!json_object_get(h->obj, "partial_rotary_factor")) m->rope_percent = 0.5;
    return PT_OK;
}

/* gpt_oss (openai/gpt-oss-120b config.json; transformers GptOssConfig):
 * num_local_experts 128, experts_per_token / num_experts_per_tok 4,
 * intermediate_size 2880 is the expert width, head_dim 64, attention_bias
 * true, biased experts and router, sliding_window 128 on the layers
 * layer_types marks "sliding_attention" (alternating, from layer 0, when
 * layer_types is absent). */
static pt_status read_gpt_oss(const hf *h, const char *type, pt_model *m)
{
    int found = 0;
    (void)type;
    TRY(read_llama(h, "llama", m));
    if (!json_object_get(h->obj, "head_dim")) {
        m->head_dim = 64;
        if (m->heads % m->kv_heads) /* read_llama checked */
            return key_err(h, "num_key_value_heads", "does not divide num_attention_heads");
    }
    TRY(moe_counts(h, m, 4));
    m->moe_ffn = m->ffn;
    m->expert_bias = 1;
    TRY(read_rope(h, m, "rope_theta", 150000.0)); /* GptOssConfig */
    TRY(get_bool(h, "attention_bias", 1, &m->qkv_bias));
    m->window = 128;
    TRY(get_pos(h, "sliding_window", 0, &m->window, &found));
    TRY(layer_types_windows(h, m, &found));
    if (!found) m->window_layers = (m->layers + 1) / 2;
    return PT_OK;
}

/* ---- nemotron_h: hybrid Mamba-2 / attention / MLP / MoE ---------------------
 * transformers NemotronHConfig (modeling_nemotron_h.py) and the Hub configs
 * of nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 and -Super-120B-A12B-BF16:
 * hybrid_override_pattern, one character per block ('M' Mamba-2, '*'
 * attention, '-' MLP, 'E' MoE; Megatron-Core's hybrid_override_pattern
 * uses the same letters), or the newer layers_block_type list ("mamba",
 * "attention", "mlp", "moe"); mamba_num_heads, mamba_head_dim (d_inner is
 * their product, not expand x hidden), ssm_state_size, n_groups,
 * conv_kernel (4), chunk_size (128); MoE keys n_routed_experts,
 * num_experts_per_tok, moe_intermediate_size,
 * moe_shared_expert_intermediate_size (all shared experts together),
 * moe_latent_size (LatentMoE, null: none), routed_scaling_factor,
 * norm_topk_prob; the router scores with a sigmoid and balances with an
 * expert bias (Megatron-Bridge NemotronHModelProvider:
 * moe_router_score_function "sigmoid", moe_router_enable_expert_bias).
 * mlp_hidden_act "relu2" (ungated MLPs and experts), RMSNorm, no biases,
 * untied output layer, no rotary embedding in the attention blocks
 * (Megatron's position_embedding_type "none"). */
/* Block kinds as a pattern string (pat_key: one of M * - E a block) or a
 * list of names (list_key: "mamba", "attention", "mlp", "moe") into buf
 * (size bytes, at most size - 1 kinds); `unit` names a position in the
 * messages ("layer", "block").  *n = 0 where neither key is given. */
static pt_status read_kinds(const hf *h, const char *pat_key, const char *list_key, const char *unit, char *buf,
                            size_t size, size_t *n)
{
    static const struct { const char *name; char k; } kinds[] = {
        {"mamba", 'M'}, {"attention", '*'}, {"mlp", '-'}, {"moe", 'E'},
    };
    const json_t *pat = json_object_get(h->obj, pat_key);
    const json_t *lbt = json_object_get(h->obj, list_key);
    *n = 0;
    if (pat && !json_is_null(pat)) {
        const char *p = json_string_value(pat);
        if (!p) return key_err(h, pat_key, "is not a string");
        *n = strlen(p);
        if (*n == 0 || *n >= size) return key_err(h, pat_key, "is not 1 to %d block kinds", (int)size - 1);
        for (size_t i = 0; i < *n; i++)
            if (!strchr("M*-E", p[i]))
                return key_err(h, pat_key, "holds '%c' at %s %zu, not M (Mamba-2), * (attention), - (MLP) "
                               "or E (MoE)", p[i], unit, i);
        memcpy(buf, p, *n + 1);
    } else if (lbt && !json_is_null(lbt)) {
        *n = json_is_array(lbt) ? json_array_size(lbt) : 0;
        if (*n == 0 || *n >= size) return key_err(h, list_key, "is not a list of 1 to %d block kinds", (int)size - 1);
        for (size_t i = 0; i < *n; i++) {
            const char *t = json_string_value(json_array_get(lbt, i));
            size_t k = 0;
            while (k < sizeof kinds / sizeof kinds[0] && (!t || strcmp(t, kinds[k].name))) k++;
            if (k == sizeof kinds / sizeof kinds[0])
                return key_err(h, list_key, "holds something at %s %zu that is not \"mamba\", \"attention\", "
                               "\"mlp\" or \"moe\"", unit, i);
            buf[i] = kinds[k].k;
        }
        buf[*n] = '\0';
    }
    return PT_OK;
}

static pt_status hybrid_pattern(const hf *h, pt_model *m)
{
    const json_t *pat = json_object_get(h->obj, "hybrid_override_pattern");
    char buf[sizeof m->hybrid];
    size_t n = 0;
    int64_t layers = 0;
    int found = 0;
    TRY(read_kinds(h, "hybrid_override_pattern", "layers_block_type", "layer", buf, sizeof buf, &n));
    if (n == 0)
        return key_err(h, "hybrid_override_pattern", "required key is missing (or layers_block_type): "
                       "the kind of each block");
    TRY(get_pos(h, "num_hidden_layers", 0, &layers, &found));
    if (found && layers != (int64_t)n)
        return key_err(h, pat && !json_is_null(pat) ? "hybrid_override_pattern" : "layers_block_type",
                       "names %zu blocks but num_hidden_layers is %lld", n, (long long)layers);
    m->layers = (int64_t)n;
    pt_strlcpy(m->hybrid, buf, sizeof m->hybrid);
    return PT_OK;
}

/* The block kinds of one multi-token-prediction depth: the Hub configs'
 * mtp_hybrid_override_pattern (Nemotron 3 Super and Ultra: "*E", an
 * attention block and a MoE block) or the list mtp_layers_block_type
 * ("attention", "moe"); neither: one attention block, then a MoE block if
 * the stack has MoE blocks, else an MLP block. */
static pt_status mtp_pattern(const hf *h, pt_model *m)
{
    char buf[sizeof m->mtp_hybrid];
    size_t n = 0;
    TRY(read_kinds(h, "mtp_hybrid_override_pattern", "mtp_layers_block_type", "block", buf, sizeof buf, &n));
    if (n == 0) buf[0] = '*', buf[1] = strchr(m->hybrid, 'E') ? 'E' : '-', buf[2] = '\0';
    pt_strlcpy(m->mtp_hybrid, buf, sizeof m->mtp_hybrid);
    return PT_OK;
}

static pt_status read_nemotron_h(const hf *h, const char *type, pt_model *m)
{
    int hd_found = 0, kv_found = 0, f = 0, has_moe, has_mamba;
    const json_t *lat = json_object_get(h->obj, "moe_latent_size");
    double scale = 1.0;
    (void)type;
    TRY(hybrid_pattern(h, m));
    has_moe = strchr(m->hybrid, 'E') != NULL;
    has_mamba = strchr(m->hybrid, 'M') != NULL;
    TRY(get_pos(h, "hidden_size", 1, &m->hidden, NULL));
    TRY(get_pos(h, "num_attention_heads", 1, &m->heads, NULL));
    TRY(get_pos(h, "num_key_value_heads", 0, &m->kv_heads, &kv_found));
    if (!kv_found) m->kv_heads = m->heads;
    TRY(get_pos(h, "head_dim", 0, &m->head_dim, &hd_found));
    TRY(heads_shape(h, m, "num_attention_heads", "hidden_size", "num_key_value_heads", hd_found));
    TRY(get_pos(h, "vocab_size", 1, &m->vocab, NULL));
    m->max_seq = 4096; /* NemotronHConfig default */
    TRY(get_pos(h, "max_position_embeddings", 0, &m->max_seq, NULL));
    m->ffn = 21504; /* NemotronHConfig default intermediate_size */
    TRY(get_pos(h, "intermediate_size", strchr(m->hybrid, '-') != NULL, &m->ffn, NULL));
    if (has_mamba) {
        TRY(get_pos(h, "mamba_num_heads", 1, &m->mamba_heads, NULL));
        TRY(get_pos(h, "mamba_head_dim", 1, &m->mamba_head_dim, NULL));
        TRY(get_pos(h, "ssm_state_size", 1, &m->mamba_state, NULL));
        TRY(get_pos(h, "n_groups", 1, &m->mamba_groups, NULL));
        m->mamba_conv = 4;
        m->mamba_chunk = 128;
        TRY(get_pos(h, "conv_kernel", 0, &m->mamba_conv, NULL));
        TRY(get_pos(h, "chunk_size", 0, &m->mamba_chunk, NULL));
        if (m->mamba_heads % m->mamba_groups)
            return key_err(h, "n_groups", "does not divide mamba_num_heads=%lld", (long long)m->mamba_heads);
    }
    if (has_moe) {
        TRY(moe_counts(h, m, 8));
        TRY(get_pos(h, "moe_intermediate_size", 1, &m->moe_ffn, NULL));
        TRY(get_pos(h, "moe_shared_expert_intermediate_size", 0, &m->shared_ffn, NULL));
        if (lat && !json_is_null(lat)) TRY(get_pos(h, "moe_latent_size", 1, &m->moe_latent, NULL));
        /* every block that is not 'E' keeps no experts */
        m->dense_layers = m->layers - pt_model_kind_layers(m, 'E', 0, m->layers);
        m->router_sigmoid = 1;
        m->router_expert_bias = 1;
        TRY(get_bool(h, "norm_topk_prob", 1, &f));
        TRY(get_posnum(h, "routed_scaling_factor", &scale));
        m->router_topk_scale = scale == 1.0 ? 0.0 : scale;
    } else if (json_object_get(h->obj, "n_routed_experts")) {
        int64_t e = 0;
        TRY(pt_json_int(h->jc, h->obj, h->path, "n_routed_experts", 0, 0, INT64_MAX, &e, NULL));
        if (e > 0)
            return key_err(h, "n_routed_experts", "gives experts but the pattern has no E (MoE) block");
    }
    {
        int64_t z = 0;
        TRY(pt_json_int(h->jc, h->obj, h->path, "num_nextn_predict_layers", 0, 0, PT_MODEL_DIM_MAX, &z, &f));
        if (f) m->mtp_layers = z;
        TRY(mtp_pattern(h, m)); /* also where none is trained: --mtp N may ask for them */
    }
    TRY(get_act(h, "mlp_hidden_act", "relu2", &m->act));
    TRY(get_bool(h, "tie_word_embeddings", 0, &m->tied_embeddings));
    TRY(get_bool(h, "mlp_bias", 0, &m->linear_bias));
    TRY(get_bool(h, "attention_bias", 0, &m->qkv_bias));
    TRY(get_drop(h, "attention_dropout", 0.0, &m->dropout));
    TRY(get_drop(h, "hidden_dropout", 0.0, &m->dropout));
    m->gated_mlp = 0;
    m->norm_bias = 0;
    m->learned_pos = 0;
    m->rope_theta = 0.0;
    return PT_OK;
}

/* ---- llama4 ------------------------------------------------------------------
 * Llama 4 (transformers Llama4TextConfig, configuration_llama4.py; the Hub
 * configs of Llama-4-Scout-17B-16E and -Maverick-17B-128E): model_type
 * "llama4" is the vision-language wrapper, whose "text_config" (model_type
 * "llama4_text") is the language model read here -- the vision encoder is
 * not priced.  The llama keys, head_dim 128, tie_word_embeddings false, and:
 *  - MoE on the layers moe_layers lists, by default every
 *    interleave_moe_layer_step-th (range(step - 1, layers, step): Scout 1,
 *    all; Maverick 2, the odd ones); each has num_local_experts routed
 *    experts and one shared expert, all of intermediate_size, top-1
 *    (num_experts_per_tok) with sigmoid scores (Llama4Router); the other
 *    layers a dense MLP of intermediate_size_mlp.  Partita places those
 *    dense layers first, as for qwen2_moe's sparse steps;
 *  - chunked attention on the layers layer_types marks "chunked_attention",
 *    or where it is absent those no_rope_layers marks 1 (they use RoPE),
 *    by default all but every fourth (no_rope_layer_interval 4: (i + 1) % 4
 *    != 0); the chunk is attention_chunk_size (default 8192); the fourth
 *    layers attend to the whole causal prefix without RoPE;
 *  - use_qk_norm's L2 norms have no weights. */
static pt_status read_llama4(const hf *h, const char *type, pt_model *m)
{
    hf t;
    char path[256];
    const json_t *lt, *nr, *ml;
    int64_t step = 1, chunk = 8192, moe = 0;
    int found = 0;
    if (strcmp(type, "llama4") == 0) {
        TRY(get_obj(h, "text_config", &t, path, sizeof path));
        if (!t.obj)
            return key_err(h, "text_config", "required key is missing (a llama4 config holds its language model "
                           "there)");
        h = &t;
    }
    TRY(read_llama(h, "llama", m));
    if (!json_object_get(h->obj, "head_dim")) { /* Llama4TextConfig: head_dim 128 */
        m->head_dim = 128;
        TRY(heads_shape(h, m, "num_attention_heads", "hidden_size", "num_key_value_heads", 1));
    }
    TRY(moe_counts(h, m, 1));
    m->moe_ffn = m->shared_ffn = m->ffn;
    m->ffn = 16384; /* intermediate_size_mlp's default */
    TRY(get_pos(h, "intermediate_size_mlp", 0, &m->ffn, NULL));
    TRY(get_pos(h, "interleave_moe_layer_step", 0, &step, NULL));
    ml = json_object_get(h->obj, "moe_layers");
    if (ml && !json_is_null(ml)) {
        if (!json_is_array(ml)) return key_err(h, "moe_layers", "is not a list of layer numbers");
        for (size_t k = 0; k < json_array_size(ml); k++) {
            const json_t *e = json_array_get(ml, k);
            if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) >= m->layers)
                return key_err(h, "moe_layers", "holds %s, not a layer number in [0, %lld)",
                               json_is_integer(e) ? "a number out of range" : "something else",
                               (long long)m->layers);
            moe++;
        }
    } else {
        moe = (m->layers - (step - 1) + step - 1) / step; /* len(range(step - 1, layers, step)) */
        if (step > m->layers) moe = 0;
    }
    if (moe == 0)
        return key_err(h, ml && !json_is_null(ml) ? "moe_layers" : "interleave_moe_layer_step",
                       "leaves no MoE layer (num_hidden_layers=%lld)", (long long)m->layers);
    m->dense_layers = m->layers - moe;
    m->router_sigmoid = 1;
    /* chunked attention */
    TRY(get_pos(h, "attention_chunk_size", 0, &chunk, &found));
    m->window = chunk;
    m->window_layers = 0;
    lt = json_object_get(h->obj, "layer_types");
    nr = json_object_get(h->obj, "no_rope_layers");
    if (lt && !json_is_null(lt)) {
        if (!json_is_array(lt) || (int64_t)json_array_size(lt) != m->layers)
            return key_err(h, "layer_types", "is not a list of num_hidden_layers=%lld layer types",
                           (long long)m->layers);
        for (size_t i = 0; i < json_array_size(lt); i++) {
            const char *v = json_string_value(json_array_get(lt, i));
            if (!v || (strcmp(v, "chunked_attention") && strcmp(v, "full_attention")))
                return key_err(h, "layer_types", "holds a value that is not \"chunked_attention\" "
                               "or \"full_attention\"");
            m->window_layers += strcmp(v, "chunked_attention") == 0;
        }
    } else if (nr && json_is_array(nr) && json_array_size(nr) > 0) {
        if ((int64_t)json_array_size(nr) != m->layers)
            return key_err(h, "no_rope_layers", "is not a list of num_hidden_layers=%lld flags",
                           (long long)m->layers);
        for (size_t i = 0; i < json_array_size(nr); i++) {
            const json_t *e = json_array_get(nr, i);
            if (!json_is_integer(e) || (json_integer_value(e) != 0 && json_integer_value(e) != 1))
                return key_err(h, "no_rope_layers", "holds a value that is not 0 or 1");
            m->window_layers += json_integer_value(e) == 1;
        }
    } else if (nr && !json_is_null(nr) && !json_is_array(nr)) {
        return key_err(h, "no_rope_layers", "is not a list of 0/1 flags");
    } else {
        for (int64_t i = 0; i < m->layers; i++) m->window_layers += (i + 1) % 4 != 0;
    }
    m->window_chunked = 1;
    if (m->window_layers == 0) m->window = m->window_chunked = 0;
    return PT_OK;
}

/* ---- minimax_m2 ---------------------------------------------------------------
 * MiniMax-M2 (config.json of MiniMaxAI/MiniMax-M2, MiniMaxM2ForCausalLM):
 * llama's GQA attention (head_dim 128) on every layer, rotary on rotary_dim
 * of each head's dims (64 of 128: rope_percent 0.5), and a mixture on every
 * layer: num_local_experts of intermediate_size, num_experts_per_tok routed
 * by sigmoid scores with a routing bias (use_routing_bias), and shared
 * experts of shared_intermediate_size where it is not 0.  Its q/k norms
 * (use_qk_norm, over all heads: (heads + kv_heads) x head_dim a layer) and
 * its multi-token-prediction modules (num_mtp_modules) are left out, as
 * qwen3's norms and DeepSeek's modules are. */
static pt_status read_minimax_m2(const hf *h, const char *type, pt_model *m)
{
    int64_t rot = 0, mtp = 0;
    int found = 0, bias = 0;
    (void)type;
    TRY(read_llama(h, "llama", m));
    TRY(moe_counts(h, m, 8));
    m->moe_ffn = m->ffn;
    TRY(pt_json_int(h->jc, h->obj, h->path, "shared_intermediate_size", 0, 0, PT_MODEL_DIM_MAX, &m->shared_ffn,
                    NULL));
    TRY(read_router(h, m, "sigmoid", "greedy", 0.0, 1));
    TRY(get_bool(h, "use_routing_bias", 0, &bias));
    m->router_expert_bias = bias;
    TRY(get_pos(h, "rotary_dim", 0, &rot, &found));
    if (found && rot > m->head_dim)
        return key_err(h, "rotary_dim", "is more than head_dim=%lld", (long long)m->head_dim);
    if (found && rot < m->head_dim) m->rope_percent = (double)rot / (double)m->head_dim;
    TRY(pt_json_int(h->jc, h->obj, h->path, "num_mtp_modules", 0, 0, PT_MODEL_DIM_MAX, &mtp, &found));
    if (found) m->mtp_layers = mtp;
    return PT_OK;
}

/* ---- dispatch -------------------------------------------------------------- */

typedef pt_status (*hf_reader)(const hf *h, const char *type, pt_model *m);

static const struct {
    const char *type;
    hf_reader read;
    int moe; /* 1: a mixture-of-experts model type */
} readers[] = {
    {"llama", read_llama, 0},         {"mistral", read_llama, 0},      {"qwen2", read_llama, 0},
    {"qwen3", read_llama, 0},         {"nemotron", read_llama, 0},     {"gpt2", read_gpt2, 0},
    {"gemma2", read_gemma, 0},        {"gemma3_text", read_gemma, 0},  {"phi3", read_llama, 0},
    {"gpt_neox", read_neox, 0},       {"mpt", read_mpt, 0},            {"mixtral", read_mixtral, 1},
    {"qwen2_moe", read_qwen_moe, 1},  {"qwen3_moe", read_qwen_moe, 1}, {"deepseek_v2", read_deepseek, 1},
    {"deepseek_v3", read_deepseek, 1}, {"deepseek_v32", read_deepseek, 1}, {"glm_moe_dsa", read_deepseek, 1},
    {"gpt_oss", read_gpt_oss, 1},      {"minimax_m2", read_minimax_m2, 1}, {"kimi_k2", read_deepseek, 1},   {"nemotron_h", read_nemotron_h, 1},
    {"glm4_moe", read_glm4_moe, 1},   {"llama4", read_llama4, 1},      {"llama4_text", read_llama4, 1},
};

/* Mixture-of-experts model types Partita cannot read yet. */
static const char *const moe_types[] = {
    "olmoe", "phimoe", "granitemoe", "dbrx", "jetmoe", NULL,
};

/* "KEY VALUE: ..." for a MoE config Partita does not read. */
static pt_status moe_err(const hf *h, const char *key, const char *why)
{
    pt_diag *d = h->jc->d;
    key_err(h, key, "is a mixture-of-experts model");
    snprintf(d->msg, sizeof d->msg, "%.40s %.40s: %.160s (mixture-of-experts model types: %s)", d->field,
             d->value, why, supported_moe);
    return PT_EINPUT;
}

/* Vision-language configs whose language model Partita reads from their
 * text_config (the vision encoder is not priced): Gemma 3 (text model
 * gemma3_text) and Kimi K2.5/K2.6 (kimi_k25, a DeepSeek-V3 text model of
 * model_type kimi_k2 or deepseek_v3).  Llama 4's wrapper is read_llama4's. */
static const struct {
    const char *type, *text_type;
} wrappers[] = {
    {"gemma3", "gemma3_text"},
    {"kimi_k25", "kimi_k2"},
};

pt_status pt_hf_read_json(pt_jctx *jc, const json_t *cfg, const char *path, pt_model *out)
{
    hf h;
    pt_model m;
    char type[128];
    int found = 0;
    size_t i;
    assert(jc && jc->d && out);
    h.jc = jc;
    h.obj = cfg;
    h.path = path ? path : "";
    memset(&m, 0, sizeof m);

    TRY(pt_json_str(jc, cfg, h.path, "model_type", 0, type, sizeof type, &found));
    if (!found)
        return key_err(&h, "model_type", "required key is missing (supported: %s)", supported);
    for (i = 0; moe_types[i]; i++)
        if (strcmp(type, moe_types[i]) == 0)
            return moe_err(&h, "model_type", "this model type is not supported yet");
    for (i = 0; i < sizeof readers / sizeof readers[0]; i++)
        if (strcmp(type, readers[i].type) == 0) break;
    /* a dense model_type with experts: the config is not what it says */
    if (i < sizeof readers / sizeof readers[0] && !readers[i].moe)
        for (size_t k = 0; count_keys[k]; k++) {
            int64_t n = 0;
            TRY(pt_json_int(jc, cfg, h.path, count_keys[k], 0, 0, INT64_MAX, &n, &found));
            if (found && n > 1) {
                char why[256];
                snprintf(why, sizeof why, "model_type \"%s\" is a dense model; a config with "
                         "experts names its MoE model_type", type);
                return moe_err(&h, count_keys[k], why);
            }
        }
    /* a vision-language config: its text model, with the wrapper's
     * tie_word_embeddings where the text model does not say */
    for (size_t w = 0; i == sizeof readers / sizeof readers[0] && w < sizeof wrappers / sizeof wrappers[0]; w++) {
        hf t;
        char tpath[256];
        const json_t *tt;
        if (strcmp(type, wrappers[w].type)) continue;
        TRY(get_obj(&h, "text_config", &t, tpath, sizeof tpath));
        if (!t.obj)
            return key_err(&h, "text_config", "required key is missing (a %s config holds its language model there)",
                           type);
        tt = json_object_get(t.obj, "model_type");
        if (tt && !json_is_string(tt)) return key_err(&t, "model_type", "is not a string");
        {
            json_t *copy = json_deep_copy(t.obj);
            pt_status st;
            if (!copy) return pt_diag_set(jc->d, NULL, NULL, NULL, "out of memory");
            if (!tt) json_object_set_new(copy, "model_type", json_string(wrappers[w].text_type));
            if (!json_object_get(copy, "tie_word_embeddings") && json_object_get(cfg, "tie_word_embeddings"))
                json_object_set(copy, "tie_word_embeddings", json_object_get(cfg, "tie_word_embeddings"));
            st = pt_hf_read_json(jc, copy, tpath, out);
            json_decref(copy);
            return st;
        }
    }
    if (i == sizeof readers / sizeof readers[0])
        return key_err(&h, "model_type", "is not a supported model_type (supported: %s)",
                       supported);
    TRY(readers[i].read(&h, type, &m));
    pt_strlcpy(m.family, type, sizeof m.family);

    if (pt_model_check(&m, jc->d) != PT_OK) {
        /* The readers refuse each key themselves; this guards the limits that
         * span keys (the parameter count).  Point at the config. */
        int line = 0, col = 0;
        pt_strlcpy(jc->d->file, jc->file ? jc->file : "", sizeof jc->d->file);
        if (jc->text && pt_json_locate(jc->text, h.path, &line, &col)) {
            jc->d->line = line;
            jc->d->col = col;
        }
        return PT_EINPUT;
    }
    *out = m;
    return PT_OK;
}

pt_status pt_hf_parse(const char *text, const char *file, pt_model *out, pt_diag *d)
{
    pt_diag local;
    pt_jctx jc;
    json_t *root;
    pt_model m;
    pt_status st;
    assert(text && out);
    if (!d) d = &local;
    jc.text = text;
    jc.file = file ? file : "";
    jc.d = d;
    root = pt_json_parse(&jc);
    if (!root) return PT_EINPUT;
    st = pt_hf_read_json(&jc, root, "", &m);
    json_decref(root);
    if (st != PT_OK) return st;
    pt_strlcpy(m.name, file && file[0] ? file : "config.json", sizeof m.name);
    *out = m;
    return PT_OK;
}
