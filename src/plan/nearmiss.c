/*
 * nearmiss.c -- when no strategy fits in memory: what single change to the
 * nearest miss would make it fit, and how many devices the model's states
 * alone need (see search.h, pt_nearmiss_explain).
 *
 * The changes tried are the ones that cut a device's memory without
 * touching the parallel layout, each on its own:
 *   recompute=full          activations: one layer input kept per layer
 *                           (Korthikanti et al. 2022, section 4.1);
 *   mbs=1                   activations: the smallest micro-batch;
 *   zero=3                  weights, gradients and optimizer states sharded
 *                           over the data-parallel group (ZeRO stage 3,
 *                           Rajbhandari et al. 2020, section 5);
 *   offload=optimizer       the optimizer states on the host (ZeRO-Offload,
 *                           Ren et al. 2021), which needs ZeRO >= 1;
 *   zero=3 offload=params   the parameters on the host as well (ZeRO-Infinity).
 * Each is priced by the cost model; one that breaks a rule of the strategy
 * (pt_strategy_check) is left out, and so is one that moves nothing: the
 * miss already has that setting (the search's nearest miss often has
 * mbs=1, zero=3 and full recompute already), or it needs no less memory
 * than the miss (offload=optimizer on a miss that offloads its parameters
 * and optimizer both).
 *
 * The device count is a floor from the model states alone: 16 bytes per
 * parameter (PT_NEARMISS_STATE_BYTES) over devices that give
 * PT_NEARMISS_STATE_SHARE of their memory to them, rounded up to whole nodes.
 * Not here: printing (src/cli/cmd_plan.c).
 */
#include "plan/search.h"

#include <string.h>

/* Mixed-precision Adam, fully sharded: bf16 weights 2 B + bf16 gradients
 * 2 B + fp32 master weights, momentum and variance 12 B per parameter
 * (Rajbhandari et al. 2020, "ZeRO", section 3.1: 2 + 2 + K with K = 12). */
#define PT_NEARMISS_STATE_BYTES 16.0

/* The share of a device's memory the states may take in that estimate.  A
 * rule of thumb, not a measurement: the cost model's fixed allowance (1 GiB
 * of CUDA context and workspaces plus 5% for allocator fragmentation,
 * cost.c) takes about 6% of an 80 GiB device, and this leaves the other ~14%
 * for at least one micro-batch's activations.  Lower, the count it prints
 * grows; it only sizes the advice, never what the search accepts. */
#define PT_NEARMISS_STATE_SHARE 0.8

static const char *const tries[PT_NEARMISS_TRIES] = {"recompute=full", "mbs=1", "zero=3",
                                                     "offload=optimizer", "zero=3 offload=params"};

static int same_strategy(const pt_strategy *a, const pt_strategy *b)
{
    for (int k = 0; k < PT_STRATEGY_NKEYS; k++)
        if (pt_strategy_dim(a, k) != pt_strategy_dim(b, k)) return 0;
    return 1;
}

pt_status pt_nearmiss_explain(const pt_model *m, const pt_cluster *c, const pt_job *job,
                              const pt_plan *miss, pt_nearmiss *out)
{
    double per_dev = c->dev.memory_GiB * PT_GiB * PT_NEARMISS_STATE_SHARE;
    /* whole nodes, or whole units of a level that has one (NVL72 trays) */
    int64_t node = c->level[0].unit > 0 && c->level[0].unit < c->level[0].size ? c->level[0].unit
                                                                              : c->level[0].size;
    int64_t need;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < PT_NEARMISS_TRIES; i++) {
        pt_strategy st = miss->st, t;
        pt_diag d;
        unsigned set;
        if (pt_strategy_parse(tries[i], &t, &set, &d) != PT_OK) continue;
        if (set & PT_K_RECOMPUTE) st.recompute = t.recompute;
        if (set & PT_K_MBS) st.mbs = t.mbs;
        if (set & PT_K_ZERO) st.zero = t.zero;
        if (set & PT_K_OFFLOAD) st.offload = t.offload;
        if (st.offload == PT_OFF_OPTIMIZER && st.zero < 1) st.zero = 1;
        if (same_strategy(&st, &miss->st)) continue;
        if (pt_strategy_check(&st, m, c, job, &d) != PT_OK) continue;
        if (pt_cost_eval(m, c, job, &st, &out->tries[out->ntries].cost) != PT_OK) continue;
        if (out->tries[out->ntries].cost.mem.total >= miss->cost.mem.total) continue;
        out->tries[out->ntries].change = tries[i];
        out->tries[out->ntries].st = st;
        out->ntries++;
    }
    out->states_bytes = (double)pt_model_params(m) * PT_NEARMISS_STATE_BYTES;
    need = (int64_t)(out->states_bytes / per_dev) + 1;
    need = (need + node - 1) / node * node;
    out->devices_needed = need > c->devices ? need : 0;
    return PT_OK;
}
