/*
 * plan_goodput.c -- `plan --objective goodput|cost`, --deadline-hours,
 * --explain's wall-clock breakdown and `--cluster a,b,c` (plan_goodput.h).
 */
#include "cli/plan_goodput.h"
#include "base/base.h"
#include "emit/goodput_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_goodput_objective(const char *obj)
{
    return obj && (!strcmp(obj, "goodput") || !strcmp(obj, "cost"));
}

int cli_goodput_options(const cli_args *a, cli_goodput *g)
{
    static const char *const own[] = {"deadline-hours", "checkpoint-GBps", "checkpoint-mode", "ft",
                                      "spare-nodes", "failure-rate"};
    const char *obj = cli_get(a, "objective"), *v;
    double x;
    memset(g, 0, sizeof *g);
    pt_failure_defaults(&g->goal.fp);
    if (!cli_goodput_objective(obj)) {
        for (size_t i = 0; i < sizeof own / sizeof *own; i++)
            if (cli_get(a, own[i])) return cli_usage("--%s goes with --objective goodput or cost", own[i]);
        if ((v = cli_get(a, "cluster")) && strchr(v, ','))
            return cli_usage("--cluster \"%s\": a list of clusters goes with --objective goodput or cost", v);
        return 0;
    }
    g->on = 1;
    g->goal.cost = !strcmp(obj, "cost");
    if ((v = cli_get(a, "cluster")) && strchr(v, ',')) {
        static const char *const single[] = {"export", "out", "trace", "svg", "verify"};
        for (size_t i = 0; i < sizeof single / sizeof *single; i++)
            if (cli_get(a, single[i]))
                return cli_usage("--%s needs one cluster, not the list \"%s\"", single[i], v);
    }
    if (cli_get(a, "critical-batch") || cli_get(a, "target-loss"))
        return cli_usage("--critical-batch and --target-loss go with --objective time-to-train, not %s", obj);
    if ((v = cli_get(a, "tokens")) && cli_real("--tokens", v, 1, 1e18, &g->goal.tokens)) return 2;
    if (g->goal.cost && !v)
        return cli_usage("--objective cost: give --tokens N, the tokens to train (dollars are for a whole run)");
    if ((v = cli_get(a, "deadline-hours"))) {
        if (!g->goal.cost) return cli_usage("--deadline-hours goes with --objective cost");
        if (cli_real("--deadline-hours", v, 0.001, 1e7, &x)) return 2;
        g->goal.deadline_s = x * 3600.0;
    }
    if ((v = cli_get(a, "checkpoint-GBps")) && cli_real("--checkpoint-GBps", v, 0.001, 1e9, &g->goal.fp.storage_GBps))
        return 2;
    if ((v = cli_get(a, "checkpoint-mode")) && !pt_ckpt_mode_parse(v, &g->goal.fp.ckpt))
        return cli_usage("--checkpoint-mode: \"%s\" is not sync, async or memory", v);
    if ((v = cli_get(a, "ft")) && !pt_ft_mode_parse(v, &g->goal.fp.ft))
        return cli_usage("--ft: \"%s\" is not job or replica", v);
    if ((v = cli_get(a, "spare-nodes")) && cli_int("--spare-nodes", v, 0, 1 << 20, &g->goal.fp.spare_nodes))
        return 2;
    if ((v = cli_get(a, "failure-rate")) &&
        cli_real("--failure-rate", v, 0.001, 1e6, &g->goal.fp.per_1000_node_days))
        return 2;
    return 0;
}

static int check_price(const cli_goodput *g, const pt_cluster *c)
{
    char cn[300];
    if (g->goal.cost && !(c->price_per_device_hour > 0))
        return cli_usage("cluster \"%s\": price_per_device_hour is 0: --objective cost needs the cluster's price "
                         "(a cluster file with \"price_per_device_hour\")",
                         pt_str_escape(c->name, cn, sizeof cn));
    return 0;
}

