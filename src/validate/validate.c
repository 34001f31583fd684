/*
 * validate.c -- published runs against the cost model (see validate.h).
 *
 * Row to job:
 *  - model: the catalog model of the row's name or family (data/models.json,
 *    catalog_match below: architecture, vocabulary, expert layout), else
 *    Megatron GPT (GELU, biased LayerNorm and linears, learned positions,
 *    tied embeddings, dropout), or MPT for MosaicML's llm-foundry (no
 *    biases, ALiBi, no dropout); a row with blank shape columns and no
 *    catalog model of its name is skipped, never given a shape;
 *  - precision: the first of fp8/float8/bf16/fp16 the notes name (row_dtype),
 *    else bf16; fused attention where the notes name it and on every Hopper
 *    or newer device (Megatron runs of 2021-22 on A100 predate it); the
 *    engine is FSDP for llm-foundry, torchtitan and NeMo AutoModel,
 *    DeepSpeed where the notes name ZeRO, so capitalised (Narayanan Table
 *    2's ZeRO-3 rows; "zero_stage" is the column's name, not an engine),
 *    else Megatron-LM (NeMo and NVIDIA's MLPerf runs included);
 *  - device and nodes from the gpu column by the "training_runs" table of
 *    data/gpus.json (src/hw/gpus.h): DGX-style nodes of 8 (NVLink 300 GB/s,
 *    25 GB/s per GPU across nodes: Selene's 8x200 Gb/s HDR, MosaicML's
 *    1600 Gb/s RoCE per node), DGX H100 nodes for H100 rows;
 *  - empty columns: kv_heads = heads, ffn = 4h, vocab 51200 for a Megatron
 *    GPT (GPT-2 BPE padded as Megatron does; a catalog model brings its own),
 *    dp = devices/(tp*pp*cp), vpp 1, zero 0 (Megatron's DDP; 1, the
 *    distributed optimizer, for NeMo), recompute none, sequence parallelism
 *    off (on with tp > 1 for NeMo), ep and etp from the notes' "ep_size n"
 *    and "ETP n" where given; an empty micro_batch is the one the planner
 *    finds fastest with the rest of the row as given (said so; 1 where no
 *    size fits or the pipeline layout is one the search cannot lay out);
 *  - pipeline layers pp*vpp does not divide: Megatron's embedding and loss
 *    slots, or a MoE model's uneven layout (pipeline_layout);
 *  - from the notes where the columns are blank: "TP8 PP6"; "GBS=280 per DP
 *    replica"; Megatron-Core's expert arguments ("moe_ffn_hidden 3072",
 *    "shared expert 3072", "moe_layer_freq ([0]*3+..."); the tokenizer's
 *    model ("tokenizer unsloth/DeepSeek-V3") as the family of a model the
 *    catalog lacks; balanced routing ("fake balanced", "router force load
 *    balancing"), AutoModel's fake balanced gate sending a token to topk
 *    neighbouring experts (pt_job.moe_contiguous_routing); a row with no
 *    parallel sizes at all is priced at the search's best strategy for it
 *    (pt_search_engine), recompute and cp as the row gives them (and tp,
 *    pp where the notes give them); multi-token prediction only as the row
 *    ran it ("MTP 1"; a hand layout "PP layout ...tmL" balanced around it,
 *    pt_job.mtp_in_layout), not as the catalog's config would; Composer's
 *    "mp_mode PURE" reducing gradients in bf16.
 * Metrics: iter_time_s; tflops_per_gpu (with Narayanan's 96*B*s*l*h^2 FLOP
 * count for that paper's rows -- its eq. 3, used for every number it reports --
 * else model FLOPs);
 * tokens_per_s_per_gpu; mfu (percent); mem_activation_gib_per_gpu and
 * mem_weights_grads_optimizer_gib_per_gpu (busiest device; for Korthikanti's
 * Fig. 1 the transformer layers alone, as that figure counts); activation memory
 * as a percentage of the no-recompute, no-SP layer; layer_fwd_bwd_ms.
 */
#include "validate/validate.h"
#include "plan/search.h"
#include "goal/ttt.h"
#include "validate/infer_runs.h"
#include "cost/graph_cost.h"
#include "hw/gpus.h"
#include "workload/graph.h"
#include "workload/model.h"
#include "base/base.h"
#include "base/csv.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const columns[] = {
    "source", "model", "params_b", "layers", "hidden", "heads", "kv_heads", "ffn_hidden",
    "seq_len", "vocab", "moe_experts", "moe_topk", "gpu", "n_gpus", "tp", "pp", "dp", "cp",
    "ep", "vpp", "micro_batch", "global_batch", "recompute", "seq_parallel", "zero_stage",
    "measured_metric", "measured_value", "notes", NULL};
enum { C_SOURCE, C_MODEL, C_PARAMS, C_LAYERS, C_HIDDEN, C_HEADS, C_KV, C_FFN, C_SEQ, C_VOCAB,
       C_MOE, C_TOPK, C_GPU, C_NGPU, C_TP, C_PP, C_DP, C_CP, C_EP, C_VPP, C_MBS, C_GBS,
       C_RECOMPUTE, C_SP, C_ZERO, C_METRIC, C_VALUE, C_NOTES, C_COUNT };

/* Largest value of a numeric column (counts and sizes: they become ints). */
#define NUM_MAX INT64_C(2147483647)
/* Largest parallel degree or micro-batch (strategy.c's limit). */
#define DEGREE_MAX INT64_C(1048576)

/* Reads an optional whole number in [0, NUM_MAX]; returns 0 if empty, -1 if
 * not such a number (1e30, -1, 2.5, inf and nan are not). */
static int num(const char *s, int64_t *out)
{
    char *end;
    double x;
    if (!s[0]) return 0;
    x = strtod(s, &end);
    if (*end || !(x >= 0 && x <= (double)NUM_MAX) || x != floor(x)) return -1;
    *out = (int64_t)x;
    return 1;
}

/* The numeric columns a row is priced from and the values each may take.  A
 * value outside them skips the row, saying which, before it reaches the cost
 * model (tp=0 divided by zero; 1e30 did not fit an integer). */
static const struct {
    int col;
    int64_t lo, hi;
} num_ranges[] = {
    {C_LAYERS, 1, NUM_MAX}, {C_HIDDEN, 1, NUM_MAX},  {C_HEADS, 1, NUM_MAX},
    {C_KV, 1, NUM_MAX},     {C_FFN, 1, NUM_MAX},     {C_SEQ, 1, NUM_MAX},
    {C_VOCAB, 1, NUM_MAX},  {C_MOE, 0, NUM_MAX},     {C_NGPU, 1, NUM_MAX},
    {C_TP, 1, DEGREE_MAX},  {C_PP, 1, DEGREE_MAX},   {C_DP, 1, DEGREE_MAX},
    {C_CP, 1, DEGREE_MAX},  {C_VPP, 1, DEGREE_MAX},  {C_MBS, 1, DEGREE_MAX},
    {C_GBS, 1, NUM_MAX},    {C_ZERO, 0, 3},          {C_TOPK, 1, NUM_MAX},
    {C_EP, 1, DEGREE_MAX},
};

static void skip(pt_vrow *r, const char *why) { pt_strlcpy(r->skipped, why, sizeof r->skipped); }

static void add_assumed(pt_vrow *r, const char *what)
{
    size_t n = strlen(r->assumed);
    snprintf(r->assumed + n, sizeof r->assumed - n, "%s%s", n ? "; " : "", what);
}

/* ---- the row's model: the catalog (data/models.json) by name -------------
 * A row names its model ("Llama 3.1 70B", "LLAMA2-13B (SFT)", "DeepSeek V3
 * 671B") and gives its shape in columns, some of them blank.  The catalog
 * holds the Hugging Face configs, so it knows what the columns cannot say:
 * the architecture (SwiGLU or GELU, RMSNorm or LayerNorm, rotary or learned
 * positions, tied or not, biases, dropout), the vocabulary, and for a
 * mixture of experts the expert layout.  A row's name is compared with the
 * catalog's by key: lower-case letters and digits only, up to the first
 * '(' ("Llama 3.1 405B" -> llama31405b = llama3.1-405b's key).  A catalog
 * model's family is its key up to the size (llama3.1-405b: llama31;
 * llama3-8b: llama3; qwen3-30b-a3b: qwen3; gpt-oss-120b: gptoss).
 *  - by name: the row's key is a catalog key, or starts with one
 *    ("DeepSeek V3 671B" -> deepseek-v3), or (blank shape) is in a family
 *    and names a size only one of its models has ("Qwen3 MoE 30B" ->
 *    qwen3-30b-a3b): the catalog model whole, where the row's shape
 *    columns agree with it or are blank;
 *  - by family: the row's key starts with a family and the row gives its
 *    shape ("LLAMA2-13B" -> llama2): the family's architecture and
 *    vocabulary, preferring the member whose shape the row's equals
 *    ("Llama 3.1 8B" -> llama3-8b), with the row's own shape.
 * A row with blank shape columns and no catalog model by name is not
 * priced: a shape is never made up.  GPT-2 (Megatron GPT) and MPT entries
 * are the architecture rows already default to, and are not used. */
#define VCAT_MAX 64
typedef struct vcat {
    int n;
    pt_model m[VCAT_MAX];
    char key[VCAT_MAX][64], fam[VCAT_MAX][64];
} vcat;

/* Lower-case letters and digits of s up to the first '(' (or, with
 * stop_dash, the first '-' before a digit: the size). */
