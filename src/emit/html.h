/*
 * html.h -- the one-page HTML reports of `--report FILE.html` (SPEC section
 * 11, issue 20): a self-contained document that a browser shows offline and
 * that prints readably.
 *
 * What it does: writes text.  Styles are one inline <style> (a light theme,
 * a dark one under `prefers-color-scheme: dark`, and a print one under
 * `@media print`); every chart is inline SVG with axes, units and a legend;
 * hover values are SVG <title> tooltips, so the page has no script at all.
 * Nothing is fetched: no external stylesheet, script, font or image, no
 * @import, no src= attribute (the inline SVGs written by svg.c and
 * scale_out.c lose their xmlns attribute, which HTML does not need).
 * The same inputs give the same bytes (fixed formats, no clock).
 * What it does not: price, search or simulate; the caller hands it results.
 *
 * The page builders (pt_html_begin .. pt_html_end) and the two chart
 * helpers are shared by the plan, scale, serve and sweep reports (serve's
 * TTFT/TPOT-against-load curves are pt_html_xy charts).
 */
#ifndef PT_HTML_H
#define PT_HTML_H

#include "partita.h"
#include "emit/emit.h"

struct pt_search_result;
struct pt_plan_check;
struct pt_sim_result;
struct pt_graph;
struct pt_statef;
struct pt_scale_result;
struct pt_serve_opts;
struct pt_serve_result;

/* ---- page building ------------------------------------------------------ */

/* "<!DOCTYPE html>", the head with the inline style, <body>, the <h1>
 * (title, escaped) and a line under it (sub, escaped; NULL for none). */
void pt_html_begin(pt_emit_buf *b, const char *title, const char *sub);
/* The footer and the closing tags. */
void pt_html_end(pt_emit_buf *b);
/* "<section id=ID><h2>HEADING</h2>"; close with pt_html_section_end. */
void pt_html_section(pt_emit_buf *b, const char *id, const char *heading);
void pt_html_section_end(pt_emit_buf *b);
/* "<dt>key</dt><dd>value</dd>" inside a <dl class="q"> the caller opens. */
void pt_html_kv(pt_emit_buf *b, const char *key, const char *value);
/* An SVG document (svg.c, scale_out.c) inline in a light panel (those
 * pictures have their own white background), xmlns removed. */
void pt_html_svg_inline(pt_emit_buf *b, const char *svg);

/* ---- charts --------------------------------------------------------------- */

/* Horizontal stacked bars, one row per item: row i's part k is
 * v[i * nparts + k] in `unit` (e.g. "s", "GiB"), coloured by part with a
 * legend; an x axis with round ticks; marker > 0 draws a dashed vertical line
 * there labelled marker_label (e.g. the device's memory). */
typedef struct pt_html_bars {
    const char *title;              /* "where the time goes (analytic model)" */
    const char *unit;               /* "s"                                    */
    int nrows, nparts;
    const char *const *row_label;   /* nrows, e.g. "#1"                       */
    const char *const *row_tip;     /* nrows tooltips (full strategy), or NULL */
    const char *const *part_name;   /* nparts, e.g. "compute"                 */
    const double *v;                /* nrows * nparts, >= 0                   */
    double marker;
    const char *marker_label;
} pt_html_bars;
void pt_html_hbars(pt_emit_buf *b, const pt_html_bars *c);

/* An x-y chart of series of points, axes linear or logarithmic (base 10,
 * every positive value), with units in the axis titles and a legend. */
typedef struct pt_html_series {
    const char *name;               /* legend: "Pareto front"                 */
    int n;
    const double *x, *y;            /* n points; on a log axis, > 0           */
    const char *const *label;       /* n labels written by the points, or NULL */
    const char *const *tip;         /* n tooltips, or NULL                    */
    int line;                       /* 1: a line through the points in order  */
    int dots;                       /* 1: a dot at each point                 */
} pt_html_series;
typedef struct pt_html_xy_chart {
    const char *title;
    const char *xlabel, *ylabel;    /* with units: "seconds per 1M tokens"    */
    int xlog, ylog;
    int nseries;
    const pt_html_series *s;
} pt_html_xy_chart;
void pt_html_xy(pt_emit_buf *b, const pt_html_xy_chart *c);

/* ---- whole reports (malloc'd text the caller frees; PT_ENOMEM) ---------- */

/* `plan --report`: the question, the top plans (r->plans, checks as from
 * pt_plan_rerank), the explanation (text as `plan --explain` prints it, or
 * NULL), the simulated step of plans[0] (sim NULL: not drawn, and why_no_sim
 * says why), memory per device and where the time goes for each plan. */
pt_status pt_emit_html_plan(const pt_model *m, const pt_cluster *c, const pt_job *job,
                            const struct pt_search_result *r, const struct pt_plan_check *checks,
                            const char *explanation, const struct pt_sim_result *sim,
                            const char *why_no_sim, char **out, pt_diag *d);

/* `scale --report`: the question, the table of device counts, the curves of
 * time to train against GPUs (data parallel alone and hybrid), the crossover
 * and the model-parallel speed-ups. */
pt_status pt_emit_html_scale(const struct pt_graph *g, const pt_cluster *c, const struct pt_statef *se,
                             const char *se_src, const struct pt_scale_result *r, char **out,
                             pt_diag *d);

/* `serve --report`: the load curve of one plan, simulated by the caller
 * (src/cli/cmd_serve.c): TTFT and TPOT at the percentile against the
 * request rate to the whole deployment, from low load to past saturation. */
#define PT_HTML_SERVE_POINTS 8
typedef struct pt_html_serve_curve {
    int plan;                       /* index into r->plans; -1: none drawn    */
    int n;                          /* points, <= PT_HTML_SERVE_POINTS        */
    double rate[PT_HTML_SERVE_POINTS];      /* requests/s, all replicas       */
    double ttft_ms[PT_HTML_SERVE_POINTS];   /* at the percentile              */
    double tpot_ms[PT_HTML_SERVE_POINTS];
    double capacity_rps;            /* what the plan finishes offline, requests/s */
    char why_none[300];             /* plan < 0 or n == 0: why not drawn      */
} pt_html_serve_curve;

/* `serve --report`: the question, the top plans (the numbers of the serve
 * table) and the curve. */
pt_status pt_emit_html_serve(const pt_model *m, const pt_cluster *c, const struct pt_serve_opts *o,
                             const struct pt_serve_result *r, const pt_html_serve_curve *cv, char **out,
                             pt_diag *d);

#endif
