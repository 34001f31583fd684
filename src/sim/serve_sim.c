/*
 * serve_sim.c -- continuous batching under load (serve_sim.h says what it
 * models).  One pass over engine steps: admit, build the step (decodes, then
 * prompt chunks up to the token budget), price it with pt_infer_step,
 * advance the clock, record first tokens and completions.
 */
#include "sim/serve_sim.h"
#include "base/base.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct req {
    double arrive, first, done;
    double isl, osl;
    double prefilled, generated;
} req;

/* 64-bit LCG (Knuth MMIX constants); uniform in (0, 1). */
static double rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
}

static double draw_len(uint64_t *s, double mean, pt_len_dist dist)
{
    double x = mean;
    if (dist == PT_LEN_UNIFORM) x = mean * (0.5 + rng_next(s));
    else if (dist == PT_LEN_EXP) x = -mean * log(rng_next(s));
    x = floor(x + 0.5);
    return x < 1.0 ? 1.0 : x;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double percentile(double *v, int64_t n, int p)
{
    int64_t k;
    if (n == 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    k = (int64_t)ceil((double)p / 100.0 * (double)n) - 1;
    if (k < 0) k = 0;
    if (k >= n) k = n - 1;
    return v[k];
}

static double blocks(double tokens, double blk)
{
    return ceil(tokens / blk) * blk;
}

pt_status pt_serve_simulate(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                            const pt_serve_load *load, pt_serve_stats *out, pt_diag *d)
{
    int64_t n = load->requests, head = 0, nrun = 0, done = 0, nt = 0, ok = 0;
    req *r;
    int64_t *run;
    double *ttft, *tpot, t = 0, kv_used = 0, area_sys = 0, area_batch = 0;
    double blk = (double)(cfg->block_tokens > 0 ? cfg->block_tokens : 1);
    /* the step's token budget is per rank with attention data parallelism */
    double budget = (double)(cfg->max_tokens > 0 ? cfg->max_tokens : 8192) *
                    (cfg->attn_dp ? (double)cfg->tp : 1.0), out_tokens = 0;
    uint64_t s = load->seed * 2654435761ULL + 12345u;
    assert(m && c && cfg && load && out);
    memset(out, 0, sizeof *out);
    if (n < 1) return pt_diag_set(d, NULL, "requests", "0", "requests: give at least one");
    r = calloc((size_t)n, sizeof *r);
    run = calloc((size_t)n, sizeof *run);
    ttft = calloc((size_t)n, sizeof *ttft);
    tpot = calloc((size_t)n, sizeof *tpot);
    if (!r || !run || !ttft || !tpot) {
        free(r), free(run), free(ttft), free(tpot);
        pt_diag_set(d, NULL, NULL, NULL, "out of memory");
        return PT_ENOMEM;
    }
    for (int64_t i = 0; i < n; i++) {
        if (load->rate > 0) t += -log(rng_next(&s)) / load->rate;
        r[i].arrive = load->rate > 0 ? t : 0.0;
        r[i].isl = draw_len(&s, load->isl, load->dist);
        r[i].osl = draw_len(&s, load->osl, load->dist);
        if (blocks(r[i].isl + r[i].osl, blk) > load->kv_tokens) {
            char v[32];
            double len = r[i].isl + r[i].osl;
            snprintf(v, sizeof v, "%.0f", len);
            free(r), free(run), free(ttft), free(tpot);
            return pt_diag_set(d, NULL, "isl+osl", v, "a sequence of %.0f tokens needs more KV cache "
                               "than the replica's %.0f tokens", len, load->kv_tokens);
        }
    }
    t = r[0].arrive;
    while (done < n) {
        pt_infer_batch b;
        pt_infer_time st;
        double left, dt;
        int64_t k;
        /* admit, first come first served, while a slot and the KV blocks of
         * the whole sequence are free */
        while (head < n && r[head].arrive <= t && nrun < load->max_batch &&
               kv_used + blocks(r[head].isl + r[head].osl, blk) <= load->kv_tokens) {
            kv_used += blocks(r[head].isl + r[head].osl, blk);
            if (load->closed && load->rate <= 0) r[head].arrive = t; /* sent when a slot frees */
            run[nrun++] = head++;
        }
        if (nrun > out->peak_batch) out->peak_batch = nrun;
        if (nrun == 0) { /* idle until the next arrival */
            t = r[head].arrive;
            continue;
        }
        memset(&b, 0, sizeof b);
        left = budget;
        for (k = 0; k < nrun; k++) {
            req *q = &r[run[k]];
            if (q->prefilled >= q->isl) {
                b.decode_seqs += 1;
                b.decode_ctx += q->isl + q->generated;
                left -= 1;
            }
        }
        for (k = 0; k < nrun && left > 0; k++) {
            req *q = &r[run[k]];
            double chunk;
            if (q->prefilled >= q->isl) continue;
            chunk = q->isl - q->prefilled < left ? q->isl - q->prefilled : left;
            b.prefill_tokens += chunk;
            b.prefill_pairs += chunk * (q->prefilled + (chunk + 1.0) / 2.0);
            if (q->prefilled + chunk >= q->isl) b.prefill_seqs += 1;
            left -= chunk;
        }
        pt_infer_step(m, c, cfg, &b, &st);
        dt = st.total_s;
        area_batch += (double)nrun * dt;
        {
            /* requests in the system during the step: the running ones and
             * those that have arrived and wait */
            int64_t waiting = 0;
            int closed = load->closed && load->rate <= 0; /* the rest are not sent yet */
            for (int64_t w = head; !closed && w < n && r[w].arrive <= t; w++) waiting++;
            area_sys += (double)(nrun + waiting) * dt;
            /* arrivals during the step count from their arrival */
            for (int64_t w = head + waiting; !closed && w < n && r[w].arrive < t + dt; w++)
                area_sys += t + dt - r[w].arrive;
        }
        t += dt;
        /* apply the step: decodes first (they were decoding), then chunks */
        left = budget;
        for (k = 0; k < nrun; k++) {
            req *q = &r[run[k]];
            if (q->prefilled >= q->isl) {
                q->generated += 1;
                out_tokens += 1;
                left -= 1;
            }
        }
        for (k = 0; k < nrun && left > 0; k++) {
            req *q = &r[run[k]];
            double chunk;
            if (q->prefilled >= q->isl) continue;
            chunk = q->isl - q->prefilled < left ? q->isl - q->prefilled : left;
            q->prefilled += chunk;
            left -= chunk;
            if (q->prefilled >= q->isl) { /* the prompt's last chunk emits the first token */
                q->first = t;
                q->generated = 1;
                out_tokens += 1;
            }
        }
        /* completions */
        for (k = 0; k < nrun;) {
            req *q = &r[run[k]];
            if (q->prefilled >= q->isl && q->generated >= q->osl) {
                int64_t i = run[k];
                q->done = t;
                ttft[i] = q->first - q->arrive;
                tpot[i] = q->osl > 1 ? (q->done - q->first) / (q->osl - 1.0) : 0.0;
                kv_used -= blocks(q->isl + q->osl, blk);
                run[k] = run[--nrun];
                done++;
            } else {
                k++;
            }
        }
        nt++;
    }
    {
        double first = r[0].arrive, sum_w = 0, sum_ttft = 0, sum_tpot = 0;
        for (int64_t i = 0; i < n; i++) {
            sum_w += r[i].done - r[i].arrive;
            sum_ttft += ttft[i];
            sum_tpot += tpot[i];
            if ((load->ttft_slo_s <= 0 || ttft[i] <= load->ttft_slo_s) &&
                (load->tpot_slo_s <= 0 || tpot[i] <= load->tpot_slo_s))
                ok++;
        }
        int64_t peak = out->peak_batch;
        out->completed = n;
        out->span_s = t - first;
        out->latency_mean_s = sum_w / (double)n;
        out->ttft_mean_s = sum_ttft / (double)n;
        out->tpot_mean_s = sum_tpot / (double)n;
        out->tokens_per_s = out->span_s > 0 ? out_tokens / out->span_s : 0;
        out->requests_per_s = out->span_s > 0 ? (double)n / out->span_s : 0;
        out->mean_in_system = out->span_s > 0 ? area_sys / out->span_s : 0;
        out->mean_batch = out->span_s > 0 ? area_batch / out->span_s : 0;
        out->slo_fraction = (double)ok / (double)n;
        out->peak_batch = peak;
        out->ttft_p_s = percentile(ttft, n, load->percentile ? load->percentile : 90);
        out->tpot_p_s = percentile(tpot, n, load->percentile ? load->percentile : 90);
    }
    (void)nt;
    free(r), free(run), free(ttft), free(tpot);
    return PT_OK;
}

pt_status pt_serve_goodput(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                           const pt_serve_load *load, double lo, double hi, int iters,
                           double *rate, pt_diag *d)
{
    pt_serve_load l = *load;
    pt_serve_stats s;
    pt_status st;
    *rate = 0;
    l.rate = lo;
    if ((st = pt_serve_simulate(m, c, cfg, &l, &s, d)) != PT_OK) return st;
    if (s.slo_fraction < 0.9) return PT_OK;
    *rate = lo;
    for (int i = 0; i < iters; i++) {
        double mid = 0.5 * (lo + hi);
        l.rate = mid;
        if ((st = pt_serve_simulate(m, c, cfg, &l, &s, d)) != PT_OK) return st;
        if (s.slo_fraction >= 0.9) lo = *rate = mid;
        else hi = mid;
    }
    return PT_OK;
}
