/*
 * sweep_out.h -- `partita sweep` written out (SPEC section 11): the table,
 * the JSON {"questions", "answers": [{"question", "plans"}...]} in grid
 * order, and the HTML report with the Pareto front of time against dollars
 * (serving grids: time to first token against dollars per 10^6 tokens).
 * Each reads a grid and its answers (src/goal/sweep.h) only, so the bytes
 * depend on nothing else: one process or K MPI ranks write the same.
 */
#ifndef PT_SWEEP_OUT_H
#define PT_SWEEP_OUT_H

#include "emit/emit.h"
#include "goal/sweep.h"

/* Answer a's point on the Pareto chart: plan grids, x = hours and *usd =
 * dollars per 10^9 tokens trained; serve grids, x = TTFT at the percentile
 * (ms) and *usd = dollars per 10^6 output tokens.  1 when a has one (a plan,
 * a price, and for serving, its objectives met), else 0. */
int pt_emit_sweep_point(const pt_sweep_grid *g, const pt_sweep_answer *a, double *x, double *usd);

/* The answers on the Pareto front of those points (no other both lower in x
 * and cheaper, one strictly), in grid order: their indices into *front
 * (malloc'd, caller frees; NULL when none), their count returned (-1 when
 * memory runs out). */
int pt_emit_sweep_front(const pt_sweep_grid *g, const pt_sweep_answer *a, int64_t **front);

/* The human table (one line per question, then the front). */
pt_status pt_emit_sweep_text(const pt_sweep_grid *g, const pt_sweep_answer *a, char **out, pt_diag *d);
/* `sweep --json`. */
pt_status pt_emit_sweep_json(const pt_sweep_grid *g, const pt_sweep_answer *a, char **out, pt_diag *d);
/* `sweep --report`: the grid, every answer, the Pareto front chart (hours
 * against dollars per 10^9 tokens, one colour per model, the front's points
 * labelled) and the front's table. */
pt_status pt_emit_html_sweep(const pt_sweep_grid *g, const pt_sweep_answer *a, char **out, pt_diag *d);

#endif
