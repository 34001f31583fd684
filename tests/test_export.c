/*
 * test_export.c -- the engine exporters (src/emit/export.c): Megatron-LM
 * arguments, DeepSpeed JSON, torchtitan TOML, each compared byte for byte with
 * a golden file in tests/golden/export/, plus the properties each engine
 * checks on what it reads (VPP flag name, DeepSpeed's batch identity,
 * torchtitan's degree product) and every refusal (PT_EINPUT, d.field set).
 *
 * The goldens were written by this test with UPDATE_GOLDEN=1 (see
 * tests/update-golden-export.sh) and read by eye against
 * docs/reference/engines-and-formats.md sections a-c.  Run from the
 * repository root.
 */
#include <jansson.h>

#include "helpers.h"
#include "base/base.h"
#include "emit/export.h"

#define GOLDEN_DIR "tests/golden/export/"

/* ---- fixtures -------------------------------------------------------------------- */

typedef struct setup {
    pt_model m;
    pt_cluster c;
    pt_job j;
    pt_strategy st;
} setup;

/* model on cluster resized to n devices; strategy text resolved for the job. */
static setup make(const char *model, const char *cluster, int64_t n, const char *strategy,
                  int64_t global_batch, int64_t seq_len, pt_dtype dtype)
{
    setup s;
    memset(&s, 0, sizeof s);
    s.m = th_model(model);
    s.c = th_cluster(cluster, n);
    s.j = th_job(seq_len, global_batch, 1);
    s.j.dtype = dtype;
    s.st = th_strategy(strategy, &s.m, &s.c, &s.j);
    return s;
}

/* The export, which must succeed; the caller frees it. */
static char *export_ok(pt_export_fmt fmt, const setup *s)
{
    char *out = NULL;
    pt_diag d;
    memset(&d, 0, sizeof d);
    if (pt_emit_export(fmt, &s->m, &s->c, &s->j, &s->st, &out, &d) != PT_OK)
        fail_msg("export refused: field %s value %s: %s", d.field, d.value, d.msg);
    assert_non_null(out);
    return out;
}

/* The export, which must be refused with PT_EINPUT naming field. */
static void export_refused(pt_export_fmt fmt, const setup *s, const char *field,
                           const char *needle)
{
    char *out = (char *)"untouched";
    pt_diag d;
    pt_status rc;
    memset(&d, 0, sizeof d);
    rc = pt_emit_export(fmt, &s->m, &s->c, &s->j, &s->st, &out, &d);
    if (rc != PT_EINPUT) fail_msg("expected PT_EINPUT (field %s), got %d", field, (int)rc);
    assert_null(out);
    if (strcmp(d.field, field) != 0)
        fail_msg("expected d.field \"%s\", got \"%s\" (%s)", field, d.field, d.msg);
    assert_true(d.value[0] != '\0');
    if (needle && !strstr(d.msg, needle))
        fail_msg("message lacks \"%s\": %s", needle, d.msg);
}

/* ---- golden files ------------------------------------------------------------------ */

/* Every export: no trailing spaces, a final newline, no NUL inside. */
static void check_text_form(const char *name, const char *text)
{
    size_t n = strlen(text);
    int line = 1;
    if (n == 0 || text[n - 1] != '\n') fail_msg("%s: does not end with a newline", name);
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '\n') {
            if (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t'))
                fail_msg("%s: line %d ends with whitespace", name, line);
            line++;
        }
    }
}

/* Compares text with tests/golden/export/NAME (th_golden), after the form
 * every export has. */
static void golden(const char *name, const char *text)
{
    check_text_form(name, text);
    th_golden(GOLDEN_DIR, name, text, "sh tests/update-golden-export.sh");
}

/* The value of `key = N` in TOML text; fails if absent. */
static long long toml_int(const char *toml, const char *key)
{
    char pat[128];
    const char *p;
    snprintf(pat, sizeof pat, "\n%s = ", key);
    p = strstr(toml, pat);
    if (!p) fail_msg("no \"%s\" in:\n%s", key, toml);
    return strtoll(p + strlen(pat), NULL, 10);
}

/* ---- golden cases -------------------------------------------------------------------- */

/* (a) GPT-3 175B on 64 A100, tp=8 pp=8 vpp=3: 96 layers / (8*3) = 4 per
 * virtual stage; Megatron has no --virtual-pipeline-model-parallel-size. */
static void test_megatron_gpt3_vpp(void **state)
{
    setup s = make("gpt3-175b", "dgx-a100-80g", 64, "tp=8 pp=8 vpp=3 mbs=1", 512, 2048, PT_FP16);
    char *out = export_ok(PT_EXPORT_MEGATRON, &s);
    (void)state;
    assert_non_null(strstr(out, "--num-layers-per-virtual-pipeline-stage 4 \\\n"));
    assert_null(strstr(out, "--virtual-pipeline-model-parallel-size"));
    assert_true(strncmp(out, "--num-layers 96 \\\n  --hidden-size 12288", 39) == 0);
    assert_null(strstr(out, "torchrun"));
    assert_non_null(strstr(out, "--position-embedding-type learned_absolute"));
    assert_null(strstr(out, "--swiglu"));
    assert_null(strstr(out, "--group-query-attention"));
    golden("megatron_gpt3_175b_vpp.txt", out);
    free(out);
}

/* (d) Llama 3 70B: 64 query heads, 8 KV groups -> GQA flags; head_dim 128 =
 * 8192/64 so no --kv-channels; SwiGLU, RMSNorm, no biases, untied, rope. */
static void test_megatron_llama3_70b_gqa(void **state)
{
    setup s = make("llama3-70b", "dgx-h100", 64, "tp=8 pp=4 recompute=selective", 512, 8192,
                   PT_BF16);
    char *out = export_ok(PT_EXPORT_MEGATRON, &s);
    (void)state;
    assert_non_null(strstr(out, "--group-query-attention \\\n  --num-query-groups 8 \\\n"));
    assert_null(strstr(out, "--kv-channels"));
    assert_non_null(strstr(out, "--swiglu"));
    assert_non_null(strstr(out, "--normalization RMSNorm"));
    assert_non_null(strstr(out, "--disable-bias-linear"));
    assert_non_null(strstr(out, "--untie-embeddings-and-output-weights"));
    assert_non_null(strstr(out, "--position-embedding-type rope"));
    assert_non_null(strstr(out, "--recompute-granularity selective"));
    assert_null(strstr(out, "--recompute-method"));
    golden("megatron_llama3_70b_gqa.txt", out);
    free(out);
}

/* Megatron with CP, full recompute, optimizer offload and FP8 on Llama 3 8B. */
static void test_megatron_llama3_8b_cp_offload_fp8(void **state)
{
    setup s = make("llama3-8b", "dgx-h100", 64,
                   "tp=2 pp=2 cp=2 recompute=full offload=optimizer", 512, 8192, PT_FP8);
    char *out = export_ok(PT_EXPORT_MEGATRON, &s);
    (void)state;
    assert_non_null(strstr(out, "--context-parallel-size 2"));
    assert_non_null(strstr(out, "--optimizer-cpu-offload \\\n  --use-precision-aware-optimizer"));
    assert_non_null(strstr(out, "--recompute-granularity full \\\n  --recompute-method uniform "
                                "\\\n  --recompute-num-layers 1"));
    assert_non_null(strstr(out, "--bf16 \\\n  --fp8-format hybrid\n"));
    golden("megatron_llama3_8b_cp_offload_fp8.txt", out);
    free(out);
}

/* (b) Llama 3 8B on 64 H100, ZeRO-3: DeepSpeed's
 * train_batch == micro * gas * dp with dp = 64 (tp = pp = 1). */