static void name_key(const char *s, int stop_dash, char *out, size_t n)
{
    size_t k = 0;
    for (; *s && *s != '(' && !(stop_dash && *s == '-' && isdigit((unsigned char)s[1])) && k + 1 < n; s++)
        if (isalnum((unsigned char)*s)) out[k++] = (char)tolower((unsigned char)*s);
    out[k] = '\0';
}

static void catalog_load(vcat *k)
{
    pt_diag d;
    int n = 0, kept = 0;
    if (pt_model_catalog_read(k->m, VCAT_MAX, &n, &d) != PT_OK) n = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(k->m[i].family, "gpt2") || !strcmp(k->m[i].family, "mpt")) continue;
        k->m[kept] = k->m[i];
        name_key(k->m[i].name, 0, k->key[kept], sizeof k->key[0]);
        name_key(k->m[i].name, 1, k->fam[kept], sizeof k->fam[0]);
        kept++;
    }
    k->n = kept;
}

/* The size token of a key: its last run of digits followed by 'b'
 * ("qwen3moe30b" -> "30b"); "" if none. */
static void size_token(const char *key, char *out, size_t n)
{
    size_t len = strlen(key);
    out[0] = '\0';
    for (size_t i = len; i-- > 0;) {
        if (key[i] != 'b' || i == 0 || !isdigit((unsigned char)key[i - 1])) continue;
        {
            size_t j = i;
            while (j > 0 && isdigit((unsigned char)key[j - 1])) j--;
            if (i + 1 - j < n) {
                memcpy(out, key + j, i + 1 - j);
                out[i + 1 - j] = '\0';
            }
            return;
        }
    }
}

/* Whether key holds the size token sz as a whole number ("120b" holds
 * "120b", not "20b"). */
static int has_size(const char *key, const char *sz)
{
    for (const char *p = strstr(key, sz); p; p = strstr(p + 1, sz))
        if (p == key || !isdigit((unsigned char)p[-1])) return 1;
    return 0;
}

/* Shape columns a row gives (0: blank): layers, hidden, heads, kv_heads, ffn. */
static int shape_agrees(const pt_model *m, const int64_t sh[5])
{
    return (!sh[0] || sh[0] == m->layers) && (!sh[1] || sh[1] == m->hidden) &&
           (!sh[2] || sh[2] == m->heads) && (!sh[3] || sh[3] == m->kv_heads) &&
           (!sh[4] || sh[4] == m->ffn);
}

/* The catalog model for a row: its index, *by_name 1 when matched by name
 * (the model whole), 0 by family (architecture and vocabulary only); -1
 * none. */
static int catalog_match(const vcat *k, const char *model, const int64_t sh[5], int *by_name)
{
    char key[64], sz[16];
    int best = -1, best_shape = 0, by_size = -1, sized = 0;
    size_t best_len = 0;
    name_key(model, 0, key, sizeof key);
    size_token(key, sz, sizeof sz);
    *by_name = 1;
    for (int i = 0; i < k->n; i++)
        if (!strcmp(key, k->key[i])) return i;
    for (int i = 0; i < k->n; i++)
        if (k->key[i][0] && !strncmp(key, k->key[i], strlen(k->key[i]))) return i;
    for (int i = 0; i < k->n; i++) {
        size_t fl = strlen(k->fam[i]);
        int same;
        if (!fl || strncmp(key, k->fam[i], fl)) continue;
        if (sz[0] && has_size(k->key[i] + fl, sz)) by_size = by_size == -1 ? i : -2, sized++;
        same = shape_agrees(&k->m[i], sh);
        if (best < 0 || (same && !best_shape) || (same == best_shape && fl > best_len)) {
            best = i;
            best_shape = same;
            best_len = fl;
        }
    }
    if (by_size >= 0 && sized == 1 && !sh[0] && !sh[1] && !sh[2]) return by_size;
    /* a name without its family's generation (NeMo's "Nemotron-15B" is
     * Nemotron-4 15B, its Nemotron4Config15B): the one catalog model whose
     * family less its trailing digits starts the key, whose size the key
     * names and whose shape the row's columns agree with */
    if (best < 0 && sz[0]) {
        int hit = -1, hits = 0;
        for (int i = 0; i < k->n; i++) {
            size_t fl = strlen(k->fam[i]), bl = fl;
            while (bl > 0 && isdigit((unsigned char)k->fam[i][bl - 1])) bl--;
            if (bl == fl || bl == 0 || strncmp(key, k->fam[i], bl) || !has_size(k->key[i] + fl, sz) ||
                !shape_agrees(&k->m[i], sh))
                continue;
            hit = i, hits++;
        }
        if (hits == 1) return hit;
    }
    *by_name = 0;
    return best;
}

/* Catalog clusters per gpu string, parsed once per CSV. */
typedef struct vcache {
    int n;
    struct { char gpu[64]; pt_cluster c; int ok; } e[8];
    vcat cat; /* the model catalog, loaded on the first row that needs it */
    int cat_loaded;
} vcache;

static int build_cluster(vcache *vc, const char *gpu, int64_t n, const pt_vcalib *k, pt_cluster *c,
                         pt_vrow *r)
{
    pt_diag d;
    pt_gpu_match gm;
    int found;
    for (int i = 0; i < vc->n; i++)
        if (!strcmp(vc->e[i].gpu, gpu)) {
            if (!vc->e[i].ok) {
                skip(r, "unknown gpu");
                return 0;
            }
            *c = vc->e[i].c;
            goto have;
        }
    if (pt_gpu_lookup("training_runs", gpu, NULL, &gm, &found, &d) != PT_OK) {
        skip(r, "the GPU catalog data/gpus.json is malformed");
        return 0;
    }
    if (!found) {
        if (vc->n < 8) {
            pt_strlcpy(vc->e[vc->n].gpu, gpu, sizeof vc->e[vc->n].gpu);
            vc->e[vc->n++].ok = 0;
        }
        skip(r, "unknown gpu");
        return 0;
    }
    if (pt_gpu_cluster(&gm, c, &d) != PT_OK) {
        skip(r, "cluster catalog is missing the device");
        return 0;
    }
    if (vc->n < 8) {
        pt_strlcpy(vc->e[vc->n].gpu, gpu, sizeof vc->e[vc->n].gpu);
        vc->e[vc->n].c = *c;
        vc->e[vc->n].ok = 1;
        vc->n++;
    }
have:
    if (k) {
        if (k->gemm_eff > 0) c->dev.gemm_eff = k->gemm_eff; /* 0: the device's own (fit --hold-gemm) */
        c->dev.gemm_half_GFLOP = k->gemm_half_GFLOP;
        c->dev.attn_eff = k->attn_eff;
        c->dev.mem_eff = k->mem_eff;
        c->dev.kernel_us = k->kernel_us;
        for (int j = 0; j < c->nlevels; j++) /* 0: the catalog's (tools/fit.c --hold-links) */
            if (k->level_eff[j] > 0) c->level[j].efficiency = k->level_eff[j];
    }
    if (n < c->level[0].size) {
        c->nlevels = 1;
        c->level[0].size = n;
        c->devices = n;
    } else if (pt_cluster_resize(c, n, &d) != PT_OK) {
        skip(r, "device count is not whole nodes of 8");
        return 0;
    }
    return 1;
}

/* Offset of the first case-insensitive occurrence of needle in hay, or -1. */
static long find_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i])) i++;
        if (i == n) return (long)(p - hay);
    }
    return -1;
}

/* The whole number after the first case-insensitive occurrence of key in
 * the notes ("moe_ffn_hidden 3072" -> 3072); 0 if none, or not in
 * [1, NUM_MAX]. */
static int note_int(const char *notes, const char *key, int64_t *out)
{
    long at = find_ci(notes, key);
    char *end;
    long long v;
    if (at < 0 || !isdigit((unsigned char)notes[at + (long)strlen(key)])) return 0;
    v = strtoll(notes + at + (long)strlen(key), &end, 10);
    if (v < 1 || v > NUM_MAX) return 0;
    *out = (int64_t)v;
    return 1;
}

/* The word after the first case-insensitive occurrence of key in the notes
 * (up to a space, ';', ',' or ')'): "tokenizer unsloth/DeepSeek-V3;" ->
 * "unsloth/DeepSeek-V3"; 0 if none. */
static int note_word(const char *notes, const char *key, char *out, size_t n)
{
    long at = find_ci(notes, key);
    size_t k = 0;
    const char *p;
    if (at < 0) return 0;
    for (p = notes + at + (long)strlen(key); *p && !strchr(" ;,)", *p) && k + 1 < n; p++) out[k++] = *p;
    out[k] = '\0';
    return k > 0;
}

/* The tensor- and pipeline-parallel sizes the notes give as "TP8 PP6"
 * (upper case, as configurations are written); 0 if none. */
static int note_tp_pp(const char *notes, int64_t *tp, int64_t *pp)
{
    for (const char *p = strstr(notes, "TP"); p; p = strstr(p + 1, "TP")) {
        char *end;
        long t, q;
        if (!isdigit((unsigned char)p[2])) continue;
        t = strtol(p + 2, &end, 10);
        if (strncmp(end, " PP", 3) || !isdigit((unsigned char)end[3])) continue;
        q = strtol(end + 3, NULL, 10);
        if (t < 1 || q < 1 || t > DEGREE_MAX || q > DEGREE_MAX) continue;
        *tp = t, *pp = q;
        return 1;
    }
    return 0;
}

/* A row's precision: the first of fp8, float8, bf16 and fp16 its notes name
 * (a note states the run's precision before it mentions any other: "bf16;
 * source MFU 39.3% (... fp8 runs given as range)", "optimizations: None
 * (bf16); ... float8 MFU ..."); "bf16+fp8" (FlagPerf: bf16 with fp8 GEMMs)
 * and mxfp8 are fp8 runs; none named: bf16. */
