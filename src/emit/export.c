/*
 * export.c -- a checked strategy as the launch configuration of a real engine
 * (SPEC section 1, `--export`): Megatron-LM pretrain_gpt.py arguments, a
 * DeepSpeed JSON config, a torchtitan job config in the legacy TOML form.
 *
 * What it does: maps each strategy key onto the engine's own knob, re-checks
 * the engine's divisibility rules on the numbers it writes, and refuses
 * (PT_EINPUT, d->field = the strategy key, d->value = its value) a plan the
 * engine cannot run, saying why and where to go instead.
 * What it does not: price anything, choose a strategy, or write what the
 * strategy does not decide (data paths, tokenizer, learning rate, the
 * launcher line).  Output is deterministic, integers are printed exactly,
 * lines carry no trailing spaces and the text ends with a newline.
 *
 * Sources: docs/reference/engines-and-formats.md sections a-c.
 *
 * Megatron-LM (section a): flag names as generated today ("--" + field name);
 *   there is no --virtual-pipeline-model-parallel-size, so VPP is written as
 *   --num-layers-per-virtual-pipeline-stage layers/(pp*vpp).  validate_args:
 *   world % (tp*pp*cp) == 0, layers % pp == 0, (layers/pp) % per_vstage == 0,
 *   gbs % (mbs*dp) == 0; --optimizer-cpu-offload asserts
 *   --use-precision-aware-optimizer.  The distributed optimizer is ZeRO-1
 *   style (the gradient buffer stays whole), so zero=2/3 and offload=params
 *   are refused; Megatron runs 1F1B or interleaved 1F1B only.
 * DeepSpeed (section b): train_batch_size == micro * gas * dp, where dp is
 *   the data-parallel size (world / tp with AutoTP).  The pipeline engine
 *   supports ZeRO-1 only and runs its own 1F1B schedule.  AutoTP training
 *   (tensor_parallel.autotp_size) combines with ZeRO stages 0-2, not 3
 *   (DeepSpeed's AutoTP training tutorial).  In real DeepSpeed the pipeline
 *   degree is set in code, PipelineModule(num_stages=pp); the JSON cannot
 *   carry a comment, so the config only mirrors it in its "pipeline" section
 *   ({"stages": pp, "partition": "parameters"}) and adds nothing else.
 *   Context parallelism, Megatron-style sequence parallelism and selective
 *   recompute have no config key and are refused.
 * torchtitan (section c, legacy TOML of job_config.py): FSDP2 is the only
 *   sharding, so zero=3 -> data_parallel_shard_degree = dp, zero=0 -> pure
 *   DDP (replicate = dp); zero=1/2 are refused.  Its TP always shards the
 *   sequence around norms, so sp=0 with tp>1 is refused.
 *   replicate * shard * cp * tp * pp must equal the world size.  Pipeline
 *   (torchtitan/distributed/pipeline_parallel.py): the number of stages is
 *   ceil((layers + first_less + last_less) / layers_per_stage) and the
 *   micro-batches are local_batch_size / pipeline_parallel_microbatch_size,
 *   so with pp > 1 the config writes first/last_stage_less_layers = 0 (the
 *   stage count is then exactly pp*vpp) and local_batch_size = gbs/dp (all
 *   of a step's micro-batches go through one pipeline pass, as priced);
 *   V-shaped schedules (ZBVZeroBubble, DualPipeV) hold two stages per rank.
 *   FSDP's "default" reshard policy keeps parameters gathered between
 *   forward and backward under PP; zero=3 is priced as re-gathering them, so
 *   with pp > 1 the config writes fsdp_reshard_after_forward = "always".
 *   enable_cpu_offload (FSDP2 CPUOffloadPolicy) puts parameters, gradients
 *   and optimizer states on the host together: offload=params maps to it,
 *   offload=optimizer is refused.
 *   enable_async_tensor_parallel with --tp-comm-overlap and tp > 1 (it needs
 *   the compile below; priced forward-only, src/cost/cost.c tp_overlap).
 *   [compile] enable = true: every price assumes fused element-wise
 *   kernels (Transformer Engine's, or torch.compile's), and torchtitan
 *   compiles only when asked (Compile.enable defaults to false in
 *   torchtitan/config/job_config.py); its own eager runs went 14-16% slower
 *   than compiled ones (data/validation/published_runs.csv, the torchtitan
 *   Llama 3.1 8B rows with and without torch.compile, 8 and 128 GPUs).
 *   fp8: [model] converters = ["quantize.linear.float8"] swaps the linears
 *   for torchao's Float8Linear, [quantize.linear.float8] with the
 *   tensorwise recipe (dynamic scaling, Transformer Engine's per-tensor
 *   kind, as priced) and the output layer left out (filter_fqns; the
 *   price keeps the logits GEMM in bf16); FSDP's all-gathers stay bf16, as
 *   priced (enable_fsdp_float8_all_gather would halve them).  A MoE
 *   model's grouped experts have only a prototype float8 path: refused.
 *   fp16 has no mixed_precision_param: refused.
 *   [model] names a registered model and flavor (llama3 8B/70B/405B); a
 *   shape torchtitan has no flavor for is refused rather than left to the
 *   "debugmodel" default.
 * Rotary embedding and sliding windows (Megatron): --rotary-base, llama3
 *   and yarn (MLA) scaling, --window-size (meg_rope and export_megatron say
 *   which and why).
 * Multi-token prediction (DeepSeek-V3's num_nextn_predict_layers):
 *   Megatron gets --mtp-num-layers (arguments.py _add_mtp_args), on its last
 *   stage where the cost model prices the depths.
 * Mixture of experts: Megatron gets --num-experts, --moe-router-topk, the
 *   router (--moe-router-score-function, --moe-router-pre-softmax,
 *   --moe-router-num-groups/--moe-router-group-topk,
 *   --moe-router-topk-scaling-factor, --moe-router-enable-expert-bias,
 *   --moe-router-load-balancing-type; arguments.py _add_moe_args),
 *   --moe-ffn-hidden-size, --moe-shared-expert-intermediate-size,
 *   --moe-layer-freq (dense layers first), --moe-token-dispatcher-type
 *   alltoall, --moe-grouped-gemm, --expert-model-parallel-size,
 *   --expert-tensor-parallel-size (section a) and, for MLA,
 *   --multi-latent-attention with its ranks; gpt_oss (alternating sliding
 *   windows, sinks, biased experts) is refused.  torchtitan's legacy TOML takes
 *   expert_parallel_degree and expert_tensor_parallel_degree (etp = tp or 1;
 *   dp_shard*cp*tp must be a multiple of ep) for its deepseek_v3 flavors.
 *   DeepSpeed's JSON has no expert-parallel key (DeepSpeed-MoE sets ep_size
 *   in the model code): MoE plans are refused.
 */
#include "emit/export.h"
#include "emit/emit.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/base.h"

