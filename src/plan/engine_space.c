/*
 * engine_space.c -- what each training engine's current release can run, as
 * a search space (search.h: pt_engine_admits, pt_search_engine), so that the plan `partita plan --engine E` ranks first is
 * one E runs and the one `--export E` writes.
 *
 * Megatron-LM: 1F1B, or interleaved 1F1B with vpp > 1 -- its pipeline
 *   package implements "two different pipeline parallelism schedules (one
 *   without interleaving and one with interleaving)" and no others
 *   (NVIDIA/Megatron-LM docs/api-guide/core/pipeline_parallel.md; the
 *   zero-bubble schedules live in the sail-sg fork, not in the release);
 *   its distributed optimizer (--use-distributed-optimizer, ZeRO-1 style:
 *   zero=0 or 1); optimizer CPU offload (--optimizer-cpu-offload), no
 *   parameter offload; context parallelism (--context-parallel-size);
 *   uneven first/last stages (--decoder-first/last-pipeline-num-layers);
 *   expert parallelism (--expert-model-parallel-size,
 *   --expert-tensor-parallel-size).  Megatron-FSDP
 *   (--data-parallel-sharding-strategy) would give ZeRO-2/3, but the export
 *   (src/emit/export.c) does not write it, so it is not searched.
 * DeepSpeed: ZeRO stages 0-3 (zero_optimization.stage), offload_optimizer
 *   (stages 1-3) and offload_param (stage 3); its pipeline engine asserts
 *   "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"
 *   (deepspeed/runtime/pipe/engine.py, PipelineEngine.__init__), holds one
 *   stage per rank and runs its own 1F1B TrainSchedule; AutoTP training
 *   combines with ZeRO 0-2 only; no context-parallel or Megatron-style
 *   sequence-parallel key, whole-layer activation checkpointing (recompute
 *   none or full), stages partitioned in code (no uneven first/last); fp8
 *   needs Transformer Engine layers in the model code; DeepSpeed-MoE's
 *   expert parallelism is set in the model code (MoE(ep_size=...)), which
 *   the config cannot carry, so a model with experts is not searched.
 * torchtitan: FSDP2 (zero=3) or DDP (zero=0), no ZeRO-1/2; CPU offload
 *   (training.enable_cpu_offload) moves parameters, gradients and
 *   optimizer states together, i.e. offload=params; TP always with
 *   sequence parallel; context parallelism; pipeline schedules GPipe, 1F1B,
 *   Interleaved1F1B (vpp > 1), ZBVZeroBubble and DualPipeV (two stages per
 *   rank: zb-v with vpp=2, dualpipe); the layers split into equal stages
 *   (pp*vpp of them, 2*pp for the V shapes; the legacy config's
 *   first/last_stage_less_layers count stages, not layers); expert
 *   parallelism with etp = 1 or tp and ep dividing dp_shard*cp*tp
 *   (torchtitan/distributed/parallel_dims.py); bf16 from the config; no
 *   context parallelism for llama4, whose chunked attention needs
 *   FlexAttention (its model.py raises NotImplementedError for
 *   context_parallel_degree > 1: pytorch/torchtitan issue #2468, 2026).
 * Megatron-LM has no chunked attention, so it does not run Llama 4;
 * torchtitan's deepseek_v3 has no DeepSeek Sparse Attention (V3.2), which
 * Megatron-Core runs (--experimental-attention-variant dsa).
 * Sources: docs/reference/engines-and-formats.md sections a-c, and the
 * files named above.
 * Not here: writing the launch configuration (src/emit/export.c), whose
 * refusals these rules follow (tests/test_export.c checks that every plan
 * an engine's search returns exports).
 */
#include "plan/search.h"
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The values each engine takes per key, where they are a plain list (the
 * rules across keys are admits_rules); indexed by pt_engine. */
static const char *const engine_space[] = {
    /* PT_ENGINE_MEGATRON */
    "schedule=1f1b,interleaved zero=0,1 offload=none,optimizer",
    /* PT_ENGINE_DEEPSPEED */
    "cp=1 sp=0 vpp=1 schedule=1f1b recompute=none,full pp_first=0 pp_last=0",
    /* PT_ENGINE_FSDP (torchtitan) */
    "zero=0,3 offload=none,params schedule=gpipe,1f1b,interleaved,zb-v,dualpipe pp_first=0 pp_last=0",
};

/* The order --engine any attributes a plan in: the first that admits it. */
static const pt_engine any_order[] = {PT_ENGINE_MEGATRON, PT_ENGINE_FSDP, PT_ENGINE_DEEPSPEED};

const char *pt_engine_label(pt_engine e)
{
    switch (e) {
    case PT_ENGINE_MEGATRON: return "megatron";
    case PT_ENGINE_DEEPSPEED: return "deepspeed";
    case PT_ENGINE_FSDP: return "torchtitan";
    case PT_ENGINE_ANY: return "any";
    }
    return "?";
}

