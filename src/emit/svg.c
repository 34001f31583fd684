/*
 * svg.c -- a simulated step as one self-contained SVG picture (timeline.h).
 *
 * Top to bottom: a bold title (model and simulated step time), the strategy,
 * a line of totals, a legend; one row per pipeline rank with its compute
 * stream (tall bars, micro-batch number inside when there is room), its
 * send stream (a thin bar under them) and its data-parallel collectives
 * (a thinner bar over them), the tail after the pipeline drains; a
 * time axis in seconds; then memory over time per rank as step plots (the
 * samples hold "bytes from t on") in one chart scaled to the largest peak,
 * with each rank's peak written under it.
 *
 * Every <rect> in the document, so tests can count them: 1 background, one
 * legend swatch per kind (F, B, W, send, each collective kind the step has,
 * and "tail" when tail_s > 0), one per
 * event, one per rank for the tail when tail_s > 0, and 1 frame of the memory
 * chart.  Each event rect carries a <title> tooltip.  Coordinates are printed
 * with %.2f, text is XML-escaped; the same result gives the same bytes.
 * Not here: the JSON trace (trace.c).
 */
#include "emit/timeline.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

enum {
    SVG_W = 1200,         /* whole picture, px                      */
    LEFT = 130,           /* stage labels                           */
    RIGHT = 30,
    PLOT_W = SVG_W - LEFT - RIGHT,
    TOP = 80,             /* first stage row                        */
    ROW_H = 30,
    MEM_H = 120,          /* memory chart                           */
    PEAKS_PER_LINE = 6
};

/* Colours of F, B, W, send, all-reduce, reduce-scatter, all-gather
 * (pt_op_kind order), then the tail. */
static const char *const kind_fill[] = {"#4e79a7", "#f28e2b", "#59a14f", "#9c755f",
                                        "#b07aa1", "#e15759", "#76b7b2"};
static const char *const kind_legend[] = {"F forward", "B backward",
                                          "W weight gradient", "send (point-to-point)",
                                          "DP all-reduce", "DP reduce-scatter", "DP all-gather"};
static const char *const tail_fill = "#bab0ac";
/* Memory lines, one per rank, cycling (Tableau 10). */
static const char *const stage_stroke[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                           "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                                           "#9c755f", "#79706e"};

/* Appends s with XML's five special characters escaped; control characters
 * (not allowed in XML 1.0) become '?'. */
static void esc(pt_emit_buf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': pt_emit_buf_puts(b, "&amp;"); break;
        case '<': pt_emit_buf_puts(b, "&lt;"); break;
        case '>': pt_emit_buf_puts(b, "&gt;"); break;
        case '"': pt_emit_buf_puts(b, "&quot;"); break;
        case '\'': pt_emit_buf_puts(b, "&#39;"); break;
        default: pt_emit_buf_printf(b, "%c", c < 0x20 || c == 0x7f ? '?' : (char)c); break;
        }
    }
}

double pt_emit_nice_step(double range, int target, int *decimals)
{
    double raw = range / target, mag, f, step;
    int dec;
    if (!(raw > 0)) raw = 1;
    mag = pow(10.0, floor(log10(raw)));
    f = raw / mag;
    step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    dec = (int)ceil(-log10(step) - 1e-9);
    *decimals = dec < 0 ? 0 : dec > 9 ? 9 : dec;
    return step;
}

typedef struct layout {
    double span_s;
    int mem_top;      /* y of the memory chart's frame */
    int height;
    int tick_dec;
    double tick_s;
    double mem_max;   /* GiB at the chart's top */
    double peak_max;  /* largest peak, GiB */
} layout;

static double xof(const layout *L, double t)
{
    return LEFT + t / L->span_s * PLOT_W;
}

static double yof_mem(const layout *L, int64_t bytes)
{
    return L->mem_top + MEM_H - (double)bytes / PT_GiB / L->mem_max * MEM_H;
}

/* The peak of rank s: stage_peak when the result has it, else the samples'. */
static int64_t stage_peak(const pt_sim_result *r, int s)
{
    int64_t p = 0;
    if (r->stage_peak) return r->stage_peak[s];
    for (int i = 0; i < r->nmem; i++)
        if (r->mem[i].stage == s && r->mem[i].bytes > p) p = r->mem[i].bytes;
    return p;
}

