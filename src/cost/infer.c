/*
 * infer.c -- the inference cost model (infer.h says what it covers).
 *
 * Sources of the formulas:
 *  - Decode reads every weight once per step plus every running sequence's
 *    KV cache (memory-bound); prefill is compute-bound: the roofline of
 *    src/cost/roofline.c with M = the step's tokens gives both (Pope et al.
 *    2022, "Efficiently Scaling Transformer Inference", section 2; Vidur,
 *    MLSys'24, prices the same operators).  wave2-notes section 1, formulas
 *    1-3.
 *  - KV bytes per token: 2 layers kv_heads head_dim bytes; TP splits it by
 *    head up to kv_heads and replicates beyond; MLA caches kv_lora + qk_rope
 *    per layer (DeepSeek-V2 report, section 2.1, Table 1).
 *  - Experts a step touches: with T tokens routed uniformly to k of E
 *    experts, E (1 - (1 - k/E)^T) experts are used (expected coverage).
 *  - Busiest of n ranks under load cv: 1 + cv sqrt(2 ln n) (the expected
 *    maximum of n normals, to first order); DWDP (arXiv 2604.01621) removes
 *    the wait and pays max(compute, prefetch) per layer instead.
 *  - Chunked prefill (Sarathi-Serve, OSDI'24): prompt chunks ride in decode
 *    steps; a chunk costs what it adds to the step.
 *  - Speculative decoding: Leviathan et al. 2023, eq. 1.
 * Constants that belong to inference alone are below with their source.
 */
#include "cost/infer.h"
#include "base/base.h"
#include "cost/roofline.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* Activations travel in 16 bits whatever the weights' storage (FP8 engines
 * quantise GEMM inputs inside the kernel; all-reduces run in bf16). */
#define ACT_BYTES 2.0
/* fp4 tensor cores run at twice the fp8 rate (NVIDIA Blackwell datasheets:
 * B200 9 PFLOPS dense FP4 against 4.5 FP8; GB200 10 against 5). */
#define FP4_OVER_FP8 2.0
/* Kernels one layer launches in a fused serving engine: qkv GEMM, rope +
 * KV write, attention, o GEMM, two fused residual+norm, gate/up GEMM,
 * activation, down GEMM (TensorRT-LLM's and vLLM's Llama layers), plus two
 * per all-reduce and three for the router/dispatch/combine of a MoE layer. */
#define KERNELS_LAYER 9.0
/* Engine constants (see `engines` below for the fit). */
#ifndef ENGINE_TRT10_DECODE
#define ENGINE_TRT10_DECODE 0.84
#endif
#ifndef ENGINE_TRT10_MOE
#define ENGINE_TRT10_MOE 0.56
#endif
#ifndef ENGINE_TRT10_COLL
#define ENGINE_TRT10_COLL 32.0
#endif
#ifndef ENGINE_TRT0X_DECODE
#define ENGINE_TRT0X_DECODE 0.51
#endif
#ifndef ENGINE_TRT0X_COLL
#define ENGINE_TRT0X_COLL 30.0
#endif
#ifndef ENGINE_TRT05_LAUNCH
#define ENGINE_TRT05_LAUNCH 18.0
#endif

const char *pt_infer_qname(pt_qtype q)
{
    return q == PT_Q_FP8 ? "fp8" : q == PT_Q_FP4 ? "fp4" : "bf16";
}

double pt_infer_qbytes(pt_qtype q)
{
    return q == PT_Q_FP8 ? 1.0 : q == PT_Q_FP4 ? 0.5 : 2.0;
}

pt_status pt_infer_qparse(const char *s, const char *field, pt_qtype *q, pt_diag *d)
{
    if (!strcmp(s, "bf16") || !strcmp(s, "fp16")) *q = PT_Q_BF16;
    else if (!strcmp(s, "fp8")) *q = PT_Q_FP8;
    else if (!strcmp(s, "fp4")) *q = PT_Q_FP4;
    else
        return pt_diag_set(d, NULL, field, s, "%s: \"%s\" is not bf16, fp8 or fp4", field, s);
    return PT_OK;
}

int pt_infer_has_fp4(const pt_device *dev)
{
    static const char *const fp4[] = {"b200", "gb200", "b300", "gb300", NULL};
    for (int i = 0; fp4[i]; i++)
        if (!strncmp(dev->name, fp4[i], strlen(fp4[i]))) return 1;
    return 0;
}

