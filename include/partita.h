/*
 * partita.h -- the public API of libpartita.
 *
 * Partita predicts how long one training step of a deep-learning model takes on a
 * cluster under a given parallel strategy, and how much memory each device needs.
 * This header holds the plain value structs (a model, a device, a cluster, a
 * strategy, a cost breakdown) and the functions that make and use them.  Values
 * are plain structs that tests can write as literals; nothing here owns hidden
 * state, and every function takes what it needs as arguments (no globals).
 *
 * Conventions:
 *   - every function that can fail returns pt_status and fills a caller-supplied
 *     pt_diag with the file, line, column, field and value it refused;
 *   - int64_t for bytes, FLOPs and counts; double for seconds; units in names.
 */
#ifndef PARTITA_H
#define PARTITA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version and progress ------------------------------------------------ */

/* The release, "MAJOR.MINOR.PATCH": `partita --version` prints it, and
 * pt_version() returns the one the library was built with. */
#define PT_VERSION "0.9.0"
const char *pt_version(void);

/* Progress of long work (pt_search, pt_scale): called now and then, never
 * per strategy, with how many of `total` coarse units are done (done rises
 * by one each call and reaches total).  It may be called from the search's
 * worker threads, one call at a time.  It must not touch the work's inputs;
 * the work's result does not depend on it. */
typedef void (*pt_progress_fn)(void *arg, int64_t done, int64_t total);

/* ---- status and diagnostics (src/base) ---------------------------------- */

typedef enum pt_status {
    PT_OK = 0,
    PT_INFEASIBLE = 1, /* valid input, but nothing fits            */
    PT_EINPUT = 2,     /* bad usage or bad input: exit status 2    */
    PT_ENOMEM = 3,
    PT_EIO = 4
} pt_status;

typedef struct pt_diag {
    char file[256];  /* "cluster.json"; "" when the input is not a file   */
    int line, col;   /* 1-based; 0 when unknown                           */
    char field[96];  /* "levels[1].bw_GBps"                               */
    char value[128]; /* the refused value as text                         */
    char msg[640];   /* the whole sentence, e.g. "levels[1].bw_GBps: -3 is not > 0" */
} pt_diag;

/* Formats "FILE:LINE:COL: msg" (the location parts that are known) into buf. */
void pt_diag_format(const pt_diag *d, char *buf, size_t n);

/* ---- numbers ------------------------------------------------------------ */

typedef enum pt_dtype { PT_BF16 = 0, PT_FP16, PT_FP8 } pt_dtype;
const char *pt_dtype_name(pt_dtype t);

#define PT_GiB (1024.0 * 1024.0 * 1024.0)

/* ---- workload: dense transformer (src/workload) ------------------------- */

typedef enum pt_act { PT_ACT_GELU = 0, PT_ACT_SILU, PT_ACT_RELU2 } pt_act;

