/*
 * failure.c -- goodput, expected wall-clock and dollars of a plan under
 * failures (the model is in failure.h).
 */
#include "goal/failure.h"

#include <assert.h>
#include <math.h>
#include <string.h>

const char *pt_ft_mode_name(pt_ft_mode m)
{
    return m == PT_FT_REPLICA ? "replica" : "job";
}

int pt_ft_mode_parse(const char *s, pt_ft_mode *out)
{
    if (!strcmp(s, "job")) *out = PT_FT_JOB;
    else if (!strcmp(s, "replica")) *out = PT_FT_REPLICA;
    else return 0;
    return 1;
}

/* The defaults are assumptions, stated so a user can replace them (none of
 * these is read from a measured run):
 *  - detect_s 60: health checks and a collective timeout of about a minute
 *    (PyTorch's default NCCL timeout is 10 minutes; large runs shorten it);
 *  - reschedule_s 300: drain the failed node, allocate another, requeue;
 *    spare_swap_s 60: a warm spare takes its place;
 *  - init_s 30 + init_per_doubling_s 15 per doubling of the nodes: process
 *    launch, rendezvous and NCCL communicator set-up grow with the job; at
 *    12,288 nodes (98,304 GPUs) D + R without spares comes to 11-12
 *    minutes for Llama 3 405B, near FT-HSDP's 10-minute whole-job recovery
 *    stall at O(100K) GPUs (tests/test_failure.c);
 *  - warmup_steps 10: the first steps after a restart (allocator, kernel
 *    autotuning, data loaders) lose about ten steps' time;
 *  - regroup_s 120: with detect_s, a replica-level stall of 3 minutes, the
 *    figure FT-HSDP reports for its fault-tolerant all-reduce -- an input
 *    taken from the paper, not a prediction. */
void pt_failure_defaults(pt_failure_params *fp)
{
    memset(fp, 0, sizeof *fp);
    fp->detect_s = 60;
    fp->reschedule_s = 300;
    fp->spare_swap_s = 60;
    fp->init_s = 30;
    fp->init_per_doubling_s = 15;
    fp->warmup_steps = 10;
    fp->regroup_s = 120;
    fp->ft = PT_FT_JOB;
    fp->ckpt = PT_CKPT_SYNC;
}

int64_t pt_failure_devices_per_node(const pt_cluster *c)
{
    int64_t k = c->nlevels > 0 ? c->level[0].size : 1;
    if (k > 16) k = 4;
    if (k > c->devices) k = c->devices;
    return k < 1 ? 1 : k;
}

static double init_time(const pt_failure_params *fp, double nodes)
{
    return fp->init_s + fp->init_per_doubling_s * (nodes > 1 ? log2(nodes) : 0.0);
}

/* The whole-job model at its optimal period: E and the breakdown. */
typedef struct job_eff {
    double period_s, eff, ckpt, restart, lost;
} job_eff;

static void job_efficiency(double mu, double C, double drain, double D, double R, job_eff *o)
{
    pt_ckpt_params p = {mu, C, R + drain, D};
    double T = pt_ckpt_optimal_period(mu, C), et, n, attempts;
    if (T < C + drain) T = C + drain; /* the next checkpoint waits for the last */
    o->period_s = T;
    o->eff = pt_ckpt_efficiency(&p, T);
    et = (mu + D) * exp((R + drain) / mu) * expm1(T / mu);
    n = et / (mu + D); /* expected failures per period */
    o->ckpt = C / et;
    /* each failure is followed by D and a restart attempt of expected
     * length mu (1 - e^(-R'/mu)), R' = R + drain (cut short by the next
     * failure); the drain's share of it is work redone, so lost */
    attempts = n * mu * -expm1(-(R + drain) / mu);
    o->restart = (n * D + (R + drain > 0 ? attempts * R / (R + drain) : 0)) / et;
    o->lost = 1.0 - o->eff - o->ckpt - o->restart; /* mu (e^(T/mu) - 1) - T + the drain's share, >= 0 */
    if (o->lost < 0) o->lost = 0;
}

