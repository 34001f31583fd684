/*
 * cost.c -- the analytic cost model: time of one training step and memory of
 * the busiest device for a transformer (dense or mixture-of-experts), a
 * cluster and a strategy.
 *
 * Sources (DESIGN.md "Facts"):
 *  - GEMM FLOPs 2*M*N*K; backward = data-gradient + weight-gradient GEMMs, each
 *    as large as the forward one.  A GEMM takes the larger of its compute time
 *    at gemm_eff * size/(size + gemm_half) of peak and its memory time, plus a
 *    launch cost (the roofline of src/cost/roofline.h, shared with layer
 *    graphs; a shape-dependent ramp; constants fitted, see data/devices.json).
 *  - Element-wise work (norms, activation, bias-dropout-add, softmax, cross
 *    entropy, the optimizer) is bound by memory bandwidth: bytes / (bw*mem_eff).
 *  - Flash attention: 4*b*a*s_q*s_kv*d FLOPs forward, half of it skipped by the
 *    causal mask, backward 2.5x forward (5 GEMMs against 2; Dao 2023), at
 *    attn_eff of peak ramped by sequence length.  Without it, QK^T and AV are batched GEMMs and the
 *    a*s^2 scores go through HBM (scale-mask-softmax, dropout).
 *  - One FLOP convention for time and utilisation.  Model FLOPs count causal
 *    attention as flash attention executes it: each query against the keys
 *    before it, s/2 on average, so 6*s*a*(d_qk + d_v)/2 per token per layer
 *    (Megatron-LM's num_floating_point_operations, "causal mask (only half of
 *    the mask is non-zero)", training.py since 2025; NeMo's flops_formulas
 *    with causal_self_attn).  A sliding window of w keys keeps w - w^2/(2s)
 *    of them on average (min(i, w) over queries i), which is s/2 at w = s.
 *    Hardware FLOPs (HFU) add what runs beyond the model: recompute,
 *    flash attention's backward re-computing QK^T (2.5x forward against the
 *    model's 2x), and the masked half that unfused attention computes anyway.
 *    The time model prices exactly these FLOPs, each at no more than the
 *    device's peak, so HFU <= 1.  Older formulas count the full square,
 *    12*s*a*d per token per layer (Narayanan et al. 2021 eq. 3, PaLM's MFU,
 *    Megatron-LM <= core_r0.9, NeMo 24.x, llm-foundry);
 *    pt_cost_model_flops_full_square gives that count, for measured numbers
 *    published with it (validate).
 *  - Recompute: full re-runs each layer's forward (with its TP collectives)
 *    before its backward; selective re-runs the attention core only
 *    (Korthikanti et al. 2022, section 5); flash attention's backward already
 *    recomputes the scores, so selective costs nothing more with it.  With
 *    the FSDP engine selective is torchtitan's per-op checkpointing: every
 *    other matmul output and the attention output kept, the rest re-run.
 *  - TP: 2 all-reduces of b*s*h forward and 2 backward per layer; with SP each
 *    is a reduce-scatter plus an all-gather.  The backward's re-gather of the
 *    sequence-sharded GEMM inputs for the weight gradients runs asynchronously
 *    under the data-gradient GEMM in Megatron and is not charged.
 *  - PP: 1F1B/GPipe bubble (p-1)(t_f+t_b), interleaved (p-1)(t_f+t_b)/v
 *    (Narayanan et al. SC'21 eq. 2-3), with unequal stages the other
 *    stages' forwards and backwards once (the fill and the drain); ZB-H1
 *    (p-1)(T_F + T_B - T_W) (Qi et al. 2024, "Zero Bubble Pipeline
 *    Parallelism", section 3.1) when p micro-batches are in flight.  Each
 *    form is derived from the order src/cost/pipe.c builds and src/sim
 *    replays, so the two agree at any micro-batch count (tests/test_sim.c).
 *    ZB-V and DualPipe (two chunks per rank; PyTorch's ZB-V order and
 *    DeepSeek's) have no closed form for every count -- the papers' bubbles
 *    are the many-micro-batch limits -- so their orders are replayed here
 *    too (replay_pipe), with the stage times the simulator uses.
 *    Point-to-point b*s*h/t per boundary crossing, on the critical
 *    path (Megatron's batched isend/irecv waits before compute).  Memory:
 *    the activations each rank keeps at its peak under the same orders
 *    (in_flight).
 *  - DP/ZeRO: Megatron DDP all-reduces fp32 gradients (ZeRO 0); the
 *    distributed optimizer (ZeRO 1/2) reduce-scatters them and all-gathers
 *    bf16 parameters; both overlap with the last micro-batch's backward (and
 *    the next step's first forward) bucket by bucket (--overlap-grad-reduce,
 *    --overlap-param-gather).  ZeRO-3/FSDP all-gathers parameters for
 *    forward and again for backward and reduce-scatters gradients every
 *    micro-batch, prefetching one layer ahead.  The exposed time is derived
 *    from the order src/sim replays these collectives in (dp_exposed_s): a
 *    bucket per layer, the embedding and the output layer their own, on a
 *    FIFO stream beside the compute -- the reductions draining past the last
 *    gradient pass (the embedding's, computed last, is never hidden), the
 *    first layer's gather of each operation never hidden, each further one
 *    hidden behind the previous layer's compute where it fits; zb-v and
 *    dualpipe against the times of their replayed order (dp_replayed).  Per
 *    stage and combined in pt_cost_dp_stages_s, which src/cost/hetero.c
 *    calls for each stage of a cluster with pools.  The
 *    pp=1 sweep of tests/test_sim.c agrees with the replay to 1e-4.
 *    FSDP (and Megatron's) collectives are hierarchical like any other.
 *    DeepSpeed's are priced as one flat ring at the slowest spanned level:
 *    Narayanan et al. Table 2 measured DeepSpeed ZeRO-3 (175B at 768 and 1536
 *    GPUs, 530B at 1120 and 2240) at the same seconds per step whatever the
 *    GPU count, ~4.8 parameter volumes at ~25 GB/s per GPU -- the per-NIC
 *    rate, not the node's aggregate -- while llm-foundry's FSDP (MPT-70B on
 *    32 GPUs) ran faster than a flat ring allows.
 *  - Memory (per device): bf16 weights 2 B, fp32 gradients 4 B (2 B, and
 *    reduced in bf16, with pt_job.grad_bf16: NeMo's performance recipes set
 *    grad_reduce_in_fp32=False), fp32 master
 *    weights + Adam m, v 12 B per parameter (Megatron); ZeRO-1 shards the 12
 *    over dp*cp, ZeRO-2 also the 4; ZeRO-3 (FSDP, DeepSpeed) keeps half-
 *    precision gradient shards, 2 + 2 + 12 B all sharded.  Pure bf16
 *    training (pt_job.states_bf16: torch.optim.Adam on a model built in
 *    bf16, as NeMo AutoModel builds one unless its config asks for fp32)
 *    keeps no master copy and bf16 m, v and gradient buffers: 2 + 2 + 4 B
 *    (the reduction's dtype stays pt_job.grad_bf16's).  Activations per
 *    layer per micro-batch from Korthikanti et al. 2022 eq. 1-6 (pt_cost_layer_
 *    activation_bytes), times the micro-batches the schedule keeps in flight.
 *  - Allowance: 1 GiB for the CUDA context, cuBLAS and NCCL workspaces, plus
 *    5% of the rest for allocator fragmentation ("other").
 *  - Mixture of experts (moe_block): router GEMM, shared experts split by tp,
 *    routed experts as E/ep grouped GEMMs of Te*topk*etp*ep/E rows each on
 *    the same GEMM efficiency ramp (small experts get small, slow GEMMs);
 *    Megatron-Core's all-to-all token dispatcher: dispatch and combine forward,
 *    their gradients backward, over the ep group (ranks etp apart, Megatron's
 *    expert rank order etp-ep-edp-pp), priced over the cluster's levels
 *    ((n-1)/n * S / bw per level, coll.c) and charged to time.ep_comm on the
 *    critical path (DualPipe hides it behind the paired micro-batch's compute,
 *    DeepSeek-V3 report section 3.2.1); a deduplicating dispatcher (DeepEP,
 *    HybridEP) sends a token once per rank and node its experts are on,
 *    which the routing decides (dedup_a2a, spread: uniform, or the topk
 *    neighbouring experts of NeMo AutoModel's fake balanced gate).  Expert compute and all-to-all bytes
 *    are scaled by the busiest device's load, pt_cost_moe_load:
 *    PT_MOE_IMBALANCE_DEFAULT = 1.25 comes from Switch Transformer (Fedus et
 *    al. 2022, section 2.2 and Table 1): with its auxiliary load-balancing
 *    loss it runs expert capacity factors 1.0-2.0, reports dropped tokens
 *    "typically < 1%" and its best speed-quality at 1.0 and 1.25, i.e. the
 *    busiest expert rarely needs more than 1.25x its even share.  Partita
 *    takes 1.25 as the busiest device's load when nothing is dropped: an
 *    assumption, not a measurement of a device's load; --moe-imbalance sets
 *    it, and a capacity factor (--moe-capacity, default dropless) caps it.  Expert weights, gradients
 *    and optimizer states are sharded by ep*etp, their ZeRO shards spread
 *    over the expert data-parallel group tp*cp*dp/(ep*etp).  Every layer of a
 *    MoE model keeps a MoE layer's activations (DeepSeek-V3's three dense
 *    layers are priced as dense layers for time, not for memory).
 *  - Multi-head latent attention: down-projections replicated over tp,
 *    up-projections and output split by heads, attention over q.k width
 *    qk_nope+qk_rope and value width v_head.
 *  - Sliding-window attention (Mistral, Qwen2/3 with use_sliding_window,
 *    gpt-oss; Beltagy et al. 2020, Jiang et al. 2023): a sliding layer's
 *    queries attend to the last w keys, w - w^2/(2s) on average, which flash
 *    attention's time and the model FLOPs both count (its efficiency ramp
 *    still follows s); with context parallelism the ring passes K,V only
 *    over the ceil(w/(s/cp)) chunks the window reaches.  Activation memory
 *    is unchanged: flash attention keeps no s x s scores, and without it the
 *    scores are materialised whole before the mask.
 *
 * Not here: which strategies to try (src/plan) or the event-level replay (src/sim).
 */
#include "base/base.h"
#include "cost/cost.h"
#include "cost/pipe.h"
#include "strategy/strategy.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Fixed allowances, stated once. */
#define CONTEXT_BYTES (1.0 * PT_GiB) /* CUDA context + library workspaces        */
#define FRAG_FRACTION 0.05            /* caching-allocator fragmentation         */
#define ADAM_BYTES_PER_PARAM 36.0     /* fused Adam: r/w fp32 p, m, v; r fp32 g;
                                         w bf16 copy; grad-norm read; zeroing    */
#define ADAM_BF16_BYTES_PER_PARAM 18.0 /* pure bf16 (pt_job.states_bf16): r/w bf16
                                         p, m, v; r g; grad-norm read; zeroing  */
#define FLASH_BWD_FACTOR 2.5          /* flash-attention backward / forward FLOPs */
#define CAUSAL_FRACTION 0.5           /* share of score blocks a causal mask keeps */
/* CPU Adam (optimizer offload) is bound by host memory: per parameter it
 * reads fp32 p, m, v and the gradient and writes p, m, v and the bf16 copy,
 * about 30 bytes.  A DGX H100 host (2 x Xeon Platinum 8480C, NVIDIA DGX H100
 * datasheet; 8 DDR5-4800 channels a socket, 307 GB/s a socket by Intel's
 * specification) peaks at 614 GB/s: 20e9 parameters/s, 2.6e9 for each of
 * its 8 GPUs.  Priced at 1e9 per device's share, under half that bound (no
 * loop streams at the peak; not fitted to a measured run: no public row
 * offloads). */
#define CPU_ADAM_PARAMS_PER_S 1.0e9   /* per device's share of host cores       */
/* DeepSpeed ZeRO-3 (2021) hid only part of its parameter traffic behind
 * compute.  Narayanan et al. Table 2, 175B: at 384 GPUs (4 sequences per GPU,
 * compute-bound) it ran 81.5 s per step where compute alone is ~58 s and the
 * collectives ~59 s, at 768 and 1536 GPUs 66.7 s with ~29 s and ~15 s of
 * compute: step = compute + comm - 0.6 * min(compute, comm) fits all three
 * within 10%.  FSDP and Megatron overlap bucket by bucket (1 - 1/buckets). */
#define DEEPSPEED_ZERO3_OVERLAP 0.6
/* Every other overlapped data-parallel collective takes SMs and memory
 * bandwidth from the compute beside it (NCCL runs one thread block per
 * channel, e.g. 24 of an H100's 132 SMs): Lee et al., "Characterizing
 * Compute-Communication Overlap in GPU-Accelerated Distributed Deep
 * Learning" (arXiv 2507.03114, 2025), abstract: GPT and Llama training on
 * A100, H100, MI250 and MI210, compute overlapped with communication ran
 * on average 18.9% slower than alone (at most 40%).  The collective keeps
 * its pace.  DeepSpeed ZeRO-3's measured overlap above already counts it. */
#define OVERLAP_COMPUTE_SLOWDOWN 1.189

/* Bytes held as int64: saturated at 2^60 (an exabyte per device never fits),
 * so a huge job (seq_len 10^8, found by fuzz_csv) neither overflows the cast
 * nor the sum of five of them in pt_memory.total. */
#define BYTES_MAX 0x1p60
static int64_t bytes_i64(double x)
{
    return x < BYTES_MAX ? (x > 0 ? (int64_t)x : 0) : (int64_t)BYTES_MAX;
}


/* Device rates: the roofline's (roofline.h: GEMMs on the efficiency ramp,
 * element-wise bytes, flash attention, launches). */
typedef pt_roofline hw;

/* Forward, data-gradient and weight-gradient GEMMs of one linear layer. */
static void linear(const hw *h, double peak, double eb, double M, double N, double K,
                   double *fwd, double *bwd)
{
    *fwd += pt_roofline_gemm_s(h, peak, M, N, K, 1, eb);
    *bwd += pt_roofline_gemm_s(h, peak, M, K, N, 1, eb) + pt_roofline_gemm_s(h, peak, K, N, M, 1, eb);
}

/* Per-micro-batch times of one transformer layer on one device. */
typedef struct layer_t {
    double f, b;        /* compute forward / backward (backward includes recompute) */
    double tp_f, tp_b;  /* tensor-parallel collectives                              */
    double tp_rc;       /* what full recomputation's forward adds of them to the
                           backward: tp_f, or all of it where only the forward
                           pass overlaps them (torchtitan's async TP)          */
    double cp_f, cp_b;  /* exposed ring-attention transfers                         */
    double ep_f, ep_b;  /* expert-parallel all-to-all (and etp gathers), MoE layers  */
    double flops_f;     /* model FLOPs forward, this device (causal: s/2 keys)      */
    double flops_rc;    /* FLOPs executed beyond the model's 3 x flops_f, forward
                           and backward: recompute, flash attention's re-run of
                           QK^T, the masked half unfused attention computes    */
} layer_t;

double pt_cost_adam_bytes(const pt_job *job)
{
    return job->states_bf16 ? ADAM_BF16_BYTES_PER_PARAM : ADAM_BYTES_PER_PARAM;
}

double pt_cost_moe_load(const pt_job *job)
{
    double imb = job->moe_imbalance > 0 ? job->moe_imbalance : PT_MOE_IMBALANCE_DEFAULT;
    if (job->moe_capacity > 0 && job->moe_capacity < imb) return job->moe_capacity;
    return imb;
}

/* Keys a causal query attends to, averaged over the s queries of a
 * sequence: s/2 (CAUSAL_FRACTION) with full attention; with a sliding window
 * of w < s, query i sees min(i, w) keys, on average w - w^2/(2s) (s/2 again
 * at w = s; continuous in w). */
static double causal_keys(double s, double w)
{
    if (w <= 0 || w >= s) return s * CAUSAL_FRACTION;
    return w - w * w / (2.0 * s);
}

/* The tokens a query's document spans: the sequence, or the packed
 * documents' length (pt_job.doc_len) where shorter.  Causal attention
 * within documents of D tokens sees causal_keys(D, w) keys per query: D/2
 * with full attention (each document its own causal triangle). */
int64_t pt_job_doc_len(const pt_job *job)
{
    return job->doc_len > 0 && job->doc_len < job->seq_len ? job->doc_len : 0;
}

static double doc_span(const pt_job *job)
{
    return (double)(pt_job_doc_len(job) ? pt_job_doc_len(job) : job->seq_len);
}

/* Keys a query sees when the s tokens are cut into chunks of c, causal
 * inside each (Llama 4): s = k c + r gives k triangles of c^2/2 and one of
 * r^2/2 over s queries, (k c^2 + r^2) / 2s (s/2 at c >= s). */
static double chunk_keys(double s, double c)
{
    double k, r;
    if (c <= 0 || c >= s) return s * CAUSAL_FRACTION;
    k = floor(s / c), r = s - k * c;
    return (k * c * c + r * r) * CAUSAL_FRACTION / s;
}

/* The same averaged over the layers: window_layers of them slide (gpt_oss:
 * half, w = 128; Mistral 7B v0.1: all, w = 4096) or attend within their
 * chunk (Llama 4: three layers in four, c = 8192), the rest attend to the
 * causal prefix. */
static double attn_len(const pt_model *m, double s)
{
    double L = (double)m->layers, wl = (double)m->window_layers, w = (double)m->window;
    /* DeepSeek Sparse Attention: query i attends to min(i, topk) keys on
     * every layer, the count of a sliding window of topk */
    if (m->index_topk > 0) return causal_keys(s, (double)m->index_topk);
    return ((L - wl) * causal_keys(s, 0) + wl * (m->window_chunked ? chunk_keys(s, w) : causal_keys(s, w))) / L;
}

/* Probability that a token's topk experts, drawn without repeats from E
 * spread evenly over the ranks, all miss a given set of `held` experts. */
static double miss_all(double E, double held, double topk)
{
    double p = 1.0;
    for (double i = 0; i < topk; i += 1.0) p *= E - held - i > 0 ? (E - held - i) / (E - i) : 0.0;
    return p;
}

/* Expected distinct blocks of `per` consecutive experts (a rank's E/ep, a
 * node's g E/ep; per divides E) that one token's topk experts fall in,
 * under the routing pt_job.moe_contiguous_routing names:
 *  - independent and uniform: (E/per)(1 - miss), miss the chance that all
 *    k experts miss a given block;
 *  - contiguous: token i to experts ik .. ik+k-1 mod E (NeMo AutoModel's
 *    FakeBalancedGate, components/moe/layers.py: indices = arange(tokens *
 *    k).view(-1, k) % E).  The starts ik mod E run over the multiples of
 *    d = gcd(k, E) equally often, so a start's offset r in its block over
 *    the multiples of d' = gcd(d, per) in [0, per); k neighbours from offset
 *    r span floor((r + k - 1)/per) + 1 blocks -- q + 1 with q =
 *    floor((k-1)/per), or q + 2 for the floor(rem/d') offsets r >= per - rem
 *    (rem = (k-1) mod per) -- at most the E/per there are (a cyclic run). */
static double spread(const pt_job *job, int64_t E, int64_t per, int64_t k)
{
    int64_t nb, d, q, rem, n2, n;
    double lo, hi;
    if (per < 1) per = 1;
    nb = E / per;
    if (!job->moe_contiguous_routing)
        return (double)nb * (1.0 - miss_all((double)E, (double)per, (double)k));
    d = pt_gcd(pt_gcd(k, E), per);
    q = (k - 1) / per, rem = (k - 1) % per;
    n = per / d, n2 = rem / d;
    lo = (double)(q + 1 < nb ? q + 1 : nb);
    hi = (double)(q + 2 < nb ? q + 2 : nb);
    return ((double)(n - n2) * lo + (double)n2 * hi) / (double)n;
}

/* A deduplicating dispatcher's all-to-all (DeepEP, Liu et al. 2024 /
 * deepseek-ai/DeepEP; Megatron-Core's HybridEP): a token goes once to each
 * rank that holds one of its experts (not once per expert), and across
 * nodes once to each node (RDMA), the node forwarding it to its ranks over
 * NVLink.  With g ranks of the ep group per NVLink domain and N = ep/g
 * domains, per token of tok bytes: NVLink carries one copy per distinct
 * rank other than the sender, R (ep-1)/ep with R the distinct ranks a token
 * reaches (spread: (ep-1)(1 - miss(E/ep)) for uniform routing), the network
 * one per distinct other node, Nd (N-1)/N; the two run at once, the slower
 * sets the time.  Routing: uniform (a force-balanced gate's random logits)
 * or contiguous (AutoModel's fake balanced gate: the topk neighbours sit on
 * one or two ranks of one node, so a token leaves its node at most once). */
static double dedup_a2a(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                        double tok)
{
    int64_t ep = pt_strategy_group_size(st, PT_GROUP_EP), stride = pt_strategy_stride(st, PT_GROUP_EP);
    int64_t g = c->level[0].size / stride, N, E = m->experts, e;
    double t_nv = 0, t_net = 0;
    if (ep <= 1) return 0.0;
    if (g < 1) g = 1;
    if (g > ep) g = ep;
    if (ep % g) g = 1; /* groups that do not tile the domains: every rank its own */
    N = ep / g;
    e = E / ep;
    if (g > 1) {
        double copies = spread(job, E, e, m->topk) * (double)(ep - 1) / (double)ep;
        t_nv = pt_coll_time(c, PT_ALLTOALL, bytes_i64(tok * copies * (double)g / (double)(g - 1)), g, stride);
    }
    if (N > 1) {
        double copies = spread(job, E, e * g, m->topk) * (double)(N - 1) / (double)N;
        t_net = pt_coll_time(c, PT_ALLTOALL, bytes_i64(tok * copies * (double)N / (double)(N - 1)), N,
                             stride * g);
    }
    return t_nv > t_net ? t_nv : t_net;
}