int cli_goodput_setup(cli_goodput *g, const pt_model *m, const pt_job *job, const pt_cluster *c,
                      pt_search_opts *so)
{
    int rc;
    if ((rc = check_price(g, c)) != 0) return rc;
    g->goal.m = m;
    g->goal.job = job;
    g->goal.c = c;
    so->score = pt_failure_score;
    so->score_arg = &g->goal;
    return 0;
}

static void days(double s, char *buf, size_t n)
{
    if (s > 0) snprintf(buf, n, "%.2f", s / 86400.0);
    else snprintf(buf, n, "never");
}

int cli_goodput_deadline(cli_goodput *g, pt_search_result *r, pt_plan_check *chk)
{
    double fastest;
    int dropped;
    if (!(g->goal.deadline_s > 0)) return 0;
    dropped = pt_failure_deadline_filter(&g->goal, r, chk, &fastest);
    if (r->n > 0) return 0;
    fprintf(stderr, "partita: no plan trains %.4g tokens within %.4g hours: the fastest of the %d plans "
            "kept takes %.1f hours (failures and checkpoints counted)\n", g->goal.tokens,
            g->goal.deadline_s / 3600.0, dropped, fastest / 3600.0);
    return 1;
}

static void print_breakdown(const pt_goodput *gp, const char *who)
{
    printf("\nwhere the wall-clock of %s goes (failures every %.2f h on average)\n", who, gp->mtbf_s / 3600.0);
    printf("  compute %.1f%%, checkpoints %.1f%%, lost work %.1f%%, restarts %.1f%%", 100.0 * gp->frac_compute,
           100.0 * gp->frac_checkpoint, 100.0 * gp->frac_lost, 100.0 * gp->frac_restart);
    if (gp->ft == PT_FT_REPLICA) printf(", a replica short %.1f%%", 100.0 * gp->frac_degraded);
    printf("\n  a checkpoint: %.2f GB per rank (%.0f GB stored), blocks %.1f s, every %.0f s\n",
           (double)gp->ck.rank_bytes / 1e9, gp->ck.stored_bytes / 1e9, gp->checkpoint_s, gp->checkpoint_interval_s);
    printf("  a whole-job restart: downtime %.0f s, then launch %.0f s + reload %.0f s + warm-up %.0f s\n",
           gp->downtime_s, gp->init_s, gp->reload_s, gp->warmup_s);
    if (gp->ft == PT_FT_REPLICA)
        printf("  a replica failure: every replica stalls %.0f s; the failed one is back after %.0f s\n",
               gp->stall_s, gp->replica_recovery_s);
}

static void print_header(const pt_failure_goal *g, const pt_cluster *c, const pt_goodput *gp0)
{
    printf("\nranked by %s under failures: %s, %s checkpoints, MTBF of the job %.2f h", g->cost ? "dollars" : "goodput",
           g->fp.ft == PT_FT_REPLICA ? "replica-level recovery" : "whole-job restart", pt_ckpt_mode_name(g->fp.ckpt),
           gp0->mtbf_s / 3600.0);
    if (g->fp.per_1000_node_days > 0) printf(" (%.4g failures per 1000 node-days)\n", g->fp.per_1000_node_days);
    else printf(" (%.0f device-hours each)\n", c->mtbf_device_hours);
}

void cli_goodput_print(const cli_goodput *g, const pt_search_result *r, int explain)
{
    const pt_cluster *c = g->goal.c;
    pt_goodput gp0;
    if (r->n == 0) return;
    pt_failure_goodput(&g->goal.fp, g->goal.m, g->goal.job, &r->plans[0], c, g->goal.tokens, &gp0);
    print_header(&g->goal, c, &gp0);
    printf("%2s  %8s %8s %11s %9s %9s %10s %12s\n", "#", "goodput", "ft", "ckpt every", "ckpt s", "stall s",
           "wall days", "dollars");
    for (int i = 0; i < r->n; i++) {
        pt_goodput gp;
        char wd[32], dol[32] = "-";
        pt_failure_goodput(&g->goal.fp, g->goal.m, g->goal.job, &r->plans[i], c, g->goal.tokens, &gp);
        days(g->goal.tokens > 0 ? gp.expected_wall_s : 0, wd, sizeof wd);
        if (g->goal.tokens <= 0) snprintf(wd, sizeof wd, "-");
        if (gp.expected_wall_s > 0 && c->price_per_device_hour > 0) snprintf(dol, sizeof dol, "%.4g", gp.dollars);
        printf("%2d  %7.1f%% %8s %9.0f s %9.1f %9.0f %10s %12s\n", i + 1, 100.0 * gp.goodput, pt_ft_mode_name(gp.ft),
               gp.checkpoint_interval_s, gp.checkpoint_s, gp.stall_s, wd, dol);
    }
    if (explain) print_breakdown(&gp0, "#1");
}

