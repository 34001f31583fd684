/*
 * main.c -- `partita COMMAND ...`: dispatch to the sub-commands (SPEC section
 * 1), and what they share: option parsing with getopt_long, --help from the
 * option tables, strict numbers, error messages, loading, progress.
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/timeline.h"
#include "plan/search.h"

#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern const cli_cmd cli_cmd_calibrate; /* cmd_calibrate.c */
extern const cli_cmd cli_cmd_trials;    /* cmd_trials.c */
extern const cli_cmd cli_cmd_pipeline;  /* cmd_pipeline.c */
static const cli_cmd *const commands[] = {&cli_cmd_plan,   &cli_cmd_eval,    &cli_cmd_validate,
                                          &cli_cmd_scale,  &cli_cmd_serve, &cli_cmd_calibrate, &cli_cmd_checkpoint,
                                          &cli_cmd_sweep, &cli_cmd_trials, &cli_cmd_pipeline, &cli_cmd_models,
                                          &cli_cmd_devices, &cli_cmd_clusters};
#define NCOMMANDS ((int)(sizeof commands / sizeof *commands))

static void usage(FILE *f)
{
    fputs("usage: partita COMMAND [ARGUMENT]... [OPTION]...\n"
          "       partita COMMAND --help    the command's options, one line each\n"
          "       partita --version\n\ncommands:\n", f);
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %s%s%s\n      %s\n", commands[i]->name, commands[i]->args[0] ? " " : "",
                commands[i]->args, commands[i]->about);
    fputs("\nExit status: 0 done, 1 no feasible plan, 2 bad usage or bad input.\n", f);
}

int cli_fail(pt_status st, const pt_diag *d)
{
    char buf[1200], esc[1600];
    pt_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "partita: %s\n", pt_str_escape(buf, esc, sizeof esc));
    return st == PT_INFEASIBLE ? 1 : 2;
}

int cli_usage(const char *fmt, ...)
{
    char buf[1200], esc[1600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "partita: %s\n", pt_str_escape(buf, esc, sizeof esc));
    return 2;
}

/* ---- options ------------------------------------------------------------ */

void cli_help(const cli_cmd *cmd, FILE *f)
{
    int w = (int)strlen("-h, --help");
    for (const cli_opt *o = cmd->opts; o->name; o++) {
        int k = (int)strlen(o->name) + 2 + (o->arg ? (int)strlen(o->arg) + 1 : 0);
        if (k > w) w = k;
    }
    fprintf(f, "usage: partita %s%s%s\n%s\n", cmd->name, cmd->args[0] ? " " : "", cmd->args, cmd->about);
    if (cmd->more) fprintf(f, "%s", cmd->more);
    fprintf(f, "\noptions (--opt VALUE or --opt=VALUE):\n");
    for (const cli_opt *o = cmd->opts; o->name; o++) {
        char spec[64];
        snprintf(spec, sizeof spec, "--%s%s%s", o->name, o->arg ? "=" : "", o->arg ? o->arg : "");
        fprintf(f, "  %-*s  %s\n", w, spec, o->help);
    }
    fprintf(f, "  %-*s  %s\n", w, "-h, --help", "print this help and exit");
}

/* The options of cmd whose names start with the first k bytes of s. */
static int matches(const cli_cmd *cmd, const char *s, size_t k, char *list, size_t n)
{
    int count = 0;
    size_t used = 0;
    list[0] = '\0';
    for (const cli_opt *o = cmd->opts; o->name; o++)
        if (!strncmp(o->name, s, k)) {
            count++;
            if (used < n)
                used += (size_t)snprintf(list + used, n - used, "%s--%s", count > 1 ? ", " : "", o->name);
        }
    return count;
}

