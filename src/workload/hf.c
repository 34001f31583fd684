/*
 * hf.c -- reads a Hugging Face config.json (a dense transformer) into a pt_model.
 *
 * What it does: maps the keys of each supported model_type onto pt_model, with
 * the defaults of transformers' configuration classes (LlamaConfig, GPT2Config,
 * GPTNeoXConfig, NemotronConfig, ...; MPTConfig from mosaicml/llm-foundry), and
 * names the key, its value and its line:col when a key it needs is missing, of
 * the wrong type or impossible.  Keys it does not need are ignored: Hub configs
 * carry many (rope_theta, torch_dtype, bos_token_id, ...).
 * What it does not: mixture-of-experts or MLA models (refused with a message
 * naming the key), encoder or encoder-decoder models, rope scaling (no effect
 * on parameters or FLOPs here).
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

static const char supported[] = "llama, mistral, qwen2, qwen3, gpt2, gpt_neox, nemotron, mpt";

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
    if (m->heads % m->kv_heads != 0)
        return key_err(h, kv_key, "does not divide %s=%lld", heads_key, (long long)m->heads);
    return PT_OK;
}

/* ---- llama, mistral, qwen2, qwen3, nemotron -------------------------------
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

/* ---- dispatch -------------------------------------------------------------- */

typedef pt_status (*hf_reader)(const hf *h, const char *type, pt_model *m);

static const struct {
    const char *type;
    hf_reader read;
} readers[] = {
    {"llama", read_llama}, {"mistral", read_llama},   {"qwen2", read_llama},
    {"qwen3", read_llama}, {"nemotron", read_llama}, {"gpt2", read_gpt2},
    {"gpt_neox", read_neox}, {"mpt", read_mpt},
};

static const char *const moe_types[] = {
    "mixtral", "qwen2_moe", "qwen3_moe", "deepseek_v2", "deepseek_v3", "olmoe",
    "phimoe",  "granitemoe", "dbrx", "jetmoe", NULL,
};

/* Keys that carry the expert count (SPEC section 3; the SimAI copy of the
 * DeepSeek-V3 config spells it num_routed_experts). */
static const char *const expert_keys[] = {
    "num_local_experts", "n_routed_experts", "num_routed_experts", "num_experts", NULL,
};

/* "KEY VALUE: mixture-of-experts models are not supported yet (...)". */
static pt_status moe_err(const hf *h, const char *key)
{
    pt_diag *d = h->jc->d;
    key_err(h, key, "is a mixture-of-experts model");
    snprintf(d->msg, sizeof d->msg,
             "%s %s: mixture-of-experts models are not supported yet (dense transformers only)",
             d->field, d->value);
    return PT_EINPUT;
}

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
        if (strcmp(type, moe_types[i]) == 0) return moe_err(&h, "model_type");
    for (i = 0; expert_keys[i]; i++) {
        int64_t n = 0;
        TRY(pt_json_int(jc, cfg, h.path, expert_keys[i], 0, 0, INT64_MAX, &n, &found));
        if (found && n > 1) return moe_err(&h, expert_keys[i]);
    }
    for (i = 0; i < sizeof readers / sizeof readers[0]; i++)
        if (strcmp(type, readers[i].type) == 0) break;
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