void pt_failure_goodput(const pt_failure_params *fp, const pt_model *m, const pt_job *job, const pt_plan *p,
                        const pt_cluster *c, double tokens, pt_goodput *out)
{
    int64_t per_node = pt_failure_devices_per_node(c);
    double nodes = (double)c->devices / (double)per_node;
    double storage = fp->storage_GBps > 0 ? fp->storage_GBps : PT_CKPT_STORAGE_GBPS_PER_DEVICE * (double)c->devices;
    double mu, replace, reload, warm = fp->warmup_steps * p->cost.step_time_s;
    job_eff je;
    assert(c->devices > 0 && c->mtbf_device_hours > 0);
    memset(out, 0, sizeof *out);
    pt_ckpt_plan(m, job, p, c, fp->ckpt, storage, &out->ck);
    if (fp->per_1000_node_days > 0) mu = 86400.0 * 1000.0 / (nodes * fp->per_1000_node_days);
    else mu = c->mtbf_device_hours * 3600.0 / (double)c->devices;
    replace = fp->spare_nodes > 0 ? fp->spare_swap_s : fp->reschedule_s;
    out->mtbf_s = mu;
    out->checkpoint_s = out->ck.blocking_s;
    out->downtime_s = fp->detect_s + replace;
    reload = out->ck.reload_storage_s;
    if (fp->ckpt == PT_CKPT_MEMORY) {
        /* from the peer's host memory, unless the peer node failed too
         * before the restart was done: then from storage */
        double mu_node = fp->per_1000_node_days > 0 ? 86400.0 * 1000.0 / fp->per_1000_node_days
                                                    : c->mtbf_device_hours * 3600.0 / (double)per_node;
        double window = out->downtime_s + init_time(fp, nodes) + out->ck.reload_peer_s;
        double fb = -expm1(-window / mu_node);
        reload = (1.0 - fb) * out->ck.reload_peer_s + fb * out->ck.reload_storage_s;
    }
    out->init_s = init_time(fp, nodes), out->reload_s = reload, out->warmup_s = warm;
    out->restart_s = out->init_s + reload + warm;
    out->paid_devices = c->devices + fp->spare_nodes * per_node;
    out->ft = fp->ft == PT_FT_REPLICA && p->st.dp >= 2 ? PT_FT_REPLICA : PT_FT_JOB;
    if (out->ft == PT_FT_JOB) {
        job_efficiency(mu, out->checkpoint_s, out->ck.drain_s, out->downtime_s, out->restart_s, &je);
        out->stall_s = out->downtime_s + out->restart_s;
        out->goodput = je.eff;
        out->frac_compute = je.eff, out->frac_checkpoint = je.ckpt;
        out->frac_restart = je.restart, out->frac_lost = je.lost;
    } else {
        double n = (double)p->st.dp, x, g, sum, mu_rb;
        double rep_nodes = nodes / n < 1 ? 1 : nodes / n;
        /* the failed replica: replaced, relaunched, its state from a
         * healthy replica over the network, warmed up */
        out->replica_recovery_s = replace + init_time(fp, rep_nodes) + out->ck.reload_peer_s + warm;
        out->stall_s = fp->detect_s + fp->regroup_s;
        x = out->stall_s + 0.5 * p->cost.step_time_s + out->replica_recovery_s / n;
        g = 1.0 - x / mu;
        if (g < 0) g = 0;
        mu_rb = mu * (mu * nodes / out->replica_recovery_s); /* failure.h: the n = 2 bound */
        job_efficiency(mu_rb, out->checkpoint_s, out->ck.drain_s, out->downtime_s, out->restart_s, &je);
        out->goodput = g * je.eff;
        out->frac_compute = g * je.eff;
        out->frac_checkpoint = g * je.ckpt;
        out->frac_restart = out->stall_s / mu + g * je.restart;
        out->frac_lost = 0.5 * p->cost.step_time_s / mu + g * je.lost;
        out->frac_degraded = out->replica_recovery_s / n / mu;
        sum = out->frac_compute + out->frac_checkpoint + out->frac_restart + out->frac_lost + out->frac_degraded;
        if (sum > 0) {
            out->frac_compute /= sum, out->frac_checkpoint /= sum, out->frac_restart /= sum;
            out->frac_lost /= sum, out->frac_degraded /= sum;
        }
    }
    out->checkpoint_interval_s = je.period_s;
    if (tokens > 0 && out->goodput > 0 && p->cost.tokens_per_s > 0) {
        out->expected_wall_s = tokens / (p->cost.tokens_per_s * out->goodput);
        out->dollars = out->expected_wall_s / 3600.0 * (double)out->paid_devices * c->price_per_device_hour;
    }
}

double pt_failure_score(const pt_plan *p, const pt_job *job, const void *arg)
{
    const pt_failure_goal *g = arg;
    pt_goodput gp;
    double rate;
    pt_failure_goodput(&g->fp, g->m, job, p, g->c, 0, &gp);
    rate = p->cost.tokens_per_s * gp.goodput; /* tokens kept per second */
    if (!g->cost) return rate;
    assert(g->c->price_per_device_hour > 0);
    return rate * 3600.0 / ((double)gp.paid_devices * g->c->price_per_device_hour); /* tokens per dollar */
}

int pt_failure_deadline_filter(const pt_failure_goal *g, pt_search_result *r, pt_plan_check *checks,
                               double *fastest_s)
{
    int kept = 0, n = r->n;
    *fastest_s = 0;
    for (int i = 0; i < n; i++) {
        pt_goodput gp;
        double w;
        pt_failure_goodput(&g->fp, g->m, g->job, &r->plans[i], g->c, g->tokens, &gp);
        w = gp.expected_wall_s > 0 ? gp.expected_wall_s : INFINITY;
        if (i == 0 || w < *fastest_s) *fastest_s = w;
        if (g->deadline_s > 0 && !(w <= g->deadline_s)) continue;
        if (checks) checks[kept] = checks[i];
        r->plans[kept++] = r->plans[i];
    }
    r->n = kept;
    return n - kept;
}

void pt_goodput_compare_pick(const pt_goodput_entry *e, int n, double deadline_s, pt_goodput_pick *out)
{
    double best_rate = 0, best_dollars = 0;
    out->fastest = out->cheapest = -1;
    for (int i = 0; i < n; i++) {
        double rate;
        if (!e[i].found) continue;
        rate = e[i].best.cost.tokens_per_s * e[i].gp.goodput;
        if (rate > 0 && (out->fastest < 0 || rate > best_rate)) out->fastest = i, best_rate = rate;
        if (!(e[i].gp.dollars > 0)) continue;
        if (deadline_s > 0 && !(e[i].gp.expected_wall_s <= deadline_s)) continue;
        if (out->cheapest < 0 || e[i].gp.dollars < best_dollars) out->cheapest = i, best_dollars = e[i].gp.dollars;
    }
}
