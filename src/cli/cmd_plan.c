/*
 * cmd_plan.c -- `partita plan`: search every strategy, print the best
 * (SPEC sections 1 and 5), explain the choice, export it.  The search is
 * src/plan/search.c, the nearest miss src/plan/nearmiss.c, the JSON
 * src/emit/search_out.c; here are the option handling and the tables.
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/emit.h"
#include "emit/export.h"
#include "emit/html.h"
#include "plan/search.h"
#include "goal/ttt.h"
#include "cli/plan_goodput.h"
#include "cli/cmd_recsys.h"
#include "workload/recsys.h"

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
                        const pt_search_result *r, const pt_plan_check *chk, int threads)
{
    char mn[300], cn[300], dn[300], docs[48], comm[80];
    int any = job->engine == PT_ENGINE_ANY;
    printf("plan       %s on %s: %lld x %s, seq %lld%s, %s%s, %s\n", pt_str_escape(m->name, mn, sizeof mn),
           pt_str_escape(c->name, cn, sizeof cn), (long long)c->devices,
           pt_str_escape(c->dev.name, dn, sizeof dn), (long long)job->seq_len,
           pt_emit_docs(job, docs, sizeof docs), pt_dtype_name(job->dtype),
           pt_emit_comm_opts(job, comm, sizeof comm),
           any ? "any engine (each plan priced as the engine named)" : pt_engine_label(job->engine));
    printf("searched   %lld strategies: %lld fit, %lld ruled out by memory before pricing "
           "(%d thread%s)\n\n", (long long)r->evaluated, (long long)r->fitting, (long long)r->pruned,
           threads, threads == 1 ? "" : "s");
    printf("%2s  %-72s %9s %10s %7s %6s %8s  %s%s\n", "#", "strategy", "step s", "tokens/s", "TFLOP/s",
           "MFU", "mem GiB", any ? "engine      " : "", "where the time goes (analytic)");
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
            double v = time_part(&p->cost.time, k), an = chk[i].analytic_step_time_s;
            if (v / an >= 0.005)
                used += (size_t)snprintf(parts + used, sizeof parts - used, "%s%s %.0f%%",
                                         used ? ", " : "", time_part_name(k), 100.0 * v / an);
        }
        printf("%2d  %-72s %9.3f %10.0f %7.1f %5.1f%% %8.1f  ", i + 1, s, p->cost.step_time_s,
               p->cost.tokens_per_s, p->cost.model_tflops_per_gpu, 100.0 * p->cost.mfu,
               gib(chk[i].simulated ? chk[i].simulated_peak_bytes : p->cost.mem.total));
        if (any) printf("%-12s", pt_engine_label(pt_engine_of(m, job, &p->st)));
        printf("%s\n", parts);
    }
    {
        int nind = 0;
        for (int i = 0; i < r->n; i++) nind += chk[i].independent;
        printf("step s, tokens/s, TFLOP/s, MFU and mem GiB: %s\n",
               nind == r->n ? "simulated event by event (ranked by the simulator)"
               : nind == 0  ? "analytic (no data parallelism, and pp=1, zb-v or dualpipe, where the simulator computes the same, or beyond its limits)"
                            : "simulated where the simulator checks the pipeline (pp > 1, not zb-v/dualpipe) or the data-parallel overlap (dp*cp > 1), else analytic");
    }
    { /* plans predicted above the device's best published MFU (issue 14) */
        char nums[80] = "", who[96];
        double top = 0;
        size_t used = 0;
        int above = 0;
        for (int i = 0; i < r->n && used + 16 < sizeof nums; i++)
            if (r->plans[i].cost.above_best_mfu) {
                used += (size_t)snprintf(nums + used, sizeof nums - used, "%s#%d", used ? " " : "", i + 1);
                if (r->plans[i].cost.mfu > top) top = r->plans[i].cost.mfu;
                above++;
            }
        if (above) {
            snprintf(who, sizeof who, "plan%s %s", above > 1 ? "s" : "", nums);
            printf("\n");
            pt_emit_mfu_warning(stdout, &c->dev, who, top);
        }
    }
    { /* the first plan leans on a price no measured run checks (issue 14:
       * never win by an optimistic corner the user cannot see) */
        char note[600];
        if (pt_emit_offload_note(r, note, sizeof note)[0]) printf("\nnote: %s\n", note);
    }
    if (pt_device_unfitted(&c->dev)) {
        printf("\n");
        pt_emit_device_note(stdout, &c->dev);
    }
}

