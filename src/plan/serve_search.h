/*
 * serve_search.h -- `partita serve`'s search (SPEC section 8): how to serve a
 * model on N devices under a load and latency objectives.
 *
 * What it does: enumerates replicas x (tp, pp, ep, attention dp) x batch,
 * and for MoE models on an NVLink domain of 4 or more DWDP (tp = 1, experts
 * spread over ep peers and prefetched), for tp > 1 shift parallelism (each
 * step run as TP or as sequence parallelism, whichever is faster: the
 * switch point is where SP overtakes TP), and prefill/decode disaggregation
 * (prefill and decode pools of whole replicas, the KV cache handed over the
 * links between them).  Colocated plans are priced by the request-level
 * simulation (src/sim/serve_sim.c); disaggregated ones analytically (each
 * pool's throughput, TTFT = prefill + hand-off + the M/D/1 wait of the
 * prefill pool, TPOT = the decode pool's step at its batch, from Little's
 * law).  Ranks plans that meet the objectives first, then by output tokens/s
 * per GPU; when none meets them the caller reports the closest (the plan
 * whose worst percentile/objective ratio is smallest).
 * What it does not: price a step (src/cost/infer.c), print or export
 * (src/emit/serve_out.c, src/emit/export_serve.c).
 */
#ifndef PT_PLAN_SERVE_SEARCH_H
#define PT_PLAN_SERVE_SEARCH_H

#include "partita.h"
#include "cost/infer.h"
#include "sim/serve_sim.h"

typedef enum pt_serve_mode { PT_SERVE_OFFLINE = 0, PT_SERVE_RATE, PT_SERVE_CONCURRENCY } pt_serve_mode;

/* Keys a --fix string pins (-1: searched). */
typedef struct pt_serve_fix {
    int64_t tp, pp, ep, attn_dp, replicas, batch, dwdp, shift;
    int64_t prefill_gpus, decode_gpus; /* disagg=P:D; 0:0 = colocated only; -1 searched;
                                          -2 disaggregated only, pools searched */
} pt_serve_fix;

typedef struct pt_serve_opts {
    double isl, osl;          /* prompt and output tokens, e.g. 2048, 256      */
    pt_serve_mode mode;
    double rate;              /* requests/s to the whole deployment            */
    int64_t concurrency;      /* requests in flight (closed loop)              */
    double ttft_ms, tpot_ms;  /* objectives at the percentile; 0 = none        */
    int percentile;           /* 50, 90 or 99                                   */
    pt_qtype wq, kvq;
    char engine[16];          /* pt_infer_engine name, e.g. "vllm"             */
    int top;                  /* plans kept, e.g. 5                             */
    int64_t max_tokens;       /* tokens per step (per rank with attention dp);
                                 0: 8192                                         */
    pt_serve_fix fix;
} pt_serve_opts;

/* Defaults: offline, p90, bf16, vllm, top 5, nothing fixed. */
void pt_serve_opts_default(pt_serve_opts *o);
/* Parses a serving strategy string (tp, pp, ep, attn_dp, replicas, batch,
 * dwdp, shift, disagg=P:D) into o->fix. */
pt_status pt_serve_fix_parse(const char *text, pt_serve_fix *fix, pt_diag *d);

typedef struct pt_serve_plan {
    pt_infer_cfg cfg;
    int64_t replicas, batch, gpus;
    int64_t prefill_gpus, decode_gpus; /* disaggregated pools; 0, 0 = colocated */
    double tokens_per_s, tokens_per_s_per_gpu;
    double ttft_ms, tpot_ms, ttft_ms_p, tpot_ms_p;
    double miss;              /* worst percentile / objective ratio (<= 1 meets) */
    double goodput_rps;       /* with objectives, colocated: the highest request
                                 rate at which 90% of requests meet both (all
                                 replicas; DistServe's goodput); 0 not computed */
    int meets_slo, fits;
    pt_infer_mem mem;
    char strategy[200];
} pt_serve_plan;

typedef struct pt_serve_result {
    pt_serve_plan plans[64];  /* best first, at most opts.top (<= 64)         */
    int n;
    int64_t evaluated;        /* candidates priced                            */
    int64_t fitting;          /* of them, those that fit in memory            */
    int any_meets;            /* some plan meets the objectives              */
    pt_serve_plan closest;    /* the best plan (meets or, failing, closest)   */
    char why_none[400];       /* when nothing fits: why                        */
} pt_serve_result;

/* Searches; PT_INFEASIBLE (why in d) when no deployment fits, PT_EINPUT for
 * a bad option.  c is already resized to N devices. */
pt_status pt_serve_search(const pt_model *m, const pt_cluster *c, const pt_serve_opts *o,
                          pt_serve_result *out, pt_diag *d);

/* "tp=8 pp=1 ep=1 attn_dp=0 replicas=1 batch=256" (+ dwdp=1, shift=1, disagg=P:D). */
/* The request-level simulation's load for plan p under o's lengths and
 * objectives (rate and request count left to the caller). */
void pt_serve_load_of(const pt_serve_opts *o, const pt_serve_plan *p, pt_serve_load *l);
void pt_serve_plan_format(const pt_serve_plan *p, char *buf, size_t n);

/* Shift parallelism's switch point: the fewest tokens per step at which the
 * step runs faster as sequence parallelism than as TP on cfg (tp > 1);
 * 0 when SP never wins up to max_tokens. */
double pt_serve_shift_point(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg);

#endif
