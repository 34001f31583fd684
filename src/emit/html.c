/*
 * html.c -- the self-contained HTML reports of `--report FILE.html` (see
 * html.h): page frame and style, two chart helpers (stacked horizontal bars;
 * x-y series on linear or log axes), and the plan, scale and serve reports.
 *
 * The step timeline with memory over time per stage is svg.c's picture and
 * the scaling curves scale_out.c's, inlined as they are; this file draws only
 * what those do not (memory per device and where the time goes per plan, the
 * sweeps' Pareto front through pt_html_xy).  Colours of the data are
 * Tableau 10 (as svg.c); text, axes and grid lines take the theme's colours
 * through CSS classes, so the same charts read on a dark page and on paper.
 * Not here: the sweep page (sweep_out.c), pricing of any kind.
 */
#include "emit/html.h"
#include "emit/timeline.h"
#include "goal/scale.h"
#include "goal/ttt.h"
#include "plan/place.h"
#include "plan/search.h"
#include "plan/serve_search.h"
#include "emit/serve_out.h"
#include "sim/sim.h"
#include "base/base.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#79706e"};

static const char style[] =
    ":root{--bg:#ffffff;--fg:#1d2026;--muted:#5d6570;--line:#d3d8de;--grid:#e9ecf0;"
    "--head:#f2f4f7;--accent:#2a66a8}\n"
    "@media (prefers-color-scheme: dark){:root{--bg:#14171c;--fg:#e3e6ea;--muted:#9aa3ad;"
    "--line:#3b424c;--grid:#2b3139;--head:#1e232a;--accent:#82b2e8}}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0 auto;max-width:1280px;padding:24px;background:var(--bg);color:var(--fg);"
    "font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:6px 0 10px}\n"
    ".sub{color:var(--muted);margin:0 0 12px}\n"
    "nav a{color:var(--accent);margin-right:14px;text-decoration:none}\n"
    "section{margin:26px 0;border-top:1px solid var(--line);padding-top:6px}\n"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:4px 0}\n"
    "th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:right;white-space:nowrap}\n"
    "th{background:var(--head);font-weight:600}td.l,th.l{text-align:left;white-space:normal}"
    "td.n{text-align:left}td.s{text-align:left;white-space:normal;min-width:17em}table.wide{font-size:12.5px}table.wide th{white-space:normal}\n"
    "dl.q{display:grid;grid-template-columns:max-content auto;gap:2px 18px;margin:0}\n"
    "dt{color:var(--muted)}dd{margin:0}\n"
    "pre{white-space:pre-wrap;background:var(--head);padding:10px 12px;border-radius:4px;"
    "font-size:12.5px;margin:0}\n"
    "p.note{color:var(--muted);font-size:12.5px}\n"
    ".wrap{overflow-x:auto}\n"
    ".panel{background:#ffffff;color:#000000;border:1px solid var(--line);border-radius:4px;"
    "padding:6px;overflow-x:auto}\n"
    ".panel svg{max-width:100%;height:auto;display:block}\n"
    "svg.chart{max-width:100%;height:auto;display:block}\n"
    ".chart text{fill:var(--fg);font-size:12px}.chart .muted{fill:var(--muted)}\n"
    ".chart .grid{stroke:var(--grid)}.chart .axis{stroke:var(--fg)}\n"
    ".chart .mark{stroke:var(--fg);stroke-dasharray:5 4}\n"
    ".chart text.lbl{font-weight:600;paint-order:stroke;stroke:var(--bg);stroke-width:3px;stroke-linejoin:round}\n"
    "footer{color:var(--muted);font-size:12px;margin-top:30px;border-top:1px solid var(--line);"
    "padding-top:8px}\n"
    "@media print{:root{--bg:#ffffff;--fg:#000000;--muted:#444444;--line:#bbbbbb;--grid:#dddddd;"
    "--head:#eeeeee}body{max-width:none;padding:0;font-size:10.5pt}nav{display:none}"
    "section{break-inside:avoid-page}.panel{border:none;overflow:visible}"
    "table{font-size:8.5pt}}\n";

/* ---- page ------------------------------------------------------------------ */

void pt_html_begin(pt_emit_buf *b, const char *title, const char *sub)
{
    pt_emit_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                        "<meta name=\"color-scheme\" content=\"light dark\">\n<title>");
    pt_emit_buf_xml(b, title);
    pt_emit_buf_printf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
    pt_emit_buf_xml(b, title);
    pt_emit_buf_puts(b, "</h1>\n");
    if (sub) {
        pt_emit_buf_puts(b, "<p class=\"sub\">");
        pt_emit_buf_xml(b, sub);
        pt_emit_buf_puts(b, "</p>\n");
    }
}

void pt_html_end(pt_emit_buf *b)
{
    pt_emit_buf_printf(b, "<footer>Written by partita %s. The numbers are the model's predictions, "
                          "not measurements; hover over a bar or a point for its value. This page is "
                          "self-contained: it needs no network.</footer>\n</body>\n</html>\n",
                       PT_VERSION);
}

void pt_html_section(pt_emit_buf *b, const char *id, const char *heading)
{
    pt_emit_buf_printf(b, "<section id=\"%s\">\n<h2>", id);
    pt_emit_buf_xml(b, heading);
    pt_emit_buf_puts(b, "</h2>\n");
}

void pt_html_section_end(pt_emit_buf *b)
{
    pt_emit_buf_puts(b, "</section>\n");
}

void pt_html_kv(pt_emit_buf *b, const char *key, const char *value)
{
    pt_emit_buf_puts(b, "<dt>");
    pt_emit_buf_xml(b, key);
    pt_emit_buf_puts(b, "</dt><dd>");
    pt_emit_buf_xml(b, value);
    pt_emit_buf_puts(b, "</dd>\n");
}

void pt_html_svg_inline(pt_emit_buf *b, const char *svg)
{
    static const char xmlns[] = " xmlns=\"http://www.w3.org/2000/svg\"";
    const char *p = strstr(svg, xmlns);
    pt_emit_buf_puts(b, "<div class=\"panel\">\n");
    if (p) {
        pt_emit_buf_printf(b, "%.*s", (int)(p - svg), svg);
        svg = p + strlen(xmlns);
    }
    pt_emit_buf_puts(b, svg);
    pt_emit_buf_puts(b, "</div>\n");
}