/* Why engine e cannot run job at all (NULL when it can): the model or the
 * precision, whatever the strategy. */
static const char *job_refusal(pt_engine e, const pt_model *m, const pt_job *job, const char **key)
{
    if (e == PT_ENGINE_MEGATRON && m->window_chunked && m->window_layers > 0) {
        *key = "engine";
        return "Megatron-LM has no chunked attention (Llama 4's attention_chunk_size); use --engine "
               "torchtitan, whose llama4 model runs it";
    }
    if (e == PT_ENGINE_FSDP && m->index_topk > 0) {
        *key = "engine";
        return "torchtitan's deepseek_v3 has no sparse attention (DeepSeek-V3.2's DSA); use --engine "
               "megatron";
    }
    if (e != PT_ENGINE_MEGATRON && m->mtp_layers > 0) {
        *key = "mtp";
        return e == PT_ENGINE_FSDP
                   ? "torchtitan's TOML config has no multi-token-prediction key (its deepseek_v3 takes "
                     "model.num_mtp_layers in its newer Python config); use --mtp 0, or --engine megatron"
                   : "deepspeed's config cannot carry multi-token prediction (it lives in the model code); "
                     "use --mtp 0, or --engine megatron";
    }
    if (e == PT_ENGINE_DEEPSPEED && m->experts > 0) {
        *key = "engine";
        return "deepspeed's config cannot carry expert parallelism (DeepSpeed-MoE sets ep_size in the "
               "model code); use --engine megatron or torchtitan";
    }
    if (e == PT_ENGINE_DEEPSPEED && job->dtype == PT_FP8) {
        *key = "dtype";
        return "deepspeed cannot run fp8 from its config (FP8 needs Transformer Engine layers in the "
               "model code); use bf16, or --engine megatron";
    }
    if (e == PT_ENGINE_FSDP && job->dtype == PT_FP16) {
        *key = "dtype";
        return "torchtitan's config trains in bf16 or fp8 (mixed_precision_param has no fp16); use bf16, "
               "or --engine megatron";
    }
    if (e == PT_ENGINE_FSDP && job->dtype == PT_FP8 && m->experts > 0) {
        *key = "dtype";
        return "torchtitan's float8 converter swaps nn.Linear only (its float8 grouped experts are a "
               "prototype); use bf16, or --engine megatron";
    }
    return NULL;
}

/* The per-key lists of engine_space, as C, and the rules across keys. */
static int admits_rules(pt_engine e, const pt_model *m, const pt_strategy *st)
{
    int piped = st->pp > 1;
    switch (e) {
    case PT_ENGINE_MEGATRON:
        if (st->zero > 1 || st->offload == PT_OFF_PARAMS) return 0;
        if (piped && st->schedule != PT_SCHED_1F1B && st->schedule != PT_SCHED_INTERLEAVED) return 0;
        if (st->vpp > 1 && st->schedule != PT_SCHED_INTERLEAVED) return 0;
        return 1;
    case PT_ENGINE_DEEPSPEED:
        if (st->cp > 1 || st->sp || st->vpp > 1 || st->pp_first || st->pp_last) return 0;
        if (st->recompute == PT_RC_SELECTIVE) return 0;
        if (piped && (st->schedule != PT_SCHED_1F1B || st->zero >= 2)) return 0;
        if (st->tp > 1 && st->zero == 3) return 0;
        return 1;
    case PT_ENGINE_FSDP: {
        int64_t stages = st->pp, shard = st->zero == 3 ? st->dp : 1;
        if (st->zero == 1 || st->zero == 2 || st->offload == PT_OFF_OPTIMIZER) return 0;
        if (st->tp > 1 && !st->sp) return 0;
        if (st->pp_first || st->pp_last) return 0;
        if (piped) {
            switch (st->schedule) {
            case PT_SCHED_GPIPE:
            case PT_SCHED_1F1B:
                if (st->vpp != 1) return 0;
                break;
            case PT_SCHED_INTERLEAVED: stages = (int64_t)st->pp * st->vpp; break;
            case PT_SCHED_ZBV:
            case PT_SCHED_DUALPIPE:
                if (st->vpp > 2) return 0;
                stages = 2 * (int64_t)st->pp;
                break;
            default: return 0; /* zb-h1 with one stage per rank */
            }
            if (m->layers % stages) return 0;
        }
        if (m->experts > 0 &&
            ((st->etp != 1 && st->etp != st->tp) || (shard * st->cp * st->tp) % st->ep))
            return 0;
        if (m->window_chunked && st->cp > 1) return 0; /* llama4: no CP with its flex attention */
        return 1;
    }
    case PT_ENGINE_ANY: break;
    }
    return 0;
}

