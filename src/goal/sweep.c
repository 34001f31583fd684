/*
 * sweep.c -- the questions of a sweep grid (see sweep.h): GRID.json read and
 * checked in full, questions numbered in grid order, one answered by the
 * plan search (src/plan/search.c) and its re-ranking by the step simulator
 * (src/plan/rerank.c) exactly as `partita plan` answers it with --top 1, or
 * by the serving search (src/plan/serve_search.c) as `partita serve --top 1`
 * answers it, the cost estimate that balances MPI ranks.
 */
#include "goal/sweep.h"
#include "base/base.h"

#include <assert.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const obj_names[PT_SWEEP_OBJ_COUNT] = {"step", "cost"};

const char *pt_sweep_obj_name(pt_sweep_obj o)
{
    return o >= 0 && o < PT_SWEEP_OBJ_COUNT ? obj_names[o] : "?";
}

void pt_sweep_free(pt_sweep_grid *g)
{
    free(g->model);
    free(g->model_arg);
    free(g->cluster);
    free(g->cluster_arg);
    g->model = NULL, g->model_arg = NULL, g->cluster = NULL, g->cluster_arg = NULL;
}

/* root[key] as a non-empty array of at most PT_SWEEP_MAX_LIST values; NULL
 * and *st = PT_OK when absent and not required. */
static const json_t *list(pt_jctx *jc, const json_t *root, const char *key, int required, pt_status *st)
{
    const json_t *a = json_object_get(root, key);
    *st = PT_OK;
    if (!a) {
        if (required) *st = pt_jerr(jc, key, NULL, "is missing: give a list, e.g. \"%s\": [%s]", key,
                                    !strcmp(key, "models") ? "\"llama3-70b\"" : !strcmp(key, "clusters") ? "\"dgx-h100\"" : "64");
        return NULL;
    }
    if (!json_is_array(a) || json_array_size(a) == 0 || json_array_size(a) > PT_SWEEP_MAX_LIST) {
        *st = pt_jerr(jc, key, a, "is not a list of 1 to %d values", PT_SWEEP_MAX_LIST);
        return NULL;
    }
    return a;
}

/* The whole numbers of root[key] into out[] (in [lo, hi]); *n their count. */
static pt_status ints(pt_jctx *jc, const json_t *root, const char *key, int required, int64_t lo, int64_t hi,
                      int64_t *out, int *n)
{
    pt_status st;
    const json_t *a = list(jc, root, key, required, &st), *v;
    size_t i;
    if (!a) return st;
    json_array_foreach(a, i, v) {
        char path[64];
        snprintf(path, sizeof path, "%s[%zu]", key, i);
        if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
            return pt_jerr(jc, path, v, "is not a whole number in [%lld, %lld]", (long long)lo, (long long)hi);
        out[i] = (int64_t)json_integer_value(v);
    }
    *n = (int)json_array_size(a);
    return PT_OK;
}

/* The names of root[key], each loaded by load (into base + i * size); the
 * argument kept in args[i]. */
static pt_status names(pt_jctx *jc, const json_t *root, const char *key, int *n, char (**args)[256],
                       void **items, size_t size, pt_status (*load)(const char *, void *, pt_diag *))
{
    pt_status st;
    const json_t *a = list(jc, root, key, 1, &st), *v;
    size_t i;
    if (!a) return st;
    *n = (int)json_array_size(a);
    *args = calloc((size_t)*n, sizeof **args);
    *items = calloc((size_t)*n, size);
    if (!*args || !*items) return pt_diag_set(jc->d, jc->file, key, NULL, "out of memory"), PT_ENOMEM;
    json_array_foreach(a, i, v) {
        char path[64];
        pt_diag inner;
        snprintf(path, sizeof path, "%s[%zu]", key, i);
        if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) >= 256)
            return pt_jerr(jc, path, v, "is not a name or a file path (a string of 1 to 255 bytes)");
        pt_strlcpy((*args)[i], json_string_value(v), sizeof (*args)[i]);
        if ((st = load((*args)[i], (char *)*items + i * size, &inner)) != PT_OK) {
            char msg[700];
            pt_diag_format(&inner, msg, sizeof msg);
            return pt_jerr(jc, path, v, "cannot be loaded: %s", msg);
        }
    }
    return PT_OK;
}