static void test_deepspeed_llama3_8b_zero3(void **state)
{
    setup s = make("llama3-8b", "dgx-h100", 64, "tp=1 pp=1 zero=3", 512, 8192, PT_BF16);
    char *out = export_ok(PT_EXPORT_DEEPSPEED, &s);
    json_error_t err;
    json_t *j = json_loads(out, 0, &err), *z;
    (void)state;
    if (!j) fail_msg("not JSON: %s at line %d", err.text, err.line);
    assert_int_equal(json_integer_value(json_object_get(j, "train_batch_size")), 512);
    assert_int_equal(json_integer_value(json_object_get(j, "train_batch_size")),
                     json_integer_value(json_object_get(j, "train_micro_batch_size_per_gpu")) *
                         json_integer_value(json_object_get(j, "gradient_accumulation_steps")) * 64);
    assert_int_equal(json_integer_value(json_object_get(j, "gradient_accumulation_steps")), 8);
    assert_true(json_is_true(json_object_get(json_object_get(j, "bf16"), "enabled")));
    z = json_object_get(j, "zero_optimization");
    assert_int_equal(json_integer_value(json_object_get(z, "stage")), 3);
    assert_null(json_object_get(j, "pipeline"));
    assert_null(json_object_get(j, "tensor_parallel"));
    assert_null(json_object_get(j, "activation_checkpointing"));
    json_decref(j);
    assert_true(strncmp(out, "{\n  \"train_batch_size\": 512,\n", 29) == 0);
    golden("deepspeed_llama3_8b_zero3.json", out);
    free(out);
}

/* DeepSpeed pipeline (ZeRO-1), fp16, optimizer offload, full recompute, AutoTP. */
static void test_deepspeed_pipeline_fp16_offload(void **state)
{
    setup s = make("llama3-8b", "dgx-h100", 64,
                   "tp=2 pp=2 sp=0 zero=1 mbs=2 recompute=full offload=optimizer", 512, 4096,
                   PT_FP16);
    char *out = export_ok(PT_EXPORT_DEEPSPEED, &s);
    json_error_t err;
    json_t *j = json_loads(out, 0, &err), *z;
    (void)state;
    if (!j) fail_msg("not JSON: %s at line %d", err.text, err.line);
    /* dp = 64 / (tp*pp) = 16; gas = 512 / (2*16) = 16 */
    assert_int_equal(json_integer_value(json_object_get(j, "gradient_accumulation_steps")), 16);
    assert_int_equal(json_integer_value(json_object_get(j, "train_batch_size")),
                     json_integer_value(json_object_get(j, "train_micro_batch_size_per_gpu")) *
                         json_integer_value(json_object_get(j, "gradient_accumulation_steps")) * 16);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "fp16"),
                                                        "initial_scale_power")), 16);
    assert_null(json_object_get(j, "bf16"));
    z = json_object_get(j, "zero_optimization");
    assert_int_equal(json_integer_value(json_object_get(z, "stage")), 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(z, "offload_optimizer"),
                                                          "device")), "cpu");
    assert_null(json_object_get(z, "offload_param"));
    assert_true(json_is_true(json_object_get(json_object_get(j, "activation_checkpointing"),
                                             "partition_activations")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "pipeline"), "stages")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "tensor_parallel"),
                                                        "autotp_size")), 2);
    json_decref(j);
    golden("deepspeed_llama3_8b_pp2_fp16_offload.json", out);
    free(out);
}

/* DeepSpeed ZeRO-3 with parameter offload (ZeRO-Infinity style). */
static void test_deepspeed_offload_params(void **state)
{
    setup s = make("llama3-70b", "dgx-h100", 16, "zero=3 offload=params recompute=full", 256, 4096,
                   PT_BF16);
    char *out = export_ok(PT_EXPORT_DEEPSPEED, &s);
    json_t *j = json_loads(out, 0, NULL), *z;
    (void)state;
    assert_non_null(j);
    z = json_object_get(j, "zero_optimization");
    assert_string_equal(json_string_value(json_object_get(json_object_get(z, "offload_param"),
                                                          "device")), "cpu");
    /* offload=params keeps the optimizer on the host too (ZeRO-Infinity),
     * as the cost model prices it: offload_optimizer is written with it */
    assert_string_equal(json_string_value(json_object_get(json_object_get(z, "offload_optimizer"),
                                                          "device")), "cpu");
    assert_false(json_is_true(json_object_get(json_object_get(j, "activation_checkpointing"),
                                              "partition_activations")));
    json_decref(j);
    golden("deepspeed_llama3_70b_offload_params.json", out);
    free(out);
}

/* (c) Llama 3 8B on 64 H100, tp=2 pp=2 FSDP (zero=3), full recompute:
 * replicate * shard * cp * tp * pp == 64. */
static void test_torchtitan_llama3_8b(void **state)
{
    setup s = make("llama3-8b", "dgx-h100", 64, "tp=2 pp=2 zero=3 recompute=full", 512, 8192,
                   PT_BF16);
    char *out = export_ok(PT_EXPORT_TORCHTITAN, &s);
    long long prod;
    (void)state;
    prod = toml_int(out, "data_parallel_replicate_degree") *
           toml_int(out, "data_parallel_shard_degree") * toml_int(out, "context_parallel_degree") *
           toml_int(out, "tensor_parallel_degree") * toml_int(out, "pipeline_parallel_degree");
    assert_int_equal(prod, 64);
    assert_int_equal(toml_int(out, "data_parallel_shard_degree"), 16);
    assert_int_equal(toml_int(out, "data_parallel_replicate_degree"), 1);
    /* 32 layers over 2 stages; the stage count torchtitan derives is
     * ceil((32 + first_less + last_less) / per_stage) = 2 with both at 0 */
    assert_int_equal(toml_int(out, "pipeline_parallel_layers_per_stage"), 16);
    assert_int_equal(toml_int(out, "pipeline_parallel_first_stage_less_layers"), 0);
    /* one pipeline pass per step: local 512/16 = 32 sequences in micro-batches of 1 */
    assert_int_equal(toml_int(out, "local_batch_size"), 32);
    assert_int_equal(toml_int(out, "global_batch_size"), 512);
    assert_int_equal(toml_int(out, "seq_len"), 8192);
    assert_non_null(strstr(out, "\n[model]\nname = \"llama3\"\nflavor = \"8B\"\n"));
    assert_non_null(strstr(out, "pipeline_parallel_schedule = \"1F1B\"\n"));
    assert_non_null(strstr(out, "\n[activation_checkpoint]\nmode = \"full\"\n"));
    assert_null(strstr(out, "enable_cpu_offload"));
    golden("torchtitan_llama3_8b_tp2_pp2.toml", out);
    free(out);
}

/* torchtitan DDP (zero=0) with an interleaved pipeline and selective recompute. */
static void test_torchtitan_ddp_interleaved(void **state)
{
    setup s = make("llama3-70b", "dgx-h100", 64, "tp=8 pp=4 vpp=2 zero=0 recompute=selective",
                   256, 4096, PT_BF16);
    char *out = export_ok(PT_EXPORT_TORCHTITAN, &s);
    (void)state;
    assert_int_equal(toml_int(out, "data_parallel_replicate_degree"), 2);
    assert_int_equal(toml_int(out, "data_parallel_shard_degree"), 1);
    /* 80 layers / (4 ranks * 2 stages) */
    assert_int_equal(toml_int(out, "pipeline_parallel_layers_per_stage"), 10);
    assert_non_null(strstr(out, "pipeline_parallel_schedule = \"Interleaved1F1B\"\n"));
    assert_non_null(strstr(out, "mode = \"selective\"\nselective_ac_option = \"op\"\n"));
    assert_null(strstr(out, "fsdp_reshard_after_forward"));
    golden("torchtitan_llama3_70b_ddp_interleaved.toml", out);
    free(out);
}

/* --tp-comm-overlap: Megatron's flag after --sequence-parallel, which it
 * requires (validate_args asserts sequence_parallel); without sp or tp > 1
 * it is not written.  A torchtitan job that carries it is priced with async
 * TP (the forward's collectives overlapped) and exported with
 * enable_async_tensor_parallel, which needs the compile the TOML enables. */