int pt_export_parse_fmt(const char *name, pt_export_fmt *out)
{
    static const struct {
        const char *name;
        pt_export_fmt fmt;
    } fmts[] = {{"megatron", PT_EXPORT_MEGATRON},
                {"deepspeed", PT_EXPORT_DEEPSPEED},
                {"torchtitan", PT_EXPORT_TORCHTITAN}};
    if (!name) return 0;
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++)
        if (strcmp(name, fmts[i].name) == 0) {
            if (out) *out = fmts[i].fmt;
            return 1;
        }
    return 0;
}

/* ---- refusals ----------------------------------------------------------- */

static pt_status refuse(pt_diag *d, const char *key, const char *value, const char *fmt, ...)
    PT_PRINTF(4, 5);

static pt_status refuse(pt_diag *d, const char *key, const char *value, const char *fmt, ...)
{
    char msg[sizeof d->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pt_diag_set(d, NULL, key, value, "%s", msg);
}

/* An integer as text for d->value (buf must hold 24 bytes). */
static const char *itoa64(char *buf, size_t n, int64_t v)
{
    snprintf(buf, n, "%lld", (long long)v);
    return buf;
}

/* ---- Megatron-LM ------------------------------------------------------------ */

/* One argument (a flag and its value, if any) per line, joined by " \\\n  ". */
static void meg_arg(pt_emit_buf *b, const char *fmt, ...) PT_PRINTF(2, 3);

static void meg_arg(pt_emit_buf *b, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pt_emit_buf_printf(b, "%s%s", b->len ? " \\\n  " : "", line);
}

/* Rotary settings as Megatron-LM spells them (megatron/training/arguments.py,
 * _add_network_size_args and _add_mla_args; rotary_pos_embedding.py):
 *   --rotary-base (an int, default 10000: written when the base differs);
 *   --rotary-percent (the share of each head rotated, default 1.0);
 *   llama3 scaling: --use-rope-scaling --rope-scaling-factor F, whose
 *     low/high_freq_factor 1/4 and original 8192 positions are fixed in
 *     RotaryEmbedding._apply_scaling (other values are refused);
 *   yarn with MLA (DeepSeek): --rotary-scaling-factor F --mscale M
 *     --mscale-all-dim A (MLATransformerConfig's original positions are
 *     4096: other values are refused);
 *   linear: --rotary-seq-len-interpolation-factor F (an int).
 * Anything else (dynamic, longrope, yarn without MLA) is refused: the
 * launch line would train a different model. */
static pt_status meg_rope(pt_emit_buf *b, const pt_model *m, pt_diag *d)
{
    const char *t = m->rope_type;
    char v[32];
    if (m->rope_theta > 0 && m->rope_theta != 10000.0) {
        if (m->rope_theta != (double)(int64_t)m->rope_theta || m->rope_theta > 9e15) {
            snprintf(v, sizeof v, "%g", m->rope_theta);
            return refuse(d, "rope_theta", v, "megatron takes --rotary-base as a whole number, not %s", v);
        }
        meg_arg(b, "--rotary-base %lld", (long long)m->rope_theta);
    }
    if (m->rope_percent > 0 && m->rope_percent < 1.0) meg_arg(b, "--rotary-percent %g", m->rope_percent);
    if (!t[0]) return PT_OK;
    if (strcmp(t, "llama3") == 0) {
        if ((m->rope_low_freq > 0 && m->rope_low_freq != 1.0) || (m->rope_high_freq > 0 && m->rope_high_freq != 4.0) ||
            (m->rope_orig_max > 0 && m->rope_orig_max != 8192))
            return refuse(d, "rope_scaling", t,
                          "megatron's llama3 rope scaling fixes low_freq_factor 1, high_freq_factor 4 "
                          "and 8192 original positions; %s has %g, %g and %lld", m->name, m->rope_low_freq,
                          m->rope_high_freq, (long long)m->rope_orig_max);
        meg_arg(b, "--use-rope-scaling");
        meg_arg(b, "--rope-scaling-factor %g", m->rope_factor > 0 ? m->rope_factor : 8.0);
        return PT_OK;
    }
    if (strcmp(t, "yarn") == 0 && m->mla) {
        if (m->rope_orig_max > 0 && m->rope_orig_max != 4096)
            return refuse(d, "rope_scaling", t,
                          "megatron's multi-latent attention takes yarn from 4096 original positions, "
                          "not %lld", (long long)m->rope_orig_max);
        if (m->rope_factor > 0) meg_arg(b, "--rotary-scaling-factor %g", m->rope_factor);
        if (m->rope_mscale > 0) meg_arg(b, "--mscale %g", m->rope_mscale);
        if (m->rope_mscale_all_dim > 0) meg_arg(b, "--mscale-all-dim %g", m->rope_mscale_all_dim);
        return PT_OK;
    }
    if (strcmp(t, "linear") == 0 && m->rope_factor >= 1.0 && m->rope_factor == (double)(int64_t)m->rope_factor &&
        m->rope_factor < 1e9) {
        meg_arg(b, "--rotary-seq-len-interpolation-factor %lld", (long long)m->rope_factor);
        return PT_OK;
    }
    return refuse(d, "rope_scaling", t,
                  "megatron cannot express %s's rope scaling \"%s\" from the command line (it takes "
                  "llama3, yarn with multi-latent attention, and linear with a whole factor)", m->name, t);
}

static pt_status export_megatron(const pt_model *m, const pt_cluster *c, const pt_job *job,
                                 const pt_strategy *st, char **out, pt_diag *d)
{
    char v[24];
    pt_emit_buf b = {0};
    int64_t model_ranks = (int64_t)st->tp * st->pp * st->cp;
    int64_t per_vstage = 0, max_pos;

    /* What Megatron cannot express. */
    if (st->zero == 2)
        return refuse(d, "zero", "2",
                      "megatron cannot express zero=2: its distributed optimizer shards the "
                      "optimizer states only (ZeRO-1; the gradient buffer stays whole); use zero=1, "
                      "or export to deepspeed");
    if (st->zero == 3)
        return refuse(d, "zero", "3",
                      "megatron cannot express zero=3: its distributed optimizer shards optimizer "
                      "states and gradients only (ZeRO-1), never the parameters; export to "
                      "deepspeed or torchtitan");
    if (st->offload == PT_OFF_PARAMS)
        return refuse(d, "offload", "params",
                      "megatron cannot express offload=params: it offloads optimizer states only "
                      "(--optimizer-cpu-offload); export to deepspeed (ZeRO-3 offload_param) or "
                      "torchtitan (FSDP CPU offload)");
    if (st->pp > 1 && st->schedule != PT_SCHED_1F1B && st->schedule != PT_SCHED_INTERLEAVED)
        return refuse(d, "schedule", pt_schedule_name(st->schedule),
                      "megatron cannot express schedule=%s: it runs 1F1B, or interleaved 1F1B with "
                      "vpp > 1; use schedule=1f1b or schedule=interleaved",
                      pt_schedule_name(st->schedule));
    if (m->gated_mlp && m->act != PT_ACT_SILU)
        return refuse(d, "model", m->name,
                      "megatron cannot express %s's gated MLP with a %s activation from the command "
                      "line (only --swiglu)", m->name, m->act == PT_ACT_GELU ? "GELU" : "squared-ReLU");
    if (!m->gated_mlp && m->act == PT_ACT_SILU)
        return refuse(d, "model", m->name,
                      "megatron cannot express %s's ungated SiLU MLP from the command line "
                      "(--swiglu is gated)", m->name);

    if (m->expert_bias)
        return refuse(d, "model", m->name,
                      "partita does not write %s for megatron: its alternating sliding-window "
                      "attention with attention sinks and its biased experts have no flags here "
                      "(Megatron-Bridge builds gpt_oss from its Hugging Face config)", m->name);
    if (m->experts > 0 && st->ep > 1 && m->experts % st->ep != 0)
        return refuse(d, "ep", itoa64(v, sizeof v, st->ep),
                      "megatron: num_experts=%lld is not divisible by ep=%d (validate_args)",
                      (long long)m->experts, st->ep);

    /* validate_args on what is written. */
    if (c->devices % model_ranks != 0 || c->devices / model_ranks != st->dp)
        return refuse(d, "dp", itoa64(v, sizeof v, st->dp),
                      "megatron: world size %lld is not tp*pp*cp*dp = %d*%d*%d*%d "
                      "(validate_args: data_parallel_size = world // (tp*pp*cp))",
                      (long long)c->devices, st->tp, st->pp, st->cp, st->dp);
    if (m->layers % st->pp != 0 && !st->pp_first && !st->pp_last)
        return refuse(d, "pp", itoa64(v, sizeof v, st->pp),
                      "megatron: num_layers=%lld is not divisible by pp=%d", (long long)m->layers,
                      st->pp);
    if (st->vpp > 1) {
        if (st->schedule != PT_SCHED_INTERLEAVED)
            return refuse(d, "schedule", pt_schedule_name(st->schedule),
                          "megatron runs vpp=%d only with the interleaved schedule, not %s", st->vpp,
                          pt_schedule_name(st->schedule));
        if ((m->layers / st->pp) % st->vpp != 0)
            return refuse(d, "vpp", itoa64(v, sizeof v, st->vpp),
                          "megatron: layers per pipeline rank (%lld) are not divisible by vpp=%d",
                          (long long)(m->layers / st->pp), st->vpp);
        per_vstage = m->layers / ((int64_t)st->pp * st->vpp);
        assert((m->layers / st->pp) % per_vstage == 0);
        assert((m->layers / st->pp) / per_vstage == st->vpp);
    }
    if (st->gbs % ((int64_t)st->mbs * st->dp) != 0)
        return refuse(d, "gbs", itoa64(v, sizeof v, st->gbs),
                      "megatron: gbs=%lld is not a multiple of mbs*dp = %d*%d", (long long)st->gbs,
                      st->mbs, st->dp);
    if (st->cp > 1 && job->seq_len % (2 * (int64_t)st->cp) != 0)
        return refuse(d, "cp", itoa64(v, sizeof v, st->cp),
                      "megatron: seq_length=%lld is not a multiple of 2*cp=%d",
                      (long long)job->seq_len, 2 * st->cp);
    if (m->learned_pos && job->seq_len > m->max_seq)
        return refuse(d, "seq_len", itoa64(v, sizeof v, job->seq_len),
                      "megatron: seq_length=%lld exceeds %s's %lld learned position embeddings",
                      (long long)job->seq_len, m->name, (long long)m->max_seq);
    max_pos = m->max_seq > job->seq_len ? m->max_seq : job->seq_len;

    /* Model shape and family. */
    meg_arg(&b, "--num-layers %lld", (long long)m->layers);
    meg_arg(&b, "--hidden-size %lld", (long long)m->hidden);
    meg_arg(&b, "--ffn-hidden-size %lld", (long long)m->ffn);
    meg_arg(&b, "--num-attention-heads %lld", (long long)m->heads);
    if (m->kv_heads < m->heads) {
        meg_arg(&b, "--group-query-attention");
        meg_arg(&b, "--num-query-groups %lld", (long long)m->kv_heads);
    }
    if (m->head_dim * m->heads != m->hidden && !m->mla)
        meg_arg(&b, "--kv-channels %lld", (long long)m->head_dim);
    if (m->mla) { /* _add_mla_args; --qk-layernorm: the q and kv latent norms */
        meg_arg(&b, "--multi-latent-attention");
        if (m->q_lora > 0) meg_arg(&b, "--q-lora-rank %lld", (long long)m->q_lora);
        meg_arg(&b, "--kv-lora-rank %lld", (long long)m->kv_lora);
        meg_arg(&b, "--qk-head-dim %lld", (long long)m->qk_nope);
        meg_arg(&b, "--qk-pos-emb-head-dim %lld", (long long)m->qk_rope);
        meg_arg(&b, "--v-head-dim %lld", (long long)m->v_head);
        meg_arg(&b, "--qk-layernorm");
        if (m->index_topk > 0) {
            /* DeepSeek Sparse Attention (Megatron-Core's experimental
             * variant "dsa"); the price trains the indexer through its own
             * loss, at the coefficient Megatron-LM's DeepSeek-V4 recipes
             * use (examples/moe_recipes: dsa_indexer_loss_coeff 1e-2) */
            meg_arg(&b, "--experimental-attention-variant dsa");
            meg_arg(&b, "--dsa-indexer-n-heads %lld", (long long)m->index_heads);
            meg_arg(&b, "--dsa-indexer-head-dim %lld", (long long)m->index_head_dim);
            meg_arg(&b, "--dsa-indexer-topk %lld", (long long)m->index_topk);
            meg_arg(&b, "--dsa-indexer-loss-coeff 0.01");
        }
    }
    if (m->experts > 0) {
        /* _add_moe_args / TransformerConfig (engines-and-formats.md section
         * a): the alltoall dispatcher and grouped GEMMs are what Partita
         * prices; dense layers first (--moe-layer-freq pattern) */
        meg_arg(&b, "--num-experts %lld", (long long)m->experts);
        meg_arg(&b, "--moe-router-topk %lld", (long long)m->topk);
        meg_arg(&b, "--moe-ffn-hidden-size %lld", (long long)m->moe_ffn);
        if (m->shared_ffn > 0)
            meg_arg(&b, "--moe-shared-expert-intermediate-size %lld", (long long)m->shared_ffn);
        if (m->dense_layers > 0)
            meg_arg(&b, "--moe-layer-freq \"([0]*%lld+[1]*%lld)\"", (long long)m->dense_layers,
                    (long long)(m->layers - m->dense_layers));
        /* the router (_add_moe_args): score function, pre-softmax when the
         * top-k weights are not renormalised, group-limited routing,
         * the weights' scale, the aux-loss-free expert bias; DeepSeek-V3
         * pairs that bias with its sequence-wise auxiliary loss (Technical
         * Report section 2.1.2), the others balance with the GShard loss
         * (Megatron-LM examples/mixtral) */
        meg_arg(&b, "--moe-router-score-function %s", m->router_sigmoid ? "sigmoid" : "softmax");
        if (m->router_pre_softmax) meg_arg(&b, "--moe-router-pre-softmax");
        if (m->router_groups > 1) {
            meg_arg(&b, "--moe-router-num-groups %lld", (long long)m->router_groups);
            meg_arg(&b, "--moe-router-group-topk %lld", (long long)m->router_group_topk);
        }
        if (m->router_topk_scale > 0) meg_arg(&b, "--moe-router-topk-scaling-factor %g", m->router_topk_scale);
        if (m->router_expert_bias) meg_arg(&b, "--moe-router-enable-expert-bias");
        meg_arg(&b, "--moe-router-load-balancing-type %s", m->router_expert_bias ? "seq_aux_loss" : "aux_loss");
        /* the dispatcher priced: alltoall, or the flex dispatcher with the
         * DeepEP or HybridEP backend (--moe-flex-dispatcher-backend);
         * --overlap-moe-expert-parallel-comm where the cost model overlaps
         * the all-to-all (pp=1 or interleaved, the combined 1F1B's hosts) */
        if (job->moe_dedup_dispatch) {
            meg_arg(&b, "--moe-token-dispatcher-type flex");
            meg_arg(&b, "--moe-flex-dispatcher-backend %s", pt_moe_dispatch_name(job->moe_dedup_dispatch));
        } else {
            meg_arg(&b, "--moe-token-dispatcher-type alltoall");
        }
        if (st->ep > 1 && pt_job_ep_overlaps(job, st)) meg_arg(&b, "--overlap-moe-expert-parallel-comm");
        meg_arg(&b, "--moe-grouped-gemm");
        if (job->moe_capacity > 0) meg_arg(&b, "--moe-expert-capacity-factor %g", job->moe_capacity);
    }
    meg_arg(&b, "--seq-length %lld", (long long)job->seq_len);
    meg_arg(&b, "--max-position-embeddings %lld", (long long)max_pos);
    meg_arg(&b, "--position-embedding-type %s", m->learned_pos ? "learned_absolute" : "rope");
    if (!m->learned_pos) {
        pt_status rs = meg_rope(&b, m, d);
        if (rs != PT_OK) {
            free(b.p);
            return rs;
        }
    }
    if (m->window_layers > 0 && m->window_chunked) {
        free(b.p);
        return refuse(d, "model", m->name,
                      "megatron: %s has chunked attention (Llama 4's attention_chunk_size %lld) on %lld of "
                      "its %lld layers, for which Megatron-LM has no flag; export to torchtitan, whose "
                      "llama4 model runs it", m->name, (long long)m->window, (long long)m->window_layers,
                      (long long)m->layers);
    }
    if (m->window_layers > 0) {
        /* TransformerConfig.window_size (left, right): a causal window of W
         * tokens, the token itself included, is (W-1, 0), as Megatron-Bridge
         * maps Hugging Face's sliding_window; --window-attn-skip-freq would
         * place full-attention layers, but only in patterns partita does not
         * write, so a model with windows on some layers is refused */
        if (m->window_layers != m->layers) {
            free(b.p);
            return refuse(d, "model", m->name,
                          "megatron: %s has sliding-window attention on %lld of its %lld layers; "
                          "partita writes --window-size only for a window on every layer",
                          m->name, (long long)m->window_layers, (long long)m->layers);
        }
        meg_arg(&b, "--window-size %lld,0", (long long)(m->window - 1));
    }
    if (m->gated_mlp) meg_arg(&b, "--swiglu");
    if (m->act == PT_ACT_RELU2) meg_arg(&b, "--squared-relu");
    if (!m->norm_bias) meg_arg(&b, "--normalization RMSNorm");
    if (!m->linear_bias) {
        meg_arg(&b, "--disable-bias-linear");
        if (m->qkv_bias) meg_arg(&b, "--add-qkv-bias");
    }
    if (!m->tied_embeddings) meg_arg(&b, "--untie-embeddings-and-output-weights");
    /* multi-token prediction on the last stage, as priced (src/cost/cost.c);
     * the loss weight is Megatron's default (--mtp-loss-scaling-factor 0.1) */
    if (m->mtp_layers > 0) meg_arg(&b, "--mtp-num-layers %lld", (long long)m->mtp_layers);
    if (!m->dropout) { /* Megatron's defaults are 0.1 */
        meg_arg(&b, "--attention-dropout 0.0");
        meg_arg(&b, "--hidden-dropout 0.0");
    }
    meg_arg(&b, "--vocab-size %lld", (long long)m->vocab);

    /* Batch and parallelism. */
    meg_arg(&b, "--micro-batch-size %d", st->mbs);
    meg_arg(&b, "--global-batch-size %lld", (long long)st->gbs);
    meg_arg(&b, "--tensor-model-parallel-size %d", st->tp);
    meg_arg(&b, "--pipeline-model-parallel-size %d", st->pp);
    if (st->cp > 1) meg_arg(&b, "--context-parallel-size %d", st->cp);
    if (m->experts > 0) {
        meg_arg(&b, "--expert-model-parallel-size %d", st->ep);
        meg_arg(&b, "--expert-tensor-parallel-size %d", st->etp);
    }
    if (st->vpp > 1) meg_arg(&b, "--num-layers-per-virtual-pipeline-stage %lld", (long long)per_vstage);
    /* uneven stages: Megatron splits the rest evenly over the middle stages */
    if (st->pp_first) meg_arg(&b, "--decoder-first-pipeline-num-layers %d", st->pp_first);
    if (st->pp_last) meg_arg(&b, "--decoder-last-pipeline-num-layers %d", st->pp_last);
    if (st->sp && st->tp > 1) meg_arg(&b, "--sequence-parallel");
    if (st->tp > 1 && pt_job_tp_overlaps(job, st)) meg_arg(&b, "--tp-comm-overlap");
    if (st->zero >= 1) meg_arg(&b, "--use-distributed-optimizer");
    meg_arg(&b, "--overlap-grad-reduce");
    if (st->zero >= 1) meg_arg(&b, "--overlap-param-gather");
    if (st->offload == PT_OFF_OPTIMIZER) {
        assert(st->zero >= 1); /* pt_strategy_check: offload=optimizer needs zero>=1 */
        meg_arg(&b, "--optimizer-cpu-offload");
        meg_arg(&b, "--use-precision-aware-optimizer");
    }
    if (st->recompute == PT_RC_FULL) {
        meg_arg(&b, "--recompute-granularity full");
        meg_arg(&b, "--recompute-method uniform");
        meg_arg(&b, "--recompute-num-layers 1");
    } else if (st->recompute == PT_RC_SELECTIVE) {
        meg_arg(&b, "--recompute-granularity selective");
    }
    switch (job->dtype) {
    case PT_FP16: meg_arg(&b, "--fp16"); break;
    case PT_FP8:
        meg_arg(&b, "--bf16");
        meg_arg(&b, "--fp8-format hybrid");
        break;
    default: meg_arg(&b, "--bf16"); break;
    }
    pt_emit_buf_printf(&b, "\n");
    return pt_emit_buf_finish(&b, out, d);
}

/* ---- DeepSpeed ------------------------------------------------------------------ */

static json_t *ds_offload(void)
{
    json_t *o = json_object();
    json_object_set_new(o, "device", json_string("cpu"));
    json_object_set_new(o, "pin_memory", json_true());
    return o;
}

static pt_status export_deepspeed(const pt_model *m, const pt_cluster *c, const pt_job *job,
                                  const pt_strategy *st, char **out, pt_diag *d)
{
    char v[24];
    json_t *root, *z, *prec;
    char *text;
    int64_t dp = st->dp, gas;
    pt_emit_buf b = {0};

    if (m->experts > 0)
        return refuse(d, "ep", itoa64(v, sizeof v, st->ep),
                      "deepspeed's JSON config cannot express %s's experts: DeepSpeed-MoE's expert "
                      "parallelism is set in the model code (deepspeed.moe.layer.MoE(ep_size=...)), "
                      "not in the config; export to megatron", m->name);
    if (st->pp_first || st->pp_last)
        return refuse(d, st->pp_first ? "pp_first" : "pp_last", "",
                      "deepspeed's config cannot express uneven pipeline stages (PipelineModule "
                      "partitions in code); export to megatron");
    if (st->cp > 1)
        return refuse(d, "cp", itoa64(v, sizeof v, st->cp),
                      "deepspeed cannot express cp=%d: its config has no context-parallel key "
                      "(Ulysses sequence parallelism is set up in code); export to megatron or "
                      "torchtitan", st->cp);
    if (st->sp && st->tp > 1)
        return refuse(d, "sp", "1",
                      "deepspeed cannot express sp=1: AutoTP does not shard the sequence around "
                      "norms and dropout; use sp=0, or export to megatron or torchtitan");
    if (st->vpp > 1)
        return refuse(d, "vpp", itoa64(v, sizeof v, st->vpp),
                      "deepspeed cannot express vpp=%d: its pipeline engine holds one stage per "
                      "rank; use vpp=1, or export to megatron or torchtitan", st->vpp);
    if (st->pp > 1 && st->schedule != PT_SCHED_1F1B)
        return refuse(d, "schedule", pt_schedule_name(st->schedule),
                      "deepspeed cannot express schedule=%s: its pipeline engine runs 1F1B "
                      "(TrainSchedule) only; use schedule=1f1b, or export to torchtitan",
                      pt_schedule_name(st->schedule));
    if (st->recompute == PT_RC_SELECTIVE)
        return refuse(d, "recompute", "selective",
                      "deepspeed cannot express recompute=selective: its activation checkpointing "
                      "recomputes whole layers; use recompute=full or none, or export to megatron "
                      "or torchtitan");
    if (st->pp > 1 && st->zero >= 2)
        return refuse(d, "zero", itoa64(v, sizeof v, st->zero),
                      "deepspeed cannot express zero=%d with pp=%d: its pipeline engine supports "
                      "ZeRO-1 only; use zero=1 (or 0), or export to torchtitan", st->zero, st->pp);
    if (st->tp > 1 && st->zero == 3)
        return refuse(d, "zero", "3",
                      "deepspeed cannot express zero=3 with tp=%d: AutoTP training combines with "
                      "ZeRO stages 0-2 only; use zero=1 or 2, tp=1, or export to torchtitan", st->tp);
    if (job->dtype == PT_FP8)
        return refuse(d, "dtype", "fp8",
                      "deepspeed cannot express fp8 in its config (FP8 needs Transformer Engine "
                      "layers in the model code); use bf16, or export to megatron");

    /* train_batch == micro * gas * dp, dp the data-parallel size (world / (tp*pp)). */
    if (c->devices != (int64_t)st->tp * st->pp * dp)
        return refuse(d, "dp", itoa64(v, sizeof v, dp),
                      "deepspeed: world size %lld is not tp*pp*dp = %d*%d*%lld",
                      (long long)c->devices, st->tp, st->pp, (long long)dp);
    if (st->gbs % ((int64_t)st->mbs * dp) != 0)
        return refuse(d, "gbs", itoa64(v, sizeof v, st->gbs),
                      "deepspeed: train_batch_size=%lld is not a multiple of "
                      "train_micro_batch_size_per_gpu * dp = %d*%lld", (long long)st->gbs,
                      st->mbs, (long long)dp);
    gas = st->gbs / ((int64_t)st->mbs * dp);
    assert(st->gbs == (int64_t)st->mbs * gas * dp);

    root = json_object();
    json_object_set_new(root, "train_batch_size", json_integer(st->gbs));
    json_object_set_new(root, "train_micro_batch_size_per_gpu", json_integer(st->mbs));
    json_object_set_new(root, "gradient_accumulation_steps", json_integer(gas));
    prec = json_object();
    json_object_set_new(prec, "enabled", json_true());
    if (job->dtype == PT_FP16) {
        json_object_set_new(prec, "loss_scale", json_integer(0));
        json_object_set_new(prec, "initial_scale_power", json_integer(16));
        json_object_set_new(prec, "loss_scale_window", json_integer(1000));
        json_object_set_new(prec, "hysteresis", json_integer(2));
        json_object_set_new(prec, "min_loss_scale", json_integer(1));
        json_object_set_new(root, "fp16", prec);
    } else {
        json_object_set_new(root, "bf16", prec);
    }
    z = json_object();
    json_object_set_new(z, "stage", json_integer(st->zero));
    if (st->zero >= 1) {
        json_object_set_new(z, "overlap_comm", json_true());
        json_object_set_new(z, "contiguous_gradients", json_true());
        json_object_set_new(z, "reduce_bucket_size", json_integer(500000000));
        if (st->zero <= 2)
            json_object_set_new(z, "allgather_bucket_size", json_integer(500000000));
        else
            json_object_set_new(z, "stage3_prefetch_bucket_size", json_integer(50000000));
    }
    if (st->offload == PT_OFF_OPTIMIZER) {
        assert(st->zero >= 1); /* CPU optimizer offload: ZeRO stages 1, 2, 3 */
        json_object_set_new(z, "offload_optimizer", ds_offload());
    } else if (st->offload == PT_OFF_PARAMS) {
        /* offload_param: ZeRO-3 only.  Partita's offload=params keeps the
         * optimizer on the host as well (ZeRO-Infinity; the cost model
         * prices CPU Adam and no device optimizer states), so both go */
        assert(st->zero == 3);
        json_object_set_new(z, "offload_optimizer", ds_offload());
        json_object_set_new(z, "offload_param", ds_offload());
    }
    json_object_set_new(root, "zero_optimization", z);
    if (st->recompute == PT_RC_FULL) {
        json_t *ac = json_object();
        json_object_set_new(ac, "partition_activations", json_boolean(st->tp > 1));
        json_object_set_new(ac, "contiguous_memory_optimization", json_false());
        json_object_set_new(ac, "cpu_checkpointing", json_false());
        json_object_set_new(root, "activation_checkpointing", ac);
    }
    json_object_set_new(root, "gradient_clipping", json_real(1.0));
    if (st->tp > 1) {
        json_t *tp = json_object();
        json_object_set_new(tp, "autotp_size", json_integer(st->tp));
        json_object_set_new(root, "tensor_parallel", tp);
    }
    if (st->pp > 1) {
        json_t *pipe = json_object();
        json_object_set_new(pipe, "stages", json_integer(st->pp));
        json_object_set_new(pipe, "partition", json_string("parameters"));
        json_object_set_new(root, "pipeline", pipe);
    }
    text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!text) {
        pt_diag_set(d, NULL, NULL, NULL, "out of memory while writing the export");
        return PT_ENOMEM;
    }
    pt_emit_buf_printf(&b, "%s\n", text);
    free(text);
    return pt_emit_buf_finish(&b, out, d);
}