static pt_status load_model(const char *name, void *out, pt_diag *d) { return pt_model_load(name, out, d); }
static pt_status load_cluster(const char *name, void *out, pt_diag *d) { return pt_cluster_load(name, out, d); }

/* The numbers of root[key] (integers or reals) into out[] (in [lo, hi]). */
static pt_status reals(pt_jctx *jc, const json_t *root, const char *key, double lo, double hi, double *out,
                       int *n)
{
    pt_status st;
    const json_t *a = list(jc, root, key, 0, &st), *v;
    size_t i;
    if (!a) return st;
    json_array_foreach(a, i, v) {
        char path[64];
        snprintf(path, sizeof path, "%s[%zu]", key, i);
        if (!json_is_number(v) || !(json_number_value(v) >= lo && json_number_value(v) <= hi))
            return pt_jerr(jc, path, v, "is not a number in [%g, %g]", lo, hi);
        out[i] = json_number_value(v);
    }
    *n = (int)json_array_size(a);
    return PT_OK;
}

/* root[key], a string, as the index of one of names[] (NULL-terminated);
 * *k untouched when absent. */
static pt_status choice(pt_jctx *jc, const json_t *root, const char *key, const char *const *names, const char *what,
                        int *k)
{
    char buf[64];
    int found;
    pt_status st = pt_json_str(jc, root, "", key, 0, buf, sizeof buf, &found);
    if (st != PT_OK || !found) return st;
    for (int i = 0; names[i]; i++)
        if (!strcmp(buf, names[i])) return *k = i, PT_OK;
    return pt_jerr(jc, key, json_object_get(root, key), "is not %s", what);
}

/* Each command's keys: a key of the other command is refused by name (one
 * grid is one command), any other unknown key by pt_json_only_keys. */
static const char *const plan_keys[] = {"command", "models",   "clusters", "gpus", "global_batch",
                                        "seq_len", "objective", "dtype",   NULL};
static const char *const serve_keys[] = {"command", "models",     "clusters",   "gpus",     "isl",
                                         "osl",     "rate",       "ttft_ms",    "tpot_ms",  "percentile",
                                         "dtype",   "kv_dtype",   "engine",     NULL};

static int has_key(const char *const *keys, const char *k)
{
    for (int i = 0; keys[i]; i++)
        if (!strcmp(keys[i], k)) return 1;
    return 0;
}

static pt_status check_keys(pt_jctx *jc, const json_t *root, pt_sweep_cmd cmd)
{
    const char *const *mine = cmd == PT_SWEEP_SERVE ? serve_keys : plan_keys;
    const char *const *other = cmd == PT_SWEEP_SERVE ? plan_keys : serve_keys;
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)root, k, v) {
        if (has_key(mine, k) || !has_key(other, k)) continue;
        if (cmd == PT_SWEEP_SERVE)
            return pt_jerr(jc, k, v, "is a key of plan grids, and this grid asks serving questions (\"command\": "
                                     "\"serve\"), which take isl, osl, rate, ttft_ms, tpot_ms: one grid is one "
                                     "command");
        return pt_jerr(jc, k, v, "is a key of serving grids (\"command\": \"serve\"), and this grid asks plan "
                                 "questions, which take global_batch, seq_len, objective: one grid is one command");
    }
    return pt_json_only_keys(jc, root, "", mine);
}