/* The MoE block of one layer for one micro-batch on this device: router,
 * shared experts, routed experts as grouped GEMMs, permutation, and the
 * token dispatcher's all-to-all (Megatron-Core MoEAlltoAllTokenDispatcher).
 *   Tokens: with SP each rank holds Te = T/tp tokens and routes Te*topk
 *   token-expert pairs; etp ranks gather theirs, so one device computes
 *   Te*topk*etp pairs at width moe_ffn/etp over E/ep local experts:
 *   per expert M = Te*topk*etp*ep/E rows (the GEMMs shrink as experts grow;
 *   each priced on the GEMM efficiency ramp at its own size), times the load
 *   factor of the busiest device (pt_cost_moe_load).
 *   All-to-all: each device sends and receives Te*topk*h activations within
 *   its ep group (ranks etp apart: Megatron's expert grid orders etp, ep, edp),
 *   dispatch and combine forward, their gradients backward (4 per layer),
 *   priced over the cluster's levels (pt_coll_time PT_ALLTOALL); etp > 1 adds
 *   an all-gather before the experts and a reduce-scatter after. */
static void moe_block(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                      const hw *h, double T, double eb, double *f, double *bw, double *ewf,
                      double *flops, layer_t *o)
{
    double t = st->tp, hd = (double)m->hidden, E = (double)m->experts, k = (double)m->topk;
    double Te = st->sp ? T / t : T, lf = pt_cost_moe_load(job);
    /* LatentMoE (Nemotron 3 Super/Ultra): tokens are projected to the
     * latent width before dispatch, so the experts, the permutation and the
     * all-to-all work in it (the projections are priced by the caller) */
    double dw = m->moe_latent > 0 ? (double)m->moe_latent : hd;
    double nle = E / st->ep, N = (double)m->moe_ffn / st->etp, g = m->gated_mlp ? 2.0 : 1.0;
    double pairs = Te * k * st->etp;               /* token-expert rows this device computes */
    double Me = pairs * lf / nle;                  /* rows per local expert, busiest device   */
    double sf = (double)m->shared_ffn / t, ef = 0, eb_ = 0;
    /* router (fp32 logits of Te tokens) */
    linear(h, h->peak16, 2.0, Te, E, hd, f, bw);
    /* shared experts: tensor-parallel like a dense MLP */
    if (sf > 0) {
        linear(h, h->peak, eb, T, sf * g, hd, f, bw);
        linear(h, h->peak, eb, T, hd, sf, f, bw);
    }
    /* routed experts: nle GEMMs of Me rows each, up (gate+up) and down */
    linear(h, h->peak, eb, Me, N * g, dw, &ef, &eb_);
    linear(h, h->peak, eb, Me, dw, N, &ef, &eb_);
    *f += nle * ef;
    *bw += nle * eb_;
    *flops += 2.0 * Te * E * hd + 2.0 * T * hd * sf * (g + 1.0) + 2.0 * pairs * dw * N * (g + 1.0);
    /* element-wise: permute and unpermute (r+w of each routed row), the
     * weighted combine, the expert and shared activations, router softmax */
    *ewf += pairs * lf * dw * 2.0 * 2.0 * 2.0 + pairs * lf * N * (m->gated_mlp ? 6.0 : 4.0) +
            T * sf * (m->gated_mlp ? 6.0 : 4.0) + Te * E * 4.0 * 2.0;
    /* the dispatcher's communication */
    {
        double bytes = Te * k * dw * 2.0 * lf; /* bf16 activations each way */
        double a2a = pt_coll_time(c, PT_ALLTOALL, bytes_i64(bytes), pt_strategy_group_size(st, PT_GROUP_EP),
                                  pt_strategy_stride(st, PT_GROUP_EP));
        if (job->moe_dedup_dispatch) a2a = dedup_a2a(m, c, job, st, Te * dw * 2.0 * lf);
        double gat = st->etp > 1 ? pt_coll_time(c, PT_ALLGATHER, bytes_i64(bytes * st->etp),
                                                pt_strategy_group_size(st, PT_GROUP_ETP),
                                                pt_strategy_stride(st, PT_GROUP_ETP))
                                 : 0.0;
        o->ep_f = 2.0 * a2a + 2.0 * gat; /* dispatch + combine; AG + RS over etp */
        o->ep_b = 2.0 * a2a + 2.0 * gat;
    }
}

/* What comm seconds of communication overlapped with comp seconds of
 * compute add to the compute, both started together: while the transfer
 * runs, the compute runs 1/OVERLAP_COMPUTE_SLOWDOWN as fast (its kernels
 * share SMs and memory bandwidth with the communication's, as the
 * data-parallel collectives' do; DeepSeek-V3's all-to-all kernels take 20
 * of the H800's 132 SMs, report section 3.2.2, a 132/112 = 1.18 slowdown of
 * what runs beside them) and the transfer keeps its pace.  A transfer that
 * ends after the compute adds its excess, comm - comp; one that ends before
 * it adds the compute's loss, comm (1 - 1/slowdown).  The two agree where
 * comm = comp x slowdown. */
static double overlapped(double comm, double comp)
{
    double sc = OVERLAP_COMPUTE_SLOWDOWN;
    return comm >= comp * sc ? comm - comp : comm * (1.0 - 1.0 / sc);
}

/* The share of comm seconds of communication overlapped() leaves exposed
 * beside comp seconds of compute (comm > 0). */
static double exposed_share(double comm, double comp)
{
    return overlapped(comm, comp) / comm;
}

/* Sequence parallelism, which both engines' overlaps need (Megatron's
 * validate_args asserts it); DeepSpeed has none (src/cli/main.c refuses the
 * flag there). */
int pt_job_tp_overlaps(const pt_job *job, const pt_strategy *st)
{
    return job->tp_comm_overlap && st->sp && (job->engine == PT_ENGINE_MEGATRON || job->engine == PT_ENGINE_FSDP);
}

/* Megatron's --tp-comm-overlap (Transformer Engine userbuffers, Wang et al.
 * ASPLOS'23 "Overlap communication with dependent computation"): each
 * all-gather and reduce-scatter is split into chunks, one per tp rank, that
 * run under the GEMM consuming or producing them: the first chunk of an
 * all-gather (the last of a reduce-scatter) has no GEMM beside it, the rest
 * runs beside the layer's GEMMs (gemm_f, gemm_b), forward, backward and a
 * full recomputation's forward alike.  torchtitan's async TP (PyTorch's
 * micro-pipelined all-gather-matmul and matmul-reduce-scatter, a
 * torch.compile pass) splits the forward's the same way but not the
 * backward graph's: its authors measured "up to ~29% forward pass speedup
 * and ~8% E2E speedup" on Llama 3 8B and ~20% and ~8% on 70B ("[Distributed
 * w/ TorchTitan] Introducing Async Tensor Parallelism in PyTorch",
 * discuss.pytorch.org, 2024), so under torchtitan the backward's
 * collectives, and a full recomputation's replay of the forward's, stay
 * exposed.
 * On torchtitan's eight published pairs of runs with and without it (Llama
 * 3.1 8B, 70B, 405B; bf16 and float8) this prices its gain at 3.9-11.1%
 * (mean 7.2%) where they measured 4.2-16.4% (mean 8.2%). */
static void tp_overlap(layer_t *o, const pt_job *job, double tpn, double gemm_f, double gemm_b)
{
    double one_f = o->tp_f / tpn, one_b = o->tp_b / tpn;
    o->tp_f = one_f + overlapped(o->tp_f - one_f, gemm_f);
    if (job->engine == PT_ENGINE_MEGATRON) {
        o->tp_b = one_b + overlapped(o->tp_b - one_b, gemm_b);
        o->tp_rc = o->tp_f;
    }
}

/* Megatron-Core's combined 1F1B schedule hosts the overlap at pp=1 or in
 * the interleaved schedule only (there is no plain 1F1B host for it). */
int pt_job_ep_overlaps(const pt_job *job, const pt_strategy *st)
{
    return job->moe_a2a_overlap && job->engine == PT_ENGINE_MEGATRON &&
           (st->pp == 1 || st->schedule == PT_SCHED_INTERLEAVED);
}

/* Megatron-Core's --overlap-moe-expert-parallel-comm (the moe_recipes'
 * "EP overlap", DeepSeek-V3 report section 3.2.1's idea in 1F1B): the
 * forward of one micro-batch and the backward of another run as one
 * interleaved pair, each one's dispatch and combine under the other's
 * compute, so a layer's pair exposes what overlapped() leaves of its
 * all-to-all beside the pair's compute, split between forward and backward
 * as the all-to-all is. */
static void ep_overlap(layer_t *o)
{
    double keep = exposed_share(o->ep_f + o->ep_b, o->f + o->b);
    o->ep_f *= keep;
    o->ep_b *= keep;
}

/* Ring attention's exposed time: cp - 1 hops of K,V (comm) beside the
 * attention blocks they feed (core), and the last hop's transfer (step /
 * (cp - 1) of it), which cannot hide. */
static double ring_exposed(double comm, double core, double step, int64_t cpn)
{
    return overlapped(comm, core) + step / (double)(cpn - 1);
}

/* The host's kernel launches as a floor under a layer's busy time, forward
 * (ops launches) and backward (twice as many). */
static void dispatch_floor(const hw *h, double ops, layer_t *o)
{
    double host_f = pt_roofline_launch_s(h, ops), host_b = pt_roofline_launch_s(h, 2.0 * ops);
    double busy_f = o->f + o->tp_f + o->cp_f + o->ep_f, busy_b = o->b + o->tp_b + o->cp_b + o->ep_b;
    if (host_f > busy_f) o->f += host_f - busy_f;
    if (host_b > busy_b) o->b += host_b - busy_b;
}

/* Full recomputation: the backward runs the forward again, its
 * communication included. */
static void forward_again(layer_t *o)
{
    o->b += o->f;
    o->tp_b += o->tp_rc;
    o->cp_b += o->cp_f;
    o->ep_b += o->ep_f;
}

static void layer_times_kind(const pt_model *m, const pt_cluster *c, const pt_job *job,
                             const pt_strategy *st, const hw *h, int moe, layer_t *o)
{
    double t = st->tp, b = st->mbs, s = (double)job->seq_len, sq = s / st->cp, D = doc_span(job);
    double T = b * sq;                       /* tokens of this rank's micro-batch */
    double hd = (double)m->hidden, d = (double)m->head_dim;
    double at = (double)m->heads / t, kt = (double)m->kv_heads / t, ft = (double)m->ffn / t;
    double Te = st->sp ? T / t : T;          /* tokens element-wise work sees     */
    double eb = job->dtype == PT_FP8 ? 1.0 : 2.0;
    double f = 0, bw = 0, attn_f = 0, attn_b = 0, ewf = 0, kern;
    double model_attn_f = 0, exec_attn_f = 0; /* attention-core FLOPs forward: model, executed */
    double act = 2.0 * T * hd;               /* bytes of one b*s*h activation    */
    double score = b * at * sq * s;          /* attention score elements          */
    int64_t tpn = pt_strategy_group_size(st, PT_GROUP_TP), cpn = pt_strategy_group_size(st, PT_GROUP_CP);
    int plain = !moe && !m->mla && !m->window_layers; /* the dense-transformer path */

    memset(o, 0, sizeof *o);
    if (plain) {
        /* Linear layers: QKV, output projection, MLP in and out. */
        linear(h, h->peak, eb, T, (at + 2 * kt) * d, hd, &f, &bw);
        linear(h, h->peak, eb, T, hd, at * d, &f, &bw);
        linear(h, h->peak, eb, T, ft * (m->gated_mlp ? 2 : 1), hd, &f, &bw);
        linear(h, h->peak, eb, T, hd, ft, &f, &bw);
        o->flops_f = 2.0 * T * hd * ((at + 2 * kt) * d + at * d + ft * (m->gated_mlp ? 3 : 2)) +
                     4.0 * b * at * sq * d * causal_keys(D, 0);
    } else {
        double dqk = d, dv = d, fl;
        if (m->mla) {
            /* MLA: the down-projections (h -> q_lora, h -> kv_lora + rope) are
             * replicated over tp, the up-projections and the output split by
             * heads (Megatron-Core MLASelfAttention) */
            double ql = (double)m->q_lora, kl = (double)m->kv_lora, rope = (double)m->qk_rope;
            dqk = (double)(m->qk_nope + m->qk_rope);
            dv = (double)m->v_head;
            if (ql > 0) {
                linear(h, h->peak, eb, T, ql, hd, &f, &bw);
                linear(h, h->peak, eb, T, at * dqk, ql, &f, &bw);
            } else {
                linear(h, h->peak, eb, T, at * dqk, hd, &f, &bw);
            }
            linear(h, h->peak, eb, T, kl + rope, hd, &f, &bw);
            linear(h, h->peak, eb, T, at * ((double)m->qk_nope + dv), kl, &f, &bw);
            linear(h, h->peak, eb, T, hd, at * dv, &f, &bw);
            o->flops_f = 2.0 * T * ((ql > 0 ? hd * ql + ql * at * dqk : hd * at * dqk) + hd * (kl + rope) +
                                    kl * at * ((double)m->qk_nope + dv) + at * dv * hd);
            if (m->index_topk > 0) {
                /* DSA (DeepSeek-V3.2 report, section 2.1): MLA in its MQA
                 * form, the up-projections absorbed into the query and the
                 * output (the same per-token FLOPs as above), so each of
                 * the topk keys is the kv_lora + rope latent and each value
                 * the kv_lora latent; the lightning indexer, replicated
                 * over tp (plain Linear layers in DeepSeek's model.py):
                 * its projections, and its scores against every earlier
                 * key in fp8, I = sum_j w_j ReLU(q_j . k), trained through
                 * its own loss (backward twice the forward); on every
                 * layer, GLM-5.2's shared ones too: Megatron-Core's dsa
                 * has no sharing, serving engines do (infer.c) */
                double hi = (double)m->index_heads, di = (double)m->index_head_dim, iq = ql > 0 ? ql : hd;
                double isc = 2.0 * b * hi * sq * di * causal_keys(D, 0);
                double r8 = c->dev.tflops_fp8 > 0 ? pt_device_tflops(&c->dev, PT_BF16) / c->dev.tflops_fp8 : 1.0;
                linear(h, h->peak, eb, T, hi * di, iq, &f, &bw);
                linear(h, h->peak, eb, T, di + hi, hd, &f, &bw);
                o->flops_f += 2.0 * T * (iq * hi * di + hd * (di + hi)) + isc;
                attn_f += pt_roofline_flash_s(h, isc * r8, D);
                attn_b += 2.0 * pt_roofline_flash_s(h, isc * r8, D);
                dqk = kl + rope;
                dv = kl;
            }
        } else {
            linear(h, h->peak, eb, T, (at + 2 * kt) * d, hd, &f, &bw);
            linear(h, h->peak, eb, T, hd, at * d, &f, &bw);
            o->flops_f = 2.0 * T * hd * ((at + 2 * kt) * d + at * d);
        }
        /* model FLOPs of QK^T and AV: each query against the keys it
         * attends to (the causal prefix, or the sliding window) */
        fl = 2.0 * b * at * sq * (dqk + dv) * attn_len(m, D);
        o->flops_f += fl;
        model_attn_f = fl;
        if (moe) {
            moe_block(m, c, job, st, h, T, eb, &f, &bw, &ewf, &o->flops_f, o);
        } else {
            linear(h, h->peak, eb, T, ft * (m->gated_mlp ? 2 : 1), hd, &f, &bw);
            linear(h, h->peak, eb, T, hd, ft, &f, &bw);
            o->flops_f += 2.0 * T * hd * ft * (m->gated_mlp ? 3 : 2);
            ewf += T * ft * (m->gated_mlp ? 6.0 : 4.0);
        }
        /* attention core: same as below with MLA's widths and the window
         * (DSA: a sparse kernel's tiles span at most topk keys) */
        if (job->flash_attention) { /* a varlen kernel's tiles span one document */
            double span = m->index_topk > 0 && (double)m->index_topk < D ? (double)m->index_topk : D;
            attn_f += pt_roofline_flash_s(h, fl, span);
            attn_b += pt_roofline_flash_s(h, FLASH_BWD_FACTOR * fl, span);
            o->flops_rc += (FLASH_BWD_FACTOR - 2.0) * fl; /* QK^T again in the backward */
            exec_attn_f = fl;
        } else {
            /* unfused: the full s x s square, masked after the GEMMs */
            exec_attn_f = 2.0 * b * at * sq * (dqk + dv) * s;
            o->flops_rc += 3.0 * (exec_attn_f - fl);
            double smf = (4.0 + (m->dropout ? 5.0 : 0.0)) * score;
            double smb = (6.0 + (m->dropout ? 5.0 : 0.0)) * score;
            double core = pt_roofline_gemm_s(h, h->peak16, sq, s, dqk, b * at, 2.0) +
                          pt_roofline_gemm_s(h, h->peak16, sq, dv, s, b * at, 2.0);
            attn_f += core + pt_roofline_ew_s(h, smf);
            attn_b += 2.0 * core + pt_roofline_ew_s(h, smb);
        }
        ewf += Te * hd * (2 * 4.0 + 2 * (m->dropout ? 7.0 : 6.0)) +
               (m->learned_pos ? 0.0 : T * (at + kt) * d * 4.0) +
               (job->dtype == PT_FP8 ? T * (hd * 2 + at * dv + (moe ? 0.0 : ft)) * 3.0 : 0.0);
        kern = 7.0 + (job->dtype == PT_FP8 ? 4.0 : 0.0) + (moe ? 8.0 : 0.0);
        o->f = f + attn_f + pt_roofline_ew_s(h, ewf);
        o->b = bw + attn_b + pt_roofline_ew_s(h, 2.0 * ewf);
        goto collectives;
    }

    /* Attention core: each query against the causal prefix of its document. */
    model_attn_f = 4.0 * b * at * sq * d * causal_keys(D, 0);
    if (job->flash_attention) {
        double fl = model_attn_f;
        attn_f = pt_roofline_flash_s(h, fl, D);
        attn_b = pt_roofline_flash_s(h, FLASH_BWD_FACTOR * fl, D);
        o->flops_rc += (FLASH_BWD_FACTOR - 2.0) * fl; /* the backward recomputes QK^T */
        exec_attn_f = fl;
    } else {
        /* bytes per score element: fused scale-mask-softmax r2 w2, dropout
         * r2 w2 + 1-byte mask; backward: dropout r2 + mask, w2, softmax r2
         * grad + r2 probabilities, w2 */
        double smf = (4.0 + (m->dropout ? 5.0 : 0.0)) * score;
        double smb = (6.0 + (m->dropout ? 5.0 : 0.0)) * score;
        attn_f = 2.0 * pt_roofline_gemm_s(h, h->peak16, sq, s, d, b * at, 2.0) + pt_roofline_ew_s(h, smf);
        attn_b = 4.0 * pt_roofline_gemm_s(h, h->peak16, sq, s, d, b * at, 2.0) + pt_roofline_ew_s(h, smb);
        /* the GEMMs run over the whole square; the mask comes after */
        exec_attn_f = 4.0 * score * d;
        o->flops_rc += 3.0 * (exec_attn_f - model_attn_f);
    }

    /* Element-wise, forward bytes: two norms (r+w), two residual adds with
     * bias and dropout (r x, r residual, w out, w 1-byte mask), the MLP
     * activation on the tp shard, rotary embedding on q and k, fp8 casts. */
    ewf = Te * hd * (2 * 4.0 + 2 * (m->dropout ? 7.0 : 6.0)) +
          T * ft * (m->gated_mlp ? 6.0 : 4.0) +
          (m->learned_pos ? 0.0 : T * (at + kt) * d * 4.0) +
          (job->dtype == PT_FP8 ? T * (hd * 2 + at * d + ft) * 3.0 : 0.0);
    kern = 7.0 + (job->dtype == PT_FP8 ? 4.0 : 0.0);

    o->f = f + attn_f + pt_roofline_ew_s(h, ewf);
    o->b = bw + attn_b + pt_roofline_ew_s(h, 2.0 * ewf);

collectives:
    /* Tensor parallelism: 2 all-reduces (or RS+AG pairs) each way; a MoE
     * layer without shared experts has only the attention's (its routed
     * experts' gathers are the dispatcher's, in ep_f/ep_b). */
    if (tpn > 1) {
        double ar = pt_coll_time(c, PT_ALLREDUCE, bytes_i64(act), tpn, pt_strategy_stride(st, PT_GROUP_TP));
        double n_ar = moe && m->shared_ffn == 0 ? 1.0 : 2.0;
        o->tp_f = o->tp_b = o->tp_rc = n_ar * ar;
        if (pt_job_tp_overlaps(job, st)) tp_overlap(o, job, (double)tpn, f, bw);
    }
    /* Context parallelism: ring attention passes K,V (and dK,dV back) cp-1
     * times, overlapped with the attention blocks it feeds; a sliding layer
     * needs only the ceil(w/sq) chunks its window reaches back into. */
    if (cpn > 1) {
        double kv = 2.0 * 2.0 * b * sq * kt * d;
        double step = pt_p2p_time(c, bytes_i64(kv), cpn, pt_strategy_stride(st, PT_GROUP_CP));
        double hops = (double)(cpn - 1), comm_f, comm_b;
        if (m->window_layers > 0 && m->window > 0) {
            double need = ceil((double)m->window / sq), L = (double)m->layers, wl = (double)m->window_layers;
            if (need > hops) need = hops;
            hops = ((L - wl) * hops + wl * need) / L;
        }
        comm_f = hops * step;
        comm_b = 2.0 * comm_f;
        o->cp_f = ring_exposed(comm_f, attn_f, step, cpn);
        o->cp_b = ring_exposed(comm_b, attn_b, step, cpn);
    }
    if (moe && pt_job_ep_overlaps(job, st) && o->ep_f + o->ep_b > 0) ep_overlap(o);
    /* Host dispatch: every operator costs the CPU kernel_us to launch, and a
     * layer cannot run faster than its launches (small models and small
     * micro-batches are launch-bound in eager PyTorch).  Operators counted:
     * 4 GEMMs, the attention core (1 fused kernel, or 2 batched GEMMs,
     * softmax and dropout), 7 element-wise kernels, the TP collectives;
     * backward launches twice as many. */
    {
        double ops_f = 4.0 + (job->flash_attention ? 1.0 : 3.0 + (m->dropout ? 1.0 : 0.0)) + kern +
                       (tpn > 1 ? (st->sp ? 4.0 : 2.0) : 0.0) + (cpn > 1 ? 2.0 * (double)(cpn - 1) : 0.0);
        if (moe) ops_f += 8.0 + (st->ep > 1 ? 2.0 : 0.0) + (st->etp > 1 ? 2.0 : 0.0);
        dispatch_floor(h, ops_f, o);
    }
    /* Recompute: the forward runs again (the attention core as executed,
     * the rest as the model counts it). */
    if (st->recompute == PT_RC_FULL) {
        forward_again(o);
        o->flops_rc += o->flops_f - model_attn_f + exec_attn_f;
    } else if (st->recompute == PT_RC_SELECTIVE && job->engine == PT_ENGINE_FSDP) {
        /* torchtitan's per-op selective checkpointing (sac "op" policy,
         * torchtitan/models/llama/parallelize_llama.py): every other matmul's
         * output and the attention output are kept, the rest of the forward
         * (the other matmuls, the norms and activations) runs again */
        o->b += 0.5 * f + pt_roofline_ew_s(h, ewf);
        o->flops_rc += 0.5 * (o->flops_f - model_attn_f);
    } else if (st->recompute == PT_RC_SELECTIVE) {
        /* Megatron's selective recomputation (Korthikanti et al. 2022; its
         * default module, core_attn): the attention core runs again in the
         * backward, flash or not -- Megatron-Core checkpoints it whenever
         * recompute_granularity is selective (attention.py,
         * checkpoint_core_attention, _checkpointed_attention_forward).  With
         * flash attention that keeps almost nothing more (the scores were
         * never stored), so selective then costs time for no memory. */
        o->b += attn_f;
        o->flops_rc += exec_attn_f;
    }
}