static pt_dtype row_dtype(const char *notes)
{
    static const struct { const char *word; pt_dtype t; } w[] = {
        {"fp8", PT_FP8}, {"float8", PT_FP8}, {"bf16+fp8", PT_FP8}, {"bf16", PT_BF16}, {"fp16", PT_FP16}};
    long best = -1;
    pt_dtype t = PT_BF16;
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        long at = find_ci(notes, w[i].word);
        if (at >= 0 && (best < 0 || at < best)) best = at, t = w[i].t;
    }
    return t;
}

/* Pipeline stages of a model whose layers pp*vpp does not divide:
 * Megatron-Core's --account-for-embedding-in-pipeline-split and
 * --account-for-loss-in-pipeline-split (transformer_config.py) count the
 * embedding and the loss as one layer each, so Llama 3.1 405B's 126 layers
 * run as 128 slots: with pp=8 the first and last stages hold 15 layers, the
 * others 16 (MLPerf's and NeMo's 405B recipes are laid out so; torchtitan's
 * 405B at pp=8 splits the same 126 into 15 + 6 x 16 + 15).  With vpp = 1
 * that is pp_first = pp_last = (L+2)/pp - 1; interleaved (vpp > 1; the
 * first and last virtual stages one layer short) the cost model prices
 * L/pp layers per rank and *split_check says to check the strategy against
 * the L+2 slots.  Where the slots do not divide either, a MoE model takes
 * the uneven layout pt_strategy_resolve gives it at vpp = 1; interleaved,
 * the virtual stages take the layers as evenly as they go, as the runs lay
 * them out by hand (Megatron-Core's --pipeline-model-parallel-layout: the
 * moe_recipes' DeepSeek-V3 "Et*4|(tttt|)*14tmL", 61 layers in 16 virtual
 * stages of 4, one of them 1 plus the MTP and the loss; NeMo AutoModel's
 * layers_per_stage: 2 over pp*vpp = 32 stages), priced at L/pp layers per
 * rank and checked (*split_check = 2) against ceil(L/(pp*vpp)) layers on
 * every virtual stage. */
static void pipeline_layout(const pt_model *m, pt_strategy *st, int *split_check)
{
    int64_t slots = m->layers + 2, chunks = (int64_t)st->pp * st->vpp;
    *split_check = 0;
    if (st->pp < 2 || m->layers % chunks == 0) return;
    if (slots % chunks) {
        /* a MoE model (DeepSeek-V3's 61 layers over pp = 4): the uneven
         * layout pt_strategy_resolve gives it */
        int f, l;
        if (st->vpp == 1 && m->experts > 0 && pt_strategy_moe_layout(m, st->pp, &f, &l))
            st->pp_first = f, st->pp_last = l;
        else if (st->vpp > 1 && m->layers >= chunks)
            *split_check = 2;
        return;
    }
    if (st->vpp == 1) {
        st->pp_first = st->pp_last = (int)(slots / st->pp - 1);
    } else {
        *split_check = 1;
    }
}

/* The engine and its settings a row ran with, read from its source and
 * notes into *job (precision, fused attention, the engine, AutoModel's pure
 * bf16, routing, the overlaps, the dispatcher, the gradients' dtype); a NeMo
 * row's blank zero_stage into *zero. */
static void read_job(char **f, const char *notes, const pt_model *m, const pt_cluster *c, int mosaic, int automodel,
                     int64_t seq, int64_t gbs, pt_job *job, int64_t *zero)
{
    int megatron_nemo;
    memset(job, 0, sizeof *job);
    job->seq_len = seq;
    job->global_batch = gbs;
    job->dtype = row_dtype(notes);
    /* fused attention: where the notes name it, and on every Hopper or
     * newer device (a device with fp8), whose stacks all run it (Transformer
     * Engine in Megatron-Core and NeMo, SDPA in torchtitan and AutoModel);
     * Megatron's 2021-22 A100 runs predate it */
    job->flash_attention = pt_str_has_ci(notes, "flashattention") || pt_str_has_ci(notes, "flash attention") ||
                           c->dev.tflops_fp8 > 0;
    /* the engine: PyTorch FSDP for llm-foundry, torchtitan and NeMo
     * AutoModel (FSDP2) by their source; DeepSpeed where the notes name
     * ZeRO as DeepSpeed spells it ("scheme=ZeRO-3", Narayanan Table 2) --
     * not the column name zero_stage, which notes quote for any engine
     * ("zero_stage 3 = FSDP2", "zero_stage=1 inferred"); else Megatron-LM
     * (Megatron-Core, NeMo, MLPerf's NeMo) */
    job->engine = mosaic || pt_str_has_ci(f[C_SOURCE], "torchtitan") || automodel
                      ? PT_ENGINE_FSDP
                  : strstr(notes, "ZeRO") ? PT_ENGINE_DEEPSPEED
                                          : PT_ENGINE_MEGATRON;
    /* NeMo AutoModel builds its model in bf16 unless told otherwise
     * (NeMoAutoModelForCausalLM.from_config and from_pretrained: torch_dtype
     * "auto", "defaults to torch.bfloat16", nemo_automodel/_transformers/
     * auto_model.py) and its benchmark configs step torch.optim.Adam, whose
     * m and v take the parameters' dtype: pure bf16, no fp32 master.  Of
     * the configs the rows name, none sets a model dtype but one version of
     * Nemotron 3 Super's (dtype: float32; which version the row ran is not
     * known) and the Llama 3.1 70B one (torch_dtype: bf16, with Transformer
     * Engine's FusedAdam, whose m and v are fp32 by default: 4 B a
     * parameter more than priced, 4.4 GiB on its 64 GPUs, and it fits
     * either way).  A row whose notes say float32 is mixed precision. */
    job->states_bf16 = automodel && !pt_str_has_ci(notes, "float32");
    /* AutoModel's benchmarks route with a "fake balanced MoE gate", the
     * moe_recipes with Megatron-Core's --moe-router-force-load-balancing
     * ("router force load balancing"): every expert gets its even share */
    if (pt_str_has_ci(notes, "fake balanced") || pt_str_has_ci(notes, "force load balancing"))
        job->moe_imbalance = 1.0;
    /* AutoModel's FakeBalancedGate routes token i to experts ik .. ik+k-1
     * (mod E), neighbours on one or two ranks; Megatron-Core's forced
     * balancing draws random logits, so its experts are spread uniformly */
    job->moe_contiguous_routing = pt_str_has_ci(notes, "fake balanced");
    /* the moe_recipes' "EP overlap": Megatron-Core's
     * --overlap-moe-expert-parallel-comm */
    job->moe_a2a_overlap = pt_str_has_ci(notes, "EP overlap") && job->engine == PT_ENGINE_MEGATRON;
    /* a hand layout with the MTP depth in a slot of its own ("PP layout
     * Et*4|(tttt|)*14tmL": one layer, the MTP depth and the loss on the
     * last virtual stage) balances the ranks around it */
    {
        long at = find_ci(notes, "PP layout ");
        const char *p = at < 0 ? "" : notes + at + strlen("PP layout ");
        size_t len = strcspn(p, " ;,");
        job->mtp_in_layout = m->mtp_layers > 0 && memchr(p, 'm', len) != NULL;
    }
    /* "TP comm overlap" (MLPerf's NeMo configs, Megatron-LM's README runs:
     * --tp-comm-overlap); torchtitan's "async TP" / "AsyncTP"
     * (enable_async_tensor_parallel) */
    job->tp_comm_overlap = job->engine == PT_ENGINE_MEGATRON
                               ? pt_str_has_ci(notes, "TP comm overlap") || pt_str_has_ci(notes, "tp-comm-overlap")
                               : job->engine == PT_ENGINE_FSDP && (pt_str_has_ci(notes, "async TP") ||
                                                                   pt_str_has_ci(notes, "AsyncTP"));
    /* NeMo 2.0's performance summaries (docs.nvidia.com/nemo-framework,
     * containers 25.x) are measured with scripts/performance/llm, whose
     * recipes in performance mode add MegatronCommOverlapCallback with
     * tp_comm_overlap=True (nemo/collections/llm/recipes/llama3_70b.py,
     * pretrain_recipe_performance; pretrain_nemotron4_340b.py asserts the
     * callback, "Required for performance", and sets its userbuffers
     * configuration for B200 and GB200) and sequence_parallel = tp > 1 */
    if (job->engine == PT_ENGINE_MEGATRON && pt_str_has_ci(f[C_SOURCE], "docs.nvidia.com/nemo-framework") &&
        pt_str_has_ci(f[C_SOURCE], "Container: NeMo 25."))
        job->tp_comm_overlap = 1;
    /* Megatron-LM's examples/llama/README.md FP8 table: "This configuration
     * follows those defined in NeMo Framework's performance scripts" (the
     * README), run as they run (TP comm overlap, above); its one published
     * script, train_llama3_8b_h100_fp8.sh, reduces gradients in bf16
     * (--grad-reduce-in-bf16), as NeMo's do (below) */
    megatron_nemo = job->engine == PT_ENGINE_MEGATRON &&
                    pt_str_has_ci(f[C_SOURCE], "Megatron-LM examples/llama/README");
    if (megatron_nemo) job->tp_comm_overlap = 1;
    /* the dispatcher the notes name: DeepEP (the moe_recipes, NeMo
     * AutoModel's "TE + DeepEP") or Megatron-Core's HybridEP send a token
     * once per rank and node, not once per expert */
    job->moe_dedup_dispatch = pt_str_has_ci(notes, "HybridEP") ? PT_MOE_HYBRIDEP
                              : pt_str_has_ci(notes, "DeepEP")  ? PT_MOE_DEEPEP
                                                                : PT_MOE_ALLTOALL;
    /* NeMo's pretraining recipes run Megatron-Core's distributed optimizer
     * (use_distributed_optimizer True in every NeMo 2.0 llm recipe); a NeMo
     * row that leaves zero_stage blank ran it */
    if (!f[C_ZERO][0] && pt_str_has_ci(f[C_SOURCE], "NeMo") && job->engine == PT_ENGINE_MEGATRON) *zero = 1;
    /* NeMo's FP8 performance runs reduce gradients in bf16: its performance
     * scripts set grad_reduce_in_fp32 = False with bf16_with_fp8_mixed()
     * (NVIDIA/NeMo scripts/performance/llm, e.g. pretrain_gpt3_175b.py).
     * NVIDIA's MLPerf submissions run NeMo (results *_nemo, the source
     * names them) and are priced the same; their configs are not in the
     * row, so for them it is inferred (with fp32 gradients their 24 H100
     * rows read 14.5% and 4 more runs would not fit; with bf16, 9.5%) */
    job->grad_bf16 = job->dtype == PT_FP8 && (pt_str_has_ci(f[C_SOURCE], "NeMo") || megatron_nemo) &&
                     job->engine == PT_ENGINE_MEGATRON;
    /* Composer's FSDP mixed precision: PURE reduces in bf16 in every
     * release (get_mixed_precision: reduce_dtype = the precision); DEFAULT
     * in fp32 in its current one (composer/distributed/
     * mosaic_parallelism.py), in the autocast precision in some 2022-23
     * ones, and which the MPT tables ran is not recorded: left at fp32,
     * the FSDP default.  llm-foundry's rows name their mp_mode */
    if (pt_str_has_ci(notes, "mp_mode PURE")) job->grad_bf16 = 1;
}