/* The plan grid's own keys. */
static pt_status read_plan(pt_jctx *jc, const json_t *root, pt_sweep_grid *g)
{
    static const char *const dtypes[] = {"bf16", "fp16", "fp8", NULL};
    static const pt_dtype dtype_of[] = {PT_BF16, PT_FP16, PT_FP8};
    const json_t *v;
    pt_status st;
    int k = 0;
    if ((st = ints(jc, root, "global_batch", 1, 1, PT_MAX_GLOBAL_BATCH, g->gbs, &g->ngbs)) != PT_OK) return st;
    g->nseq = 1, g->seq[0] = 0;
    if ((st = ints(jc, root, "seq_len", 0, 1, PT_MAX_SEQ_LEN, g->seq, &g->nseq)) != PT_OK) return st;
    g->nobj = 1, g->obj[0] = PT_SWEEP_STEP;
    if ((v = list(jc, root, "objective", 0, &st)) != NULL) {
        size_t i;
        const json_t *o;
        json_array_foreach(v, i, o) {
            char path[64];
            int j = 0;
            snprintf(path, sizeof path, "objective[%zu]", i);
            while (j < PT_SWEEP_OBJ_COUNT && !(json_is_string(o) && !strcmp(json_string_value(o), obj_names[j]))) j++;
            if (j == PT_SWEEP_OBJ_COUNT)
                return pt_jerr(jc, path, o, "is not \"step\" or \"cost\" (goodput comes with the failure-aware "
                                            "objectives of `plan`)");
            g->obj[i] = (pt_sweep_obj)j;
            if (j == PT_SWEEP_COST)
                for (int c = 0; c < g->ncluster; c++)
                    if (!(g->cluster[c].price_per_device_hour > 0)) {
                        char cp[64];
                        snprintf(cp, sizeof cp, "clusters[%d]", c);
                        return pt_jerr(jc, path, o, "needs a price, and cluster %s (%s) has no "
                                                    "price_per_device_hour", g->cluster_arg[c], cp);
                    }
        }
        g->nobj = (int)json_array_size(v);
    } else if (st != PT_OK) {
        return st;
    }
    if ((st = choice(jc, root, "dtype", dtypes, "\"bf16\", \"fp16\" or \"fp8\"", &k)) != PT_OK) return st;
    g->dtype = dtype_of[k];
    return PT_OK;
}

/* The serving grid's own keys (defaults as `partita serve`'s options). */
static pt_status read_serve(pt_jctx *jc, const json_t *root, pt_sweep_grid *g)
{
    static const char *const wq[] = {"bf16", "fp8", "fp4", NULL};
    static const char *const kvq[] = {"bf16", "fp8", NULL};
    static const char *const engines[] = {"vllm", "sglang", "trtllm", NULL};
    pt_status st;
    int k = 0, e = 0, kv = -1, found;
    int64_t pct = 90;
    if ((st = ints(jc, root, "isl", 1, 1, PT_SWEEP_MAX_TOKENS, g->isl, &g->nisl)) != PT_OK ||
        (st = ints(jc, root, "osl", 1, 1, PT_SWEEP_MAX_TOKENS, g->osl, &g->nosl)) != PT_OK)
        return st;
    g->nrate = g->nttft = g->ntpot = 1;
    g->rate[0] = g->ttft_ms[0] = g->tpot_ms[0] = 0;
    if ((st = reals(jc, root, "rate", 1e-9, 1e6, g->rate, &g->nrate)) != PT_OK ||
        (st = reals(jc, root, "ttft_ms", 1e-6, 1e9, g->ttft_ms, &g->nttft)) != PT_OK ||
        (st = reals(jc, root, "tpot_ms", 1e-6, 1e9, g->tpot_ms, &g->ntpot)) != PT_OK)
        return st;
    if ((st = pt_json_int(jc, root, "", "percentile", 0, 1, 99, &pct, &found)) != PT_OK) return st;
    if (pct != 50 && pct != 90 && pct != 99)
        return pt_jerr(jc, "percentile", json_object_get(root, "percentile"), "is not 50, 90 or 99");
    g->percentile = (int)pct;
    if ((st = choice(jc, root, "dtype", wq, "\"bf16\", \"fp8\" or \"fp4\"", &k)) != PT_OK ||
        (st = choice(jc, root, "kv_dtype", kvq, "\"bf16\" or \"fp8\"", &kv)) != PT_OK ||
        (st = choice(jc, root, "engine", engines, "\"vllm\", \"sglang\" or \"trtllm\"", &e)) != PT_OK)
        return st;
    g->wq = (pt_qtype)k;
    /* as `partita serve`: an fp8 KV cache with fp8 or fp4 weights, else bf16 */
    g->kvq = kv >= 0 ? (pt_qtype)kv : g->wq == PT_Q_BF16 ? PT_Q_BF16 : PT_Q_FP8;
    pt_strlcpy(g->engine, engines[e], sizeof g->engine);
    if (g->wq == PT_Q_FP4)
        for (int c = 0; c < g->ncluster; c++)
            if (!pt_infer_has_fp4(&g->cluster[c].dev)) {
                char cp[64];
                snprintf(cp, sizeof cp, "clusters[%d]", c);
                return pt_jerr(jc, "dtype", json_object_get(root, "dtype"), "needs fp4 tensor cores, and cluster "
                               "%s (%s) has %s, which has none (Blackwell has)", g->cluster_arg[c], cp,
                               g->cluster[c].dev.name);
            }
    return PT_OK;
}

