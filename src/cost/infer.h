/*
 * infer.h -- the inference cost model: how long one engine step of an LLM
 * serving replica takes (prompt tokens and/or one generated token for each
 * running sequence), and how much memory the replica needs per device.
 *
 * What it does (formulas in infer.c, each with its source):
 *  - A step is what a continuous-batching engine (vLLM, SGLang, TensorRT-LLM)
 *    runs at once: `prefill_tokens` prompt tokens (whole prompts or chunks of
 *    them) and `decode_seqs` sequences that each add one token.  Its time is
 *    the sum over the layers of the stage of linear layers (the roofline of
 *    src/cost/roofline.c with M = the step's tokens: decode is memory-bound,
 *    every weight read once; prefill compute-bound), attention (flash
 *    attention for prompt tokens; for decode every running sequence's KV
 *    cache read at HBM bandwidth), element-wise work, and the tensor-parallel
 *    all-reduces and expert-parallel all-to-alls (src/hw/coll.c), plus the
 *    logits of the sequences that emit a token.
 *  - Weights and KV cache in bf16, fp8 or fp4 (fp4 only on devices with
 *    fp4 tensor cores); GQA/MQA caches kv_heads heads, split by tensor
 *    parallelism up to kv_heads and replicated beyond; MLA caches the
 *    compressed latent (kv_lora + qk_rope per layer, every TP rank a copy).
 *  - Memory: weights per device, activations of the largest step, and the
 *    KV cache the engine allocates in paged blocks from a fraction of the
 *    memory left free (TensorRT-LLM's kv_cache_free_gpu_mem_fraction; vLLM's
 *    gpu_memory_utilization is the same idea).
 *  - Per replica: tp x pp devices; ep (MoE: experts over ep ranks of the TP
 *    group, each expert tensor-split tp/ep ways); attention data parallelism
 *    (each TP rank runs attention on its own sequences with whole heads).
 *  - MoE load imbalance: synchronous expert parallelism waits for the
 *    busiest rank; with load coefficient of variation cv the busiest of n
 *    ranks carries about 1 + cv sqrt(2 ln n) of the mean (the expected
 *    maximum of n normals).  DWDP (no per-layer synchronisation) pays the
 *    mean instead, and its expert prefetch over NVLink against compute.
 *  - Shift parallelism: a step run as sequence parallelism (Ulysses) over the
 *    tp ranks: each rank runs whole weights on 1/tp of the tokens, attention
 *    by head after an all-to-all; no all-reduce.
 * What it does not: queueing or batching policy (src/sim/serve_sim.c), the
 * search (src/plan/serve_search.c), speculative decoding is priced only as
 * its acceptance-scaled step (pt_infer_spec_speedup).
 */
#ifndef PT_COST_INFER_H
#define PT_COST_INFER_H

#include "partita.h"

/* How weights or the KV cache are stored. */
typedef enum pt_qtype { PT_Q_BF16 = 0, PT_Q_FP8, PT_Q_FP4 } pt_qtype;

const char *pt_infer_qname(pt_qtype q);
/* Bytes per element: 2, 1, 0.5. */
double pt_infer_qbytes(pt_qtype q);
/* "bf16" (or "fp16"), "fp8", "fp4"; PT_EINPUT naming `field` otherwise. */
pt_status pt_infer_qparse(const char *s, const char *field, pt_qtype *q, pt_diag *d);
/* 1 when dev has fp4 tensor cores (Blackwell: b200, gb200, b300, gb300). */
int pt_infer_has_fp4(const pt_device *dev);

typedef struct pt_infer_cfg {
    int64_t tp;          /* tensor-parallel ranks per stage, e.g. 8           */
    int64_t pp;          /* pipeline stages per replica, e.g. 1               */
    int64_t ep;          /* expert-parallel ranks inside the TP group, e.g. 8 (1: dense) */
    int attn_dp;         /* 1: attention data-parallel over the tp ranks (MoE) */
    int seq_par;         /* 1: steps run as sequence parallelism (Ulysses); 2: shift
                            parallelism, each step as TP or SP, whichever is faster */
    int dwdp;            /* 1: DWDP (MoE: data parallel, experts prefetched from peers) */
    pt_qtype wq;         /* weight storage, e.g. PT_Q_FP8                      */
    pt_qtype kvq;        /* KV cache storage, e.g. PT_Q_FP8                    */
    double free_frac;    /* fraction of the memory left after weights and
                            activations the KV cache may take, e.g. 0.9         */
    int64_t block_tokens;/* tokens per paged-KV block, e.g. 32                */
    int64_t max_tokens;  /* most tokens in one step (max-num-batched-tokens), e.g. 8192;
                            per rank with attention dp */
    double moe_cv;       /* coefficient of variation of the experts' load per rank, e.g. 0.2 */
    /* How close the engine gets to the roofline (pt_infer_engine sets them
     * per engine release; 1, 1, 0 price the bare roofline): */
    double decode_eff;   /* fraction of the roofline a decode step reaches, e.g. 0.97 */
    double moe_eff;      /* the same for the layers of a MoE model, e.g. 0.53 */
    double launch_us;    /* per-kernel time of a prefill step (no CUDA graph), us, e.g. 12 */
    double coll_us;      /* fixed time of each TP/EP collective of a layer (the
                            engine's all-reduce kernel at small sizes), us, e.g. 20 */
} pt_infer_cfg;