/* ---- hybrid Mamba-2 / attention / MLP / MoE blocks ---------------------------
 * A hybrid model (pt_model.hybrid: Nemotron-H, Nemotron 3) is a stack of
 * blocks, each one RMSNorm, one mixer and a residual add.  One block of each
 * kind is priced for one micro-batch (hybrid_block) and a stage sums the
 * blocks it holds (hybrid_counts, pt_cost_moe_layers_in's per-range count
 * generalised to every kind).
 *  - 'M' Mamba-2 (Dao & Gu 2024, arXiv 2405.21060): in_proj (z, x, B, C, dt)
 *    and out_proj are GEMMs split by heads and groups over tp (Megatron-Core
 *    MambaMixer: in_proj column-, out_proj row-parallel, n_groups and heads
 *    per rank), one all-reduce (or RS + AG) each way like attention; the
 *    depthwise conv1d + SiLU and the gated RMSNorm are element-wise; the SSD
 *    chunked scan (section 6: chunks of Q = chunk_size) does per token, per
 *    group 2QN (C B^T within the chunk) and per head 2QP (those scores times
 *    X) + 2NP (the chunk state B^T X) + 2NP (the output C h from the carried
 *    state); the state passing between chunks (NP per head per chunk) is
 *    under 1/Q of it and left out.  Those FLOPs run as tensor-core block
 *    matmuls with a causal mask inside each chunk, as flash attention's
 *    do, so they are priced at the device's attention efficiency ramped by
 *    sequence length (one launch covers all chunks), but no faster than
 *    reading x, B, C, dt and writing y (the scan's arithmetic intensity is
 *    about Q FLOPs per byte, near the ridge); its backward twice the
 *    forward, FLOPs and time (gradients of x, B, C and dt from the same
 *    blocks).  The model FLOPs count the whole Q-block (the paper's cost,
 *    and what the kernels execute), conv1d 2K per channel, so time, MFU and
 *    HFU count one number.  Context parallelism (Megatron-Core's Mamba CP)
 *    swaps sequence for heads with an all-to-all before the scan and one
 *    after, forward and backward.  No KV cache; the activation memory is
 *    listed at hybrid_act.
 *  - '*' attention: q, k, v, o and flash attention as a transformer layer's,
 *    one norm; no rotary embedding where rope_theta is 0 (Nemotron-H).
 *  - '-' dense MLP; 'E' the MoE block (moe_block), with LatentMoE's two
 *    projections h x r and r x h as GEMMs split by tp.
 * The whole model's FLOPs (model_flops) sum the same per-block counts. */

/* Forward FLOPs per token of one Mamba-2 block, whole (not split by tp):
 * the projections, the conv1d, the SSD scan. */
static void mamba_flops(const pt_model *m, double *gemm, double *conv, double *ssd)
{
    double h = (double)m->hidden, H = (double)m->mamba_heads, P = (double)m->mamba_head_dim;
    double N = (double)m->mamba_state, G = (double)m->mamba_groups, K = (double)m->mamba_conv;
    double Q = (double)m->mamba_chunk, di = H * P;
    *gemm = 2.0 * h * (2.0 * di + 2.0 * G * N + H) + 2.0 * di * h;
    *conv = 2.0 * K * (di + 2.0 * G * N);
    *ssd = G * 2.0 * Q * N + H * (2.0 * Q * P + 4.0 * N * P);
}

/* Forward FLOPs per token of one block of kind k other than 'M' and
 * without the attention core: its GEMMs (2 per weight). */
static double block_gemm_flops(const pt_model *m, char k)
{
    double h = (double)m->hidden, g = m->gated_mlp ? 3.0 : 2.0, d = (double)m->head_dim;
    double r = (double)m->moe_latent;
    switch (k) {
    case '*': return 2.0 * h * ((double)(m->heads + 2 * m->kv_heads) * d + (double)m->heads * d);
    case '-': return 2.0 * g * h * (double)m->ffn;
    case 'E':
        return 2.0 * ((double)m->experts * h + g * h * (double)m->shared_ffn +
                      (double)m->topk * g * (r > 0 ? r : h) * (double)m->moe_ffn + (r > 0 ? 2.0 * h * r : 0.0));
    default: return 0.0;
    }
}

/* One block of kind k for one micro-batch on this device. */
static void hybrid_block(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                         const hw *h, char k, layer_t *o)
{
    double t = st->tp, b = st->mbs, s = (double)job->seq_len, sq = s / st->cp, D = doc_span(job);
    double T = b * sq, Te = st->sp ? T / t : T, hd = (double)m->hidden;
    double eb = job->dtype == PT_FP8 ? 1.0 : 2.0;
    double f = 0, bw = 0, core_f = 0, core_b = 0, ewf, ops = 2.0, n_ar = 1.0, cp_f = 0, cp_b = 0;
    double model_core = 0, exec_core = 0;
    int64_t tpn = pt_strategy_group_size(st, PT_GROUP_TP), cpn = pt_strategy_group_size(st, PT_GROUP_CP);

    memset(o, 0, sizeof *o);
    /* the block's RMSNorm (r+w) and residual add (r x, r residual, w; a mask with dropout) */
    ewf = Te * hd * (4.0 + (m->dropout ? 7.0 : 6.0));
    if (k == 'M') {
        double H = (double)m->mamba_heads / t, P = (double)m->mamba_head_dim, N = (double)m->mamba_state;
        double G = (double)m->mamba_groups / t, di = H * P, ch = di + 2.0 * G * N, gm, cv, sd, fl, bytes;
        mamba_flops(m, &gm, &cv, &sd);
        linear(h, h->peak, eb, T, 2.0 * di + 2.0 * G * N + H, hd, &f, &bw); /* in_proj */
        linear(h, h->peak, eb, T, hd, di, &f, &bw);                           /* out_proj */
        ewf += T * ch * 4.0 + T * di * 6.0; /* conv1d + SiLU (r, w); gated norm (r y, r z, w) */
        fl = T * sd / t;
        bytes = T * (2.0 * ch + 4.0 * H + 2.0 * di); /* x, B, C; dt fp32; y */
        core_f = pt_roofline_flash_s(h, fl, s);
        if (pt_roofline_ew_s(h, bytes) > core_f) core_f = pt_roofline_ew_s(h, bytes);
        core_b = 2.0 * core_f;
        model_core = exec_core = fl;
        o->flops_f = T * (gm + cv) / t + fl;
        ops = 11.0; /* 2 GEMMs, conv, 5 scan kernels, gated norm, norm, residual */
        if (cpn > 1) { /* sequence <-> heads all-to-all before and after the scan */
            double a2a = pt_coll_time(c, PT_ALLTOALL, bytes_i64(T * (2.0 * ch + 2.0 * H + 2.0 * di)), cpn,
                                      pt_strategy_stride(st, PT_GROUP_CP));
            cp_f = a2a, cp_b = a2a;
            ops += 2.0;
        }
    } else if (k == '*') {
        double at = (double)m->heads / t, kt = (double)m->kv_heads / t, d = (double)m->head_dim;
        double score = b * at * sq * s, fl = 2.0 * b * at * sq * (2.0 * d) * causal_keys(D, 0);
        linear(h, h->peak, eb, T, (at + 2 * kt) * d, hd, &f, &bw);
        linear(h, h->peak, eb, T, hd, at * d, &f, &bw);
        o->flops_f = T * block_gemm_flops(m, '*') / t + fl;
        model_core = fl;
        if (job->flash_attention) {
            core_f = pt_roofline_flash_s(h, fl, D);
            core_b = pt_roofline_flash_s(h, FLASH_BWD_FACTOR * fl, D);
            o->flops_rc += (FLASH_BWD_FACTOR - 2.0) * fl;
            exec_core = fl;
        } else {
            double smf = (4.0 + (m->dropout ? 5.0 : 0.0)) * score, smb = (6.0 + (m->dropout ? 5.0 : 0.0)) * score;
            exec_core = 2.0 * b * at * sq * (2.0 * d) * s;
            o->flops_rc += 3.0 * (exec_core - fl);
            core_f = 2.0 * pt_roofline_gemm_s(h, h->peak16, sq, s, d, b * at, 2.0) + pt_roofline_ew_s(h, smf);
            core_b = 4.0 * pt_roofline_gemm_s(h, h->peak16, sq, s, d, b * at, 2.0) + pt_roofline_ew_s(h, smb);
        }
        if (m->rope_theta > 0) ewf += T * (at + kt) * d * 4.0;
        ops = 4.0 + (job->flash_attention ? 1.0 : 3.0 + (m->dropout ? 1.0 : 0.0));
        if (cpn > 1) { /* ring attention, as a transformer layer's */
            double kv = 2.0 * 2.0 * b * sq * kt * d;
            double step = pt_p2p_time(c, bytes_i64(kv), cpn, pt_strategy_stride(st, PT_GROUP_CP));
            double comm_f = (double)(cpn - 1) * step, comm_b = 2.0 * comm_f;
            cp_f = ring_exposed(comm_f, core_f, step, cpn);
            cp_b = ring_exposed(comm_b, core_b, step, cpn);
            ops += 2.0 * (double)(cpn - 1);
        }
    } else if (k == '-') {
        double ft = (double)m->ffn / t, g = m->gated_mlp ? 2.0 : 1.0;
        linear(h, h->peak, eb, T, ft * g, hd, &f, &bw);
        linear(h, h->peak, eb, T, hd, ft, &f, &bw);
        ewf += T * ft * (m->gated_mlp ? 6.0 : 4.0);
        o->flops_f = T * block_gemm_flops(m, '-') / t;
        ops = 5.0;
    } else { /* 'E' */
        double r = (double)m->moe_latent;
        if (r > 0) { /* LatentMoE's down and up projections */
            linear(h, h->peak, eb, T, r / t, hd, &f, &bw);
            linear(h, h->peak, eb, T, hd, r / t, &f, &bw);
            o->flops_f += 4.0 * T * hd * r / t;
        }
        moe_block(m, c, job, st, h, T, eb, &f, &bw, &ewf, &o->flops_f, o);
        n_ar = m->shared_ffn > 0 ? 1.0 : 0.0;
        ops = 4.0 + 8.0 + (st->ep > 1 ? 2.0 : 0.0) + (st->etp > 1 ? 2.0 : 0.0) + (r > 0 ? 2.0 : 0.0);
    }
    if (job->dtype == PT_FP8) ewf += T * hd * 2.0 * 3.0, ops += 4.0; /* casts of the GEMM inputs */
    o->f = f + core_f + pt_roofline_ew_s(h, ewf);
    o->b = bw + core_b + pt_roofline_ew_s(h, 2.0 * ewf);
    o->cp_f = cp_f, o->cp_b = cp_b;
    if (tpn > 1 && n_ar > 0) {
        double ar = pt_coll_time(c, PT_ALLREDUCE, bytes_i64(2.0 * T * hd), tpn, pt_strategy_stride(st, PT_GROUP_TP));
        o->tp_f = o->tp_b = o->tp_rc = n_ar * ar;
        if (pt_job_tp_overlaps(job, st)) tp_overlap(o, job, (double)tpn, f, bw);
        ops += n_ar * (st->sp ? 2.0 : 1.0);
    }
    if (k == 'E' && pt_job_ep_overlaps(job, st) && o->ep_f + o->ep_b > 0) ep_overlap(o);
    dispatch_floor(h, ops, o); /* as layer_times_kind */
    if (st->recompute == PT_RC_FULL) {
        forward_again(o);
        o->flops_rc += o->flops_f - model_core + exec_core;
    } else if (st->recompute == PT_RC_SELECTIVE && k == '*') { /* as layer_times_kind */
        o->b += core_f;
        o->flops_rc += exec_core;
    }
}

/* Activation bytes one block of kind k keeps for its backward, one
 * micro-batch on this device (the bookkeeping of
 * pt_cost_layer_activation_bytes, per block): every block its norm's input
 * and the norm output its first GEMM reads (4sbh, whole unless SP; 1 byte
 * less each for an FP8 GEMM input), a dropout mask where there is one; and
 *  'M': in_proj's output z, x, B, C, dt (2(2di + 2GN + H)), the conv
 *       output (2(di + 2GN)), the scan's output y and the gated norm's
 *       output (2di each), dt and its cumulative decay in fp32 (8H); the
 *       chunk states are recomputed in the backward (mamba_ssm's
 *       mamba_chunk_scan_combined keeps x, dt, B, C, z and out);
 *  '*': q, k, v, the projection input and flash attention's fp32
 *       log-sum-exp (or the scores, unfused);
 *  '-': the MLP's up-projection and activation outputs;
 *  'E': as a MoE layer's MLP part (shared experts, routed rows, router
 *       probabilities), LatentMoE's latent input and output (2r each).
 * Full recompute keeps the block input only. */
static double hybrid_act(const pt_model *m, const pt_job *job, const pt_strategy *st, char k)
{
    double t = st->tp, b = st->mbs, sq = (double)job->seq_len / st->cp, s = (double)job->seq_len;
    double h = (double)m->hidden, sb = sq * b, f8 = job->dtype == PT_FP8 ? 1.0 : 0.0;
    double whole, split = 0;
    if (st->recompute == PT_RC_FULL) return 2.0 * sb * h / (st->sp ? t : 1);
    whole = sb * h * (4.0 - f8 + (m->dropout ? 1.0 : 0.0));
    if (k == 'M') {
        double H = (double)m->mamba_heads, di = H * (double)m->mamba_head_dim;
        double gn = 2.0 * (double)(m->mamba_groups * m->mamba_state);
        split = sb * (2.0 * (2.0 * di + gn + H) + 2.0 * (di + gn) + 2.0 * di + (2.0 - f8) * di + 8.0 * H) / t;
    } else if (k == '*') {
        double a = (double)m->heads, d = (double)m->head_dim;
        split = sb * (2.0 * (a + 2.0 * (double)m->kv_heads) * d + (2.0 - f8) * a * d) / t;
        if (job->flash_attention) split += 4.0 * a * sb / t;
        else if (st->recompute != PT_RC_SELECTIVE) split += (m->dropout ? 5.0 : 2.0) * a * sq * s * b / t;
    } else if (k == '-') {
        split = sb * ((m->gated_mlp ? 6.0 : 4.0) - f8) * (double)m->ffn / t;
    } else {
        double Te = st->sp ? sb / t : sb, rows = Te * (double)m->topk * st->etp * pt_cost_moe_load(job);
        double fe = (double)m->moe_ffn / st->etp, r = (double)m->moe_latent, dw = r > 0 ? r : h;
        double out = job->engine == PT_ENGINE_MEGATRON ? 4.0 : 2.0 * dw;
        split = ((m->gated_mlp ? 6.0 : 4.0) - f8) * (double)m->shared_ffn / t * sb +
                rows * ((2.0 - f8) * dw + out + ((m->gated_mlp ? 6.0 : 4.0) - f8) * fe) +
                Te * (double)m->experts * 4.0 + (r > 0 ? 4.0 * r * sb / t : 0.0);
    }
    return whole / (st->sp ? t : 1) + split;
}

/* Blocks of each kind (PT_COST_KINDS order) a hybrid model holds in layers [lo, hi). */
static void kinds_in(const pt_model *m, int64_t lo, int64_t hi, double n[4])
{
    for (int i = 0; i < 4; i++) n[i] = (double)pt_model_kind_layers(m, PT_COST_KINDS[i], lo, hi);
}

/* Blocks of each kind on a stage of a hybrid model: the first, the last, or
 * of the middle ones the heaviest by w (per-block weights, e.g. times). */
static void hybrid_counts(const pt_model *m, const pt_strategy *st, int first, int last, const double w[4],
                          double n[4])
{
    int64_t f, mid, l, L = m->layers, P = st->pp;
    double best = -1, x[4];
    if (P == 1) {
        kinds_in(m, 0, L, n);
        return;
    }
    if (!st->pp_first && !st->pp_last) f = mid = l = L / P;
    else pt_strategy_stage_layers(st, L, &f, &mid, &l);
    if (first) {
        kinds_in(m, 0, f, n);
        return;
    }
    if (last) {
        kinds_in(m, L - l, L, n);
        return;
    }
    for (int64_t i = 1; i + 1 < P; i++) {
        double sum = 0;
        kinds_in(m, f + (i - 1) * mid, f + i * mid, x);
        for (int k = 0; k < 4; k++) sum += x[k] * w[k];
        if (sum > best) {
            best = sum;
            memcpy(n, x, sizeof x);
        }
    }
}

/* Per-block times of a prepared hybrid model (its stage weights). */
static void kind_times(const pt_cost_prep *pr, double w[4])
{
    for (int k = 0; k < 4; k++)
        w[k] = pr->kind[k].f + pr->kind[k].b + pr->kind[k].tp_f + pr->kind[k].tp_b + pr->kind[k].cp_f +
               pr->kind[k].cp_b + pr->kind[k].ep_f + pr->kind[k].ep_b;
}

/* Parameters of one block of each kind as one device holds them (tp
 * shards, norm whole) into p, the routed experts' share into e. */
static void kind_params(const pt_model *m, const pt_strategy *st, double p[4], double e[4])
{
    double t = st->tp, h = (double)m->hidden;
    p[0] = ((double)pt_model_mamba_params(m) - h) / t + h;
    p[1] = ((double)pt_model_attn_params(m) - h) / t + h;
    p[2] = (double)pt_model_dense_mlp_params(m) / t + h;
    p[3] = (double)pt_model_moe_other_params(m) / t + h;
    e[0] = e[1] = e[2] = 0;
    e[3] = (double)pt_model_expert_params(m) / ((double)st->ep * st->etp);
}

/* ---- multi-token prediction ------------------------------------------------
 * DeepSeek-V3 (section 2.2) and Megatron-Core's MultiTokenPredictionBlock,
 * on the last pipeline stage (Megatron's layouts end "...tmL"): each of
 * m->mtp_layers depths embeds the tokens one further on (the embedding,
 * shared: the last stage holds it too), normalises that and the previous
 * depth's output (an RMSNorm each), projects the two (2h -> h), runs one
 * block -- of the backbone's last kind, a hybrid model's mtp_hybrid blocks
 * -- then the final norm, the shared output layer and the loss again.
 * Priced as part of the output layer (pr->head_f, head_b; the head bucket's
 * parameters; the last stage's activations), so every schedule and the
 * simulator place it where they place the output layer.  m->mtp_shared:
 * one physical block for every depth (parameters once, work D times). */