static pt_status read_grid(pt_jctx *jc, const json_t *root, pt_sweep_grid *g)
{
    pt_status st;
    int cmd = 0;
    double n;
    static const char *const cmds[] = {"plan", "serve", NULL};
    if (!json_is_object(root)) return pt_jerr(jc, "", root, "is not a JSON object of lists");
    if ((st = choice(jc, root, "command", cmds, "\"plan\" or \"serve\"", &cmd)) != PT_OK) return st;
    g->cmd = (pt_sweep_cmd)cmd;
    if ((st = check_keys(jc, root, g->cmd)) != PT_OK) return st;
    if ((st = names(jc, root, "models", &g->nmodel, &g->model_arg, (void **)&g->model, sizeof *g->model,
                    load_model)) != PT_OK ||
        (st = names(jc, root, "clusters", &g->ncluster, &g->cluster_arg, (void **)&g->cluster, sizeof *g->cluster,
                    load_cluster)) != PT_OK)
        return st;
    if ((st = ints(jc, root, "gpus", 1, 1, PT_MAX_DEVICES, g->gpus, &g->ngpus)) != PT_OK) return st;
    /* the other command's lists: one unused value each */
    g->ngbs = g->nseq = g->nobj = g->nisl = g->nosl = g->nrate = g->nttft = g->ntpot = 1;
    g->dtype = PT_BF16, g->wq = g->kvq = PT_Q_BF16, g->percentile = 90;
    pt_strlcpy(g->engine, "vllm", sizeof g->engine);
    if ((st = g->cmd == PT_SWEEP_SERVE ? read_serve(jc, root, g) : read_plan(jc, root, g)) != PT_OK) return st;
    /* every cluster must take every device count: refused now, not mid-sweep */
    for (int c = 0; c < g->ncluster; c++)
        for (int k = 0; k < g->ngpus; k++) {
            pt_cluster t = g->cluster[c];
            pt_diag inner;
            if (pt_cluster_resize(&t, g->gpus[k], &inner) != PT_OK) {
                char path[64];
                snprintf(path, sizeof path, "gpus[%d]", k);
                return pt_jerr(jc, path, json_array_get(json_object_get(root, "gpus"), (size_t)k),
                               "does not fit cluster %s: %s", g->cluster_arg[c], inner.msg);
            }
        }
    n = (double)g->nmodel * g->ncluster * g->ngpus * g->ngbs * g->nseq * g->nobj * g->nisl * g->nosl * g->nrate *
        g->nttft * g->ntpot;
    if (n > PT_SWEEP_MAX_QUESTIONS)
        return pt_jerr(jc, "", NULL, "the grid holds %.0f questions, more than %d", n, PT_SWEEP_MAX_QUESTIONS);
    g->n = (int64_t)n;
    return PT_OK;
}