/* ---- torchtitan ---------------------------------------------------------------- */

/* A TOML basic string (quotes, backslashes and control characters escaped). */
static void toml_str(pt_emit_buf *b, const char *s)
{
    pt_emit_buf_printf(b, "\"");
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            pt_emit_buf_printf(b, "\\%c", ch);
        else if (ch < 0x20 || ch == 0x7f)
            pt_emit_buf_printf(b, "\\u%04x", ch);
        else
            pt_emit_buf_printf(b, "%c", ch);
    }
    pt_emit_buf_printf(b, "\"");
}

/* torchtitan's registered llama3 flavors (torchtitan/models/llama3/__init__.py):
 * dim, n_layers, n_heads, n_kv_heads; FFN from compute_ffn_hidden_dim; vocab
 * from the Llama 3 tokenizer. */
static const struct {
    const char *flavor;
    int64_t hidden, layers, heads, kv_heads, ffn, vocab;
} titan_flavors[] = {
    {"8B", 4096, 32, 32, 8, 14336, 128256},
    {"70B", 8192, 80, 64, 8, 28672, 128256},
    {"405B", 16384, 126, 128, 8, 53248, 128256},
};

/* torchtitan's MoE models, written as [model] name = "deepseek_v3" or
 * "llama4": torchtitan/models/deepseek_v3 (deepseekv3_configs has "16B",
 * "236B" and "671B") and torchtitan/models/llama4 (llama4_configs: "17bx16e",
 * Scout, every layer MoE; "17bx128e", Maverick, every other; both dim 5120,
 * 48 layers, top-1 with one shared expert of compute_moe_hidden_dim(5120,
 * multiple_of 2048, ffn_dim_multiplier 1.2, top_k 1, one shared) = 8192,
 * the NoPE layer every fourth, the others attending within fixed blocks by
 * flex attention: the chunked attention priced).  A config's family is its
 * model_type: llama4 or its text model's llama4_text. */