/* The planner's fastest strategy for the row at gbs sequences a step, the
 * keys in `pin` held at st's values: into *best, 1; 0 where no strategy
 * fits; -1 where the search fails. */
static int search_best(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st, int64_t gbs,
                       unsigned pin, pt_strategy *best)
{
    pt_search_opts o;
    pt_search_result sr;
    pt_diag d;
    int got;
    memset(&o, 0, sizeof o);
    pt_space_init(&o.space);
    o.top_k = 1;
    o.threads = 1;
    o.prune = 1;
    o.gbs_lo = o.gbs_hi = gbs;
    pt_space_pin(&o.space, st, pin);
    if (pt_search_engine(m, c, job, &o, &sr, &d) != PT_OK) got = -1;
    else if (sr.n < 1) got = 0;
    else got = 1, *best = sr.plans[0].st;
    pt_search_free(&sr);
    return got;
}

static void predict_row(vcache *vc, char **f, const pt_vcalib *calib, pt_vrow *r)
{
    pt_model m;
    pt_cluster c;
    pt_job job;
    pt_strategy st;
    pt_cost cost;
    pt_diag d;
    int64_t layers = 0, hidden = 0, heads = 0, kv = 0, ffn = 0, seq = 0, vocab = 0, moe = 0;
    int64_t topk = 0, ep = 1;
    int64_t n = 0, tp = 0, pp = 0, dp = 0, cp = 0, vpp = 0, mbs = 0, gbs = 0, zero = 0;
    const char *metric = f[C_METRIC], *notes = f[C_NOTES];
    int mosaic = pt_str_has_ci(f[C_SOURCE], "mosaicml"), automodel = pt_str_has_ci(f[C_SOURCE], "Automodel");
    int ci = -1, by_name = 0, whole = 0, split_check = 0, searched = 0, mbs_blank = 0;
    pt_status rc;
    const pt_model *cat = NULL;
    char *end;

    r->measured = strtod(f[C_VALUE], &end);
    if (!f[C_VALUE][0] || *end || !(r->measured > 0 && r->measured < HUGE_VAL))
        return skip(r, "measured_value is not a number > 0");
    for (size_t i = 0; i < sizeof num_ranges / sizeof num_ranges[0]; i++) {
        int64_t v = 0;
        int k = num(f[num_ranges[i].col], &v);
        if (k < 0 || (k > 0 && (v < num_ranges[i].lo || v > num_ranges[i].hi))) {
            char why[160];
            snprintf(why, sizeof why, "%s: %.32s is not a whole number in [%lld, %lld]",
                     columns[num_ranges[i].col], f[num_ranges[i].col],
                     (long long)num_ranges[i].lo, (long long)num_ranges[i].hi);
            return skip(r, why);
        }
    }
    /* a MoE row: moe_experts experts of ffn_hidden each, moe_topk per token
     * (Mixtral-style: every layer MoE, no shared experts), ep from its column */
    if (num(f[C_MOE], &moe) < 0) return skip(r, "moe_experts is not a whole number");
    if (moe > 1 && (num(f[C_TOPK], &topk) <= 0 || topk > moe))
        return skip(r, "moe_topk not given, or more than moe_experts");
    if (num(f[C_EP], &ep) <= 0) {
        /* a blank ep column whose notes give the engine's ep_size (NeMo
         * AutoModel's GPT-OSS rows: "ep_size 8 (table shows EP -)") */
        long at = find_ci(notes, "ep_size ");
        ep = 1;
        if (at >= 0 && isdigit((unsigned char)notes[at + 8])) {
            long v = strtol(notes + at + 8, NULL, 10);
            if (v >= 1 && v <= DEGREE_MAX) ep = v;
        }
    }
    if (num(f[C_SEQ], &seq) <= 0) return skip(r, "model shape incomplete (seq_len)");
    num(f[C_LAYERS], &layers);
    num(f[C_HIDDEN], &hidden);
    num(f[C_HEADS], &heads);
    num(f[C_KV], &kv);
    num(f[C_FFN], &ffn);
    if (num(f[C_NGPU], &n) <= 0) return skip(r, "parallel configuration not given (n_gpus)");
    if (num(f[C_TP], &tp) <= 0 || num(f[C_PP], &pp) <= 0) {
        /* the notes' configuration ("weak-scaling 177B row used TP8 PP6"),
         * else the planner's best for the run (the published number is
         * a tuned run's: Narayanan's 175B on 1024 GPUs states none) */
        if (note_tp_pp(notes, &tp, &pp)) {
            /* the rest of the configuration the planner's best with them */
            searched = 2;
            add_assumed(r, "tp, pp from the notes, the rest the planner's best");
        } else {
            tp = pp = 1;
            searched = 1;
            add_assumed(r, "strategy: the planner's best");
        }
    }
    if (!mosaic) {
        int64_t sh[5];
        sh[0] = layers, sh[1] = hidden, sh[2] = heads, sh[3] = kv, sh[4] = ffn;
        if (!vc->cat_loaded) {
            catalog_load(&vc->cat);
            vc->cat_loaded = 1;
        }
        ci = catalog_match(&vc->cat, f[C_MODEL], sh, &by_name);
        if (ci >= 0 && !(layers && hidden && heads) && !(by_name && shape_agrees(&vc->cat.m[ci], sh)))
            ci = -1;
        if (ci < 0 && layers && hidden && heads) {
            /* a model of no catalog family whose notes name the tokenizer
             * it was trained with ("tokenizer unsloth/DeepSeek-V3" for
             * DeepSeek-V4): the tokenizer's model's family, its
             * architecture and vocabulary, with the row's own shape */
            char tok[64];
            if (note_word(notes, "tokenizer ", tok, sizeof tok)) {
                int tb;
                int64_t none[5] = {0, 0, 0, 0, 0};
                const char *slash = strrchr(tok, '/');
                int ti = catalog_match(&vc->cat, slash ? slash + 1 : tok, none, &tb);
                if (ti >= 0 && tb) ci = ti, by_name = 0;
            }
        }
        if (ci >= 0) {
            cat = &vc->cat.m[ci];
            whole = by_name && shape_agrees(cat, sh) && (moe <= 1 || (moe == cat->experts && topk == cat->topk));
        }
    }
    if (!whole && (layers <= 0 || hidden <= 0 || heads <= 0))
        return skip(r, "model shape incomplete (layers, hidden, heads) and no catalog model of that name");
    if (num(f[C_CP], &cp) <= 0) cp = 1;
    if (num(f[C_VPP], &vpp) <= 0) vpp = 1;
    if (num(f[C_ZERO], &zero) <= 0) zero = 0;
    if (num(f[C_DP], &dp) <= 0) dp = n / (tp * pp * cp);
    if (num(f[C_MBS], &mbs) <= 0) {
        /* a published run is a tuned one: its unstated micro-batch is the
         * one the planner finds best with everything else as the row gives
         * it (Megatron's --micro-batch-size has no default; Megatron-LM's
         * weak-scaling table and Narayanan et al.'s Table 1 state none) */
        mbs = 1;
        mbs_blank = !searched; /* a searched row's comes with the rest */
    }
    if (num(f[C_GBS], &gbs) <= 0 && note_int(notes, "GBS=", &gbs) && find_ci(notes, "per DP replica") >= 0) {
        /* "Table 5 runs used GBS=280 per DP replica" (Korthikanti's 530B on
         * 2240 GPUs, dp = 8): the batch grows with the replicas */
        gbs *= dp;
        add_assumed(r, "gbs per dp replica from the notes");
    }

    if (whole) {
        /* the catalog model itself; the row's vocab where it gives one */
        m = *cat;
        if (num(f[C_VOCAB], &vocab) > 0) m.vocab = vocab;
    } else if (cat) {
        /* the family's architecture and vocabulary, the row's shape */
        memset(&m, 0, sizeof m);
        pt_strlcpy(m.family, cat->family, sizeof m.family);
        m.gated_mlp = cat->gated_mlp;
        m.act = cat->act;
        m.tied_embeddings = cat->tied_embeddings;
        m.learned_pos = cat->learned_pos;
        m.linear_bias = cat->linear_bias;
        m.qkv_bias = cat->qkv_bias;
        m.norm_bias = cat->norm_bias;
        m.dropout = cat->dropout;
        m.rope_theta = cat->rope_theta;
        m.layers = layers;
        m.hidden = hidden;
        m.heads = heads;
        m.kv_heads = kv > 0 ? kv : heads;
        /* the family's head width where its heads are not hidden/heads wide
         * (Qwen3, GLM-4.5, Gemma: 128 or 256 whatever the size); the notes'
         * "kv_channels N" (Megatron's name for it) first */
        m.head_dim = cat->head_dim * cat->heads != cat->hidden && !cat->mla ? cat->head_dim : hidden / heads;
        if (note_int(notes, "kv_channels ", &vocab) && vocab > 0) m.head_dim = vocab;
        if (cat->mla) { /* the family's latent attention (DeepSeek: V2/V3's ranks and head widths) */
            m.mla = 1;
            m.q_lora = cat->q_lora, m.kv_lora = cat->kv_lora, m.qk_nope = cat->qk_nope;
            m.qk_rope = cat->qk_rope, m.v_head = cat->v_head;
            m.head_dim = m.qk_nope + m.qk_rope;
            m.kv_heads = heads;
            if (note_int(notes, "q_lora ", &vocab) && vocab > 0) m.q_lora = vocab; /* "MLA q_lora 1024" */
        }
        m.ffn = ffn > 0 ? ffn : 4 * hidden;
        m.vocab = num(f[C_VOCAB], &vocab) > 0 ? vocab : cat->vocab;
        m.max_seq = seq;
    } else {
        memset(&m, 0, sizeof m);
        pt_strlcpy(m.family, mosaic ? "mpt" : "gpt2", sizeof m.family);
        m.layers = layers;
        m.hidden = hidden;
        m.heads = heads;
        m.kv_heads = kv > 0 ? kv : heads;
        m.head_dim = hidden / heads;
        m.ffn = ffn > 0 ? ffn : 4 * hidden;
        if (num(f[C_VOCAB], &vocab) <= 0) {
            vocab = 51200;
            add_assumed(r, "vocab 51200");
        }
        m.vocab = vocab;
        m.max_seq = seq;
        m.act = PT_ACT_GELU;
        m.tied_embeddings = 1;
        m.learned_pos = !mosaic;
        m.linear_bias = !mosaic;
        m.norm_bias = !mosaic;
        m.dropout = !mosaic;
    }
    pt_strlcpy(m.name, f[C_MODEL], sizeof m.name);
    if (moe > 1 && !whole) {
        /* the expert widths the notes give as Megatron-Core's arguments
         * (the moe_recipes rows: "moe_ffn_hidden 3072, shared expert 3072",
         * "moe_layer_freq ([0]*3+[1]*58)": the first 3 layers dense), else
         * experts as wide as ffn_hidden, every layer MoE, none shared */
        int64_t v;
        m.experts = moe;
        m.topk = topk;
        m.moe_ffn = note_int(notes, "moe_ffn_hidden ", &v) ? v : m.ffn;
        if (note_int(notes, "shared expert ", &v)) m.shared_ffn = v;
        if (note_int(notes, "moe_layer_freq ([0]*", &v) && v < m.layers) m.dense_layers = v;
    }
    /* a dense FFN the row leaves blank is 4h; said only where a layer has
     * one (every layer MoE: ffn_hidden_size is unused) */
    if (cat && !whole && ffn <= 0 && (m.experts == 0 || m.dense_layers > 0)) add_assumed(r, "ffn 4h");
    /* multi-token prediction as the row ran it, not the config's: the
     * moe_recipes rows say "MTP 1" (Megatron-Core's --mtp-num-layers);
     * NeMo AutoModel's Nemotron 3 Ultra benchmark runs two depths on one
     * repeated block (examples/llm_benchmark/nemotron/
     * nemotron_ultra_v3_te_deepep.yaml: num_nextn_predict_layers 2,
     * mtp_use_repeated_layer true); every other row none */
    {
        int64_t v = 0;
        m.mtp_layers = note_int(notes, "MTP ", &v) && v > 0 ? v : 0;
        m.mtp_shared = 0;
        if (automodel && pt_str_has_ci(f[C_MODEL], "Nemotron V3 Ultra")) m.mtp_layers = 2, m.mtp_shared = 1;
    }
    layers = m.layers;
    if (pt_model_check(&m, &d) != PT_OK) return skip(r, "model shape is invalid");

    if (!build_cluster(vc, f[C_GPU], n, calib, &c, r)) return;
    read_job(f, notes, &m, &c, mosaic, automodel, seq, gbs, &job, &zero);

    memset(&st, 0, sizeof st);
    st.tp = (int)tp;
    st.pp = (int)pp;
    st.dp = (int)dp;
    st.cp = (int)cp;
    st.ep = (int)ep;
    /* Megatron-Core's --expert-tensor-parallel-size where the notes give it
     * ("ETP 1": the moe_recipes carve the expert grid from ranks other than
     * the attention's tp group), else tp (Megatron-Core's default) */
    st.etp = (int)tp;
    {
        long at = find_ci(notes, "ETP ");
        if (at >= 0 && isdigit((unsigned char)notes[at + 4])) {
            long v = strtol(notes + at + 4, NULL, 10);
            if (v >= 1 && v <= tp) st.etp = (int)v;
        }
    }
    st.vpp = (int)vpp;
    st.mbs = (int)mbs;
    st.gbs = gbs > 0 ? gbs : mbs * dp;
    /* sequence parallelism as the column says; blank on a NeMo row means on:
     * NeMo's recipes set sequence_parallel with tensor parallelism (and
     * Megatron-Core requires it for a MoE model with tp > 1) */
    st.sp = (!strcmp(f[C_SP], "yes") || (!f[C_SP][0] && pt_str_has_ci(f[C_SOURCE], "NeMo"))) && tp > 1;
    st.zero = (int)zero;
    st.recompute = !strncmp(f[C_RECOMPUTE], "full", 4) ? PT_RC_FULL
                   : !strncmp(f[C_RECOMPUTE], "selective", 9) ? PT_RC_SELECTIVE : PT_RC_NONE;
    /* Megatron-Core's selective recomputation of named modules
     * ("selective (moe_act layernorm)", "(mla_up_proj)": --recompute-modules)
     * without core_attn: Partita's selective is the attention core's, and the
     * small modules these name are not priced on their own, so none */
    if (st.recompute == PT_RC_SELECTIVE && strchr(f[C_RECOMPUTE], '(') && !strstr(f[C_RECOMPUTE], "core_attn") &&
        job.engine == PT_ENGINE_MEGATRON) {
        st.recompute = PT_RC_NONE;
        add_assumed(r, "recompute modules other than core_attn priced as none");
    }
    st.schedule = vpp > 1 ? PT_SCHED_INTERLEAVED : PT_SCHED_1F1B;
    st.offload = PT_OFF_NONE;
    pipeline_layout(&m, &st, &split_check);
    if (mbs_blank) {
        /* the micro-batch alone; 1 where no size fits or the search cannot
         * lay the row out (split_check), said either way */
        pt_strategy best;
        unsigned all_but_mbs = ~(unsigned)(PT_K_MBS | PT_K_GBS);
        int got = !split_check && gbs > 0 ? search_best(&m, &c, &job, &st, gbs, all_but_mbs, &best) : 0;
        if (got > 0) st = best;
        add_assumed(r, got > 0 ? "mbs: the planner's best" : "mbs 1");
    }
    if (searched) {
        /* what the row does say holds: its recompute (Narayanan's FLOP
         * count includes the recompute pass), and no context parallelism
         * where the row's cp column is blank or 1 */
        unsigned pin = PT_K_CP | (f[C_RECOMPUTE][0] ? PT_K_RECOMPUTE : 0u) | (searched == 2 ? PT_K_TP | PT_K_PP : 0u);
        int got;
        if (gbs <= 0) return skip(r, "global_batch not given");
        /* what its software ran: Narayanan et al.'s 2021 Megatron-LM had no
         * sequence parallelism (Korthikanti et al. 2022) and no distributed
         * optimizer (Megatron-LM's, also 2022) */
        if (pt_str_has_ci(f[C_SOURCE], "Narayanan")) pin |= PT_K_SP | PT_K_ZERO;
        got = search_best(&m, &c, &job, &st, gbs, pin, &st);
        if (got < 0) return skip(r, "parallel configuration not given and the search failed");
        if (got == 0) return skip(r, "parallel configuration not given and no plan fits");
        split_check = 0;
    }
    pt_strategy_format(&st, r->strategy, sizeof r->strategy);
    r->model_v = m;
    r->cluster_v = c;
    r->job_v = job;
    r->st_v = st;
    /* a layout only the embedding and loss slots make whole (pipeline_layout)
     * is not one the simulator or the search can lay out */
    r->engine_run = job.engine == PT_ENGINE_MEGATRON && !mosaic && layers > 1 && !split_check && !searched;

    if (!strcmp(metric, "layer_fwd_bwd_ms")) {
        double fw, bw;
        pt_cost_layer_time(&m, &c, &job, &st, &fw, &bw);
        r->predicted = (fw + bw) * 1e3;
        r->is_time = 1;
        r->fits = 1;
        return;
    }
    if (!strcmp(metric, "activation_mem_pct_of_tp_baseline")) {
        pt_strategy base = st;
        base.sp = 0;
        base.recompute = PT_RC_NONE;
        r->predicted = 100.0 * (double)pt_cost_layer_activation_bytes(&m, &job, &st) /
                       (double)pt_cost_layer_activation_bytes(&m, &job, &base);
        r->is_memory = 1;
        r->fits = 1;
        return;
    }
    if (gbs <= 0) return skip(r, "global_batch not given");
    {
        pt_model slots = m;
        int64_t chunks = (int64_t)st.pp * st.vpp;
        if (split_check == 1) slots.layers += 2; /* pipeline_layout: the embedding and loss slots */
        if (split_check == 2) slots.layers = (slots.layers + chunks - 1) / chunks * chunks;
        rc = pt_strategy_check(&st, &slots, &c, &job, &d);
    }
    if (rc != PT_OK) {
        char why[160] = "strategy invalid: ";
        size_t k = strlen(why);
        pt_strlcpy(why + k, d.msg, sizeof why - k);
        return skip(r, why);
    }
    pt_cost_eval(&m, &c, &job, &st, &cost);
    r->fits = cost.fits;
    if (!strcmp(metric, "iter_time_s")) {
        r->predicted = cost.step_time_s;
        r->is_time = 1;
    } else if (!strcmp(metric, "tflops_per_gpu") || !strcmp(metric, "mfu")) {
        /* the FLOPs the source divided by: Narayanan's eq. 3 (with its
         * recompute pass) for that paper, Megatron-LM's dev-branch formula
         * (causal half, Partita's own count) for its moe_recipes, else the
         * full-square count of Megatron-LM <= core_r0.9, NeMo 24.x and
         * Korthikanti's MFU (cost.h) */
        double fl = pt_cost_model_flops_full_square(&m, seq, gbs);
        if (pt_str_has_ci(notes, "F=96BslH") || pt_str_has_ci(f[C_SOURCE], "Narayanan")) {
            double l = (double)layers, h = (double)hidden, s = (double)seq, V = (double)vocab;
            fl = 96.0 * (double)gbs * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
        } else if (pt_str_has_ci(f[C_SOURCE], "moe_recipes")) {
            fl = cost.model_flops;
        }
        r->predicted = fl / cost.step_time_s / (double)n / 1e12; /* TFLOP/s per GPU */
        if (!strcmp(metric, "mfu")) r->predicted *= 100.0 / pt_device_tflops(&c.dev, job.dtype);
        r->is_time = 1;
    } else if (!strcmp(metric, "tokens_per_s_per_gpu")) {
        r->predicted = cost.tokens_per_s / (double)n;
        r->is_time = 1;
    } else if (!strcmp(metric, "mem_activation_gib_per_gpu")) {
        r->predicted = (double)cost.mem.activations / PT_GiB;
        r->is_memory = 1;
    } else if (!strcmp(metric, "mem_weights_grads_optimizer_gib_per_gpu")) {
        pt_memory s = cost.mem;
        if (pt_str_has_ci(notes, "Fig.1")) {
            /* Korthikanti Fig. 1 counts the transformer layers alone: 18
             * bytes (fp16 weight, fp32 gradient, fp32 master, m, v) times
             * the layers' parameters on a device gives all four of its
             * values within 0.1% (22B, 175B, 530B, 1T); the first stage's
             * embedding is left out even where pp = 1.  Price a stage that
             * holds neither the embedding nor the output layer. */
            pt_cost_prep pr;
            pt_cost_prepare(&m, &c, &job, &st, &pr);
            pt_cost_stage_states(&m, &job, &st, &pr, 0, 0, &s);
        }
        r->predicted = (double)(s.weights + s.gradients + s.optimizer) / PT_GiB;
        r->is_memory = 1;
    } else {
        return skip(r, "metric not predicted");
    }
}