typedef struct pt_model {
    char name[64];        /* "gpt3-175b", or the config.json path            */
    char family[32];      /* Hugging Face model_type: "llama", "gpt2", ...   */
    int64_t layers;       /* e.g. 96                                         */
    int64_t hidden;       /* e.g. 12288                                      */
    int64_t heads;        /* query heads, e.g. 96                            */
    int64_t kv_heads;     /* key/value heads (GQA groups), e.g. 8            */
    int64_t head_dim;     /* e.g. 128                                        */
    int64_t ffn;          /* MLP inner size, e.g. 49152                      */
    int64_t vocab;        /* e.g. 51200                                      */
    int64_t max_seq;      /* max_position_embeddings, e.g. 2048             */
    int gated_mlp;        /* 1: SwiGLU-style (gate, up, down); 0: fc1, fc2   */
    pt_act act;           /* activation of the MLP                           */
    int tied_embeddings;  /* 1: output layer shares the embedding matrix     */
    int learned_pos;      /* 1: learned absolute position embeddings (GPT-2) */
    int linear_bias;      /* 1: every Linear layer carries a bias            */
    int qkv_bias;         /* 1: only the q/k/v projections carry biases (qwen2) */
    int norm_bias;        /* 1: LayerNorm with bias (2h params); 0: RMSNorm  */
    int dropout;          /* 1: hidden/attention dropout is on (masks kept)  */
    /* Mixture of experts (all 0 for a dense model).  A MoE layer replaces the
     * dense MLP (ffn) by `experts` routed experts of width moe_ffn, of which
     * each token uses topk, plus shared experts every token uses. */
    int64_t experts;      /* routed experts per MoE layer, e.g. 256          */
    int64_t topk;         /* routed experts per token, e.g. 8                */
    int64_t moe_ffn;      /* one routed expert's inner size, e.g. 2048       */
    int64_t shared_ffn;   /* all shared experts' inner size together, e.g. 2048 (0: none) */
    int64_t dense_layers; /* layers with the dense MLP instead, e.g. 3; they come first */
    int64_t mtp_layers;   /* multi-token-prediction depths, e.g. 1 (DeepSeek-V3's
                             num_nextn_predict_layers; not in the parameter
                             counts, priced on the last stage: src/cost/cost.c) */
    int mtp_shared;       /* 1: one physical block serves every depth (NeMo
                             AutoModel's mtp_use_repeated_layer)             */
    char mtp_hybrid[8];   /* a hybrid model's MTP block kinds, e.g. "*E"
                             (mtp_hybrid_override_pattern; set whether or not
                             it trains any); "" for a transformer           */
    int expert_bias;      /* 1: expert linears and the router carry biases (gpt_oss) */
    /* Multi-head latent attention (DeepSeek-V2/V3); mla = 0: plain (GQA) attention. */
    int mla;
    int64_t q_lora;       /* query down-projection rank, e.g. 1536 (0: none) */
    int64_t kv_lora;      /* key/value latent rank, e.g. 512                 */
    int64_t qk_nope;      /* per-head q/k size without rotary part, e.g. 128 */
    int64_t qk_rope;      /* per-head rotary q/k size, e.g. 64               */
    int64_t v_head;       /* per-head value size, e.g. 128                   */
    /* DeepSeek Sparse Attention (DeepSeek-V3.2): a lightning indexer of
     * index_heads x index_head_dim (replicated, scoring every earlier key in
     * fp8) picks index_topk keys per query, and MLA attends to those only,
     * in its MQA form (keys kv_lora + qk_rope wide, values kv_lora wide).
     * index_topk 0: dense attention. */
    int64_t index_topk;   /* e.g. 2048                                       */
    int64_t index_heads;  /* e.g. 64                                         */
    int64_t index_head_dim; /* e.g. 128                                      */
    int64_t index_layers; /* layers that run their own indexer in serving
                             (GLM-5.2's indexer_types "full"; the "shared"
                             ones reuse the last one's picks), e.g. 21; 0:
                             every layer.  Training runs every layer's.    */
    /* Sliding-window attention (gpt_oss, Mistral): window_layers of the layers
     * attend to the last `window` tokens only -- or, window_chunked, to the
     * tokens of their own chunk of `window` (Llama 4's chunked attention:
     * the sequence cut into chunks, causal inside each). */
    int64_t window;       /* e.g. 128 (0: none)                              */
    int64_t window_layers;/* e.g. 18                                         */
    int window_chunked;   /* 1: chunks (attention_chunk_size), 0: sliding    */
    /* Rotary position embedding, as the config gives it (rope_theta and
     * rope_scaling, or transformers' newer rope_parameters).  They change
     * neither parameters nor FLOPs; the Megatron export writes them. */
    double rope_theta;    /* e.g. 500000 (Llama 3.1), 1e6 (Qwen2.5); 0: no rotary */
    char rope_type[16];   /* rope_scaling's rope_type: "llama3", "yarn", "linear", "dynamic", ...; "" none */
    double rope_factor;   /* e.g. 8 (Llama 3.1), 40 (DeepSeek-V3)            */
    int64_t rope_orig_max;/* original_max_position_embeddings, e.g. 8192 (0: not given) */
    double rope_low_freq, rope_high_freq; /* llama3: low/high_freq_factor, e.g. 1 and 4 */
    double rope_mscale, rope_mscale_all_dim; /* yarn (DeepSeek): e.g. 1 and 1 */
    double rope_percent;  /* share of each head's dims rotated, e.g. 0.5
                             (GLM-4.5's partial_rotary_factor), 0.25 (Pythia's
                             rotary_pct); 0: all                           */
    /* MoE router (all 0 for softmax top-k routing with the top-k weights
     * renormalised, Mixtral's).  DeepSeek-V3: sigmoid scores, a learned bias
     * per expert for aux-loss-free balancing, weights scaled by 2.5, 8 groups
     * of which a token may use 4. */
    int router_sigmoid;      /* scoring_func "sigmoid": 1, "softmax": 0      */
    int router_expert_bias;  /* topk_method "noaux_tc" (e_score_correction_bias): 1 */
    int router_pre_softmax;  /* softmax over every expert, top-k weights not
                                renormalised (norm_topk_prob false): 1       */
    double router_topk_scale;/* routed_scaling_factor, e.g. 2.5 (0: none)    */
    int64_t router_groups;   /* n_group, e.g. 8 (0: no group-limited routing) */
    int64_t router_group_topk; /* topk_group, e.g. 4                         */
    /* Hybrid Mamba-2 / attention / MLP / MoE stacks (Nemotron-H, Nemotron 3;
     * transformers NemotronHConfig): each of the `layers` blocks holds one
     * mixer behind one RMSNorm, hybrid[i] its kind -- 'M' Mamba-2, '*'
     * attention, '-' dense MLP (ffn), 'E' MoE (experts, topk, moe_ffn,
     * shared_ffn).  "" for a transformer (attention and MLP in every layer). */
    char hybrid[256];        /* e.g. "MEMEM*EMEMEM*E..." (52 for Nemotron 3 Nano) */
    int64_t mamba_heads;     /* mamba_num_heads, e.g. 64                      */
    int64_t mamba_head_dim;  /* mamba_head_dim, e.g. 64 (d_inner = heads x dim) */
    int64_t mamba_state;     /* ssm_state_size N, e.g. 128                    */
    int64_t mamba_groups;    /* n_groups of B and C, e.g. 8                   */
    int64_t mamba_conv;      /* conv_kernel, e.g. 4                           */
    int64_t mamba_chunk;     /* SSD chunk length Q (chunk_size), e.g. 128     */
    int64_t moe_latent;      /* LatentMoE: experts work in this width, e.g. 1024 (0: hidden) */
} pt_model;