static void test_tp_comm_overlap(void **state)
{
    setup s = make("llama3-70b", "dgx-h100", 64, "tp=8 pp=4 sp=1 zero=1 recompute=full", 256, 8192,
                   PT_BF16);
    char *out;
    (void)state;
    s.j.tp_comm_overlap = 1;
    out = export_ok(PT_EXPORT_MEGATRON, &s);
    assert_non_null(strstr(out, "--sequence-parallel \\\n  --tp-comm-overlap \\\n"));
    free(out);
    s.st.sp = 0;
    out = export_ok(PT_EXPORT_MEGATRON, &s);
    assert_null(strstr(out, "--tp-comm-overlap"));
    free(out);
    s = make("llama3-70b", "dgx-h100", 64, "tp=8 pp=4 sp=1 zero=3 recompute=full", 256, 8192, PT_BF16);
    s.j.engine = PT_ENGINE_FSDP;
    s.j.tp_comm_overlap = 1;
    out = export_ok(PT_EXPORT_TORCHTITAN, &s);
    assert_non_null(strstr(out, "tensor_parallel_degree = 8\nenable_async_tensor_parallel = true\n"));
    assert_non_null(strstr(out, "\n[compile]\nenable = true\n"));
    free(out);
    {
        pt_cost with, without;
        pt_cost_eval(&s.m, &s.c, &s.j, &s.st, &with);
        s.j.tp_comm_overlap = 0;
        pt_cost_eval(&s.m, &s.c, &s.j, &s.st, &without);
        assert_true(with.step_time_s < without.step_time_s && with.time.tp_comm > 0);
        out = export_ok(PT_EXPORT_TORCHTITAN, &s);
        assert_null(strstr(out, "async"));
        free(out);
    }
}

/* torchtitan FSDP + CP + CPU offload, no pipeline. */
static void test_torchtitan_cp_offload(void **state)
{
    setup s = make("llama3-8b", "dgx-h100", 16, "cp=2 zero=3 offload=params", 64, 8192, PT_BF16);
    char *out = export_ok(PT_EXPORT_TORCHTITAN, &s);
    (void)state;
    assert_int_equal(toml_int(out, "context_parallel_degree"), 2);
    assert_int_equal(toml_int(out, "data_parallel_shard_degree"), 8);
    assert_int_equal(toml_int(out, "local_batch_size"), 1);
    assert_non_null(strstr(out, "enable_cpu_offload = true\n"));
    assert_null(strstr(out, "pipeline_parallel_schedule"));
    assert_non_null(strstr(out, "\nmode = \"none\"\n"));
    golden("torchtitan_llama3_8b_cp2_offload.toml", out);
    free(out);
}

/* fp8 on torchtitan: torchao's Float8Linear through the model converter,
 * the tensorwise recipe, the output layer kept in bf16 as priced, FSDP's
 * gathers left in bf16 as priced; a MoE model's float8 grouped experts are
 * a prototype: refused (job_config.py: Model.converters,
 * Quantize.linear.float8 {recipe_name, filter_fqns,
 * enable_fsdp_float8_all_gather}). */
static void test_torchtitan_fp8(void **state)
{
    setup s = make("llama3-70b", "dgx-h100", 64, "tp=8 zero=3 recompute=full", 512, 8192, PT_FP8);
    char *out = export_ok(PT_EXPORT_TORCHTITAN, &s);
    (void)state;
    assert_non_null(strstr(out, "flavor = \"70B\"\nconverters = [\"quantize.linear.float8\"]\n"));
    assert_non_null(strstr(out, "\n[quantize.linear.float8]\nrecipe_name = \"tensorwise\"\n"
                                "filter_fqns = [\"output\"]\n"));
    assert_null(strstr(out, "enable_fsdp_float8_all_gather"));
    assert_non_null(strstr(out, "\n[compile]\nenable = true\n"));
    golden("torchtitan_llama3_70b_fp8.toml", out);
    free(out);
    s = make("deepseek-v3", "dgx-h100", 64, "tp=1 pp=1 ep=8 zero=3 mbs=1 recompute=full", 64, 4096, PT_FP8);
    export_refused(PT_EXPORT_TORCHTITAN, &s, "dtype", "prototype");
}

/* V-shaped schedules hold two stages per rank. */
static void test_torchtitan_v_schedules(void **state)
{
    setup s = make("llama3-8b", "dgx-h100", 16, "pp=4 vpp=2 schedule=zb-v zero=3", 64, 8192,
                   PT_BF16);
    char *out = export_ok(PT_EXPORT_TORCHTITAN, &s);
    (void)state;
    assert_non_null(strstr(out, "pipeline_parallel_schedule = \"ZBVZeroBubble\"\n"));
    assert_int_equal(toml_int(out, "pipeline_parallel_layers_per_stage"), 4); /* 32/(4*2) */
    assert_non_null(strstr(out, "fsdp_reshard_after_forward = \"always\"\n"));
    free(out);
    s = make("llama3-8b", "dgx-h100", 16, "pp=4 schedule=dualpipe zero=3", 64, 8192, PT_BF16);
    out = export_ok(PT_EXPORT_TORCHTITAN, &s);
    assert_non_null(strstr(out, "pipeline_parallel_schedule = \"DualPipeV\"\n"));
    assert_int_equal(toml_int(out, "pipeline_parallel_layers_per_stage"), 4);
    free(out);
}

/* ---- mixture of experts (issue 6) ---------------------------------------------------- */

/* Mixtral 8x7B as in Megatron-LM's examples/mixtral/train_mixtral_8x7b_distributed.sh
 * (tp=1 pp=4 ep=8, alltoall dispatcher, grouped GEMM; engines-and-formats.md
 * section a): --num-experts 8 --moe-router-topk 2, the expert grid flags. */
static void test_megatron_mixtral_ep8(void **state)
{
    setup s = make("mixtral-8x7b", "dgx-h100", 64, "tp=1 pp=4 ep=8 mbs=1", 256, 4096, PT_BF16);
    char *out = export_ok(PT_EXPORT_MEGATRON, &s);
    (void)state;
    assert_non_null(strstr(out, "--num-experts 8 \\\n  --moe-router-topk 2 \\\n  --moe-ffn-hidden-size 14336"));
    assert_non_null(strstr(out, "--moe-token-dispatcher-type alltoall"));
    assert_non_null(strstr(out, "--expert-model-parallel-size 8 \\\n  --expert-tensor-parallel-size 1"));
    assert_null(strstr(out, "--moe-layer-freq"));
    assert_null(strstr(out, "--multi-latent-attention"));
    golden("megatron_mixtral_8x7b_ep8.txt", out);
    free(out);
}

/* DeepSeek-V3 on 1024 H100 as NVIDIA's benchmark runs it (tp=2 pp=16 ep=64
 * etp=1): MLA flags, shared expert, 3 dense layers first, 61 layers as
 * 3 + 14 x 4 + 2 (--decoder-first/last-pipeline-num-layers). */
static void test_megatron_deepseek_v3(void **state)
{
    setup s = make("deepseek-v3", "dgx-h100", 1024, "tp=2 pp=16 ep=64 etp=1 mbs=1", 8192, 4096,
                   PT_BF16);
    char *out = export_ok(PT_EXPORT_MEGATRON, &s);
    (void)state;
    assert_non_null(strstr(out, "--multi-latent-attention \\\n  --q-lora-rank 1536 \\\n"
                                "  --kv-lora-rank 512 \\\n  --qk-head-dim 128 \\\n"
                                "  --qk-pos-emb-head-dim 64 \\\n  --v-head-dim 128"));
    assert_non_null(strstr(out, "--moe-shared-expert-intermediate-size 2048"));
    assert_non_null(strstr(out, "--moe-layer-freq \"([0]*3+[1]*58)\""));
    assert_non_null(strstr(out, "--decoder-first-pipeline-num-layers 3 \\\n"
                                "  --decoder-last-pipeline-num-layers 2"));
    assert_non_null(strstr(out, "--expert-model-parallel-size 64"));
    assert_null(strstr(out, "--kv-channels"));
    golden("megatron_deepseek_v3_ep64.txt", out);
    free(out);
}

/* The dispatcher and the all-to-all overlap priced (--moe-dispatcher,
 * --moe-a2a-overlap): Megatron-Core's flex dispatcher with the backend named
 * (--moe-flex-dispatcher-backend; the moe_recipes' DeepSeek-V3 GB200 recipe
 * runs hybridep); --overlap-moe-expert-parallel-comm only where its combined
 * 1F1B runs, at pp=1 or interleaved, not under plain 1F1B with pp > 1. */
