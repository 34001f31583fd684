/*
 * cmd_checkpoint.c -- `partita checkpoint` (SPEC section 9): the checkpoint
 * period of a job by Young, Daly (first and higher order), RFO and the exact
 * optimum for exponential failures, with the efficiency of each.  The
 * formulas are src/goal/checkpoint.c, the JSON src/emit/goodput_out.c.
 */
#include "cli/cli.h"
#include "emit/goodput_out.h"
#include "goal/checkpoint.h"

#include <stdio.h>
#include <stdlib.h>

static const cli_opt opts[] = {
    {"mtbf-s", "MU", "the job's mean time between failures in seconds, 0.001..1e12 (required)"},
    {"checkpoint-s", "C", "seconds one checkpoint blocks training, 0.001..1e12 (required)"},
    {"restart-s", "R", "seconds to restart and reload after a failure, 0..1e12 (required)"},
    {"downtime-s", "D", "seconds lost to a failure before the restart begins, 0..1e12 (default 0)"},
    {"json", NULL, "print JSON (young_s, daly_s, rfo_s, daly_high_order_s, optimal_s, optimal_efficiency)"},
    {NULL, NULL, NULL}};

const cli_cmd cli_cmd_checkpoint = {
    "checkpoint", "--mtbf-s MU --checkpoint-s C --restart-s R [OPTION]...",
    "the checkpoint period of a job that fails (Young, Daly, RFO, the exact optimum)",
    "Failures are exponential with mean MU; a period counts the work and the checkpoint.\n"
    "Efficiency: the fraction of wall-clock time spent on work that is kept.\n", 0, opts, cmd_checkpoint};

static int need(const cli_args *a, const char *name, double lo, double *out)
{
    const char *v = cli_get(a, name);
    char opt[40];
    snprintf(opt, sizeof opt, "--%s", name);
    if (!v) return cli_usage("checkpoint: give %s (see partita checkpoint --help)", opt);
    return cli_real(opt, v, lo, 1e12, out);
}

int cmd_checkpoint(int argc, char **argv)
{
    cli_args a;
    pt_ckpt_params p = {0, 0, 0, 0};
    pt_ckpt_periods r;
    pt_diag d;
    pt_status s;
    const char *v;
    int rc;
    if ((rc = cli_parse(&cli_cmd_checkpoint, argc, argv, &a)) != CLI_GO) return rc;
    if ((rc = need(&a, "mtbf-s", 1e-3, &p.mtbf_s)) || (rc = need(&a, "checkpoint-s", 1e-3, &p.checkpoint_s)) ||
        (rc = need(&a, "restart-s", 0, &p.restart_s)))
        return rc;
    if ((v = cli_get(&a, "downtime-s")) && cli_real("--downtime-s", v, 0, 1e12, &p.downtime_s)) return 2;
    if ((s = pt_ckpt_periods_compute(&p, &r, &d)) != PT_OK) return cli_fail(s, &d);
    if (cli_get(&a, "json")) {
        char *text = NULL;
        if ((s = pt_emit_checkpoint_json(&p, &r, &text, &d)) != PT_OK) return cli_fail(s, &d);
        fputs(text, stdout);
        free(text);
        return 0;
    }
    printf("checkpoint period: MTBF %.0f s, checkpoint %.0f s, restart %.0f s, downtime %.0f s\n\n",
           p.mtbf_s, p.checkpoint_s, p.restart_s, p.downtime_s);
    printf("%-36s %12s %11s\n", "formula", "period s", "efficiency");
    printf("%-36s %12.0f %11.4f\n", "Young (1974)", r.young_s, pt_ckpt_efficiency(&p, r.young_s));
    printf("%-36s %12.0f %11.4f\n", "Daly, first order (2006)", r.daly_s, pt_ckpt_efficiency(&p, r.daly_s));
    if (r.rfo_defined)
        printf("%-36s %12.0f %11.4f\n", "RFO (Aupy et al. 2013)", r.rfo_s, pt_ckpt_efficiency(&p, r.rfo_s));
    else
        printf("%-36s %12s %11s\n", "RFO (Aupy et al. 2013)", "undefined", "(MTBF <= D+R)");
    printf("%-36s %12.0f %11.4f\n", "Daly, higher order (2006)", r.daly_high_order_s,
           pt_ckpt_efficiency(&p, r.daly_high_order_s));
    printf("%-36s %12.0f %11.4f\n", "optimum, exponential failures", r.optimal_s, r.optimal_efficiency);
    return 0;
}