/* A hybrid block kind's index in PT_COST_KINDS (pt_cost_prep.kind). */
static int kind_index(char k)
{
    return (int)(strchr(PT_COST_KINDS, k) - PT_COST_KINDS);
}

/* Whether the backbone's MTP block (not hybrid) is a MoE layer. */
static int mtp_moe(const pt_model *m)
{
    return m->experts > 0 && pt_model_moe_layers(m) > 0;
}

/* Parameters of one MTP depth as one device holds them, the routed experts'
 * share in *e: its block, the projection (tp-sharded) and three norms. */
static double mtp_params(const pt_model *m, const pt_strategy *st, double *e)
{
    double t = st->tp, h = (double)m->hidden, norms = (m->norm_bias ? 4.0 : 2.0) * h, p = 0;
    *e = 0;
    if (m->hybrid[0]) {
        double kp[4], ke[4];
        kind_params(m, st, kp, ke);
        for (const char *k = m->mtp_hybrid; *k; k++) {
            p += kp[kind_index(*k)], *e += ke[kind_index(*k)];
        }
    } else if (mtp_moe(m)) {
        p = ((double)pt_model_attn_params(m) - norms) / t + norms + (double)pt_model_moe_other_params(m) / t;
        *e = (double)pt_model_expert_params(m) / ((double)st->ep * st->etp);
    } else {
        p = ((double)pt_model_layer_params(m) - norms) / t + norms;
    }
    return p + 2.0 * h * h / t + 3.0 * h;
}

/* The depths' parameters on the last stage (MTP blocks held once each, or
 * once for all where shared), experts in *e; plus the embedding a last
 * stage apart from the first holds for them where the output layer is not
 * that same tensor (untied). */
static double mtp_stage_params(const pt_model *m, const pt_strategy *st, int first, double *e)
{
    double n = m->mtp_shared ? 1.0 : (double)m->mtp_layers, one, oe;
    *e = 0;
    if (m->mtp_layers <= 0) return 0.0;
    one = mtp_params(m, st, &oe);
    *e = n * oe;
    return n * one + (!first && st->pp > 1 && !m->tied_embeddings ? (double)m->vocab * (double)m->hidden / st->tp : 0.0);
}

/* One MTP depth's activations of one micro-batch: its block's, the two
 * normalised inputs and their concatenation the projection keeps, the
 * output layer's input and fp32 logits. */
static double mtp_activations(const pt_model *m, const pt_job *job, const pt_strategy *st)
{
    double T = (double)job->seq_len / st->cp * st->mbs, h = (double)m->hidden, sp = st->sp ? st->tp : 1, a = 0;
    if (m->hybrid[0])
        for (const char *k = m->mtp_hybrid; *k; k++) a += hybrid_act(m, job, st, *k);
    else
        a = (double)pt_cost_layer_activation_bytes(m, job, st);
    return a + T * h * 2.0 * 4.0 / sp + T * h * 2.0 / sp + T * (double)m->vocab * 4.0 / st->tp;
}

/* Activation bytes of a hybrid model's stage, one micro-batch through it. */
static double hybrid_stage_act(const pt_model *m, const pt_strategy *st, const pt_cost_prep *pr, int first,
                               int last)
{
    double w[4], n[4], a = 0;
    kind_times(pr, w);
    hybrid_counts(m, st, first, last, w, n);
    for (int k = 0; k < 4; k++) a += n[k] * pr->kind[k].act;
    return a;
}

/* pt_cost_prepare's per-layer part for a hybrid model: each kind's block,
 * the average block in the layer fields. */
static void hybrid_prepare(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                           pt_cost_prep *pr)
{
    double L = (double)m->layers, kp[4], ke[4];
    pt_strategy full = *st;
    full.recompute = PT_RC_NONE;
    kind_params(m, st, kp, ke);
    for (int k = 0; k < 4; k++) {
        struct pt_cost_kind *q = &pr->kind[k];
        double n = (double)pt_model_kind_layers(m, PT_COST_KINDS[k], 0, m->layers), lp;
        layer_t B;
        if (n == 0 && !(m->mtp_layers > 0 && strchr(m->mtp_hybrid, PT_COST_KINDS[k]))) continue;
        hybrid_block(m, c, job, st, &pr->h, PT_COST_KINDS[k], &B);
        q->f = B.f, q->b = B.b, q->tp_f = B.tp_f, q->tp_b = B.tp_b, q->cp_f = B.cp_f, q->cp_b = B.cp_b;
        q->ep_f = B.ep_f, q->ep_b = B.ep_b, q->flops_f = B.flops_f, q->flops_rc = B.flops_rc;
        q->act = hybrid_act(m, job, st, PT_COST_KINDS[k]);
        q->act_full = hybrid_act(m, job, &full, PT_COST_KINDS[k]);
        pr->lf += n * q->f / L, pr->lb += n * q->b / L;
        pr->ltp_f += n * q->tp_f / L, pr->ltp_b += n * q->tp_b / L;
        pr->lcp_f += n * q->cp_f / L, pr->lcp_b += n * q->cp_b / L;
        pr->flops_f += n * q->flops_f, pr->flops_rc += n * q->flops_rc;
        pr->act_layer += n * q->act / L;
        if (q->act_full > pr->act_layer_full) pr->act_layer_full = q->act_full; /* the block recomputed */
        lp = kp[k] * st->tp + ke[k] * st->tp; /* one device's block x tp */
        if (lp > pr->layer_params) pr->layer_params = lp;
    }
    pr->lep_f = pr->kind[3].ep_f;
    pr->lep_b = pr->kind[3].ep_b;
}

/* One layer of the model's usual kind: a MoE layer for a MoE model. */
static void layer_times(const pt_model *m, const pt_cluster *c, const pt_job *job,
                        const pt_strategy *st, const hw *h, layer_t *o)
{
    layer_times_kind(m, c, job, st, h, m->experts > 0, o);
}

void pt_cost_layer_time(const pt_model *m, const pt_cluster *c, const pt_job *job,
                        const pt_strategy *st, double *fwd_s, double *bwd_s)
{
    hw h;
    layer_t L;
    if (m->hybrid[0]) { /* the average block */
        pt_cost_prep pr;
        pt_cost_prepare(m, c, job, st, &pr);
        *fwd_s = pr.lf + pr.ltp_f + pr.lcp_f;
        *bwd_s = pr.lb + pr.ltp_b + pr.lcp_b;
        for (int k = 0; k < 4; k++) {
            double n = (double)pt_model_kind_layers(m, PT_COST_KINDS[k], 0, m->layers) / (double)m->layers;
            *fwd_s += n * pr.kind[k].ep_f;
            *bwd_s += n * pr.kind[k].ep_b;
        }
        return;
    }
    pt_roofline_init(&c->dev, job->dtype, &h);
    layer_times(m, c, job, st, &h, &L);
    *fwd_s = L.f + L.tp_f + L.cp_f + L.ep_f;
    *bwd_s = L.b + L.tp_b + L.cp_b + L.ep_b;
}

int64_t pt_cost_layer_activation_bytes(const pt_model *m, const pt_job *job, const pt_strategy *st)
{
    /* Korthikanti et al. 2022, bytes per layer with 2-byte activations and
     * 1-byte dropout masks, generalised: with a = heads, kv groups g, head dim
     * d, MLP width f (two up-projections when gated) and tp = t:
     *   kept whole unless SP: two norm inputs 4sbh, QKV and MLP inputs 4sbh,
     *     two dropout masks 2sbh                                  (= 10sbh)
     *   split by t: Q,K,V 2sb(a+2g)d, projection input 2sbad,
     *     MLP 4sbf (+2sbf gated)                                   (= 24sbh/t)
     *   attention scores, dropped with selective recompute or flash:
     *     softmax 2as^2b, dropout mask as^2b, its output 2as^2b (= 5as^2b/t)
     * Full recompute keeps only the layer input 2sbh (split by t with SP).
     * FP8 (Transformer Engine): a linear layer saves its input for the
     * weight gradient as the FP8 tensor it multiplied (TE's Linear and
     * LayerNormLinear keep the cast input, 1 byte), so the QKV and MLP
     * inputs (the norm outputs), the projection input and the down-
     * projection's input cost half: 10sbh -> 8sbh whole, 2sbad -> sbad and
     * one sbf less split (Q, K, V, the MLP's up-projection outputs and the
     * residual stream stay in bf16). */
    double t = st->tp, b = st->mbs, sq = (double)job->seq_len / st->cp, s = (double)job->seq_len;
    double h = (double)m->hidden, d = (double)m->head_dim;
    double sbh = sq * b * h;
    double whole, split, scores = 0;
    double f8 = job->dtype == PT_FP8 ? 1.0 : 0.0; /* bytes an FP8 GEMM input saves */
    if (m->hybrid[0]) { /* the average block (hybrid_act) */
        double sum = 0;
        for (int k = 0; k < 4; k++)
            sum += (double)pt_model_kind_layers(m, PT_COST_KINDS[k], 0, m->layers) *
                   hybrid_act(m, job, st, PT_COST_KINDS[k]);
        return bytes_i64(sum / (double)m->layers);
    }
    if (st->recompute == PT_RC_FULL) return bytes_i64(2.0 * sbh / (st->sp ? t : 1));
    if (st->recompute == PT_RC_SELECTIVE && job->engine == PT_ENGINE_FSDP && !m->experts && !m->mla) {
        /* torchtitan's per-op selective checkpointing keeps the two norm
         * inputs (4sbh), the attention output 2sbad and half of the matmul
         * outputs: (Q, K, V, projection, MLP up-projections, down) x 2 bytes
         * / 2; plus flash attention's fp32 log-sum-exp */
        double a = (double)m->heads, g = (double)m->kv_heads, fm = (double)m->ffn;
        double mm = (a + 2.0 * g) * d + 2.0 * h + (m->gated_mlp ? 2.0 : 1.0) * fm;
        return bytes_i64(4.0 * sbh / (st->sp ? t : 1) + sq * b * (2.0 * a * d + mm) / t +
                         4.0 * a * sq * b / t);
    }
    whole = sbh * (8.0 - 2.0 * f8 + (m->dropout ? 2.0 : 0.0));
    if (m->experts > 0 || m->mla) {
        /* MLA: q, k (a*(nope+rope)), v (a*v_head) and the projection input
         * split by t, the latents (q_lora + kv_lora + rope) whole.  MoE layer
         * (every layer is priced as one): the shared experts' MLP split by t
         * like a dense one; per routed row (Te*topk*etp rows, times the load
         * factor) its permuted input 2h, the expert MLP 4f or 6f gated at
         * f = moe_ffn/etp, its output 2h (Megatron-Core: its probability,
         * 4 bytes, instead); fp32 router probabilities 4E per token. */
        double at = (double)m->heads;
        double dqk = m->mla ? (double)(m->qk_nope + m->qk_rope) : d, dv = m->mla ? (double)m->v_head : d;
        double qkv = m->mla ? 2.0 * at * (2.0 * dqk + dv) : 2.0 * (double)(m->heads + 2 * m->kv_heads) * d;
        double lat = m->mla ? 2.0 * (double)(m->q_lora + m->kv_lora + m->qk_rope) : 0.0;
        double mlp;
        if (m->experts > 0) {
            double Te = st->sp ? sq * b / t : sq * b, rows = Te * (double)m->topk * st->etp * pt_cost_moe_load(job);
            double fe = (double)m->moe_ffn / st->etp;
            /* per routed row after the expert MLP: Megatron-Core weights
             * each row by its router probability inside the expert's
             * activation (experts.py, activation_func_with_probs: the
             * permuted fp32 probability, 4 bytes, is kept) and un-permutes
             * by a plain sum that keeps nothing; an engine that weights the
             * expert outputs after the MLP (the Hugging Face MoE blocks that
             * FSDP runs) keeps each output, 2h */
            double out = job->engine == PT_ENGINE_MEGATRON ? 4.0 : 2.0 * h;
            mlp = ((m->gated_mlp ? 6.0 : 4.0) - f8) * (double)m->shared_ffn / t * sq * b +
                  rows * ((2.0 - f8) * h + out + ((m->gated_mlp ? 6.0 : 4.0) - f8) * fe) +
                  Te * (double)m->experts * 4.0;
        } else {
            mlp = ((m->gated_mlp ? 6.0 : 4.0) - f8) * (double)m->ffn / t * sq * b;
        }
        split = sq * b * (qkv + (2.0 - f8) * at * dv) / t + sq * b * lat + mlp;
    } else {
        split = sq * b *
                (2.0 * (double)(m->heads + 2 * m->kv_heads) * d + (2.0 - f8) * (double)m->heads * d +
                 ((m->gated_mlp ? 6.0 : 4.0) - f8) * (double)m->ffn) / t;
    }
    if (!job->flash_attention && st->recompute != PT_RC_SELECTIVE)
        scores = (m->dropout ? 5.0 : 2.0) * (double)m->heads * sq * s * b / t;
    else if (job->flash_attention)
        scores = 4.0 * (double)m->heads * sq * b / t; /* fp32 log-sum-exp per row */
    return bytes_i64(whole / (st->sp ? t : 1) + split + scores);
}

/* Model FLOPs of one step with `keys` the keys per query per layer (the
 * layers' average): the causal count (attn_len) or the full square (s);
 * span the tokens a query's document holds (DSA's indexer scores the
 * causal prefix of it). */
static double model_flops(const pt_model *m, double s, double keys, double span, int64_t global_batch)
{
    /* Narayanan et al. SC'21 eq. 3 without recompute, generalised:
     * 6 FLOPs per parameter of every GEMM per token (forward 2, backward 4),
     * plus attention 6*keys*a*(d_qk + d_v) per token per layer (12*s*a*d at
     * keys = s, eq. 3's count), plus the logits 6*V*h. */
    double h = (double)m->hidden, d = (double)m->head_dim;
    double lin, per_tok;
    /* multi-token prediction, per depth: one block (below, by kind), two
     * RMSNorms and the final one (3h), the 2h->h projection, and the output
     * layer again -- Megatron-LM's count (training.py,
     * num_floating_point_operations: 3*2*mtp*(3h + 2h^2) and the logits
     * times mtp + 1) */
    double D = (double)m->mtp_layers, mtp_tok = 6.0 * D * (3.0 * h + 2.0 * h * h + (double)m->vocab * h);
    if (m->hybrid[0]) {
        /* a hybrid stack: each block's forward FLOPs per token as
         * hybrid_block prices them (Mamba-2: projections, conv1d, SSD scan;
         * attention: GEMMs and the causal core), times 3, plus the logits */
        double gm, cv, sd;
        mamba_flops(m, &gm, &cv, &sd);
        per_tok = (double)pt_model_kind_layers(m, 'M', 0, m->layers) * (gm + cv + sd) +
                  (double)pt_model_kind_layers(m, '*', 0, m->layers) *
                      (block_gemm_flops(m, '*') + 2.0 * keys * (double)m->heads * 2.0 * d) +
                  (double)pt_model_kind_layers(m, '-', 0, m->layers) * block_gemm_flops(m, '-') +
                  (double)pt_model_kind_layers(m, 'E', 0, m->layers) * block_gemm_flops(m, 'E');
        for (const char *k = m->mtp_hybrid; D > 0 && *k; k++)
            per_tok += D * (*k == 'M' ? gm + cv + sd
                            : *k == '*' ? block_gemm_flops(m, '*') + 2.0 * keys * (double)m->heads * 2.0 * d
                                        : block_gemm_flops(m, *k));
        return (3.0 * per_tok + 6.0 * (double)m->vocab * h + mtp_tok) * s * (double)global_batch;
    }
    if (m->experts > 0 || m->mla || m->window_layers) {
        /* MoE / MLA / sliding windows: the GEMM parameters one token uses
         * (active parameters without norms and embeddings: topk routed
         * experts, shared experts, router); MLA: q.k width qk_nope+qk_rope,
         * value width v_head. */
        double L = (double)m->layers, nmoe = (double)pt_model_moe_layers(m);
        double norms = (m->norm_bias ? 4.0 : 2.0) * h + (m->index_topk > 0 ? 2.0 * (double)m->index_head_dim : 0.0);
        double attn = (double)pt_model_attn_params(m) - norms;
        double dense = (double)pt_model_dense_mlp_params(m);
        double moe = (double)m->topk * (double)(m->gated_mlp ? 3 : 2) * h * (double)m->moe_ffn +
                     (double)(m->gated_mlp ? 3 : 2) * h * (double)m->shared_ffn + (double)m->experts * h;
        double dqk = m->mla ? (double)(m->qk_nope + m->qk_rope) : d, dv = m->mla ? (double)m->v_head : d;
        double idx = 0; /* DSA: the indexer's scores; its projections are in attn */
        if (m->mla && m->index_topk > 0) { /* every layer's indexer, as layer_times_kind */
            dqk = (double)(m->kv_lora + m->qk_rope), dv = (double)m->kv_lora;
            idx = 2.0 * (double)m->index_heads * (double)m->index_head_dim * causal_keys(span, 0);
        }
        /* an MTP depth's block is of the last layer's kind (MoE where the
         * model has MoE layers) */
        lin = (L + D) * attn + (L - nmoe) * dense + (nmoe + (nmoe > 0 ? D : 0.0)) * moe + (nmoe > 0 ? 0.0 : D * dense);
        per_tok = 6.0 * lin + 6.0 * (L + D) * keys * (double)m->heads * (dqk + dv) + 3.0 * (L + D) * idx +
                  6.0 * (double)m->vocab * h + mtp_tok;
        return per_tok * s * (double)global_batch;
    }
    lin = h * ((double)(m->heads + 2 * m->kv_heads) * d + (double)m->heads * d) +
          h * (double)m->ffn * (m->gated_mlp ? 3.0 : 2.0);
    per_tok = 6.0 * ((double)m->layers + D) * lin + 12.0 * ((double)m->layers + D) * keys * (double)m->heads * d +
              6.0 * (double)m->vocab * h + mtp_tok;
    return per_tok * s * (double)global_batch;
}

double pt_cost_model_flops(const pt_model *m, int64_t seq_len, int64_t global_batch)
{
    return model_flops(m, (double)seq_len, attn_len(m, (double)seq_len), (double)seq_len, global_batch);
}

double pt_cost_job_model_flops(const pt_model *m, const pt_job *job, int64_t global_batch)
{
    return model_flops(m, (double)job->seq_len, attn_len(m, doc_span(job)), doc_span(job), global_batch);
}

double pt_cost_model_flops_full_square(const pt_model *m, int64_t seq_len, int64_t global_batch)
{
    return model_flops(m, (double)seq_len, (double)seq_len, (double)seq_len, global_batch);
}

/* Layers on a stage: the first, a middle one, or the last (pp == 1: all). */
static double layers_on(const pt_model *m, const pt_strategy *st, int first, int last)
{
    int64_t f, mid, l;
    if (st->pp == 1) return (double)m->layers;
    if (!st->pp_first && !st->pp_last) return (double)m->layers / st->pp;
    pt_strategy_stage_layers(st, m->layers, &f, &mid, &l);
    return (double)(first ? f : last ? l : mid);
}

int64_t pt_cost_moe_layers_in(const pt_model *m, int64_t lo, int64_t hi)
{
    int64_t from = lo > m->dense_layers ? lo : m->dense_layers;
    if (m->hybrid[0]) return pt_model_kind_layers(m, 'E', lo, hi);
    if (m->experts == 0 || hi <= from) return 0;
    return hi - from;
}

/* MoE layers on a stage: the first (layers [0, n)), the last, or the busiest
 * middle one (all MoE when there are enough MoE layers between). */
static double moe_on(const pt_model *m, const pt_strategy *st, int first, int last)
{
    int64_t f, mid, l, L = m->layers;
    if (m->experts == 0) return 0.0;
    if (st->pp == 1) return (double)pt_model_moe_layers(m);
    if (!st->pp_first && !st->pp_last) f = mid = l = L / st->pp;
    else pt_strategy_stage_layers(st, L, &f, &mid, &l);
    if (first) return (double)pt_cost_moe_layers_in(m, 0, f);
    if (last) return (double)pt_cost_moe_layers_in(m, L - l, L);
    {
        int64_t n = pt_cost_moe_layers_in(m, f, L - l);
        return (double)(n < mid ? n : mid);
    }
}

/* Parameters held by one device of a pipeline stage (before ZeRO sharding):
 * the return value is what tp shards and ZeRO spreads over dp*cp; *expert
 * (may be NULL) the routed experts, sharded over ep*etp and spread over the
 * expert data-parallel group edp = tp*cp*dp/(ep*etp). */
static double stage_params_n(const pt_model *m, const pt_strategy *st, int first, int last, double nl,
                             double *expert);

static double stage_params_split(const pt_model *m, const pt_strategy *st, int first, int last,
                                 double *expert)
{
    return stage_params_n(m, st, first, last, -1.0, expert);
}

double pt_cost_stage_params(const pt_model *m, const pt_strategy *st, int first, int last, int64_t nlayers)
{
    return stage_params_n(m, st, first, last, (double)nlayers, NULL);
}