int cli_parse(const cli_cmd *cmd, int argc, char **argv, cli_args *a)
{
    struct option lo[CLI_MAXOPT + 2];
    int n = 0, c;
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    for (const cli_opt *o = cmd->opts; o->name; o++, n++) {
        assert(n < CLI_MAXOPT);
        lo[n].name = o->name;
        lo[n].has_arg = o->arg ? required_argument : no_argument;
        lo[n].flag = NULL;
        lo[n].val = 256 + n;
    }
    lo[n] = (struct option){"help", no_argument, NULL, 'h'};
    lo[n + 1] = (struct option){NULL, 0, NULL, 0};
    opterr = 0; /* the messages below name the command */
    optind = 1;
    /* "-": every argument in order, a non-option as code 1, whatever
     * POSIXLY_CORRECT says (MODEL may come before or after the options);
     * ":": a missing value is ':', not '?' */
    while ((c = getopt_long(argc, argv, "-:h", lo, NULL)) != -1) {
        if (c == 'h') {
            cli_help(cmd, stdout);
            return 0;
        }
        if (c == 1) {
            if (a->npos >= cmd->max_pos || a->npos >= CLI_MAXPOS)
                return cli_usage("%s: unexpected argument \"%s\"", cmd->name, optarg);
            a->pos[a->npos++] = optarg;
        } else if (c >= 256) {
            a->val[c - 256] = optarg ? optarg : "";
        } else if (c == ':') {
            const char *name = optopt >= 256 ? cmd->opts[optopt - 256].name : "";
            if (optopt >= 256) return cli_usage("--%s needs a value (%s)", name, cmd->opts[optopt - 256].arg);
            return cli_usage("%s: option \"%s\" needs a value", cmd->name, argv[optind - 1]);
        } else {
            /* '?': unknown, ambiguous, or a value given to a flag */
            const char *bad = argv[optind - 1 < argc ? optind - 1 : argc - 1];
            if (optopt >= 256)
                return cli_usage("%s: --%s takes no value (\"%s\")", cmd->name, cmd->opts[optopt - 256].name, bad);
            if (optopt > 0 && optopt < 256 && !strncmp(bad, "--", 2)) /* --help=x */
                return cli_usage("%s: \"%s\" takes no value", cmd->name, bad);
            if (optopt > 0 && optopt < 256)
                return cli_usage("%s: unknown option \"-%c\" (see partita %s --help)", cmd->name, optopt,
                                 cmd->name);
            if (!strncmp(bad, "--", 2)) {
                char list[400];
                size_t k = strcspn(bad + 2, "=");
                if (matches(cmd, bad + 2, k, list, sizeof list) > 1)
                    return cli_usage("%s: option \"%s\" is ambiguous: %s", cmd->name, bad, list);
            }
            return cli_usage("%s: unknown option \"%s\" (see partita %s --help)", cmd->name, bad, cmd->name);
        }
    }
    for (; optind < argc; optind++) { /* after "--" */
        if (a->npos >= cmd->max_pos || a->npos >= CLI_MAXPOS)
            return cli_usage("%s: unexpected argument \"%s\"", cmd->name, argv[optind]);
        a->pos[a->npos++] = argv[optind];
    }
    return CLI_GO;
}

const char *cli_get(const cli_args *a, const char *name)
{
    int i = 0;
    for (const cli_opt *o = a->cmd->opts; o->name; o++, i++)
        if (!strcmp(o->name, name)) return a->val[i];
    assert(!"cli_get: no such option in the command's table");
    return NULL;
}

/* ---- numbers ------------------------------------------------------------ */

/* A bound as people write it: 1e18, not 1e+18. */
static void bound(double x, char *buf, size_t n)
{
    char *e;
    snprintf(buf, n, "%g", x);
    if ((e = strstr(buf, "e+")) != NULL) {
        memmove(e + 1, e + 2, strlen(e + 2) + 1);
        while (e[1] == '0' && e[2]) memmove(e + 1, e + 2, strlen(e + 2) + 1);
    }
}

int cli_int(const char *opt, const char *v, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    long long x;
    errno = 0;
    x = strtoll(v, &end, 10);
    if (!*v || (*v != '-' && *v != '+' && (*v < '0' || *v > '9')) || *end || errno || x < lo || x > hi)
        return cli_usage("%s: \"%s\" is not a whole number in [%lld, %lld]", opt, v, (long long)lo,
                         (long long)hi);
    *out = (int64_t)x;
    return 0;
}

int cli_real(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end, a[32], b[32];
    double x;
    errno = 0;
    x = strtod(v, &end);
    if (!*v || (*v != '-' && *v != '+' && *v != '.' && (*v < '0' || *v > '9')) || *end || !isfinite(x) ||
        x < lo || x > hi) {
        bound(lo, a, sizeof a), bound(hi, b, sizeof b);
        return cli_usage("%s: \"%s\" is not a number in [%s, %s]", opt, v, a, b);
    }
    *out = x;
    return 0;
}

/* ---- loading -------------------------------------------------------------- */

int cli_load_model(const char *name, pt_model *m)
{
    pt_diag d;
    pt_status st;
    if ((st = pt_model_load(name, m, &d)) != PT_OK) return cli_fail(st, &d);
    return 0;
}

/* --tp-comm-overlap is Megatron's --tp-comm-overlap or torchtitan's async
 * TP (src/cost/cost.c, tp_overlap, prices each); DeepSpeed has no such
 * overlap.  2 (usage printed) there. */