/* Parameter count of the whole model (embeddings, layers, final norm); for a
 * MoE model every expert (the total), without multi-token-prediction modules. */
int64_t pt_model_params(const pt_model *m);
/* Parameters one token uses: the same with topk routed experts instead of all
 * (equal to pt_model_params for a dense model).  Embedding and output layer
 * are both counted. */
int64_t pt_model_active_params(const pt_model *m);
/* Parameters of one transformer layer (attention + MLP + norms); for a MoE
 * model, of one MoE layer with all its experts. */
int64_t pt_model_layer_params(const pt_model *m);
/* Parts of one layer: attention with its norms; the dense MLP; the routed
 * experts of one MoE layer (all of them); the rest of a MoE layer (router and
 * shared experts).  0 where the model has no such part. */
int64_t pt_model_attn_params(const pt_model *m);
int64_t pt_model_dense_mlp_params(const pt_model *m);
int64_t pt_model_expert_params(const pt_model *m);
int64_t pt_model_moe_other_params(const pt_model *m);
/* Number of MoE layers (layers - dense_layers; 0 for a dense model). */
int64_t pt_model_moe_layers(const pt_model *m);
/* The share of layers that run their own DSA indexer: index_layers /
 * layers, 1 where every layer does (index_layers 0). */
double pt_model_index_share(const pt_model *m);
/* Hybrid models (pt_model.hybrid): blocks of kind k ('M', '*', '-', 'E')
 * among layers [lo, hi); and one Mamba-2 block's parameters with its norm
 * (0 for a transformer).  For a hybrid model pt_model_attn_params is one
 * attention block with its norm, pt_model_layer_params the largest block. */
int64_t pt_model_kind_layers(const pt_model *m, char k, int64_t lo, int64_t hi);
int64_t pt_model_mamba_params(const pt_model *m);
/* Checks the shape (heads divide hidden, kv_heads divide heads, ...). */
pt_status pt_model_check(const pt_model *m, pt_diag *d);

/* Number of built-in models, and the i-th one's name (for `partita models`). */
int pt_model_catalog_count(void);
const char *pt_model_catalog_name(int i);
/* A built-in model by name; PT_EINPUT with a message if there is none. */
pt_status pt_model_builtin(const char *name, pt_model *out, pt_diag *d);
/* Parses a Hugging Face config.json given as text; file names the source in errors. */
pt_status pt_hf_parse(const char *text, const char *file, pt_model *out, pt_diag *d);
/* A built-in name, or a path to a config.json. */
pt_status pt_model_load(const char *name_or_path, pt_model *out, pt_diag *d);

/* ---- hardware (src/hw) --------------------------------------------------- */