void pt_infer_cfg_default(pt_infer_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->tp = cfg->pp = cfg->ep = 1;
    cfg->wq = cfg->kvq = PT_Q_BF16;
    cfg->free_frac = 0.9;
    cfg->block_tokens = 32;
    cfg->max_tokens = 8192;
    cfg->decode_eff = ENGINE_TRT10_DECODE;
    cfg->moe_eff = ENGINE_TRT10_MOE;
    cfg->launch_us = 0.0;
    cfg->coll_us = ENGINE_TRT10_COLL;
}

pt_status pt_infer_check(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                         pt_diag *d)
{
    char v[32];
    /* A hybrid Mamba-2 model (pt_model.hybrid) keeps a KV cache in its
     * attention blocks only and a constant-size recurrent state (conv and
     * SSM states) in its Mamba blocks, and its decode step runs the
     * recurrence instead of attention: the per-layer prices below assume
     * attention and a KV cache in every layer, so it is refused, not
     * mispriced. */
    if (m->hybrid[0])
        return pt_diag_set(d, NULL, "model", m->name, "%s is a hybrid Mamba-2 model (hybrid_override_pattern): "
                           "serving it is not priced (its Mamba blocks keep a recurrent state, not a KV "
                           "cache); training is (eval, plan)", m->name);
    if (cfg->tp < 1 || cfg->pp < 1 || cfg->ep < 1) {
        snprintf(v, sizeof v, "%lld", (long long)(cfg->tp < 1 ? cfg->tp : cfg->pp < 1 ? cfg->pp : cfg->ep));
        return pt_diag_set(d, NULL, "tp", v, "tp, pp and ep must be >= 1");
    }
    if (m->heads % cfg->tp != 0) {
        snprintf(v, sizeof v, "%lld", (long long)cfg->tp);
        return pt_diag_set(d, NULL, "tp", v, "tp=%lld does not divide num_attention_heads=%lld",
                           (long long)cfg->tp, (long long)m->heads);
    }
    if (cfg->pp > m->layers) {
        snprintf(v, sizeof v, "%lld", (long long)cfg->pp);
        return pt_diag_set(d, NULL, "pp", v, "pp=%lld is more than the model's %lld layers",
                           (long long)cfg->pp, (long long)m->layers);
    }
    if (cfg->ep > 1) {
        snprintf(v, sizeof v, "%lld", (long long)cfg->ep);
        if (m->experts == 0)
            return pt_diag_set(d, NULL, "ep", v, "ep=%lld but %s has no experts", (long long)cfg->ep,
                               m->name);
        if (m->experts % cfg->ep != 0)
            return pt_diag_set(d, NULL, "ep", v, "ep=%lld does not divide the %lld experts",
                               (long long)cfg->ep, (long long)m->experts);
        if (!cfg->dwdp && cfg->tp % cfg->ep != 0)
            return pt_diag_set(d, NULL, "ep", v, "ep=%lld does not divide tp=%lld (experts are "
                               "spread over the ranks of the TP group)", (long long)cfg->ep,
                               (long long)cfg->tp);
    }
    if ((cfg->attn_dp || cfg->dwdp) && m->experts == 0)
        return pt_diag_set(d, NULL, cfg->dwdp ? "dwdp" : "attn_dp", "1",
                           "%s is for MoE models; %s has no experts", cfg->dwdp ? "dwdp" : "attn_dp",
                           m->name);
    if (cfg->dwdp && c->level[0].size < cfg->ep) {
        snprintf(v, sizeof v, "%lld", (long long)cfg->ep);
        return pt_diag_set(d, NULL, "ep", v, "dwdp spreads experts over ep=%lld peers of one NVLink "
                           "domain, but %s's holds %lld", (long long)cfg->ep, c->name,
                           (long long)c->level[0].size);
    }
    if (cfg->tp * cfg->pp > c->devices) {
        snprintf(v, sizeof v, "%lld", (long long)(cfg->tp * cfg->pp));
        return pt_diag_set(d, NULL, "tp", v, "tp*pp=%lld is more than the %lld devices",
                           (long long)(cfg->tp * cfg->pp), (long long)c->devices);
    }
    if ((cfg->wq == PT_Q_FP4 || cfg->kvq == PT_Q_FP4) && !pt_infer_has_fp4(&c->dev))
        return pt_diag_set(d, NULL, "dtype", "fp4", "fp4: %s has no fp4 tensor cores (Blackwell has)",
                           c->dev.name);
    if (cfg->kvq == PT_Q_FP4)
        return pt_diag_set(d, NULL, "kv-dtype", "fp4", "kv-dtype: fp4 is not a KV-cache format "
                           "the engines offer (bf16 or fp8)");
    return PT_OK;
}