/* ---- time-to-train rows (SPEC section 6) ---------------------------------
 * MLPerf Training rows of ResNet-50 v1.5, GNMT and Transformer-big on every
 * accelerator the "time_to_train" table of data/gpus.json maps to a catalog
 * cluster: V100 systems (DGX-1: 8 V100 per node; DGX-2/2H: 16; the 2H's
 * 450 W parts clock ~5% higher, DGX-2H datasheet 2.1 vs 2.0 PFLOPS), DGX
 * A100 (40 and 80 GB), DGX H100/H200, HGX H800, DGX B200 and GB200 NVL72;
 * TPU, P100, P40 and CPU rows have no catalog device and are skipped.  The
 * global batch is split data-parallel over every device, each device priced
 * with the layer-graph efficiencies (src/cost/graph_cost.h,
 * pt_graph_device: the V100 fit's, on the device's own TFLOPS and
 * bandwidth).  MLPerf's clock runs from run_start to
 * run_stop, so the predicted time is
 *   init + epochs x (steps per epoch x step time + host per epoch)
 *        + evaluations x evaluation time
 * with epochs from the recipe's statistical efficiency (ttt.c: by target and
 * optimizer), the step from the layer graph, evaluations as MLPerf runs them
 * (ttt.c), and two host costs read off the NVIDIA logs
 * (mlcommons/training_results_v0.5 and _v0.6):
 * - timed initialisation: in v0.5 run_start is logged before the model and
 *   the data pipeline are built: 10.3 s to train_loop (ResNet-50, v0.5
 *   dgx1_multi resnet result_1.txt, line 12): 10 s.  v0.6 logs
 *   init_start/init_stop before run_start, leaving 0.3 s (GNMT, dgx2h_n16,
 *   line 38), 1.0 s (Transformer, dgx1, line 46) and 1.7 s (Transformer,
 *   dgx1_n60, line 54) on the clock: 1 s.
 * - SSD (v0.6) loads COCO's annotations and builds its DALI pipelines
 *   after run_start: 6.8 s to the first block_start (dgx1 ssd result_0.txt,
 *   line 58), where the other v0.6 benchmarks leave 1 s.
 * - fairseq builds each epoch's batches on the host before training it:
 *   "generated batches in" 2.0 s (line 46) and 2.07 s (line 54) per epoch:
 *   2 s per Transformer epoch.
 * Transformer batches are in tokens (fairseq --max-tokens per GPU x GPUs),
 * a cap that length-bucketed batches fill to 91.3% (line 46: wpb 74793 of
 * 81920) and 87.4% (line 54: 537267 of 614400): 0.89 of the cap, in
 * sentence pairs of 28 tokens.  (All from runs on even lines, the fitted
 * half.)
 * The v0.5 stacks exchange gradients the older way (ttt.h, pt_dp_impl):
 * - NGC 18.11 containers predate NCCL 2.4 (Feb 2019), whose double binary
 *   trees cut the latency of an all-reduce over many nodes from linear to
 *   logarithmic ("Massively Scale Your Deep Learning Training with NCCL
 *   2.4", NVIDIA developer blog); v0.6 logs nccl_version 2.4.6.  So every
 *   v0.5 row is a flat ring.
 * - v0.5 ResNet-50 across nodes uses Horovod (config_DGX1_multi.sh
 *   KVSTORE="horovod") at its default 5 ms cycle (Horovod 0.21 changelog:
 *   "Changed default cycle time from 5ms to 1ms"); the single node uses
 *   KVSTORE="device".  v0.6 sets HOROVOD_CYCLE_TIME=0.1 and 16 groups.
 * - v0.5 fairseq all-reduces after the backward (its fp16_trainer.py
 *   overlaps only with --enable-parallel-backward-allred-opt, which the v0.5
 *   runs do not pass and every v0.6 run does).
 * And the newer stacks run it the newer way (the round is the source's
 * "training_results_vX.Y"):
 * - v0.7 ResNet-50 (MXNet): CUDA graphs (config_DGXA100_multi_*.sh export
 *   MXNET_EXPERIMENTAL_ENABLE_CUDA_GRAPH=1), so a kernel costs its launch,
 *   PT_GRAPH_CUDA_GRAPH_KERNEL_US, added to its work, not a host dispatch; batch norm fused
 *   with its ReLU and the residual add with its ReLU (the run's command
 *   line: --fuse-bn-relu 1 --fuse-bn-add-relu 1); and the gradient
 *   all-reduce after the backward ("Default is no NCCL and BWD overlap",
 *   the same configs).
 * - v1.0 and later: CUDA graphs for every benchmark (NVIDIA, "MLPerf v1.0
 *   Training Benchmarks: Insights into a Record-Setting NVIDIA
 *   Performance"), ResNet-50 still fused; the all-reduce overlapped (the
 *   default).
 * - v0.7 GNMT and Transformer (PyTorch) keep the v0.6 behaviours.
 * The epochs come from the row's recipe: its round picks among ResNet-50's
 * three LARS recipes (v0.6, v0.7, v1.0+; src/goal/ttt.c), and the row's
 * strategy string names the recipe used. */
