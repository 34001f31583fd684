/*
 * export_serve.c -- the plan ranked first as a serving engine's launch
 * command (serve_out.h).  Every flag is one the engine documents:
 *  - vLLM (`vllm serve --help`, docs.vllm.ai engine arguments):
 *    --tensor-parallel-size, --pipeline-parallel-size, --data-parallel-size,
 *    --enable-expert-parallel, --max-num-seqs, --max-num-batched-tokens,
 *    --kv-cache-dtype, --quantization, --max-model-len,
 *    --gpu-memory-utilization, --kv-transfer-config (disaggregated prefill).
 *  - SGLang (python -m sglang.launch_server, server arguments): --model-path,
 *    --tp-size, --pp-size, --dp-size, --enable-dp-attention, --ep-size,
 *    --max-running-requests, --chunked-prefill-size, --kv-cache-dtype,
 *    --quantization, --context-length, --mem-fraction-static,
 *    --disaggregation-mode.
 *  - TensorRT-LLM (`trtllm-serve --help`): --backend, --tp_size, --pp_size,
 *    --ep_size, --max_batch_size, --max_num_tokens, --max_seq_len,
 *    --kv_cache_free_gpu_memory_fraction, --extra_llm_api_options (a YAML
 *    of LLM API options: enable_attention_dp, kv_cache_config.dtype).
 * DWDP and shift parallelism have no flag in these engines: the export says
 * so in a comment and writes the closest configuration they run.
 */
#include "emit/serve_out.h"
#include "base/base.h"
#include "emit/emit.h"

#include <stdio.h>
#include <string.h>

/* Hugging Face repositories of the built-in models (their configs are the
 * built-ins' sources, data/models.json); any other model is named as given. */
static const struct {
    const char *name, *hf;
} hf_ids[] = {
    {"llama2-7b", "meta-llama/Llama-2-7b-hf"},
    {"llama2-70b", "meta-llama/Llama-2-70b-hf"},
    {"llama3-8b", "meta-llama/Meta-Llama-3-8B-Instruct"},
    {"llama3-70b", "meta-llama/Meta-Llama-3-70B-Instruct"},
    {"llama3.1-8b", "meta-llama/Llama-3.1-8B-Instruct"},
    {"llama3.1-405b", "meta-llama/Llama-3.1-405B-Instruct"},
    {"llama3.3-70b", "meta-llama/Llama-3.3-70B-Instruct"},
    {"mixtral-8x7b", "mistralai/Mixtral-8x7B-Instruct-v0.1"},
    {"mixtral-8x22b", "mistralai/Mixtral-8x22B-Instruct-v0.1"},
    {"qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B"},
    {"qwen3-235b-a22b", "Qwen/Qwen3-235B-A22B"},
    {"deepseek-v3", "deepseek-ai/DeepSeek-V3"},
    {"deepseek-r1", "deepseek-ai/DeepSeek-R1"},
    {"gpt-oss-120b", "openai/gpt-oss-120b"},
    {"gpt-oss-20b", "openai/gpt-oss-20b"},
    {"kimi-k2", "moonshotai/Kimi-K2-Instruct"},
    {"llama4-scout-17b-16e", "meta-llama/Llama-4-Scout-17B-16E-Instruct"},
    {"llama4-maverick-17b-128e", "meta-llama/Llama-4-Maverick-17B-128E-Instruct"},
    {"deepseek-v3.2", "deepseek-ai/DeepSeek-V3.2"},
    {"qwen3-8b", "Qwen/Qwen3-8B"},
    {"qwen3-14b", "Qwen/Qwen3-14B"},
    {"qwen3-32b", "Qwen/Qwen3-32B"},
    {"glm-4.5-air", "zai-org/GLM-4.5-Air"},
    {"glm-4.5", "zai-org/GLM-4.5"},
    {"falcon-180b", "tiiuae/falcon-180B"},
    {"gpt-j-6b", "EleutherAI/gpt-j-6b"},
};

static const char *model_id(const pt_model *m)
{
    for (size_t i = 0; i < sizeof hf_ids / sizeof hf_ids[0]; i++)
        if (!strcmp(hf_ids[i].name, m->name)) return hf_ids[i].hf;
    return m->name;
}

/* A word for a shell command line: left bare when it is plain, else single-quoted. */
static void shell_word(pt_emit_buf *b, const char *s)
{
    int plain = s[0] != '\0';
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("-_./:=@+,", *p)))
            plain = 0;
    if (plain) {
        pt_emit_buf_puts(b, s);
        return;
    }
    pt_emit_buf_puts(b, "'");
    for (const char *p = s; *p; p++) {
        if (*p == '\'') pt_emit_buf_puts(b, "'\\''");
        else pt_emit_buf_printf(b, "%c", *p);
    }
    pt_emit_buf_puts(b, "'");
}