pt_infer_batch pt_infer_batch_prefill(double n, double len)
{
    pt_infer_batch b;
    memset(&b, 0, sizeof b);
    b.prefill_tokens = n * len;
    b.prefill_pairs = n * len * (len + 1.0) / 2.0;
    b.prefill_seqs = n;
    return b;
}

pt_infer_batch pt_infer_batch_decode(double n, double ctx)
{
    pt_infer_batch b;
    memset(&b, 0, sizeof b);
    b.decode_seqs = n;
    b.decode_ctx = n * ctx;
    return b;
}

/* DSA's indexer keeps a key per token per layer too: index_head_dim fp8
 * values and an fp32 scale per 128 (DeepSeek-V3.2 model.py, k_cache and
 * k_scale_cache), whatever the KV dtype. */
static double index_kv_bytes(const pt_model *m)
{
    /* per layer on average: only the layers that run their own indexer */
    return m->index_topk > 0 ? (double)m->index_head_dim * (1.0 + 4.0 / 128.0) * pt_model_index_share(m) : 0.0;
}

double pt_infer_kv_bytes_per_token(const pt_model *m, pt_qtype kvq)
{
    double per_layer = m->mla ? (double)(m->kv_lora + m->qk_rope)
                              : 2.0 * (double)m->kv_heads * (double)m->head_dim;
    return (per_layer * pt_infer_qbytes(kvq) + index_kv_bytes(m)) * (double)m->layers;
}

/* KV bytes one device holds per token of one of its sequences, per layer. */
static double kv_layer_dev(const pt_model *m, const pt_infer_cfg *cfg)
{
    double b = pt_infer_qbytes(cfg->kvq);
    double share;
    if (m->mla) return (double)(m->kv_lora + m->qk_rope) * b + index_kv_bytes(m); /* the latent: every rank a copy */
    if (cfg->attn_dp || cfg->dwdp) return 2.0 * (double)m->kv_heads * (double)m->head_dim * b;
    share = (double)m->kv_heads / (double)cfg->tp; /* seq_par keeps TP's layout */
    if (share < 1.0) share = 1.0;
    return 2.0 * share * (double)m->head_dim * b;
}

/* Tensor-split ways of the dense parts, and of the attention projections. */
static double dense_ways(const pt_infer_cfg *cfg)
{
    return cfg->seq_par || cfg->dwdp ? 1.0 : (double)cfg->tp;
}
static double attn_ways(const pt_infer_cfg *cfg)
{
    return cfg->attn_dp || cfg->dwdp ? 1.0 : dense_ways(cfg);
}

static double imbalance(double cv, double n)
{
    return n > 1.0 ? 1.0 + cv * sqrt(2.0 * log(n)) : 1.0;
}

/* Expected experts used by t routed tokens (k of E each). */
static double experts_used(const pt_model *m, double t)
{
    double e = (double)m->experts, k = (double)m->topk;
    if (t <= 0) return 0;
    return e * (1.0 - pow(1.0 - k / e, t));
}

/* Layer kinds a stage holds (dense first: first_k_dense_replace). */
typedef struct lcost {
    double lin, attn, other, comm;
} lcost;

static double gemm(const pt_roofline *r, double peak, double M, double params, double K,
                   double batch, double elem)
{
    if (M <= 0 || params <= 0) return 0;
    return pt_roofline_gemm_s(r, peak, M, params / (K * batch), K, batch, elem);
}