int cli_tp_overlap_refused(pt_engine e)
{
    if (e == PT_ENGINE_DEEPSPEED)
        return cli_usage("--tp-comm-overlap: DeepSpeed does not overlap tensor-parallel communication "
                         "(Megatron's --tp-comm-overlap, torchtitan's async TP)");
    return 0;
}

/* --moe-a2a-overlap is Megatron-Core's combined 1F1B schedule: DeepSpeed
 * and torchtitan have no such schedule.  2 (usage printed) for those. */
int cli_ep_overlap_refused(pt_engine e)
{
    if (e == PT_ENGINE_DEEPSPEED || e == PT_ENGINE_FSDP)
        return cli_usage("--moe-a2a-overlap: %s has no schedule that overlaps the expert all-to-all "
                         "(Megatron-Core's --overlap-moe-expert-parallel-comm)", pt_engine_label(e));
    return 0;
}

int cli_job_engine_refused(const pt_job *job)
{
    if (job->tp_comm_overlap && cli_tp_overlap_refused(job->engine)) return 2;
    if (job->moe_a2a_overlap && cli_ep_overlap_refused(job->engine)) return 2;
    return 0;
}

int cli_job_options(cli_job *o, const cli_args *a)
{
    const char *v;
    o->job.dtype = PT_BF16;
    o->job.flash_attention = 1;
    o->cluster = cli_get(a, "cluster");
    if ((v = cli_get(a, "gpus")) && cli_int("--gpus", v, 1, CLI_MAX_GPUS, &o->gpus)) return 2;
    if ((v = cli_get(a, "seq-len")) && cli_int("--seq-len", v, 1, CLI_MAX_SEQ, &o->job.seq_len)) return 2;
    if ((v = cli_get(a, "doc-len")) && cli_int("--doc-len", v, 1, CLI_MAX_SEQ, &o->job.doc_len)) return 2;
    if ((v = cli_get(a, "dtype"))) {
        if (!strcmp(v, "bf16")) o->job.dtype = PT_BF16;
        else if (!strcmp(v, "fp16")) o->job.dtype = PT_FP16;
        else if (!strcmp(v, "fp8")) o->job.dtype = PT_FP8;
        else return cli_usage("--dtype: \"%s\" is not bf16, fp16 or fp8", v);
    }
    if ((v = cli_get(a, "engine"))) {
        o->engine_set = 1;
        if (!strcmp(v, "megatron")) o->job.engine = PT_ENGINE_MEGATRON;
        else if (!strcmp(v, "deepspeed")) o->job.engine = PT_ENGINE_DEEPSPEED;
        else if (!strcmp(v, "fsdp") || !strcmp(v, "torchtitan")) o->job.engine = PT_ENGINE_FSDP;
        else return cli_usage("--engine: \"%s\" is not megatron, deepspeed, fsdp or torchtitan", v);
    }
    if (cli_get(a, "no-flash-attention")) o->job.flash_attention = 0;
    if (cli_get(a, "tp-comm-overlap")) o->job.tp_comm_overlap = 1;
    if ((v = cli_get(a, "moe-dispatcher"))) {
        if (!strcmp(v, "alltoall")) o->job.moe_dedup_dispatch = PT_MOE_ALLTOALL;
        else if (!strcmp(v, "deepep")) o->job.moe_dedup_dispatch = PT_MOE_DEEPEP;
        else if (!strcmp(v, "hybridep")) o->job.moe_dedup_dispatch = PT_MOE_HYBRIDEP;
        else return cli_usage("--moe-dispatcher: \"%s\" is not alltoall, deepep or hybridep", v);
    }
    if (cli_get(a, "moe-a2a-overlap")) o->job.moe_a2a_overlap = 1;
    if (o->engine_set && cli_job_engine_refused(&o->job)) return 2;
    /* routed-token load of the busiest device over the even share (>= 1),
     * or the expert capacity factor (> 0): MoE models only */
    if ((v = cli_get(a, "moe-imbalance")) && cli_real("--moe-imbalance", v, 1, 1000, &o->job.moe_imbalance))
        return 2;
    if ((v = cli_get(a, "moe-capacity")) && cli_real("--moe-capacity", v, 0.01, 1000, &o->job.moe_capacity))
        return 2;
    o->mtp = -1;
    if ((v = cli_get(a, "mtp")) && cli_int("--mtp", v, 0, 16, &o->mtp)) return 2;
    return 0;
}

void cli_job_model(const cli_job *o, pt_model *m)
{
    if (o->mtp < 0) return;
    m->mtp_layers = o->mtp;
    m->mtp_shared = 0; /* a hybrid model's blocks: the config reader's mtp_hybrid */
}