#define TTT_TOKEN_FILL 0.89
#define TTT_INIT_V05_S 10.0
#define TTT_INIT_V06_S 1.0
#define TTT_FAIRSEQ_EPOCH_S 2.0
#define TTT_INIT_SSD_S 6.8

/* The MLPerf round of a row: from its source ("mlcommons/training_results_v0.7:
 * ..." -> "v0.7"), else from its system ("MLPerf v3.0 NVIDIA dgxh100" ->
 * "v3.0"); "" when neither names one. */
static void row_round(const char *source, const char *system, char *buf, size_t n)
{
    const char *p = strstr(source, "training_results_v");
    size_t k = 1;
    buf[0] = 0;
    if (p) p += strlen("training_results_");
    else if ((p = strstr(system, "MLPerf v")) != NULL) p += strlen("MLPerf ");
    if (!p || n < 2) return;
    while (k + 1 < n && (isdigit((unsigned char)p[k]) || (p[k] == '.' && isdigit((unsigned char)p[k + 1])))) k++;
    if (k < 2) return;
    memcpy(buf, p, k);
    buf[k] = 0;
}

/* The optimizer a row's notes name ("opt=lars"), as ttt.c's recipes do. */
static const char *row_optimizer(const char *notes)
{
    const char *o = strstr(notes, "opt=");
    if (!o) return "";
    o += 4;
    if (!strncmp(o, "lars", 4)) return "lars";
    if (!strncmp(o, "sgd", 3) || !strncmp(o, "stochastic_gradient_descent", 27)) return "sgd";
    if (pt_str_has_ci(o, "adam")) return "adam";
    return "";
}