static void test_megatron_moe_dispatcher(void **state)
{
    setup s = make("deepseek-v3", "gb200-nvl72", 1152, "tp=1 pp=1 ep=64 etp=1 mbs=1 zero=1 recompute=full",
                   9216, 4096, PT_BF16);
    char *out;
    (void)state;
    s.j.moe_dedup_dispatch = PT_MOE_HYBRIDEP;
    s.j.moe_a2a_overlap = 1;
    out = export_ok(PT_EXPORT_MEGATRON, &s);
    assert_non_null(strstr(out, "--moe-token-dispatcher-type flex \\\n  --moe-flex-dispatcher-backend hybridep"));
    assert_non_null(strstr(out, "--overlap-moe-expert-parallel-comm"));
    assert_null(strstr(out, "alltoall"));
    free(out);
    /* plain 1F1B at pp=9: no combined-1F1B host, so no overlap flag (and
     * the cost model exposes the all-to-all there) */
    s.st = th_strategy("tp=1 pp=9 ep=64 etp=1 mbs=1 zero=1 recompute=full pp_first=6 pp_last=6", &s.m, &s.c, &s.j);
    s.j.moe_dedup_dispatch = PT_MOE_DEEPEP;
    out = export_ok(PT_EXPORT_MEGATRON, &s);
    assert_non_null(strstr(out, "--moe-flex-dispatcher-backend deepep"));
    assert_null(strstr(out, "--overlap-moe-expert-parallel-comm"));
    free(out);
    /* torchtitan's TOML names no DeepEP dispatcher */
    s = make("deepseek-v3", "dgx-h100", 64, "tp=1 pp=1 ep=8 zero=3 mbs=1 recompute=full", 64, 4096, PT_BF16);
    s.j.moe_dedup_dispatch = PT_MOE_DEEPEP;
    export_refused(PT_EXPORT_TORCHTITAN, &s, "moe-dispatcher", "no deepep dispatcher");
}

/* torchtitan's deepseek_v3 671B flavor with FSDP and EP (ep=8 borrows from
 * dp_shard*cp*tp = 64), planned without the multi-token-prediction depth
 * (--mtp 0): its TOML has no key for one, so with it the export is refused
 * naming mtp, as is DeepSpeed's. */
static void test_torchtitan_deepseek_v3(void **state)
{
    setup s = make("deepseek-v3", "dgx-h100", 64, "tp=1 pp=1 ep=8 zero=3 mbs=1 recompute=full",
                   64, 4096, PT_BF16);
    char *out;
    (void)state;
    export_refused(PT_EXPORT_TORCHTITAN, &s, "mtp", "which its config cannot carry; plan with --mtp 0");
    s.m.mtp_layers = 0;
    out = export_ok(PT_EXPORT_TORCHTITAN, &s);
    assert_non_null(strstr(out, "[model]\nname = \"deepseek_v3\"\nflavor = \"671B\"\n"));
    assert_int_equal(toml_int(out, "expert_parallel_degree"), 8);
    assert_int_equal(toml_int(out, "expert_tensor_parallel_degree"), 1);
    golden("torchtitan_deepseek_v3_ep8.toml", out);
    free(out);
}

/* torchtitan's llama4 flavors: Scout is 17bx16e, Maverick 17bx128e (the
 * catalog's text models, MoE on every layer / every other); Megatron-LM has
 * no chunked attention, and torchtitan's llama4 raises for CP. */
static void test_torchtitan_llama4(void **state)
{
    setup s = make("llama4-scout-17b-16e", "dgx-h100", 64, "tp=8 pp=1 ep=8 etp=8 sp=1 zero=3 mbs=1 recompute=full",
                   512, 8192, PT_BF16);
    char *out = export_ok(PT_EXPORT_TORCHTITAN, &s);
    (void)state;
    assert_non_null(strstr(out, "[model]\nname = \"llama4\"\nflavor = \"17bx16e\"\n"));
    assert_int_equal(toml_int(out, "tensor_parallel_degree"), 8);
    assert_int_equal(toml_int(out, "expert_parallel_degree"), 8);
    golden("torchtitan_llama4_scout_tp8.toml", out);
    free(out);
    s = make("llama4-maverick-17b-128e", "dgx-h100", 256, "tp=2 pp=1 ep=32 etp=1 sp=1 zero=3 mbs=1 recompute=full",
             512, 8192, PT_BF16);
    out = export_ok(PT_EXPORT_TORCHTITAN, &s);
    assert_non_null(strstr(out, "flavor = \"17bx128e\""));
    free(out);
    s = make("llama4-maverick-17b-128e", "dgx-h100", 256, "tp=2 pp=1 ep=32 etp=1 sp=1 zero=1 mbs=1 recompute=full",
             512, 8192, PT_BF16);
    export_refused(PT_EXPORT_MEGATRON, &s, "model", "chunked attention");
    s = make("llama4-scout-17b-16e", "dgx-h100", 64, "tp=1 pp=1 cp=2 ep=8 zero=3 mbs=1 recompute=full", 64, 8192,
             PT_BF16);
    export_refused(PT_EXPORT_TORCHTITAN, &s, "cp", "NotImplementedError");
}

/* DeepSeek-V3.2's sparse attention: Megatron-Core's "dsa" variant with the
 * indexer's shape; torchtitan's deepseek_v3 has none. */
static void test_megatron_dsa(void **state)
{
    setup s = make("deepseek-v3.2", "dgx-h100", 1024, "tp=2 pp=16 ep=64 etp=1 mbs=1", 8192, 4096, PT_BF16);
    char *out = export_ok(PT_EXPORT_MEGATRON, &s);
    (void)state;
    assert_non_null(strstr(out, "--experimental-attention-variant dsa"));
    assert_non_null(strstr(out, "--dsa-indexer-n-heads 64"));
    assert_non_null(strstr(out, "--dsa-indexer-head-dim 128"));
    assert_non_null(strstr(out, "--dsa-indexer-topk 2048"));
    free(out);
    s = make("deepseek-v3.2", "dgx-h100", 64, "tp=1 pp=1 ep=8 zero=3 mbs=1 recompute=full", 64, 4096, PT_BF16);
    export_refused(PT_EXPORT_TORCHTITAN, &s, "model", "no sparse attention");
}

static void test_refusals_moe(void **state)
{
    setup s = make("mixtral-8x7b", "dgx-h100", 64, "tp=1 pp=4 ep=8", 256, 4096, PT_BF16);
    (void)state;
    /* DeepSpeed-MoE's ep_size lives in the model code */
    export_refused(PT_EXPORT_DEEPSPEED, &s, "ep", "model code");
    /* torchtitan has no mixtral flavor */
    s = make("mixtral-8x7b", "dgx-h100", 64, "tp=1 pp=4 ep=8 zero=3", 256, 4096, PT_BF16);
    export_refused(PT_EXPORT_TORCHTITAN, &s, "model", "deepseek_v3 flavors");
    /* gpt_oss: sliding windows, sinks, biased experts */
    s = make("gpt-oss-120b", "dgx-h100", 64, "tp=1 pp=4 ep=8", 256, 4096, PT_BF16);
    export_refused(PT_EXPORT_MEGATRON, &s, "model", "sliding-window");
    /* torchtitan: etp is tp or 1; ep from dp_shard*cp*tp */
    s = make("deepseek-v3", "dgx-h100", 64, "tp=4 pp=1 ep=4 etp=2 zero=3", 64, 4096, PT_BF16);
    export_refused(PT_EXPORT_TORCHTITAN, &s, "etp", "either");
    s = make("deepseek-v3", "dgx-h100", 64, "tp=2 pp=1 ep=16 etp=1 zero=0", 64, 4096, PT_BF16);
    export_refused(PT_EXPORT_TORCHTITAN, &s, "ep", "borrows");
}

/* ---- refusals ------------------------------------------------------------------------------ */