static void explain(FILE *f, const pt_model *m, const pt_cluster *c, const pt_search_opts *so,
                    const pt_search_result *r)
{
    const pt_plan *b = &r->plans[0];
    char s[256];
    pt_strategy_format(&b->st, s, sizeof s);
    fprintf(f, "\nwhy #1 wins\n");
    fprintf(f, "  %s: %.3f s per step, %.1f of %.1f GiB.\n", s, b->cost.step_time_s,
           gib(b->cost.mem.total), gib(b->cost.device_memory_bytes));
    for (int d = 0; d < PT_D_COUNT; d++) {
        const pt_plan *a = &r->alt[d];
        int worst = 0;
        double dmax = -1e300, loss;
        char v[32];
        int64_t bv = pt_strategy_dim(&b->st, d);
        pt_strategy_key_value_text(d, bv, v, sizeof v);
        if ((d == PT_D_EP || d == PT_D_ETP) && m->experts == 0) continue; /* dense: nothing to say */
        if (!r->have_alt[d]) {
            int pinned = (d == PT_D_GBS && so->gbs_lo == so->gbs_hi) ||
                         (so->space.kind[d] == 1 && so->space.n[d] == 1);
            fprintf(f, "  %-9s %s: %s\n", pt_space_dim_name(d), v,
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
            char el[300];
            if (lvl) lvl = pt_str_escape(lvl, el, sizeof el);
            pt_strategy_key_value_text(d, x, av, sizeof av);
            fprintf(f, "  %-9s %s, not %s: the best with %s=%s is %.1f%% slower, mostly %s%s%s "
                   "(%+.3f s per step)\n",
                   pt_space_dim_name(d), v, av, pt_space_dim_name(d), av, 100.0 * loss,
                   time_part_name(worst), lvl ? " over " : "", lvl ? lvl : "",
                   dmax * (double)b->st.gbs);
        }
    }
}

static const cli_opt opts[] = {
    CLI_JOB_OPTS,
    {"global-batch", "B", "sequences per step, or a range LO..HI to search, 1..1073741824 (required unless the objective chooses it)"},
    {"objective", "O", "step (rank by tokens/s, the default), time-to-train (needs --tokens), goodput or cost (failures and checkpoints counted; cost needs --tokens)"},
    {"tokens", "N", "time-to-train: tokens the run needs at a small batch (E_min); goodput/cost: tokens to train; 1..1e18"},
    {"critical-batch", "TOKENS", "time-to-train: the critical batch B_noise in tokens, 1..1e15"},
    {"target-loss", "L", "time-to-train: the critical batch from a target loss in nats per token, 0.1..20"},
    {"top", "K", "plans to print, 1..10000 (default 5)"},
    {"space", "SPACE", "values to search per key, e.g. \"tp=4,8 pp=1..16 recompute=none,full\""},
    {"fix", "STRATEGY", "keys every plan must have, e.g. \"tp=8 zero=1\""},
    {"threads", "T", "search threads, 1..1024 (default: one per CPU; the answer is the same)"},
    {"json", NULL, "print JSON (the plans best first) instead of the table"},
    {"explain", NULL, "say why the best plan wins, key by key"},
    {"verify", NULL, "replay each plan's step in the step simulator and print both"},
    {"export", "FMT", "print the best plan as megatron, deepspeed or torchtitan launch configuration, its "
                      "predicted step time and memory in a comment (deepspeed: on stderr); implies --engine FMT; "
                      "a recommendation model's sharding: torchrec"},
    {"out", "FILE", "write --export's configuration to FILE instead of stdout"},
    {"trace", "FILE.json", "write the best plan's simulated step as a Chrome trace"},
    {"svg", "FILE.svg", "write the best plan's simulated step as an SVG timeline"},
    CLI_GOODPUT_OPTS,
    {"report", "FILE.html", "write a self-contained HTML report: the plans, the explanation, the timeline, memory"},
    {"host-memory-GiB", "X", "recommendation models: host memory per device for UVM-cached tables, 0..1e6 "
                             "(default 128, TorchRec's)"},
    {"cpu-machines", "K", "layer graphs: spare CPU machines for a parameter server (BytePS), 0..1000000 (default 0)"},
    {NULL, NULL, NULL}};

const cli_cmd cli_cmd_plan = {
    "plan", "MODEL [OPTION]...", "search every parallel strategy and print the best plans",
    "MODEL is a built-in name (`partita models`) or a Hugging Face config.json; a recommendation model\n"
    "(dlrm, dlrm-dcnv2, or a graph file with embedding_bag layers) gets its embedding sharding planned.\n"
    "A layer graph (`partita models`, second table, or a graph file) gets data-parallel plans with\n"
    "spatial partitioning and the gradient exchange (all-reduce, parameter servers, BytePS) chosen.\n"
    "--engine E (default megatron) searches only what E's current release runs and prices it as E\n"
    "runs it; --engine any searches every engine and names each plan's.\n"
    "Exit status 1 when no strategy fits (the nearest miss is printed).\n", 1, opts, cmd_plan};

/* Nothing fits: the nearest miss and what single change would make it fit. */
static void no_fit(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_search_result *r)
{
    char s[256], mn[300];
    const pt_plan *p = &r->miss;
    pt_nearmiss nm;
    if (!r->have_miss) {
        int shown = 0, used[PT_RULE_COUNT] = {0};
        fprintf(stderr, "partita: no valid strategy for %s on %lld devices that %s runs\n",
                pt_str_escape(m->name, mn, sizeof mn), (long long)c->devices,
                job->engine == PT_ENGINE_ANY ? "any engine" : pt_engine_label(job->engine));
        /* the rules that refused the most values, at most three */
        for (; shown < 3; shown++) {
            int best = -1;
            char why[256];
            for (int k = 0; k < PT_RULE_COUNT; k++)
                if (!used[k] && r->refused[k] > 0 && (best < 0 || r->refused[k] > r->refused[best])) best = k;
            if (best < 0) break;
            used[best] = 1;
            pt_search_rule_describe(best, m, c, job, why, sizeof why);
            if (!shown) fprintf(stderr, "  candidates refused, by rule (most first):\n");
            fprintf(stderr, "  %8lld  %s\n", (long long)r->refused[best], why);
        }
        if (!shown)
            fprintf(stderr, "  --space/--fix leave no value to try in some dimension\n");
        return;
    }
    pt_strategy_format(&p->st, s, sizeof s);
    fprintf(stderr, "partita: no strategy fits in %.1f GiB per device; the nearest is\n  %s\n"
            "  needing %.1f GiB (weights %.1f, gradients %.1f, optimizer %.1f, activations %.1f, "
            "other %.1f)\n", c->dev.memory_GiB, s, gib(p->cost.mem.total), gib(p->cost.mem.weights),
            gib(p->cost.mem.gradients), gib(p->cost.mem.optimizer), gib(p->cost.mem.activations),
            gib(p->cost.mem.other));
    {
        pt_job pj = *job; /* priced as the engine of the miss's search */
        pj.engine = pt_engine_of(m, job, &p->st);
        if (pj.engine == PT_ENGINE_ANY) pj.engine = PT_ENGINE_MEGATRON;
        pt_nearmiss_explain(m, c, &pj, p, &nm);
    }
    if (nm.ntries == 0)
        fprintf(stderr, "  no single change of recompute=full, mbs=1, zero=3, offload=optimizer or "
                "zero=3 offload=params needs less memory\n");
    for (int i = 0; i < nm.ntries; i++)
        fprintf(stderr, "  with %-22s %6.1f GiB%s\n", nm.tries[i].change, gib(nm.tries[i].cost.mem.total),
                nm.tries[i].cost.fits ? "  (fits, outside the space searched)" : "");
    if (nm.devices_needed)
        fprintf(stderr, "  the model's weights, gradients and Adam states alone (16 B per parameter, "
                "%.0f GiB) need about %lld devices fully sharded\n", nm.states_bytes / PT_GiB,
                (long long)nm.devices_needed);
}

/* --global-batch B or LO..HI into so. */
static int global_batch(const char *gb, pt_search_opts *so)
{
    const char *dots = strstr(gb, "..");
    char lo[32];
    if (!dots) {
        if (cli_int("--global-batch", gb, 1, CLI_MAX_BATCH, &so->gbs_lo)) return 2;
        so->gbs_hi = so->gbs_lo;
        return 0;
    }
    pt_strlcpy(lo, gb, (size_t)(dots - gb) + 1 < sizeof lo ? (size_t)(dots - gb) + 1 : sizeof lo);
    if (cli_int("--global-batch", lo, 1, CLI_MAX_BATCH, &so->gbs_lo) ||
        cli_int("--global-batch", dots + 2, so->gbs_lo, CLI_MAX_BATCH, &so->gbs_hi))
        return 2;
    return 0;
}

/* --objective and the time-to-train options: min_tokens 0 for step. */
static int objective(const cli_args *a, double *min_tokens, double *bcrit)
{
    const char *obj = cli_get(a, "objective"), *tokens = cli_get(a, "tokens");
    const char *bc = cli_get(a, "critical-batch"), *loss_s = cli_get(a, "target-loss");
    double loss;
    *min_tokens = *bcrit = 0;
    if (!obj || !strcmp(obj, "step")) {
        if (tokens || bc || loss_s)
            return cli_usage("--tokens, --critical-batch and --target-loss go with --objective time-to-train");
        return 0;
    }
    if (cli_goodput_objective(obj)) return 0; /* plan_goodput.c */
    if (strcmp(obj, "time-to-train"))
        return cli_usage("--objective: \"%s\" is not supported (this build ranks by step time, "
                         "--objective step, by time to train, --objective time-to-train, or with failures "
                         "counted, --objective goodput or cost)", obj);
    if (!tokens)
        return cli_usage("--objective time-to-train: give --tokens N, the tokens the run needs at a small "
                         "batch (E_min of McCandlish et al. 2018)");
    if (cli_real("--tokens", tokens, 1, 1e18, min_tokens)) return 2;
    if (bc) return cli_real("--critical-batch", bc, 1, 1e15, bcrit);
    if (!loss_s)
        return cli_usage("--objective time-to-train: give --critical-batch TOKENS (B_noise of McCandlish et "
                         "al. 2018) or --target-loss L (the critical batch from Kaplan et al. 2020)");
    if (cli_real("--target-loss", loss_s, 0.1, 20, &loss)) return 2;
    /* Kaplan et al. 2020, "Scaling Laws for Neural Language Models",
     * Eq. 5.2 / Table 1: B_crit(L) = B* / L^(1/alpha_B), B* ~ 2e8
     * tokens, alpha_B ~ 0.21 (fitted on WebText2, L in nats). */
    *bcrit = 2e8 / pow(loss, 1.0 / 0.21);
    return 0;
}

/* --fix: every key it sets pinned to a one-value list. */
static int fix_keys(const char *fix, const pt_model *m, pt_space *sp)
{
    pt_strategy f;
    unsigned set;
    pt_diag d;
    pt_status s;
    if ((s = pt_strategy_parse(fix, &f, &set, &d)) != PT_OK) {
        pt_strlcpy(d.file, "--fix", sizeof d.file);
        return cli_fail(s, &d);
    }
    if (m->experts == 0 && ((set & PT_K_EP && f.ep != 1) || (set & PT_K_ETP)))
        return cli_usage("--fix: ep and etp apply to mixture-of-experts models only (%s is dense)", m->name);
    pt_space_pin(sp, &f, set);
    return 0;
}

/* --engine any (plan only; cli_job_options takes the rest): cleared from a
 * before cli_job_options reads it.  Returns 1 when it was given. */
static int engine_any(cli_args *a)
{
    int i = 0;
    for (const cli_opt *op = a->cmd->opts; op->name; op++, i++)
        if (!strcmp(op->name, "engine") && a->val[i] && !strcmp(a->val[i], "any")) {
            a->val[i] = NULL;
            return 1;
        }
    return 0;
}

/* --export FMT implies --engine FMT; a different --engine is refused. */
static int export_engine(const char *export_fmt, cli_job *o)
{
    static const pt_engine engine[] = {PT_ENGINE_MEGATRON, PT_ENGINE_DEEPSPEED, PT_ENGINE_FSDP};
    pt_export_fmt fmt;
    if (!pt_export_parse_fmt(export_fmt, &fmt))
        return cli_usage("--export: \"%s\" is not megatron, deepspeed or torchtitan", export_fmt);
    if (o->engine_set && o->job.engine != engine[fmt])
        return cli_usage("--export %s writes the plan %s runs, but --engine is %s: give the same engine "
                         "(or leave --engine out: --export implies it)", export_fmt,
                         pt_engine_label(engine[fmt]), pt_engine_label(o->job.engine));
    o->job.engine = engine[fmt];
    return cli_job_engine_refused(&o->job);
}

/* The export of the plan ranked first, its predicted step time and memory
 * in a comment (on stderr for DeepSpeed's JSON, which has none). */
static int export_plan(const char *export_fmt, const pt_model *m, const pt_cluster *c, const pt_job *job,
                       const pt_plan *p, const pt_plan_check *k, char **text)
{
    pt_export_fmt fmt;
    pt_diag d;
    pt_status s;
    char note[512];
    pt_export_parse_fmt(export_fmt, &fmt);
    if ((s = pt_emit_export_priced(fmt, m, c, job, &p->st, &p->cost,
                                   k->independent ? k->simulated_peak_bytes : 0, text, note, sizeof note, &d)) != PT_OK)
        return cli_fail(s, &d);
    if (fmt == PT_EXPORT_DEEPSPEED) fprintf(stderr, "%s\n", note);
    return 0;
}

/* --report: the page of html.c with plans[0]'s simulated step and the
 * explanation as --explain prints it; written atomically. */
static int write_report(const char *path, const pt_model *m, const pt_cluster *c, const pt_job *job,
                        const pt_search_opts *so, const pt_search_result *r, const pt_plan_check *chk)
{
    pt_sim_result sim;
    pt_job pj = *job;
    pt_diag d;
    pt_status s;
    char *expl = NULL, *html = NULL, why[800] = "";
    size_t elen = 0;
    FILE *f = open_memstream(&expl, &elen);
    int rc, have_sim, sim_ok;
    if (f) {
        explain(f, m, c, so, r);
        fclose(f);
    }
    pj.engine = pt_engine_of(m, job, &r->plans[0].st);
    s = pt_sim_run(m, c, &pj, &r->plans[0].st, &sim, &d);
    have_sim = s == PT_OK && !sim.window;
    if (s != PT_OK) snprintf(why, sizeof why, "the step simulator refused this plan (%s)", d.msg);
    else if (sim.window)
        snprintf(why, sizeof why, "the step has %lld micro-batches per pipeline; the simulator replays at most %lld",
                 (long long)sim.microbatches, (long long)PT_SIM_MAX_MICROBATCHES);
    sim_ok = s == PT_OK;
    s = pt_emit_html_plan(m, c, job, r, chk, expl, have_sim ? &sim : NULL, why, &html, &d);
    if (sim_ok) pt_sim_free(&sim);
    free(expl);
    if (s != PT_OK) return cli_fail(s, &d);
    rc = cli_output(path, html);
    free(html);
    return rc;
}

/* The human table, the time-to-train ranking, the simulator's check, the
 * explanation. */
static void print_plans(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_search_opts *so,
                        const pt_search_result *r, double min_tokens, double bcrit,
                        const pt_plan_check *chk, int verify, int explain_f)
{
    print_table(m, c, job, r, chk, so->threads);
    if (min_tokens > 0) {
        printf("\nranked by time to train: E(B) = %.4g tokens x (1 + B / %.4g) to the target\n", min_tokens,
               bcrit);
        printf("%2s  %10s %14s %12s %12s\n", "#", "batch", "tokens", "steps", "days");
        for (int i = 0; i < r->n; i++) {
            pt_goal_lm lm = {min_tokens, bcrit};
            pt_goal_ttt t;
            pt_goal_lm_time_to_train(&lm, &r->plans[i], job, &t);
            printf("%2d  %10lld %14.4g %12.0f %12.2f\n", i + 1, (long long)r->plans[i].st.gbs, t.samples,
                   t.steps, t.time_s / 86400.0);
        }
    }
    if (verify) {
        printf("\nverified by the step simulator (event by event)\n");
        printf("%2s  %12s %12s %7s %12s %12s\n", "#", "analytic s", "simulated s", "diff", "mem GiB",
               "sim peak GiB");
        for (int i = 0; i < r->n; i++) {
            const pt_plan_check *k = &chk[i];
            if (!k->simulated) {
                printf("%2d  %12.3f %12s\n", i + 1, k->analytic_step_time_s, "not replayed");
                continue;
            }
            if (!k->independent) { /* the same sums: nothing was checked */
                printf("%2d  %12.3f %12s\n", i + 1, k->analytic_step_time_s,
                       r->plans[i].st.pp == 1 ? "pp=1, no data parallelism: nothing to check"
                                              : "zb-v/dualpipe, no data parallelism: both models replay the same order");
                continue;
            }
            printf("%2d  %12.3f %12.3f %+6.1f%% %12.1f %12.1f\n", i + 1, k->analytic_step_time_s,
                   k->simulated_step_time_s, 100.0 * (k->simulated_step_time_s / k->analytic_step_time_s - 1.0),
                   gib(k->analytic_peak_bytes), gib(k->simulated_peak_bytes));
        }
    }
    if (explain_f) explain(stdout, m, c, so, r);
}

int cli_plan_is_graph(const char *model); /* cmd_plan_graph.c */
int cmd_plan_graph(const cli_args *a);

int cmd_plan(int argc, char **argv)
{
    cli_args a;
    cli_job o;
    cli_progress prog;
    pt_model m;
    pt_cluster c;
    pt_diag d;
    pt_status s;
    pt_search_opts so;
    pt_search_result r;
    pt_plan_check *chk = NULL;
    const char *gb, *space, *fix, *export_fmt, *trace, *svg, *v;
    double min_tokens, bcrit;
    pt_goal_lm lm;
    int64_t top = 5, threads = 0;
    int rc, verify;
    char *text = NULL;
    int any;
    cli_goodput gp;
    if ((rc = cli_parse(&cli_cmd_plan, argc, argv, &a)) != CLI_GO) return rc;
    any = engine_any(&a);
    if (a.npos < 1) return cli_usage("plan: give a MODEL (a name from `partita models` or a config.json)");
    if (pt_recsys_probe(a.pos[0])) { /* a recommendation model: its embedding sharding */
        if (any) return cli_usage("--engine does not apply to a recommendation model (%s)", a.pos[0]);
        return cli_plan_recsys(&a);
    }
    if (cli_get(&a, "host-memory-GiB"))
        return cli_usage("--host-memory-GiB applies to recommendation models only (%s is not one)", a.pos[0]);
    memset(&o, 0, sizeof o);
    o.model = a.pos[0];
    /* a layer graph (CNN, RNN, 3D U-Net): src/cli/cmd_plan_graph.c */
    if (cli_plan_is_graph(o.model)) return cmd_plan_graph(&a);
    if (cli_get(&a, "cpu-machines")) return cli_usage("plan: --cpu-machines applies to layer graphs");
    /* the model first, then the other arguments */
    if ((rc = cli_load_model(o.model, &m)) != 0) return rc;
    if ((rc = cli_job_options(&o, &a)) != 0) return rc;
    cli_job_model(&o, &m);
    if (any) {
        o.job.engine = PT_ENGINE_ANY;
        o.engine_set = 1;
    }
    if (!o.cluster) o.cluster = "dgx-h100";
    gb = cli_get(&a, "global-batch");
    space = cli_get(&a, "space");
    fix = cli_get(&a, "fix");
    export_fmt = cli_get(&a, "export");
    trace = cli_get(&a, "trace");
    svg = cli_get(&a, "svg");
    if ((v = cli_get(&a, "top")) && cli_int("--top", v, 1, CLI_MAX_TOP, &top)) return 2;
    if ((v = cli_get(&a, "threads")) && cli_int("--threads", v, 1, CLI_MAX_THREADS, &threads)) return 2;
    if ((rc = objective(&a, &min_tokens, &bcrit)) != 0) return rc;
    if ((rc = cli_goodput_options(&a, &gp)) != 0) return rc;
    if (!gb && min_tokens == 0) return cli_usage("plan: give --global-batch B (or a range LO..HI)");
    if (cli_get(&a, "out") && !export_fmt) return cli_usage("--out goes with --export (the file it writes)");
    memset(&so, 0, sizeof so);
    pt_space_init(&so.space);
    if (gb && (rc = global_batch(gb, &so)) != 0) return rc;
    if (space && (s = pt_space_parse(space, "--space", &so.space, &d)) != PT_OK) return cli_fail(s, &d);
    if (fix && (rc = fix_keys(fix, &m, &so.space)) != 0) return rc;
    if (export_fmt && (rc = export_engine(export_fmt, &o)) != 0) return rc;
    if (gp.on && strchr(o.cluster, ',')) /* --cluster a,b,c */
        return cli_goodput_compare(&gp, &m, &o, &so, threads > 0 ? (int)threads : (int)sysconf(_SC_NPROCESSORS_ONLN),
                                   cli_get(&a, "json") != NULL, cli_get(&a, "explain") != NULL);
    if ((rc = cli_load_cluster(&o, &m, &c)) != 0) return rc;
    if (c.npools > 1) {
        o.job.global_batch = so.gbs_lo;
        return cli_plan_pools(&a, &o, &m, &c, &so.space, top);
    }
    if (!gb) {
        /* the batch is chosen: from 1/64 of the critical batch to 4 times it
         * (past B_crit each doubling of the batch nearly doubles the tokens) */
        double hi = 4.0 * bcrit / (double)o.job.seq_len, lo = bcrit / 64.0 / (double)o.job.seq_len;
        so.gbs_lo = lo < 1 ? 1 : (int64_t)lo;
        so.gbs_hi = hi < (double)so.gbs_lo ? so.gbs_lo : (int64_t)hi;
    }
    /* the analytic best, a pool of them, replayed and re-ranked below */
    so.top_k = pt_plan_rerank_pool((int)top);
    so.threads = threads > 0 ? (int)threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (so.threads < 1) so.threads = 1;
    so.prune = 1;
    lm.min_tokens = min_tokens;
    lm.bcrit_tokens = bcrit;
    if (min_tokens > 0) {
        so.score = pt_goal_lm_score;
        so.score_arg = &lm;
    }
    if (gp.on && (rc = cli_goodput_setup(&gp, &m, &o.job, &c, &so)) != 0) return rc;
    o.job.global_batch = so.gbs_lo;
    cli_progress_start(&prog, "plan: searching (tp, cp) pairs");
    so.progress = cli_progress_cb;
    so.progress_arg = &prog;
    s = pt_search_engine(&m, &c, &o.job, &so, &r, &d);
    cli_progress_end(&prog);
    if (s != PT_OK) return cli_fail(s, &d);
    if (r.n == 0) {
        no_fit(&m, &c, &o.job, &r);
        pt_search_free(&r);
        return 1;
    }
    if ((s = pt_plan_rerank(&m, &c, &o.job, &so, &r, (int)top, &chk, &d)) != PT_OK) {
        pt_search_free(&r);
        return cli_fail(s, &d);
    }
    if ((gp.on && (rc = cli_goodput_deadline(&gp, &r, chk)) != 0) ||
        (cli_get(&a, "report") &&
         (rc = write_report(cli_get(&a, "report"), &m, &c, &o.job, &so, &r, chk)) != 0)) {
        free(chk);
        pt_search_free(&r);
        return rc;
    }
    if (trace || svg || export_fmt) {
        /* the export first, then every file at once: a failure writes none */
        const char *out = cli_get(&a, "out");
        if (export_fmt && (rc = export_plan(export_fmt, &m, &c, &o.job, &r.plans[0], &chk[0], &text)) != 0) {
            free(chk);
            pt_search_free(&r);
            return rc;
        }
        rc = 0;
        if (trace || svg) {
            pt_sim_result sim;
            pt_job pj = o.job;
            pj.engine = pt_engine_of(&m, &o.job, &r.plans[0].st);
            if ((s = pt_sim_run(&m, &c, &pj, &r.plans[0].st, &sim, &d)) != PT_OK) {
                free(text);
                free(chk);
                pt_search_free(&r);
                return cli_fail(s, &d);
            }
            rc = cli_write_outputs(&sim, &m, &r.plans[0].st, trace, svg, text ? out : NULL, text);
            pt_sim_free(&sim);
        } else if (out) {
            rc = cli_output(out, text);
        }
        if (export_fmt && !out && !rc) fputs(text, stdout);
        free(text);
        if (rc || export_fmt) {
            free(chk);
            pt_search_free(&r);
            return rc;
        }
    }
    verify = cli_get(&a, "verify") != NULL;
    if (cli_get(&a, "json") && gp.on) {
        rc = cli_goodput_json(&gp, &m, &c, &o.job, &r, chk, verify);
    } else if (cli_get(&a, "json")) {
        s = pt_emit_search_json(&m, &c, &o.job, &r, min_tokens, bcrit, chk, verify, &text, &d);
        if (s == PT_OK) fputs(text, stdout);
        free(text);
        rc = s == PT_OK ? 0 : cli_fail(s, &d);
    } else {
        print_plans(&m, &c, &o.job, &so, &r, min_tokens, bcrit, chk, verify, cli_get(&a, "explain") != NULL);
        if (gp.on) cli_goodput_print(&gp, &r, cli_get(&a, "explain") != NULL);
        rc = 0;
    }
    free(chk);
    pt_search_free(&r);
    return rc;
}