/* The same with nl layers on the stage (nl < 0: as st lays them out). */
static double stage_params_n(const pt_model *m, const pt_strategy *st, int first, int last, double nl,
                             double *expert)
{
    double t = st->tp, h = (double)m->hidden;
    double norms = (m->norm_bias ? 4.0 : 2.0) * h;
    double p, e = 0;
    if (m->hybrid[0]) {
        double kp[4], ke[4], n[4], w[4];
        kind_params(m, st, kp, ke);
        for (int k = 0; k < 4; k++) w[k] = kp[k] + ke[k];
        hybrid_counts(m, st, first, last, w, n);
        p = 0;
        for (int k = 0; k < 4; k++) p += n[k] * kp[k], e += n[k] * ke[k];
        if (nl >= 0) { /* nl layers of the average block */
            double all[4], tot = 0, te = 0;
            kinds_in(m, 0, m->layers, all);
            for (int k = 0; k < 4; k++) tot += all[k] * kp[k], te += all[k] * ke[k];
            p = nl * tot / (double)m->layers, e = nl * te / (double)m->layers;
        }
    } else if (m->experts > 0) {
        double n = layers_on(m, st, first, last), nm = moe_on(m, st, first, last);
        double attn = ((double)pt_model_attn_params(m) - norms) / t + norms;
        double dense = (double)pt_model_dense_mlp_params(m) / t;
        double other = (double)pt_model_moe_other_params(m) / t;
        p = n * attn + (n - nm) * dense + nm * other;
        e = nm * (double)pt_model_expert_params(m) / ((double)st->ep * st->etp);
    } else {
        double layer = ((double)pt_model_layer_params(m) - norms) / t + norms;
        p = layer * (nl >= 0 ? nl : layers_on(m, st, first, last));
    }
    if (first) p += (double)m->vocab * h / t + (m->learned_pos ? (double)m->max_seq * h : 0.0);
    if (last) {
        double me;
        p += (m->norm_bias ? 2.0 : 1.0) * h;
        /* untied: the output layer; tied with pp > 1: Megatron keeps a copy */
        if (!m->tied_embeddings || (!first && st->pp > 1)) p += (double)m->vocab * h / t;
        p += mtp_stage_params(m, st, first, &me);
        e += me;
    }
    if (st->schedule == PT_SCHED_DUALPIPE) {
        p *= 2.0; /* two mirrored stages */
        e *= 2.0;
    }
    if (expert) *expert = e;
    return p;
}

/* Expert data-parallel size: the ranks holding the same experts. */
static double expert_dp(const pt_strategy *st)
{
    return (double)pt_strategy_group_size(st, PT_GROUP_EDP);
}

/* Whether the stage `which` (0: rank 0, 1: rank pp-1, 2: rank 1) holds the
 * first and the last layers.  A linear pipeline: rank 0 the first, rank
 * pp-1 the last.  ZB-V folds the pipeline into a V, so rank 0 holds virtual
 * stages 0 and 2p-1 (both ends) and rank pp-1 the two middle ones;
 * DualPipe runs it in both directions, so ranks 0 and pp-1 each hold both
 * ends (as src/sim places them). */
static void stage_ends(const pt_strategy *st, int which, int *first, int *last)
{
    if (st->pp == 1) {
        *first = *last = 1;
        return;
    }
    switch (st->schedule) {
    case PT_SCHED_ZBV: *first = *last = which == 0; return;
    case PT_SCHED_DUALPIPE: *first = *last = which != 2; return;
    default: *first = which == 0, *last = which == 1; return;
    }
}

/* Micro-batches whose activations pipeline rank d keeps at its peak, in
 * units of one micro-batch through all of the rank's layers, as src/sim's
 * orders hold them (mb micro-batches per pipeline):
 *  - GPipe: all of them;
 *  - 1F1B: p - d (Narayanan et al. SC'21 section 2.2.1), at most mb;
 *  - interleaved: Megatron's warm-up of 2(p-d-1) + (v-1)p forward chunks
 *    plus the one in steady state, out of mb*v, over v chunks (rank 0:
 *    p + (p-1)/v, Korthikanti et al. eq. 6);
 *  - ZB-H1: 1F1B's w + 1 (w = min(p-d-1, mb) warm-up forwards) plus half a
 *    micro-batch for each of the min(d, mb-w-1) weight-gradient passes
 *    rank d runs late (the linear layers' inputs they keep, sim.c W_KEEP);
 *  - ZB-V: p chunks of each of the 2 chunks; DualPipe: p + 1 (DeepSeek-V3
 *    Table 2) -- at most mb.
 * *extra: the same for the last rank's final norm output and fp32 logits,
 * kept per micro-batch until its backward (interleaved: the last chunk
 * keeps one).  The first rank's embedding output and dropout mask are
 * counted once, as Korthikanti et al. section 4 total the first stage
 * (their p sbh/t of embedding dropout masks; Fig. 1's activation memories
 * are matched within 0.2%, data/validation). */
static double in_flight(const pt_strategy *st, int64_t mb, int d, double *extra)
{
    double p = st->pp, m = (double)mb, v = st->vpp, k, w;
    switch (st->schedule) {
    case PT_SCHED_GPIPE: k = m; break;
    case PT_SCHED_INTERLEAVED:
        k = 2.0 * (p - d - 1.0) + (v - 1.0) * p + 1.0;
        if (k > m * v) k = m * v;
        *extra = st->pp > 1 ? 1.0 : k / v;
        return k / v;
    case PT_SCHED_ZBH1:
        w = p - d - 1.0 < m ? p - d - 1.0 : m;
        k = w < m ? w + 1.0 + 0.5 * (m - w - 1.0 < d ? m - w - 1.0 : d) : m;
        break;
    case PT_SCHED_DUALPIPE: k = p + 1.0 < m ? p + 1.0 : m; break;
    case PT_SCHED_ZBV: k = p < m ? p : m; break;
    default: k = p - d < m ? p - d : m; break; /* 1F1B */
    }
    *extra = k;
    return k;
}

void pt_cost_stage_states(const pt_model *m, const pt_job *job, const pt_strategy *st,
                          const pt_cost_prep *pr, int first, int last, pt_memory *out)
{
    pt_cost_stage_states_n(m, job, st, pr, first, last, -1, out);
}

void pt_cost_stage_states_n(const pt_model *m, const pt_job *job, const pt_strategy *st,
                            const pt_cost_prep *pr, int first, int last, int64_t nlayers, pt_memory *out)
{
    double ndp = (double)pt_strategy_group_size(st, PT_GROUP_DP_CP), edp = expert_dp(st);
    double lay = pr->layer_params / st->tp;
    double Pe = 0, P = stage_params_n(m, st, first, last, (double)nlayers, &Pe);
    /* bytes per gradient (pt_job.grad_bf16) and per parameter of optimizer
     * state: the fp32 master, m, v, or with pt_job.states_bf16 m, v in bf16 */
    double gb = job->grad_bf16 || job->states_bf16 ? 2.0 : 4.0, ob = job->states_bf16 ? 4.0 : 12.0;
    double w = 2.0 * P, g = gb * P, o = ob * P;
    if (job->dtype == PT_FP8) w += 1.0 * P; /* fp8 copies of the weights */
    if (st->zero >= 1) o /= ndp;
    if (st->zero >= 2) g /= ndp;
    /* routed experts: the same bytes, ZeRO-sharded over the expert
     * data-parallel group (Megatron's distributed optimizer shards expert
     * states over expert_data_parallel_size) */
    if (Pe > 0) {
        w += (job->dtype == PT_FP8 ? 3.0 : 2.0) * Pe;
        g += gb * Pe / (st->zero >= 2 ? edp : 1.0);
        o += ob * Pe / (st->zero >= 1 ? edp : 1.0);
    }
    if (st->zero >= 3) {
        /* FSDP / DeepSpeed ZeRO-3 keep 16 B per parameter, all sharded:
         * half-precision weights and gradients (2 + 2) and the fp32
         * master, m, v (12; with pt_job.states_bf16 m, v in bf16, 4);
         * plus the layer in use and the one being prefetched, gathered in half precision, and that layer's
         * unsharded gradient before its reduce-scatter (DeepSpeed caps
         * both with its default bucket sizes). */
        double live = 2.0 * lay, red = lay;
        if (job->engine == PT_ENGINE_DEEPSPEED) {
            /* stage3_max_live_parameters 1e9, reduce_bucket_size 5e8 */
            if (live > 1e9) live = 1e9;
            if (red > 5e8) red = 5e8;
        }
        w = (w - 2.0 * Pe) / ndp + 2.0 * Pe / edp + 2.0 * live;
        g = 2.0 * P / ndp + 2.0 * Pe / edp + 2.0 * red;
    }
    /* offload=params is ZeRO-Infinity's parameter offload with the optimizer
     * on the host as well: the step prices CPU Adam for it (pt_cost_eval),
     * so its fp32 states are not on the device either */
    if (st->offload == PT_OFF_OPTIMIZER || st->offload == PT_OFF_PARAMS) o = 0;
    if (st->offload == PT_OFF_PARAMS) w = 2.0 * 2.0 * lay;
    memset(out, 0, sizeof *out);
    out->weights = bytes_i64(w);
    out->gradients = bytes_i64(g);
    out->optimizer = bytes_i64(o);
}

double pt_cost_stage_extra_activations(const pt_model *m, const pt_job *job, const pt_strategy *st,
                                       int first, int last)
{
    double T = (double)job->seq_len / st->cp * st->mbs, a = 0;
    if (first) a += T * (double)m->hidden * (m->dropout ? 3.0 : 2.0) / (st->sp ? st->tp : 1);
    if (last) /* final norm output and fp32 logits of the micro-batch in flight */
        a += T * (double)m->hidden * 2.0 / (st->sp ? st->tp : 1) + T * (double)m->vocab * 4.0 / st->tp +
             (m->mtp_layers > 0 ? (double)m->mtp_layers * mtp_activations(m, job, st) : 0.0);
    return a;
}

void pt_cost_vstages(const pt_model *m, const pt_job *job, const pt_strategy *st, const pt_cost_prep *pr,
                     const pt_pipe *p, int *lo, double *fwd, double *bwd, double *act)
{
    int V = p->V;
    int64_t f, mid, l;
    pt_strategy_stage_layers(st, m->layers, &f, &mid, &l);
    lo[0] = 0;
    for (int v = 0; v < V; v++) {
        int64_t n = (st->pp_first || st->pp_last) ? (v == 0 ? f : v == V - 1 ? l : mid) : m->layers / V;
        lo[v + 1] = lo[v] + (int)n;
    }
    for (int v = 0; v < V; v++) {
        int first = v == 0, last = v == V - 1;
        double lv = (double)(lo[v + 1] - lo[v]);
        fwd[v] = lv * (pr->lf + pr->ltp_f + pr->lcp_f) + (first ? pr->emb_f + pr->emb_tp : 0.0) +
                 (last ? pr->head_f : 0.0);
        bwd[v] = lv * (pr->lb + pr->ltp_b + pr->lcp_b) + (first ? pr->emb_b + (st->sp ? pr->emb_tp : 0.0) : 0.0) +
                 (last ? pr->head_b : 0.0);
        act[v] = lv * pr->act_layer + pt_cost_stage_extra_activations(m, job, st, 0, last);
        if (m->hybrid[0]) { /* the virtual stage's own blocks */
            double c[4], ef = 0, eb = 0, shown = 1.0;
            kinds_in(m, lo[v], lo[v + 1], c);
            fwd[v] -= lv * (pr->lf + pr->ltp_f + pr->lcp_f);
            bwd[v] -= lv * (pr->lb + pr->ltp_b + pr->lcp_b);
            act[v] -= lv * pr->act_layer;
            for (int k = 0; k < 4; k++) {
                const struct pt_cost_kind *q = &pr->kind[k];
                fwd[v] += c[k] * (q->f + q->tp_f + q->cp_f);
                bwd[v] += c[k] * (q->b + q->tp_b + q->cp_b);
                act[v] += c[k] * q->act;
                ef += c[k] * q->ep_f, eb += c[k] * q->ep_b;
            }
            if (p->dual && ef + eb > 0) {
                double comp = 0;
                for (int k = 0; k < 4; k++) comp += c[k] * (pr->kind[k].f + pr->kind[k].b);
                shown = exposed_share(ef + eb, comp);
            }
            fwd[v] += shown * ef;
            bwd[v] += shown * eb;
            continue;
        }
        if (m->experts > 0) {
            /* MoE: the stage's dense layers differ from the MoE layer the
             * preparation priced, and its MoE layers add the all-to-all, on
             * the critical path except what DualPipe hides behind the paired
             * micro-batch's compute (DeepSeek-V3 report section 3.2.1) */
            double nm = (double)pt_cost_moe_layers_in(m, lo[v], lo[v + 1]), nd = lv - nm;
            double ef = nm * pr->lep_f, eb = nm * pr->lep_b, shown = 1.0;
            if (p->dual && ef + eb > 0) {
                double comp = lv * (pr->lf + pr->lb) + nd * (pr->dl_f + pr->dl_b);
                shown = exposed_share(ef + eb, comp);
            }
            fwd[v] += nd * (pr->dl_f + pr->dl_tp_f) + shown * ef;
            bwd[v] += nd * (pr->dl_b + pr->dl_tp_b) + shown * eb;
        }
    }
}

int64_t pt_cost_other_bytes(double rest) { return bytes_i64(CONTEXT_BYTES + FRAG_FRACTION * rest); }

/* zb-v and dualpipe: the pipeline's time and the ranks' activation peaks
 * from replaying their orders (pipe.c) with the virtual stages' times and
 * bytes the simulator uses (pt_cost_vstages).  Their timing has no closed
 * form for every micro-batch count -- Qi et al.'s (p-1)(T_F - T_W) per
 * chunk and DeepSeek's (p/2-1)(F&B + B - 3W) are the many-micro-batch
 * limits -- so the model replays them: a step of up to 6p micro-batches
 * whole, a longer one at 3p and 6p and extrapolated (each further
 * micro-batch adds one steady-state period; the peaks do not grow past the
 * warm-up; within 0.3% of the whole replay at 10p+2 and 24p in
 * tests/test_sim.c, where 2p and 4p came within 0.75%).  *makespan (if not NULL): first start to last end, p2p the
 * time of one transfer; peak (if not NULL): the activation peak of rank 0,
 * of rank pp-1 and the largest of the others.  0, or -1 when out of memory. */
#define REPLAY_WINDOW 3
static int replay_pipe(const pt_model *m, const pt_job *job, const pt_strategy *st, const pt_cost_prep *pr,
                       int64_t M, double p2p, double *makespan, double peak[3])
{
    pt_pipe p;
    int64_t L = REPLAY_WINDOW * (int64_t)st->pp;
    int V, rc = 0;
    int *lo;
    double *buf, *f, *b, *a, *pk;
    pt_pipe_init(&p, st, M);
    V = p.V;
    lo = malloc((size_t)(V + 1) * sizeof *lo);
    buf = malloc((size_t)(3 * V + st->pp) * sizeof *buf);
    if (!lo || !buf) {
        rc = -1;
        goto out;
    }
    f = buf, b = buf + V, a = buf + 2 * V, pk = buf + 3 * V;
    pt_cost_vstages(m, job, st, pr, &p, lo, f, b, a);
    if (makespan) {
        pt_pipe_replay r = {0, 0, NULL};
        if (M <= 2 * L) {
            rc = pt_pipe_run(&p, f, b, NULL, p2p, NULL, NULL, &r);
            *makespan = r.makespan;
        } else {
            double t1;
            p.M = L;
            rc = pt_pipe_run(&p, f, b, NULL, p2p, NULL, NULL, &r);
            t1 = r.makespan;
            p.M = 2 * L;
            if (rc == 0) rc = pt_pipe_run(&p, f, b, NULL, p2p, NULL, NULL, &r);
            *makespan = r.makespan + (r.makespan - t1) / (double)L * (double)(M - 2 * L);
        }
        if (rc != 0) goto out;
    }
    if (peak) {
        p.M = M < 2 * L ? M : 2 * L;
        if ((rc = pt_pipe_peaks(&p, a, pk)) != 0) goto out;
        peak[0] = pk[0];
        peak[1] = pk[st->pp - 1];
        peak[2] = 0;
        for (int d = 1; d < st->pp - 1; d++)
            if (pk[d] > peak[2]) peak[2] = pk[d];
    }
out:
    free(lo);
    free(buf);
    return rc < 0 ? -1 : rc;
}

static void memory(const pt_model *m, const pt_job *job, const pt_strategy *st,
                   const pt_cost_prep *pr, int64_t mb, pt_memory *out,
                   const double *replayed_peak)
{
    double best_total = -1;
    double per_layer = pr->act_layer, peak[3] = {0, 0, 0};
    int replayed = pt_pipe_replayed(st);
    /* zb-v, dualpipe: the peaks of the orders' replay (the caller's, when it
     * replayed them for the time already) */
    if (replayed && replayed_peak) memcpy(peak, replayed_peak, sizeof peak);
    else if (replayed && replay_pipe(m, job, st, pr, mb, 0.0, NULL, peak) != 0)
        peak[0] = peak[1] = peak[2] = HUGE_VAL; /* out of memory: never fits */
    /* the first stage, the last, and the second (the busiest of the middle
     * ones: it keeps the most micro-batches, and with uneven stages it may
     * hold more layers) */
    for (int which = 0; which < 3; which++) {
        int first, last;
        int rank = which == 0 ? 0 : which == 1 ? st->pp - 1 : 1;
        double fe = 0, fl = in_flight(st, mb, rank, &fe);
        pt_memory k;
        double a, rest;
        if (which == 2 && st->pp < 3) break;
        stage_ends(st, which, &first, &last);
        pt_cost_stage_states(m, job, st, pr, first, last, &k);
        if (replayed) /* the order's own peak, the last stage's logits in it */
            a = peak[which] + pt_cost_stage_extra_activations(m, job, st, first, 0);
        else
            a = (m->hybrid[0] ? hybrid_stage_act(m, st, pr, first, last) : per_layer * layers_on(m, st, first, last)) *
                    fl +
                pt_cost_stage_extra_activations(m, job, st, first, 0) +
                pt_cost_stage_extra_activations(m, job, st, 0, last) * fe;
        if (st->recompute == PT_RC_FULL) a += pr->act_layer_full; /* the layer being recomputed */
        k.activations = bytes_i64(a);
        rest = (double)(k.weights + k.gradients + k.optimizer) + a;
        k.other = pt_cost_other_bytes(rest);
        k.total = k.weights + k.gradients + k.optimizer + k.activations + k.other;
        if ((double)k.total > best_total) {
            best_total = (double)k.total;
            *out = k;
        }
    }
}

void pt_cost_prepare(const pt_model *m, const pt_cluster *c, const pt_job *job,
                     const pt_strategy *st, pt_cost_prep *pr)
{
    layer_t L;
    double t = st->tp, sq = (double)job->seq_len / st->cp, T = sq * st->mbs;
    double hd = (double)m->hidden, V = (double)m->vocab;
    pt_strategy full = *st;

    memset(pr, 0, sizeof *pr);
    pr->mbs = st->mbs;
    pr->tp = st->tp;
    pr->cp = st->cp;
    pr->sp = st->sp;
    pr->recompute = st->recompute;
    pt_roofline_init(&c->dev, job->dtype, &pr->h);
    if (m->hybrid[0]) {
        hybrid_prepare(m, c, job, st, pr);
        goto ends;
    }
    layer_times(m, c, job, st, &pr->h, &L);
    pr->lf = L.f;
    pr->lb = L.b;
    pr->ltp_f = L.tp_f;
    pr->ltp_b = L.tp_b;
    pr->lcp_f = L.cp_f;
    pr->lcp_b = L.cp_b;
    pr->flops_f = L.flops_f;
    pr->flops_rc = L.flops_rc;
    if (m->experts > 0) {
        /* the other kind of layer: a dense one (DeepSeek-V3's first 3) */
        layer_t D;
        layer_times_kind(m, c, job, st, &pr->h, 0, &D);
        pr->dl_f = D.f - L.f;
        pr->dl_b = D.b - L.b;
        pr->dl_tp_f = D.tp_f - L.tp_f;
        pr->dl_tp_b = D.tp_b - L.tp_b;
        pr->lep_f = L.ep_f;
        pr->lep_b = L.ep_b;
    }

ends:
    /* First stage: embedding lookup (vocab-parallel: an all-reduce, or a
     * reduce-scatter with SP) and its gradient scatter-add. */
    pr->emb_f = pt_roofline_ew_s(&pr->h, T * hd * 2.0 * (m->dropout ? 2.5 : 1.0));
    pr->emb_b = pt_roofline_ew_s(&pr->h, T * hd * 8.0);
    pr->emb_tp = st->tp > 1 ? pt_coll_time(c, st->sp ? PT_REDUCESCATTER : PT_ALLREDUCE,
                                           bytes_i64(T * hd * 2.0), pt_strategy_group_size(st, PT_GROUP_TP),
                                           pt_strategy_stride(st, PT_GROUP_TP))
                            : 0.0;
    /* Last stage: final norm, logits GEMM (bf16) and vocab-parallel cross
     * entropy over fp32 logits (about 20 bytes per logit forward+backward). */
    linear(&pr->h, pr->h.peak16, 2.0, T, V / t, hd, &pr->head_f, &pr->head_b);
    pr->head_f += pt_roofline_ew_s(&pr->h, T * (V / t) * 14.0 + T * hd * 4.0 / (st->sp ? t : 1));
    pr->head_b += pt_roofline_ew_s(&pr->h, T * (V / t) * 6.0 + T * hd * 8.0 / (st->sp ? t : 1));
    if (m->mtp_layers > 0) {
        /* each depth: the shifted tokens' embedding, two norms and the
         * concatenation (r 2 w 2 each, 16 bytes an element forward), the
         * projection, its block with its collectives, the output layer */
        double D = (double)m->mtp_layers, pf = 0, pb = 0, bf = 0, bb = 0, Te = st->sp ? T / t : T;
        linear(&pr->h, pr->h.peak, job->dtype == PT_FP8 ? 1.0 : 2.0, T, hd / t, 2.0 * hd, &pf, &pb);
        pf += pt_roofline_ew_s(&pr->h, Te * hd * 16.0);
        pb += pt_roofline_ew_s(&pr->h, Te * hd * 32.0);
        if (m->hybrid[0]) {
            for (const char *k = m->mtp_hybrid; *k; k++) {
                const struct pt_cost_kind *q = &pr->kind[kind_index(*k)];
                bf += q->f + q->tp_f + q->cp_f + q->ep_f;
                bb += q->b + q->tp_b + q->cp_b + q->ep_b;
            }
        } else {
            bf = pr->lf + pr->ltp_f + pr->lcp_f + (mtp_moe(m) ? pr->lep_f : 0.0);
            bb = pr->lb + pr->ltp_b + pr->lcp_b + (mtp_moe(m) ? pr->lep_b : 0.0);
        }
        bf = D * (bf + pf + pr->emb_f + pr->emb_tp + pr->head_f);
        bb = D * (bb + pb + pr->emb_b + (st->sp ? pr->emb_tp : 0.0) + pr->head_b);
        if (job->mtp_in_layout && st->pp > 1) {
            /* a layout balanced around them: their work spread over every
             * layer (so over the ranks as the layers are) */
            double nl = (double)m->layers;
            pr->lf += bf / nl, pr->lb += bb / nl;
            for (int k = 0; k < 4 && m->hybrid[0]; k++) pr->kind[k].f += bf / nl, pr->kind[k].b += bb / nl;
        } else {
            pr->head_f += bf, pr->head_b += bb;
        }
    }

    if (m->hybrid[0])
        return; /* hybrid_prepare set the layer's parameters and activations */
    if (m->experts > 0) /* one MoE layer as one device holds it, times tp */
        pr->layer_params = (double)(pt_model_attn_params(m) + pt_model_moe_other_params(m)) +
                           (double)pt_model_expert_params(m) * st->tp / ((double)st->ep * st->etp);
    else
        pr->layer_params = (double)pt_model_layer_params(m);
    pr->act_layer = (double)pt_cost_layer_activation_bytes(m, job, st);
    full.recompute = PT_RC_NONE;
    pr->act_layer_full = (double)pt_cost_layer_activation_bytes(m, job, &full);
}