typedef struct pt_device {
    char name[48];          /* "a100-sxm4-80g"                                */
    double memory_GiB;      /* e.g. 80                                        */
    double memory_bw_GBps;  /* HBM, 10^9 B/s, e.g. 2039                       */
    double tflops_bf16, tflops_fp16, tflops_fp8, tflops_tf32, tflops_fp32;
    double host_bw_GBps;    /* device<->host link per device (PCIe), e.g. 25  */
    /* Efficiency constants: fitted, see data/devices.json for where each came from. */
    double gemm_eff;        /* fraction of peak a large GEMM reaches, e.g. 0.8 */
    double gemm_half_GFLOP; /* GEMM size at which it reaches half of gemm_eff  */
    double attn_eff;        /* fused (flash) attention: fraction of peak       */
    double mem_eff;         /* fraction of memory_bw element-wise kernels reach */
    double kernel_us;       /* fixed cost per kernel launch, microseconds     */
    double best_mfu;        /* best MFU ever published for this device, e.g.
                               0.494 (data/devices.json names the run); 0 = none
                               known.  Predictions above it are flagged.        */
    double tflops_fp4;      /* dense FP4 (NVFP4/MXFP4), e.g. 9000 on B200; 0 = none */
    char generation[24];    /* architecture, e.g. "hopper"; "" = not said      */
    char fitted_on[24];     /* generation whose measured runs fitted the
                               efficiency constants, e.g. "ampere"; "none"    */
    double fp8_gemm_ratio;  /* a large fp8 GEMM's fraction of the fp8 peak over
                               a bf16 GEMM's of the bf16 peak, e.g. 0.92 on
                               Hopper (data/kernels/h200); 0 = not measured,
                               taken as 1                                     */
} pt_device;

#define PT_MAX_LEVELS 4

typedef struct pt_level {
    char name[32];      /* "nvlink"                                            */
    int64_t size;       /* devices in one domain of this level, e.g. 8         */
    double bw_GBps;     /* per device, one direction, to a peer in this domain */
    double latency_us;  /* per hop                                              */
    double efficiency;  /* fraction of bw_GBps a large collective reaches      */
    int64_t unit;       /* a job takes a domain's devices this many at a time,
                           e.g. 4 (one GB200 NVL72 compute tray); 0 = size:
                           whole domains only                                   */
    int64_t segment;    /* devices of a job in each domain when the job spans
                           several, e.g. 64 (16 of NVL72's 18 trays); 0 = size */
} pt_level;

/* Heterogeneous clusters (SPEC section 10): a cluster file may give "pools"
 * of different devices instead of one "device".  Pools fill the job's ranks
 * (and so the nodes) in order: pool 0 holds ranks [0, pool[0].devices), pool
 * 1 the next ones, and so on; src/cost/hetero.h prices strategies on them. */
#define PT_MAX_POOLS 4
typedef struct pt_pool {
    pt_device dev;          /* e.g. h100-sxm-80g                              */
    int64_t devices;        /* e.g. 32, whole innermost domains (nodes)       */
} pt_pool;

typedef struct pt_cluster {
    char name[64];
    pt_device dev;          /* the device; with pools, pool[0]'s              */
    int npools;             /* 0: one device; 2..PT_MAX_POOLS: pools          */
    pt_pool pool[PT_MAX_POOLS];
    int64_t devices;
    int nlevels;
    pt_level level[PT_MAX_LEVELS]; /* innermost first; the last spans all devices */
    double price_per_device_hour;  /* dollars                                */
    double mtbf_device_hours;      /* mean time between failures per device  */
} pt_cluster;

int pt_device_catalog_count(void);
const char *pt_device_catalog_name(int i);
pt_status pt_device_builtin(const char *name, pt_device *out, pt_diag *d);
/* Peak dense TFLOPS for a dtype (fp8 falls back to bf16 where the device has none). */
double pt_device_tflops(const pt_device *dev, pt_dtype t);

int pt_cluster_catalog_count(void);
const char *pt_cluster_catalog_name(int i);
pt_status pt_cluster_builtin(const char *name, pt_cluster *out, pt_diag *d);
pt_status pt_cluster_parse(const char *text, const char *file, pt_cluster *out, pt_diag *d);
/* A built-in name or a path to a cluster file. */
pt_status pt_cluster_load(const char *name_or_path, pt_cluster *out, pt_diag *d);
/* Resizes to n devices (--gpus): whole innermost domains (or whole units of a
 * level that has one, e.g. 4-GPU trays of an NVL72 rack); the outermost level grows. */