pt_status pt_sweep_read(const char *path, pt_sweep_grid *g, pt_diag *d)
{
    char *text = NULL;
    pt_jctx jc;
    json_t *root;
    pt_status st;
    assert(path && g && d);
    memset(g, 0, sizeof *g);
    pt_strlcpy(g->file, path, sizeof g->file);
    if ((st = pt_read_file(path, &text, d)) != PT_OK) return st;
    jc.text = text, jc.file = path, jc.d = d;
    if (!(root = pt_json_parse(&jc))) {
        free(text);
        return PT_EINPUT;
    }
    st = read_grid(&jc, root, g);
    json_decref(root);
    free(text);
    if (st != PT_OK) pt_sweep_free(g);
    return st;
}

pt_sweep_q pt_sweep_question(const pt_sweep_grid *g, int64_t i)
{
    pt_sweep_q q;
    assert(i >= 0 && i < g->n);
    q.tpot = (int)(i % g->ntpot), i /= g->ntpot;
    q.ttft = (int)(i % g->nttft), i /= g->nttft;
    q.rate = (int)(i % g->nrate), i /= g->nrate;
    q.osl = (int)(i % g->nosl), i /= g->nosl;
    q.isl = (int)(i % g->nisl), i /= g->nisl;
    q.obj = (int)(i % g->nobj), i /= g->nobj;
    q.seq = (int)(i % g->nseq), i /= g->nseq;
    q.gbs = (int)(i % g->ngbs), i /= g->ngbs;
    q.gpus = (int)(i % g->ngpus), i /= g->ngpus;
    q.cluster = (int)(i % g->ncluster), i /= g->ncluster;
    q.model = (int)i;
    return q;
}

/* The cost objective: tokens per dollar (higher first). */
static double cost_score(const pt_plan *p, const pt_job *job, const void *arg)
{
    (void)job;
    return p->cost.tokens_per_s / *(const double *)arg;
}

/* A plan question: the search and re-ranking of `plan --top 1`. */
static pt_status answer_plan(const pt_sweep_grid *g, pt_sweep_q q, int threads, pt_sweep_answer *a, pt_diag *d)
{
    const pt_model *m = &g->model[q.model];
    pt_cluster c = g->cluster[q.cluster];
    pt_job job;
    pt_search_opts so;
    pt_search_result r;
    pt_plan_check *chk = NULL;
    pt_diag inner;
    pt_status st;
    double dollars_per_s;
    memset(&job, 0, sizeof job);
    if ((st = pt_cluster_resize(&c, g->gpus[q.gpus], &inner)) != PT_OK) { /* checked by pt_sweep_read */
        a->status = 2;
        pt_strlcpy(a->why, inner.msg, sizeof a->why);
        return PT_OK;
    }
    job.dtype = g->dtype;
    job.flash_attention = 1;
    job.engine = PT_ENGINE_MEGATRON;
    job.seq_len = g->seq[q.seq] ? g->seq[q.seq] : m->max_seq < 4096 ? m->max_seq : 4096;
    job.global_batch = g->gbs[q.gbs];
    a->devices = c.devices;
    a->seq_len = job.seq_len;
    dollars_per_s = c.price_per_device_hour * (double)c.devices / 3600.0;
    memset(&so, 0, sizeof so);
    pt_space_init(&so.space);
    so.top_k = pt_plan_rerank_pool(1);
    so.threads = threads < 1 ? 1 : threads;
    so.prune = 1;
    so.gbs_lo = so.gbs_hi = job.global_batch;
    if (g->obj[q.obj] == PT_SWEEP_COST) {
        so.score = cost_score;
        so.score_arg = &dollars_per_s;
    }
    st = pt_search_engine(m, &c, &job, &so, &r, &inner);
    if (st == PT_ENOMEM) return *d = inner, st;
    if (st != PT_OK) {
        a->status = 2;
        pt_strlcpy(a->why, inner.msg, sizeof a->why);
        return PT_OK;
    }
    a->evaluated = r.evaluated;
    if (r.n == 0) {
        a->status = 1;
        if (r.have_miss)
            snprintf(a->why, sizeof a->why, "no strategy fits in %.1f GiB per device; the nearest needs %.1f GiB",
                     c.dev.memory_GiB, (double)r.miss.cost.mem.total / PT_GiB);
        else
            snprintf(a->why, sizeof a->why, "no valid strategy for %lld devices", (long long)c.devices);
        pt_search_free(&r);
        return PT_OK;
    }
    if ((st = pt_plan_rerank(m, &c, &job, &so, &r, 1, &chk, &inner)) != PT_OK) {
        pt_search_free(&r);
        *d = inner;
        return st;
    }
    a->best = r.plans[0];
    a->check = chk[0];
    a->engine = pt_engine_of(m, &job, &a->best.st);
    if (a->best.cost.tokens_per_s > 0) {
        double s = 1e9 / a->best.cost.tokens_per_s;
        a->hours_per_btok = s / 3600.0;
        a->dollars_per_btok = s * dollars_per_s;
    }
    free(chk);
    pt_search_free(&r);
    return PT_OK;
}