static void header(pt_emit_buf *b, const pt_sim_result *r, const pt_model *m, const char *strat,
                   const layout *L)
{
    const char *name = m ? m->name : "";
    double peak = L->peak_max;
    pt_emit_buf_printf(b,
                       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                       "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
                       SVG_W, L->height, SVG_W, L->height);
    pt_emit_buf_puts(b, "<title>Partita timeline: ");
    esc(b, name);
    pt_emit_buf_puts(b, ", ");
    esc(b, strat);
    pt_emit_buf_printf(b, ", step %.3f s</title>\n", r->step_time_s);
    pt_emit_buf_printf(b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
                       SVG_W, L->height);
    pt_emit_buf_puts(b, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">");
    esc(b, name[0] ? name : "(model)");
    pt_emit_buf_printf(b, ": simulated step %.3f s</text>\n", r->step_time_s);
    pt_emit_buf_puts(b, "<text x=\"10\" y=\"40\">");
    esc(b, strat[0] ? strat : "(strategy)");
    pt_emit_buf_puts(b, "</text>\n");
    pt_emit_buf_printf(b,
                       "<text x=\"10\" y=\"56\">pipeline %.3f s + tail %.3f s; bubble %.3f s "
                       "(%.1f%% of the pipeline); %lld micro-batches, %d ranks x %d chunk%s; "
                       "peak %.2f GiB</text>\n",
                       r->pipeline_s, r->tail_s, r->bubble_s,
                       r->pipeline_s > 0 ? 100.0 * r->bubble_s / r->pipeline_s : 0.0,
                       (long long)r->microbatches, r->pp, r->chunks, r->chunks == 1 ? "" : "s", peak);
}

static void legend(pt_emit_buf *b, const pt_sim_result *r)
{
    int x = 10, has[PT_OP_ALLGATHER + 1] = {0};
    for (int i = 0; i < r->nevents; i++) has[r->events[i].kind] = 1;
    for (int k = 0; k < 8; k++) {
        const char *fill = k < 7 ? kind_fill[k] : tail_fill;
        const char *label = k < 7 ? kind_legend[k] : "tail (DP comm, optimizer)";
        if (k > PT_OP_SEND && k < 7 && !has[k]) continue; /* collectives only when the step has them */
        if (k == 7 && !(r->tail_s > 0)) break;
        pt_emit_buf_printf(b,
                           "<rect x=\"%d\" y=\"63\" width=\"12\" height=\"10\" fill=\"%s\"/>"
                           "<text x=\"%d\" y=\"72\">%s</text>\n",
                           x, fill, x + 16, label);
        x += 16 + 7 * (int)strlen(label) + 18;
    }
}

/* Vertical grid lines at the ticks, from y0 to y1. */
static void grid(pt_emit_buf *b, const layout *L, int y0, int y1)
{
    for (int k = 0; k < 1000 && k * L->tick_s <= L->span_s * (1 + 1e-9); k++)
        pt_emit_buf_printf(b, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#e6e6e6\"/>\n",
                           xof(L, k * L->tick_s), y0, xof(L, k * L->tick_s), y1);
}

static void rows(pt_emit_buf *b, const pt_sim_result *r, const pt_emit_tl *tl, const layout *L)
{
    char name[256], label[512];
    for (int s = 0; s < r->pp; s++) {
        pt_emit_tl_stage_label(tl, s, label, sizeof label);
        pt_emit_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\"><title>", LEFT - 8,
                           TOP + s * ROW_H + 16);
        esc(b, label);
        pt_emit_buf_printf(b, "</title>stage %d</text>\n", s);
    }
    for (int i = 0; i < r->nevents; i++) {
        const pt_sim_event *e = &r->events[i];
        double x0 = xof(L, e->start_s), w = xof(L, e->end_s) - x0;
        /* compute tall, sends thin under it, collectives thin over it */
        int y = TOP + e->stage * ROW_H + (e->stream == 0 ? 3 : e->stream == 1 ? 22 : 0);
        int h = e->stream == 0 ? 18 : e->stream == 1 ? 6 : 3;
        if (w < 0.25) w = 0.25;
        pt_emit_tl_event_name(tl, r, i, name, sizeof name);
        pt_emit_buf_printf(b,
                           "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
                           "stroke=\"#ffffff\" stroke-width=\"0.5\"><title>",
                           x0, y, w, h, kind_fill[e->kind]);
        esc(b, name);
        pt_emit_buf_printf(b, ", stage %d: %.3f-%.3f ms (%.3f ms)</title></rect>\n", e->stage,
                           e->start_s * 1e3, e->end_s * 1e3, (e->end_s - e->start_s) * 1e3);
        if (e->stream == 0 && w >= 14)
            pt_emit_buf_printf(b,
                               "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\" font-size=\"9\" "
                               "fill=\"#ffffff\" pointer-events=\"none\">%d</text>\n",
                               x0 + w / 2, y + 12, e->mb);
    }
    if (r->tail_s > 0) {
        double x0 = xof(L, tl->pipe_end_s), w = xof(L, tl->pipe_end_s + r->tail_s) - x0;
        if (w < 0.25) w = 0.25;
        for (int s = 0; s < r->pp; s++)
            pt_emit_buf_printf(b,
                               "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"18\" fill=\"%s\">"
                               "<title>tail (DP comm, optimizer), stage %d: %.3f-%.3f ms (%.3f ms)"
                               "</title></rect>\n",
                               x0, TOP + s * ROW_H + 3, w, tail_fill, s, tl->pipe_end_s * 1e3,
                               (tl->pipe_end_s + r->tail_s) * 1e3, r->tail_s * 1e3);
    }
}