pt_status pt_cluster_resize(pt_cluster *c, int64_t n, pt_diag *d);
/* Devices of the job in each domain of level j but the last, which may hold
 * fewer (a partial domain): c->devices when they fit in one domain, else the
 * level's segment scaled by the levels inside it (cluster.c says how). */
int64_t pt_cluster_fill(const pt_cluster *c, int j);
/* 1 when device's efficiency constants were not fitted to measured runs of its
 * own generation (fitted_on differs from generation, or is "none"). */
int pt_device_unfitted(const pt_device *dev);

/* Collectives over a group of n ranks spaced `stride` apart in rank order. */
typedef enum pt_coll_op { PT_ALLREDUCE = 0, PT_REDUCESCATTER, PT_ALLGATHER, PT_ALLTOALL } pt_coll_op;
/* Seconds for one collective; bytes is the full buffer (nccl-tests' S). */
double pt_coll_time(const pt_cluster *c, pt_coll_op op, int64_t bytes, int64_t n, int64_t stride);
/* The same, as one flat ring over the slowest level the group spans. */
double pt_coll_time_flat(const pt_cluster *c, pt_coll_op op, int64_t bytes, int64_t n, int64_t stride);
/* Seconds to send bytes between neighbours of such a group (the slowest pair). */
double pt_p2p_time(const pt_cluster *c, int64_t bytes, int64_t n, int64_t stride);
/* Index of the outermost level the group spans (0 when it fits in one innermost domain). */
int pt_coll_level(const pt_cluster *c, int64_t n, int64_t stride);

/* ---- strategy (src/strategy) -------------------------------------------------- */

typedef enum pt_recompute { PT_RC_NONE = 0, PT_RC_SELECTIVE, PT_RC_FULL } pt_recompute;
typedef enum pt_schedule {
    PT_SCHED_GPIPE = 0, PT_SCHED_1F1B, PT_SCHED_INTERLEAVED,
    PT_SCHED_ZBH1, PT_SCHED_ZBV, PT_SCHED_DUALPIPE
} pt_schedule;
typedef enum pt_offload { PT_OFF_NONE = 0, PT_OFF_OPTIMIZER, PT_OFF_PARAMS } pt_offload;

typedef struct pt_strategy {
    int tp, pp, dp, cp, ep, etp, vpp, mbs;
    int64_t gbs;
    int sp;                 /* 0/1 */
    int zero;               /* 0..3 */
    pt_recompute recompute;
    pt_schedule schedule;
    pt_offload offload;
    int pp_first;           /* layers on the first pipeline stage; 0 = even split */
    int pp_last;            /* layers on the last pipeline stage; 0 = even split  */
} pt_strategy;

/* Bits of pt_strategy that a parsed string set explicitly. */
enum {
    PT_K_TP = 1 << 0, PT_K_PP = 1 << 1, PT_K_DP = 1 << 2, PT_K_CP = 1 << 3,
    PT_K_EP = 1 << 4, PT_K_ETP = 1 << 5, PT_K_VPP = 1 << 6, PT_K_MBS = 1 << 7,
    PT_K_GBS = 1 << 8, PT_K_SP = 1 << 9, PT_K_ZERO = 1 << 10, PT_K_RECOMPUTE = 1 << 11,
    PT_K_SCHEDULE = 1 << 12, PT_K_OFFLOAD = 1 << 13, PT_K_PP_FIRST = 1 << 14, PT_K_PP_LAST = 1 << 15
};

const char *pt_recompute_name(pt_recompute r);
const char *pt_schedule_name(pt_schedule s);
const char *pt_offload_name(pt_offload o);

/* The training engine that runs the strategy, where engines differ in cost:
 * Megatron-LM (default), DeepSpeed, PyTorch FSDP / torchtitan.  It changes
 * how ZeRO-3 collectives are priced (see src/cost/cost.c) and, in a search,
 * what the engine's release can run (src/plan/engine_space.c).
 * PT_ENGINE_ANY is for a search only: every engine's space, each plan priced
 * as the engine it is attributed to; pricing one strategy needs a real one. */
typedef enum pt_engine {
    PT_ENGINE_MEGATRON = 0, PT_ENGINE_DEEPSPEED, PT_ENGINE_FSDP, PT_ENGINE_ANY
} pt_engine;
const char *pt_engine_name(pt_engine e);