static void test_refusals_megatron(void **state)
{
    setup s = make("llama3-8b", "dgx-h100", 64, "tp=1 pp=1 zero=3", 512, 8192, PT_BF16);
    (void)state;
    export_refused(PT_EXPORT_MEGATRON, &s, "zero", "ZeRO-1");
    s = make("llama3-8b", "dgx-h100", 64, "tp=1 pp=1 zero=2", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_MEGATRON, &s, "zero", "deepspeed");
    s = make("llama3-8b", "dgx-h100", 64, "pp=2 vpp=2 schedule=zb-v", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_MEGATRON, &s, "schedule", "zb-v");
    s = make("llama3-8b", "dgx-h100", 64, "pp=2 schedule=gpipe", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_MEGATRON, &s, "schedule", "gpipe");
    s = make("llama3-8b", "dgx-h100", 64, "pp=4 schedule=zb-h1", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_MEGATRON, &s, "schedule", "1F1B");
    s = make("llama3-8b", "dgx-h100", 64, "pp=4 schedule=dualpipe", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_MEGATRON, &s, "schedule", NULL);
    /* learned positions end at n_positions=2048 */
    s = make("gpt3-175b", "dgx-a100-80g", 64, "tp=8 pp=8", 512, 4096, PT_BF16);
    export_refused(PT_EXPORT_MEGATRON, &s, "seq_len", "position");
}

static void test_refusals_deepspeed(void **state)
{
    setup s = make("llama3-8b", "dgx-h100", 64, "tp=1 pp=2 zero=3", 512, 8192, PT_BF16);
    (void)state;
    export_refused(PT_EXPORT_DEEPSPEED, &s, "zero", "ZeRO-1");
    s = make("llama3-8b", "dgx-h100", 64, "tp=1 cp=2", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_DEEPSPEED, &s, "cp", NULL);
    s = make("llama3-8b", "dgx-h100", 64, "tp=2", 512, 8192, PT_BF16); /* sp defaults to 1 */
    export_refused(PT_EXPORT_DEEPSPEED, &s, "sp", NULL);
    s = make("llama3-8b", "dgx-h100", 64, "tp=2 sp=0 zero=3", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_DEEPSPEED, &s, "zero", "AutoTP");
    s = make("llama3-8b", "dgx-h100", 64, "recompute=selective", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_DEEPSPEED, &s, "recompute", NULL);
    s = make("llama3-8b", "dgx-h100", 64, "pp=2 vpp=2", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_DEEPSPEED, &s, "vpp", NULL);
    s = make("llama3-8b", "dgx-h100", 64, "pp=2 schedule=gpipe", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_DEEPSPEED, &s, "schedule", NULL);
    s = make("llama3-8b", "dgx-h100", 64, "zero=1", 512, 8192, PT_FP8);
    export_refused(PT_EXPORT_DEEPSPEED, &s, "dtype", NULL);
}

static void test_refusals_torchtitan(void **state)
{
    setup s = make("llama3-8b", "dgx-h100", 64, "tp=2 pp=2 zero=1", 512, 8192, PT_BF16);
    (void)state;
    export_refused(PT_EXPORT_TORCHTITAN, &s, "zero", "zero=3");
    s = make("llama3-8b", "dgx-h100", 64, "zero=2", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_TORCHTITAN, &s, "zero", NULL);
    s = make("llama3-8b", "dgx-h100", 64, "tp=2 sp=0 zero=3", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_TORCHTITAN, &s, "sp", NULL);
    s = make("llama3-8b", "dgx-h100", 64, "pp=4 schedule=zb-h1 zero=3", 512, 8192, PT_BF16);
    export_refused(PT_EXPORT_TORCHTITAN, &s, "schedule", "InterleavedZeroBubble");
    s = make("llama3-8b", "dgx-h100", 64, "zero=3", 512, 8192, PT_FP16);
    export_refused(PT_EXPORT_TORCHTITAN, &s, "dtype", NULL);
    /* no torchtitan model for GPT-3 (learned positions, GELU, biases) */
    s = make("gpt3-175b", "dgx-a100-80g", 64, "tp=8 pp=8 zero=3", 512, 2048, PT_BF16);
    export_refused(PT_EXPORT_TORCHTITAN, &s, "model", "flavor");
}

/* A strategy that fails the general rules is refused before any engine rule. */
static void test_unchecked_strategy(void **state)
{
    setup s = make("llama3-8b", "dgx-h100", 64, "tp=1", 512, 8192, PT_BF16);
    (void)state;
    s.st.dp = 32; /* 1*1*1*32 != 64 */
    export_refused(PT_EXPORT_MEGATRON, &s, "dp", NULL);
}

/* ---- format names and determinism ----------------------------------------------------------- */

static void test_parse_fmt(void **state)
{
    pt_export_fmt f = PT_EXPORT_MEGATRON;
    (void)state;
    assert_int_equal(pt_export_parse_fmt("deepspeed", &f), 1);
    assert_int_equal(f, PT_EXPORT_DEEPSPEED);
    assert_int_equal(pt_export_parse_fmt("torchtitan", &f), 1);
    assert_int_equal(f, PT_EXPORT_TORCHTITAN);
    assert_int_equal(pt_export_parse_fmt("megatron", &f), 1);
    assert_int_equal(f, PT_EXPORT_MEGATRON);
    assert_int_equal(pt_export_parse_fmt("vllm", &f), 0);
    assert_int_equal(pt_export_parse_fmt("Megatron", &f), 0);
    assert_int_equal(pt_export_parse_fmt("", &f), 0);
    assert_int_equal(f, PT_EXPORT_MEGATRON); /* untouched when unknown */
}

static void test_deterministic(void **state)
{
    setup s = make("llama3-8b", "dgx-h100", 64, "tp=2 pp=2 zero=1 recompute=full", 512, 8192,
                   PT_BF16);
    (void)state;
    for (int f = PT_EXPORT_MEGATRON; f <= PT_EXPORT_TORCHTITAN; f++) {
        char *a, *b;
        if (f == PT_EXPORT_TORCHTITAN) s.st.zero = 3;
        if (f == PT_EXPORT_DEEPSPEED) s.st.sp = 0;
        a = export_ok((pt_export_fmt)f, &s);
        b = export_ok((pt_export_fmt)f, &s);
        assert_string_equal(a, b);
        check_text_form("determinism", a);
        free(a);
        free(b);
        s.st.sp = 1;
    }
}

/* ---- the plan ranked first is the plan exported (src/plan/engine_space.c) ---------- */

/* pt_emit_export_priced: the export after a "# " comment with the prediction
 * (Megatron, torchtitan); DeepSpeed's JSON unchanged and the note for stderr. */
static void test_priced_header(void **state)
{
    static const pt_export_fmt fmts[] = {PT_EXPORT_MEGATRON, PT_EXPORT_DEEPSPEED, PT_EXPORT_TORCHTITAN};
    static const char *const strats[] = {"tp=2 pp=2 mbs=1 zero=1", "tp=1 pp=1 mbs=1 zero=3",
                                         "tp=2 pp=2 mbs=1 zero=3"};
    (void)state;
    for (int i = 0; i < 3; i++) {
        setup s = make("llama3-8b", "dgx-h100", 64, strats[i], 512, 8192, PT_BF16);
        pt_cost k;
        pt_diag d;
        char *plain = export_ok(fmts[i], &s), *out = NULL, note[1024], want[1024], desc[256];
        memset(&d, 0, sizeof d);
        assert_int_equal(pt_cost_eval(&s.m, &s.c, &s.j, &s.st, &k), PT_OK);
        assert_int_equal(pt_emit_export_priced(fmts[i], &s.m, &s.c, &s.j, &s.st, &k, 0, &out, note, sizeof note, &d),
                         PT_OK);
        pt_strategy_format(&s.st, desc, sizeof desc);
        snprintf(want, sizeof want, "partita: predicted step %.3f s (analytic model), peak memory %.1f of "
                 "%.1f GiB per device, for %s", k.step_time_s, (double)k.mem.total / PT_GiB,
                 (double)k.device_memory_bytes / PT_GiB, desc);
        assert_string_equal(note, want);
        assert_true(k.step_time_s > 0 && k.mem.total > 0);
        if (fmts[i] == PT_EXPORT_DEEPSPEED) {
            json_error_t e;
            json_t *j = json_loads(out, 0, &e);
            assert_string_equal(out, plain); /* the JSON as before: no comment key */
            assert_non_null(j);
            json_decref(j);
        } else {
            size_t nl = strlen(note);
            assert_memory_equal(out, "# ", 2);
            assert_memory_equal(out + 2, note, nl);
            assert_int_equal(out[2 + nl], '\n');
            assert_string_equal(out + 3 + nl, plain);
        }
        free(plain);
        free(out);
    }
}

