/*
 * fuzz_strategy.c -- libFuzzer harness of the strategy string
 * (pt_strategy_parse, src/strategy/strategy.c), then of pt_strategy_resolve
 * against built-in models and clusters, then of pricing what resolved.
 *
 * Each input is the text of --strategy.  Parsing either refuses with a
 * diagnostic that points into the string ("strategy", line 1, a column inside
 * it) or sets only known keys.  Resolving against each context either refuses
 * (the diagnostic names a key) or yields a strategy that pt_strategy_check
 * accepts, whose degrees multiply to the device count, whose canonical text
 * (pt_strategy_format) parses and resolves back to the same strategy, and
 * whose price (pt_cost_eval) is a positive, finite step time and a
 * non-negative memory.
 */
#include <math.h>

#include "fuzz.h"

typedef struct ctx {
    const char *model, *cluster;
    int64_t gpus;
    pt_job job;
} ctx;

/* Contexts that reach different rules: GQA, a 3-level-free 1-level cluster,
 * no global batch given, fp16/fp8, each engine. */
static const ctx contexts[] = {
    {"llama3-8b", "dgx-h100", 64, {.seq_len = 4096, .global_batch = 512, .dtype = PT_BF16, .flash_attention = 1}},
    {"gpt3-175b", "dgx-a100-80g", 1024,
     {.seq_len = 2048, .global_batch = 1536, .dtype = PT_FP16, .engine = PT_ENGINE_DEEPSPEED}},
    {"mpt-7b", "dgx-a100-40g", 16, {.seq_len = 2048, .dtype = PT_BF16, .flash_attention = 1, .engine = PT_ENGINE_FSDP}},
    {"gpt-1.7b", "gb200-nvl72", 72, {.seq_len = 2048, .global_batch = 72, .dtype = PT_FP8, .flash_attention = 1}},
    /* mixture of experts: ep/etp rules, MLA, dense first layers, 61 layers */
    {"deepseek-v3", "dgx-h100", 1024, {.seq_len = 4096, .global_batch = 8192, .dtype = PT_BF16, .flash_attention = 1}},
    {"mixtral-8x7b", "dgx-h100", 64,
     {.seq_len = 4096, .global_batch = 256, .dtype = PT_BF16, .flash_attention = 1, .moe_imbalance = 1.5,
      .moe_capacity = 1.0}},
    /* packed documents: attention within 1k-token documents of 32k sequences */
    {"llama3-8b", "dgx-h100", 64,
     {.seq_len = 32768, .global_batch = 64, .doc_len = 1024, .dtype = PT_BF16, .flash_attention = 1}},
};
#define NCTX (sizeof contexts / sizeof contexts[0])

static pt_model models[NCTX];
static pt_cluster clusters[NCTX];

static void load_contexts(void)
{
    static int loaded;
    pt_diag d;
    if (loaded) return;
    for (size_t i = 0; i < NCTX; i++) {
        FZ_CHECK(pt_model_builtin(contexts[i].model, &models[i], &d) == PT_OK);
        FZ_CHECK(pt_cluster_builtin(contexts[i].cluster, &clusters[i], &d) == PT_OK);
        FZ_CHECK(pt_cluster_resize(&clusters[i], contexts[i].gpus, &d) == PT_OK);
    }
    loaded = 1;
}

static int same(const pt_strategy *a, const pt_strategy *b)
{
    return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->cp == b->cp &&
           a->ep == b->ep && a->etp == b->etp && a->vpp == b->vpp && a->mbs == b->mbs &&
           a->gbs == b->gbs && a->sp == b->sp && a->zero == b->zero &&
           a->recompute == b->recompute && a->schedule == b->schedule &&
           a->offload == b->offload && a->pp_first == b->pp_first && a->pp_last == b->pp_last;
}

static void check_resolved(const pt_strategy *st, const pt_model *m, const pt_cluster *c,
                           const pt_job *job)
{
    pt_strategy again;
    pt_diag d;
    pt_cost cost;
    unsigned set = 0;
    char text[512];
    int64_t f, mid, l;
    FZ_CHECK(pt_strategy_check(st, m, c, job, &d) == PT_OK);
    FZ_CHECK((int64_t)st->tp * st->pp * st->cp * st->dp == c->devices);
    FZ_CHECK(st->gbs >= 1 && st->gbs % ((int64_t)st->mbs * st->dp) == 0);
    FZ_CHECK(st->zero >= 0 && st->zero <= 3 && (st->sp == 0 || st->sp == 1));
    pt_strategy_stage_layers(st, m->layers, &f, &mid, &l);
    FZ_CHECK(f >= 1 && mid >= 1 && l >= 1);
    if (st->pp == 1) FZ_CHECK(f == m->layers);
    else FZ_CHECK(f + l + (st->pp - 2) * mid == m->layers);

    /* the canonical text is a strategy that resolves to the same thing */
    pt_strategy_format(st, text, sizeof text);
    FZ_CHECK(strlen(text) + 1 < sizeof text);
    FZ_CHECK(pt_strategy_parse(text, &again, &set, &d) == PT_OK);
    FZ_CHECK(pt_strategy_resolve(&again, set, m, c, job, &d) == PT_OK);
    FZ_CHECK(same(st, &again));

    FZ_CHECK(pt_cost_eval(m, c, job, st, &cost) == PT_OK);
    FZ_CHECK(isfinite(cost.step_time_s) && cost.step_time_s > 0);
    FZ_CHECK(isfinite(cost.tokens_per_s) && cost.tokens_per_s > 0);
    FZ_CHECK(cost.mem.total >= 0 && cost.mem.weights >= 0 && cost.mem.activations >= 0);
    FZ_CHECK(cost.microbatches >= 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_text(data, size);
    pt_strategy st;
    pt_diag d;
    unsigned set = 0;
    pt_status s;
    load_contexts();
    memset(&d, 0, sizeof d);
    s = pt_strategy_parse(text, &st, &set, &d);
    FZ_CHECK(s == PT_OK || s == PT_EINPUT);
    if (s != PT_OK) {
        fz_check_diag(&d, "strategy");
        FZ_CHECK(d.line == 1 && (size_t)d.col <= strlen(text));
        free(text);
        return 0;
    }
    FZ_CHECK(set < (1u << 16));
    for (size_t i = 0; i < NCTX; i++) {
        pt_strategy r = st;
        memset(&d, 0, sizeof d);
        s = pt_strategy_resolve(&r, set, &models[i], &clusters[i], &contexts[i].job, &d);
        FZ_CHECK(s == PT_OK || s == PT_EINPUT);
        if (s == PT_OK) {
            check_resolved(&r, &models[i], &clusters[i], &contexts[i].job);
        } else {
            fz_check_diag(&d, NULL);
            FZ_CHECK(d.field[0] != '\0');
        }
    }
    free(text);
    return 0;
}