static void layer_cost(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                       const pt_roofline *r, const pt_infer_batch *b, int moe, lcost *o)
{
    double h = (double)m->hidden, tp = (double)cfg->tp;
    double T = b->prefill_tokens + b->decode_seqs;
    double wb = pt_infer_qbytes(cfg->wq);
    double aw = attn_ways(cfg), dw = dense_ways(cfg);
    /* tokens one device's attention projections see */
    double t_attn = aw < tp && tp > 1 ? T / tp : T;
    double t_dense = dw < tp && tp > 1 ? T / tp : T;
    double heads_dev, pairs_dev, ctx_dev, qk, vd, bytes, kern = KERNELS_LAYER, busy, ffn_dev;
    memset(o, 0, sizeof *o);
    if (T <= 0) return;
    /* projections (q, k, v, o, norms: pt_model_attn_params) */
    o->lin += gemm(r, r->peak, t_attn, (double)pt_model_attn_params(m) / aw, h, 1.0, wb);
    if (!moe) {
        o->lin += gemm(r, r->peak, t_dense, (double)pt_model_dense_mlp_params(m) / dw, h, 1.0, wb);
        ffn_dev = (double)m->ffn / dw;
    } else {
        double E = (double)m->experts, k = (double)m->topk;
        double pe = (double)pt_model_expert_params(m) / E; /* one expert */
        double other = (double)pt_model_moe_other_params(m);
        o->lin += gemm(r, r->peak, t_dense, other / dw, h, 1.0, wb);
        ffn_dev = (double)(m->topk * m->moe_ffn + m->shared_ffn) / dw;
        kern += 3.0;
        if (cfg->dwdp) {
            /* one GPU, its own tokens, every expert they use; the experts it
             * does not hold come from its ep-1 peers while the layer before
             * computes: the layer costs max(compute, prefetch) */
            double used = experts_used(m, T);
            double ex = gemm(r, r->peak, T * k / used, used * pe, h, used, wb);
            double fetch_bytes = used * pe * wb * (1.0 - 1.0 / (double)cfg->ep);
            double fetch = pt_p2p_time(c, (int64_t)fetch_bytes, cfg->ep, 1);
            double rest = o->lin; /* attention and shared parts overlap it too */
            o->lin += ex;
            if (fetch > o->lin) o->comm += fetch - o->lin;
            (void)rest;
        } else {
            double ep = (double)cfg->ep, etp = tp / ep;
            double used = experts_used(m, T);
            double loc = used / ep; /* experts in use per EP rank */
            double tok = T * k / ep * imbalance(cfg->moe_cv, ep); /* busiest rank's pairs */
            if (loc < 1.0) loc = 1.0;
            o->lin += gemm(r, r->peak, tok / loc, loc * pe / etp, h, loc, wb);
            if (cfg->ep > 1) {
                /* dispatch and combine: each rank's 1/tp of the tokens, k copies */
                int64_t a2a = (int64_t)(T / tp * k * h * ACT_BYTES);
                o->comm += 2.0 * (pt_coll_time(c, PT_ALLTOALL, a2a, cfg->ep, 1) + cfg->coll_us * 1e-6);
            }
        }
    }
    /* attention core */
    heads_dev = (double)m->heads / (aw > 1 ? aw : (cfg->seq_par ? tp : 1.0));
    pairs_dev = cfg->attn_dp ? b->prefill_pairs / tp : b->prefill_pairs;
    ctx_dev = cfg->attn_dp ? b->decode_ctx / tp : b->decode_ctx;
    if (m->window > 0 && m->window_layers > 0 && b->decode_seqs > 0) {
        /* window layers read at most `window` tokens per sequence */
        double mean = b->decode_ctx / b->decode_seqs;
        double frac = (double)m->window_layers / (double)m->layers;
        if (mean > (double)m->window)
            ctx_dev *= 1.0 - frac + frac * (double)m->window / mean;
    }
    qk = m->mla ? (double)(m->qk_nope + m->qk_rope) : (double)m->head_dim;
    vd = m->mla ? (double)m->v_head : (double)m->head_dim;
    if (m->index_topk > 0) {
        /* DSA: the indexer scores every earlier token (fp8, all its heads on
         * every rank) and reads its keys; MLA attends to the topk it picks,
         * in its MQA form (prefill too: kv_lora + rope keys, kv_lora values) */
        double k = (double)m->index_topk, hi = (double)m->index_heads, di = (double)m->index_head_dim;
        double r8 = c->dev.tflops_fp8 > 0 ? pt_device_tflops(&c->dev, PT_BF16) / c->dev.tflops_fp8 : 1.0;
        double ip = 2.0 * hi * di * (pairs_dev + ctx_dev) * pt_model_index_share(m), span;
        o->attn += ip * r8 / (r->peak16 * r->attn_eff);
        o->attn += pt_roofline_ew_s(r, ctx_dev * index_kv_bytes(m));
        /* prefill: queries whose prefix spans 2 pairs/tokens on average see
         * min(i, k) keys, k - k^2/2span each (cost.c's causal_keys) */
        span = b->prefill_tokens > 0 ? 2.0 * b->prefill_pairs / b->prefill_tokens : 0.0;
        if (pairs_dev > 0 && span > k) pairs_dev *= (k - k * k / (2.0 * span)) / (span / 2.0);
        if (b->decode_seqs > 0 && b->decode_ctx / b->decode_seqs > k)
            ctx_dev *= k / (b->decode_ctx / b->decode_seqs);
        qk = (double)(m->kv_lora + m->qk_rope), vd = (double)m->kv_lora;
    }
    if (pairs_dev > 0) {
        double seq = 2.0 * b->prefill_pairs / (b->prefill_tokens > 0 ? b->prefill_tokens : 1.0);
        o->attn += pt_roofline_flash_s(r, 2.0 * heads_dev * (qk + vd) * pairs_dev, seq);
    }
    if (ctx_dev > 0) {
        double fl, tc, tm;
        /* MLA decodes on the latent (weights absorbed): per head and token
         * 2 (kv_lora + qk_rope) for scores, 2 kv_lora for values */
        fl = m->mla ? 2.0 * heads_dev * (double)(2 * m->kv_lora + m->qk_rope) * ctx_dev
                    : 2.0 * heads_dev * (qk + vd) * ctx_dev;
        tc = fl / (r->peak16 * r->attn_eff);
        tm = pt_roofline_ew_s(r, ctx_dev * (kv_layer_dev(m, cfg) - index_kv_bytes(m))); /* DSA's keys: above */
        o->attn += tc > tm ? tc : tm;
    }
    /* element-wise: two norms (read + write h), two residual adds (2 reads,
     * 1 write), rope on q and k, the MLP activation (2 reads, 1 write) */
    bytes = ACT_BYTES * t_dense * (4.0 * h + 6.0 * h + 3.0 * ffn_dev) +
            ACT_BYTES * t_attn * 2.0 * (double)(m->heads + m->kv_heads) * (double)m->head_dim / aw;
    o->other += pt_roofline_ew_s(r, bytes);
    /* collectives */
    if (cfg->tp > 1 && !cfg->dwdp) {
        if (cfg->seq_par) {
            /* Ulysses: q, k, v by head before attention, o back by sequence */
            double qkv = (double)(m->heads + 2 * m->kv_heads) * (double)m->head_dim;
            double ob = (double)m->heads * (double)m->head_dim;
            o->comm += pt_coll_time(c, PT_ALLTOALL, (int64_t)(T / tp * qkv * ACT_BYTES), cfg->tp, 1) +
                       pt_coll_time(c, PT_ALLTOALL, (int64_t)(T / tp * ob * ACT_BYTES), cfg->tp, 1) +
                       2.0 * cfg->coll_us * 1e-6;
            kern += 4.0;
        } else {
            int64_t ar = (int64_t)(T * h * ACT_BYTES);
            int n_ar = cfg->attn_dp ? (moe && cfg->ep > 1 ? 0 : 1) : (moe && cfg->ep > 1 ? 1 : 2);
            o->comm += (double)n_ar * (pt_coll_time(c, PT_ALLREDUCE, ar, cfg->tp, 1) + cfg->coll_us * 1e-6);
            kern += 2.0 * n_ar;
        }
    }
    busy = o->lin + o->attn + o->other;
    o->other += pt_roofline_floor_s(r, busy, kern) - busy;
}