/* How a MoE layer's tokens travel to their experts (pt_job.moe_dedup_dispatch):
 * Megatron-Core's all-to-all dispatcher sends a token once per expert; its
 * flex dispatcher with the DeepEP or HybridEP backend once per rank and
 * node it goes to, forwarding within the node over NVLink. */
typedef enum pt_moe_dispatch { PT_MOE_ALLTOALL = 0, PT_MOE_DEEPEP, PT_MOE_HYBRIDEP } pt_moe_dispatch;
/* "alltoall", "deepep", "hybridep" */
const char *pt_moe_dispatch_name(pt_moe_dispatch d);

/* What a strategy is applied to: one training job. */
typedef struct pt_job {
    int64_t seq_len;       /* tokens per sequence, e.g. 2048               */
    int64_t global_batch;  /* sequences per step, e.g. 1536; 0 = not given */
    int64_t doc_len;       /* tokens per packed document, e.g. 512: each
                              sequence holds seq_len/doc_len documents and a
                              token attends within its own (packed SFT data,
                              Llama 3's document mask); 0 (or >= seq_len):
                              one document per sequence                     */
    pt_dtype dtype;        /* GEMM precision                               */
    int flash_attention;   /* 1: fused attention kernel (default)          */
    pt_engine engine;      /* default PT_ENGINE_MEGATRON                   */
    /* Mixture of experts (src/cost/cost.c says where the defaults come from). */
    double moe_imbalance;  /* busiest device's routed tokens / the even share,
                              e.g. 1.25; 0 = PT_MOE_IMBALANCE_DEFAULT         */
    double moe_capacity;   /* expert capacity factor, e.g. 1.0 (tokens over it
                              are dropped); 0 = dropless (the default)         */
    int grad_bf16;         /* 1: gradient buffers and their reduction in bf16
                              (NeMo's performance recipes,
                              grad_reduce_in_fp32=False); 0: fp32 (Megatron-LM's
                              default with bf16 or fp8, the default here)    */
    int states_bf16;       /* 1: pure bf16 training: the optimizer updates the
                              bf16 weights themselves (no fp32 master copy),
                              Adam's m and v and the gradient buffers are bf16
                              (the reduction's dtype is grad_bf16's):
                              torch.optim.Adam on a model built in bf16 (NeMo
                              AutoModel's from_config default, torch_dtype
                              "auto" = bf16); 2 + 2 + 4 B a parameter in place
                              of 2 + 4 + 12. 0: mixed precision (the default) */
    int mtp_in_layout;     /* 1: the pipeline layout gives the model's
                              multi-token-prediction depths a slot of their own
                              and balances the stages around it (Megatron-Core's
                              --pipeline-model-parallel-layout "...tmL" with
                              fewer layers there): their work spread over the
                              ranks; 0: on the last stage with its layers (the
                              default)                                        */
    int moe_a2a_overlap;   /* 1: the expert all-to-all of one micro-batch runs
                              under another's compute (Megatron-Core's
                              --overlap-moe-expert-parallel-comm, whose combined
                              1F1B runs at pp=1 or interleaved; Megatron jobs
                              only); 0: exposed */
    int tp_comm_overlap;   /* 1: tensor-parallel collectives run under the GEMMs
                              they feed (Megatron's --tp-comm-overlap, TE
                              userbuffers), where the strategy has sp=1
                              (Megatron asserts it); priced for Megatron
                              jobs only; 0: exposed                         */
    pt_moe_dispatch moe_dedup_dispatch; /* PT_MOE_DEEPEP, PT_MOE_HYBRIDEP: the
                              dispatcher sends a token once per rank and node it
                              goes to; PT_MOE_ALLTOALL (0): once per expert */
    int moe_contiguous_routing; /* 1: token i's experts are ik .. ik+topk-1 mod E,
                              topk neighbours on one or two ranks (NeMo
                              AutoModel's FakeBalancedGate); 0: each token's
                              experts independent and uniform (a trained
                              router; Megatron-Core's force-balanced random
                              logits) -- what a deduplicating dispatcher sends */
} pt_job;

/* Default load of the busiest device's experts over the even share, for
 * aux-loss-balanced routing (Switch Transformer's capacity factor 1.25;
 * src/cost/cost.c says why). */
#define PT_MOE_IMBALANCE_DEFAULT 1.25