static void header(pt_emit_buf *b, const char *engine, const pt_model *m, const pt_serve_opts *o,
                   const pt_serve_plan *p)
{
    char mn[200];
    pt_emit_buf_printf(b, "# partita serve: %s for %s, %g in / %g out tokens; plan ranked first: %s\n",
                       engine, pt_str_escape(m->name, mn, sizeof mn), o->isl, o->osl, p->strategy);
    pt_emit_buf_printf(b, "# predicted: %.0f output tokens/s (%.0f per GPU), TTFT p%d %.1f ms, TPOT p%d %.2f ms\n",
                       p->tokens_per_s, p->tokens_per_s_per_gpu, o->percentile, p->ttft_ms_p,
                       o->percentile, p->tpot_ms_p);
    if (p->cfg.dwdp)
        pt_emit_buf_puts(b, "# DWDP has no flag in this engine: written as data parallel attention with expert "
                            "parallelism over the same GPUs\n");
    if (p->cfg.seq_par == 2)
        pt_emit_buf_puts(b, "# shift parallelism has no flag in this engine: written as its TP configuration\n");
}

static int64_t ctx_len(const pt_serve_opts *o) { return (int64_t)(o->isl + o->osl); }

static void vllm_cmd(pt_emit_buf *b, const pt_model *m, const pt_serve_opts *o, const pt_serve_plan *p,
                     int64_t dp, const char *role)
{
    int64_t tp = p->cfg.dwdp ? 1 : p->cfg.tp;
    pt_emit_buf_puts(b, "vllm serve ");
    shell_word(b, model_id(m));
    pt_emit_buf_printf(b, " \\\n  --tensor-parallel-size %lld \\\n  --pipeline-parallel-size %lld",
                       (long long)tp, (long long)p->cfg.pp);
    if (dp > 1) pt_emit_buf_printf(b, " \\\n  --data-parallel-size %lld", (long long)dp);
    if (p->cfg.ep > 1) pt_emit_buf_puts(b, " \\\n  --enable-expert-parallel");
    pt_emit_buf_printf(b, " \\\n  --max-num-seqs %lld \\\n  --max-num-batched-tokens %lld", (long long)p->batch,
                       (long long)p->cfg.max_tokens);
    if (p->cfg.kvq == PT_Q_FP8) pt_emit_buf_puts(b, " \\\n  --kv-cache-dtype fp8");
    if (p->cfg.wq == PT_Q_FP8) pt_emit_buf_puts(b, " \\\n  --quantization fp8");
    if (p->cfg.wq == PT_Q_FP4) pt_emit_buf_puts(b, " \\\n  --quantization modelopt_fp4");
    pt_emit_buf_printf(b, " \\\n  --max-model-len %lld \\\n  --gpu-memory-utilization %.2f", (long long)ctx_len(o),
                       p->cfg.free_frac);
    if (role)
        pt_emit_buf_printf(b, " \\\n  --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"%s\"}'",
                           role);
    pt_emit_buf_puts(b, "\n");
}

static void sglang_cmd(pt_emit_buf *b, const pt_model *m, const pt_serve_opts *o, const pt_serve_plan *p,
                       int64_t dp, const char *role)
{
    int64_t tp = p->cfg.dwdp ? p->cfg.ep : p->cfg.tp;
    pt_emit_buf_puts(b, "python -m sglang.launch_server --model-path ");
    shell_word(b, model_id(m));
    pt_emit_buf_printf(b, " \\\n  --tp-size %lld", (long long)tp);
    if (p->cfg.pp > 1) pt_emit_buf_printf(b, " \\\n  --pp-size %lld", (long long)p->cfg.pp);
    if (p->cfg.attn_dp || p->cfg.dwdp)
        pt_emit_buf_printf(b, " \\\n  --dp-size %lld \\\n  --enable-dp-attention", (long long)tp);
    else if (dp > 1)
        pt_emit_buf_printf(b, " \\\n  --dp-size %lld", (long long)dp);
    if (p->cfg.ep > 1) pt_emit_buf_printf(b, " \\\n  --ep-size %lld", (long long)p->cfg.ep);
    pt_emit_buf_printf(b, " \\\n  --max-running-requests %lld \\\n  --chunked-prefill-size %lld",
                       (long long)p->batch, (long long)p->cfg.max_tokens);
    if (p->cfg.kvq == PT_Q_FP8) pt_emit_buf_puts(b, " \\\n  --kv-cache-dtype fp8_e4m3");
    if (p->cfg.wq == PT_Q_FP8) pt_emit_buf_puts(b, " \\\n  --quantization fp8");
    if (p->cfg.wq == PT_Q_FP4) pt_emit_buf_puts(b, " \\\n  --quantization modelopt_fp4");
    pt_emit_buf_printf(b, " \\\n  --context-length %lld \\\n  --mem-fraction-static %.2f", (long long)ctx_len(o),
                       p->cfg.free_frac);
    if (role) pt_emit_buf_printf(b, " \\\n  --disaggregation-mode %s", role);
    pt_emit_buf_puts(b, "\n");
}

