/*
 * cmd_plan.c -- `partita plan`: search every strategy, print the best
 * (SPEC sections 1 and 5), explain the choice, export it.
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/emit.h"
#include "emit/export.h"
#include "plan/search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double gib(int64_t b) { return (double)b / PT_GiB; }

/* The largest part of a plan's step time, named with the level it runs on. */
static const char *time_part_name(int k)
{
    static const char *const names[] = {"compute", "tp comm", "cp comm", "ep comm", "pp comm",
                                        "dp comm", "bubble",  "optimizer", "offload"};
    return names[k];
}

static double time_part(const pt_times *t, int k)
{
    const double v[] = {t->compute, t->tp_comm, t->cp_comm, t->ep_comm, t->pp_comm,
                        t->dp_comm, t->bubble,  t->optimizer, t->offload};
    return v[k];
}

static const char *part_level(const pt_cluster *c, const pt_strategy *st, int k)
{
    int lv = -1;
    if (k == 1) lv = pt_coll_level(c, st->tp, 1);
    else if (k == 2) lv = pt_coll_level(c, st->cp, st->tp);
    else if (k == 3 && st->ep > 1) lv = pt_coll_level(c, st->ep, st->etp); /* expert grid: etp, ep */
    else if (k == 4) lv = pt_coll_level(c, st->pp, (int64_t)st->tp * st->cp * st->dp);
    else if (k == 5) lv = pt_coll_level(c, (int64_t)st->dp * st->cp, st->tp);
    return lv >= 0 ? c->level[lv].name : NULL;
}

static void print_table(const pt_model *m, const pt_cluster *c, const pt_job *job,
                        const pt_search_result *r, int threads)
{
    printf("plan       %s on %s: %lld x %s, seq %lld, %s, %s\n", m->name, c->name,
           (long long)c->devices, c->dev.name, (long long)job->seq_len, pt_dtype_name(job->dtype),
           pt_engine_name(job->engine));
    printf("searched   %lld strategies: %lld fit, %lld ruled out by memory before pricing "
           "(%d thread%s)\n\n", (long long)r->evaluated, (long long)r->fitting, (long long)r->pruned,
           threads, threads == 1 ? "" : "s");
    printf("%2s  %-72s %9s %10s %7s %6s %8s  %s\n", "#", "strategy", "step s", "tokens/s", "TFLOP/s",
           "MFU", "mem GiB", "where the time goes");
    for (int i = 0; i < r->n; i++) {
        const pt_plan *p = &r->plans[i];
        char s[256], parts[160] = "";
        size_t used = 0;
        snprintf(s, sizeof s, "tp=%d pp=%d dp=%d cp=%d vpp=%d mbs=%d gbs=%lld sp=%d zero=%d %s %s%s%s",
                 p->st.tp, p->st.pp, p->st.dp, p->st.cp, p->st.vpp, p->st.mbs, (long long)p->st.gbs,
                 p->st.sp, p->st.zero, pt_recompute_name(p->st.recompute),
                 pt_schedule_name(p->st.schedule), p->st.offload ? " offload=" : "",
                 p->st.offload ? pt_offload_name(p->st.offload) : "");
        if (p->st.ep > 1 || p->st.etp != p->st.tp) { /* MoE: the expert grid */
            size_t k = strlen(s);
            snprintf(s + k, sizeof s - k, " ep=%d etp=%d", p->st.ep, p->st.etp);
        }
        if (p->st.pp_first) {
            size_t k = strlen(s);
            snprintf(s + k, sizeof s - k, " layers %d/../%d", p->st.pp_first, p->st.pp_last);
        }
        for (int k = 0; k < 9 && used + 20 < sizeof parts; k++) {
            double v = time_part(&p->cost.time, k);
            if (v / p->cost.step_time_s >= 0.005)
                used += (size_t)snprintf(parts + used, sizeof parts - used, "%s%s %.0f%%",
                                         used ? ", " : "", time_part_name(k),
                                         100.0 * v / p->cost.step_time_s);
        }
        printf("%2d  %-72s %9.3f %10.0f %7.1f %5.1f%% %8.1f  %s\n", i + 1, s, p->cost.step_time_s,
               p->cost.tokens_per_s, p->cost.model_tflops_per_gpu, 100.0 * p->cost.mfu,
               gib(p->cost.mem.total), parts);
    }
}