void pt_cost_memory_prepared(const pt_model *m, const pt_cluster *c, const pt_job *job,
                             const pt_strategy *st, const pt_cost_prep *pr, pt_memory *out,
                             int *fits)
{
    int64_t mb = st->gbs / ((int64_t)st->mbs * st->dp);
    memory(m, job, st, pr, mb, out, NULL);
    *fits = (double)out->total <= c->dev.memory_GiB * PT_GiB;
}

pt_status pt_cost_eval(const pt_model *m, const pt_cluster *c, const pt_job *job,
                       const pt_strategy *st, pt_cost *out)
{
    pt_cost_prep pr;
    pt_cost_prepare(m, c, job, st, &pr);
    pt_cost_eval_prepared(m, c, job, st, &pr, out);
    return PT_OK;
}

double pt_cost_tied_embedding_s(const pt_model *m, const pt_cluster *c, const pt_strategy *st)
{
    /* tied, or the MTP depths' embedding on the last stage (untied) */
    if (st->pp <= 1 || (!m->tied_embeddings && m->mtp_layers <= 0)) return 0.0;
    return pt_coll_time(c, PT_ALLREDUCE, bytes_i64(4.0 * (double)m->vocab * (double)m->hidden / st->tp), 2,
                        pt_strategy_stride(st, PT_GROUP_PP) * (st->pp - 1));
}

/* One micro-batch's work on a stage holding the first and/or the last
 * layers: compute, TP collectives, exposed CP transfers and expert
 * all-to-all, forward and backward. */
typedef struct work { double f, b, xf, xb, cf, cb, ef, eb; } work;

static void stage_work(const pt_model *m, const pt_strategy *st, const pt_cost_prep *pr, int first, int last,
                       work *w)
{
    double n = layers_on(m, st, first, last);
    double nd = n - moe_on(m, st, first, last); /* dense layers of a MoE model (else 0) */
    double ne = m->experts > 0 ? n - nd : 0.0;  /* MoE layers                          */
    if (m->hybrid[0]) { /* the blocks the stage holds, kind by kind */
        double wt[4], c[4];
        kind_times(pr, wt);
        hybrid_counts(m, st, first, last, wt, c);
        memset(w, 0, sizeof *w);
        for (int k = 0; k < 4; k++) {
            const struct pt_cost_kind *q = &pr->kind[k];
            w->f += c[k] * q->f, w->b += c[k] * q->b, w->xf += c[k] * q->tp_f, w->xb += c[k] * q->tp_b;
            w->cf += c[k] * q->cp_f, w->cb += c[k] * q->cp_b, w->ef += c[k] * q->ep_f, w->eb += c[k] * q->ep_b;
        }
        w->f += (first ? pr->emb_f : 0) + (last ? pr->head_f : 0);
        w->b += (first ? pr->emb_b : 0) + (last ? pr->head_b : 0);
        w->xf += first ? pr->emb_tp : 0;
        w->xb += first && st->sp ? pr->emb_tp : 0;
        return;
    }
    w->f = n * pr->lf + (first ? pr->emb_f : 0) + (last ? pr->head_f : 0);
    w->b = n * pr->lb + (first ? pr->emb_b : 0) + (last ? pr->head_b : 0);
    w->xf = n * pr->ltp_f + (first ? pr->emb_tp : 0);
    w->xb = n * pr->ltp_b + (first && st->sp ? pr->emb_tp : 0);
    w->cf = n * pr->lcp_f;
    w->cb = n * pr->lcp_b;
    w->ef = ne * pr->lep_f;
    w->eb = ne * pr->lep_b;
    if (m->experts > 0) {
        w->f += nd * pr->dl_f;
        w->b += nd * pr->dl_b;
        w->xf += nd * pr->dl_tp_f;
        w->xb += nd * pr->dl_tp_b;
    }
}

double pt_cost_bucket_params(const pt_model *m, const pt_strategy *st, int which, int64_t layer, int copy,
                             double *expert)
{
    double t = st->tp, h = (double)m->hidden, norms = (m->norm_bias ? 4.0 : 2.0) * h, p, e = 0;
    if (which == 0) {
        p = (double)m->vocab * h / t + (m->learned_pos ? (double)m->max_seq * h : 0.0);
    } else if (which == 2) { /* copy: the stage does not hold the embedding (pp > 1, not the first) */
        p = (m->norm_bias ? 2.0 : 1.0) * h + (!m->tied_embeddings || copy ? (double)m->vocab * h / t : 0.0) +
            mtp_stage_params(m, st, !copy, &e);
    } else if (m->hybrid[0]) {
        double kp[4], ke[4];
        int k = 0;
        kind_params(m, st, kp, ke);
        while (k < 3 && pt_model_kind_layers(m, PT_COST_KINDS[k], layer, layer + 1) == 0) k++;
        p = kp[k], e = ke[k];
    } else if (m->experts > 0) {
        int moe = pt_cost_moe_layers_in(m, layer, layer + 1) > 0;
        p = ((double)pt_model_attn_params(m) - norms) / t + norms +
            (double)(moe ? pt_model_moe_other_params(m) : pt_model_dense_mlp_params(m)) / t;
        if (moe) e = (double)pt_model_expert_params(m) / ((double)st->ep * st->etp);
    } else {
        p = ((double)pt_model_layer_params(m) - norms) / t + norms;
    }
    if (expert) *expert = e;
    return p;
}

void pt_cost_dp_colls(const pt_cluster *c, const pt_job *job, const pt_strategy *st, double P, double Pe,
                      pt_cost_dp *o)
{
    double gbytes = job->grad_bf16 ? 2.0 : 4.0; /* per gradient reduced (pt_job.grad_bf16) */
    /* ZeRO-3's per-micro-batch reduce-scatter: FSDP's in its mixed-precision
     * policy's reduce dtype (torchtitan's mixed_precision_reduce, FSDP2's
     * MixedPrecisionPolicy.reduce_dtype: float32 unless grad_bf16, as the
     * torchtitan export writes it); DeepSpeed's in the model's dtype (its
     * communication_data_type left unset) */
    double rsbytes = job->engine == PT_ENGINE_DEEPSPEED ? 2.0 : gbytes;
    int64_t n = pt_strategy_group_size(st, PT_GROUP_DP_CP), stride = pt_strategy_stride(st, PT_GROUP_DP_CP);
    int64_t en = pt_strategy_group_size(st, PT_GROUP_EDP), estride = pt_strategy_stride(st, PT_GROUP_EDP);
    memset(o, 0, sizeof *o);
    o->zero = st->zero;
    o->slow = 1.0;
    o->slow_c = OVERLAP_COMPUTE_SLOWDOWN;
    if (n > 1) {
        if (st->zero == 0) {
            o->grad = pt_coll_time(c, PT_ALLREDUCE, bytes_i64(gbytes * P), n, stride);
        } else if (st->zero <= 2) {
            o->grad = pt_coll_time(c, PT_REDUCESCATTER, bytes_i64(gbytes * P), n, stride);
            o->gather = pt_coll_time(c, PT_ALLGATHER, bytes_i64(2.0 * P), n, stride);
        } else {
            double (*coll)(const pt_cluster *, pt_coll_op, int64_t, int64_t, int64_t) =
                job->engine == PT_ENGINE_DEEPSPEED ? pt_coll_time_flat : pt_coll_time;
            o->gather = coll(c, PT_ALLGATHER, bytes_i64(2.0 * P), n, stride);
            o->scatter = coll(c, PT_REDUCESCATTER, bytes_i64(rsbytes * P), n, stride);
            if (job->engine == PT_ENGINE_DEEPSPEED) o->slow = o->slow_c = 2.0 - DEEPSPEED_ZERO3_OVERLAP;
        }
    }
    if (Pe > 0 && en > 1) {
        if (st->zero == 0) {
            o->e_grad = pt_coll_time(c, PT_ALLREDUCE, bytes_i64(gbytes * Pe), en, estride);
        } else if (st->zero <= 2) {
            o->e_grad = pt_coll_time(c, PT_REDUCESCATTER, bytes_i64(gbytes * Pe), en, estride);
            o->e_gather = pt_coll_time(c, PT_ALLGATHER, bytes_i64(2.0 * Pe), en, estride);
        } else { /* per micro-batch: gather twice, reduce-scatter once */
            o->e_scatter = pt_coll_time(c, PT_REDUCESCATTER, bytes_i64(rsbytes * Pe), en, estride);
            o->e_gather = pt_coll_time(c, PT_ALLGATHER, bytes_i64(2.0 * Pe), en, estride);
        }
    }
}

/* ---- the data-parallel collectives' exposed time ---------------------------
 * Derived from the order src/sim replays them in: buckets of about one
 * layer (the embedding and the output layer their own), each collective on
 * a FIFO stream beside the compute.  A stage's buckets in the order an
 * operation runs them are a few classes of equal buckets (dpseg): the
 * output layer, n layers, the embedding, and for the zero-bubble and
 * interleaved orders the other chunks. */
typedef struct dpseg {
    int64_t n;       /* buckets                                   */
    double g, c, r;  /* each: parameter gather, compute, gradient reduction */
} dpseg;

static const dpseg *dpseg_at(const dpseg *s, int ns, int64_t k)
{
    for (int i = 0; i < ns; i++) {
        if (k < s[i].n) return &s[i];
        k -= s[i].n;
    }
    return &s[ns - 1];
}

static int64_t dpseg_count(const dpseg *s, int ns)
{
    int64_t n = 0;
    for (int i = 0; i < ns; i++) n += s[i].n;
    return n;
}

/* What x seconds of collectives beside c seconds of compute add to it, the
 * two started together and the overlapped compute running 1/slow_c as fast,
 * the collective 1/slow as fast (pt_cost_dp): with the compute ending first
 * (c slow_c <= x slow) the collective's rest runs alone, x + c (slow_c -
 * slow_c/slow - 1); else the compute loses x slow (1 - 1/slow_c).  Slowdowns
 * of 1: the excess, max(x - c, 0). */
static double beside(double x, double c, const pt_cost_dp *k)
{
    double sc = k->slow_c, sx = k->slow;
    if (c * sc <= x * sx) return x + c * (sc - sc / sx - 1.0);
    return x * sx * (1.0 - 1.0 / sc);
}

/* What o seconds of collectives beside compute the step waits for cost it:
 * the compute loses 1 - 1/slow_c of each (ZeRO 0-2 at pp=1, whose
 * reductions and gathers dp_drain and dp_fill place against the compute
 * without the slowdown). */
static double dp_contention(const pt_cost_dp *k, double o)
{
    return o > 0 ? o * k->slow * (1.0 - 1.0 / k->slow_c) : 0.0;
}

/* ZeRO-3 forward (and a split schedule's input-gradient pass): each bucket's
 * gather issued when the previous bucket's compute starts, the first one
 * when the operation is ready: g_1 + sum_k beside(g_{k+1}, c_k). */
static double dp_gather_op(const dpseg *s, int ns, const pt_cost_dp *h)
{
    int64_t N = dpseg_count(s, ns);
    double e;
    if (N == 0) return 0.0;
    e = dpseg_at(s, ns, 0)->g;
    for (int64_t k = 0; k + 1 < N; k++) e += beside(dpseg_at(s, ns, k + 1)->g, dpseg_at(s, ns, k)->c, h);
    return e;
}

/* ZeRO-3 backward: gathers one bucket ahead and each bucket's reduce-scatter
 * when its backward ends, in FIFO order G2 R1 G3 R2 ...: with s_k the
 * bucket starts, s_2 = s_1 + max(c_1, g_2), s_{k+1} = s_k + max(c_k, r_{k-1}
 * + g_{k+1}), and the stream free after max(c_N, r_{N-1}) + r_N: exposed
 * g_1 + beside(g_2, c_1) + sum beside(r_{k-1} + g_{k+1}, c_k) +
 * beside(r_{N-1}, c_N) + r_N (the last reduce-scatter holds the next
 * operation's first gather). */
static double dp_backward_op(const dpseg *s, int ns, const pt_cost_dp *h)
{
    int64_t N = dpseg_count(s, ns);
    double e;
    if (N == 0) return 0.0;
    e = dpseg_at(s, ns, 0)->g;
    if (N == 1) return e + dpseg_at(s, ns, 0)->r;
    e += beside(dpseg_at(s, ns, 1)->g, dpseg_at(s, ns, 0)->c, h);
    for (int64_t k = 1; k + 1 < N; k++)
        e += beside(dpseg_at(s, ns, k - 1)->r + dpseg_at(s, ns, k + 1)->g, dpseg_at(s, ns, k)->c, h);
    return e + beside(dpseg_at(s, ns, N - 2)->r, dpseg_at(s, ns, N - 1)->c, h) + dpseg_at(s, ns, N - 1)->r;
}

/* Reductions released as the buckets' gradient passes end (in s's order)
 * on a FIFO stream: how long the stream runs past the last pass, the most
 * over buckets k of the reductions from k on less the compute after k.
 * *at (may be NULL): the bucket attaining it, from whose release on the
 * stream runs without a gap to its end (-1 when it ends with the compute). */
static double dp_drain_at(const dpseg *s, int ns, int64_t *at)
{
    double A = 0, B = 0, best = 0;
    int64_t kb = -1;
    for (int64_t k = dpseg_count(s, ns) - 1; k >= 0; k--) {
        const dpseg *u = dpseg_at(s, ns, k);
        A += u->r;
        if (A - B > best) best = A - B, kb = k;
        B += u->c;
    }
    if (at) *at = kb;
    return best;
}

static double dp_drain(const dpseg *s, int ns) { return dp_drain_at(s, ns, NULL); }

/* Gathers all issued at once, each bucket's compute waiting for its own (in
 * s's order): the delay, the most over k of the gathers up to k less the
 * compute before k; *at the bucket attaining it (the stream runs without a
 * gap up to its gather), -1 for no delay. */
static double dp_fill_at(const dpseg *s, int ns, int64_t *at)
{
    double A = 0, B = 0, best = 0;
    int64_t N = dpseg_count(s, ns), kb = -1;
    for (int64_t k = 0; k < N; k++) {
        const dpseg *u = dpseg_at(s, ns, k);
        A += u->g;
        if (A - B > best) best = A - B, kb = k;
        B += u->c;
    }
    if (at) *at = kb;
    return best;
}

/* The reductions' seconds beside each bucket's compute as the FIFO stream
 * runs them (r released at each bucket's end), of the buckets before
 * `stop`.  What runs beside the buckets from dp_drain_at's bucket on is
 * left out: the stream sets the pace there, and slower compute beside it
 * costs nothing. */
static double dp_beside(const dpseg *sg, int ns, int64_t stop)
{
    double q = 0, o = 0;
    int64_t k = 0;
    for (int i = 0; i < ns; i++)
        for (int64_t j = 0; j < sg[i].n && k < stop; j++, k++) {
            double x = q < sg[i].c ? q : sg[i].c;
            o += x;
            q += sg[i].r - x;
        }
    return o;
}

/* The gathers dp_fill_at's bucket `at` did not wait for: each ran beside
 * the compute before its own bucket. */
static double dp_fill_beside(const dpseg *s, int ns, int64_t at)
{
    double G = 0;
    int64_t N = dpseg_count(s, ns);
    for (int64_t k = at + 1; k < N; k++) G += dpseg_at(s, ns, k)->g;
    return G;
}

/* ---- the collectives against a replayed order ------------------------------
 * A pipeline under ZeRO 0-2 (dp_zero2_replay), and zb-v and dualpipe under
 * ZeRO-3 (dp_replayed: each operation lengthened by what its collectives
 * expose, dp_gather_op, and the order replayed again).  A first replay
 * watches when each rank first runs each virtual stage forward and how many
 * gradient passes it runs on it. */
typedef struct dp_times {
    const pt_pipe *p;
    double *first_f; /* pp x V: first forward start (-1: none) */
    int *passes;     /* pp x V: gradient passes               */
} dp_times;

/* A hook that only watches (the replay's fast path calls it too). */
static double dp_times_start(void *ctx, int d, const pt_pipe_op *o, double t)
{
    (void)ctx, (void)d, (void)o;
    return t;
}

static double dp_times_run(void *ctx, int d, const pt_pipe_op *o, double ready, double t0, double dur)
{
    dp_times *x = ctx;
    int64_t i = (int64_t)d * x->p->V + o->vs;
    (void)ready;
    if (o->kind == PT_OP_F && (x->first_f[i] < 0 || t0 < x->first_f[i])) x->first_f[i] = t0;
    if (x->p->split ? o->kind == PT_OP_W : o->kind == PT_OP_B) x->passes[i]++;
    return t0 + dur;
}

/* ZeRO 0-2 against the replayed order: each rank's stream busy from the
 * start with its gathers (each bucket's first forward waiting for its own),
 * and with each virtual stage's reductions, queued bucket by bucket in its
 * last gradient pass; an operation the stream overlaps runs 1/slow_c as
 * fast meanwhile.  Coarser than src/sim, which splits every operation into
 * its buckets and sends on their own stream. */
typedef struct dp_busy {
    const pt_pipe *p;
    const int *uo;           /* the virtual stages' buckets (dp_replayed)   */
    const double *ub, *ua;   /* ... backward compute, reduction seconds      */
    const double *gend;      /* per rank and bucket: its gather's end (ZeRO
                                1-2: all issued at the step's start)        */
    double *e;               /* per rank: the stream busy until              */
    int *left;               /* per rank and virtual stage: gradient passes
                                still to run on it                           */
    char *fdone;             /* ... its first forward has run               */
    double sc;
} dp_busy;

/* w seconds of compute from t beside a stream that would drain at *e with
 * the compute idle, the compute running 1/sc as fast while they overlap and
 * the stream 1/sx as fast: returns the compute's end and moves *e, and *ge
 * (a queued collective's end, may be NULL), by what the overlap slowed. */
static double dp_stream_compute(double t, double w, double *e, double *ge, double sc, double sx)
{
    double R = *e - t, end, c;
    if (!(R > 0)) return t + w;
    if (w * sc <= R * sx) { /* the stream outlasts the compute */
        end = t + w * sc, c = w * sc / sx;
        *e = end + (R - c);
    } else {
        end = t + R * sx + (w - R * sx / sc), c = R;
        *e = t + R * sx;
    }
    if (ge) *ge = *ge - t > c ? end + (*ge - t - c) : end;
    return end;
}

/* dur seconds of compute from t beside a stream busy until e (ZeRO 0-2:
 * the stream runs at full speed beside it): the end. */
static double dp_busy_compute(double t, double dur, double e, double sc)
{
    return dp_stream_compute(t, dur, &e, NULL, sc, 1.0);
}

