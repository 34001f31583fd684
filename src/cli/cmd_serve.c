/*
 * cmd_serve.c -- `partita serve MODEL --cluster C --gpus N --isl T --osl T`
 * (SPEC section 8): parses, calls the serving search (src/plan/serve_search.c)
 * and prints its table, JSON or the engine launch command
 * (src/emit/serve_out.c, src/emit/export_serve.c); with --report, also the
 * HTML page (src/emit/html.c) with TTFT and TPOT against load simulated here.
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/html.h"
#include "emit/serve_out.h"
#include "plan/serve_search.h"
#include "sim/serve_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_opt opts[] = {
    {"cluster", "C", "a built-in cluster (`partita clusters`) or a cluster file (required)"},
    {"gpus", "N", "devices, whole nodes, 1..16777216 (required)"},
    {"isl", "TOKENS", "prompt tokens per request, 1..16777216 (required)"},
    {"osl", "TOKENS", "output tokens per request, 1..16777216 (required)"},
    {"rate", "QPS", "Poisson arrivals, requests/s, > 0 up to 1e6"},
    {"concurrency", "K", "requests in flight (closed loop), 1..16777216"},
    {"offline", NULL, "every request queued at once (the default load)"},
    {"ttft-ms", "T", "time-to-first-token objective at the percentile, ms, > 0"},
    {"tpot-ms", "T", "time-per-output-token objective at the percentile, ms, > 0"},
    {"percentile", "P", "50, 90 or 99 (default 90)"},
    {"dtype", "T", "weights: bf16, fp8 or fp4 (fp4 on Blackwell; default bf16)"},
    {"kv-dtype", "T", "KV cache: bf16 or fp8 (default: fp8 with fp8 or fp4 weights, else bf16)"},
    {"engine", "E", "whose efficiency to price: vllm, sglang, trtllm (default: the export's, else vllm)"},
    {"space", "SPACE", "serve: only \"colocated\" or \"disagg\" plans (default both)"},
    {"fix", "STRATEGY", "pin serving keys: tp, pp, ep, attn_dp, replicas, batch, dwdp, shift, disagg=P:D"},
    {"max-num-tokens", "T", "tokens per engine step (per rank with attention dp), 1..16777216 (default 8192)"},
    {"top", "K", "plans shown, 1..64 (default 5)"},
    {"json", NULL, "print JSON (SPEC section 8) instead of the table"},
    {"export", "FMT", "print the first plan as vllm, sglang or trtllm launch command"},
    {"out", "FILE", "write the table, JSON or export to FILE instead of stdout"},
    {"report", "FILE.html", "also write a self-contained HTML report: the question, the plans, TTFT and TPOT against load"},
    {NULL, NULL, NULL}};

static int cmd_serve(int argc, char **argv);

const cli_cmd cli_cmd_serve = {
    "serve", "MODEL --cluster C --gpus N --isl TOKENS --osl TOKENS [OPTION]...",
    "plan an LLM serving deployment: replicas x (tp, pp, ep), batch, disaggregation",
    "Ranks plans meeting the objectives by output tokens/s per GPU; exit 1 when\n"
    "nothing meets them (the closest plan is named) or the model does not fit.\n",
    1, opts, cmd_serve};

static int req_int(const cli_args *a, const char *name, int64_t *out)
{
    const char *v = cli_get(a, name);
    char opt[32];
    snprintf(opt, sizeof opt, "--%s", name);
    if (!v) return cli_usage("serve: %s is required", opt);
    return cli_int(opt, v, 1, CLI_MAX_SEQ, out);
}

/* Fractions of the offline capacity at which the load curve is simulated:
 * from light load to past saturation. */
static const double load_frac[PT_HTML_SERVE_POINTS] = {0.1, 0.3, 0.5, 0.7, 0.85, 1.0, 1.2, 1.5};

/* The load curve of the first colocated plan (disaggregated plans are priced
 * analytically, not by the request-level simulation): Poisson arrivals per
 * replica at load_frac of what one replica finishes offline. */
