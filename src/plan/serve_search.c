/*
 * serve_search.c -- the serving search (serve_search.h says what it does).
 */
#include "plan/serve_search.h"
#include "base/base.h"
#include "sim/serve_sim.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Batch sizes (max-num-seqs) tried per replica. */
static const int64_t batches[] = {8, 16, 32, 64, 128, 256, 512, 1024};
#define NBATCH (int)(sizeof batches / sizeof batches[0])
/* Requests simulated per candidate: enough to pass the first batch
 * (offline) or to settle a Poisson queue; capped for speed. */
#define SIM_REQUESTS_MIN 240
#define SIM_REQUESTS_MAX 4096

void pt_serve_opts_default(pt_serve_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mode = PT_SERVE_OFFLINE;
    o->percentile = 90;
    o->wq = o->kvq = PT_Q_BF16;
    pt_strlcpy(o->engine, "vllm", sizeof o->engine);
    o->top = 5;
    o->fix.tp = o->fix.pp = o->fix.ep = o->fix.attn_dp = o->fix.replicas = o->fix.batch = -1;
    o->fix.dwdp = o->fix.shift = o->fix.prefill_gpus = o->fix.decode_gpus = -1;
}

pt_status pt_serve_fix_parse(const char *text, pt_serve_fix *fix, pt_diag *d)
{
    char buf[512], *save = NULL, *tok;
    pt_strlcpy(buf, text, sizeof buf);
    for (tok = strtok_r(buf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
        char *eq = strchr(tok, '='), *end;
        long long v, v2 = 0;
        int64_t *slot = NULL;
        if (!eq) return pt_diag_set(d, NULL, "fix", tok, "fix: \"%s\" is not key=value", tok);
        *eq = '\0';
        if (!strcmp(tok, "disagg")) {
            v = strtoll(eq + 1, &end, 10);
            if (*end != ':' || v < 0) goto bad;
            v2 = strtoll(end + 1, &end, 10);
            if (*end || v2 < 0 || (v == 0) != (v2 == 0)) goto bad;
            fix->prefill_gpus = v;
            fix->decode_gpus = v2;
            continue;
        }
        if (!strcmp(tok, "tp")) slot = &fix->tp;
        else if (!strcmp(tok, "pp")) slot = &fix->pp;
        else if (!strcmp(tok, "ep")) slot = &fix->ep;
        else if (!strcmp(tok, "attn_dp")) slot = &fix->attn_dp;
        else if (!strcmp(tok, "replicas")) slot = &fix->replicas;
        else if (!strcmp(tok, "batch")) slot = &fix->batch;
        else if (!strcmp(tok, "dwdp")) slot = &fix->dwdp;
        else if (!strcmp(tok, "shift")) slot = &fix->shift;
        else
            return pt_diag_set(d, NULL, "fix", tok, "fix: unknown key \"%s\" (tp, pp, ep, attn_dp, "
                               "replicas, batch, dwdp, shift, disagg)", tok);
        v = strtoll(eq + 1, &end, 10);
        if (*end || eq[1] == '\0' || v < 0 || v > (1LL << 24)) goto bad;
        if ((slot == &fix->attn_dp || slot == &fix->dwdp || slot == &fix->shift) && v > 1) goto bad;
        if ((slot == &fix->tp || slot == &fix->pp || slot == &fix->ep || slot == &fix->replicas ||
             slot == &fix->batch) && v < 1)
            goto bad;
        *slot = v;
        continue;
    bad:
        *eq = '=';
        return pt_diag_set(d, NULL, "fix", tok, "fix: \"%s\" is not a valid value", tok);
    }
    return PT_OK;
}

void pt_serve_plan_format(const pt_serve_plan *p, char *buf, size_t n)
{
    size_t k;
    snprintf(buf, n, "tp=%lld pp=%lld ep=%lld attn_dp=%d replicas=%lld batch=%lld",
             (long long)p->cfg.tp, (long long)p->cfg.pp, (long long)p->cfg.ep, p->cfg.attn_dp,
             (long long)p->replicas, (long long)p->batch);
    k = strlen(buf);
    if (p->cfg.dwdp) k += (size_t)snprintf(buf + k, n > k ? n - k : 0, " dwdp=1");
    if (p->cfg.seq_par == 2 && k < n) k += (size_t)snprintf(buf + k, n - k, " shift=1");
    if (p->prefill_gpus > 0 && k < n)
        snprintf(buf + k, n - k, " disagg=%lld:%lld", (long long)p->prefill_gpus,
                 (long long)p->decode_gpus);
}

double pt_serve_shift_point(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg)
{
    pt_infer_cfg tp = *cfg, sp = *cfg;
    tp.seq_par = 0;
    sp.seq_par = 1;
    for (double t = 1; t <= (double)cfg->max_tokens; t *= 2) {
        pt_infer_batch b = pt_infer_batch_prefill(1.0, t);
        pt_infer_time a, s;
        pt_infer_step(m, c, &tp, &b, &a);
        pt_infer_step(m, c, &sp, &b, &s);
        if (s.total_s < a.total_s) return t;
    }
    return 0;
}

/* The worst ratio of a percentile to its objective (0 when none is set). */
static double miss_of(const pt_serve_opts *o, double ttft_ms, double tpot_ms)
{
    double r = 0;
    if (o->ttft_ms > 0 && ttft_ms / o->ttft_ms > r) r = ttft_ms / o->ttft_ms;
    if (o->tpot_ms > 0 && tpot_ms / o->tpot_ms > r) r = tpot_ms / o->tpot_ms;
    return r;
}

/* Better plan first: meets the objectives, then tokens/s per GPU (rate
 * mode: the lower percentile latency among equal throughput), then the
 * smaller miss, the smaller batch, then the strategy text (a total order:
 * deterministic). */
static int better(const pt_serve_plan *a, const pt_serve_plan *b)
{
    if (a->meets_slo != b->meets_slo) return a->meets_slo > b->meets_slo;
    if (!a->meets_slo && fabs(a->miss - b->miss) > 1e-9 * (a->miss + b->miss)) return a->miss < b->miss;
    if (fabs(a->tokens_per_s_per_gpu - b->tokens_per_s_per_gpu) >
        1e-9 * (a->tokens_per_s_per_gpu + b->tokens_per_s_per_gpu))
        return a->tokens_per_s_per_gpu > b->tokens_per_s_per_gpu;
    if (a->tpot_ms_p != b->tpot_ms_p) return a->tpot_ms_p < b->tpot_ms_p;
    if (a->batch != b->batch) return a->batch < b->batch; /* the same for less memory */
    return strcmp(a->strategy, b->strategy) < 0;
}

static void keep(pt_serve_result *r, int top, const pt_serve_plan *p)
{
    int i;
    if (!r->n || better(p, &r->closest)) r->closest = *p;
    if (p->meets_slo) r->any_meets = 1;
    for (i = r->n; i > 0 && better(p, &r->plans[i - 1]); i--) {}
    if (i >= top) return;
    if (r->n < top) r->n++;
    memmove(&r->plans[i + 1], &r->plans[i], (size_t)(r->n - 1 - i) * sizeof *p);
    r->plans[i] = *p;
}

void pt_serve_load_of(const pt_serve_opts *o, const pt_serve_plan *p, pt_serve_load *l)
{
    memset(l, 0, sizeof *l);
    l->isl = o->isl;
    l->osl = o->osl;
    l->max_batch = p->batch;
    l->kv_tokens = p->mem.kv_tokens;
    l->ttft_slo_s = o->ttft_ms * 1e-3;
    l->tpot_slo_s = o->tpot_ms * 1e-3;
    l->percentile = o->percentile;
    l->seed = 1;
}

/* Prices a colocated plan by simulation; *same = 1 when, under a rate, no
 * more than `smaller` sequences ever ran at once (the plan with that smaller
 * batch is the same). */
static pt_status price_colocated(const pt_model *m, const pt_cluster *c, const pt_serve_opts *o,
                                 int64_t smaller, pt_serve_plan *p, int *same, pt_diag *d)
{
    pt_serve_load l;
    pt_serve_stats s;
    pt_status st;
    double per_rep;
    *same = 0;
    pt_serve_load_of(o, p, &l);
    if (o->mode == PT_SERVE_RATE) {
        l.rate = o->rate / (double)p->replicas;
        l.requests = SIM_REQUESTS_MIN * 2;
    } else {
        if (o->mode == PT_SERVE_CONCURRENCY) {
            int64_t k = (o->concurrency + p->replicas - 1) / p->replicas;
            if (k < l.max_batch) l.max_batch = k;
            l.closed = 1;
            *same = k <= smaller; /* a smaller batch already holds every user */
        }
        l.requests = 3 * l.max_batch + SIM_REQUESTS_MIN / 2;
    }
    if (l.requests > SIM_REQUESTS_MAX) l.requests = SIM_REQUESTS_MAX;
    if ((st = pt_serve_simulate(m, c, &p->cfg, &l, &s, d)) != PT_OK) return st;
    if (o->mode == PT_SERVE_RATE) *same = s.peak_batch <= smaller;
    per_rep = s.tokens_per_s;
    if (o->mode == PT_SERVE_RATE) {
        /* what the load asks, if the replica keeps up (a finite run's span
         * includes the first arrival's wait and the last request's drain, so
         * a replica that keeps up measures a little under the rate) */
        double asked = l.rate * o->osl;
        if (per_rep > 0.9 * asked) per_rep = asked;
    }
    p->tokens_per_s = per_rep * (double)p->replicas;
    p->ttft_ms = 1e3 * s.ttft_mean_s;
    p->tpot_ms = 1e3 * s.tpot_mean_s;
    p->ttft_ms_p = 1e3 * s.ttft_p_s;
    p->tpot_ms_p = 1e3 * s.tpot_p_s;
    return PT_OK;
}

/* Prices a disaggregated plan: np prefill and nd decode replicas of cfg;
 * 0 (not priced) when, under a rate, its decode batch would fit in
 * `smaller` sequences: that plan is the same with a smaller batch. */
static int price_disagg(const pt_model *m, const pt_cluster *c, const pt_serve_opts *o,
                        int64_t np, int64_t nd, int64_t smaller, pt_serve_plan *p)
{
    pt_infer_time tp1, tpk, td;
    double k = floor((double)p->cfg.max_tokens / o->isl), rp, rd, cap, rate, B = (double)p->batch;
    double kv_bytes = pt_infer_kv_bytes_per_token(m, p->cfg.kvq) * o->isl, xfer, wait = 0;
    int64_t rep_gpus = p->cfg.tp * p->cfg.pp;
    pt_infer_batch b1 = pt_infer_batch_prefill(1.0, o->isl), bk;
    if (k < 1) k = 1;
    bk = pt_infer_batch_prefill(k, o->isl);
    pt_infer_step(m, c, &p->cfg, &b1, &tp1);
    pt_infer_step(m, c, &p->cfg, &bk, &tpk);
    rp = k / tpk.total_s;                 /* requests/s one prefill replica serves */
    /* the KV cache crosses from a prefill GPU to a decode GPU over the
     * level that spans both pools, each of the tp ranks its share */
    xfer = pt_p2p_time(c, (int64_t)(kv_bytes / (double)p->cfg.tp), 2, np * rep_gpus);
    if (o->mode == PT_SERVE_RATE) {
        rate = o->rate;
        /* Little's law: decode batch = rate per replica x osl x TPOT */
        for (int i = 0; i < 20; i++) {
            pt_infer_batch bd = pt_infer_batch_decode(B, o->isl + o->osl / 2.0);
            double need;
            pt_infer_step(m, c, &p->cfg, &bd, &td);
            need = rate / (double)nd * o->osl * td.total_s;
            if (need > (double)p->batch) need = (double)p->batch;
            if (need < 1) need = 1;
            B = need;
        }
    }
    if (B <= (double)smaller) return 0; /* the next smaller batch runs it the same */
    {
        pt_infer_batch bd = pt_infer_batch_decode(B, o->isl + o->osl / 2.0);
        pt_infer_step(m, c, &p->cfg, &bd, &td);
    }
    rd = B / (o->osl * td.total_s);      /* requests/s one decode replica finishes */
    cap = (double)np * rp < (double)nd * rd ? (double)np * rp : (double)nd * rd;
    rate = o->mode == PT_SERVE_RATE ? (o->rate < cap ? o->rate : cap) : cap;
    if (o->mode == PT_SERVE_RATE) {
        double rho = o->rate / ((double)np / tp1.total_s);
        /* M/D/1 wait of the prefill pool, one prompt at a time per replica */
        wait = rho < 1 ? rho * tp1.total_s / (2.0 * (1.0 - rho)) : 1e3;
        if (o->rate > cap) wait = 1e3; /* cannot keep up: the queue grows without bound */
    }
    p->tokens_per_s = rate * o->osl;
    p->ttft_ms = 1e3 * ((o->mode == PT_SERVE_RATE ? tp1.total_s : tpk.total_s) + xfer + wait);
    p->tpot_ms = 1e3 * td.total_s;
    /* the analytic model has no spread: the percentile is the mean */
    p->ttft_ms_p = p->ttft_ms;
    p->tpot_ms_p = p->tpot_ms;
    return 1;
}

static void finish(const pt_serve_opts *o, pt_serve_plan *p)
{
    p->tokens_per_s_per_gpu = p->tokens_per_s / (double)p->gpus;
    p->miss = miss_of(o, p->ttft_ms_p, p->tpot_ms_p);
    p->meets_slo = p->miss <= 1.0;
    pt_serve_plan_format(p, p->strategy, sizeof p->strategy);
}

static int fixed_ok(int64_t want, int64_t v) { return want < 0 || want == v; }

pt_status pt_serve_search(const pt_model *m, const pt_cluster *c, const pt_serve_opts *o,
                          pt_serve_result *out, pt_diag *d)
{
    int64_t N = c->devices, dom = c->level[0].size;
    int top = o->top < 1 ? 1 : o->top > 64 ? 64 : o->top;
    double best_w = -1;
    pt_status st;
    assert(m && c && o && out);
    memset(out, 0, sizeof *out);
    if (m->hybrid[0]) { /* refused whatever the configuration (pt_infer_check says why) */
        pt_infer_cfg cfg;
        pt_infer_cfg_default(&cfg);
        return pt_infer_check(m, c, &cfg, d);
    }
    for (int64_t tp = 1; tp <= N && tp <= dom; tp *= 2) {
        if (m->heads % tp || !fixed_ok(o->fix.tp, tp)) continue;
        for (int64_t pp = 1; tp * pp <= N && pp <= 16; pp *= 2) {
            int64_t rep = tp * pp;
            if (N % rep || pp > m->layers || !fixed_ok(o->fix.pp, pp)) continue;
            /* variants: (ep, attn_dp, dwdp, shift) */
            for (int var = 0; var < 10; var++) {
                pt_infer_cfg cfg;
                pt_infer_mem mem;
                int64_t ep = 1, attn_dp = 0, dwdp = 0, shift = 0;
                switch (var) {
                case 0: break;
                case 1: ep = tp; break;                    /* EP over the TP group */
                case 2: ep = tp, attn_dp = 1; break;       /* ... with attention DP */
                case 3: shift = 1; break;                  /* shift parallelism */
                default: dwdp = 1; break;                  /* DWDP (tp = 1) over 4 << (var - 4) peers */
                }
                if ((var == 1 || var == 2) && (m->experts == 0 || tp == 1)) continue;
                if (var == 3 && tp == 1) continue;
                if (var >= 4 && (m->experts == 0 || tp != 1 || pp != 1)) continue;
                if (!fixed_ok(o->fix.attn_dp, attn_dp) || !fixed_ok(o->fix.dwdp, dwdp) ||
                    !fixed_ok(o->fix.shift, shift))
                    continue;
                pt_infer_cfg_default(&cfg);
                if ((st = pt_infer_engine(o->engine, &cfg, d)) != PT_OK) return st;
                cfg.tp = tp;
                cfg.pp = pp;
                if (o->max_tokens > 0) cfg.max_tokens = o->max_tokens;
                cfg.wq = o->wq;
                cfg.kvq = o->kvq;
                cfg.attn_dp = (int)attn_dp;
                cfg.seq_par = shift ? 2 : 0;
                if (dwdp) {
                    /* experts over g peers of one NVLink domain (g divides the experts) */
                    int64_t g = (int64_t)4 << (var - 4);
                    if (g > dom || g > N || m->experts % g) continue;
                    ep = g;
                    cfg.dwdp = 1;
                    cfg.moe_cv = 0.2;
                } else if (m->experts > 0) {
                    cfg.moe_cv = 0.2;
                }
                if (m->experts > 0 && ep > 1 && m->experts % ep) continue;
                cfg.ep = ep;
                if (!fixed_ok(o->fix.ep, ep)) continue;
                if (pt_infer_check(m, c, &cfg, d) != PT_OK) continue;
                pt_infer_memory(m, c, &cfg, &mem);
                {
                    double w = mem.weights_bytes / PT_GiB;
                    if (best_w < 0 || w < best_w) {
                        best_w = w;
                        snprintf(out->why_none, sizeof out->why_none,
                                 "%.60s needs %.1f GiB of weights per device at best (%s tp=%lld pp=%lld) and "
                                 "%.1f GiB of working memory; %.48s has %.1f GiB", m->name, w,
                                 pt_infer_qname(o->wq), (long long)tp, (long long)pp,
                                 mem.activation_bytes / PT_GiB, c->dev.name, c->dev.memory_GiB);
                    }
                }
                for (int bi = 0; bi < NBATCH; bi++) {
                    pt_serve_plan p;
                    double seqs = pt_infer_max_seqs(&cfg, &mem, o->isl, o->osl);
                    int64_t B = batches[bi];
                    if (!fixed_ok(o->fix.batch, B)) continue;
                    out->evaluated++;
                    if (!mem.fits || seqs < (double)B) continue;
                    out->fitting++;
                    memset(&p, 0, sizeof p);
                    p.cfg = cfg;
                    p.mem = mem;
                    p.fits = 1;
                    p.batch = B;
                    p.gpus = N;
                    /* colocated: N / rep replicas */
                    p.replicas = N / rep;
                    if (fixed_ok(o->fix.replicas, p.replicas) &&
                        (o->fix.prefill_gpus == -1 || o->fix.prefill_gpus == 0)) {
                        int same = 0;
                        if ((st = price_colocated(m, c, o, bi ? batches[bi - 1] : 0, &p, &same, d)) != PT_OK)
                            return st;
                        finish(o, &p);
                        if (!same) keep(out, top, &p);
                    }
                    /* disaggregated: np prefill and nd decode replicas */
                    if (o->fix.prefill_gpus == 0 || dwdp || shift || o->mode == PT_SERVE_CONCURRENCY)
                        continue;
                    for (int64_t np = 1; np < N / rep; np++) {
                        int64_t nd = N / rep - np;
                        pt_serve_plan q = p;
                        if (o->fix.prefill_gpus > 0 &&
                            (o->fix.prefill_gpus != np * rep || o->fix.decode_gpus != nd * rep))
                            continue;
                        q.prefill_gpus = np * rep;
                        q.decode_gpus = nd * rep;
                        q.replicas = np + nd;
                        if (!fixed_ok(o->fix.replicas, q.replicas)) continue;
                        out->evaluated++;
                        if (!price_disagg(m, c, o, np, nd, bi ? batches[bi - 1] : 0, &q)) continue;
                        finish(o, &q);
                        keep(out, top, &q);
                    }
                }
            }
        }
    }
    /* goodput of the plans kept: bisection on the rate per replica, up to
     * 1.5 x what the replica finishes offline (SIM_REQUESTS_MIN x 2 each) */
    for (int i = 0; i < out->n && (o->ttft_ms > 0 || o->tpot_ms > 0); i++) {
        pt_serve_plan *p = &out->plans[i];
        pt_serve_load l;
        double cap, g;
        if (p->prefill_gpus > 0) continue;
        memset(&l, 0, sizeof l);
        l.isl = o->isl;
        l.osl = o->osl;
        l.max_batch = p->batch;
        l.kv_tokens = p->mem.kv_tokens;
        l.ttft_slo_s = o->ttft_ms * 1e-3;
        l.tpot_slo_s = o->tpot_ms * 1e-3;
        l.percentile = o->percentile;
        l.seed = 1;
        l.requests = SIM_REQUESTS_MIN * 2;
        cap = pt_infer_offline_tokens_per_s(m, c, &p->cfg, (double)p->batch, o->isl, o->osl, 0) / o->osl;
        if ((st = pt_serve_goodput(m, c, &p->cfg, &l, cap * 1e-3, cap * 1.5, 12, &g, d)) != PT_OK) return st;
        p->goodput_rps = g * (double)p->replicas;
    }
    if (out->n == 0) {
        if (!out->why_none[0])
            snprintf(out->why_none, sizeof out->why_none, "no (tp, pp) of %lld devices suits %.60s "
                     "(tp must divide %lld heads and stay in a %lld-device NVLink domain)",
                     (long long)N, m->name, (long long)m->heads, (long long)dom);
        pt_diag_set(d, NULL, "gpus", NULL, "%s", out->why_none);
        return PT_INFEASIBLE;
    }
    return PT_OK;
}