/* A dimension's value as the explanation words it: names for the enums,
 * "even" for a first or last stage that holds no special layer count. */
static void dim_value(int d, int64_t x, char *buf, size_t n)
{
    if (d == PT_D_RECOMPUTE) snprintf(buf, n, "%s", pt_recompute_name((pt_recompute)x));
    else if (d == PT_D_SCHEDULE) snprintf(buf, n, "%s", pt_schedule_name((pt_schedule)x));
    else if (d == PT_D_OFFLOAD) snprintf(buf, n, "%s", pt_offload_name((pt_offload)x));
    else if ((d == PT_D_PP_FIRST || d == PT_D_PP_LAST) && x == 0) snprintf(buf, n, "even");
    else snprintf(buf, n, "%lld", (long long)x);
}

static void explain(const pt_model *m, const pt_cluster *c, const pt_search_opts *so,
                    const pt_search_result *r)
{
    const pt_plan *b = &r->plans[0];
    char s[256];
    pt_strategy_format(&b->st, s, sizeof s);
    printf("\nwhy #1 wins\n");
    printf("  %s: %.3f s per step, %.1f of %.1f GiB.\n", s, b->cost.step_time_s,
           gib(b->cost.mem.total), gib(b->cost.device_memory_bytes));
    for (int d = 0; d < PT_D_COUNT; d++) {
        const pt_plan *a = &r->alt[d];
        int worst = 0;
        double dmax = -1e300, loss;
        char v[32];
        int64_t bv = pt_strategy_dim(&b->st, d);
        dim_value(d, bv, v, sizeof v);
        if ((d == PT_D_EP || d == PT_D_ETP) && m->experts == 0) continue; /* dense: nothing to say */
        if (!r->have_alt[d]) {
            int pinned = (d == PT_D_GBS && so->gbs_lo == so->gbs_hi) ||
                         (so->space.kind[d] == 1 && so->space.n[d] == 1);
            printf("  %-9s %s: %s\n", pt_space_dim_name(d), v,
                   pinned ? "fixed by the question (--global-batch, --fix or --space)"
                          : "no other value is valid here or fits in memory");
            continue;
        }
        for (int k = 0; k < 9; k++) {
            /* compare per token so a different global batch compares fairly */
            double x = time_part(&a->cost.time, k) / (double)a->st.gbs -
                       time_part(&b->cost.time, k) / (double)b->st.gbs;
            if (x > dmax) {
                dmax = x;
                worst = k;
            }
        }
        loss = b->score / a->score - 1.0;
        {
            char av[32];
            int64_t x = pt_strategy_dim(&a->st, d);
            const char *lvl = part_level(c, &a->st, worst);
            dim_value(d, x, av, sizeof av);
            printf("  %-9s %s, not %s: the best with %s=%s is %.1f%% slower, mostly %s%s%s "
                   "(%+.3f s per step)\n",
                   pt_space_dim_name(d), v, av, pt_space_dim_name(d), av, 100.0 * loss,
                   time_part_name(worst), lvl ? " over " : "", lvl ? lvl : "",
                   dmax * (double)b->st.gbs);
        }
    }
}