/* A serving question: `partita serve`'s search with --top 1 (the options
 * set as cmd_serve.c sets them from the grid's values). */
static pt_status answer_serve(const pt_sweep_grid *g, pt_sweep_q q, pt_sweep_answer *a, pt_diag *d)
{
    const pt_model *m = &g->model[q.model];
    pt_cluster c = g->cluster[q.cluster];
    pt_serve_opts o;
    pt_serve_result *r;
    pt_diag inner;
    pt_status st;
    if ((st = pt_cluster_resize(&c, g->gpus[q.gpus], &inner)) != PT_OK) { /* checked by pt_sweep_read */
        a->status = 2;
        pt_strlcpy(a->why, inner.msg, sizeof a->why);
        return PT_OK;
    }
    a->devices = c.devices;
    pt_serve_opts_default(&o);
    o.isl = (double)g->isl[q.isl];
    o.osl = (double)g->osl[q.osl];
    if (g->rate[q.rate] > 0) o.mode = PT_SERVE_RATE, o.rate = g->rate[q.rate];
    o.ttft_ms = g->ttft_ms[q.ttft];
    o.tpot_ms = g->tpot_ms[q.tpot];
    o.percentile = g->percentile;
    o.wq = g->wq, o.kvq = g->kvq;
    pt_strlcpy(o.engine, g->engine, sizeof o.engine);
    o.top = 1;
    if (!(r = calloc(1, sizeof *r)))
        return pt_diag_set(d, g->file, NULL, NULL, "out of memory for a serving search"), PT_ENOMEM;
    st = pt_serve_search(m, &c, &o, r, &inner);
    if (st == PT_ENOMEM) {
        free(r);
        return *d = inner, st;
    }
    a->evaluated = r->evaluated;
    if (st != PT_OK || r->n == 0) {
        a->status = st == PT_INFEASIBLE || st == PT_OK ? 1 : 2;
        pt_strlcpy(a->why, r->why_none[0] && st == PT_INFEASIBLE ? r->why_none : inner.msg, sizeof a->why);
        free(r);
        return PT_OK;
    }
    a->serve = r->plans[0];
    a->any_meets = r->any_meets;
    if (c.price_per_device_hour > 0 && a->serve.tokens_per_s > 0)
        a->dollars_per_mtok = c.price_per_device_hour * (double)c.devices / 3600.0 / a->serve.tokens_per_s * 1e6;
    free(r);
    return PT_OK;
}

pt_status pt_sweep_answer_one(const pt_sweep_grid *g, int64_t i, int threads, pt_sweep_answer *a, pt_diag *d)
{
    pt_sweep_q q = pt_sweep_question(g, i);
    memset(a, 0, sizeof *a);
    return g->cmd == PT_SWEEP_SERVE ? answer_serve(g, q, a, d) : answer_plan(g, q, threads, a, d);
}