static void trtllm_cmd(pt_emit_buf *b, const pt_model *m, const pt_serve_opts *o, const pt_serve_plan *p,
                       const char *yml)
{
    int64_t tp = p->cfg.dwdp ? p->cfg.ep : p->cfg.tp;
    pt_emit_buf_printf(b, "cat > %s <<'EOF'\n", yml);
    pt_emit_buf_printf(b, "enable_attention_dp: %s\n", p->cfg.attn_dp || p->cfg.dwdp ? "true" : "false");
    pt_emit_buf_printf(b, "kv_cache_config:\n  dtype: %s\n  free_gpu_memory_fraction: %.2f\n",
                       p->cfg.kvq == PT_Q_FP8 ? "fp8" : "auto", p->cfg.free_frac);
    pt_emit_buf_puts(b, "EOF\n");
    pt_emit_buf_puts(b, "trtllm-serve ");
    shell_word(b, model_id(m));
    pt_emit_buf_printf(b, " \\\n  --backend pytorch \\\n  --tp_size %lld \\\n  --pp_size %lld", (long long)tp,
                       (long long)p->cfg.pp);
    if (p->cfg.ep > 1) pt_emit_buf_printf(b, " \\\n  --ep_size %lld", (long long)p->cfg.ep);
    pt_emit_buf_printf(b, " \\\n  --max_batch_size %lld \\\n  --max_num_tokens %lld \\\n  --max_seq_len %lld",
                       (long long)p->batch, (long long)p->cfg.max_tokens, (long long)ctx_len(o));
    pt_emit_buf_printf(b, " \\\n  --kv_cache_free_gpu_memory_fraction %.2f \\\n  --extra_llm_api_options %s\n",
                       p->cfg.free_frac, yml);
}

pt_status pt_export_serve(const char *engine, const pt_model *m, const pt_serve_opts *o,
                          const pt_serve_plan *p, char **out, pt_diag *d)
{
    pt_emit_buf b = {0};
    int64_t rep = p->cfg.tp * p->cfg.pp;
    int dis = p->prefill_gpus > 0;
    if (strcmp(engine, "vllm") && strcmp(engine, "sglang") && strcmp(engine, "trtllm"))
        return pt_diag_set(d, NULL, "export", engine, "export: \"%s\" is not vllm, sglang or trtllm", engine);
    header(&b, engine, m, o, p);
    if (!strcmp(engine, "vllm")) {
        if (dis) {
            pt_emit_buf_printf(&b, "# prefill pool: %lld GPUs\n", (long long)p->prefill_gpus);
            vllm_cmd(&b, m, o, p, p->prefill_gpus / rep, "kv_producer");
            pt_emit_buf_printf(&b, "# decode pool: %lld GPUs\n", (long long)p->decode_gpus);
            vllm_cmd(&b, m, o, p, p->decode_gpus / rep, "kv_consumer");
        } else {
            vllm_cmd(&b, m, o, p, p->cfg.dwdp ? p->cfg.ep : p->replicas, NULL);
        }
    } else if (!strcmp(engine, "sglang")) {
        if (dis) {
            pt_emit_buf_printf(&b, "# prefill pool: %lld GPUs\n", (long long)p->prefill_gpus);
            sglang_cmd(&b, m, o, p, p->prefill_gpus / rep, "prefill");
            pt_emit_buf_printf(&b, "# decode pool: %lld GPUs\n", (long long)p->decode_gpus);
            sglang_cmd(&b, m, o, p, p->decode_gpus / rep, "decode");
        } else {
            sglang_cmd(&b, m, o, p, p->replicas, NULL);
        }
    } else {
        if (dis) pt_emit_buf_printf(&b, "# prefill pool: %lld GPUs, decode pool: %lld GPUs, one server "
                                    "per replica of each (trtllm-serve disaggregated)\n",
                                    (long long)p->prefill_gpus, (long long)p->decode_gpus);
        else if (p->replicas > 1 && !p->cfg.dwdp)
            pt_emit_buf_printf(&b, "# %lld replicas: run one server per replica behind a load balancer\n",
                               (long long)p->replicas);
        trtllm_cmd(&b, m, o, p, "extra-llm-api-config.yml");
    }
    return pt_emit_buf_finish(&b, out, d);
}