/* Nothing fits: the nearest miss and what single change would make it fit. */
static void no_fit(const pt_model *m, const pt_cluster *c, const pt_job *job,
                   const pt_search_result *r)
{
    char s[256];
    const pt_plan *p = &r->miss;
    static const char *const tries[] = {"recompute=full", "mbs=1", "zero=3", "offload=optimizer",
                                        "zero=3 offload=params"};
    double states = (double)pt_model_params(m) * 16.0;
    double per_dev = c->dev.memory_GiB * PT_GiB * 0.8;
    int64_t node = c->level[0].size, need;
    if (!r->have_miss) {
        fprintf(stderr, "partita: no valid strategy for %s on %lld devices\n", m->name,
                (long long)c->devices);
        return;
    }
    pt_strategy_format(&p->st, s, sizeof s);
    fprintf(stderr, "partita: no strategy fits in %.1f GiB per device; the nearest is\n  %s\n"
            "  needing %.1f GiB (weights %.1f, gradients %.1f, optimizer %.1f, activations %.1f, "
            "other %.1f)\n", c->dev.memory_GiB, s, gib(p->cost.mem.total), gib(p->cost.mem.weights),
            gib(p->cost.mem.gradients), gib(p->cost.mem.optimizer), gib(p->cost.mem.activations),
            gib(p->cost.mem.other));
    for (size_t i = 0; i < sizeof tries / sizeof *tries; i++) {
        pt_strategy st = p->st;
        pt_cost k;
        pt_diag d;
        unsigned set;
        pt_strategy t;
        if (pt_strategy_parse(tries[i], &t, &set, &d) != PT_OK) continue;
        if (set & PT_K_RECOMPUTE) st.recompute = t.recompute;
        if (set & PT_K_MBS) st.mbs = t.mbs;
        if (set & PT_K_ZERO) st.zero = t.zero;
        if (set & PT_K_OFFLOAD) st.offload = t.offload;
        if (st.offload == PT_OFF_OPTIMIZER && st.zero < 1) st.zero = 1;
        if (pt_strategy_check(&st, m, c, job, &d) != PT_OK) continue;
        pt_cost_eval(m, c, job, &st, &k);
        fprintf(stderr, "  with %-22s %6.1f GiB%s\n", tries[i], gib(k.mem.total),
                k.fits ? "  (fits, outside the space searched)" : "");
    }
    need = (int64_t)(states / per_dev) + 1;
    need = (need + node - 1) / node * node;
    if (need > c->devices)
        fprintf(stderr, "  the model's weights, gradients and Adam states alone (16 B per parameter, "
                "%.0f GiB) need about %lld devices fully sharded\n", states / PT_GiB, (long long)need);
}