static void init_roofline(const pt_cluster *c, const pt_infer_cfg *cfg, pt_roofline *r)
{
    pt_roofline_init(&c->dev, cfg->wq == PT_Q_BF16 ? PT_BF16 : PT_FP8, r);
    /* the device's kernel_us is eager PyTorch's dispatch (fitted to training
     * runs); serving engines replay CUDA graphs: their launch cost is the
     * engine's launch_us, added to prefill steps */
    r->kernel_us = 0.0;
    /* and their decode and attention kernels are fused: the engine's
     * decode_eff is the fraction of the datasheet bandwidth they reach
     * (fitted per engine release, `engines` below), not the device's mem_eff,
     * which is fitted to training's unfused element-wise kernels */
    r->mem_bw = c->dev.memory_bw_GBps * 1e9;
    if (cfg->wq == PT_Q_FP4 && pt_infer_has_fp4(&c->dev)) r->peak *= FP4_OVER_FP8;
}

static void step_raw(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                     const pt_infer_batch *b, pt_infer_time *out)
{
    pt_roofline r;
    lcost dl, ml;
    double pp = (double)cfg->pp, L = (double)m->layers;
    double nmoe = (double)pt_model_moe_layers(m), ndense = L - nmoe;
    double per = ceil(L / pp), sm, sd, outs = b->prefill_seqs + b->decode_seqs, h = (double)m->hidden;
    double T = b->prefill_tokens + b->decode_seqs;
    assert(m && c && cfg && b && out);
    memset(out, 0, sizeof *out);
    init_roofline(c, cfg, &r);
    layer_cost(m, c, cfg, &r, b, 0, &dl);
    if (nmoe > 0) layer_cost(m, c, cfg, &r, b, 1, &ml);
    else memset(&ml, 0, sizeof ml);
    /* the busiest stage holds ceil(L/pp) layers, MoE ones in proportion */
    sm = per * nmoe / L;
    sd = per - sm;
    (void)ndense;
    out->linear_s = sd * dl.lin + sm * ml.lin;
    out->attn_s = sd * dl.attn + sm * ml.attn;
    out->other_s = sd * dl.other + sm * ml.other;
    out->comm_s = sd * dl.comm + sm * ml.comm;
    /* logits of the sequences that emit a token (16-bit output layer) */
    if (outs > 0) {
        double vw = cfg->seq_par || cfg->dwdp ? 1.0 : (double)cfg->tp;
        double rows = vw < (double)cfg->tp && cfg->tp > 1 ? outs / (double)cfg->tp : outs;
        out->linear_s += gemm(&r, r.peak16, rows, (double)m->vocab * h / vw, h, 1.0, ACT_BYTES);
    }
    if (cfg->pp > 1) out->comm_s += pt_p2p_time(c, (int64_t)(T * h * ACT_BYTES), cfg->pp, cfg->tp);
    if (b->prefill_tokens > 0 && cfg->launch_us > 0) {
        /* a prefill step runs without a CUDA graph: every kernel's launch
         * gap adds to the step */
        double kern = KERNELS_LAYER + (cfg->tp > 1 ? 4.0 : 0.0) + (nmoe > 0 ? 3.0 : 0.0);
        out->other_s += per * kern * cfg->launch_us * 1e-6;
    }
    out->stage_s = out->linear_s + out->attn_s + out->other_s + out->comm_s;
    out->total_s = pp * out->stage_s;
}

