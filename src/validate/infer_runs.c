/*
 * infer_runs.c -- predicted against measured for an inference-runs CSV
 * (infer_runs.h says what it does and what it does not).
 */
#include "validate/infer_runs.h"
#include "base/base.h"
#include "base/csv.h"
#include "cost/infer.h"
#include "hw/gpus.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { I_SOURCE, I_MODEL, I_GPU, I_NGPU, I_TP, I_PP, I_DP, I_EP, I_ISL, I_OSL, I_LOAD, I_TTFT,
       I_TPOT, I_TOKS, I_NOTES, I_COUNT };
static const char *const icolumns[I_COUNT] = {"source", "model", "gpu", "n_gpus", "tp", "pp", "dp",
                                              "ep", "input_len", "output_len", "batch_or_rate",
                                              "ttft_ms", "tpot_ms", "tokens_per_s", "notes"};

/* What a run's model name means among the built-ins, first match wins (the
 * name lower-cased must contain every listed part).  TensorRT-LLM's v0.5 and
 * v0.6 performance tables call Llama 2 "LLaMA" (its examples/llama README of
 * that release builds Llama-2-7b/70b). */
static const struct {
    const char *parts[3];
    const char *builtin;
} model_map[] = {
    {{"llama-3.3", "70b", NULL}, "llama3.3-70b"},
    {{"llama-3.1", "405b", NULL}, "llama3.1-405b"},
    {{"llama-3.1", "8b", NULL}, "llama3.1-8b"},
    {{"llama-3", "70b", NULL}, "llama3-70b"},
    {{"llama-3", "8b", NULL}, "llama3-8b"},
    {{"qwen3-235b", NULL, NULL}, "qwen3-235b-a22b"},
    {{"qwen3-30b", NULL, NULL}, "qwen3-30b-a3b"},
    {{"deepseek-r1", NULL, NULL}, "deepseek-r1"},
    {{"deepseek-v3", NULL, NULL}, "deepseek-v3"},
    {{"llama-70b", NULL, NULL}, "llama2-70b"},
    {{"llama-2-70b", NULL, NULL}, "llama2-70b"},
    {{"llama-7b", NULL, NULL}, "llama2-7b"},
    {{"llama-2-7b", NULL, NULL}, "llama2-7b"},
    {{"falcon-180b", NULL, NULL}, "falcon-180b"},
    {{"gpt-j", "6b", NULL}, "gpt-j-6b"},
    {{"mixtral-8x7b", NULL, NULL}, "mixtral-8x7b"},
    {{"mixtral-8x22b", NULL, NULL}, "mixtral-8x22b"},
    {{"gpt-oss-120b", NULL, NULL}, "gpt-oss-120b"},
};

/* TensorRT-LLM's limits when a run does not state them: the LLM API's
 * max_batch_size 2048 and max_num_tokens 8192 (tensorrt_llm/llmapi
 * BuildConfig defaults), tokens_per_block 32 (KvCacheConfig), and
 * kv_cache_free_gpu_mem_fraction 0.9 (KvCacheConfig free_gpu_memory_fraction). */
#define TRT_MAX_BATCH 2048.0
#define TRT_MAX_TOKENS 8192
#define TRT_BLOCK 32
#define TRT_FREE_FRAC 0.9

int pt_infer_runs_header(char *const *f, int nf)
{
    int seen = 0;
    for (int k = 0; k < I_COUNT; k++)
        for (int i = 0; i < nf; i++)
            if (!strcmp(f[i], icolumns[k])) {
                seen++;
                break;
            }
    /* its own columns, not the published-runs CSV's */
    return seen >= 12 && nf >= 2 && !strcmp(f[0], "source") && !strcmp(f[1], "model") &&
           nf < 28;
}

static void skip(pt_vrow *r, const char *why) { pt_strlcpy(r->skipped, why, sizeof r->skipped); }

static void add_assumed(pt_vrow *r, const char *what)
{
    size_t n = strlen(r->assumed);
    snprintf(r->assumed + n, sizeof r->assumed - n, "%s%s", n ? "; " : "", what);
}