static pt_status serve_curve(const pt_model *m, const pt_cluster *c, const pt_serve_opts *o,
                             const pt_serve_result *r, pt_html_serve_curve *cv, pt_diag *d)
{
    const pt_serve_plan *p = NULL;
    double cap;
    memset(cv, 0, sizeof *cv);
    cv->plan = -1;
    for (int i = 0; i < r->n && !p; i++)
        if (r->plans[i].prefill_gpus == 0) cv->plan = i, p = &r->plans[i];
    if (!p) {
        snprintf(cv->why_none, sizeof cv->why_none, "every plan shown disaggregates prefill and decode, which "
                 "is priced analytically rather than simulated request by request");
        return PT_OK;
    }
    cap = pt_infer_offline_tokens_per_s(m, c, &p->cfg, (double)p->batch, o->isl, o->osl, 0) / o->osl;
    if (!(cap > 0) || !isfinite(cap)) {
        snprintf(cv->why_none, sizeof cv->why_none, "plan %d has no offline throughput to scale the load by",
                 cv->plan + 1);
        return PT_OK;
    }
    cv->capacity_rps = cap * (double)p->replicas;
    for (int i = 0; i < PT_HTML_SERVE_POINTS; i++) {
        pt_serve_load l;
        pt_serve_stats s;
        pt_status st;
        pt_serve_load_of(o, p, &l);
        l.requests = 480; /* as serve_search.c's rate mode */
        l.rate = cap * load_frac[i];
        if ((st = pt_serve_simulate(m, c, &p->cfg, &l, &s, d)) != PT_OK) return st;
        cv->rate[cv->n] = l.rate * (double)p->replicas;
        cv->ttft_ms[cv->n] = 1e3 * s.ttft_p_s;
        cv->tpot_ms[cv->n] = 1e3 * s.tpot_p_s;
        cv->n++;
    }
    return PT_OK;
}

/* Writes the --report page; 0, or the exit status of the failure. */
static int write_report(const char *path, const pt_model *m, const pt_cluster *c, const pt_serve_opts *o,
                        const pt_serve_result *r)
{
    pt_html_serve_curve cv;
    pt_diag d;
    pt_status st;
    char *html = NULL;
    int rc;
    if ((st = serve_curve(m, c, o, r, &cv, &d)) != PT_OK) return cli_fail(st, &d);
    if ((st = pt_emit_html_serve(m, c, o, r, &cv, &html, &d)) != PT_OK) return cli_fail(st, &d);
    rc = cli_output(path, html);
    free(html);
    return rc;
}