static void scale_time(pt_infer_time *t, double f)
{
    t->linear_s *= f;
    t->attn_s *= f;
    t->other_s *= f;
    t->comm_s *= f;
    t->stage_s *= f;
    t->total_s *= f;
}

void pt_infer_step(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                   const pt_infer_batch *b, pt_infer_time *out)
{
    double de = cfg->decode_eff > 0 && cfg->decode_eff < 1 ? cfg->decode_eff : 1.0;
    if (cfg->seq_par == 2) {
        /* shift parallelism: the step runs as TP or as SP, whichever is faster */
        pt_infer_cfg a = *cfg, s = *cfg;
        pt_infer_time ta, ts;
        a.seq_par = 0;
        s.seq_par = 1;
        pt_infer_step(m, c, &a, b, &ta);
        pt_infer_step(m, c, &s, b, &ts);
        *out = ts.total_s < ta.total_s ? ts : ta;
        return;
    }
    step_raw(m, c, cfg, b, out);
    if (de < 1.0 && b->decode_seqs > 0) {
        /* the engine's decode runs at de of the roofline: its decode share
         * of the step takes 1/de as long */
        pt_infer_time dec;
        pt_infer_batch only = *b;
        only.prefill_tokens = only.prefill_pairs = only.prefill_seqs = 0;
        if (b->prefill_tokens > 0) step_raw(m, c, cfg, &only, &dec);
        else dec = *out;
        out->other_s += (1.0 / de - 1.0) * dec.stage_s;
        out->stage_s += (1.0 / de - 1.0) * dec.stage_s;
        out->total_s = (double)cfg->pp * out->stage_s;
    }
    if (m->experts > 0 && cfg->moe_eff > 0 && cfg->moe_eff < 1) scale_time(out, 1.0 / cfg->moe_eff);
}

