/*
 * bench_cost.c -- how many strategies per second the analytic cost model
 * prices on one core (one thread, no search, no I/O in the timed loops).
 *
 * Workload: gpt3-175b on dgx-a100-80g resized to 1024 devices, seq 2048,
 * global batch 1536, bf16, flash attention.  The strategies are enumerated
 * once, untimed: tp 1,2,4,8; pp every divisor of 96 up to 32; vpp 1..4
 * (interleaved when > 1); mbs 1,2,4; zero 0..3; recompute none, selective,
 * full; sp 0/1 when tp > 1 -- keeping only what pt_strategy_check accepts.
 * Then pt_cost_eval runs over the whole array, pass after pass, for at least
 * MIN_SECONDS of wall time (CLOCK_MONOTONIC), summing step_time_s into a
 * checksum so the work cannot be optimized away; pt_strategy_check is timed
 * the same way over the same array.
 *
 * Usage: bench_cost [MIN_SECONDS]   (default 1).  Prints numbers; exits 0
 * unless something is broken (a built-in is missing, nothing is valid, a
 * price is not finite), never because of speed.
 */
#include "partita.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEVICES 1024
#define SEQ_LEN 2048
#define GLOBAL_BATCH 1536

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(const char *what, const pt_diag *d)
{
    char buf[1024];
    pt_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "bench_cost: %s: %s\n", what, buf);
    return 1;
}