/* A whole number in [lo, hi]: 1; blank: 0; anything else: -1. */
static int int_field(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    double x;
    if (!s[0]) return 0;
    x = strtod(s, &end);
    if (*end || !(x >= (double)lo && x <= (double)hi) || x != floor(x)) return -1;
    *out = (int64_t)x;
    return 1;
}

/* A number > 0: 1; blank: 0; anything else: -1. */
static int pos_field(const char *s, double *out)
{
    char *end;
    if (!s[0]) return 0;
    *out = strtod(s, &end);
    if (*end || !(*out > 0) || !isfinite(*out)) return -1;
    return 1;
}

static const char *map_model(const char *name)
{
    char low[128];
    size_t i;
    for (i = 0; name[i] && i + 1 < sizeof low; i++)
        low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
    low[i] = '\0';
    for (size_t k = 0; k < sizeof model_map / sizeof model_map[0]; k++) {
        int all = 1;
        for (int j = 0; j < 3 && model_map[k].parts[j]; j++)
            if (!strstr(low, model_map[k].parts[j])) all = 0;
        if (all) return model_map[k].builtin;
    }
    return NULL;
}

/* The engine release a row ran on, from its notes and source. */
static const char *engine_label(const char *source, const char *notes)
{
    if (pt_str_has_ci(notes, "trtllm-bench") || pt_str_has_ci(source, "perf-overview"))
        return "TensorRT-LLM-1.0";
    if (pt_str_has_ci(notes, "v0.5")) return "TensorRT-LLM-0.5";
    if (pt_str_has_ci(notes, "v0.6") || pt_str_has_ci(source, "v0.6")) return "TensorRT-LLM-0.6";
    if (pt_str_has_ci(source, "0.5")) return "TensorRT-LLM-0.5";
    if (pt_str_has_ci(source, "vllm") || pt_str_has_ci(notes, "vllm")) return "vLLM";
    if (pt_str_has_ci(source, "sglang") || pt_str_has_ci(notes, "sglang")) return "SGLang";
    if (pt_str_has_ci(source, "tensorrt") || pt_str_has_ci(notes, "trt")) return "TensorRT-LLM";
    return "unknown";
}

/* The number after `key` in notes (e.g. "kv_cache_free_gpu_mem_fraction 0.95"). */
static int notes_num(const char *notes, const char *key, double *out)
{
    const char *p = strstr(notes, key);
    char *end;
    double x;
    if (!p) return 0;
    p += strlen(key);
    while (*p == ' ' || *p == '=' || *p == ':') p++;
    x = strtod(p, &end);
    if (end == p || !(x > 0 && x <= 1)) return 0;
    *out = x;
    return 1;
}

/* The row as a run: model, cluster, replica configuration, how it was
 * loaded.  Returns 0 and fills why when it cannot be priced. */
typedef struct irun {
    pt_model m;
    pt_cluster c;
    pt_infer_cfg cfg;
    int64_t n_gpus, isl, osl;
    double replicas;
    int mode;        /* 0 offline, 1 static batch, 2 one request */
    double batch;    /* static batch size */
    int per_gpu;     /* tokens_per_s is per GPU (notes say so) */
    char engine[32];
} irun;