int pt_engine_admits(pt_engine e, const pt_model *m, const pt_job *job, const pt_strategy *st)
{
    const char *key;
    if (e == PT_ENGINE_ANY || job_refusal(e, m, job, &key)) return 0;
    return admits_rules(e, m, st);
}

pt_engine pt_engine_of(const pt_model *m, const pt_job *job, const pt_strategy *st)
{
    if (job->engine != PT_ENGINE_ANY) return job->engine;
    for (size_t i = 0; i < sizeof any_order / sizeof any_order[0]; i++)
        if (pt_engine_admits(any_order[i], m, job, st)) return any_order[i];
    return PT_ENGINE_ANY;
}

/* Narrows the dimensions so->space leaves open to what engine e's current
 * release can run; the rules across keys are pt_engine_admits'. */
static pt_status restrict_engine(pt_search_opts *so, pt_engine e, pt_diag *d)
{
    pt_space eng;
    pt_status s;
    if ((int)e < 0 || (size_t)e >= sizeof engine_space / sizeof engine_space[0]) {
        pt_diag_set(d, NULL, "engine", NULL, "engine %d is not megatron, deepspeed or torchtitan", (int)e);
        return PT_EINPUT;
    }
    pt_space_init(&eng);
    if ((s = pt_space_parse(engine_space[e], "--engine", &eng, d)) != PT_OK) return s;
    for (int k = 0; k < PT_D_COUNT; k++)
        if (so->space.kind[k] == 0 && eng.kind[k] != 0) {
            so->space.kind[k] = eng.kind[k];
            so->space.n[k] = eng.n[k];
            memcpy(so->space.v[k], eng.v[k], sizeof eng.v[k]);
            so->space.lo[k] = eng.lo[k];
            so->space.hi[k] = eng.hi[k];
        }
    return PT_OK;
}

/* A --fix or --space value of key k none of whose values engine e takes:
 * refused, naming the key, the values asked for and the engine's. */
static pt_status check_pins(pt_engine e, const pt_space *user, pt_diag *d)
{
    pt_space eng;
    pt_status s;
    pt_space_init(&eng);
    if ((s = pt_space_parse(engine_space[e], "--engine", &eng, d)) != PT_OK) return s;
    for (int k = 0; k < PT_D_COUNT; k++) {
        int any = 0;
        char asked[64] = "", takes[96] = "", v[32];
        size_t used = 0;
        if (user->kind[k] == 0 || eng.kind[k] != 1) continue;
        for (int i = 0; i < eng.n[k] && !any; i++) any = pt_space_allows(user, k, eng.v[k][i]);
        if (any) continue;
        for (int i = 0; i < eng.n[k]; i++) {
            pt_strategy_key_value_text(k, eng.v[k][i], v, sizeof v);
            used += (size_t)snprintf(takes + used, used < sizeof takes ? sizeof takes - used : 0, "%s%s",
                                     i ? "," : "", v);
            if (used >= sizeof takes) break;
        }
        if (user->kind[k] == 1) {
            pt_strategy_key_value_text(k, user->v[k][0], asked, sizeof asked);
        } else {
            snprintf(asked, sizeof asked, "%lld..%lld", (long long)user->lo[k], (long long)user->hi[k]);
        }
        return pt_diag_set(d, NULL, pt_space_dim_name(k), asked,
                           "--engine %s cannot run %s=%s: its current release takes %s=%s "
                           "(src/plan/engine_space.c); choose another --engine, or --engine any",
                           pt_engine_label(e), pt_space_dim_name(k), asked, pt_space_dim_name(k), takes);
    }
    return PT_OK;
}

typedef struct admit_arg {
    pt_engine e;
    const pt_model *m;
    const pt_job *job;
    int first_only; /* --engine any: and no engine before e in any_order admits it */
} admit_arg;

static int admit_cb(const pt_strategy *st, const void *arg)
{
    const admit_arg *a = arg;
    if (!admits_rules(a->e, a->m, st)) return 0;
    if (a->first_only)
        for (size_t i = 0; i < sizeof any_order / sizeof any_order[0] && any_order[i] != a->e; i++)
            if (pt_engine_admits(any_order[i], a->m, a->job, st)) return 0;
    return 1;
}

/* One engine's search: its space, its rules, its pricing. */
static pt_status search_one(const pt_model *m, const pt_cluster *c, const pt_job *job, pt_engine e,
                            int first_only, const pt_search_opts *o, pt_search_result *r, pt_diag *d)
{
    pt_search_opts so = *o;
    pt_job je = *job;
    admit_arg arg;
    pt_status s;
    je.engine = e;
    arg.e = e;
    arg.m = m;
    arg.job = &je;
    arg.first_only = first_only;
    if ((s = restrict_engine(&so, e, d)) != PT_OK) return s;
    so.admit = admit_cb;
    so.admit_arg = &arg;
    return pt_search(m, c, &je, &so, r, d);
}