static const struct {
    const char *name, *flavor;
    int64_t hidden, layers, experts, topk, moe_ffn;
} titan_moe[] = {
    {"deepseek_v3", "671B", 7168, 61, 256, 8, 2048},
    {"llama4", "17bx16e", 5120, 48, 16, 1, 8192},
    {"llama4", "17bx128e", 5120, 48, 128, 1, 8192},
};

static const char *titan_moe_flavor(const pt_model *m, const char **name)
{
    for (size_t i = 0; i < sizeof titan_moe / sizeof titan_moe[0]; i++)
        if ((strcmp(m->family, titan_moe[i].name) == 0 ||
             (strncmp(m->family, titan_moe[i].name, strlen(titan_moe[i].name)) == 0 &&
              strcmp(m->family + strlen(titan_moe[i].name), "_text") == 0)) &&
            m->hidden == titan_moe[i].hidden && m->layers == titan_moe[i].layers &&
            m->experts == titan_moe[i].experts && m->topk == titan_moe[i].topk &&
            m->moe_ffn == titan_moe[i].moe_ffn) {
            *name = titan_moe[i].name;
            return titan_moe[i].flavor;
        }
    return NULL;
}

static const char *titan_flavor(const pt_model *m)
{
    if (m->experts > 0) return NULL;
    if (strcmp(m->family, "llama") != 0 || !m->gated_mlp || m->act != PT_ACT_SILU ||
        m->linear_bias || m->qkv_bias || m->norm_bias || m->tied_embeddings || m->learned_pos ||
        m->head_dim * m->heads != m->hidden)
        return NULL;
    for (size_t i = 0; i < sizeof titan_flavors / sizeof titan_flavors[0]; i++)
        if (m->hidden == titan_flavors[i].hidden && m->layers == titan_flavors[i].layers &&
            m->heads == titan_flavors[i].heads && m->kv_heads == titan_flavors[i].kv_heads &&
            m->ffn == titan_flavors[i].ffn && m->vocab == titan_flavors[i].vocab)
            return titan_flavors[i].flavor;
    return NULL;
}

