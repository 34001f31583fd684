/*
 * cli.h -- the command-line front end: option parsing shared by sub-commands
 * and error reporting.  No modelling logic lives in src/cli.
 */
#ifndef PT_CLI_H
#define PT_CLI_H

#include "partita.h"
#include "sim/sim.h"

/* Options common to commands that price a job. */
typedef struct cli_job {
    const char *model;     /* positional MODEL                    */
    const char *cluster;   /* --cluster                           */
    int64_t gpus;          /* --gpus, 0 = the cluster's default   */
    const char *strategy;  /* --strategy                          */
    int json;              /* --json                              */
    int engine_set;        /* --engine was given                  */
    pt_job job;            /* seq_len 0 = from the model          */
} cli_job;

/* Prints "partita: FILE:LINE:COL: msg" to stderr and returns the exit status for st. */
int cli_fail(pt_status st, const pt_diag *d);
/* Prints "partita: msg" (usage errors) and returns 2. */
int cli_usage(const char *fmt, ...);

/* Parses a whole number option value; returns 0 on success. */
int cli_int(const char *opt, const char *v, int64_t lo, int64_t *out);

/* Options every pricing command takes (--cluster --gpus --seq-len --dtype
 * --engine --no-flash-attention): returns how many arguments it used (1 or
 * 2), 0 if a is not one of them, or minus the exit status on an error. */
int cli_job_option(cli_job *o, const char *a, const char *v);

/* Writes the Chrome trace and/or the SVG of a simulated step (either may be
 * NULL); returns 0 or the exit status. */
int cli_write_timeline(const pt_sim_result *r, const pt_model *m, const pt_strategy *st,
                       const char *trace, const char *svg);
/* The same, and out_text to out as well (out may be NULL): all of them or
 * none (pt_write_files_atomic). */
int cli_write_outputs(const pt_sim_result *r, const pt_model *m, const pt_strategy *st,
                      const char *trace, const char *svg, const char *out, const char *out_text);

/* Loads model and cluster for the job options; fills seq_len default. */
int cli_load(cli_job *o, pt_model *m, pt_cluster *c);

int cmd_eval(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_scale(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_clusters(int argc, char **argv);

#endif