#define N_ENGINES ((int)(sizeof any_order / sizeof any_order[0]))

/* --engine any: the engines' results as one search's. */
static pt_status merge(const pt_search_result *sub, int nsub, int top_k, pt_search_result *r, pt_diag *d)
{
    int total = 0, k = 0;
    pt_plan *all;
    memset(r, 0, sizeof *r);
    for (int i = 0; i < nsub; i++) total += sub[i].n;
    if (!(all = calloc((size_t)(total ? total : 1), sizeof *all))) {
        pt_diag_set(d, NULL, NULL, NULL, "out of memory");
        return PT_ENOMEM;
    }
    for (int i = 0; i < nsub; i++) {
        for (int j = 0; j < sub[i].n; j++) all[k++] = sub[i].plans[j];
        r->evaluated += sub[i].evaluated;
        r->priced += sub[i].priced;
        r->pruned += sub[i].pruned;
        r->fitting += sub[i].fitting;
        r->seconds += sub[i].seconds;
        for (int q = 0; q < PT_RULE_COUNT; q++) r->refused[q] += sub[i].refused[q];
        if (sub[i].have_miss && (!r->have_miss || pt_plan_closer(&sub[i].miss, &r->miss))) {
            r->miss = sub[i].miss;
            r->have_miss = 1;
        }
    }
    qsort(all, (size_t)total, sizeof *all, pt_plan_cmp);
    r->plans = all;
    r->n = total < top_k ? total : top_k;
    if (r->n == 0) return PT_OK;
    /* per key, the best plan whose value differs from the winner's: in each
     * engine's results, its own best if that differs, else its alternative */
    for (int dd = 0; dd < PT_D_COUNT; dd++) {
        int64_t win = pt_strategy_dim(&all[0].st, dd);
        for (int i = 0; i < nsub; i++) {
            const pt_plan *cand = NULL;
            if (sub[i].n == 0) continue;
            if (pt_strategy_dim(&sub[i].plans[0].st, dd) != win) cand = &sub[i].plans[0];
            else if (sub[i].have_alt[dd]) cand = &sub[i].alt[dd];
            if (cand && (!r->have_alt[dd] || pt_plan_better(cand, &r->alt[dd]))) {
                r->alt[dd] = *cand;
                r->have_alt[dd] = 1;
            }
        }
    }
    return PT_OK;
}

pt_status pt_search_engine(const pt_model *m, const pt_cluster *c, const pt_job *job,
                           const pt_search_opts *o, pt_search_result *r, pt_diag *d)
{
    pt_search_result sub[N_ENGINES];
    int nsub = 0;
    pt_status s = PT_OK;
    const char *key, *why;
    memset(r, 0, sizeof *r);
    if (o->admit) return pt_diag_set(d, NULL, "engine", NULL, "pt_search_engine sets admit itself");
    if (job->engine != PT_ENGINE_ANY) {
        if ((int)job->engine < 0 || (int)job->engine >= N_ENGINES)
            return pt_diag_set(d, NULL, "engine", NULL, "engine %d is not megatron, deepspeed, torchtitan "
                               "or any", (int)job->engine);
        if ((why = job_refusal(job->engine, m, job, &key)) != NULL) {
            char v[24];
            if (!strcmp(key, "mtp")) /* the model's depths, not its dtype */
                return pt_diag_set(d, NULL, key, (snprintf(v, sizeof v, "%lld", (long long)m->mtp_layers), v),
                                   "--engine %s cannot run %s with %lld multi-token-prediction depth%s: %s",
                                   pt_engine_label(job->engine), m->name, (long long)m->mtp_layers,
                                   m->mtp_layers > 1 ? "s" : "", why);
            return pt_diag_set(d, NULL, key, key[0] == 'd' ? pt_dtype_name(job->dtype) : m->name,
                               "--engine %s cannot run %s in %s: %s", pt_engine_label(job->engine), m->name,
                               pt_dtype_name(job->dtype), why);
        }
        if ((s = check_pins(job->engine, &o->space, d)) != PT_OK) return s;
        return search_one(m, c, job, job->engine, 0, o, r, d);
    }
    for (int i = 0; i < N_ENGINES; i++) {
        if (job_refusal(any_order[i], m, job, &key)) continue;
        if ((s = search_one(m, c, job, any_order[i], 1, o, &sub[nsub], d)) != PT_OK) break;
        nsub++;
    }
    if (s == PT_OK) s = merge(sub, nsub, o->top_k, r, d);
    for (int i = 0; i < nsub; i++) pt_search_free(&sub[i]);
    return s;
}
