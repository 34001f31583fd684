/*
 * serve_sim.h -- continuous batching under load: a request-level simulation
 * of one serving replica (vLLM / SGLang / TensorRT-LLM inflight batching).
 *
 * What it does: requests arrive (Poisson at a rate, or all at time 0 for an
 * offline run) with prompt and output lengths fixed or drawn (uniform within
 * +-50% of the mean, or exponential); the engine admits them first come
 * first served while it has a batch slot and KV blocks for the whole
 * sequence (no preemption), then runs steps: every running sequence past its
 * prompt decodes one token, and prompt tokens fill the rest of the step's
 * token budget in chunks (chunked prefill, Sarathi-Serve).  Each step costs
 * pt_infer_step (src/cost/infer.c).  Out come TTFT and TPOT (mean and
 * percentiles), output throughput, the fraction of requests meeting both
 * objectives, and the time-averaged number of requests in the system, which
 * Little's law ties to the arrival rate and the mean latency (L = lambda W).
 * pt_serve_goodput bisects the rate for the highest one at which 90% of
 * requests meet both objectives (DistServe's goodput).
 * What it does not: price a step (infer.c), choose the deployment
 * (src/plan/serve_search.c), or model preemption and prefix caching.
 * Deterministic: the generator is a 64-bit LCG seeded from the options.
 */
#ifndef PT_SIM_SERVE_SIM_H
#define PT_SIM_SERVE_SIM_H

#include "partita.h"
#include "cost/infer.h"

typedef enum pt_len_dist { PT_LEN_FIXED = 0, PT_LEN_UNIFORM, PT_LEN_EXP } pt_len_dist;

typedef struct pt_serve_load {
    double rate;          /* requests/s to this replica; 0 = offline (all at t = 0) */
    int closed;           /* with rate 0: a closed loop of max_batch users, each
                             sending its next request when the last completes
                             (arrival = admission: no queue)                    */
    int64_t requests;     /* requests simulated, e.g. 2000                   */
    double isl, osl;      /* mean prompt and output tokens, e.g. 2048, 256    */
    pt_len_dist dist;     /* how lengths vary around the mean                 */
    int64_t max_batch;    /* most running sequences (max-num-seqs), e.g. 256 */
    double kv_tokens;     /* KV tokens the replica holds (pt_infer_memory)    */
    double ttft_slo_s, tpot_slo_s; /* objectives; 0 = none                   */
    int percentile;       /* 50, 90 or 99                                     */
    uint64_t seed;        /* e.g. 1                                           */
} pt_serve_load;

typedef struct pt_serve_stats {
    int64_t completed;
    double ttft_mean_s, ttft_p_s, tpot_mean_s, tpot_p_s;  /* _p: at load.percentile */
    double latency_mean_s;    /* arrival to last token (W)                     */
    double tokens_per_s;      /* output tokens / (last completion - first arrival) */
    double requests_per_s;    /* completed / the same span (lambda)            */
    double mean_in_system;    /* time-averaged requests in the system (L)      */
    double mean_batch;        /* time-averaged running sequences               */
    int64_t peak_batch;       /* most sequences running at once                 */
    double slo_fraction;      /* requests meeting both objectives              */
    double span_s;            /* first arrival to last completion              */
} pt_serve_stats;

/* Simulates load on replica cfg of m on c.  PT_EINPUT when a request can
 * never run (its sequence needs more KV than the replica holds), PT_ENOMEM. */
pt_status pt_serve_simulate(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                            const pt_serve_load *load, pt_serve_stats *out, pt_diag *d);

/* The highest rate in [lo, hi] requests/s at which at least 90% of the
 * requests meet both objectives, by bisection (iters halvings); 0 when even
 * lo does not. */
pt_status pt_serve_goodput(const pt_model *m, const pt_cluster *c, const pt_infer_cfg *cfg,
                           const pt_serve_load *load, double lo, double hi, int iters,
                           double *rate, pt_diag *d);

#endif