static int read_run(char **f, irun *u, pt_vrow *r, char *why, size_t wn)
{
    pt_diag d;
    pt_gpu_match gm;
    int found = 0;
    int64_t dp = 1, ep = 0;
    const char *name = map_model(f[I_MODEL]), *load = f[I_LOAD];
    double frac;
    memset(u, 0, sizeof *u);
    if (!name) {
        snprintf(why, wn, "model \"%.60s\" is not a built-in model", f[I_MODEL]);
        return 0;
    }
    if (pt_model_builtin(name, &u->m, &d) != PT_OK) {
        snprintf(why, wn, "%.150s", d.msg);
        return 0;
    }
    if (pt_gpu_lookup("training_runs", f[I_GPU], NULL, &gm, &found, &d) != PT_OK) {
        snprintf(why, wn, "%.150s", d.msg);
        return 0;
    }
    if (!found) {
        snprintf(why, wn, "no rule of data/gpus.json names GPU \"%.40s\"", f[I_GPU]);
        return 0;
    }
    if (pt_gpu_cluster(&gm, &u->c, &d) != PT_OK) {
        snprintf(why, wn, "%.150s", d.msg);
        return 0;
    }
    pt_infer_cfg_default(&u->cfg);
    if (int_field(f[I_NGPU], 1, 1 << 20, &u->n_gpus) != 1 ||
        int_field(f[I_TP], 1, 1024, &u->cfg.tp) != 1 || int_field(f[I_PP], 1, 1024, &u->cfg.pp) != 1 ||
        int_field(f[I_DP], 1, 1 << 20, &dp) < 0 || int_field(f[I_EP], 1, 1024, &ep) < 0 ||
        int_field(f[I_ISL], 1, 1 << 24, &u->isl) != 1 || int_field(f[I_OSL], 1, 1 << 24, &u->osl) != 1) {
        snprintf(why, wn, "n_gpus, tp, pp, input_len and output_len must be whole numbers >= 1 "
                          "(dp and ep too where given)");
        return 0;
    }
    if (u->n_gpus % (u->cfg.tp * u->cfg.pp) != 0) {
        snprintf(why, wn, "n_gpus=%lld is not a multiple of tp*pp=%lld", (long long)u->n_gpus,
                 (long long)(u->cfg.tp * u->cfg.pp));
        return 0;
    }
    u->replicas = (double)(u->n_gpus / (u->cfg.tp * u->cfg.pp));
    if (u->m.experts > 0) {
        if (ep == 0) {
            /* TensorRT-LLM's MoE runs: experts over the TP group, attention
             * data-parallel (the notes: --ep with enable_attention_dp) */
            ep = u->cfg.tp;
            while (ep > 1 && u->m.experts % ep) ep--;
            add_assumed(r, "ep = tp with attention dp (ep not stated)");
            u->cfg.attn_dp = 1;
        }
        u->cfg.ep = ep;
    }
    if (pt_str_has_ci(f[I_NOTES], "FP8")) {
        u->cfg.wq = u->cfg.kvq = PT_Q_FP8;
        add_assumed(r, "fp8 KV cache with fp8 weights");
    } else if (pt_str_has_ci(f[I_NOTES], "FP16") || pt_str_has_ci(f[I_NOTES], "BF16")) {
        u->cfg.wq = u->cfg.kvq = PT_Q_BF16;
    } else {
        snprintf(why, wn, "notes give no precision (FP8, FP16 or BF16)");
        return 0;
    }
    u->cfg.free_frac = TRT_FREE_FRAC;
    if (notes_num(f[I_NOTES], "kv_cache_free_gpu_mem_fraction", &frac)) u->cfg.free_frac = frac;
    u->cfg.block_tokens = TRT_BLOCK;
    u->cfg.max_tokens = TRT_MAX_TOKENS;
    if (pt_infer_check(&u->m, &u->c, &u->cfg, &d) != PT_OK) {
        snprintf(why, wn, "%.150s", d.msg);
        return 0;
    }
    if (pt_str_has_ci(load, "offline")) {
        u->mode = 0;
    } else if (!strncmp(load, "static batch ", 13) && pos_field(load + 13, &u->batch) == 1) {
        u->mode = 1;
    } else if (!strcmp(load, "batch 1")) {
        u->mode = 2;
        u->batch = 1;
    } else {
        snprintf(why, wn, "batch_or_rate \"%.40s\" is not \"offline max load\", \"static batch N\" "
                          "or \"batch 1\"", load);
        return 0;
    }
    u->per_gpu = pt_str_has_ci(f[I_NOTES], "per-GPU likely");
    pt_strlcpy(u->engine, engine_label(f[I_SOURCE], f[I_NOTES]), sizeof u->engine);
    {
        const char *e = u->engine;
        const char *cname = !strcmp(e, "TensorRT-LLM-0.5") ? "trtllm-0.5"
                            : !strcmp(e, "TensorRT-LLM-0.6") ? "trtllm-0.6"
                            : !strcmp(e, "vLLM") ? "vllm" : !strcmp(e, "SGLang") ? "sglang" : "trtllm";
        if (pt_infer_engine(cname, &u->cfg, &d) != PT_OK) {
            snprintf(why, wn, "%.150s", d.msg);
            return 0;
        }
    }
    return 1;
}