/* Single rules of each engine's space (engine_space.c's sources). */
static void test_engine_admits(void **state)
{
    static const struct {
        pt_engine e;
        const char *model, *strategy;
        int admits;
    } cases[] = {
        {PT_ENGINE_MEGATRON, "llama3-8b", "tp=1 pp=4 vpp=2 mbs=1 schedule=interleaved zero=1", 1},
        {PT_ENGINE_MEGATRON, "llama3-8b", "tp=1 pp=4 vpp=2 mbs=1 schedule=zb-v zero=1", 0},
        {PT_ENGINE_MEGATRON, "llama3-8b", "tp=1 pp=4 mbs=1 schedule=zb-h1 zero=1", 0},
        {PT_ENGINE_MEGATRON, "llama3-8b", "tp=1 pp=4 mbs=1 schedule=dualpipe zero=1", 0},
        {PT_ENGINE_MEGATRON, "llama3-8b", "tp=1 pp=1 mbs=1 zero=2", 0},
        {PT_ENGINE_MEGATRON, "llama3-8b", "tp=1 pp=1 mbs=1 zero=1 offload=optimizer", 1},
        {PT_ENGINE_MEGATRON, "llama3-8b", "tp=2 pp=4 mbs=1 zero=1 pp_first=6 pp_last=10", 1},
        {PT_ENGINE_DEEPSPEED, "llama3-8b", "tp=1 pp=2 mbs=1 zero=1 schedule=1f1b", 1},
        {PT_ENGINE_DEEPSPEED, "llama3-8b", "tp=1 pp=2 mbs=1 zero=2 schedule=1f1b", 0},
        {PT_ENGINE_DEEPSPEED, "llama3-8b", "tp=2 pp=1 mbs=1 zero=3 sp=0", 0},
        {PT_ENGINE_DEEPSPEED, "llama3-8b", "tp=1 pp=1 mbs=1 zero=3 offload=params", 1},
        {PT_ENGINE_DEEPSPEED, "llama3-8b", "tp=1 pp=1 cp=2 mbs=1 zero=1", 0},
        {PT_ENGINE_DEEPSPEED, "llama3-8b", "tp=1 pp=1 mbs=1 zero=1 recompute=selective", 0},
        {PT_ENGINE_DEEPSPEED, "mixtral-8x7b", "tp=1 pp=1 ep=8 etp=1 mbs=1 zero=1", 0},
        {PT_ENGINE_FSDP, "llama3-8b", "tp=1 pp=1 mbs=1 zero=3 offload=params", 1},
        {PT_ENGINE_FSDP, "llama3-8b", "tp=1 pp=1 mbs=1 zero=3 offload=optimizer", 0},
        {PT_ENGINE_FSDP, "llama3-8b", "tp=1 pp=1 mbs=1 zero=1", 0},
        {PT_ENGINE_FSDP, "llama3-8b", "tp=2 pp=1 mbs=1 zero=3 sp=0", 0},
        {PT_ENGINE_FSDP, "llama3-8b", "tp=1 pp=4 vpp=2 mbs=1 zero=3 schedule=zb-v", 1},
        {PT_ENGINE_FSDP, "llama3-8b", "tp=1 pp=4 mbs=1 zero=3 schedule=dualpipe", 1},
        {PT_ENGINE_FSDP, "llama3-8b", "tp=1 pp=4 mbs=1 zero=3 schedule=zb-h1", 0},
        {PT_ENGINE_FSDP, "llama3-8b", "tp=2 pp=4 mbs=1 zero=3 pp_first=6 pp_last=10", 0},
        {PT_ENGINE_FSDP, "llama3-70b", "tp=1 pp=16 vpp=1 mbs=1 zero=3 schedule=dualpipe", 0}, /* 80 % 32 */
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setup s = make(cases[i].model, "dgx-h100", 64, cases[i].strategy, 512, 4096, PT_BF16);
        if (pt_engine_admits(cases[i].e, &s.m, &s.j, &s.st) != cases[i].admits)
            fail_msg("%s %s %s: want admits=%d", pt_engine_label(cases[i].e), cases[i].model,
                     cases[i].strategy, cases[i].admits);
    }
}

/* Each engine's search: every plan it returns is one its exporter writes,
 * for dense and MoE models, so the plan ranked first is always exportable. */
static void test_engine_plans_export(void **state)
{
    static const struct {
        const char *model;
        int64_t gpus, gbs, seq;
        pt_engine e;
    } cases[] = {
        {"llama3-8b", 64, 512, 8192, PT_ENGINE_MEGATRON},
        {"llama3-8b", 64, 512, 8192, PT_ENGINE_DEEPSPEED},
        {"llama3-8b", 64, 512, 8192, PT_ENGINE_FSDP},
        {"llama3-70b", 64, 128, 8192, PT_ENGINE_MEGATRON},
        {"llama3-70b", 64, 128, 8192, PT_ENGINE_DEEPSPEED},
        {"llama3-70b", 64, 128, 8192, PT_ENGINE_FSDP},
        {"mixtral-8x7b", 64, 256, 4096, PT_ENGINE_MEGATRON},
        {"deepseek-v3", 512, 1024, 4096, PT_ENGINE_FSDP}, /* --mtp 0: torchtitan's TOML has none */
        {"gpt3-175b", 128, 256, 2048, PT_ENGINE_MEGATRON},
        {"gpt3-175b", 128, 256, 2048, PT_ENGINE_DEEPSPEED},
    };
    static const pt_export_fmt fmt[] = {PT_EXPORT_MEGATRON, PT_EXPORT_DEEPSPEED, PT_EXPORT_TORCHTITAN};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pt_model m = th_model(cases[i].model);
        pt_cluster c = th_cluster("dgx-h100", cases[i].gpus);
        pt_job j = th_job(cases[i].seq, cases[i].gbs, 1);
        pt_search_opts o = th_search_opts(200, 2, cases[i].gbs);
        pt_search_result r;
        pt_diag d;
        memset(&d, 0, sizeof d);
        j.engine = cases[i].e;
        if (j.engine != PT_ENGINE_MEGATRON) m.mtp_layers = 0;
        if (pt_search_engine(&m, &c, &j, &o, &r, &d) != PT_OK) fail_msg("%s: %s", cases[i].model, d.msg);
        if (r.n < 10) fail_msg("%s on %s: %d plans", cases[i].model, pt_engine_label(cases[i].e), r.n);
        for (int k = 0; k < r.n; k++) {
            char *out = NULL, sbuf[256];
            pt_cost again;
            pt_strategy_format(&r.plans[k].st, sbuf, sizeof sbuf);
            if (pt_emit_export(fmt[cases[i].e], &m, &c, &j, &r.plans[k].st, &out, &d) != PT_OK)
                fail_msg("%s plan %d (%s) not exported to %s: %s", cases[i].model, k + 1, sbuf,
                         pt_engine_label(cases[i].e), d.msg);
            free(out);
            /* priced as that engine prices it */
            assert_int_equal(pt_cost_eval(&m, &c, &j, &r.plans[k].st, &again), PT_OK);
            th_near_rel(r.plans[k].cost.step_time_s, again.step_time_s, 1e-12, "step time as the engine");
            assert_int_equal(pt_engine_of(&m, &j, &r.plans[k].st), cases[i].e);
        }
        pt_search_free(&r);
    }
}

/* --engine any: the union of the engines' spaces, each plan attributed to the
 * first of megatron, torchtitan, deepspeed that runs it and priced as it; the
 * best is no slower than any one engine's best, and the order is the
 * search's (score, then keys). */