/* ---- charts ------------------------------------------------------------------ */

enum { CH_W = 1000 };

/* A legend of coloured swatches from (x0, y), wrapping at CH_W; returns the
 * y under it. */
static int legend(pt_emit_buf *b, int n, const char *const *names, const int *shown, int x0, int y)
{
    int x = x0;
    for (int k = 0; k < n; k++) {
        int w;
        if (shown && !shown[k]) continue;
        w = 16 + 7 * (int)strlen(names[k]) + 18;
        if (x + w > CH_W - 10 && x > x0) {
            x = x0;
            y += 18;
        }
        pt_emit_buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"%s\"/>"
                              "<text x=\"%d\" y=\"%d\">", x, y - 9, palette[k % 10], x + 16, y);
        pt_emit_buf_xml(b, names[k]);
        pt_emit_buf_puts(b, "</text>\n");
        x += w;
    }
    return y + 14;
}

void pt_html_hbars(pt_emit_buf *b, const pt_html_bars *c)
{
    enum { LEFT = 70, RIGHT = 30, ROW = 26, BAR = 18 };
    int shown[16] = {0}, top, h, dec, np = c->nparts < 16 ? c->nparts : 16;
    double max = c->marker > 0 ? c->marker : 0, step, plot = CH_W - LEFT - RIGHT;
    assert(c->nrows >= 0 && c->nparts >= 1);
    for (int i = 0; i < c->nrows; i++) {
        double t = 0;
        for (int k = 0; k < np; k++) {
            double v = c->v[i * c->nparts + k];
            if (v > 0) shown[k] = 1, t += v;
        }
        if (t > max) max = t;
    }
    if (!(max > 0)) max = 1;
    step = pt_emit_nice_step(max, 8, &dec);
    max = ceil(max / step - 1e-9) * step;
    /* the height: title, legend (at most a few lines), rows, axis */
    top = 22;
    {
        /* measure the legend by drawing it into a scratch buffer */
        pt_emit_buf tmp = {0};
        top = legend(&tmp, np, c->part_name, shown, 10, top + 22) + 4;
        free(tmp.p);
    }
    h = top + c->nrows * ROW + 44;
    pt_emit_buf_printf(b, "<div class=\"wrap\"><svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
                          "%d\" font-family=\"sans-serif\" role=\"img\">\n<title>",
                       CH_W, h, CH_W, h);
    pt_emit_buf_xml(b, c->title);
    pt_emit_buf_puts(b, "</title>\n<text x=\"10\" y=\"18\" font-weight=\"bold\">");
    pt_emit_buf_xml(b, c->title);
    pt_emit_buf_puts(b, "</text>\n");
    legend(b, np, c->part_name, shown, 10, 44);
    for (int k = 0; k * step <= max * (1 + 1e-9) && k < 100; k++) {
        double x = LEFT + k * step / max * plot;
        pt_emit_buf_printf(b, "<line class=\"grid\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>"
                              "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%.*f</text>\n",
                           x, top - 4, x, top + c->nrows * ROW, x, top + c->nrows * ROW + 16, dec, k * step);
    }
    pt_emit_buf_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", LEFT,
                       top + c->nrows * ROW, CH_W - RIGHT, top + c->nrows * ROW);
    pt_emit_buf_printf(b, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">", LEFT + plot / 2,
                       top + c->nrows * ROW + 36);
    pt_emit_buf_xml(b, c->unit);
    pt_emit_buf_puts(b, "</text>\n");
    for (int i = 0; i < c->nrows; i++) {
        double x = LEFT;
        int y = top + i * ROW + (ROW - BAR) / 2;
        pt_emit_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LEFT - 8, y + 13);
        if (c->row_tip) {
            pt_emit_buf_puts(b, "<title>");
            pt_emit_buf_xml(b, c->row_tip[i]);
            pt_emit_buf_puts(b, "</title>");
        }
        pt_emit_buf_xml(b, c->row_label[i]);
        pt_emit_buf_puts(b, "</text>\n");
        for (int k = 0; k < np; k++) {
            double v = c->v[i * c->nparts + k], w = v / max * plot;
            if (!(v > 0)) continue;
            pt_emit_buf_printf(b, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>",
                               x, y, w < 0.3 ? 0.3 : w, BAR, palette[k % 10]);
            pt_emit_buf_xml(b, c->row_label[i]);
            pt_emit_buf_puts(b, " ");
            pt_emit_buf_xml(b, c->part_name[k]);
            pt_emit_buf_printf(b, ": %.4g ", v);
            pt_emit_buf_xml(b, c->unit);
            pt_emit_buf_puts(b, "</title></rect>\n");
            x += w;
        }
    }
    if (c->marker > 0) {
        double x = LEFT + c->marker / max * plot;
        pt_emit_buf_printf(b, "<line class=\"mark\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>"
                              "<text x=\"%.2f\" y=\"%d\" text-anchor=\"end\">", x, top - 6, x,
                           top + c->nrows * ROW, x - 3, top - 8);
        pt_emit_buf_xml(b, c->marker_label ? c->marker_label : "");
        pt_emit_buf_puts(b, "</text>\n");
    }
    pt_emit_buf_puts(b, "</svg></div>\n");
}

/* An axis mapping: value to pixel between p0 and p1. */
typedef struct axis_map {
    int log;
    double lo, hi;     /* in the axis's units (log: decades as log10) */
    double p0, p1;
} axis_map;