static const char *const ttt_columns[] = {"source", "workload", "target", "system", "accelerator", "n_accel",
                                          "global_batch", "epochs_to_target", "steps_to_target",
                                          "time_to_train_min", "notes", NULL};
enum { T_SOURCE, T_WORKLOAD, T_TARGET, T_SYSTEM, T_ACCEL, T_N, T_GBS, T_EPOCHS, T_STEPS, T_TIME, T_NOTES, T_COUNT };

static pt_vrow *new_row(pt_vresult *out, int *cap, pt_diag *d, const char *file)
{
    if (out->n == *cap) {
        int ncap = *cap ? *cap * 2 : 256;
        pt_vrow *nr = realloc(out->rows, (size_t)ncap * sizeof *nr);
        if (!nr) {
            pt_diag_set(d, file, NULL, NULL, "out of memory");
            return NULL;
        }
        out->rows = nr;
        *cap = ncap;
    }
    memset(&out->rows[out->n], 0, sizeof out->rows[0]);
    return &out->rows[out->n++];
}

static pt_status validate_ttt(pt_csv *csv, const char *file, const pt_vcalib *calib, pt_vresult *out,
                              pt_diag *d)
{
    int idx[T_COUNT], cap = 0;
    for (int k = 0; k < T_COUNT; k++) {
        idx[k] = -1;
        for (int i = 0; i < csv->nf; i++)
            if (!strcmp(csv->f[i], ttt_columns[k])) idx[k] = i;
        if (idx[k] < 0) {
            pt_diag_set(d, file, ttt_columns[k], NULL, "header lacks the column \"%s\" (SPEC section 6)",
                        ttt_columns[k]);
            d->line = 1;
            d->col = 1;
            return PT_EINPUT;
        }
    }
    for (;;) {
        int got = pt_csv_next(csv);
        const char *f[T_COUNT], *graph = NULL;
        pt_vrow *r, *r2;
        pt_graph g;
        pt_cluster c;
        pt_statef se;
        pt_ttt_eval ev;
        pt_dp_impl impl;
        pt_graph_cost gc;
        pt_gpu_match gm;
        pt_goal_overheads ov;
        pt_goal_ttt t;
        int64_t n = 0;
        int found, cuda_graphs, v07, modern, mxnet, pytorch;
        double B, unit = 1.0, meas_epochs, meas_min, per_dev;
        char *end, round[16];
        const char *recipe;
        if (got == 0) break;
        if (got < 0) {
            pt_validate_free(out);
            pt_diag_set(d, file, NULL, NULL, "too many fields (more than %d)", PT_CSV_MAX_FIELDS);
            d->line = csv->record_line;
            d->col = 1;
            return PT_EINPUT;
        }
        if (csv->nf == 1 && !csv->f[0][0]) continue;
        if (!(r = new_row(out, &cap, d, file))) return PT_ENOMEM;
        r->line = csv->record_line;
        if (csv->nf <= idx[T_NOTES]) {
            skip(r, "too few fields");
            continue;
        }
        for (int k = 0; k < T_COUNT; k++) f[k] = csv->f[idx[k]];
        pt_strlcpy(r->source, f[T_SOURCE], sizeof r->source);
        pt_strlcpy(r->model, f[T_WORKLOAD], sizeof r->model);
        pt_strlcpy(r->metric, "time_to_train_min", sizeof r->metric);
        r->measured = strtod(f[T_TIME], &end);
        if (!f[T_TIME][0] || *end || !(r->measured > 0 && r->measured < HUGE_VAL)) {
            skip(r, "time_to_train_min is not a number > 0");
            continue;
        }
        /* ResNet-50 v1 rows (Goyal, Mikami, ...) are the same graph but not
         * MLPerf runs: they are skipped below, for that reason */
        if (!strncmp(f[T_WORKLOAD], "ResNet-50", 9)) graph = "resnet-50";
        else if (!strncmp(f[T_WORKLOAD], "GNMT", 4)) graph = "gnmt";
        else if (!strncmp(f[T_WORKLOAD], "Transformer-big", 15)) graph = "transformer-big", unit = 28.0 / TTT_TOKEN_FILL;
        else if (!strncmp(f[T_WORKLOAD], "SSD-ResNet34", 12)) graph = "ssd-resnet34";
        if (!graph) { skip(r, "workload not built in (resnet-50, gnmt, transformer-big, ssd-resnet34)"); continue; }
        if (pt_gpu_lookup("time_to_train", f[T_ACCEL], f[T_SYSTEM], &gm, &found, d) != PT_OK) {
            pt_validate_free(out);
            return PT_EINPUT;
        }
        if (!found) {
            skip(r, "accelerator not in the catalog (data/gpus.json, table time_to_train)");
            continue;
        }
        if (strncmp(f[T_SOURCE], "mlcommons", 9)) { skip(r, "not an MLPerf run (system and batch not given)"); continue; }
        if (num(f[T_N], &n) <= 0 || n < 1 || !f[T_GBS][0]) { skip(r, "n_accel or global_batch not given"); continue; }
        B = strtod(f[T_GBS], &end) / unit;
        if (*end || !(B > 0 && B < 1e15)) { skip(r, "global_batch is not a number > 0"); continue; }
        meas_epochs = strtod(f[T_EPOCHS], &end);
        meas_min = r->measured;
        if (pt_graph_builtin(graph, &g, d) != PT_OK) return PT_EINPUT;
        if (pt_gpu_cluster(&gm, &c, d) != PT_OK) {
            pt_graph_free(&g);
            return PT_EINPUT;
        }
        if (n < c.level[0].size) {
            c.nlevels = 1;
            c.level[0].size = n;
            c.devices = n;
        } else if (pt_cluster_resize(&c, n, d) != PT_OK) {
            pt_graph_free(&g);
            skip(r, "device count is not whole nodes");
            continue;
        }
        /* the layer-graph efficiencies (graph_cost.h), the kernel cost of a
         * CUDA-graph step, then a calibration's */
        pt_graph_device(&c.dev, &c.dev);
        row_round(f[T_SOURCE], f[T_SYSTEM], round, sizeof round);
        /* NVIDIA's stacks from v0.7 (ResNet-50's MXNet: CUDA graphs, fused
         * BN-ReLU) and from v1.0 (every benchmark in CUDA graphs) */
        v07 = !strcmp(round, "v0.7");
        modern = round[0] && strcmp(round, "v0.5") && strcmp(round, "v0.6") && !v07;
        mxnet = pt_str_has_ci(f[T_SYSTEM], "mxnet") || pt_str_has_ci(f[T_SOURCE], "mxnet");
        pytorch = pt_str_has_ci(f[T_SYSTEM], "pytorch") || pt_str_has_ci(f[T_SOURCE], "pytorch");
        cuda_graphs = modern || (v07 && mxnet);
        if (cuda_graphs) c.dev.kernel_us = PT_GRAPH_CUDA_GRAPH_KERNEL_US;
        if (calib) {
            c.dev.gemm_eff = calib->gemm_eff;
            c.dev.gemm_half_GFLOP = calib->gemm_half_GFLOP;
            c.dev.mem_eff = calib->mem_eff;
            c.dev.kernel_us = calib->kernel_us;
            for (int j = 0; j < c.nlevels; j++) c.level[j].efficiency = calib->level_eff[j];
        }
        r->cluster_v = c; /* the device the row is priced on (tools/fit.c selects by it) */
        pt_statef_builtin_for(graph, f[T_TARGET], row_optimizer(f[T_NOTES]), round, &se);
        recipe = pt_statef_recipe(graph, f[T_TARGET], row_optimizer(f[T_NOTES]), round);
        pt_ttt_eval_builtin_for(graph, round, &ev);
        per_dev = B / (double)n;
        memset(&impl, 0, sizeof impl);
        if (strstr(f[T_SOURCE], "v0.5")) {
            impl.flat_ring = 1;
            if (!strcmp(graph, "resnet-50") && n > c.level[0].size) impl.cycle_s = 0.005;
            if (!strcmp(graph, "transformer-big")) impl.after_backward = 1;
        }
        /* NVIDIA's PyTorch SSD passes --delay-allreduce (v0.6 run_and_time.sh,
         * v0.7's command line: "Delaying allreduces to the end of
         * backward()"); its MXNet SSD (v0.7 multi-node, v1.0) does not */
        if (!strcmp(graph, "ssd-resnet34") && pytorch) impl.after_backward = 1;
        if (cuda_graphs) impl.kernel_gap_us = PT_GRAPH_CUDA_GRAPH_KERNEL_US;
        if (cuda_graphs && !strcmp(graph, "resnet-50")) {
            impl.fused_bn_relu = 1;
            impl.after_backward = v07;
        }
        pt_graph_step_dp(&g, &c, PT_FP16, (int64_t)(per_dev + 0.5), &impl, &gc);
        {
            char buf[sizeof r->strategy + 256];
            snprintf(buf, sizeof buf,
                     "%s on %lld x %s (%s), batch %.0f, %.1f per device; recipe %s: E_min %.4g, B_noise %.0f", graph,
                     (long long)n, c.dev.name, gm.cluster, B, per_dev, recipe ? recipe : "-", se.e_min, se.b_noise);
            pt_strlcpy(r->strategy, buf, sizeof r->strategy);
        }
        ov.fixed_s = strstr(f[T_SOURCE], "v0.5") ? TTT_INIT_V05_S : TTT_INIT_V06_S;
        if (!strcmp(graph, "ssd-resnet34") && !strcmp(round, "v0.6")) ov.fixed_s = TTT_INIT_SSD_S;
        ov.per_epoch_s = unit > 1.0 ? TTT_FAIRSEQ_EPOCH_S : 0.0;
        ov.eval = &ev;
        ov.eval_s = pt_ttt_eval_s(&g, &c, PT_FP16, &ev);
        pt_goal_time_to_train(gc.step_time_s, B, &se, g.samples_per_epoch, &ov, &t);
        r->predicted = t.time_s / 60.0;
        r->is_time = 1;
        r->fits = 1;
        r->error = r->predicted / r->measured - 1.0;
        /* the same row's epochs, as its own metric */
        if (meas_epochs > 0 && (r2 = new_row(out, &cap, d, file)) != NULL) {
            r = &out->rows[out->n - 2];
            *r2 = *r;
            pt_strlcpy(r2->metric, "epochs_to_target", sizeof r2->metric);
            r2->measured = meas_epochs;
            r2->predicted = t.epochs;
            r2->is_time = 0;
            r2->error = r2->predicted / r2->measured - 1.0;
        }
        (void)meas_min;
        pt_graph_free(&g);
    }
    return PT_OK;
}

