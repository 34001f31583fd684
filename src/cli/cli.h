/*
 * cli.h -- the command-line front end: GNU-style option parsing shared by the
 * sub-commands (getopt_long over a table of options per command, which also
 * writes `partita CMD --help`), strict numbers with ranges, error reporting,
 * and progress on a terminal.  The commands parse, call the library, and
 * print; no modelling logic and no JSON or SVG building lives in src/cli.
 */
#ifndef PT_CLI_H
#define PT_CLI_H

#include <stdio.h>

#include "partita.h"
#include "sim/sim.h"

/* Upper bounds of the numeric options (stated in each command's --help). */
#define CLI_MAX_GPUS (INT64_C(1) << 24)    /* --gpus, --max-gpus: 16,777,216 */
#define CLI_MAX_SEQ (INT64_C(1) << 24)     /* --seq-len: 16M tokens         */
#define CLI_MAX_BATCH (INT64_C(1) << 30)   /* --global-batch: sequences     */
#define CLI_MAX_THREADS 1024               /* --threads                     */
#define CLI_MAX_TOP 10000                  /* --top                         */
#define CLI_MAX_ILP_NODES 1000000          /* --ilp-nodes                   */

/* One option of a command: what getopt_long matches and what --help says. */
typedef struct cli_opt {
    const char *name;  /* without the dashes: "gpus"                        */
    const char *arg;   /* the value's name in --help, "N"; NULL for a flag  */
    const char *help;  /* one line: meaning, range, default                 */
} cli_opt;

/* The options common to the commands that price a job (plan, eval). */
#define CLI_JOB_OPTS                                                                               \
    {"cluster", "C", "a built-in cluster (`partita clusters`) or a cluster file"},                \
    {"gpus", "N", "devices, whole nodes, 1..16777216 (default: the cluster's size)"},             \
    {"seq-len", "S", "tokens per sequence, 1..16777216 (default: the model's, at most 4096)"},    \
    {"doc-len", "D", "tokens per packed document, 1..16777216: attention within documents (packed SFT data, document masks; default: one per sequence)"}, \
    {"dtype", "T", "bf16, fp16 or fp8 (default bf16)"},                                            \
    {"engine", "E", "megatron, deepspeed or torchtitan (alias fsdp): how the engine runs it (default megatron); plan: what it runs, or any"}, \
    {"no-flash-attention", NULL, "price unfused attention instead of flash attention"},           \
    {"tp-comm-overlap", NULL, "TP collectives under the GEMMs where sp=1 (Megatron's --tp-comm-overlap; torchtitan's async TP, forward only)"}, \
    {"moe-dispatcher", "D", "MoE: alltoall (a token once per expert; default), deepep or hybridep (once per rank and node)"}, \
    {"moe-a2a-overlap", NULL, "MoE: all-to-all under another micro-batch's compute, pp=1 or interleaved (Megatron's --overlap-moe-expert-parallel-comm)"}, \
    {"moe-imbalance", "X", "MoE: busiest device's routed tokens over the even share, 1..1000 (default 1.25)"}, \
    {"moe-capacity", "F", "MoE: expert capacity factor, 0.01..1000 (default dropless)"},           \
    {"mtp", "N", "multi-token-prediction depths trained on the last stage, 0..16 (default: the config's num_nextn_predict_layers; Megatron's --mtp-num-layers)"}

/* A command: its name, arguments and options. */
typedef struct cli_cmd {
    const char *name;     /* "plan"                                        */
    const char *args;     /* "MODEL [OPTION]..."                            */
    const char *about;    /* one line for `partita --help`                  */
    const char *more;     /* further lines for `partita CMD --help`, or NULL */
    int max_pos;          /* positional arguments it takes                  */
    const cli_opt *opts;  /* ends with {NULL}; -h/--help is implied          */
    int (*run)(int argc, char **argv); /* argv[0] is the command's name    */
} cli_cmd;

#define CLI_MAXOPT 48
#define CLI_MAXPOS 2
/* What cli_parse found: per option (index into cmd->opts) the last value
 * given ("" for a flag), NULL when absent; the positional arguments. */
typedef struct cli_args {
    const cli_cmd *cmd;
    const char *val[CLI_MAXOPT];
    const char *pos[CLI_MAXPOS];
    int npos;
} cli_args;

#define CLI_GO (-1)
/* Parses argv (argv[0] the command) with getopt_long: options before or after
 * the positional arguments, `--opt value` and `--opt=value`, `--` ends the
 * options.  Returns CLI_GO to go on; 0 after printing --help; 2 after an
 * unknown or ambiguous option, a missing or unexpected value or a stray
 * argument, with a message naming it. */