/* Predicts `metric` of run u into r. */
static void predict(const irun *u, const char *gpu, const char *metric, pt_vrow *r)
{
    pt_infer_mem mem;
    double isl = (double)u->isl, osl = (double)u->osl, batch = u->batch, cap;
    char gname[32];
    size_t k;
    pt_infer_memory(&u->m, &u->c, &u->cfg, &mem);
    cap = pt_infer_max_seqs(&u->cfg, &mem, isl, osl);
    if (u->mode == 0) {
        batch = cap < TRT_MAX_BATCH ? cap : TRT_MAX_BATCH;
        if (batch < 1) batch = 1;
    }
    r->fits = mem.fits && batch <= cap;
    for (k = 0; gpu[k] && k + 1 < sizeof gname; k++) gname[k] = gpu[k] == ' ' ? '_' : gpu[k];
    gname[k] = '\0';
    snprintf(r->strategy, sizeof r->strategy,
             "gpu=%s engine=%s tp=%lld pp=%lld ep=%lld attn_dp=%d replicas=%g batch=%.0f dtype=%s "
             "kv=%s", gname, u->engine, (long long)u->cfg.tp, (long long)u->cfg.pp,
             (long long)u->cfg.ep, u->cfg.attn_dp, u->replicas, batch, pt_infer_qname(u->cfg.wq),
             pt_infer_qname(u->cfg.kvq));
    r->is_time = 1;
    if (!strcmp(metric, "tokens_per_s")) {
        double tps = pt_infer_offline_tokens_per_s(&u->m, &u->c, &u->cfg, batch, isl, osl, u->mode != 0);
        r->predicted = tps * u->replicas;
        if (u->per_gpu) {
            r->predicted /= (double)u->n_gpus;
            add_assumed(r, "tokens_per_s per GPU (notes)");
        }
    } else if (!strcmp(metric, "ttft_ms")) {
        pt_infer_time t;
        pt_infer_batch b = pt_infer_batch_prefill(batch, isl);
        pt_infer_step(&u->m, &u->c, &u->cfg, &b, &t);
        r->predicted = 1e3 * t.total_s;
    } else {
        pt_infer_time t;
        pt_infer_batch b = pt_infer_batch_decode(batch, isl + osl / 2.0);
        pt_infer_step(&u->m, &u->c, &u->cfg, &b, &t);
        r->predicted = 1e3 * t.total_s;
    }
    if (u->mode == 0)
        add_assumed(r, "batch = the sequences the KV cache holds, at most 2048");
}