static double dp_busy_run(void *ctx, int d, const pt_pipe_op *o, double ready, double t0, double dur)
{
    dp_busy *z = ctx;
    int vs = o->vs, i = d * z->p->V + vs, a = z->uo[vs], n = z->uo[vs + 1] - a;
    int NU = z->uo[z->p->V];
    double t = t0, tot = 0;
    (void)ready;
    if (o->kind == PT_OP_F && !z->fdone[i] && z->gend) {
        /* the first forward: each bucket waits for its own gather */
        z->fdone[i] = 1;
        for (int u = a; u < a + n; u++) {
            double g = z->gend[(size_t)d * (size_t)NU + (size_t)u];
            if (g > t) t = g;
            t = dp_busy_compute(t, dur / n, z->e[d], z->sc);
        }
        return t;
    }
    if (!(z->p->split ? o->kind == PT_OP_W : o->kind == PT_OP_B) || --z->left[i] > 0)
        return dp_busy_compute(t0, dur, z->e[d], z->sc);
    /* the last gradient pass: each bucket's reduction queued as its part
     * of the pass ends, the output side first */
    for (int u = a; u < a + n; u++) tot += z->ub[u];
    for (int u = a + n - 1; u >= a; u--) {
        t = dp_busy_compute(t, tot > 0 ? dur * z->ub[u] / tot : dur / n, z->e[d], z->sc);
        if (z->ua[u] > 0) z->e[d] = (z->e[d] > t ? z->e[d] : t) + z->ua[u];
    }
    return t;
}

/* ZeRO 0-2 with a pipeline: the order p replayed twice with the virtual
 * stages' times f, b -- alone, then with each rank's collectives beside it
 * (dp_busy): the gathers issued at the step's start in the order the rank
 * first runs its virtual stages, each bucket's first forward waiting for its
 * own; each virtual stage's reductions queued bucket by bucket in its last
 * gradient pass; the compute they overlap slowed.  Buckets uo (per virtual
 * stage, forward order) with backward ub, gather ug and reduction ua
 * seconds.  Returns how much later the step ends (its compute or a stream),
 * HUGE_VAL when out of memory.  The ends of a long step repeat: at most 2
 * pp micro-batches are replayed. */
static double dp_zero2_replay(const pt_pipe *pp_, const double *f, const double *b, const int *uo, const double *ub,
                              const double *ug, const double *ua, const pt_cost_dp *k, double p2p)
{
    pt_pipe p = *pp_;
    int V = p.V, PP = p.pp, NU = uo[V];
    int64_t M = p.M;
    double out = HUGE_VAL;
    dp_times x = {&p, NULL, NULL};
    x.first_f = malloc((size_t)(PP * V) * sizeof *x.first_f);
    if (!x.first_f) return HUGE_VAL;
    {
        pt_pipe_replay r = {0, 0, NULL}, r2 = {0, 0, NULL};
        int64_t Mr = M <= 2 * (int64_t)PP ? M : 2 * (int64_t)PP; /* the ends repeat from there on */
        double *gend = malloc((size_t)PP * (size_t)NU * sizeof *gend);
        dp_busy bz = {&p, uo, ub, ua, NULL, NULL, NULL, NULL, k->slow_c};
        bz.e = calloc((size_t)PP, sizeof *bz.e);
        bz.left = calloc((size_t)PP * (size_t)V, sizeof *bz.left);
        bz.fdone = calloc((size_t)PP * (size_t)V, 1);
        x.passes = bz.left;
        for (int64_t i = 0; i < (int64_t)PP * V; i++) x.first_f[i] = -1.0;
        p.M = Mr;
        if (!bz.e || !bz.left || !bz.fdone || !gend) goto zero2_out;
        {
            pt_pipe_hook watch = {dp_times_start, dp_times_run, &x};
            if (pt_pipe_run_hooked(&p, f, b, NULL, p2p, &watch, NULL, NULL, &r) != 0) goto zero2_out;
        }
        if (k->gather + k->e_gather > 0) {
            /* each rank's gathers issued at the start, in the order it
             * first runs its virtual stages */
            for (int d = 0; d < PP; d++) {
                int ord[64], no = 0;
                double G = 0;
                for (int vs = 0; vs < V && no < 64; vs++)
                    if (x.first_f[d * V + vs] >= 0) ord[no++] = vs;
                for (int i = 1; i < no; i++)
                    for (int j = i; j > 0 && x.first_f[d * V + ord[j]] < x.first_f[d * V + ord[j - 1]]; j--) {
                        int t = ord[j];
                        ord[j] = ord[j - 1], ord[j - 1] = t;
                    }
                for (int i = 0; i < no; i++)
                    for (int u = uo[ord[i]]; u < uo[ord[i] + 1]; u++)
                        G += ug[u], gend[(size_t)d * (size_t)NU + (size_t)u] = G;
                bz.e[d] = G;
            }
            bz.gend = gend;
        }
        {
            /* the order again, with each rank's stream beside it */
            pt_pipe_hook slowed = {dp_times_start, dp_busy_run, &bz};
            double end;
            if (pt_pipe_run_hooked(&p, f, b, NULL, p2p, &slowed, NULL, NULL, &r2) != 0) goto zero2_out;
            end = r2.makespan;
            for (int d = 0; d < PP; d++)
                if (bz.e[d] > end) end = bz.e[d];
            out = end > r.makespan ? end - r.makespan : 0.0;
        }
    zero2_out:
        free(bz.e);
        free(bz.left);
        free(bz.fdone);
        free(gend);
    }
    free(x.first_f);
    return out;
}

/* ZeRO-3 against the replayed order, as src/sim runs it: each rank's FIFO
 * stream held as the time it would drain by with the compute idle (every
 * collective is issued at the rank's present, so the stream never idles
 * before then).  An operation but a weight-gradient pass gathers its first
 * bucket's parameters when it can start, each bucket prefetching the next
 * one's as its compute starts and waiting for its own; every gradient pass
 * (B, or W for a split schedule) queues each bucket's reduce-scatter as the
 * bucket ends.  Compute beside a busy stream runs 1/slow_c as fast, the
 * stream 1/slow as fast. */
typedef struct dp_z3 {
    const pt_pipe *p;
    const int *uo;              /* the virtual stages' buckets            */
    const double *uf, *ub;      /* ... forward and backward compute        */
    const double *ug, *ur;      /* ... gather and reduce-scatter seconds   */
    double *e;                  /* per rank: when its stream drains         */
    double sc, sx;
} dp_z3;

/* Queues dur seconds on a stream draining at *e at time t: its end. */
static double dp_z3_issue(double *e, double t, double dur)
{
    if (*e < t) *e = t;
    return *e += dur;
}

/* An operation but a weight-gradient pass starts once its first bucket's
 * gather, issued when it could start, has ended. */
static double dp_z3_start(void *ctx, int d, const pt_pipe_op *o, double t)
{
    const dp_z3 *z = ctx;
    int u = o->kind == PT_OP_F ? z->uo[o->vs] : z->uo[o->vs + 1] - 1;
    double e = z->e[d] > t ? z->e[d] : t;
    return o->kind != PT_OP_W && z->ug[u] > 0 ? e + z->ug[u] : t;
}

static double dp_z3_run(void *ctx, int d, const pt_pipe_op *o, double ready, double t0, double dur)
{
    dp_z3 *z = ctx;
    int a = z->uo[o->vs], n = z->uo[o->vs + 1] - a, back = o->kind != PT_OP_F;
    int g = o->kind != PT_OP_W, r = z->p->split ? o->kind == PT_OP_W : o->kind == PT_OP_B;
    const double *w = back ? z->ub : z->uf;
    double *e = &z->e[d], t = ready, tot = 0, ge = -HUGE_VAL;
    for (int j = a; j < a + n; j++) tot += w[j];
    if (g) ge = dp_z3_issue(e, ready, z->ug[back ? a + n - 1 : a]);
    for (int j = 0; j < n; j++) {
        int u = back ? a + n - 1 - j : a + j;
        if (g && ge > t) t = ge;
        if (j == 0 && t0 > t) t = t0;
        if (g && j + 1 < n) ge = dp_z3_issue(e, t, z->ug[back ? u - 1 : u + 1]);
        t = dp_stream_compute(t, tot > 0 ? dur * w[u] / tot : dur / n, e, g && j + 1 < n ? &ge : NULL, z->sc, z->sx);
        if (r && z->ur[u] > 0) dp_z3_issue(e, t, z->ur[u]);
    }
    return t;
}

/* How much later than the bare order the step ends with ZeRO-3's
 * collectives (dp_z3) beside it, M micro-batches; HUGE_VAL when out of
 * memory. */
static double dp_z3_once(const pt_pipe *pp_, int64_t M, const double *f, const double *b, const int *uo,
                         const double *uf, const double *ub, const double *ug, const double *ur, const pt_cost_dp *k,
                         double p2p)
{
    pt_pipe p = *pp_;
    pt_pipe_replay r = {0, 0, NULL}, r2 = {0, 0, NULL};
    dp_z3 z = {&p, uo, uf, ub, ug, ur, NULL, k->slow_c, k->slow};
    pt_pipe_hook hook = {dp_z3_start, dp_z3_run, &z};
    double end, out = HUGE_VAL;
    p.M = M;
    z.e = calloc((size_t)p.pp, sizeof *z.e);
    if (!z.e) return HUGE_VAL;
    if (pt_pipe_run(&p, f, b, NULL, p2p, NULL, NULL, &r) == 0 &&
        pt_pipe_run_hooked(&p, f, b, NULL, p2p, &hook, NULL, NULL, &r2) == 0) {
        end = r2.makespan;
        for (int d = 0; d < p.pp; d++)
            if (z.e[d] > end) end = z.e[d];
        out = end > r.makespan ? end - r.makespan : 0.0;
    }
    free(z.e);
    return out;
}

/* dp_z3_once for p->M micro-batches.  The collectives grow with them: above
 * 2L, L and 2L are replayed and the rest extrapolated (affine, as src/sim
 * extrapolates a long step); L the first multiple of lcm(pp, 2) from 4,
 * twice that for zb-v and dualpipe, whose fill and drain are twice as long
 * (windows of one lcm put llama3-8b's zb-v steps 3.9% and gpt3-175b's
 * dualpipe 3.2% off the simulator, llama2-7b's pp=2 1F1B 1.1%). */
static double dp_zero3_replay(const pt_pipe *p, const double *f, const double *b, const int *uo, const double *uf,
                              const double *ub, const double *ug, const double *ur, const pt_cost_dp *k, double p2p)
{
    int64_t q = p->pp % 2 ? 2 * (int64_t)p->pp : p->pp, L = (4 + q - 1) / q * q, M = p->M;
    double e1, e2;
    if (p->schedule == PT_SCHED_ZBV || p->dual) L *= 2; /* fill and drain twice as long */
    if (M <= 2 * L) return dp_z3_once(p, M, f, b, uo, uf, ub, ug, ur, k, p2p);
    e1 = dp_z3_once(p, L, f, b, uo, uf, ub, ug, ur, k, p2p);
    e2 = dp_z3_once(p, 2 * L, f, b, uo, uf, ub, ug, ur, k, p2p);
    if (e1 == HUGE_VAL || e2 == HUGE_VAL) return HUGE_VAL;
    return e1 + (e2 - e1) * (double)(M - L) / (double)L;
}

static double dp_replayed(const pt_model *m, const pt_job *job, const pt_strategy *st, const pt_cost_prep *pr,
                          const pt_cost_dp *k, double Pst, double Pexp, int64_t M, double p2p)
{
    pt_pipe p;
    int V, NU;
    int *lo = NULL;
    double *buf = NULL, *f, *b, *a, *uf, *ub, *ug, *ua, *ur, out = HUGE_VAL;
    double ra = Pst > 0 ? k->gather / Pst : 0, rg = Pst > 0 ? k->grad / Pst : 0, rr = Pst > 0 ? k->scatter / Pst : 0;
    double era = Pexp > 0 ? k->e_gather / Pexp : 0, erg = Pexp > 0 ? k->e_grad / Pexp : 0;
    double err = Pexp > 0 ? k->e_scatter / Pexp : 0;
    int *uo = NULL;
    pt_pipe_init(&p, st, M);
    V = p.V;
    NU = (int)m->layers + 2;
    lo = malloc((size_t)(V + 1) * sizeof *lo);
    uo = malloc((size_t)(V + 1) * sizeof *uo);
    buf = malloc((size_t)(3 * V + 5 * NU) * sizeof *buf);
    if (!lo || !uo || !buf) goto out;
    f = buf, b = f + V, a = b + V, uf = a + V, ub = uf + NU, ug = ub + NU, ua = ug + NU, ur = ua + NU;
    pt_cost_vstages(m, job, st, pr, &p, lo, f, b, a);
    /* the buckets of each virtual stage, forward order: embedding, layers,
     * output layer; compute split by layer as the stage's time allows */
    for (int vs = 0, j = 0; vs < V; vs++) {
        int n = lo[vs + 1] - lo[vs], j0;
        double xf = 0, xb = 0, P, Pe = 0;
        uo[vs] = j;
        if (vs == 0) {
            P = pt_cost_bucket_params(m, st, 0, 0, 0, NULL);
            uf[j] = pr->emb_f + pr->emb_tp, ub[j] = pr->emb_b + (st->sp ? pr->emb_tp : 0.0);
            ug[j] = ra * P, ua[j] = rg * P, ur[j] = rr * P;
            xf += uf[j], xb += ub[j], j++;
        }
        j0 = j;
        for (int l = lo[vs]; l < lo[vs + 1]; l++, j++) {
            P = pt_cost_bucket_params(m, st, 1, l, 0, &Pe);
            ug[j] = ra * P + era * Pe, ua[j] = rg * P + erg * Pe, ur[j] = rr * P + err * Pe;
        }
        if (vs == V - 1) {
            P = pt_cost_bucket_params(m, st, 2, 0, 0, NULL);
            uf[j] = pr->head_f, ub[j] = pr->head_b;
            ug[j] = ra * P, ua[j] = rg * P, ur[j] = rr * P;
            xf += uf[j], xb += ub[j], j++;
        }
        for (int i = j0; i < j0 + n; i++) {
            uf[i] = f[vs] > xf ? (f[vs] - xf) / n : 0.0;
            ub[i] = b[vs] > xb ? (b[vs] - xb) / n : 0.0;
        }
        uo[vs + 1] = j;
    }
    out = k->zero >= 3 ? dp_zero3_replay(&p, f, b, uo, uf, ub, ug, ur, k, p2p)
                       : dp_zero2_replay(&p, f, b, uo, ub, ug, ua, k, p2p);
out:
    free(lo);
    free(uo);
    free(buf);
    return out;
}

#define DP_MAX_CHUNKS 64
/* One stage's part of the step's exposed data-parallel time:
 *  - ZeRO 0-2 (pp=1 only: with a pipeline dp_stages_replay replays them):
 *    the reductions of the last micro-batch's gradient pass (B, or W for a
 *    split schedule) draining past it (dp_drain), the wait for the
 *    parameter gathers issued at the step's start (ZeRO 1-2, dp_fill), and
 *    what both slow of the compute they overlap (dp_contention);
 *  - ZeRO-3: each operation's gathers and reduce-scatters per micro-batch
 *    (dp_gather_op, dp_backward_op), the stage's pace with them, and a
 *    split schedule's last weight-gradient reduce-scatters. */
typedef struct dp_part {
    double drain, fill, e, pace, w;
    double over; /* ZeRO 0-2: collectives beside compute the step waits for */
} dp_part;

static void dp_stage_part(const pt_strategy *st, const pt_cost_dp *k, double Pst, double Pexp,
                          const pt_cost_dp_stage *s, dp_part *o)
{
    dpseg sg[2 * DP_MAX_CHUNKS + 2];
    int split = st->schedule == PT_SCHED_ZBH1 || st->schedule == PT_SCHED_ZBV || st->schedule == PT_SCHED_DUALPIPE;
    int il = st->schedule == PT_SCHED_INTERLEAVED, v = il ? st->vpp : 1, first = s->first, last = s->last;
    double half = split ? 0.5 : 1.0;
    double rg = Pst > 0 ? k->grad / Pst : 0, ra = Pst > 0 ? k->gather / Pst : 0, rr = Pst > 0 ? k->scatter / Pst : 0;
    double erg = Pexp > 0 ? k->e_grad / Pexp : 0, era = Pexp > 0 ? k->e_gather / Pexp : 0;
    double err = Pexp > 0 ? k->e_scatter / Pexp : 0;
    double P = s->P, Pe = s->Pe, Pemb = first ? s->Pemb : 0.0, Phead = last ? s->Phead : 0.0, b = s->b;
    int64_t ni = s->layers < 1 ? 1 : s->layers, n1;
    dpseg L, E, H;
    if (v > DP_MAX_CHUNKS) v = DP_MAX_CHUNKS;
    n1 = ni / v > 0 ? ni / v : 1;
    memset(o, 0, sizeof *o);
    L = (dpseg){1, ra * P + era * Pe, s->f, 0};
    E = (dpseg){first, ra * Pemb, s->emb_f, 0};
    H = (dpseg){last, ra * Phead, s->head_f, 0};
    if (k->zero <= 2) {
        /* the last gradient pass, in its order: the output layer, the
         * layers (last to first), the embedding; the overlap charged up to
         * the bucket from whose release on the stream sets the pace */
        int64_t at;
        assert(st->pp == 1);
        sg[0] = (dpseg){H.n, 0, s->head_b * half, rg * Phead};
        sg[1] = (dpseg){ni, 0, b * half, rg * P + erg * Pe};
        sg[2] = (dpseg){E.n, 0, s->emb_b * half, rg * Pemb};
        o->drain = dp_drain_at(sg, 3, &at);
        o->over = dp_beside(sg, 3, at < 0 ? dpseg_count(sg, 3) : at + 1);
        if (k->gather + k->e_gather > 0) {
            /* the parameters in the order the forward uses them */
            sg[0] = E, sg[1] = L, sg[1].n = ni, sg[2] = H;
            o->fill = dp_fill_at(sg, 3, &at);
            o->over += dp_fill_beside(sg, 3, at);
        }
    } else {
        double e = 0, ew = 0;
        for (int i = 0; i < v; i++) {
            int64_t nc = i < v - 1 ? n1 : ni - n1 * (v - 1);
            int fe = i == 0 && first, fh = i == v - 1 && last;
            /* forward: embedding, layers, output layer */
            sg[0] = E, sg[0].n = fe;
            sg[1] = L, sg[1].n = nc;
            sg[2] = H, sg[2].n = fh;
            e += dp_gather_op(sg, 3, k);
            /* backward: the other way, reduce-scatters after */
            sg[0] = H, sg[0].n = fh, sg[0].c = s->head_b * half, sg[0].r = rr * Phead;
            sg[1] = L, sg[1].n = nc, sg[1].c = b * half, sg[1].r = rr * P + err * Pe;
            sg[2] = E, sg[2].n = fe, sg[2].c = s->emb_b * half, sg[2].r = rr * Pemb;
            if (split) {
                e += dp_gather_op(sg, 3, k);
                for (int j = 0; j < 3; j++) sg[j].g = 0;
                ew += dp_drain(sg, 3); /* off the critical path in the fill and drain */
            } else {
                e += dp_backward_op(sg, 3, k);
            }
        }
        /* the stage's pace: its compute and what its collectives expose,
         * but no faster than its stream carries them */
        {
            double stream = (2.0 * (L.g * (double)ni + E.g * first + H.g * last) +
                             (rr * P + err * Pe) * (double)ni + rr * (Pemb + Phead));
            double pace = s->t + e;
            if (stream > pace) pace = stream;
            o->pace = pace;
        }
        o->e = e;
        o->w = ew;
    }
}

/* ZeRO 0-2 with a pipeline (pt_cost_dp_stages_s): the virtual stages and
 * their buckets from one entry per stage (s[d] for rank d; an interleaved
 * rank's layers in st->vpp chunks, the last taking the remainder), then
 * dp_zero2_replay. */
static double dp_stages_replay(const pt_strategy *st, const pt_cost_dp *k, double Pst, double Pexp, int64_t mb,
                               const pt_cost_dp_stage *s, int ns, double p2p)
{
    pt_pipe p;
    int V, PP = st->pp, NU = 2, *uo = NULL;
    double *buf = NULL, out = HUGE_VAL;
    double ra = Pst > 0 ? k->gather / Pst : 0, rg = Pst > 0 ? k->grad / Pst : 0, rr = Pst > 0 ? k->scatter / Pst : 0;
    double era = Pexp > 0 ? k->e_gather / Pexp : 0, erg = Pexp > 0 ? k->e_grad / Pexp : 0;
    double err = Pexp > 0 ? k->e_scatter / Pexp : 0;
    pt_pipe_init(&p, st, mb);
    V = p.V;
    assert(ns == PP && !pt_pipe_replayed(st));
    for (int d = 0; d < ns; d++) NU += (int)(s[d].layers > 0 ? s[d].layers : 1);
    uo = malloc((size_t)(V + 1) * sizeof *uo);
    buf = malloc((size_t)(2 * V + 5 * NU) * sizeof *buf);
    if (uo && buf) {
        double *f = buf, *b = f + V, *uf = b + V, *ub = uf + NU, *ug = ub + NU, *ua = ug + NU, *ur = ua + NU;
        int v = V / PP;
        for (int vs = 0, j = 0; vs < V; vs++) {
            const pt_cost_dp_stage *e = &s[pt_pipe_dev(&p, 0, vs)];
            int c = vs / PP;
            int64_t ni = e->layers < 1 ? 1 : e->layers, n1 = ni / v > 0 ? ni / v : 1;
            int64_t n = c < v - 1 ? n1 : ni - n1 * (v - 1);
            uo[vs] = j;
            f[vs] = b[vs] = 0;
            if (vs == 0)
                uf[j] = e->emb_f, ub[j] = e->emb_b, ug[j] = ra * e->Pemb, ua[j] = rg * e->Pemb, ur[j] = rr * e->Pemb,
                j++;
            for (int64_t l = 0; l < n && j < NU; l++, j++)
                uf[j] = e->f, ub[j] = e->b, ug[j] = ra * e->P + era * e->Pe, ua[j] = rg * e->P + erg * e->Pe,
                ur[j] = rr * e->P + err * e->Pe;
            if (vs == V - 1 && j < NU)
                uf[j] = e->head_f, ub[j] = e->head_b, ug[j] = ra * e->Phead, ua[j] = rg * e->Phead,
                ur[j] = rr * e->Phead, j++;
            for (int u = uo[vs]; u < j; u++) f[vs] += uf[u], b[vs] += ub[u];
            uo[vs + 1] = j;
        }
        out = k->zero >= 3 ? dp_zero3_replay(&p, f, b, uo, uf, ub, ug, ur, k, p2p)
                           : dp_zero2_replay(&p, f, b, uo, ub, ug, ua, k, p2p);
    }
    free(uo);
    free(buf);
    return out;
}