/* Parses "tp=8 pp=8 ..." into *out (unset keys zero) and the set-key mask. */
pt_status pt_strategy_parse(const char *text, pt_strategy *out, unsigned *set, pt_diag *d);
/* Fills defaults for keys not in `set` and checks every validity rule. */
pt_status pt_strategy_resolve(pt_strategy *st, unsigned set, const pt_model *m,
                              const pt_cluster *c, const pt_job *job, pt_diag *d);
/* Checks the rules only (st fully filled in). */
pt_status pt_strategy_check(const pt_strategy *st, const pt_model *m, const pt_cluster *c,
                            const pt_job *job, pt_diag *d);
/* Layers on the first, each middle and the last pipeline stage (Megatron's
 * --decoder-first/last-pipeline-num-layers: the middle stages split the rest
 * evenly). */
void pt_strategy_stage_layers(const pt_strategy *st, int64_t layers, int64_t *first, int64_t *mid,
                              int64_t *last);
/* For a MoE model whose layers pp does not divide: the uneven layout
 * pt_strategy_resolve gives it (middle stages ceil(layers/pp), first and last
 * the rest); returns 0 when there is none. */
int pt_strategy_moe_layout(const pt_model *m, int pp, int *first, int *last);
/* Canonical text: "tp=8 pp=8 dp=16 cp=1 ep=1 etp=8 vpp=1 mbs=1 gbs=1536 sp=1 zero=1 ..." */
void pt_strategy_format(const pt_strategy *st, char *buf, size_t n);

/* ---- cost (src/cost) ------------------------------------------------------ */

typedef struct pt_memory {     /* bytes on the busiest device */
    int64_t weights, gradients, optimizer, activations, other, total;
} pt_memory;

typedef struct pt_times {      /* seconds of one step; they add up to the step time */
    double compute;    /* forward, backward and recompute kernels, all micro-batches */
    double tp_comm;    /* exposed tensor-parallel collectives                        */
    double cp_comm;    /* exposed context-parallel (ring attention) transfers        */
    double ep_comm;    /* expert-parallel all-to-all (MoE)                           */
    double pp_comm;    /* pipeline point-to-point on the critical path               */
    double dp_comm;    /* exposed data-parallel / ZeRO collectives                   */
    double bubble;     /* pipeline fill and drain                                    */
    double optimizer;  /* optimizer step (and offloaded-optimizer traffic)           */
    double offload;    /* parameter offload traffic (ZeRO-Infinity style)            */
} pt_times;

typedef struct pt_cost {
    double step_time_s;
    double tokens_per_s;
    double model_tflops_per_gpu;  /* model FLOPs (no recompute) / step / device, 10^12 */
    double mfu, hfu;              /* model / hardware FLOPs over the dtype's peak;
                                     causal attention counts its s/2 keys (cost.c) */
    double best_mfu;              /* the device's best published MFU (0: unknown) */
    int above_best_mfu;           /* 1: mfu > best_mfu > 0                        */
    double model_flops;           /* per step, whole job */
    double hw_flops;              /* what the hardware executes, with recompute */
    pt_memory mem;
    int64_t device_memory_bytes;
    int fits;
    pt_times time;
    int64_t microbatches;         /* per pipeline per step */
} pt_cost;

/* Prices one strategy.  st must have passed pt_strategy_check. */
pt_status pt_cost_eval(const pt_model *m, const pt_cluster *c, const pt_job *job,
                       const pt_strategy *st, pt_cost *out);

/* Seconds of one transformer layer for one micro-batch on one device, forward
 * and backward (with recompute), including its tensor/context-parallel traffic. */
void pt_cost_layer_time(const pt_model *m, const pt_cluster *c, const pt_job *job,
                        const pt_strategy *st, double *fwd_s, double *bwd_s);

/* Activation bytes of one transformer layer for one micro-batch on one device
 * (Korthikanti et al. 2022, generalised to GQA, gated MLPs and flash attention). */
int64_t pt_cost_layer_activation_bytes(const pt_model *m, const pt_job *job, const pt_strategy *st);

/* Model FLOPs of one step for the whole job: 6·P·tokens plus attention (no
 * recompute), causal attention over the s/2 keys each query sees on average
 * (sliding windows over theirs), as Megatron-LM and flash attention count it. */
double pt_cost_model_flops(const pt_model *m, int64_t seq_len, int64_t global_batch);
/* The job's packed-document length where it is shorter than the sequence
 * (pt_job.doc_len), else 0: one document per sequence. */