static void test_engine_any(void **state)
{
    static const pt_engine one[] = {PT_ENGINE_MEGATRON, PT_ENGINE_FSDP, PT_ENGINE_DEEPSPEED};
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 64);
    pt_job j = th_job(8192, 512, 1);
    pt_search_opts o = th_search_opts(300, 2, 512);
    pt_search_result r, e;
    pt_diag d;
    int64_t evaluated = 0;
    int seen[3] = {0, 0, 0};
    (void)state;
    memset(&d, 0, sizeof d);
    j.engine = PT_ENGINE_ANY;
    assert_int_equal(pt_search_engine(&m, &c, &j, &o, &r, &d), PT_OK);
    assert_int_equal(r.n, 300);
    for (int k = 0; k < r.n; k++) {
        pt_engine g = pt_engine_of(&m, &j, &r.plans[k].st);
        pt_job jg = j;
        pt_cost again;
        assert_true(g != PT_ENGINE_ANY);
        seen[g]++;
        assert_true(pt_engine_admits(g, &m, &j, &r.plans[k].st));
        for (int i = 0; one[i] != g; i++) assert_false(pt_engine_admits(one[i], &m, &j, &r.plans[k].st));
        jg.engine = g;
        assert_int_equal(pt_cost_eval(&m, &c, &jg, &r.plans[k].st, &again), PT_OK);
        th_near_rel(r.plans[k].cost.step_time_s, again.step_time_s, 1e-12, "step time as its engine");
        if (k > 0) assert_true(r.plans[k - 1].score >= r.plans[k].score);
    }
    assert_true(seen[PT_ENGINE_MEGATRON] > 0 && seen[PT_ENGINE_FSDP] > 0 && seen[PT_ENGINE_DEEPSPEED] > 0);
    for (int i = 0; i < 3; i++) {
        pt_job ji = j;
        pt_search_opts oi = th_search_opts(1, 2, 512);
        ji.engine = one[i];
        assert_int_equal(pt_search_engine(&m, &c, &ji, &oi, &e, &d), PT_OK);
        assert_true(e.n == 1 && r.plans[0].score >= e.plans[0].score);
        pt_search_free(&e);
    }
    /* every candidate is counted once: the engines' spaces split the union */
    for (int i = 0; i < 3; i++) {
        pt_job ji = j;
        pt_search_opts oi = th_search_opts(1, 2, 512);
        ji.engine = one[i];
        assert_int_equal(pt_search_engine(&m, &c, &ji, &oi, &e, &d), PT_OK);
        evaluated += e.evaluated;
        pt_search_free(&e);
    }
    assert_true(r.evaluated < evaluated); /* the engines' spaces overlap (e.g. zero=0, 1f1b) */
    assert_true(r.evaluated > 0 && r.fitting <= r.evaluated);
    pt_search_free(&r);
}

/* What an engine cannot run at all, or a --fix outside its space: refused. */
static void test_engine_refusals(void **state)
{
    pt_model moe = th_model("mixtral-8x7b"), m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 64);
    pt_job j = th_job(4096, 256, 1);
    pt_search_opts o = th_search_opts(5, 1, 256);
    pt_search_result r;
    pt_diag d;
    (void)state;
    memset(&d, 0, sizeof d);
    j.engine = PT_ENGINE_DEEPSPEED;
    assert_int_equal(pt_search_engine(&moe, &c, &j, &o, &r, &d), PT_EINPUT);
    assert_non_null(strstr(d.msg, "expert"));
    j.engine = PT_ENGINE_FSDP;
    j.dtype = PT_FP16;
    assert_int_equal(pt_search_engine(&m, &c, &j, &o, &r, &d), PT_EINPUT);
    assert_string_equal(d.field, "dtype");
    j.dtype = PT_BF16;
    j.engine = PT_ENGINE_MEGATRON;
    assert_int_equal(pt_space_parse("zero=2,3", "--space", &o.space, &d), PT_OK);
    assert_int_equal(pt_search_engine(&m, &c, &j, &o, &r, &d), PT_EINPUT);
    assert_string_equal(d.field, "zero");
    assert_non_null(strstr(d.msg, "megatron cannot run zero=2"));
    /* a list the engine takes part of is narrowed, not refused */
    pt_space_init(&o.space);
    assert_int_equal(pt_space_parse("zero=1,3", "--space", &o.space, &d), PT_OK);
    assert_int_equal(pt_search_engine(&m, &c, &j, &o, &r, &d), PT_OK);
    assert_true(r.n > 0);
    for (int k = 0; k < r.n; k++) assert_int_equal(r.plans[k].st.zero, 1);
    pt_search_free(&r);
    assert_string_equal(pt_engine_label(PT_ENGINE_FSDP), "torchtitan");
    assert_string_equal(pt_engine_label(PT_ENGINE_ANY), "any");
}

/* ---- rotary, sliding windows, router, torchtitan offload (issue 14) ------------------ */

/* A model from a Hugging Face config, with a strategy resolved for it. */
static setup make_hf(const char *config, const char *strategy, int64_t n)
{
    setup s;
    pt_diag d;
    memset(&s, 0, sizeof s);
    if (pt_hf_parse(config, "config.json", &s.m, &d) != PT_OK) fail_msg("config refused: %s", d.msg);
    s.c = th_cluster("dgx-h100", n);
    s.j = th_job(4096, 64, 1);
    s.st = th_strategy(strategy, &s.m, &s.c, &s.j);
    return s;
}

/* GLM-4.5-Air (its config.json, tests/data/hf/glm4.5-air.json): half of
 * each head rotated (--rotary-percent 0.5, arguments.py), q/k/v biases
 * only, one dense layer first, a shared expert of the routed width, and
 * DeepSeek-V3's sigmoid router with the expert bias (Glm4MoeTopkRouter). */
static void test_megatron_glm4_moe(void **state)
{
    char *text = NULL, *out;
    pt_diag d;
    setup s;
    (void)state;
    assert_int_equal(pt_read_file("tests/data/hf/glm4.5-air.json", &text, &d), PT_OK);
    s = make_hf(text, "tp=2 pp=2 ep=8 etp=1 zero=1", 64);
    free(text);
    out = export_ok(PT_EXPORT_MEGATRON, &s);
    assert_non_null(strstr(out, "--rotary-percent 0.5"));
    assert_non_null(strstr(out, "--add-qkv-bias"));
    assert_non_null(strstr(out, "--moe-layer-freq \"([0]*1+[1]*45)\""));
    assert_non_null(strstr(out, "--moe-shared-expert-intermediate-size 1408"));
    assert_non_null(strstr(out, "--moe-router-score-function sigmoid"));
    assert_non_null(strstr(out, "--moe-router-enable-expert-bias"));
    assert_null(strstr(out, "--moe-router-topk-scaling-factor")); /* routed_scaling_factor 1.0 */
    golden("megatron_glm4.5_air_ep8.txt", out);
    free(out);
}

/* Llama 3.1's base 500000 and llama3 scaling by 8 (its config.json); Llama 2
 * keeps Megatron's default base 10000, so no flag; DeepSeek-V3's router
 * (sigmoid scores, 8 groups choosing 4, weights x2.5, aux-loss-free expert
 * bias with the sequence-wise loss) and yarn from 4096 by 40 with mscale 1
 * (its config.json; the flag names are arguments.py's _add_moe_args and
 * _add_mla_args). */