static void axis(pt_emit_buf *b, const pt_sim_result *r, const layout *L)
{
    int y = TOP + r->pp * ROW_H + 2;
    pt_emit_buf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n",
                       LEFT, y, LEFT + PLOT_W, y);
    for (int k = 0; k < 1000 && k * L->tick_s <= L->span_s * (1 + 1e-9); k++) {
        double x = xof(L, k * L->tick_s);
        pt_emit_buf_printf(b,
                           "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#333333\"/>"
                           "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%.*f s</text>\n",
                           x, y, x, y + 4, x, y + 16, L->tick_dec, k * L->tick_s);
    }
}

static void memory(pt_emit_buf *b, const pt_sim_result *r, const layout *L)
{
    int top = L->mem_top, dec;
    double step = pt_emit_nice_step(L->mem_max, 5, &dec);
    pt_emit_buf_printf(b, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">memory per stage (GiB, "
                          "scaled to the largest peak)</text>\n",
                       LEFT, top - 8);
    pt_emit_buf_printf(b,
                       "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                       "stroke=\"#cccccc\"/>\n",
                       LEFT, top, PLOT_W, MEM_H);
    grid(b, L, top, top + MEM_H);
    for (int k = 0; k < 100 && k * step <= L->mem_max * (1 + 1e-9); k++) {
        double y = top + MEM_H - k * step / L->mem_max * MEM_H;
        pt_emit_buf_printf(b,
                           "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" stroke=\"#e6e6e6\"/>"
                           "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%.*f GiB</text>\n",
                           LEFT, y, LEFT + PLOT_W, y, LEFT - 6, y + 4, dec, k * step);
    }
    {
        double y = top + MEM_H - L->peak_max / L->mem_max * MEM_H;
        pt_emit_buf_printf(b,
                           "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" stroke=\"#333333\" "
                           "stroke-dasharray=\"4 3\"/>"
                           "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">max %.2f GiB</text>\n",
                           LEFT, y, LEFT + PLOT_W, y, LEFT + PLOT_W, y - 3, L->peak_max);
    }
    for (int s = 0; s < r->pp; s++) {
        const char *stroke = stage_stroke[s % 10];
        int64_t prev = 0;
        int n = 0;
        for (int i = 0; i < r->nmem; i++) {
            const pt_sim_mem *p = &r->mem[i];
            if (p->stage != s) continue;
            if (n == 0)
                pt_emit_buf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
                                      "points=\"%.2f,%.2f",
                                   stroke, xof(L, p->t), yof_mem(L, p->bytes));
            else
                pt_emit_buf_printf(b, " %.2f,%.2f %.2f,%.2f", xof(L, p->t), yof_mem(L, prev),
                                   xof(L, p->t), yof_mem(L, p->bytes));
            prev = p->bytes;
            n++;
        }
        if (n > 0)
            pt_emit_buf_printf(b, " %.2f,%.2f\"><title>stage %d memory</title></polyline>\n",
                               xof(L, L->span_s), yof_mem(L, prev), s);
    }
    for (int s = 0; s < r->pp; s++)
        pt_emit_buf_printf(b, "<text x=\"%d\" y=\"%d\" fill=\"%s\">stage %d peak %.2f GiB</text>\n",
                           LEFT + (s % PEAKS_PER_LINE) * (PLOT_W / PEAKS_PER_LINE),
                           top + MEM_H + 18 + (s / PEAKS_PER_LINE) * 16, stage_stroke[s % 10], s,
                           (double)stage_peak(r, s) / PT_GiB);
}

pt_status pt_emit_svg(const pt_sim_result *r, const pt_model *m, const pt_strategy *st,
                      char **out, pt_diag *d)
{
    pt_emit_tl tl;
    pt_emit_buf b = {0};
    pt_status rc;
    layout L;
    char strat[256];
    int64_t maxb = 0;
    assert(r && out);
    *out = NULL;
    if ((rc = pt_emit_tl_init(&tl, r, d)) != PT_OK) {
        pt_emit_tl_free(&tl);
        return rc;
    }
    strat[0] = '\0';
    if (st) pt_strategy_format(st, strat, sizeof strat);

    memset(&L, 0, sizeof L);
    L.span_s = tl.span_s;
    L.tick_s = pt_emit_nice_step(L.span_s, 8, &L.tick_dec);
    for (int s = 0; s < r->pp; s++)
        if (stage_peak(r, s) > maxb) maxb = stage_peak(r, s);
    for (int i = 0; i < r->nmem; i++)
        if (r->mem[i].bytes > maxb) maxb = r->mem[i].bytes;
    L.peak_max = (double)maxb / PT_GiB;
    L.mem_max = maxb > 0 ? 1.1 * L.peak_max : 1.0;
    L.mem_top = TOP + r->pp * ROW_H + 2 + 48;
    L.height = L.mem_top + MEM_H + 18 + ((r->pp - 1) / PEAKS_PER_LINE) * 16 + 12;

    header(&b, r, m, strat, &L);
    legend(&b, r);
    grid(&b, &L, TOP, TOP + r->pp * ROW_H + 2);
    rows(&b, r, &tl, &L);
    axis(&b, r, &L);
    memory(&b, r, &L);
    pt_emit_buf_puts(&b, "</svg>\n");
    pt_emit_tl_free(&tl);
    return pt_emit_buf_finish(&b, out, d);
}