pt_status pt_infer_runs_csv(const char *text, const char *file, pt_vresult *out, pt_diag *d)
{
    pt_csv csv;
    int idx[I_COUNT], cap = 0;
    static const int mcol[3] = {I_TOKS, I_TTFT, I_TPOT};
    static const char *const mname[3] = {"tokens_per_s", "ttft_ms", "tpot_ms"};
    memset(out, 0, sizeof *out);
    pt_csv_init(&csv, text);
    if (pt_csv_next(&csv) != 1) {
        pt_csv_free(&csv);
        pt_diag_set(d, file, NULL, NULL, "empty file: expected a header row");
        d->line = d->col = 1;
        return PT_EINPUT;
    }
    for (int k = 0; k < I_COUNT; k++) {
        idx[k] = -1;
        for (int i = 0; i < csv.nf; i++)
            if (!strcmp(csv.f[i], icolumns[k])) idx[k] = i;
        if (idx[k] < 0) {
            pt_diag_set(d, file, icolumns[k], NULL,
                        "header lacks the column \"%s\" (SPEC section 8, inference runs)", icolumns[k]);
            d->line = d->col = 1;
            pt_csv_free(&csv);
            return PT_EINPUT;
        }
    }
    for (;;) {
        int got = pt_csv_next(&csv), any = 0;
        char *f[I_COUNT];
        irun u;
        char why[160] = "", assumed[120] = "";
        int ok = -1;
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
        for (int j = 0; j < 3; j++) {
            pt_vrow *r;
            double measured = 0;
            int have;
            if (csv.nf <= idx[I_NOTES] && j > 0) break;
            if (out->n + 1 > cap) {
                int ncap = cap ? cap * 2 : 128;
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
            r = &out->rows[out->n];
            memset(r, 0, sizeof *r);
            r->line = csv.record_line;
            if (csv.nf <= idx[I_NOTES]) {
                char w[96];
                snprintf(w, sizeof w, "has %d fields, the header has more", csv.nf);
                skip(r, w);
                out->n++;
                break;
            }
            for (int k = 0; k < I_COUNT; k++) f[k] = csv.f[idx[k]];
            have = pos_field(f[mcol[j]], &measured);
            if (have == 0 && (j < 2 || any)) continue;
            out->n++;
            any = 1;
            pt_strlcpy(r->source, f[I_SOURCE], sizeof r->source);
            pt_strlcpy(r->model, f[I_MODEL], sizeof r->model);
            pt_strlcpy(r->metric, mname[j], sizeof r->metric);
            r->measured = measured;
            if (have < 0) {
                char w[120];
                snprintf(w, sizeof w, "%s \"%.40s\" is not a number > 0", mname[j], f[mcol[j]]);
                skip(r, w);
                continue;
            }
            if (have == 0) {
                skip(r, "no measured ttft_ms, tpot_ms or tokens_per_s");
                continue;
            }
            if (ok < 0) ok = read_run(f, &u, r, why, sizeof why);
            if (!ok) {
                skip(r, why);
                continue;
            }
            if (ok == 1 && !r->assumed[0]) pt_strlcpy(r->assumed, assumed, sizeof r->assumed);
            else pt_strlcpy(assumed, r->assumed, sizeof assumed);
            predict(&u, f[I_GPU], mname[j], r);
            r->error = r->measured != 0 ? r->predicted / r->measured - 1.0 : 0.0;
        }
    }
    pt_csv_free(&csv);
    pt_validate_summary(out, NULL, NULL);
    return PT_OK;
}

int pt_infer_runs_groups(const pt_vresult *r, pt_infer_group *g, int max)
{
    int n = 0;
    static const char *const keys[2] = {"gpu", "engine"};
    for (int kk = 0; kk < 2; kk++) {
        for (int i = 0; i < r->n; i++) {
            const pt_vrow *w = &r->rows[i];
            char name[48], tag[16];
            const char *p;
            size_t len;
            int j;
            double e;
            if (w->skipped[0]) continue;
            snprintf(tag, sizeof tag, "%s=", keys[kk]);
            p = strstr(w->strategy, tag);
            if (!p) continue;
            p += strlen(tag);
            len = strcspn(p, " ");
            if (len >= sizeof name) len = sizeof name - 1;
            memcpy(name, p, len);
            name[len] = '\0';
            for (j = 0; j < n; j++)
                if (!strcmp(g[j].key, keys[kk]) && !strcmp(g[j].name, name)) break;
            if (j == n) {
                if (n == max) continue;
                memset(&g[n], 0, sizeof g[n]);
                pt_strlcpy(g[n].key, keys[kk], sizeof g[n].key);
                pt_strlcpy(g[n].name, name, sizeof g[n].name);
                n++;
            }
            e = fabs(w->error);
            g[j].mean_abs_error = (g[j].mean_abs_error * g[j].rows + e) / (g[j].rows + 1);
            g[j].rows++;
            if (e > g[j].worst_abs_error) g[j].worst_abs_error = e;
        }
    }
    return n;
}