static pt_status export_torchtitan(const pt_model *m, const pt_cluster *c, const pt_job *job,
                                   const pt_strategy *st, char **out, pt_diag *d)
{
    char v[24], desc[512];
    pt_emit_buf b = {0};
    const char *flavor = titan_flavor(m), *sched = NULL, *mname = "llama3";
    int64_t replicate, shard, stages = 0, per_stage = 0, local_batch, dp = st->dp;

    if (st->pp_first || st->pp_last)
        return refuse(d, st->pp_first ? "pp_first" : "pp_last", "",
                      "torchtitan's legacy config cannot express these uneven stages "
                      "(pipeline_parallel_first/last_stage_less_layers count stages, not layers); "
                      "export to megatron");
    if (st->zero == 1 || st->zero == 2)
        return refuse(d, "zero", itoa64(v, sizeof v, st->zero),
                      "torchtitan cannot express zero=%d: FSDP2 shards parameters, gradients and "
                      "optimizer states together (ZeRO-3) and it has no ZeRO-1/2; use zero=3 (FSDP) "
                      "or zero=0 (DDP; HSDP is not expressed by the strategy), or export to %s",
                      st->zero, st->zero == 1 ? "megatron or deepspeed" : "deepspeed");
    /* torchtitan's enable_cpu_offload is FSDP2's CPUOffloadPolicy: the
     * parameter shards, their gradients and the optimizer states all live on
     * the host and the optimizer steps there (torchtitan
     * distributed/parallelize: fully_shard(offload_policy=CPUOffloadPolicy())).
     * It has no optimizer-only offload. */
    if (st->offload == PT_OFF_OPTIMIZER)
        return refuse(d, "offload", "optimizer",
                      "torchtitan cannot express offload=optimizer: enable_cpu_offload (FSDP2 "
                      "CPUOffloadPolicy) moves parameters, gradients and optimizer states to the host "
                      "together; use offload=params, or export to megatron (--optimizer-cpu-offload) "
                      "or deepspeed (offload_optimizer)");
    if (m->experts > 0 && job->moe_dedup_dispatch)
        return refuse(d, "moe-dispatcher", pt_moe_dispatch_name(job->moe_dedup_dispatch),
                      "torchtitan's TOML names no %s dispatcher (its expert parallelism sends a token "
                      "once per expert); use --moe-dispatcher alltoall, or export to megatron",
                      pt_moe_dispatch_name(job->moe_dedup_dispatch));
    if (st->tp > 1 && !st->sp)
        return refuse(d, "sp", "0",
                      "torchtitan cannot express sp=0 with tp=%d: its tensor parallelism always "
                      "shards the sequence around norms (sequence parallel); use sp=1, or export "
                      "to megatron", st->tp);
    if (job->dtype == PT_FP16)
        return refuse(d, "dtype", "fp16",
                      "torchtitan cannot express fp16 in its config: mixed_precision_param is "
                      "bfloat16 or float32; use bf16, or export to megatron");
    if (job->dtype == PT_FP8 && m->experts > 0)
        return refuse(d, "dtype", "fp8",
                      "torchtitan's float8 converter swaps nn.Linear only; its float8 grouped "
                      "experts (quantize.grouped_mm) are a prototype this model does not price; use "
                      "bf16, or export to megatron");
    if (m->index_topk > 0)
        return refuse(d, "model", m->name,
                      "torchtitan's deepseek_v3 has no sparse attention (DeepSeek-V3.2's DSA); export to "
                      "megatron (--experimental-attention-variant dsa)");
    if (m->experts > 0) flavor = titan_moe_flavor(m, &mname);
    if (!flavor)
        return refuse(d, "model", m->name,
                      "torchtitan has no registered model for %s (its llama3 flavors are 8B, 70B "
                      "and 405B, its deepseek_v3 flavors 16B, 236B and 671B, its llama4 flavors "
                      "17bx16e and 17bx128e; register a flavor with "
                      "this shape, or export to megatron%s)", m->name,
                      m->experts > 0 ? "" : " or deepspeed");
    if (m->window_chunked && m->window_layers > 0 && st->cp > 1)
        return refuse(d, "cp", itoa64(v, sizeof v, st->cp),
                      "torchtitan's llama4 model raises NotImplementedError for context parallelism "
                      "(its chunked attention needs FlexAttention, which its CP does not take); use cp=1");
    if (m->experts > 0 && st->etp != 1 && st->etp != st->tp)
        return refuse(d, "etp", itoa64(v, sizeof v, st->etp),
                      "torchtitan cannot express etp=%d: expert_tensor_parallel_degree is either "
                      "tp or 1; export to megatron", st->etp);
    if (st->pp > 1) {
        int v_shape = 0;
        switch (st->schedule) {
        case PT_SCHED_GPIPE: sched = "GPipe"; break;
        case PT_SCHED_1F1B: sched = "1F1B"; break;
        case PT_SCHED_INTERLEAVED: sched = "Interleaved1F1B"; break;
        case PT_SCHED_ZBV: sched = "ZBVZeroBubble"; v_shape = 1; break;
        case PT_SCHED_DUALPIPE: sched = "DualPipeV"; v_shape = 1; break;
        case PT_SCHED_ZBH1:
            if (st->vpp > 1) {
                sched = "InterleavedZeroBubble";
                break;
            }
            return refuse(d, "schedule", "zb-h1",
                          "torchtitan cannot express schedule=zb-h1 with vpp=1: its zero-bubble "
                          "schedules are looped (InterleavedZeroBubble, vpp >= 2) or V-shaped "
                          "(ZBVZeroBubble, schedule=zb-v); use one of those, or export to megatron "
                          "(1f1b)");
        }
        /* stages in the whole pipeline: pp*vpp; V shapes hold two per rank */
        stages = (int64_t)st->pp * (v_shape ? 2 : st->vpp);
        if (v_shape && st->vpp > 2)
            return refuse(d, "vpp", itoa64(v, sizeof v, st->vpp),
                          "torchtitan: schedule %s holds two stages per rank, not vpp=%d", sched,
                          st->vpp);
        if (m->layers % stages != 0)
            return refuse(d, "pp", itoa64(v, sizeof v, st->pp),
                          "torchtitan: num_layers=%lld does not split into %lld equal pipeline "
                          "stages (pp=%d, %lld per rank)", (long long)m->layers, (long long)stages,
                          st->pp, (long long)(stages / st->pp));
        per_stage = m->layers / stages;
        /* what pipeline_llm computes back: ceil((layers + 0 + 0) / per_stage) */
        assert((m->layers + per_stage - 1) / per_stage == stages);
    }

    /* FSDP2 (zero=3) shards over dp; zero=0 replicates (DDP). */
    replicate = st->zero == 3 ? 1 : dp;
    shard = st->zero == 3 ? dp : 1;
    if (replicate * shard * st->cp * st->tp * st->pp != c->devices)
        return refuse(d, "dp", itoa64(v, sizeof v, dp),
                      "torchtitan: data_parallel_replicate_degree * data_parallel_shard_degree * "
                      "cp * tp * pp = %lld*%lld*%d*%d*%d is not the world size %lld",
                      (long long)replicate, (long long)shard, st->cp, st->tp, st->pp,
                      (long long)c->devices);
    /* EP borrows ranks from FSDP and TP: dp_shard*cp*tp == efsdp*ep
     * (torchtitan/distributed/parallel_dims.py) */
    if (m->experts > 0 && (shard * st->cp * st->tp) % st->ep != 0)
        return refuse(d, "ep", itoa64(v, sizeof v, st->ep),
                      "torchtitan: ep=%d does not divide data_parallel_shard_degree*cp*tp = "
                      "%lld*%d*%d (expert parallelism borrows FSDP and TP ranks); use zero=3, or "
                      "export to megatron", st->ep, (long long)shard, st->cp, st->tp);
    /* One pipeline pass takes all of a step's micro-batches: local_batch_size
     * / pipeline_parallel_microbatch_size of them.  Without PP, local_batch_size
     * is the micro-batch and torchtitan accumulates gradients. */
    local_batch = st->pp > 1 ? st->gbs / dp : st->mbs;
    if (st->gbs % (local_batch * dp) != 0 || local_batch % st->mbs != 0)
        return refuse(d, "gbs", itoa64(v, sizeof v, st->gbs),
                      "torchtitan: global_batch_size=%lld is not a multiple of local_batch_size * "
                      "dp = %lld*%lld with micro-batches of %d", (long long)st->gbs,
                      (long long)local_batch, (long long)dp, st->mbs);

    pt_strategy_format(st, desc, sizeof desc);
    pt_emit_buf_printf(&b, "[job]\ndescription = ");
    {
        char full[768];
        snprintf(full, sizeof full, "partita: %s on %lld x %s (%s), %s", m->name,
                 (long long)c->devices, c->dev.name, c->name, desc);
        toml_str(&b, full);
    }
    pt_emit_buf_printf(&b, "\n\n[model]\nname = \"%s\"\nflavor = \"%s\"\n", mname, flavor);
    if (job->dtype == PT_FP8) pt_emit_buf_printf(&b, "converters = [\"quantize.linear.float8\"]\n");
    pt_emit_buf_printf(&b, "\n[training]\n");
    pt_emit_buf_printf(&b, "local_batch_size = %lld\n", (long long)local_batch);
    pt_emit_buf_printf(&b, "global_batch_size = %lld\n", (long long)st->gbs);
    pt_emit_buf_printf(&b, "seq_len = %lld\n", (long long)job->seq_len);
    pt_emit_buf_printf(&b, "mixed_precision_param = \"bfloat16\"\n");
    pt_emit_buf_printf(&b, "mixed_precision_reduce = \"float32\"\n");
    if (st->offload == PT_OFF_PARAMS) {
        /* offload=params: parameters and optimizer states on the host, as
         * FSDP2's CPU offload does; it moves the gradients too, which the
         * cost model keeps on the device (its memory is the larger) */
        assert(st->zero == 3);
        pt_emit_buf_printf(&b, "enable_cpu_offload = true\n");
    }
    pt_emit_buf_printf(&b, "\n[parallelism]\n");
    pt_emit_buf_printf(&b, "data_parallel_replicate_degree = %lld\n", (long long)replicate);
    pt_emit_buf_printf(&b, "data_parallel_shard_degree = %lld\n", (long long)shard);
    if (st->zero == 3 && st->pp > 1) pt_emit_buf_printf(&b, "fsdp_reshard_after_forward = \"always\"\n");
    pt_emit_buf_printf(&b, "tensor_parallel_degree = %d\n", st->tp);
    if (st->tp > 1 && pt_job_tp_overlaps(job, st)) pt_emit_buf_printf(&b, "enable_async_tensor_parallel = true\n");
    pt_emit_buf_printf(&b, "pipeline_parallel_degree = %d\n", st->pp);
    if (st->pp > 1) {
        pt_emit_buf_printf(&b, "pipeline_parallel_schedule = \"%s\"\n", sched);
        pt_emit_buf_printf(&b, "pipeline_parallel_microbatch_size = %d\n", st->mbs);
        pt_emit_buf_printf(&b, "pipeline_parallel_layers_per_stage = %lld\n", (long long)per_stage);
        pt_emit_buf_printf(&b, "pipeline_parallel_first_stage_less_layers = 0\n");
        pt_emit_buf_printf(&b, "pipeline_parallel_last_stage_less_layers = 0\n");
    }
    pt_emit_buf_printf(&b, "context_parallel_degree = %d\n", st->cp);
    if (m->experts > 0) {
        pt_emit_buf_printf(&b, "expert_parallel_degree = %d\n", st->ep);
        pt_emit_buf_printf(&b, "expert_tensor_parallel_degree = %d\n", st->etp);
    }
    pt_emit_buf_printf(&b, "\n[activation_checkpoint]\n");
    switch (st->recompute) {
    case PT_RC_FULL: pt_emit_buf_printf(&b, "mode = \"full\"\n"); break;
    case PT_RC_SELECTIVE: pt_emit_buf_printf(&b, "mode = \"selective\"\nselective_ac_option = \"op\"\n"); break;
    default: pt_emit_buf_printf(&b, "mode = \"none\"\n"); break;
    }
    pt_emit_buf_printf(&b, "\n[compile]\nenable = true\n"); /* the price's fused kernels */
    if (job->dtype == PT_FP8) /* the price's fp8 GEMMs: every linear but the output layer */
        pt_emit_buf_printf(&b, "\n[quantize.linear.float8]\nrecipe_name = \"tensorwise\"\n"
                               "filter_fqns = [\"output\"]\n");
    return pt_emit_buf_finish(&b, out, d);
}