int64_t pt_job_doc_len(const pt_job *job);
/* Whether st's tensor-parallel collectives run under its GEMMs: the job asks
 * (pt_job.tp_comm_overlap), st has sequence parallelism, and the engine has
 * such an overlap (Megatron's --tp-comm-overlap; torchtitan's async TP, the
 * forward's only).  1 or 0; the cost model and the exports both ask it. */
int pt_job_tp_overlaps(const pt_job *job, const pt_strategy *st);
/* Whether st's expert all-to-all runs under another micro-batch's compute:
 * the job asks (pt_job.moe_a2a_overlap), the engine is Megatron, and st is
 * one its combined 1F1B hosts (pp = 1 or interleaved).  1 or 0. */
int pt_job_ep_overlaps(const pt_job *job, const pt_strategy *st);
/* The same for a job: attention counted within its documents (pt_job.doc_len). */
double pt_cost_job_model_flops(const pt_model *m, const pt_job *job, int64_t global_batch);


/* ---- planning, simulation and export (src/api) ----------------------------- */

/* What pt_plan_run searches.  Zero-initialise and set what you need. */
typedef struct pt_plan_opts {
    int top_k;           /* plans kept, best first, e.g. 5 (0 = 5)                   */
    int threads;         /* worker threads, e.g. 2 (0 = 1); the plans are the same
                            whatever the count                                        */
    const char *space;   /* allowed values, as `plan --space`: "tp=4,8 pp=1..16";
                            NULL = everything valid                                   */
    const char *fix;     /* keys held at one value, as `plan --fix`: "pp=8 mbs=1"    */
    int engine_only;     /* 1: only what job->engine's current release can run,
                            priced as it runs it (as `plan --engine` searches;
                            PT_ENGINE_ANY: every engine, each plan as its own)     */
    /* Called once for every candidate that fits, after it is priced, with its
     * strategy and cost (valid during the call only).  With threads > 1 the
     * calls come from the worker threads one at a time, in no fixed order;
     * with threads == 1, in the search's order.  NULL: none. */
    void (*on_candidate)(const pt_strategy *st, const pt_cost *cost, void *arg);
    void *arg;
} pt_plan_opts;

/* The plans one search kept (opaque; free with pt_plans_free). */
typedef struct pt_plans pt_plans;

/* Searches every valid strategy of m on c for job (job->global_batch must be
 * set) as `partita plan` does: the analytic model's best max(4K, 20) are
 * replayed by the step simulator, those whose simulated peak does not fit are
 * dropped, and the best o->top_k by simulated tokens/s are kept (their
 * pt_cost's step time and rates are then the simulator's).  *out is the
 * caller's; it may hold no plan when nothing fits (PT_OK, pt_plans_count 0). */
pt_status pt_plan_run(const pt_model *m, const pt_cluster *c, const pt_job *job,
                      const pt_plan_opts *o, pt_plans **out, pt_diag *d);
int pt_plans_count(const pt_plans *p);
/* The i-th best plan (0 = best); NULL when i is out of range.  Owned by p. */
const pt_strategy *pt_plans_strategy(const pt_plans *p, int i);
const pt_cost *pt_plans_cost(const pt_plans *p, int i);
/* Candidates the search considered (valid strategies, fitting or not). */
int64_t pt_plans_evaluated(const pt_plans *p);
void pt_plans_free(pt_plans *p);

/* One step of st replayed event by event (src/sim): the reference the
 * analytic pt_cost_eval is checked against. */
typedef struct pt_sim_summary {
    double step_time_s;          /* e.g. 15.5                                  */
    double bubble_s;             /* pipeline idle time of the busiest rank     */
    int64_t peak_memory_bytes;   /* the busiest rank's peak                    */
    int fits;                    /* that peak fits in the device's memory      */
} pt_sim_summary;
pt_status pt_simulate(const pt_model *m, const pt_cluster *c, const pt_job *job,
                      const pt_strategy *st, pt_sim_summary *out, pt_diag *d);

/* st as the launch configuration of an engine: "megatron" (command-line
 * arguments), "deepspeed" (JSON config) or "torchtitan" (TOML job config).
 * *text is a NUL-terminated string the caller frees with free(). */
pt_status pt_export(const char *engine, const pt_model *m, const pt_cluster *c,
                    const pt_job *job, const pt_strategy *st, char **text, pt_diag *d);

#ifdef __cplusplus
}
#endif
#endif /* PARTITA_H */