int cli_parse(const cli_cmd *cmd, int argc, char **argv, cli_args *a);
/* The value of option `name` (as in the table), NULL if not given. */
const char *cli_get(const cli_args *a, const char *name);
/* Writes `partita CMD --help`. */
void cli_help(const cli_cmd *cmd, FILE *f);

/* The commands, for `partita --help` and `partita help CMD`. */
extern const cli_cmd cli_cmd_plan, cli_cmd_eval, cli_cmd_validate, cli_cmd_scale, cli_cmd_models,
    cli_cmd_devices, cli_cmd_clusters, cli_cmd_sweep;
extern const cli_cmd cli_cmd_checkpoint; /* cmd_checkpoint.c */
extern const cli_cmd cli_cmd_serve; /* cmd_serve.c */

/* Prints "partita: FILE:LINE:COL: msg" to stderr (control characters
 * escaped) and returns the exit status for st. */
int cli_fail(pt_status st, const pt_diag *d);
/* Prints "partita: msg" (usage errors) and returns 2. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
int cli_usage(const char *fmt, ...);

/* v as a whole number in [lo, hi]; 0, or 2 after a message naming opt and
 * the range. */
int cli_int(const char *opt, const char *v, int64_t lo, int64_t hi, int64_t *out);
/* v as a finite number in [lo, hi]; 0, or 2 after a message. */
int cli_real(const char *opt, const char *v, double lo, double hi, double *out);

/* Options common to commands that price a job. */
typedef struct cli_job {
    const char *model;     /* positional MODEL                    */
    const char *cluster;   /* --cluster                           */
    int64_t gpus;          /* --gpus, 0 = the cluster's default   */
    int engine_set;        /* --engine was given                  */
    int64_t mtp;           /* --mtp, -1 = the config's depths     */
    pt_job job;            /* seq_len 0 = from the model          */
} cli_job;

/* Loads MODEL (the first thing checked); 0 or the exit status. */
int cli_load_model(const char *name, pt_model *m);
/* Reads the CLI_JOB_OPTS values into o (defaults first); 0 or 2. */
int cli_job_options(cli_job *o, const cli_args *a);
/* What the job options say of the model itself (--mtp) into m. */
void cli_job_model(const cli_job *o, pt_model *m);
/* --tp-comm-overlap under engine e: 2 (usage printed) where e does not run
 * it (DeepSpeed), else 0. */
int cli_tp_overlap_refused(pt_engine e);
/* The same for --moe-a2a-overlap: 2 (usage printed) where e does not run
 * it (DeepSpeed, torchtitan), else 0. */
int cli_ep_overlap_refused(pt_engine e);
/* The engine checks of the job's options once the engine is known. */
int cli_job_engine_refused(const pt_job *job);
/* Loads the cluster of o (resized to --gpus) and fills the seq_len default
 * from m; 0 or the exit status. */
int cli_load_cluster(cli_job *o, const pt_model *m, pt_cluster *c);

/* Writes the Chrome trace and/or the SVG of a simulated step (either may be
 * NULL); returns 0 or the exit status. */
int cli_write_timeline(const pt_sim_result *r, const pt_model *m, const pt_strategy *st,
                       const char *trace, const char *svg);
/* The same, and out_text to out as well (out may be NULL): all of them or
 * none (pt_write_files_atomic). */
int cli_write_outputs(const pt_sim_result *r, const pt_model *m, const pt_strategy *st,
                      const char *trace, const char *svg, const char *out, const char *out_text);
/* Writes text to path (atomically), or to stdout when path is NULL; 0 or
 * the exit status. */
int cli_output(const char *path, const char *text);

/* Progress of long work on stderr, only when stderr is a terminal: one line
 * rewritten in place (after the first half second), cleared at the end. */
typedef struct cli_progress {
    const char *what;     /* "searching (tp, cp) pairs"           */
    int tty;              /* stderr is a terminal                  */
    double t0, last;      /* start, last update (monotonic s)     */
    int shown;            /* width of the line on screen, 0 none  */
} cli_progress;
void cli_progress_start(cli_progress *p, const char *what);
void cli_progress_cb(void *arg, int64_t done, int64_t total); /* a pt_progress_fn */
void cli_progress_end(cli_progress *p);

/* eval and plan on a cluster with pools (cmd_hetero.c): 0 or the exit status. */
struct pt_space;
int cli_eval_pools(const cli_args *a, cli_job *o, const pt_model *m, const pt_cluster *c, const char *strategy,
                   int simulate);
int cli_plan_pools(const cli_args *a, cli_job *o, const pt_model *m, const pt_cluster *c,
                   const struct pt_space *space, int64_t top);

int cmd_eval(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_scale(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_clusters(int argc, char **argv);
int cmd_checkpoint(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_pipeline(int argc, char **argv);

#endif