static int cmd_serve(int argc, char **argv)
{
    cli_args a;
    pt_model m;
    pt_cluster c;
    pt_serve_opts o;
    pt_serve_result *r;
    pt_diag d;
    pt_status st;
    int64_t gpus, isl, osl, k;
    const char *v, *exp;
    char *text = NULL;
    int rc, loads = 0, kv_set = 0;
    if ((rc = cli_parse(&cli_cmd_serve, argc, argv, &a)) != CLI_GO) return rc;
    if (a.npos < 1) return cli_usage("serve: give a MODEL (`partita models`, or a config.json)");
    pt_serve_opts_default(&o);
    if (!cli_get(&a, "cluster")) return cli_usage("serve: --cluster is required");
    if (!cli_get(&a, "gpus")) return cli_usage("serve: --gpus is required");
    if (cli_int("--gpus", cli_get(&a, "gpus"), 1, CLI_MAX_GPUS, &gpus)) return 2;
    if (req_int(&a, "isl", &isl) || req_int(&a, "osl", &osl)) return 2;
    o.isl = (double)isl;
    o.osl = (double)osl;
    if ((v = cli_get(&a, "rate"))) {
        if (cli_real("--rate", v, 1e-9, 1e6, &o.rate)) return 2;
        o.mode = PT_SERVE_RATE;
        loads++;
    }
    if ((v = cli_get(&a, "concurrency"))) {
        if (cli_int("--concurrency", v, 1, CLI_MAX_GPUS, &o.concurrency)) return 2;
        o.mode = PT_SERVE_CONCURRENCY;
        loads++;
    }
    if (cli_get(&a, "offline")) loads++;
    if (loads > 1) return cli_usage("serve: give one of --rate, --concurrency and --offline");
    if ((v = cli_get(&a, "ttft-ms")) && cli_real("--ttft-ms", v, 1e-6, 1e9, &o.ttft_ms)) return 2;
    if ((v = cli_get(&a, "tpot-ms")) && cli_real("--tpot-ms", v, 1e-6, 1e9, &o.tpot_ms)) return 2;
    if ((v = cli_get(&a, "percentile"))) {
        if (cli_int("--percentile", v, 1, 99, &k)) return 2;
        if (k != 50 && k != 90 && k != 99) return cli_usage("--percentile: \"%s\" is not 50, 90 or 99", v);
        o.percentile = (int)k;
    }
    if ((v = cli_get(&a, "dtype")) && (st = pt_infer_qparse(v, "--dtype", &o.wq, &d)) != PT_OK)
        return cli_fail(st, &d);
    if ((v = cli_get(&a, "kv-dtype"))) {
        if ((st = pt_infer_qparse(v, "--kv-dtype", &o.kvq, &d)) != PT_OK) return cli_fail(st, &d);
        if (o.kvq == PT_Q_FP4) return cli_usage("--kv-dtype: \"fp4\" is not bf16 or fp8");
        kv_set = 1;
    }
    if (!kv_set) o.kvq = o.wq == PT_Q_BF16 ? PT_Q_BF16 : PT_Q_FP8;
    exp = cli_get(&a, "export");
    if (exp && strcmp(exp, "vllm") && strcmp(exp, "sglang") && strcmp(exp, "trtllm"))
        return cli_usage("--export: \"%s\" is not vllm, sglang or trtllm", exp);
    if ((v = cli_get(&a, "engine"))) {
        if (strcmp(v, "vllm") && strcmp(v, "sglang") && strcmp(v, "trtllm"))
            return cli_usage("--engine: \"%s\" is not vllm, sglang or trtllm", v);
        pt_strlcpy(o.engine, v, sizeof o.engine);
    } else if (exp) {
        pt_strlcpy(o.engine, exp, sizeof o.engine);
    }
    if ((v = cli_get(&a, "max-num-tokens")) && cli_int("--max-num-tokens", v, 1, CLI_MAX_SEQ, &o.max_tokens))
        return 2;
    if ((v = cli_get(&a, "top"))) {
        if (cli_int("--top", v, 1, 64, &k)) return 2;
        o.top = (int)k;
    }
    if ((v = cli_get(&a, "fix")) && (st = pt_serve_fix_parse(v, &o.fix, &d)) != PT_OK) return cli_fail(st, &d);
    if ((v = cli_get(&a, "space"))) {
        if (!strcmp(v, "colocated")) o.fix.prefill_gpus = o.fix.decode_gpus = 0;
        else if (!strcmp(v, "disagg")) {
            if (o.fix.prefill_gpus < 0) o.fix.prefill_gpus = o.fix.decode_gpus = -2;
        } else
            return cli_usage("--space: \"%s\" is not colocated or disagg", v);
    }
    if ((rc = cli_load_model(a.pos[0], &m)) != 0) return rc;
    if ((st = pt_cluster_load(cli_get(&a, "cluster"), &c, &d)) != PT_OK) return cli_fail(st, &d);
    if ((st = pt_cluster_resize(&c, gpus, &d)) != PT_OK) return cli_fail(st, &d);
    if (o.fix.prefill_gpus > 0 && o.fix.prefill_gpus + o.fix.decode_gpus != c.devices)
        return cli_usage("--fix: disagg=%lld:%lld does not add up to the %lld devices",
                         (long long)o.fix.prefill_gpus, (long long)o.fix.decode_gpus, (long long)c.devices);
    if ((o.wq == PT_Q_FP4) && !pt_infer_has_fp4(&c.dev))
        return cli_usage("--dtype: fp4 needs fp4 tensor cores; %s has none (Blackwell has)", c.dev.name);
    r = calloc(1, sizeof *r);
    if (!r) return cli_usage("out of memory");
    st = pt_serve_search(&m, &c, &o, r, &d);
    if (st != PT_OK) {
        free(r);
        return cli_fail(st, &d);
    }
    if (exp) st = pt_export_serve(exp, &m, &o, &r->plans[0], &text, &d);
    else if (cli_get(&a, "json")) st = pt_emit_serve_json(&m, &c, &o, r, &text, &d);
    else st = pt_emit_serve_table(&m, &c, &o, r, &text, &d);
    if (st != PT_OK) {
        free(r);
        return cli_fail(st, &d);
    }
    if (cli_get(&a, "report") && (rc = write_report(cli_get(&a, "report"), &m, &c, &o, r)) != 0) {
        free(text);
        free(r);
        return rc;
    }
    rc = cli_output(cli_get(&a, "out"), text);
    free(text);
    if (rc == 0 && !r->any_meets) {
        char line[400];
        pt_emit_serve_closest(&o, &r->closest, line, sizeof line);
        fprintf(stderr, "partita: %s\n", line);
        rc = 1;
    }
    free(r);
    return rc;
}