/* Engine releases: what each reaches of the roofline (decode at the
 * datasheet bandwidth, see init_roofline).  Fitted by tools/fit_infer.sh
 * (grid search on mean |log(predicted/measured)|, one constant per group of
 * rows, two rounds) to the EVEN CSV lines of
 * data/validation/inference_runs.csv; the odd lines are held out.  Result:
 * fit half 38 rows 10.9% mean |error|, held-out half 37 rows 7.9%, all 75
 * rows 9.4% (refitted when fp8 GEMMs took the H200's measured rate,
 * fp8_gemm_ratio 0.92 and the GEMM ramp as a fixed time: the constants
 * before, 0.76 / 0.58 / 20 / 36, read 11.8%, 8.8% and 10.4% then; before
 * issue 15's H100 constants decode used the device's training-fitted
 * mem_eff: 11.5%, then 21.5% after that refit).
 *  - trtllm-1.0 (trtllm-bench, PyTorch backend, inflight batching, FP8 on
 *    H100): decode_eff 0.84 of the datasheet bandwidth and coll_us 32 from
 *    the 15 even dense rows; moe_eff 0.56 from the 4 even Qwen3-235B rows
 *    (expert GEMMs of ~100 tokens per expert, the attention-DP all-to-alls
 *    and the router reach about three fifths of the roofline).
 *  - trtllm-0.6 / 0.5 (gptSessionBenchmark, static batching, 2023): one
 *    decode_eff (0.51) and coll_us (30) for both, from their 11 even
 *    throughput rows; launch_us 18 from the 7 even v0.5 batch-1 first-token
 *    latencies (a prefill step without a CUDA graph).
 * vLLM and SGLang have no runs in the CSV: they are priced as trtllm-1.0. */
static const struct {
    const char *name;
    double decode_eff, moe_eff, launch_us, coll_us;
} engines[] = {
    {"trtllm", ENGINE_TRT10_DECODE, ENGINE_TRT10_MOE, 0.0, ENGINE_TRT10_COLL},
    {"trtllm-1.0", ENGINE_TRT10_DECODE, ENGINE_TRT10_MOE, 0.0, ENGINE_TRT10_COLL},
    {"vllm", ENGINE_TRT10_DECODE, ENGINE_TRT10_MOE, 0.0, ENGINE_TRT10_COLL},
    {"sglang", ENGINE_TRT10_DECODE, ENGINE_TRT10_MOE, 0.0, ENGINE_TRT10_COLL},
    {"trtllm-0.6", ENGINE_TRT0X_DECODE, 1.0, ENGINE_TRT05_LAUNCH, ENGINE_TRT0X_COLL},
    {"trtllm-0.5", ENGINE_TRT0X_DECODE, 1.0, ENGINE_TRT05_LAUNCH, ENGINE_TRT0X_COLL},
    {"roofline", 1.0, 1.0, 0.0, 0.0},
};

pt_status pt_infer_engine(const char *name, pt_infer_cfg *cfg, pt_diag *d)
{
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++)
        if (!strcmp(engines[i].name, name)) {
            cfg->decode_eff = engines[i].decode_eff;
            cfg->moe_eff = engines[i].moe_eff;
            cfg->launch_us = engines[i].launch_us;
            cfg->coll_us = engines[i].coll_us;
            return PT_OK;
        }
    return pt_diag_set(d, NULL, "engine", name, "engine: \"%s\" is not vllm, sglang, trtllm, "
                       "trtllm-1.0, trtllm-0.6, trtllm-0.5 or roofline", name);
}

void pt_infer_memory(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                     pt_infer_mem *out)
{
    double wb = pt_infer_qbytes(cfg->wq), tp = (double)cfg->tp, h = (double)m->hidden;
    double per = ceil((double)m->layers / (double)cfg->pp);
    double nmoe = (double)pt_model_moe_layers(m), L = (double)m->layers;
    double sm = per * nmoe / L, sd = per - sm;
    double attn = (double)pt_model_attn_params(m) / attn_ways(cfg);
    double dense = attn + (double)pt_model_dense_mlp_params(m) / dense_ways(cfg);
    double moe = attn + (double)pt_model_moe_other_params(m) / dense_ways(cfg);
    double embed = (double)m->vocab * h, ew = cfg->seq_par || cfg->dwdp ? 1.0 : tp;
    double seqs, act, free_b;
    assert(m && c && cfg && out);
    memset(out, 0, sizeof *out);
    if (nmoe > 0) {
        double ex = (double)pt_model_expert_params(m);
        moe += cfg->dwdp ? ex / (double)cfg->ep : ex / tp;
    }
    out->weights_bytes = wb * (sd * dense + sm * moe);
    if (nmoe > 0 && cfg->dwdp) /* DWDP: two layers' buffers for the experts fetched from peers */
        out->weights_bytes += wb * 2.0 * (double)pt_model_expert_params(m) * (1.0 - 1.0 / (double)cfg->ep);
    if (cfg->seq_par) /* shift parallelism keeps the TP shards as well (one KV layout, two weight layouts) */
        out->weights_bytes += out->weights_bytes / tp;
    /* output layer (and the embedding at pp = 1; the first stage's alone is
     * smaller) in 16 bits */
    out->weights_bytes += ACT_BYTES * embed / ew * (cfg->pp == 1 && !m->tied_embeddings ? 2.0 : 1.0);
    /* working buffers of the largest step: its tokens' hidden states, q/k/v,
     * the MLP's intermediate, and fp32 logits for as many rows */
    seqs = (double)cfg->max_tokens;
    act = ACT_BYTES * seqs *
              (4.0 * h + (double)(m->heads + 2 * m->kv_heads) * (double)m->head_dim / attn_ways(cfg) +
               2.0 * (double)(m->experts ? m->topk * m->moe_ffn + m->shared_ffn : m->ffn) /
                   dense_ways(cfg)) +
          4.0 * seqs * (double)m->vocab / ew;
    out->activation_bytes = act;
    out->device_bytes = c->dev.memory_GiB * PT_GiB;
    free_b = out->device_bytes - out->weights_bytes - act;
    out->kv_bytes_per_token = kv_layer_dev(m, cfg) * per;
    out->fits = 0;
    if (free_b > 0) {
        double blk = (double)cfg->block_tokens;
        out->kv_budget_bytes = cfg->free_frac * free_b;
        out->kv_tokens = floor(out->kv_budget_bytes / (out->kv_bytes_per_token * blk)) * blk;
        if (cfg->attn_dp || cfg->dwdp) out->kv_tokens *= cfg->dwdp ? 1.0 : tp;
        out->fits = out->kv_tokens >= blk;
    }
}