/* ---- entry ------------------------------------------------------------------------ */

pt_status pt_emit_export(pt_export_fmt fmt, const pt_model *m, const pt_cluster *c,
                         const pt_job *job, const pt_strategy *st, char **out, pt_diag *d)
{
    pt_status rc;
    assert(m && c && job && st && out);
    *out = NULL;
    /* The engine rules below assume a strategy that passed the general rules. */
    if ((rc = pt_strategy_check(st, m, c, job, d)) != PT_OK) return rc;
    /* a hybrid Mamba-2 stack (pt_model.hybrid) needs Megatron-LM's
     * --hybrid-override-pattern and Mamba arguments, or a model definition
     * torchtitan and DeepSpeed configs do not name: refused, not written as
     * a transformer's */
    if (m->hybrid[0])
        return pt_diag_set(d, NULL, "export", m->name, "export: %s is a hybrid Mamba-2 model "
                           "(hybrid_override_pattern); its launch configuration is not written yet", m->name);
    switch (fmt) {
    case PT_EXPORT_MEGATRON: return export_megatron(m, c, job, st, out, d);
    case PT_EXPORT_DEEPSPEED: rc = export_deepspeed(m, c, job, st, out, d); break;
    case PT_EXPORT_TORCHTITAN: rc = export_torchtitan(m, c, job, st, out, d); break;
    default: return pt_diag_set(d, NULL, "export", NULL, "unknown export format %d", (int)fmt);
    }
    /* multi-token prediction: Megatron's --mtp-num-layers; torchtitan's
     * TOML and DeepSpeed's JSON have no key for it (torchtitan's deepseek_v3
     * takes model.num_mtp_layers in its newer Python config,
     * pytorch/torchtitan#3392, which Partita does not write), so a plan
     * priced with it is refused there (after the engine's own rules) rather
     * than written without it */
    if (rc == PT_OK && m->mtp_layers > 0) {
        char v[24];
        free(*out);
        *out = NULL;
        return pt_diag_set(d, NULL, "mtp", itoa64(v, sizeof v, m->mtp_layers),
                           "%s: %s trains %lld multi-token-prediction depth%s (num_nextn_predict_layers), "
                           "which its config cannot carry; plan with --mtp 0, or export to megatron",
                           fmt == PT_EXPORT_TORCHTITAN ? "torchtitan" : "deepspeed", m->name,
                           (long long)m->mtp_layers, m->mtp_layers > 1 ? "s" : "");
    }
    return rc;
}