static void test_megatron_rope_and_router(void **state)
{
    setup s = make("llama3.1-405b", "dgx-h100", 512, "tp=8 pp=8 pp_first=15 pp_last=15 zero=1", 512, 8192,
                   PT_BF16);
    char *out = export_ok(PT_EXPORT_MEGATRON, &s);
    (void)state;
    assert_non_null(strstr(out, "--rotary-base 500000 \\\n"));
    assert_non_null(strstr(out, "--use-rope-scaling \\\n  --rope-scaling-factor 8 \\\n"));
    assert_non_null(strstr(out, "--decoder-first-pipeline-num-layers 15 \\\n"));
    assert_null(strstr(out, "--moe-router"));
    free(out);
    s = make("llama2-7b", "dgx-h100", 64, "tp=2 zero=1", 512, 4096, PT_BF16);
    out = export_ok(PT_EXPORT_MEGATRON, &s);
    assert_null(strstr(out, "--rotary-base"));
    assert_null(strstr(out, "rope-scaling"));
    free(out);
    s = make("deepseek-v3", "dgx-h100", 1024, "tp=2 pp=16 ep=8 etp=1 zero=1", 4096, 4096, PT_BF16);
    out = export_ok(PT_EXPORT_MEGATRON, &s);
    assert_non_null(strstr(out, "--moe-router-score-function sigmoid \\\n"));
    assert_non_null(strstr(out, "--moe-router-num-groups 8 \\\n  --moe-router-group-topk 4 \\\n"));
    assert_non_null(strstr(out, "--moe-router-topk-scaling-factor 2.5 \\\n"));
    assert_non_null(strstr(out, "--moe-router-enable-expert-bias \\\n"));
    assert_non_null(strstr(out, "--moe-router-load-balancing-type seq_aux_loss \\\n"));
    assert_non_null(strstr(out, "--rotary-scaling-factor 40 \\\n  --mscale 1 \\\n  --mscale-all-dim 1 \\\n"));
    assert_null(strstr(out, "--rotary-base")); /* 10000, Megatron's default */
    assert_null(strstr(out, "--moe-router-pre-softmax"));
    free(out);
    /* Mixtral: softmax, renormalised top-2, the GShard loss, base 1e6 */
    s = make("mixtral-8x7b", "dgx-h100", 64, "ep=8 zero=1", 256, 4096, PT_BF16);
    out = export_ok(PT_EXPORT_MEGATRON, &s);
    assert_non_null(strstr(out, "--moe-router-score-function softmax \\\n"));
    assert_non_null(strstr(out, "--moe-router-load-balancing-type aux_loss \\\n"));
    assert_non_null(strstr(out, "--rotary-base 1000000 \\\n"));
    assert_null(strstr(out, "--moe-router-enable-expert-bias"));
    free(out);
}

/* Hugging Face configs: Qwen2.5's base 1e6; a Mistral window of 4096 on every
 * layer is (4095, 0) (the token and the 4095 before it); Qwen2 windows on the
 * layers from max_window_layers on, DeepSeek-V2's top-k weights left
 * unnormalised (pre-softmax), dynamic scaling and a llama3 scaling from other
 * than 8192 positions are what Megatron's flags cannot say: refused. */
static void test_megatron_hf_rope_window(void **state)
{
    static const char qwen25[] = "{\"model_type\": \"qwen2\", \"hidden_size\": 3584, \"intermediate_size\": 18944, "
        "\"num_hidden_layers\": 28, \"num_attention_heads\": 28, \"num_key_value_heads\": 4, \"vocab_size\": 152064, "
        "\"max_position_embeddings\": 131072, \"rope_theta\": 1000000.0, \"use_sliding_window\": false, "
        "\"sliding_window\": 131072, \"max_window_layers\": 28, \"tie_word_embeddings\": false}";
    static const char mistral[] = "{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"intermediate_size\": 14336, "
        "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"vocab_size\": 32000, "
        "\"max_position_embeddings\": 32768, \"rope_theta\": 10000.0, \"sliding_window\": 4096}";
    static const char qwen2_part[] = "{\"model_type\": \"qwen2\", \"hidden_size\": 1024, \"intermediate_size\": 4096, "
        "\"num_hidden_layers\": 24, \"num_attention_heads\": 16, \"vocab_size\": 32000, "
        "\"max_position_embeddings\": 32768, \"use_sliding_window\": true, \"sliding_window\": 2048, "
        "\"max_window_layers\": 20}";
    static const char dynamic[] = "{\"model_type\": \"llama\", \"hidden_size\": 1024, \"intermediate_size\": 4096, "
        "\"num_hidden_layers\": 8, \"num_attention_heads\": 16, \"vocab_size\": 32000, "
        "\"max_position_embeddings\": 8192, \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2.0}}";
    static const char l3_4k[] = "{\"model_type\": \"llama\", \"hidden_size\": 1024, \"intermediate_size\": 4096, "
        "\"num_hidden_layers\": 8, \"num_attention_heads\": 16, \"vocab_size\": 32000, "
        "\"max_position_embeddings\": 8192, \"rope_parameters\": {\"rope_theta\": 500000.0, \"rope_type\": \"llama3\", "
        "\"factor\": 32.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, "
        "\"original_max_position_embeddings\": 4096}}";
    setup s = make_hf(qwen25, "tp=4 zero=1", 64);
    char *out = export_ok(PT_EXPORT_MEGATRON, &s);
    (void)state;
    assert_non_null(strstr(out, "--rotary-base 1000000 \\\n"));
    assert_null(strstr(out, "--window-size"));
    free(out);
    s = make_hf(mistral, "tp=4 zero=1", 64);
    out = export_ok(PT_EXPORT_MEGATRON, &s);
    assert_non_null(strstr(out, "--window-size 4095,0 \\\n"));
    assert_null(strstr(out, "--rotary-base"));
    free(out);
    s = make_hf(qwen2_part, "tp=2 zero=1", 16);
    export_refused(PT_EXPORT_MEGATRON, &s, "model", "4 of its 24 layers");
    s = make_hf(dynamic, "tp=2 zero=1", 16);
    export_refused(PT_EXPORT_MEGATRON, &s, "rope_scaling", "\"dynamic\"");
    s = make_hf(l3_4k, "tp=2 zero=1", 16);
    export_refused(PT_EXPORT_MEGATRON, &s, "rope_scaling", "8192 original positions");
}

/* torchtitan's enable_cpu_offload moves parameters, gradients and optimizer
 * states to the host together (FSDP2 CPUOffloadPolicy): offload=params maps
 * to it, offload=optimizer (the states alone) is refused. */
static void test_torchtitan_offload_meaning(void **state)
{
    setup s = make("llama3-8b", "dgx-h100", 16, "zero=3 offload=optimizer", 64, 8192, PT_BF16);
    char *out;
    (void)state;
    export_refused(PT_EXPORT_TORCHTITAN, &s, "offload", "CPUOffloadPolicy");
    s = make("llama3-8b", "dgx-h100", 16, "zero=3 offload=params", 64, 8192, PT_BF16);
    out = export_ok(PT_EXPORT_TORCHTITAN, &s);
    assert_non_null(strstr(out, "enable_cpu_offload = true\n"));
    free(out);
    s = make("llama3-8b", "dgx-h100", 16, "zero=3", 64, 8192, PT_BF16);
    out = export_ok(PT_EXPORT_TORCHTITAN, &s);
    assert_null(strstr(out, "enable_cpu_offload"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_megatron_gpt3_vpp),
        cmocka_unit_test(test_megatron_mixtral_ep8),
        cmocka_unit_test(test_megatron_deepseek_v3),
        cmocka_unit_test(test_megatron_moe_dispatcher),
        cmocka_unit_test(test_torchtitan_deepseek_v3),
        cmocka_unit_test(test_torchtitan_llama4),
        cmocka_unit_test(test_megatron_dsa),
        cmocka_unit_test(test_refusals_moe),
        cmocka_unit_test(test_megatron_llama3_70b_gqa),
        cmocka_unit_test(test_megatron_llama3_8b_cp_offload_fp8),
        cmocka_unit_test(test_deepspeed_llama3_8b_zero3),
        cmocka_unit_test(test_deepspeed_pipeline_fp16_offload),
        cmocka_unit_test(test_deepspeed_offload_params),
        cmocka_unit_test(test_torchtitan_llama3_8b),
        cmocka_unit_test(test_torchtitan_ddp_interleaved),
        cmocka_unit_test(test_torchtitan_cp_offload),
        cmocka_unit_test(test_torchtitan_fp8),
        cmocka_unit_test(test_torchtitan_v_schedules),
        cmocka_unit_test(test_refusals_megatron),
        cmocka_unit_test(test_refusals_deepspeed),
        cmocka_unit_test(test_refusals_torchtitan),
        cmocka_unit_test(test_unchecked_strategy),
        cmocka_unit_test(test_parse_fmt),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_priced_header),
        cmocka_unit_test(test_engine_admits),
        cmocka_unit_test(test_engine_plans_export),
        cmocka_unit_test(test_engine_any),
        cmocka_unit_test(test_engine_refusals),
        cmocka_unit_test(test_megatron_rope_and_router),
        cmocka_unit_test(test_megatron_glm4_moe),
        cmocka_unit_test(test_megatron_hf_rope_window),
        cmocka_unit_test(test_torchtitan_offload_meaning),
        cmocka_unit_test(test_tp_comm_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