double pt_infer_max_seqs(const pt_infer_cfg *cfg, const pt_infer_mem *mem, double isl, double osl)
{
    double blk = (double)cfg->block_tokens;
    double per_seq = ceil((isl + osl) / blk) * blk;
    return floor(mem->kv_tokens / per_seq);
}

/* One decode round of `batch` sequences at context ctx: pp micro-batches,
 * each through every stage (no bubble once the pipeline is full). */
static double decode_round(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                           double batch, double ctx, double chunk, double isl)
{
    pt_infer_time t;
    double mb = batch / (double)cfg->pp;
    pt_infer_batch b = pt_infer_batch_decode(mb, ctx);
    if (chunk > 0) {
        /* a chunk of prompts of isl tokens, whole or sliced: its tokens
         * attend to (isl + 1) / 2 earlier tokens on average */
        double len = chunk / (double)cfg->pp;
        b.prefill_tokens = len;
        b.prefill_pairs = len * (isl + 1.0) / 2.0;
        b.prefill_seqs = len / isl;
    }
    pt_infer_step(m, c, cfg, &b, &t);
    return t.stage_s * (double)cfg->pp;
}

double pt_infer_offline_tokens_per_s(const pt_model *m, const pt_cluster *c,
                                     const pt_infer_cfg *cfg, double batch, double isl,
                                     double osl, int static_batch)
{
    double steps = osl - 1.0, total;
    if (batch < 1.0 || osl < 1.0) return 0;
    if (static_batch) {
        pt_infer_time t;
        pt_infer_batch b = pt_infer_batch_prefill(batch, isl);
        pt_infer_step(m, c, cfg, &b, &t);
        total = t.total_s;
        if (steps > 0) total += steps * decode_round(m, c, cfg, batch, isl + osl / 2.0, 0, isl);
    } else {
        /* continuous: batch sequences decode at the mean context while the
         * prompts of their successors ride along in chunks */
        double chunk = (double)cfg->max_tokens * (cfg->attn_dp ? (double)cfg->tp : 1.0);
        double tokens = batch * isl, dec, mix, n;
        pt_infer_time t;
        pt_infer_batch b;
        if (chunk > tokens) chunk = tokens;
        n = tokens / chunk;
        dec = decode_round(m, c, cfg, batch, isl + osl / 2.0, 0, isl);
        mix = decode_round(m, c, cfg, batch, isl + osl / 2.0, chunk, isl);
        if (n <= steps) {
            total = steps * dec + n * (mix - dec);
        } else { /* more chunks than decode steps: the rest run alone */
            b = pt_infer_batch_prefill(chunk / isl, isl);
            pt_infer_step(m, c, cfg, &b, &t);
            total = steps * mix + (n - steps) * t.total_s;
        }
    }
    return batch * osl / total;
}

double pt_infer_spec_tokens(double alpha, int64_t k)
{
    if (alpha >= 1.0) return (double)(k + 1);
    if (alpha <= 0.0) return 1.0;
    return (1.0 - pow(alpha, (double)(k + 1))) / (1.0 - alpha);
}
