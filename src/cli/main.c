/*
 * main.c -- `partita COMMAND ...`: dispatch to the sub-commands (SPEC section 1).
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/timeline.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: partita COMMAND ...\n"
    "  plan MODEL [--cluster C] [--gpus N] [--global-batch B|LO..HI] [--seq-len S]\n"
    "       [--dtype bf16|fp16|fp8] [--engine megatron|deepspeed|fsdp] [--top K]\n"
    "       [--space \"tp=4,8 pp=1..16\"] [--fix STRATEGY] [--threads T] [--json] [--explain]\n"
    "       [--export megatron|deepspeed|torchtitan] [--out FILE] [--verify]\n"
    "       [--objective step|time-to-train --tokens N (--critical-batch TOKENS | --target-loss L)]\n"
    "       [--trace FILE.json] [--svg FILE.svg]   (the best plan's simulated step)\n"
    "  eval MODEL --cluster C [--gpus N] --strategy \"tp=8 pp=8 ...\" [--global-batch B]\n"
    "       [--seq-len S] [--dtype bf16|fp16|fp8] [--engine megatron|deepspeed|fsdp]\n"
    "       [--no-flash-attention] [--json] [--simulate] [--trace FILE.json] [--svg FILE.svg]\n"
    "  validate CSV [--json] [--plans]   predicted vs measured for every row of a runs CSV;\n"
    "       --plans: the best plan found for each Megatron run against its published strategy\n"
    "  scale GRAPH --cluster C --max-gpus N [--stat-eff FILE.csv] [--json] [--svg FILE.svg]\n"
    "       time to train against GPUs: data parallel alone vs hybrid data x model parallel\n"
    "  models | devices | clusters   list what is built in\n"
    "  MoE models (plan and eval): [--moe-imbalance X] busiest device's routed tokens over the\n"
    "       even share (default 1.25); [--moe-capacity F] expert capacity factor (default dropless)\n";

int cli_fail(pt_status st, const pt_diag *d)
{
    char buf[1200];
    pt_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "partita: %s\n", buf);
    return st == PT_INFEASIBLE ? 1 : 2;
}

int cli_usage(const char *fmt, ...)
{
    va_list ap;
    fputs("partita: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

int cli_int(const char *opt, const char *v, int64_t lo, int64_t *out)
{
    char *end;
    long long x;
    errno = 0;
    x = strtoll(v, &end, 10);
    if (!*v || *end || errno || x < lo) {
        cli_usage("%s: \"%s\" is not a whole number >= %lld", opt, v, (long long)lo);
        return 2;
    }
    *out = (int64_t)x;
    return 0;
}

int cli_job_option(cli_job *o, const char *a, const char *v)
{
    if (!strcmp(a, "--no-flash-attention")) {
        o->job.flash_attention = 0;
        return 1;
    }
    if (!strcmp(a, "--moe-imbalance") || !strcmp(a, "--moe-capacity")) {
        /* routed-token load of the busiest device over the even share (>= 1),
         * or the expert capacity factor (> 0): MoE models only */
        char *end = NULL;
        double x;
        if (!v) return -cli_usage("%s needs a value", a);
        x = strtod(v, &end);
        if (!end || *end || !(x > 0.0) || x > 1000.0 ||
            (!strcmp(a, "--moe-imbalance") && x < 1.0))
            return -cli_usage("%s: \"%s\" is not a number in [%s, 1000]", a, v,
                              !strcmp(a, "--moe-imbalance") ? "1" : "0.01");
        if (!strcmp(a, "--moe-capacity") && x < 0.01)
            return -cli_usage("%s: \"%s\" is not a number in [0.01, 1000]", a, v);
        if (!strcmp(a, "--moe-imbalance")) o->job.moe_imbalance = x;
        else o->job.moe_capacity = x;
        return 2;
    }
    if (!strcmp(a, "--cluster") || !strcmp(a, "--gpus") || !strcmp(a, "--seq-len") ||
        !strcmp(a, "--dtype") || !strcmp(a, "--engine")) {
        if (!v) return -cli_usage("%s needs a value", a);
        if (!strcmp(a, "--cluster")) o->cluster = v;
        else if (!strcmp(a, "--gpus")) { if (cli_int(a, v, 1, &o->gpus)) return -2; }
        else if (!strcmp(a, "--seq-len")) { if (cli_int(a, v, 1, &o->job.seq_len)) return -2; }
        else if (!strcmp(a, "--dtype")) {
            if (!strcmp(v, "bf16")) o->job.dtype = PT_BF16;
            else if (!strcmp(v, "fp16")) o->job.dtype = PT_FP16;
            else if (!strcmp(v, "fp8")) o->job.dtype = PT_FP8;
            else return -cli_usage("--dtype: \"%s\" is not bf16, fp16 or fp8", v);
        } else {
            o->engine_set = 1;
            if (!strcmp(v, "megatron")) o->job.engine = PT_ENGINE_MEGATRON;
            else if (!strcmp(v, "deepspeed")) o->job.engine = PT_ENGINE_DEEPSPEED;
            else if (!strcmp(v, "fsdp") || !strcmp(v, "torchtitan")) o->job.engine = PT_ENGINE_FSDP;
            else return -cli_usage("--engine: \"%s\" is not megatron, deepspeed, fsdp or torchtitan", v);
        }
        return 2;
    }
    return 0;
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

int cli_load(cli_job *o, pt_model *m, pt_cluster *c)
{
    pt_diag d;
    pt_status st;
    if ((st = pt_model_load(o->model, m, &d)) != PT_OK) return cli_fail(st, &d);
    if ((st = pt_cluster_load(o->cluster, c, &d)) != PT_OK) return cli_fail(st, &d);
    if (o->gpus > 0 && (st = pt_cluster_resize(c, o->gpus, &d)) != PT_OK) return cli_fail(st, &d);
    if (o->job.seq_len == 0) o->job.seq_len = m->max_seq < 4096 ? m->max_seq : 4096;
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (!strcmp(cmd, "eval")) return cmd_eval(argc - 1, argv + 1);
    if (!strcmp(cmd, "plan")) return cmd_plan(argc - 1, argv + 1);
    if (!strcmp(cmd, "validate")) return cmd_validate(argc - 1, argv + 1);
    if (!strcmp(cmd, "scale")) return cmd_scale(argc - 1, argv + 1);
    if (!strcmp(cmd, "models")) return cmd_models(argc - 1, argv + 1);
    if (!strcmp(cmd, "devices")) return cmd_devices(argc - 1, argv + 1);
    if (!strcmp(cmd, "clusters")) return cmd_clusters(argc - 1, argv + 1);
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (cmd[0]) cli_usage("unknown command \"%s\"", cmd);
    fputs(usage, stderr);
    return 2;
}