static double dp_stages(const pt_strategy *st, const pt_cost_dp *k, double Pst, double Pexp, int64_t mb,
                        const pt_cost_dp_stage *s, int ns)
{
    double best_g = 0, best_3 = 0, best_w = 0, chain = 0, fill = 0, slowest = 0, over = 0;
    double vil = st->schedule == PT_SCHED_INTERLEAVED ? st->vpp : 1.0;
    assert(ns >= 1);
    for (int i = 0; i < ns; i++) {
        dp_part o;
        dp_stage_part(st, k, Pst, Pexp, &s[i], &o);
        if (k->zero <= 2) {
            if (o.drain > best_g) best_g = o.drain;
            if (o.fill > fill) fill = o.fill;
            over += s[i].count * o.over;
        } else {
            if (o.pace > best_3) best_3 = o.pace;
            if (s[i].t > slowest) slowest = s[i].t;
            chain += s[i].count * o.e;
            if (o.w > best_w) best_w = o.w;
        }
    }
    /* ZeRO-3: every micro-batch but one at the pace of the stage slowest
     * with its collectives beyond the slowest without (which the step
     * already counts); the first micro-batch's forward and the last one's
     * backward pass every stage once (the fill and the drain); the last
     * weight-gradient pass's reduce-scatters */
    if (k->zero <= 2) return best_g + fill + dp_contention(k, over);
    return ((double)mb - 1.0 / vil) * (best_3 - slowest) + chain / vil + best_w;
}

double pt_cost_dp_stages_s(const pt_strategy *st, const pt_cost_dp *k, double Pst, double Pexp, int64_t mb,
                           const pt_cost_dp_stage *s, int ns, double p2p)
{
    /* one entry per stage of a pipeline: replayed (ZeRO-3 under zb-v or
     * dualpipe comes here only from src/cost/hetero.c: closed form) */
    if (st->pp > 1 && ns == st->pp && (k->zero <= 2 || !pt_pipe_replayed(st)))
        return dp_stages_replay(st, k, Pst, Pexp, mb, s, ns, p2p);
    return dp_stages(st, k, Pst, Pexp, mb, s, ns);
}

/* dp_exposed_s's replays remembered, per thread (the search's workers
 * price in parallel): a direct-mapped table keyed by every input the replay
 * reads, compared whole, so a hit returns the very number the replay
 * would. */
#define DP_MEMO_KEY (16 + 3 * 13)
#define DP_MEMO_SLOTS 512
typedef struct dp_memo {
    double key[DP_MEMO_KEY];
    double value;
    int used;
} dp_memo;
static _Thread_local dp_memo dp_memo_tab[DP_MEMO_SLOTS];

static uint64_t dp_memo_hash(const double *key)
{
    const unsigned char *b = (const unsigned char *)key;
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < DP_MEMO_KEY * sizeof *key; i++) h = (h ^ b[i]) * 1099511628211u;
    return h;
}

/* The data-parallel time a step exposes beyond its compute: each stage
 * class (stage_ends) as a pt_cost_dp_stage -- its buckets' compute from its
 * per-micro-batch work (stage_work, the embedding's and output layer's own
 * times apart), their collectives as shares of the largest stage's (Pst,
 * Pexp: pt_cost_dp_colls), the middle class standing for pp - 2 stages
 * (one entry per stage where ZeRO 0-2 is replayed) -- then
 * pt_cost_dp_stages_s.  zb-v and dualpipe: dp_replayed. */
static double dp_exposed_s(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                           const pt_cost_prep *pr, int *skipped, double Pst, double Pexp, int64_t mb,
                           const double *sfw, const double *sbw, double p2p)
{
    pt_cost_dp k;
    pt_cost_dp_stage sc[3];
    int zbv = st->pp > 1 && st->schedule == PT_SCHED_ZBV, dual = st->pp > 1 && st->schedule == PT_SCHED_DUALPIPE;
    int nsc = 0;
    /* any ZeRO stage with a pipeline: how the collectives' slowdowns of
     * each rank's compute add up along the order has no closed form (they
     * pass down the drain chain one rank after another, or happen on every
     * rank at once), nor how ZeRO-3's reduce-scatters overlap the rank's
     * later work: replayed (dp_stages_replay) */
    int replay = st->pp > 1;
    pt_cost_dp_colls(c, job, st, Pst, Pexp, &k);
    if (k.grad + k.gather + k.scatter + k.e_grad + k.e_gather + k.e_scatter <= 0) return 0.0;
    if ((zbv || dual || replay) && skipped) { /* a replay adds, never takes away */
        *skipped = 1;
        return 0.0;
    }
    if (zbv || dual) return dp_replayed(m, job, st, pr, &k, Pst, Pexp, mb, p2p);
    for (int which = 0; which < 3; which++) {
        pt_cost_dp_stage *s = &sc[nsc++];
        int first, last;
        work w;
        double n, Pe = 0, P, Pemb, Phead;
        double ef = pr->emb_f + pr->emb_tp, eb = pr->emb_b + (st->sp ? pr->emb_tp : 0.0);
        int64_t ni;
        if (which == 2 && st->pp < 3) {
            nsc--;
            break;
        }
        stage_ends(st, which, &first, &last);
        stage_work(m, st, pr, first, last, &w);
        n = layers_on(m, st, first, last);
        P = stage_params_split(m, st, first, last, &Pe);
        Pemb = first ? pt_cost_bucket_params(m, st, 0, 0, 0, NULL) : 0.0;
        Phead = last ? pt_cost_bucket_params(m, st, 2, 0, st->pp > 1 && !first, NULL) : 0.0;
        ni = (int64_t)(n + 0.5);
        if (ni < 1) ni = 1;
        s->first = first, s->last = last, s->layers = ni;
        s->f = (w.f + w.xf + w.cf + w.ef - (first ? ef : 0.0) - (last ? pr->head_f : 0.0)) / (n > 0 ? n : 1.0);
        s->b = (w.b + w.xb + w.cb + w.eb - (first ? eb : 0.0) - (last ? pr->head_b : 0.0)) / (n > 0 ? n : 1.0);
        s->emb_f = ef, s->emb_b = eb, s->head_f = pr->head_f, s->head_b = pr->head_b;
        s->P = (P - Pemb - Phead) / (double)ni, s->Pe = Pe / (double)ni;
        s->Pemb = Pemb, s->Phead = Phead;
        s->t = sfw[which] + sbw[which];
        s->count = which == 2 ? st->pp - 2.0 : which == 1 && st->pp == 1 ? 0.0 : 1.0;
    }
    if (replay) {
        /* one entry per stage: the first, the middle ones, the last; the
         * search prices many strategies that differ only where the
         * collectives do not look (offload, ZeRO 1 or 2): remembered */
        double key[DP_MEMO_KEY], e;
        dp_memo *slot;
        pt_cost_dp_stage *one;
        int n = 0;
        key[n++] = st->schedule, key[n++] = st->pp, key[n++] = st->vpp, key[n++] = (double)mb, key[n++] = k.zero;
        key[n++] = k.grad, key[n++] = k.gather, key[n++] = k.scatter, key[n++] = k.e_grad, key[n++] = k.e_gather;
        key[n++] = k.e_scatter, key[n++] = k.slow, key[n++] = k.slow_c, key[n++] = Pst, key[n++] = Pexp;
        key[n++] = p2p;
        for (int i = 0; i < 3; i++) {
            const pt_cost_dp_stage *u = &sc[i < nsc ? i : 0];
            key[n++] = u->first, key[n++] = u->last, key[n++] = (double)u->layers, key[n++] = u->f, key[n++] = u->b;
            key[n++] = u->emb_f, key[n++] = u->emb_b, key[n++] = u->head_f, key[n++] = u->head_b, key[n++] = u->P;
            key[n++] = u->Pe, key[n++] = u->Pemb, key[n++] = u->Phead;
        }
        assert(n == DP_MEMO_KEY);
        slot = &dp_memo_tab[dp_memo_hash(key) % DP_MEMO_SLOTS];
        if (slot->used && memcmp(slot->key, key, sizeof key) == 0) return slot->value;
        one = malloc((size_t)st->pp * sizeof *one);
        if (!one) return HUGE_VAL;
        for (int d = 0; d < st->pp; d++) one[d] = sc[d == 0 ? 0 : d == st->pp - 1 ? 1 : 2], one[d].count = 1.0;
        e = dp_stages_replay(st, &k, Pst, Pexp, mb, one, st->pp, p2p);
        free(one);
        if (e < HUGE_VAL) memcpy(slot->key, key, sizeof key), slot->value = e, slot->used = 1;
        return e;
    }
    return dp_stages(st, &k, Pst, Pexp, mb, sc, nsc);
}

static void eval_prepared(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                          const pt_cost_prep *pr, int *skipped, pt_cost *out);

void pt_cost_eval_prepared(const pt_model *m, const pt_cluster *c, const pt_job *job,
                           const pt_strategy *st, const pt_cost_prep *pr, pt_cost *out)
{
    eval_prepared(m, c, job, st, pr, NULL, out);
}

int pt_cost_eval_bound(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                       const pt_cost_prep *pr, pt_cost *out)
{
    int skipped = 0;
    eval_prepared(m, c, job, st, pr, &skipped, out);
    return !skipped;
}

/* skipped (NULL: price in full): the replayed data-parallel exposure taken
 * as 0, *skipped set where there was one (pt_cost_eval_bound) */
static void eval_prepared(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                          const pt_cost_prep *pr, int *skipped, pt_cost *out)
{
    const pt_device *dev = &c->dev;
    const hw *hp = &pr->h;
    double t = st->tp;
    double hd = (double)m->hidden, V = (double)m->vocab;
    double tf, tb, tpf, tpb, cpf, cpb, epf = 0, epb = 0, per_mb, ep_mb;
    double p2p, p2p_one, bubble, tw, mbd, sfw[3], sbw[3], fill_f, fill_b, rpeak[3] = {0, 0, 0};
    double ndp = (double)pt_strategy_group_size(st, PT_GROUP_DP_CP), nmb;
    double Pst, Pexp = 0, dp_exposed = 0, opt_t, off_t = 0;
    int64_t mb = st->gbs / ((int64_t)st->mbs * st->dp);
    struct { double flops_f, flops_rc; } L;

    assert(st->tp >= 1 && st->pp >= 1 && st->dp >= 1 && st->cp >= 1 && st->mbs >= 1);
    assert(pr->mbs == st->mbs && pr->tp == st->tp && pr->cp == st->cp && pr->sp == st->sp &&
           pr->recompute == st->recompute);
    memset(out, 0, sizeof *out);
    L.flops_f = pr->flops_f;
    L.flops_rc = pr->flops_rc;

    /* The slowest stage sets the pace: the first (embedding), the last
     * (logits and loss) or, with uneven stages, a middle one. */
    per_mb = -1;
    tf = tb = tpf = tpb = cpf = cpb = 0;
    sfw[0] = sfw[1] = sfw[2] = sbw[0] = sbw[1] = sbw[2] = 0;
    for (int which = 0; which < 3; which++) {
        int first, last;
        work w;
        double tot;
        if (which == 2 && st->pp < 3) break;
        stage_ends(st, which, &first, &last);
        if (st->schedule == PT_SCHED_DUALPIPE && which < 2 && st->pp > 1) {
            /* DualPipe's rank 0 (and pp-1) runs half the micro-batches
             * through the first stage and half through the last */
            work w2;
            stage_work(m, st, pr, 1, 0, &w);
            stage_work(m, st, pr, 0, 1, &w2);
            w.f = 0.5 * (w.f + w2.f), w.b = 0.5 * (w.b + w2.b), w.xf = 0.5 * (w.xf + w2.xf);
            w.xb = 0.5 * (w.xb + w2.xb), w.cf = 0.5 * (w.cf + w2.cf), w.cb = 0.5 * (w.cb + w2.cb);
            w.ef = 0.5 * (w.ef + w2.ef), w.eb = 0.5 * (w.eb + w2.eb);
        } else {
            stage_work(m, st, pr, first, last, &w);
        }
        tot = w.f + w.b + w.xf + w.xb + w.cf + w.cb + w.ef + w.eb;
        sfw[which] = w.f + w.xf + w.cf + w.ef;
        sbw[which] = w.b + w.xb + w.cb + w.eb;
        if (tot > per_mb) {
            per_mb = tot;
            tf = w.f, tb = w.b, tpf = w.xf, tpb = w.xb, cpf = w.cf, cpb = w.cb, epf = w.ef, epb = w.eb;
        }
    }
    nmb = (double)mb;
    /* Expert all-to-all per micro-batch: on the critical path (Megatron's
     * 1F1B waits on it), except with DualPipe, which overlaps one
     * micro-batch's all-to-all with another's compute (DeepSeek-V3 report,
     * section 3.2.1): only what overlapped() leaves of it shows. */
    ep_mb = epf + epb;
    if (st->schedule == PT_SCHED_DUALPIPE && ep_mb > 0) ep_mb = overlapped(ep_mb, tf + tb);

    /* Pipeline point-to-point: b*s*h/t per crossing (scatter/gather or SP). */
    p2p = p2p_one = 0;
    if (st->pp > 1) {
        double bytes = (double)job->seq_len / st->cp * st->mbs * hd * 2.0 / t;
        p2p_one = pt_p2p_time(c, bytes_i64(bytes), pt_strategy_group_size(st, PT_GROUP_PP),
                              pt_strategy_stride(st, PT_GROUP_PP));
        p2p = (nmb * st->vpp + st->pp - 1.0) * 2.0 * p2p_one;
    }
    /* Bubble (pp-1 pipeline fills and drains).  The fill and the drain pass
     * once through every stage but the slowest, which sets the pace of the
     * rest: with stages of forward F_i and backward B_i, the fill is
     * sum_i F_i - F_slowest and the drain sum_i B_i - B_slowest
     * ((p-1)(t_f+t_b) when the stages are equal; the first stage's
     * embedding and the last's logits make them unequal). */
    mbd = tf + tpf + cpf + epf;           /* forward of one micro-batch, all layers */
    tw = 0.5 * (tb + tpb + cpb + epb);    /* weight-gradient half of the backward  */
    fill_f = fill_b = 0;
    if (st->pp > 1) {
        fill_f = sfw[0] + sfw[1] + (st->pp - 2.0) * (st->pp > 2 ? sfw[2] : 0.0) - mbd;
        fill_b = sbw[0] + sbw[1] + (st->pp - 2.0) * (st->pp > 2 ? sbw[2] : 0.0) - 2.0 * tw;
    }
    switch (st->schedule) {
    case PT_SCHED_GPIPE:
    case PT_SCHED_1F1B: bubble = fill_f + fill_b; break;
    case PT_SCHED_INTERLEAVED: bubble = (fill_f + fill_b) / st->vpp; break;
    case PT_SCHED_ZBH1:
        /* Qi et al. 2024 ZB-H1 (section 3.1): (p-1)(T_F + T_B - T_W), which
         * is (p-1) T_F here since the input- and weight-gradient halves of
         * the backward are priced equal.  That needs p micro-batches in
         * flight: with src/sim's order (1F1B's F and B, stage i's W passes
         * i backwards late) one micro-batch drains through the other
         * stages' input-gradient halves, sum_i B_i/2 - B_slowest/2 (that is
         * (p-1) T_B), and each further one hides one T_W of it. */
    {
        /* the last pass is the first stage's weight gradient, not the slowest's */
        double drain = 0.5 * fill_b + (st->pp > 1 ? 0.5 * sbw[0] - tw : 0.0) - (nmb - 1.0) * tw;
        bubble = fill_f + (drain > 0 ? drain : 0.0);
        break;
    }
    case PT_SCHED_ZBV:
    case PT_SCHED_DUALPIPE: {
        /* the order replayed (replay_pipe): what the pipeline does beyond
         * the busiest rank's work and the transfers counted above is the
         * bubble; transfers the order hides come off pp_comm */
        double T;
        if (st->pp == 1) {
            bubble = 0;
            break;
        }
        if (replay_pipe(m, job, st, pr, mb, p2p_one, &T, rpeak) != 0) {
            bubble = HUGE_VAL; /* out of memory: never chosen */
            break;
        }
        bubble = T - nmb * (tf + tb + tpf + tpb + cpf + cpb + ep_mb) - p2p;
        if (bubble < 0) {
            p2p = p2p + bubble > 0 ? p2p + bubble : 0.0;
            bubble = 0;
        }
        break;
    }
    default: bubble = 0; break;
    }

    /* Data parallelism over dp*cp ranks (stride tp); a MoE model's routed
     * experts over their expert data-parallel group (stride etp*ep). */
    Pst = stage_params_split(m, st, 1, st->pp == 1, &Pexp);
    {
        double Pe2 = 0, Plast = stage_params_split(m, st, st->pp == 1, 1, &Pe2);
        if (Plast + Pe2 > Pst + Pexp) {
            Pst = Plast;
            Pexp = Pe2;
        }
    }
    dp_exposed = dp_exposed_s(m, c, job, st, pr, skipped, Pst, Pexp, mb, sfw, sbw, p2p_one);
    /* Tied embeddings across pipeline stages: first and last stage all-reduce
     * the embedding gradient once per step. */
    p2p += pt_cost_tied_embedding_s(m, c, st);

    /* Optimizer step on this device's shard. */
    {
        double shard = st->zero >= 1 ? Pst / ndp : Pst;
        if (Pexp > 0) shard += st->zero >= 1 ? Pexp / expert_dp(st) : Pexp;
        if (st->offload == PT_OFF_OPTIMIZER) {
            double host = dev->host_bw_GBps * 1e9;
            opt_t = shard * 4.0 / host + shard * 2.0 / host + shard / CPU_ADAM_PARAMS_PER_S;
        } else {
            opt_t = pt_roofline_ew_s(hp, shard * pt_cost_adam_bytes(job));
        }
        if (st->offload == PT_OFF_PARAMS) {
            /* each micro-batch fetches this rank's parameter shard from host
             * memory for forward and for backward */
            double host = dev->host_bw_GBps * 1e9;
            double fetch = 2.0 * (Pst / ndp) * 2.0 / host;
            double hidden = tf + tb;
            off_t = nmb * (fetch > hidden ? fetch - hidden : 0.0) + fetch / 2.0;
            opt_t = shard * 4.0 / host + shard * 2.0 / host + shard / CPU_ADAM_PARAMS_PER_S;
        }
    }

    out->microbatches = mb;
    out->time.compute = nmb * (tf + tb);
    out->time.tp_comm = nmb * (tpf + tpb);
    out->time.cp_comm = nmb * (cpf + cpb);
    out->time.ep_comm = nmb * ep_mb;
    out->time.pp_comm = p2p;
    out->time.dp_comm = dp_exposed;
    out->time.bubble = bubble;
    out->time.optimizer = opt_t;
    out->time.offload = off_t;
    out->step_time_s = out->time.compute + out->time.tp_comm + out->time.cp_comm +
                       out->time.ep_comm + out->time.pp_comm + out->time.dp_comm + out->time.bubble +
                       out->time.optimizer + out->time.offload;

    {
        double n = (double)c->devices;
        double tokens = (double)st->gbs * (double)job->seq_len;
        double peak = pt_device_tflops(dev, job->dtype) * 1e12;
        double fm = pt_cost_job_model_flops(m, job, st->gbs);
        /* executed: model FLOPs plus what runs beyond them (recompute,
         * flash attention's QK^T re-run, unfused attention's masked half),
         * scaled from this device's per-layer count to the whole job */
        double rc_ratio = L.flops_f > 0 ? L.flops_rc / (3.0 * L.flops_f) : 0.0;
        double layer_share = 1.0 - 6.0 * V * hd * (1.0 + (double)m->mtp_layers) / (fm / tokens);
        out->model_flops = fm;
        out->hw_flops = fm * (1.0 + rc_ratio * layer_share);
        out->tokens_per_s = tokens / out->step_time_s;
        out->model_tflops_per_gpu = fm / out->step_time_s / n / 1e12;
        out->mfu = fm / out->step_time_s / n / peak;
        out->hfu = out->hw_flops / out->step_time_s / n / peak;
        out->best_mfu = dev->best_mfu;
        out->above_best_mfu = dev->best_mfu > 0 && out->mfu > dev->best_mfu;
    }
    memory(m, job, st, pr, mb, &out->mem, pt_pipe_replayed(st) && bubble != HUGE_VAL ? rpeak : NULL);
    out->device_memory_bytes = bytes_i64(dev->memory_GiB * PT_GiB);
    out->fits = out->mem.total <= out->device_memory_bytes;
}