int cmd_plan(int argc, char **argv)
{
    cli_job o;
    pt_model m;
    pt_cluster c;
    pt_diag d;
    pt_status s;
    pt_search_opts so;
    pt_search_result r;
    const char *gb = NULL, *space = NULL, *fix = NULL, *export_fmt = NULL, *out = NULL;
    const char *objective = "step", *trace = NULL, *svg = NULL;
    const char *tokens_s = NULL, *bcrit_s = NULL, *loss_s = NULL;
    double min_tokens = 0, bcrit = 0;
    int ttt = 0;
    int verify = 0;
    int64_t top = 5, threads = 0;
    int explain_f = 0, rc;
    memset(&o, 0, sizeof o);
    o.job.dtype = PT_BF16;
    o.job.flash_attention = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        static const char *const with_value[] = {"--global-batch", "--objective", "--top", "--space",
                                                 "--fix", "--threads", "--export", "--out", "--trace",
                                                 "--svg", "--tokens", "--critical-batch", "--target-loss",
                                                 NULL};
        int used = cli_job_option(&o, a, v), takes = 0;
        if (used < 0) return -used;
        if (used) {
            i += used - 1;
            continue;
        }
        for (int k = 0; with_value[k]; k++)
            if (!strcmp(a, with_value[k])) takes = 1;
        if (takes && !v) return cli_usage("%s needs a value", a);
        if (!strcmp(a, "--global-batch")) gb = v;
        else if (!strcmp(a, "--objective")) objective = v;
        else if (!strcmp(a, "--top")) { if (cli_int(a, v, 1, &top)) return 2; }
        else if (!strcmp(a, "--threads")) { if (cli_int(a, v, 1, &threads)) return 2; }
        else if (!strcmp(a, "--space")) space = v;
        else if (!strcmp(a, "--fix")) fix = v;
        else if (!strcmp(a, "--export")) export_fmt = v;
        else if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--trace")) trace = v;
        else if (!strcmp(a, "--svg")) svg = v;
        else if (!strcmp(a, "--tokens")) tokens_s = v;
        else if (!strcmp(a, "--critical-batch")) bcrit_s = v;
        else if (!strcmp(a, "--target-loss")) loss_s = v;
        else if (!strcmp(a, "--verify")) { verify = 1; continue; }
        else if (!strcmp(a, "--json")) { o.json = 1; continue; }
        else if (!strcmp(a, "--explain")) { explain_f = 1; continue; }
        else if (a[0] == '-') return cli_usage("plan: unknown option \"%s\"", a);
        else if (!o.model) { o.model = a; continue; }
        else return cli_usage("plan: unexpected argument \"%s\"", a);
        i++;
    }
    if (!o.model) return cli_usage("plan: give a MODEL (a name from `partita models` or a config.json)");
    if (!o.cluster) o.cluster = "dgx-h100";
    if (!strcmp(objective, "time-to-train")) ttt = 1;
    else if (strcmp(objective, "step"))
        return cli_usage("--objective: \"%s\" is not supported (this build ranks by step time, "
                         "--objective step, or by time to train, --objective time-to-train)", objective);
    if (!ttt && (tokens_s || bcrit_s || loss_s))
        return cli_usage("--tokens, --critical-batch and --target-loss go with --objective time-to-train");
    if (ttt) {
        char *end;
        if (!tokens_s)
            return cli_usage("--objective time-to-train: give --tokens N, the tokens the run needs at a small "
                             "batch (E_min of McCandlish et al. 2018)");
        min_tokens = strtod(tokens_s, &end);
        if (*end || !(min_tokens >= 1 && min_tokens < 1e18))
            return cli_usage("--tokens: \"%s\" is not a number of tokens >= 1", tokens_s);
        if (bcrit_s) {
            bcrit = strtod(bcrit_s, &end);
            if (*end || !(bcrit >= 1 && bcrit < 1e15))
                return cli_usage("--critical-batch: \"%s\" is not a number of tokens >= 1", bcrit_s);
        } else if (loss_s) {
            double loss = strtod(loss_s, &end);
            if (*end || !(loss > 0.1 && loss < 20))
                return cli_usage("--target-loss: \"%s\" is not a loss in nats per token (0.1..20)", loss_s);
            /* Kaplan et al. 2020, "Scaling Laws for Neural Language Models",
             * Eq. 5.2 / Table 1: B_crit(L) = B* / L^(1/alpha_B), B* ~ 2e8
             * tokens, alpha_B ~ 0.21 (fitted on WebText2, L in nats). */
            bcrit = 2e8 / pow(loss, 1.0 / 0.21);
        } else {
            return cli_usage("--objective time-to-train: give --critical-batch TOKENS (B_noise of McCandlish et "
                             "al. 2018) or --target-loss L (the critical batch from Kaplan et al. 2020)");
        }
    }
    if (!gb && !ttt) return cli_usage("plan: give --global-batch B (or a range LO..HI)");
    memset(&so, 0, sizeof so);
    pt_space_init(&so.space);
    if (gb) {
        const char *dots = strstr(gb, "..");
        char lo[32];
        if (dots) {
            pt_strlcpy(lo, gb, (size_t)(dots - gb) + 1 < sizeof lo ? (size_t)(dots - gb) + 1 : sizeof lo);
            if (cli_int("--global-batch", lo, 1, &so.gbs_lo) ||
                cli_int("--global-batch", dots + 2, so.gbs_lo, &so.gbs_hi))
                return 2;
        } else {
            if (cli_int("--global-batch", gb, 1, &so.gbs_lo)) return 2;
            so.gbs_hi = so.gbs_lo;
        }
    }
    if ((rc = cli_load(&o, &m, &c)) != 0) return rc;
    if (!gb) {
        /* the batch is chosen: from 1/64 of the critical batch to 4 times it
         * (past B_crit each doubling of the batch nearly doubles the tokens) */
        double hi = 4.0 * bcrit / (double)o.job.seq_len, lo = bcrit / 64.0 / (double)o.job.seq_len;
        so.gbs_lo = lo < 1 ? 1 : (int64_t)lo;
        so.gbs_hi = hi < (double)so.gbs_lo ? so.gbs_lo : (int64_t)hi;
    }
    if (space && (s = pt_space_parse(space, "--space", &so.space, &d)) != PT_OK) return cli_fail(s, &d);
    if (fix) {
        pt_strategy f;
        unsigned set;
        static const unsigned bits[PT_D_COUNT] = {PT_K_TP, PT_K_PP, PT_K_DP, PT_K_CP, PT_K_VPP,
                                                  PT_K_MBS, PT_K_GBS, PT_K_SP, PT_K_ZERO,
                                                  PT_K_RECOMPUTE, PT_K_SCHEDULE, PT_K_OFFLOAD,
                                                  PT_K_PP_FIRST, PT_K_PP_LAST, PT_K_EP, PT_K_ETP};
        if ((s = pt_strategy_parse(fix, &f, &set, &d)) != PT_OK) {
            pt_strlcpy(d.file, "--fix", sizeof d.file);
            return cli_fail(s, &d);
        }
        if (m.experts == 0 && ((set & PT_K_EP && f.ep != 1) || (set & PT_K_ETP)))
            return cli_usage("--fix: ep and etp apply to mixture-of-experts models only (%s is dense)",
                             m.name);
        for (int k = 0; k < PT_D_COUNT; k++)
            if (set & bits[k]) { /* pinned: a one-value list */
                so.space.kind[k] = 1;
                so.space.n[k] = 1;
                so.space.v[k][0] = pt_strategy_dim(&f, k);
            }
    }
    if (export_fmt) {
        /* search only what the engine can run (unless the user narrowed it
         * already), and price it as that engine runs it */
        pt_export_fmt fmt;
        static const char *const narrow[] = {
            "schedule=1f1b,interleaved zero=0,1 offload=none,optimizer",           /* megatron */
            "cp=1 sp=0 vpp=1 schedule=1f1b recompute=none,full pp_first=0 pp_last=0", /* deepspeed */
            "zero=0,3 schedule=gpipe,1f1b,interleaved,zb-v,dualpipe pp_first=0 pp_last=0"}; /* torchtitan */
        static const pt_engine engine[] = {PT_ENGINE_MEGATRON, PT_ENGINE_DEEPSPEED, PT_ENGINE_FSDP};
        pt_space eng;
        if (!pt_export_parse_fmt(export_fmt, &fmt))
            return cli_usage("--export: \"%s\" is not megatron, deepspeed or torchtitan", export_fmt);
        pt_space_init(&eng);
        if ((s = pt_space_parse(narrow[fmt], "--export", &eng, &d)) != PT_OK) return cli_fail(s, &d);
        for (int k = 0; k < PT_D_COUNT; k++)
            if (so.space.kind[k] == 0 && eng.kind[k] != 0) {
                so.space.kind[k] = eng.kind[k];
                so.space.n[k] = eng.n[k];
                memcpy(so.space.v[k], eng.v[k], sizeof eng.v[k]);
            }
        if (!o.engine_set) o.job.engine = engine[fmt];
    }
    so.top_k = (int)top;
    so.threads = threads > 0 ? (int)threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (so.threads < 1) so.threads = 1;
    so.prune = 1;
    so.critical_batch_tokens = bcrit;
    o.job.global_batch = so.gbs_lo;
    if ((s = pt_search(&m, &c, &o.job, &so, &r, &d)) != PT_OK) return cli_fail(s, &d);
    if (r.n == 0) {
        no_fit(&m, &c, &o.job, &r);
        pt_search_free(&r);
        return 1;
    }
    if (trace || svg || export_fmt) {
        /* the export first, then every file at once: a failure writes none */
        char *text = NULL;
        if (export_fmt) {
            pt_export_fmt fmt;
            pt_export_parse_fmt(export_fmt, &fmt);
            if ((s = pt_emit_export(fmt, &m, &c, &o.job, &r.plans[0].st, &text, &d)) != PT_OK) {
                pt_search_free(&r);
                return cli_fail(s, &d);
            }
        }
        rc = 0;
        if (trace || svg) {
            pt_sim_result sim;
            if ((s = pt_sim_run(&m, &c, &o.job, &r.plans[0].st, &sim, &d)) != PT_OK) {
                free(text);
                pt_search_free(&r);
                return cli_fail(s, &d);
            }
            rc = cli_write_outputs(&sim, &m, &r.plans[0].st, trace, svg, text ? out : NULL, text);
            pt_sim_free(&sim);
        } else if (out) {
            s = pt_write_file_atomic(out, text, strlen(text), &d);
            if (s != PT_OK) rc = cli_fail(s, &d);
        }
        if (export_fmt && !out && !rc) fputs(text, stdout);
        free(text);
        if (rc || export_fmt) {
            pt_search_free(&r);
            return rc;
        }
    }
    if (o.json) {
        json_t *j = json_object(), *plans = json_array();
        char *text;
        json_object_set_new(j, "model", json_string(m.name));
        json_object_set_new(j, "cluster", json_string(c.name));
        json_object_set_new(j, "devices", json_integer(c.devices));
        json_object_set_new(j, "seq_len", json_integer(o.job.seq_len));
        json_object_set_new(j, "dtype", json_string(pt_dtype_name(o.job.dtype)));
        json_object_set_new(j, "engine", json_string(pt_engine_name(o.job.engine)));
        json_object_set_new(j, "candidates_evaluated", json_integer(r.evaluated));
        json_object_set_new(j, "candidates_priced", json_integer(r.priced));
        json_object_set_new(j, "candidates_pruned_by_memory", json_integer(r.pruned));
        json_object_set_new(j, "candidates_fitting", json_integer(r.fitting));
        json_object_set_new(j, "search_seconds", json_real(r.seconds));
        json_object_set_new(j, "objective", json_string(ttt ? "time-to-train" : "step"));
        if (ttt) {
            json_object_set_new(j, "min_tokens", json_real(min_tokens));
            json_object_set_new(j, "critical_batch_tokens", json_real(bcrit));
        }
        for (int i = 0; i < r.n; i++) {
            json_t *pj = pt_emit_plan_json(&r.plans[i].st, &r.plans[i].cost);
            pt_sim_result sim;
            if (ttt) {
                double tok = pt_plan_tokens_to_target(&r.plans[i], &o.job, min_tokens, bcrit);
                double per_step = (double)r.plans[i].st.gbs * (double)o.job.seq_len;
                json_object_set_new(pj, "tokens_to_target", json_real(tok));
                json_object_set_new(pj, "steps_to_target", json_real(tok / per_step));
                json_object_set_new(pj, "time_to_train_s", json_real(tok / r.plans[i].cost.tokens_per_s));
            }
            if (verify && pt_sim_run(&m, &c, &o.job, &r.plans[i].st, &sim, &d) == PT_OK) {
                json_object_set_new(pj, "simulated_step_time_s", json_real(sim.step_time_s));
                json_object_set_new(pj, "simulated_peak_memory_GiB", json_real((double)sim.peak_bytes / PT_GiB));
                pt_sim_free(&sim);
            }
            json_array_append_new(plans, pj);
        }
        json_object_set_new(j, "plans", plans);
        text = pt_emit_json_text(j);
        printf("%s\n", text);
        free(text);
        json_decref(j);
    } else {
        print_table(&m, &c, &o.job, &r, so.threads);
        if (ttt) {
            printf("\nranked by time to train: E(B) = %.4g tokens x (1 + B / %.4g) to the target\n", min_tokens,
                   bcrit);
            printf("%2s  %10s %14s %12s %12s\n", "#", "batch", "tokens", "steps", "days");
            for (int i = 0; i < r.n; i++) {
                double tok = pt_plan_tokens_to_target(&r.plans[i], &o.job, min_tokens, bcrit);
                double per_step = (double)r.plans[i].st.gbs * (double)o.job.seq_len;
                printf("%2d  %10lld %14.4g %12.0f %12.2f\n", i + 1, (long long)r.plans[i].st.gbs, tok,
                       tok / per_step, tok / r.plans[i].cost.tokens_per_s / 86400.0);
            }
        }
        if (verify) {
            printf("\nverified by the step simulator (event by event)\n");
            printf("%2s  %12s %12s %7s %12s %12s\n", "#", "analytic s", "simulated s", "diff", "mem GiB",
                   "sim peak GiB");
            for (int i = 0; i < r.n; i++) {
                pt_sim_result sim;
                if (pt_sim_run(&m, &c, &o.job, &r.plans[i].st, &sim, &d) != PT_OK) continue;
                printf("%2d  %12.3f %12.3f %+6.1f%% %12.1f %12.1f\n", i + 1, r.plans[i].cost.step_time_s,
                       sim.step_time_s, 100.0 * (sim.step_time_s / r.plans[i].cost.step_time_s - 1.0),
                       gib(r.plans[i].cost.mem.total), (double)sim.peak_bytes / PT_GiB);
                pt_sim_free(&sim);
            }
        }
        if (explain_f) explain(&m, &c, &so, &r);
    }
    pt_search_free(&r);
    return 0;
}