/* An engine release's constants (decode_eff, moe_eff, launch_us, coll_us), fitted to
 * the even lines of data/validation/inference_runs.csv (infer.c gives the
 * fit and the held-out error); names: "trtllm" (= "trtllm-1.0"), "vllm",
 * "sglang" (priced as TensorRT-LLM 1.0: no runs of their own to fit),
 * "trtllm-0.6", "trtllm-0.5", "roofline" (1, 1, 0, 0).
 * PT_EINPUT for another name. */
pt_status pt_infer_engine(const char *name, pt_infer_cfg *cfg, pt_diag *d);

/* A configuration with the defaults above: tp=pp=ep=1, bf16, free 0.9,
 * blocks of 32 tokens, 8192 tokens a step, cv 0, the "trtllm" engine's
 * efficiencies. */
void pt_infer_cfg_default(pt_infer_cfg *cfg);
/* Checks cfg against m and c: tp divides heads, ep divides experts and tp,
 * tp*pp devices exist, fp4 only where the device has it, ...  PT_EINPUT with
 * the rule broken. */
pt_status pt_infer_check(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                         pt_diag *d);

/* One engine step of one replica. */
typedef struct pt_infer_batch {
    double prefill_tokens; /* prompt tokens computed this step, e.g. 2048     */
    double prefill_pairs;  /* their causal attention pairs: sum over chunks of
                              n (ctx_before + (n + 1) / 2), e.g. 2048*1024.5  */
    double prefill_seqs;   /* sequences whose prompt completes (emit a token) */
    double decode_seqs;    /* sequences that generate one token, e.g. 64     */
    double decode_ctx;     /* the sum of their context lengths, e.g. 64*2300 */
} pt_infer_batch;

/* n whole prompts of len tokens. */
pt_infer_batch pt_infer_batch_prefill(double n, double len);
/* n sequences decoding at context ctx each. */
pt_infer_batch pt_infer_batch_decode(double n, double ctx);

/* Where a step's time goes on the busiest device (seconds). */
typedef struct pt_infer_time {
    double linear_s;   /* GEMMs of attention projections, MLP, experts, logits */
    double attn_s;     /* attention core (flash prefill, KV reads in decode)   */
    double other_s;    /* element-wise work, launch floor                      */
    double comm_s;     /* TP all-reduces, EP all-to-alls, pipeline hand-offs    */
    double stage_s;    /* one pipeline stage: the sum of the above             */
    double total_s;    /* the step through all pp stages (latency)             */
} pt_infer_time;

/* Prices batch b on replica cfg: every stage holds layers/pp layers (the
 * last the logits); with pp > 1, total_s = pp stages + pp-1 hand-offs. */
void pt_infer_step(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                   const pt_infer_batch *b, pt_infer_time *out);

/* KV cache bytes per token of the whole model, one copy:
 * 2 layers kv_heads head_dim bytes (GQA/MQA), layers (kv_lora + qk_rope)
 * bytes (MLA). */
double pt_infer_kv_bytes_per_token(const pt_model *m, pt_qtype kvq);

typedef struct pt_infer_mem {
    double weights_bytes;     /* per device, busiest stage                     */
    double activation_bytes;  /* the largest step's working buffers           */
    double kv_budget_bytes;   /* what the engine gives the KV cache           */
    double kv_bytes_per_token;/* per device (its heads or latent, its layers) */
    double kv_tokens;         /* tokens the replica's cache holds (whole blocks;
                                 with attention dp, all tp ranks together)     */
    double device_bytes;      /* memory per device                             */
    int fits;                 /* weights + activations fit, with room for one block */
} pt_infer_mem;

void pt_infer_memory(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                     pt_infer_mem *out);
/* Sequences of isl + osl tokens the KV cache holds at once (whole blocks). */
double pt_infer_max_seqs(const pt_infer_cfg *cfg, const pt_infer_mem *mem, double isl, double osl);

/* Offline throughput (all requests queued, SPEC section 8's --offline):
 * `batch` sequences of isl prompt and osl output tokens run concurrently;
 * each finishing sequence is replaced at once (continuous batching), so a
 * replica's output tokens/s is batch osl / (osl decode steps at the mean
 * context + the prefill of batch prompts).  static_batch = 1: the batch
 * prefills together and decodes to the end before the next (static
 * batching, as TensorRT-LLM's gptSessionBenchmark runs): decode steps are
 * priced at each context from isl to isl + osl - 1. */
double pt_infer_offline_tokens_per_s(const pt_model *m, const pt_cluster *c,
                                     const pt_infer_cfg *cfg, double batch, double isl,
                                     double osl, int static_batch);

/* Speculative decoding: expected tokens per verification step with k draft
 * tokens each accepted with probability alpha (Leviathan et al. 2023, eq. 1):
 * (1 - alpha^(k+1)) / (1 - alpha). */
double pt_infer_spec_tokens(double alpha, int64_t k);

#endif