static int keep_all(const pt_vrow *row, void *arg)
{
    (void)row;
    (void)arg;
    return 1;
}

void pt_validate_summary(pt_vresult *r, int (*keep)(const pt_vrow *row, void *arg), void *arg)
{
    double sum = 0, tsum = 0, msum = 0;
    if (!keep) keep = keep_all;
    r->predicted = r->skipped = r->time_rows = r->memory_rows = r->time_rows_not_fitting = 0;
    r->mean_abs_error = r->worst_abs_error = 0;
    r->time_mean_abs_error = r->time_worst_abs_error = 0;
    r->memory_mean_abs_error = r->memory_worst_abs_error = 0;
    for (int i = 0; i < r->n; i++) {
        const pt_vrow *w = &r->rows[i];
        double e;
        if (!keep(w, arg)) continue;
        if (w->skipped[0]) {
            r->skipped++;
            continue;
        }
        e = fabs(w->error);
        r->predicted++;
        sum += e;
        if (e > r->worst_abs_error) r->worst_abs_error = e;
        if (w->is_time) {
            r->time_rows++;
            tsum += e;
            if (e > r->time_worst_abs_error) r->time_worst_abs_error = e;
            if (!w->fits) r->time_rows_not_fitting++;
        }
        if (w->is_memory) {
            r->memory_rows++;
            msum += e;
            if (e > r->memory_worst_abs_error) r->memory_worst_abs_error = e;
        }
    }
    if (r->predicted) r->mean_abs_error = sum / r->predicted;
    if (r->time_rows) r->time_mean_abs_error = tsum / r->time_rows;
    if (r->memory_rows) r->memory_mean_abs_error = msum / r->memory_rows;
}

pt_status pt_validate_csv(const char *text, const char *file, const pt_vcalib *calib,
                          pt_vresult *out, pt_diag *d)
{
    pt_csv csv;
    int idx[C_COUNT], cap = 0, hdr;
    vcache vc;
    memset(out, 0, sizeof *out);
    vc.n = 0;
    vc.cat_loaded = 0;
    pt_csv_init(&csv, text);
    if ((hdr = pt_csv_next(&csv)) != 1) {
        pt_csv_free(&csv);
        if (hdr < 0)
            pt_diag_set(d, file, NULL, NULL, "too many fields (more than %d)", PT_CSV_MAX_FIELDS);
        else
            pt_diag_set(d, file, NULL, NULL, "empty file: expected a header row");
        d->line = 1;
        d->col = 1;
        return PT_EINPUT;
    }
    if (csv.nf >= 2 && !strcmp(csv.f[0], "source") && !strcmp(csv.f[1], "workload")) {
        pt_status st = validate_ttt(&csv, file, calib, out, d);
        pt_csv_free(&csv);
        if (st == PT_OK) pt_validate_summary(out, NULL, NULL);
        return st;
    }
    if (pt_infer_runs_header(csv.f, csv.nf)) { /* SPEC section 8: src/validate/infer_runs.c */
        pt_csv_free(&csv);
        return pt_infer_runs_csv(text, file, out, d);
    }
    for (int k = 0; k < C_COUNT; k++) {
        idx[k] = -1;
        for (int i = 0; i < csv.nf; i++)
            if (!strcmp(csv.f[i], columns[k])) idx[k] = i;
        if (idx[k] < 0) {
            pt_diag_set(d, file, columns[k], NULL, "header lacks the column \"%s\" (SPEC section 6)",
                        columns[k]);
            d->line = 1;
            d->col = 1;
            pt_csv_free(&csv);
            return PT_EINPUT;
        }
    }
    for (;;) {
        int got = pt_csv_next(&csv);
        char *f[C_COUNT];
        pt_vrow *r;
        if (got == 0) break;
        if (got < 0) {
            pt_csv_free(&csv);
            pt_validate_free(out);
            pt_diag_set(d, file, NULL, NULL, "too many fields (more than %d)", PT_CSV_MAX_FIELDS);
            d->line = csv.record_line;
            d->col = 1;
            return PT_EINPUT;
        }
        if (csv.nf == 1 && !csv.f[0][0]) continue; /* blank line */
        if (out->n == cap) {
            int ncap = cap ? cap * 2 : 256;
            pt_vrow *nr = realloc(out->rows, (size_t)ncap * sizeof *nr);
            if (!nr) {
                pt_csv_free(&csv);
                pt_validate_free(out);
                pt_diag_set(d, file, NULL, NULL, "out of memory");
                return PT_ENOMEM;
            }
            out->rows = nr;
            cap = ncap;
        }
        r = &out->rows[out->n++];
        memset(r, 0, sizeof *r);
        r->line = csv.record_line;
        if (csv.nf != 28 && csv.nf <= idx[C_NOTES]) {
            char why[96];
            snprintf(why, sizeof why, "has %d fields, the header has more", csv.nf);
            skip(r, why);
            continue;
        }
        for (int k = 0; k < C_COUNT; k++) f[k] = csv.f[idx[k]];
        pt_strlcpy(r->source, f[C_SOURCE], sizeof r->source);
        pt_strlcpy(r->model, f[C_MODEL], sizeof r->model);
        pt_strlcpy(r->metric, f[C_METRIC], sizeof r->metric);
        predict_row(&vc, f, calib, r);
        if (!r->skipped[0]) r->error = r->measured != 0 ? r->predicted / r->measured - 1.0 : 0.0;
    }
    pt_csv_free(&csv);
    pt_validate_summary(out, NULL, NULL);
    return PT_OK;
}

void pt_validate_free(pt_vresult *r)
{
    free(r->rows);
    r->rows = NULL;
    r->n = 0;
}

pt_status pt_validate_plans(const pt_vresult *r, int top_k, int threads, pt_vplan **out, int *n,
                            pt_diag *d)
{
    pt_vplan *v = calloc((size_t)(r->n ? r->n : 1), sizeof *v);
    *n = 0;
    *out = v;
    if (!v) {
        pt_diag_set(d, NULL, NULL, NULL, "out of memory");
        return PT_ENOMEM;
    }
    for (int i = 0; i < r->n; i++) {
        const pt_vrow *w = &r->rows[i];
        pt_search_opts o;
        pt_search_result sr;
        pt_cost pub;
        pt_vplan *p;
        pt_status st;
        if (w->skipped[0] || !w->is_time || !w->engine_run) continue;
        memset(&o, 0, sizeof o);
        pt_space_init(&o.space);
        o.top_k = top_k;
        o.threads = threads;
        o.prune = 1;
        o.gbs_lo = o.gbs_hi = w->st_v.gbs;
        if ((st = pt_search_engine(&w->model_v, &w->cluster_v, &w->job_v, &o, &sr, d)) != PT_OK) return st;
        p = &v[(*n)++];
        p->line = w->line;
        pt_strlcpy(p->model, w->model, sizeof p->model);
        pt_strategy_format(&w->st_v, p->published, sizeof p->published);
        pt_cost_eval(&w->model_v, &w->cluster_v, &w->job_v, &w->st_v, &pub);
        p->published_s = pub.step_time_s;
        p->published_fits = pub.fits;
        p->published_searched = pub.fits && pt_engine_admits(w->job_v.engine, &w->model_v, &w->job_v, &w->st_v);
        if (sr.n > 0) {
            pt_strategy_format(&sr.plans[0].st, p->best, sizeof p->best);
            p->best_s = sr.plans[0].cost.step_time_s;
        }
        for (int k = 0; k < sr.n; k++) {
            int same = 1;
            for (int dd = 0; dd < PT_D_COUNT; dd++)
                if (pt_strategy_dim(&sr.plans[k].st, dd) != pt_strategy_dim(&w->st_v, dd)) same = 0;
            if (same) {
                p->rank = k + 1;
                break;
            }
        }
        pt_search_free(&sr);
    }
    return PT_OK;
}