int cli_goodput_json(const cli_goodput *g, const pt_model *m, const pt_cluster *c, const pt_job *job,
                     const pt_search_result *r, const pt_plan_check *chk, int verify)
{
    char *text = NULL;
    pt_diag d;
    pt_status s = pt_emit_goodput_search_json(m, c, job, r, chk, verify, &g->goal, &text, &d);
    if (s != PT_OK) return cli_fail(s, &d);
    fputs(text, stdout);
    free(text);
    return 0;
}

/* ---- --cluster a,b,c -------------------------------------------------------- */

/* One entry "NAME" or "NAME:GPUS" of the list into o (gpus from --gpus). */
static int entry(const char *item, int64_t gpus_default, char *name, size_t n, int64_t *gpus)
{
    const char *colon = strrchr(item, ':');
    *gpus = gpus_default;
    if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
        if (cli_int("--cluster", colon + 1, 1, CLI_MAX_GPUS, gpus)) return 2;
        pt_strlcpy(name, item, (size_t)(colon - item) + 1 < n ? (size_t)(colon - item) + 1 : n);
    } else {
        pt_strlcpy(name, item, n);
    }
    if (!name[0]) return cli_usage("--cluster: an empty name in the list \"%s\"", item);
    return 0;
}

int cli_goodput_compare(cli_goodput *g, const pt_model *m, cli_job *o, pt_search_opts *so, int threads,
                        int json, int explain)
{
    char list[1024], *save = NULL, *item;
    pt_goodput_entry *e = NULL;
    int n = 0, rc = 0;
    if (strlen(o->cluster) >= sizeof list) return cli_usage("--cluster: the list is longer than %zu bytes", sizeof list - 1);
    pt_strlcpy(list, o->cluster, sizeof list);
    if (!(e = calloc(PT_GOODPUT_MAX_CLUSTERS, sizeof *e))) return cli_usage("out of memory");
    for (item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        cli_job oj = *o;
        pt_goodput_entry *x;
        pt_search_result r;
        pt_plan_check *chk = NULL;
        pt_search_opts sj = *so;
        pt_diag d;
        pt_status s;
        char name[256];
        int64_t gpus;
        if (n == PT_GOODPUT_MAX_CLUSTERS) {
            rc = cli_usage("--cluster: at most %d clusters to compare", PT_GOODPUT_MAX_CLUSTERS);
            break;
        }
        x = &e[n];
        if ((rc = entry(item, o->gpus, name, sizeof name, &gpus)) != 0) break;
        oj.cluster = name;
        oj.gpus = gpus;
        if ((rc = cli_load_cluster(&oj, m, &x->c)) != 0) break;
        if ((rc = check_price(g, &x->c)) != 0) break;
        o->job.seq_len = oj.job.seq_len;
        g->goal.c = &x->c;
        g->goal.m = m;
        x->job = oj.job;
        g->goal.job = &x->job;
        sj.score = pt_failure_score;
        sj.score_arg = &g->goal;
        sj.top_k = pt_plan_rerank_pool(1);
        sj.threads = threads;
        if ((s = pt_search_engine(m, &x->c, &oj.job, &sj, &r, &d)) != PT_OK) {
            rc = cli_fail(s, &d);
            break;
        }
        if (r.n > 0 && (s = pt_plan_rerank(m, &x->c, &oj.job, &sj, &r, 1, &chk, &d)) != PT_OK) {
            pt_search_free(&r);
            rc = cli_fail(s, &d);
            break;
        }
        if (r.n > 0) {
            x->found = 1;
            x->best = r.plans[0];
            pt_failure_goodput(&g->goal.fp, m, &x->job, &x->best, &x->c, g->goal.tokens, &x->gp);
        }
        free(chk);
        pt_search_free(&r);
        n++;
    }
    if (rc == 0) {
        pt_goodput_pick pick;
        pt_goodput_compare_pick(e, n, g->goal.deadline_s, &pick);
        if (json) {
            char *text = NULL;
            pt_diag d;
            pt_status s = pt_emit_goodput_compare_json(m, &o->job, e, n, &pick, &g->goal, &text, &d);
            if (s != PT_OK) rc = cli_fail(s, &d);
            else fputs(text, stdout);
            free(text);
        } else {
            char mn[300];
            printf("plan       %s, %.4g tokens, %s under failures, compared across %d clusters\n\n",
                   pt_str_escape(m->name, mn, sizeof mn), g->goal.tokens, g->goal.cost ? "dollars" : "goodput", n);
            printf("%-16s %7s %-14s %-50s %10s %8s %10s %12s\n", "cluster", "gpus", "device", "best plan",
                   "tokens/s", "goodput", "wall days", "dollars");
            for (int i = 0; i < n; i++) {
                char cn[300], dn[300], s[256] = "no strategy fits", wd[32] = "-", dol[32] = "-";
                if (e[i].found) {
                    const pt_strategy *st = &e[i].best.st;
                    snprintf(s, sizeof s, "tp=%d pp=%d dp=%d cp=%d vpp=%d mbs=%d zero=%d %s", st->tp, st->pp, st->dp,
                             st->cp, st->vpp, st->mbs, st->zero, pt_recompute_name(st->recompute));
                    if (st->ep > 1) {
                        size_t k = strlen(s);
                        snprintf(s + k, sizeof s - k, " ep=%d", st->ep);
                    }
                    if (g->goal.tokens > 0) days(e[i].gp.expected_wall_s, wd, sizeof wd);
                    if (e[i].gp.expected_wall_s > 0 && e[i].c.price_per_device_hour > 0)
                        snprintf(dol, sizeof dol, "%.4g", e[i].gp.dollars);
                }
                printf("%-16s %7lld %-14s %-50s %10.4g %7.1f%% %10s %12s\n",
                       pt_str_escape(e[i].c.name, cn, sizeof cn), (long long)e[i].c.devices,
                       pt_str_escape(e[i].c.dev.name, dn, sizeof dn), s, e[i].found ? e[i].best.cost.tokens_per_s : 0.0,
                       e[i].found ? 100.0 * e[i].gp.goodput : 0.0, wd, dol);
            }
            if (pick.fastest >= 0)
                printf("\nfastest:  %s on %lld GPUs\n", pt_str_escape(e[pick.fastest].c.name, mn, sizeof mn),
                       (long long)e[pick.fastest].c.devices);
            if (pick.cheapest >= 0)
                printf("cheapest: %s on %lld GPUs%s\n", pt_str_escape(e[pick.cheapest].c.name, mn, sizeof mn),
                       (long long)e[pick.cheapest].c.devices,
                       g->goal.deadline_s > 0 ? " (among those within the deadline)" : "");
            else if (g->goal.deadline_s > 0)
                printf("cheapest: none trains the tokens within %.4g hours\n", g->goal.deadline_s / 3600.0);
            if (explain)
                for (int i = 0; i < n; i++)
                    if (e[i].found) {
                        char who[300];
                        snprintf(who, sizeof who, "%s", pt_str_escape(e[i].c.name, mn, sizeof mn));
                        print_breakdown(&e[i].gp, who);
                    }
        }
    }
    free(e);
    return rc;
}