int cli_load_cluster(cli_job *o, const pt_model *m, pt_cluster *c)
{
    pt_diag d;
    pt_status st;
    if ((st = pt_cluster_load(o->cluster, c, &d)) != PT_OK) return cli_fail(st, &d);
    if (o->gpus > 0 && (st = pt_cluster_resize(c, o->gpus, &d)) != PT_OK) return cli_fail(st, &d);
    if (o->job.seq_len == 0) o->job.seq_len = m->max_seq < 4096 ? m->max_seq : 4096;
    return 0;
}

/* ---- output --------------------------------------------------------------- */

int cli_output(const char *path, const char *text)
{
    pt_diag d;
    pt_status s;
    if (!path) {
        fputs(text, stdout);
        return 0;
    }
    s = pt_write_file_atomic(path, text, strlen(text), &d);
    return s == PT_OK ? 0 : cli_fail(s, &d);
}

int cli_write_outputs(const pt_sim_result *r, const pt_model *m, const pt_strategy *st,
                      const char *trace, const char *svg, const char *out, const char *out_text)
{
    pt_diag d;
    pt_status s = PT_OK;
    char *text[2] = {NULL, NULL};
    pt_output o[3];
    int n = 0;
    if (r && r->window && (trace || svg)) /* the events are a window, not the step */
        return cli_usage("--trace/--svg: the simulator replays at most %lld micro-batches per pipeline "
                         "(PT_SIM_MAX_MICROBATCHES); this step has %lld and was extrapolated from %lld",
                         (long long)PT_SIM_MAX_MICROBATCHES, (long long)r->microbatches,
                         (long long)r->window);
    /* every output made in memory first: a failure replaces no file */
    if (trace && (s = pt_emit_trace(r, m, st, &text[0], &d)) == PT_OK)
        o[n++] = (pt_output){trace, text[0], strlen(text[0])};
    if (s == PT_OK && svg && (s = pt_emit_svg(r, m, st, &text[1], &d)) == PT_OK)
        o[n++] = (pt_output){svg, text[1], strlen(text[1])};
    if (s == PT_OK && out) o[n++] = (pt_output){out, out_text, strlen(out_text)};
    if (s == PT_OK) s = pt_write_files_atomic(o, n, &d);
    free(text[0]);
    free(text[1]);
    return s == PT_OK ? 0 : cli_fail(s, &d);
}

int cli_write_timeline(const pt_sim_result *r, const pt_model *m, const pt_strategy *st,
                       const char *trace, const char *svg)
{
    return cli_write_outputs(r, m, st, trace, svg, NULL, NULL);
}

/* ---- progress ------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_progress_start(cli_progress *p, const char *what)
{
    memset(p, 0, sizeof *p);
    p->what = what;
    p->tty = isatty(2);
    p->t0 = p->last = now_s();
}

void cli_progress_cb(void *arg, int64_t done, int64_t total)
{
    cli_progress *p = arg;
    double t;
    char line[160];
    int k;
    if (!p->tty) return;
    t = now_s();
    /* quick work shows nothing; then at most ten updates a second */
    if (t - p->t0 < 0.5 || (p->shown && t - p->last < 0.1 && done < total)) return;
    p->last = t;
    k = snprintf(line, sizeof line, "partita: %s %lld/%lld (%.0f%%)", p->what, (long long)done,
                 (long long)total, total > 0 ? 100.0 * (double)done / (double)total : 0.0);
    if (k < 0) return;
    if (k >= (int)sizeof line) k = (int)sizeof line - 1;
    fprintf(stderr, "\r%s%*s", line, p->shown > k ? p->shown - k : 0, "");
    fflush(stderr);
    if (k > p->shown) p->shown = k;
}

void cli_progress_end(cli_progress *p)
{
    if (p->shown) {
        fprintf(stderr, "\r%*s\r", p->shown, "");
        fflush(stderr);
    }
    p->shown = 0;
}

/* ---- dispatch ------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(cmd, commands[i]->name)) return commands[i]->run(argc - 1, argv + 1);
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        if (argc > 2) return cli_usage("%s: unexpected argument \"%s\"", cmd, argv[2]);
        printf("partita %s\n", PT_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        if (argc > 2) { /* partita help CMD */
            for (int i = 0; i < NCOMMANDS; i++)
                if (!strcmp(argv[2], commands[i]->name)) {
                    cli_help(commands[i], stdout);
                    return 0;
                }
            return cli_usage("help: unknown command \"%s\"", argv[2]);
        }
        usage(stdout);
        return 0;
    }
    if (cmd[0]) cli_usage("unknown command \"%s\"", cmd);
    usage(stderr);
    return 2;
}