/* Ordered ways to write n as a product of k factors: for n = prod p^e,
 * prod C(e + k - 1, k - 1). */
static double factorizations(int64_t n, int k)
{
    double ways = 1;
    for (int64_t p = 2; p * p <= n; p++) {
        int e = 0;
        while (n % p == 0) n /= p, e++;
        for (int j = 1; j < k; j++) ways *= (double)(e + j) / j;
    }
    if (n > 1) ways *= k; /* one more prime, e = 1 */
    return ways;
}

/* The serving search's work (see pt_sweep_estimate): its replica shapes
 * counted as serve_search.c enumerates them. */
static double serve_estimate(const pt_sweep_grid *g, pt_sweep_q q)
{
    const pt_model *m = &g->model[q.model];
    const pt_cluster *c = &g->cluster[q.cluster];
    int64_t n = g->gpus[q.gpus], dom = c->level[0].size;
    double weights = (double)pt_model_params(m) * pt_infer_qbytes(g->wq), mem = c->dev.memory_GiB * PT_GiB;
    double shapes = 0, work;
    for (int64_t tp = 1; tp <= n && tp <= dom; tp *= 2) {
        if (m->heads > 0 && m->heads % tp) continue;
        for (int64_t pp = 1; tp * pp <= n && pp <= 16; pp *= 2) {
            double v = 1;
            if (n % (tp * pp) || pp > m->layers) continue;
            if (tp > 1) v += m->experts > 0 ? 3 : 1; /* shift; EP over the TP group, and with attention DP */
            if (m->experts > 0 && tp == 1 && pp == 1) /* DWDP over 4, 8, ... peers */
                for (int64_t k = 4; k <= dom && k <= n && k <= 128; k *= 2) v += m->experts % k == 0;
            shapes += weights / (double)(tp * pp) < 0.9 * mem ? v : v / 20;
        }
    }
    work = (shapes > 0 ? shapes : 0.05) * 8 * (double)g->osl[q.osl];
    if (g->rate[q.rate] > 0) work *= 1 + 0.3 * (double)n / g->rate[q.rate];
    return work;
}

double pt_sweep_estimate(const pt_sweep_grid *g, int64_t i)
{
    pt_sweep_q q = pt_sweep_question(g, i);
    int64_t layers = g->model[q.model].layers;
    if (g->cmd == PT_SWEEP_SERVE) return serve_estimate(g, q);
    return factorizations(g->gpus[q.gpus], 4) * factorizations(g->gbs[q.gbs], 2) *
           (double)(layers > 0 ? layers : 1);
}

typedef struct est_item {
    double est;
    int64_t i;
} est_item;

static int by_est_desc(const void *pa, const void *pb)
{
    const est_item *a = pa, *b = pb;
    if (a->est != b->est) return a->est > b->est ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

pt_status pt_sweep_split(const pt_sweep_grid *g, int nranks, int *owner, pt_diag *d)
{
    est_item *it = malloc((size_t)(g->n > 0 ? g->n : 1) * sizeof *it);
    double *load = calloc((size_t)(nranks > 0 ? nranks : 1), sizeof *load);
    assert(nranks >= 1);
    if (!it || !load) {
        free(it), free(load);
        return pt_diag_set(d, g->file, NULL, NULL, "out of memory splitting %lld questions", (long long)g->n),
               PT_ENOMEM;
    }
    for (int64_t i = 0; i < g->n; i++) it[i].est = pt_sweep_estimate(g, i), it[i].i = i;
    qsort(it, (size_t)g->n, sizeof *it, by_est_desc);
    for (int64_t k = 0; k < g->n; k++) {
        int best = 0;
        for (int r = 1; r < nranks; r++)
            if (load[r] < load[best]) best = r;
        owner[it[k].i] = best;
        load[best] += it[k].est;
    }
    free(it);
    free(load);
    return PT_OK;
}