static double amap(const axis_map *a, double v)
{
    double u = a->log ? log10(v) : v;
    return a->p0 + (u - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/* The range of an axis over the values; log axes take whole decades. */
static void arange(axis_map *a, double vmin, double vmax)
{
    if (a->log) {
        a->lo = floor(log10(vmin) + 1e-9);
        a->hi = ceil(log10(vmax) - 1e-9);
        if (a->hi <= a->lo) a->hi = a->lo + 1;
    } else {
        int dec;
        double lo = vmin > 0 ? 0 : vmin, step;
        if (!(vmax > lo)) vmax = lo + 1;
        step = pt_emit_nice_step(vmax - lo, 6, &dec);
        a->lo = floor(lo / step + 1e-9) * step;
        a->hi = ceil(vmax / step - 1e-9) * step;
    }
}

/* Tick values of an axis: decades (and 2, 5 within them when there are few)
 * or round steps; returns how many, at most max. */
static int aticks(const axis_map *a, double *t, int max)
{
    int n = 0;
    if (a->log) {
        int few = a->hi - a->lo <= 2;
        for (double e = a->lo; e <= a->hi + 1e-9 && n < max; e += 1) {
            t[n++] = pow(10.0, e);
            if (few && e < a->hi - 1e-9) {
                if (n < max) t[n++] = 2 * pow(10.0, e);
                if (n < max) t[n++] = 5 * pow(10.0, e);
            }
        }
    } else {
        int dec;
        double step = pt_emit_nice_step(a->hi - a->lo, 6, &dec);
        for (int k = 0; a->lo + k * step <= a->hi * (1 + 1e-9) + 1e-12 && n < max; k++) t[n++] = a->lo + k * step;
    }
    return n;
}

void pt_html_xy(pt_emit_buf *b, const pt_html_xy_chart *c)
{
    enum { LEFT = 90, RIGHT = 40, TOP = 56, PH = 380, H = TOP + PH + 60 };
    axis_map ax = {c->xlog, 0, 1, LEFT, CH_W - RIGHT}, ay = {c->ylog, 0, 1, TOP + PH, TOP};
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY, t[64];
    const char *names[16];
    int nt, ns = c->nseries < 16 ? c->nseries : 16, npts = 0;
    for (int s = 0; s < ns; s++) {
        names[s] = c->s[s].name;
        for (int i = 0; i < c->s[s].n; i++) {
            double x = c->s[s].x[i], y = c->s[s].y[i];
            if (!isfinite(x) || !isfinite(y) || (c->xlog && !(x > 0)) || (c->ylog && !(y > 0))) continue;
            xmin = fmin(xmin, x), xmax = fmax(xmax, x), ymin = fmin(ymin, y), ymax = fmax(ymax, y);
            npts++;
        }
    }
    if (npts == 0) xmin = ymin = 1, xmax = ymax = 10;
    arange(&ax, xmin, xmax);
    arange(&ay, ymin, ymax);
    pt_emit_buf_printf(b, "<div class=\"wrap\"><svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
                          "%d\" font-family=\"sans-serif\" role=\"img\">\n<title>",
                       CH_W, (int)H, CH_W, (int)H);
    pt_emit_buf_xml(b, c->title);
    pt_emit_buf_puts(b, "</title>\n<text x=\"10\" y=\"18\" font-weight=\"bold\">");
    pt_emit_buf_xml(b, c->title);
    pt_emit_buf_puts(b, "</text>\n");
    legend(b, ns, names, NULL, 10, 42);
    nt = aticks(&ax, t, 64);
    for (int k = 0; k < nt; k++) {
        double x = amap(&ax, t[k]);
        pt_emit_buf_printf(b, "<line class=\"grid\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>"
                              "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
                           x, (int)TOP, x, (int)(TOP + PH), x, (int)(TOP + PH + 16), t[k]);
    }
    nt = aticks(&ay, t, 64);
    for (int k = 0; k < nt; k++) {
        double y = amap(&ay, t[k]);
        pt_emit_buf_printf(b, "<line class=\"grid\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"/>"
                              "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%g</text>\n",
                           (int)LEFT, y, (int)(CH_W - RIGHT), y, (int)LEFT - 6, y + 4, t[k]);
    }
    pt_emit_buf_printf(b, "<path class=\"axis\" fill=\"none\" d=\"M%d %d V%d H%d\"/>\n", (int)LEFT, (int)TOP,
                       (int)(TOP + PH), (int)(CH_W - RIGHT));
    pt_emit_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (LEFT + CH_W - RIGHT) / 2,
                       (int)(TOP + PH + 40));
    pt_emit_buf_xml(b, c->xlabel);
    pt_emit_buf_printf(b, "%s</text>\n<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\">",
                       c->xlog ? " (log scale)" : "", TOP + PH / 2);
    pt_emit_buf_xml(b, c->ylabel);
    pt_emit_buf_printf(b, "%s</text>\n", c->ylog ? " (log scale)" : "");
    /* the points where a label may not go: every dot */
    {
        int cap = 0, nd = 0;
        double *dots;
        for (int s = 0; s < ns; s++) cap += c->s[s].n;
        dots = malloc((size_t)(cap > 0 ? cap : 1) * 2 * sizeof *dots);
        if (!dots) {
            b->oom = 1;
            return;
        }
        for (int s = 0; s < ns; s++) {
            const pt_html_series *S = &c->s[s];
            const char *col = palette[s % 10];
            int first = 1;
            if (S->line) {
                for (int i = 0; i < S->n; i++) {
                    double x = S->x[i], y = S->y[i];
                    if (!isfinite(x) || !isfinite(y) || (c->xlog && !(x > 0)) || (c->ylog && !(y > 0))) continue;
                    if (first)
                        pt_emit_buf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
                    pt_emit_buf_printf(b, "%s%.2f,%.2f", first ? "" : " ", amap(&ax, x), amap(&ay, y));
                    first = 0;
                }
                if (!first) pt_emit_buf_puts(b, "\"/>\n");
            }
            for (int i = 0; i < S->n; i++) {
                double x = S->x[i], y = S->y[i], px, py;
                if (!isfinite(x) || !isfinite(y) || (c->xlog && !(x > 0)) || (c->ylog && !(y > 0))) continue;
                px = amap(&ax, x), py = amap(&ay, y);
                if (S->dots || S->tip) {
                    pt_emit_buf_printf(b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%d\" fill=\"%s\"%s>", px, py,
                                       S->dots ? 4 : 3, col, S->dots ? "" : " fill-opacity=\"0.01\"");
                    pt_emit_buf_puts(b, "<title>");
                    if (S->tip) pt_emit_buf_xml(b, S->tip[i]);
                    else pt_emit_buf_printf(b, "%.4g, %.4g", x, y);
                    pt_emit_buf_puts(b, "</title></circle>\n");
                    if (S->dots) dots[2 * nd] = px, dots[2 * nd + 1] = py, nd++;
                } else if (S->label && S->label[i] && S->label[i][0]) {
                    /* a labelled point without a dot (a Pareto front): a ring around it */
                    pt_emit_buf_printf(b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"7\" fill=\"none\" stroke=\"%s\" "
                                          "stroke-width=\"2\"/>\n", px, py, col);
                    dots[2 * nd] = px, dots[2 * nd + 1] = py, nd++;
                }
            }
        }
        /* the labels last, over everything: each where it covers no dot and
         * no earlier label (eight places tried around its point, then the
         * least crowded), on a halo of the page's colour */
        {
            int nl = 0;
            double *box = malloc((size_t)(cap > 0 ? cap : 1) * 4 * sizeof *box);
            if (!box) {
                free(dots);
                b->oom = 1;
                return;
            }
            for (int s = 0; s < ns; s++) {
                const pt_html_series *S = &c->s[s];
                for (int i = 0; S->label && i < S->n; i++) {
                    static const double place[8][2] = {{9, -7}, {9, 15}, {-9, -7}, {-9, 15},
                                                       {0, -14}, {0, 24}, {16, 4}, {-16, 4}};
                    double x = S->x[i], y = S->y[i], px, py, w, best_x = 0, best_y = 0, fewest = INFINITY;
                    if (!S->label[i] || !S->label[i][0]) continue;
                    if (!isfinite(x) || !isfinite(y) || (c->xlog && !(x > 0)) || (c->ylog && !(y > 0))) continue;
                    px = amap(&ax, x), py = amap(&ay, y);
                    w = 6.5 * (double)strlen(S->label[i]) + 2;
                    for (int k = 0; k < 8 && fewest > 0; k++) {
                        /* the text's box: from x0, w wide, baseline at ty (11 px
                         * above it, 3 below); left of the point for a negative
                         * offset, centred on it for none */
                        double tx = px + place[k][0], ty = py + place[k][1], x0, crowd = 0;
                        x0 = place[k][0] < 0 ? tx - w : place[k][0] == 0 ? tx - w / 2 : tx;
                        for (int j = 0; j < nd; j++)
                            if (dots[2 * j] > x0 - 5 && dots[2 * j] < x0 + w + 5 && dots[2 * j + 1] > ty - 16 &&
                                dots[2 * j + 1] < ty + 7 && !(dots[2 * j] == px && dots[2 * j + 1] == py))
                                crowd += 1;
                        for (int j = 0; j < nl; j++)
                            if (box[4 * j] < x0 + w && x0 < box[4 * j + 2] && box[4 * j + 1] < ty + 3 &&
                                ty - 11 < box[4 * j + 3])
                                crowd += 4;
                        if (x0 < LEFT || x0 + w > CH_W - 4 || ty - 11 < TOP - 14 || ty > TOP + PH + 2) crowd += 2;
                        if (crowd < fewest) fewest = crowd, best_x = x0, best_y = ty;
                    }
                    box[4 * nl] = best_x, box[4 * nl + 1] = best_y - 11, box[4 * nl + 2] = best_x + w;
                    box[4 * nl + 3] = best_y + 3, nl++;
                    pt_emit_buf_printf(b, "<text class=\"lbl\" x=\"%.2f\" y=\"%.2f\" font-size=\"11\">", best_x,
                                       best_y);
                    pt_emit_buf_xml(b, S->label[i]);
                    pt_emit_buf_puts(b, "</text>\n");
                }
            }
            free(box);
        }
        free(dots);
    }
    pt_emit_buf_puts(b, "</svg></div>\n");
}

/* ---- the plan report ----------------------------------------------------------- */

static double gib(int64_t x) { return (double)x / PT_GiB; }

/* Text for a <pre>: line by line, each escaped, the line breaks kept. */
static void pre_text(pt_emit_buf *b, const char *s)
{
    while (*s) {
        size_t k = strcspn(s, "\n");
        char *line = malloc(k + 1);
        if (!line) {
            b->oom = 1;
            return;
        }
        memcpy(line, s, k);
        line[k] = '\0';
        pt_emit_buf_xml(b, line);
        free(line);
        s += k;
        if (*s == '\n') {
            pt_emit_buf_puts(b, "\n");
            s++;
        }
    }
}

static void text_cell(pt_emit_buf *b, const char *cls, const char *s)
{
    pt_emit_buf_printf(b, "<td%s>", cls);
    pt_emit_buf_xml(b, s);
    pt_emit_buf_puts(b, "</td>");
}

static void plan_question(pt_emit_buf *b, const pt_model *m, const pt_cluster *c, const pt_job *job,
                          const pt_search_result *r)
{
    char v[400];
    pt_html_section(b, "question", "The question");
    pt_emit_buf_puts(b, "<dl class=\"q\">\n");
    pt_html_kv(b, "model", m->name);
    snprintf(v, sizeof v, "%.2f billion (%.2f billion active per token)", (double)pt_model_params(m) / 1e9,
             (double)pt_model_active_params(m) / 1e9);
    pt_html_kv(b, "parameters", v);
    pt_html_kv(b, "cluster", c->name);
    snprintf(v, sizeof v, "%lld x %s, %.0f GiB each", (long long)c->devices, c->dev.name, c->dev.memory_GiB);
    pt_html_kv(b, "devices", v);
    snprintf(v, sizeof v, "%lld tokens", (long long)job->seq_len);
    pt_html_kv(b, "sequence length", v);
    if (pt_job_doc_len(job)) {
        snprintf(v, sizeof v, "%lld tokens, attention within each", (long long)pt_job_doc_len(job));
        pt_html_kv(b, "packed documents", v);
    }
    if (r->n > 0) {
        snprintf(v, sizeof v, "%lld sequences (%lld tokens) per step", (long long)r->plans[0].st.gbs,
                 (long long)r->plans[0].st.gbs * (long long)job->seq_len);
        pt_html_kv(b, "global batch", v);
    }
    pt_html_kv(b, "data type", pt_dtype_name(job->dtype));
    {
        char comm[80];
        if (pt_emit_comm_opts(job, comm, sizeof comm)[0]) pt_html_kv(b, "communication", comm + 2); /* past ", " */
    }
    pt_html_kv(b, "engine", pt_engine_label(job->engine));
    if (c->price_per_device_hour > 0) {
        snprintf(v, sizeof v, "$%.2f per device-hour, $%.2f per hour for the job", c->price_per_device_hour,
                 c->price_per_device_hour * (double)c->devices);
        pt_html_kv(b, "price", v);
    }
    snprintf(v, sizeof v, "%lld strategies: %lld fit, %lld ruled out by memory before pricing",
             (long long)r->evaluated, (long long)r->fitting, (long long)r->pruned);
    pt_html_kv(b, "searched", v);
    pt_emit_buf_puts(b, "</dl>\n");
    pt_html_section_end(b);
}

static void plan_table(pt_emit_buf *b, const pt_cluster *c, const pt_search_result *r, const pt_plan_check *chk)
{
    pt_html_section(b, "plans", "Top plans");
    pt_emit_buf_puts(b, "<div class=\"wrap\"><table>\n<tr><th>#</th><th class=\"l\">strategy</th>"
                        "<th>step s</th><th>tokens/s</th><th>TFLOP/s per GPU</th><th>MFU</th>"
                        "<th>memory GiB</th><th>step from</th>");
    if (c->price_per_device_hour > 0) pt_emit_buf_puts(b, "<th>$ per 1M tokens</th>");
    pt_emit_buf_puts(b, "</tr>\n");
    for (int i = 0; i < r->n; i++) {
        const pt_plan *p = &r->plans[i];
        char s[256];
        pt_strategy_format(&p->st, s, sizeof s);
        pt_emit_buf_printf(b, "<tr><td>%d</td>", i + 1);
        text_cell(b, " class=\"l\"", s);
        pt_emit_buf_printf(b, "<td>%.3f</td><td>%.0f</td><td>%.1f</td><td>%.1f%%</td><td>%.1f</td><td>%s</td>",
                           p->cost.step_time_s, p->cost.tokens_per_s, p->cost.model_tflops_per_gpu,
                           100.0 * p->cost.mfu,
                           gib(chk[i].simulated ? chk[i].simulated_peak_bytes : p->cost.mem.total),
                           chk[i].independent ? "simulated" : "analytic");
        if (c->price_per_device_hour > 0)
            pt_emit_buf_printf(b, "<td>%.3f</td>", p->cost.tokens_per_s > 0
                                                       ? c->price_per_device_hour * (double)c->devices / 3600.0 *
                                                             1e6 / p->cost.tokens_per_s
                                                       : 0.0);
        pt_emit_buf_puts(b, "</tr>\n");
    }
    pt_emit_buf_puts(b, "</table></div>\n<p class=\"note\">step s, tokens/s, TFLOP/s, MFU and memory: simulated "
                        "event by event where the simulator checks the pipeline (pp &gt; 1, not zb-v or "
                        "dualpipe), else the analytic model's. MFU counts model FLOPs without "
                        "recomputation.</p>\n");
    {
        char note[600];
        if (pt_emit_offload_note(r, note, sizeof note)[0]) {
            pt_emit_buf_puts(b, "<p class=\"note\">Note: ");
            pt_emit_buf_xml(b, note);
            pt_emit_buf_puts(b, "</p>\n");
        }
    }
    pt_html_section_end(b);
}

static const char *const time_parts[] = {"compute", "tp comm", "cp comm",  "ep comm", "pp comm",
                                         "dp comm", "bubble",  "optimizer", "offload"};
static const char *const mem_parts[] = {"weights", "gradients", "optimizer states", "activations", "other"};

/* Row labels "#1".. and tooltips (strategies) of r's plans, in one block. */
typedef struct rows_text {
    char (*label)[16];
    char (*tip)[256];
    const char **lp, **tp;
} rows_text;

static int rows_init(rows_text *t, const pt_search_result *r)
{
    int n = r->n > 0 ? r->n : 1;
    t->label = calloc((size_t)n, sizeof *t->label);
    t->tip = calloc((size_t)n, sizeof *t->tip);
    t->lp = calloc((size_t)n, sizeof *t->lp);
    t->tp = calloc((size_t)n, sizeof *t->tp);
    if (!t->label || !t->tip || !t->lp || !t->tp) return 0;
    for (int i = 0; i < r->n; i++) {
        snprintf(t->label[i], sizeof t->label[i], "#%d", i + 1);
        pt_strategy_format(&r->plans[i].st, t->tip[i], sizeof t->tip[i]);
        t->lp[i] = t->label[i];
        t->tp[i] = t->tip[i];
    }
    return 1;
}

static void rows_free(rows_text *t)
{
    free(t->label), free(t->tip), free(t->lp), free(t->tp);
}

static void plan_bars(pt_emit_buf *b, const pt_search_result *r, const pt_plan *best)
{
    rows_text rt;
    double *v = calloc((size_t)(r->n > 0 ? r->n : 1) * 9, sizeof *v);
    char mark[64];
    if (!v || !rows_init(&rt, r)) {
        free(v);
        if (v) rows_free(&rt);
        b->oom = 1;
        return;
    }
    pt_html_section(b, "memory", "Memory per device");
    for (int i = 0; i < r->n; i++) {
        const pt_memory *mm = &r->plans[i].cost.mem;
        v[i * 5 + 0] = gib(mm->weights), v[i * 5 + 1] = gib(mm->gradients), v[i * 5 + 2] = gib(mm->optimizer);
        v[i * 5 + 3] = gib(mm->activations), v[i * 5 + 4] = gib(mm->other);
    }
    snprintf(mark, sizeof mark, "device %.0f GiB", gib(best->cost.device_memory_bytes));
    {
        pt_html_bars c = {"memory of the busiest device per plan (analytic model)", "GiB", r->n, 5, rt.lp, rt.tp,
                          mem_parts, v, gib(best->cost.device_memory_bytes), mark};
        pt_html_hbars(b, &c);
    }
    pt_emit_buf_puts(b, "<p class=\"note\">Memory over time per pipeline stage, as the simulator replays "
                        "the step, is under the timeline.</p>\n");
    pt_html_section_end(b);

    pt_html_section(b, "time", "Where the time goes");
    for (int i = 0; i < r->n; i++) {
        const pt_times *t = &r->plans[i].cost.time;
        double x[9] = {t->compute, t->tp_comm, t->cp_comm, t->ep_comm, t->pp_comm,
                       t->dp_comm, t->bubble,  t->optimizer, t->offload};
        memcpy(v + i * 9, x, sizeof x);
    }
    {
        pt_html_bars c = {"one step of each plan, by part (analytic model)", "seconds per step", r->n, 9, rt.lp,
                          rt.tp, time_parts, v, 0, NULL};
        pt_html_hbars(b, &c);
    }
    pt_emit_buf_puts(b, "<p class=\"note\">The parts add up to the analytic step time; communication counts "
                        "only where it is not overlapped with compute.</p>\n");
    pt_html_section_end(b);
    rows_free(&rt);
    free(v);
}

pt_status pt_emit_html_plan(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_search_result *r,
                            const pt_plan_check *checks, const char *explanation, const pt_sim_result *sim,
                            const char *why_no_sim, char **out, pt_diag *d)
{
    pt_emit_buf b = {0};
    char title[512], sub[256];
    assert(m && c && job && r && checks && out && r->n > 0);
    *out = NULL;
    snprintf(title, sizeof title, "%s on %lld x %s (%s)", m->name, (long long)c->devices, c->dev.name, c->name);
    snprintf(sub, sizeof sub, "partita plan report: the best %d plan%s of %lld strategies searched", r->n,
             r->n == 1 ? "" : "s", (long long)r->evaluated);
    pt_html_begin(&b, title, sub);
    pt_emit_buf_puts(&b, "<nav><a href=\"#question\">question</a><a href=\"#plans\">top plans</a>"
                         "<a href=\"#explanation\">explanation</a><a href=\"#timeline\">timeline</a>"
                         "<a href=\"#memory\">memory</a><a href=\"#time\">where the time goes</a></nav>\n");
    plan_question(&b, m, c, job, r);
    plan_table(&b, c, r, checks);
    pt_html_section(&b, "explanation", "Why #1 wins");
    if (explanation) {
        const char *e = explanation;
        while (*e == '\n') e++;
        if (!strncmp(e, "why #1 wins\n", 12)) e += 12;
        pt_emit_buf_puts(&b, "<pre>");
        pre_text(&b, e);
        pt_emit_buf_puts(&b, "</pre>\n");
    }
    pt_html_section_end(&b);
    pt_html_section(&b, "timeline", "Simulated step: timeline and memory over time per stage");
    if (sim) {
        char *svg = NULL;
        pt_status s = pt_emit_svg(sim, m, &r->plans[0].st, &svg, d);
        if (s != PT_OK) {
            free(b.p);
            return s;
        }
        pt_emit_buf_puts(&b, "<p class=\"note\">Plan #1 replayed event by event: one row per pipeline rank "
                             "(forward, backward, weight-gradient and send spans), time in seconds; below it, "
                             "each stage's memory in GiB over the step.</p>\n");
        pt_html_svg_inline(&b, svg);
        free(svg);
    } else {
        pt_emit_buf_puts(&b, "<p>Not drawn: ");
        pt_emit_buf_xml(&b, why_no_sim ? why_no_sim : "the step was not simulated");
        pt_emit_buf_puts(&b, "</p>\n");
    }
    pt_html_section_end(&b);
    plan_bars(&b, r, &r->plans[0]);
    pt_html_end(&b);
    return pt_emit_buf_finish(&b, out, d);
}

/* ---- the scale report -------------------------------------------------------- */

static void hms(double s, char *buf, size_t n)
{
    if (s >= 86400) snprintf(buf, n, "%.1f d", s / 86400);
    else if (s >= 3600) snprintf(buf, n, "%.1f h", s / 3600);
    else snprintf(buf, n, "%.1f min", s / 60);
}

pt_status pt_emit_html_scale(const pt_graph *g, const pt_cluster *c, const pt_statef *se, const char *se_src,
                             const pt_scale_result *r, char **out, pt_diag *d)
{
    pt_emit_buf b = {0};
    char title[512], v[400], *svg = NULL;
    pt_status s;
    assert(g && c && se && r && out && r->n > 0);
    *out = NULL;
    snprintf(title, sizeof title, "%s on %s: time to train against GPUs", g->name, c->name);
    pt_html_begin(&b, title, "partita scale report: data parallel alone against hybrid data x model parallel");
    pt_emit_buf_puts(&b, "<nav><a href=\"#question\">question</a><a href=\"#curves\">scaling curves</a>"
                         "<a href=\"#table\">device counts</a><a href=\"#speedup\">model-parallel speed-up</a></nav>\n");
    pt_html_section(&b, "question", "The question");
    pt_emit_buf_puts(&b, "<dl class=\"q\">\n");
    pt_html_kv(&b, "model (layer graph)", g->name);
    pt_html_kv(&b, "cluster", c->name);
    pt_html_kv(&b, "device", c->dev.name);
    snprintf(v, sizeof v, "%lld to %lld, powers of two", (long long)r->pt[0].gpus, (long long)r->pt[r->n - 1].gpus);
    pt_html_kv(&b, "GPUs", v);
    snprintf(v, sizeof v, "epochs(B) = %.3g x (1 + B / %.0f)", se->e_min, se->b_noise);
    pt_html_kv(&b, "statistical efficiency", v);
    pt_html_kv(&b, "its source", se_src);
    pt_emit_buf_puts(&b, "</dl>\n");
    pt_html_section_end(&b);

    pt_html_section(&b, "curves", "Scaling curves");
    s = pt_emit_scale_svg(g, c, r, &svg, d);
    if (s == PT_OK) {
        pt_html_svg_inline(&b, svg);
        free(svg);
    } else if (s == PT_EINPUT) {
        pt_emit_buf_puts(&b, "<p>Not drawn: no configuration fits at any device count.</p>\n");
    } else {
        free(b.p);
        return s;
    }
    if (r->crossover_gpus)
        pt_emit_buf_printf(&b, "<p>Crossover: hybrid first wins at %lld GPUs.</p>\n", (long long)r->crossover_gpus);
    else
        pt_emit_buf_printf(&b, "<p>Crossover: none up to %lld GPUs.</p>\n", (long long)r->pt[r->n - 1].gpus);
    if (r->best_dp_gpus && r->best_hybrid_gpus) {
        char a[32], h[32];
        hms(r->best_dp_s, a, sizeof a), hms(r->best_hybrid_s, h, sizeof h);
        pt_emit_buf_printf(&b, "<p>Best data parallel: %s at %lld GPUs; best hybrid: %s at %lld GPUs; hybrid gain "
                               "at scale %.1f%%.</p>\n", a, (long long)r->best_dp_gpus, h,
                           (long long)r->best_hybrid_gpus, 100.0 * r->gain);
    }
    pt_html_section_end(&b);

    pt_html_section(&b, "table", "Device counts");
    pt_emit_buf_puts(&b, "<div class=\"wrap\"><table>\n<tr><th>GPUs</th><th>DP time</th><th>DP batch</th>"
                         "<th>DP epochs</th><th>hybrid time</th><th>hybrid batch</th><th>hybrid epochs</th>"
                         "<th class=\"l\">hybrid strategy</th></tr>\n");
    for (int i = 0; i < r->n; i++) {
        const pt_scale_point *p = &r->pt[i];
        char a[32] = "no fit", h[32] = "-", st[160] = "";
        if (p->dp.ok) hms(p->dp.time_s, a, sizeof a);
        if (p->hybrid.ok) hms(p->hybrid.time_s, h, sizeof h), pt_scale_cfg_string(&p->hybrid, st, sizeof st);
        pt_emit_buf_printf(&b, "<tr><td>%lld</td><td>%s</td><td>%.0f</td><td>%.1f</td><td>%s</td><td>%.0f</td>"
                               "<td>%.1f</td>", (long long)p->gpus, a, p->dp.global_batch, p->dp.epochs, h,
                           p->hybrid.global_batch, p->hybrid.epochs);
        text_cell(&b, " class=\"l\"", st);
        pt_emit_buf_puts(&b, "</tr>\n");
    }
    pt_emit_buf_puts(&b, "</table></div>\n");
    pt_html_section_end(&b);

    pt_html_section(&b, "speedup", "Model-parallel speed-up of one worker over one device");
    if (r->nmp == 0) pt_emit_buf_puts(&b, "<p>None computed.</p>\n");
    else {
        pt_emit_buf_puts(&b, "<div class=\"wrap\"><table>\n<tr><th>devices</th><th>batch</th><th>micro-batches</th>"
                             "<th>1 device ms</th><th>worker ms</th><th>speed-up</th><th class=\"l\">placement</th></tr>\n");
        for (int i = 0; i < r->nmp; i++) {
            const pt_scale_mp *mp = &r->mp[i];
            snprintf(v, sizeof v, "%s, %s", pt_place_method_name(mp->method),
                     mp->optimal ? "proven optimal" : "not proven optimal");
            pt_emit_buf_printf(&b, "<tr><td>%d</td><td>%.0f</td><td>%d</td><td>%.1f%s</td><td>%.1f</td><td>%.2fx</td>",
                               mp->m, mp->batch, mp->k, mp->single_s * 1e3, mp->single_fits ? "" : "*",
                               mp->step_s * 1e3, mp->speedup);
            text_cell(&b, " class=\"l\"", v);
            pt_emit_buf_puts(&b, "</tr>\n");
        }
        pt_emit_buf_puts(&b, "</table></div>\n");
        for (int i = 0; i < r->nmp; i++)
            if (!r->mp[i].single_fits) {
                pt_emit_buf_puts(&b, "<p class=\"note\">* one device cannot hold this batch; its time is what it "
                                     "would take.</p>\n");
                break;
            }
    }
    pt_html_section_end(&b);
    pt_html_end(&b);
    return pt_emit_buf_finish(&b, out, d);
}

/* ---- serve ---------------------------------------------------------------- */

pt_status pt_emit_html_serve(const pt_model *m, const pt_cluster *c, const pt_serve_opts *o,
                             const pt_serve_result *r, const pt_html_serve_curve *cv, char **out, pt_diag *d)
{
    pt_emit_buf b = {0};
    char title[512], v[400], tp[32], up[32];
    assert(m && c && o && r && cv && out);
    *out = NULL;
    snprintf(title, sizeof title, "serving %s on %s", m->name, c->name);
    pt_html_begin(&b, title, "partita serve report: deployments ranked by output tokens/s per GPU");
    pt_emit_buf_puts(&b, "<nav><a href=\"#question\">question</a><a href=\"#plans\">top plans</a>"
                         "<a href=\"#load\">latency against load</a></nav>\n");
    pt_html_section(&b, "question", "The question");
    pt_emit_buf_puts(&b, "<dl class=\"q\">\n");
    pt_html_kv(&b, "model", m->name);
    pt_html_kv(&b, "cluster", c->name);
    snprintf(v, sizeof v, "%lld x %s", (long long)c->devices, c->dev.name);
    pt_html_kv(&b, "GPUs", v);
    snprintf(v, sizeof v, "%g prompt tokens in, %g output tokens out per request", o->isl, o->osl);
    pt_html_kv(&b, "isl / osl", v);
    if (o->mode == PT_SERVE_RATE) snprintf(v, sizeof v, "%g requests/s (Poisson arrivals)", o->rate);
    else if (o->mode == PT_SERVE_CONCURRENCY)
        snprintf(v, sizeof v, "%lld requests in flight (closed loop)", (long long)o->concurrency);
    else snprintf(v, sizeof v, "offline (every request queued at once)");
    pt_html_kv(&b, "load", v);
    if (o->ttft_ms > 0 || o->tpot_ms > 0) {
        size_t k = (size_t)snprintf(v, sizeof v, "p%d", o->percentile);
        if (o->ttft_ms > 0) k += (size_t)snprintf(v + k, sizeof v - k, " TTFT <= %g ms", o->ttft_ms);
        if (o->tpot_ms > 0 && k < sizeof v)
            snprintf(v + k, sizeof v - k, "%s TPOT <= %g ms", o->ttft_ms > 0 ? "," : "", o->tpot_ms);
    } else {
        snprintf(v, sizeof v, "none");
    }
    pt_html_kv(&b, "objectives", v);
    snprintf(v, sizeof v, "%s weights, %s KV cache, engine %s", pt_infer_qname(o->wq), pt_infer_qname(o->kvq),
             o->engine);
    pt_html_kv(&b, "precision, engine", v);
    snprintf(v, sizeof v, "%lld candidates priced, %lld fit", (long long)r->evaluated, (long long)r->fitting);
    pt_html_kv(&b, "searched", v);
    pt_emit_buf_puts(&b, "</dl>\n");
    pt_html_section_end(&b);

    pt_html_section(&b, "plans", "Top plans");
    snprintf(tp, sizeof tp, "TTFT p%d", o->percentile);
    snprintf(up, sizeof up, "TPOT p%d", o->percentile);
    pt_emit_buf_printf(&b, "<div class=\"wrap\"><table>\n<tr><th>rank</th><th class=\"l\">strategy</th>"
                           "<th>tok/s</th><th>tok/s/g</th><th>TTFT ms</th><th>%s ms</th><th>TPOT ms</th>"
                           "<th>%s ms</th><th>SLO</th><th>KV GiB</th></tr>\n", tp, up);
    for (int i = 0; i < r->n; i++) {
        const pt_serve_plan *p = &r->plans[i];
        pt_emit_buf_printf(&b, "<tr><td>%d</td>", i + 1);
        text_cell(&b, " class=\"l\"", p->strategy);
        pt_emit_buf_printf(&b, "<td>%.0f</td><td>%.0f</td><td>%.1f</td><td>%.1f</td><td>%.2f</td><td>%.2f</td>"
                               "<td>%s</td><td>%.1f</td></tr>\n", p->tokens_per_s, p->tokens_per_s_per_gpu,
                           p->ttft_ms, p->ttft_ms_p, p->tpot_ms, p->tpot_ms_p, p->meets_slo ? "yes" : "no",
                           p->mem.kv_budget_bytes / PT_GiB);
    }
    pt_emit_buf_puts(&b, "</table></div>\n");
    for (int i = 0; i < r->n; i++)
        if (r->plans[i].goodput_rps > 0) {
            pt_emit_buf_printf(&b, "<p>Goodput (90%% of requests meet both objectives) of plan %d: %.2f "
                                   "requests/s.</p>\n", i + 1, r->plans[i].goodput_rps);
            break;
        }
    if (!r->any_meets) {
        char line[400];
        pt_emit_serve_closest(o, &r->closest, line, sizeof line);
        pt_emit_buf_puts(&b, "<p class=\"note\">");
        pt_emit_buf_xml(&b, line);
        pt_emit_buf_puts(&b, ".</p>\n");
    }
    pt_html_section_end(&b);

    pt_html_section(&b, "load", "TTFT and TPOT against load");
    if (cv->plan < 0 || cv->n < 2) {
        pt_emit_buf_puts(&b, "<p>Not drawn: ");
        pt_emit_buf_xml(&b, cv->why_none);
        pt_emit_buf_puts(&b, ".</p>\n");
    } else {
        const pt_serve_plan *p = &r->plans[cv->plan];
        char tips[2][PT_HTML_SERVE_POINTS][160], nm[2][48], on[2][48], xl[64], yl[2][48], ct[2][120];
        const char *tipp[2][PT_HTML_SERVE_POINTS];
        double ox[2], oy[2][2];
        pt_emit_buf_printf(&b, "<p>Plan %d (", cv->plan + 1);
        pt_emit_buf_xml(&b, p->strategy);
        pt_emit_buf_printf(&b, ") under Poisson arrivals at %d rates, each simulated request by request "
                               "(continuous batching, chunked prefill); it finishes about %.3g requests/s "
                               "offline, so the last rates are past saturation and the queue grows.</p>\n",
                           cv->n, cv->capacity_rps);
        if (cv->plan > 0)
            pt_emit_buf_puts(&b, "<p class=\"note\">Plan 1 disaggregates prefill and decode and is priced "
                                 "analytically; the curve is the first colocated plan's.</p>\n");
        snprintf(xl, sizeof xl, "requests/s (all %lld replicas)", (long long)p->replicas);
        ox[0] = cv->rate[0], ox[1] = cv->rate[cv->n - 1];
        for (int k = 0; k < 2; k++) {
            double obj = k == 0 ? o->ttft_ms : o->tpot_ms;
            pt_html_series s[2];
            int ns = 1;
            snprintf(nm[k], sizeof nm[k], "%s p%d, plan %d", k == 0 ? "TTFT" : "TPOT", o->percentile,
                     cv->plan + 1);
            snprintf(yl[k], sizeof yl[k], "%s p%d (ms)", k == 0 ? "TTFT" : "TPOT", o->percentile);
            snprintf(ct[k], sizeof ct[k], "%s at p%d against the request rate", k == 0 ? "time to first token"
                     : "time per output token", o->percentile);
            for (int i = 0; i < cv->n; i++) {
                snprintf(tips[k][i], sizeof tips[k][i], "%.3g requests/s: %s p%d %.3g ms", cv->rate[i],
                         k == 0 ? "TTFT" : "TPOT", o->percentile, k == 0 ? cv->ttft_ms[i] : cv->tpot_ms[i]);
                tipp[k][i] = tips[k][i];
            }
            s[0] = (pt_html_series){nm[k], cv->n, cv->rate, k == 0 ? cv->ttft_ms : cv->tpot_ms, NULL, tipp[k], 1, 1};
            if (obj > 0) {
                oy[k][0] = oy[k][1] = obj;
                snprintf(on[k], sizeof on[k], "objective %g ms", obj);
                s[1] = (pt_html_series){on[k], 2, ox, oy[k], NULL, NULL, 1, 0};
                ns = 2;
            }
            {
                pt_html_xy_chart ch = {ct[k], xl, yl[k], 0, k == 0, ns, s};
                pt_html_xy(&b, &ch);
            }
        }
        pt_emit_buf_puts(&b, "<div class=\"wrap\"><table>\n<tr><th>requests/s</th>");
        pt_emit_buf_printf(&b, "<th>%s ms</th><th>%s ms</th></tr>\n", tp, up);
        for (int i = 0; i < cv->n; i++)
            pt_emit_buf_printf(&b, "<tr><td>%.3g</td><td>%.1f</td><td>%.2f</td></tr>\n", cv->rate[i],
                               cv->ttft_ms[i], cv->tpot_ms[i]);
        pt_emit_buf_puts(&b, "</table></div>\n");
    }
    pt_html_section_end(&b);
    pt_html_end(&b);
    return pt_emit_buf_finish(&b, out, d);
}