int main(int argc, char **argv)
{
    static const int tps[] = {1, 2, 4, 8};
    static const int mbss[] = {1, 2, 4};
    pt_model m;
    pt_cluster c;
    pt_job job;
    pt_diag d;
    pt_strategy *arr = NULL;
    size_t n = 0, cap = 0, tried = 0;
    double min_s = 1.0, t0, t1, price_s, check_s, sum = 0.0;
    long long passes, evals, checks, check_passes, nfits = 0, bad = 0;
    unsigned long long check_sum = 0;

    if (argc > 1) {
        char *end;
        min_s = strtod(argv[1], &end);
        if (*end || !(min_s > 0)) {
            fprintf(stderr, "usage: bench_cost [MIN_SECONDS]\n");
            return 2;
        }
    }

    memset(&d, 0, sizeof d);
    if (pt_model_builtin("gpt3-175b", &m, &d) != PT_OK) return fail("model gpt3-175b", &d);
    if (pt_cluster_builtin("dgx-a100-80g", &c, &d) != PT_OK) return fail("cluster dgx-a100-80g", &d);
    if (pt_cluster_resize(&c, DEVICES, &d) != PT_OK) return fail("resize to 1024 devices", &d);
    memset(&job, 0, sizeof job);
    job.seq_len = SEQ_LEN;
    job.global_batch = GLOBAL_BATCH;
    job.dtype = PT_BF16;
    job.flash_attention = 1;

    /* ---- enumerate (untimed) ------------------------------------------- */
    for (size_t a = 0; a < sizeof tps / sizeof tps[0]; a++)
        for (int pp = 1; pp <= 32; pp++) {
            if (m.layers % pp) continue;
            for (int vpp = 1; vpp <= 4; vpp++)
                for (size_t b = 0; b < sizeof mbss / sizeof mbss[0]; b++)
                    for (int zero = 0; zero <= 3; zero++)
                        for (int rc = 0; rc <= 2; rc++)
                            for (int sp = 0; sp <= (tps[a] > 1); sp++) {
                                pt_strategy st;
                                int64_t model_par = (int64_t)tps[a] * pp;
                                memset(&st, 0, sizeof st);
                                st.tp = tps[a];
                                st.pp = pp;
                                st.cp = 1;
                                st.dp = (int)(c.devices / model_par);
                                st.ep = 1;
                                st.etp = st.tp;
                                st.vpp = vpp;
                                st.mbs = mbss[b];
                                st.gbs = GLOBAL_BATCH;
                                st.sp = sp;
                                st.zero = zero;
                                st.recompute = (pt_recompute)rc;
                                st.schedule = vpp > 1 ? PT_SCHED_INTERLEAVED : PT_SCHED_1F1B;
                                st.offload = PT_OFF_NONE;
                                tried++;
                                /* dp = 0 when tp*pp exceeds the devices: the check refuses
                                 * it (world != devices) before anything divides by dp. */
                                if (st.dp < 1) continue;
                                if (pt_strategy_check(&st, &m, &c, &job, &d) != PT_OK) continue;
                                if (n == cap) {
                                    size_t ncap = cap ? 2 * cap : 1024;
                                    pt_strategy *na = realloc(arr, ncap * sizeof *na);
                                    if (!na) {
                                        fprintf(stderr, "bench_cost: out of memory\n");
                                        free(arr);
                                        return 1;
                                    }
                                    arr = na;
                                    cap = ncap;
                                }
                                arr[n++] = st;
                            }
        }
    if (n == 0) {
        fprintf(stderr, "bench_cost: no strategy passed pt_strategy_check (of %zu tried)\n", tried);
        free(arr);
        return 1;
    }

    /* ---- warm-up pass (untimed): caches, branch predictors, sanity ------ */
    for (size_t i = 0; i < n; i++) {
        pt_cost cost;
        if (pt_cost_eval(&m, &c, &job, &arr[i], &cost) != PT_OK || !isfinite(cost.step_time_s) ||
            !(cost.step_time_s > 0))
            bad++;
        nfits += cost.fits != 0;
    }

    /* ---- time pt_cost_eval ------------------------------------------------ */
    passes = 0;
    t0 = now_s();
    do {
        for (size_t i = 0; i < n; i++) {
            pt_cost cost;
            pt_cost_eval(&m, &c, &job, &arr[i], &cost);
            sum += cost.step_time_s;
        }
        passes++;
        t1 = now_s();
    } while (t1 - t0 < min_s);
    price_s = t1 - t0;
    evals = passes * (long long)n;

    /* ---- time pt_strategy_check over the same array ---------------------- */
    check_passes = 0;
    t0 = now_s();
    do {
        for (size_t i = 0; i < n; i++)
            check_sum += (unsigned)pt_strategy_check(&arr[i], &m, &c, &job, &d) + 1u;
        check_passes++;
        t1 = now_s();
    } while (t1 - t0 < min_s);
    check_s = t1 - t0;
    checks = check_passes * (long long)n;

    {
        double price_rate = (double)evals / price_s, check_rate = (double)checks / check_s;
        printf("cost model speed, one core: %s on %s x %d, seq %d, gbs %d, %s, flash attention\n",
               m.name, c.name, (int)c.devices, SEQ_LEN, GLOBAL_BATCH, pt_dtype_name(job.dtype));
        printf("  strategies        %zu distinct valid (of %zu enumerated), %lld fit in memory\n", n,
               tried, nfits);
        printf("  pt_cost_eval      %lld evaluations (%lld passes) in %.3f s\n", evals, passes,
               price_s);
        printf("                    %.0f strategies priced per second, %.1f ns per evaluation\n",
               price_rate, 1e9 / price_rate);
        printf("                    checksum of step_time_s: %.9g (mean %.4f s per step)\n", sum,
               sum / (double)evals);
        printf("  pt_strategy_check %lld checks in %.3f s: %.0f per second, %.1f ns each,\n",
               checks, check_s, check_rate, 1e9 / check_rate);
        printf("                    %.1fx the pricing rate (check is %.1f%% of check+price)\n",
               check_rate / price_rate, 100.0 * price_rate / (price_rate + check_rate));
        if (check_sum != (unsigned long long)checks)
            printf("  WARNING: pt_strategy_check refused strategies it accepted before\n");
        if (bad)
            printf("  WARNING: %lld strategies priced to a non-finite or non-positive step time\n",
                   bad);
    }
    free(arr);
    return bad || check_sum != (unsigned long long)checks ? 1 : 0;
}
