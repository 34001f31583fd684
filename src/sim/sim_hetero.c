/*
 * sim_hetero.c -- heterogeneous steps replayed (see sim_hetero.h).
 */
#include "sim/sim_hetero.h"
#include "sim/sim.h"
#include "cost/pipe.h"
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pt_status pt_sim_hetero_run(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                            const pt_split *sp, const pt_hetero *h, pt_sim_hetero *r, pt_diag *d)
{
    int S = st->pp, D = st->dp, nu = 0;
    double *f = malloc((size_t)S * (size_t)D * sizeof *f), *b = malloc((size_t)S * (size_t)D * sizeof *b);
    double *span = malloc((size_t)D * sizeof *span);
    int64_t *mb = malloc((size_t)D * sizeof *mb);
    int *uniq = malloc((size_t)D * sizeof *uniq);
    pt_status s = PT_OK;
    memset(r, 0, sizeof *r);
    if (!f || !b || !span || !mb || !uniq) {
        s = pt_diag_set(d, NULL, NULL, NULL, "out of memory in the simulator");
        goto out;
    }
    r->pipeline_s = -1;
    for (int k = 0; k < D; k++) {
        double *fk = f + (size_t)k * (size_t)S, *bk = b + (size_t)k * (size_t)S;
        int same = -1;
        if ((s = pt_hetero_worker(m, c, job, st, sp, k, fk, bk, &mb[k], d)) != PT_OK) goto out;
        /* ranks with the same devices and share replay the same pipeline */
        for (int u = 0; u < nu && same < 0; u++) {
            int j = uniq[u];
            if (mb[j] == mb[k] && !memcmp(f + (size_t)j * (size_t)S, fk, (size_t)S * sizeof *fk) &&
                !memcmp(b + (size_t)j * (size_t)S, bk, (size_t)S * sizeof *bk))
                same = j;
        }
        if (same >= 0) {
            span[k] = span[same];
        } else {
            pt_pipe p;
            pt_pipe_replay rp = {0, 0, NULL};
            int rc;
            char v[32];
            if (mb[k] > PT_SIM_MAX_MICROBATCHES) {
                snprintf(v, sizeof v, "%lld", (long long)mb[k]);
                s = pt_diag_set(d, NULL, "gbs", v, "the simulator replays at most %lld micro-batches per "
                                "pipeline; data-parallel rank %d runs %s", (long long)PT_SIM_MAX_MICROBATCHES, k, v);
                goto out;
            }
            pt_pipe_init(&p, st, mb[k]);
            rc = pt_pipe_run(&p, fk, bk, NULL, h->p2p_s, NULL, NULL, &rp);
            if (rc != 0) {
                s = rc == -2 ? pt_diag_set(d, NULL, "schedule", pt_schedule_name(st->schedule),
                                           "simulator: schedule %s deadlocked", pt_schedule_name(st->schedule))
                             : pt_diag_set(d, NULL, NULL, NULL, "out of memory in the simulator");
                goto out;
            }
            span[k] = rp.makespan;
            uniq[nu++] = k;
        }
        if (span[k] > r->pipeline_s) {
            r->pipeline_s = span[k];
            r->crit = k;
        }
    }
    r->tail_s = h->tail_s;
    r->step_time_s = r->pipeline_s + r->tail_s;
out:
    free(f), free(b), free(span), free(mb), free(uniq);
    return s;
}
