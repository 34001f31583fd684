/*
 * cmd_recsys.h -- `partita plan` on a recommendation model (issue 19):
 * cmd_plan.c hands MODEL over here when pt_recsys_probe says it is one.
 */
#ifndef PT_CMD_RECSYS_H
#define PT_CMD_RECSYS_H

#include "cli/cli.h"

/* The embedding sharding plan of a's MODEL (parsed by cmd_plan): Partita's
 * and the TorchRec-style greedy one, as a table, JSON (--json) or TorchRec
 * planner input (--export torchrec).  Returns the exit status. */
int cli_plan_recsys(const cli_args *a);

#endif