pt_status pt_emit_export_priced(pt_export_fmt fmt, const pt_model *m, const pt_cluster *c,
                                const pt_job *job, const pt_strategy *st, const pt_cost *k,
                                int64_t sim_peak_bytes, char **out, char *note, size_t note_n, pt_diag *d)
{
    char desc[512], *text;
    pt_emit_buf b = {0};
    pt_status rc;
    assert(k && note && note_n > 0);
    if ((rc = pt_emit_export(fmt, m, c, job, st, out, d)) != PT_OK) return rc;
    pt_strategy_format(st, desc, sizeof desc);
    snprintf(note, note_n, "partita: predicted step %.3f s (%s), peak memory %.1f of %.1f GiB "
             "per device, for %s", k->step_time_s, sim_peak_bytes > 0 ? "step simulator" : "analytic model",
             (double)(sim_peak_bytes > 0 ? sim_peak_bytes : k->mem.total) / PT_GiB,
             (double)k->device_memory_bytes / PT_GiB, desc);
    /* packed documents (pt_job.doc_len) are the data's, not a launch flag:
     * the note says what the price assumed of the data */
    if (pt_job_doc_len(job)) {
        size_t l = strlen(note);
        snprintf(note + l, note_n - l, "; attention priced within packed documents of %lld tokens: pack "
                 "the data with a per-document attention mask", (long long)pt_job_doc_len(job));
    }
    if (fmt == PT_EXPORT_DEEPSPEED) return PT_OK;
    /* '#' starts a comment in a shell script and in TOML */
    text = *out;
    pt_emit_buf_printf(&b, "# %s\n%s", note, text);
    free(text);
    *out = NULL;
    return pt_emit_buf_finish(&b, out, d);
}
