/*
 * timeline.h -- a simulated training step (src/sim) drawn two ways: as a
 * Chrome Trace Event Format JSON that Perfetto (ui.perfetto.dev) and
 * chrome://tracing open (trace.c), and as a self-contained SVG picture of the
 * pipeline with a memory chart under it (svg.c).
 *
 * What they do: read a pt_sim_result and write text; they never run the
 * simulator and never change the result.  Both are deterministic: the same
 * result gives the same bytes (numbers are rounded to fixed quanta and
 * printed with fixed formats), so the outputs can be golden files.
 * What they do not: price anything, or know about devices (memory is drawn
 * against the largest peak, not against a device's capacity).
 *
 * Layout shared by both:
 *   - one process / row per pipeline rank (stage), named after the layers it
 *     holds: "stage 0 (layers 0-11, embedding)", the rank with the last virtual
 *     stage "..., output layer"; layers are printed inclusive ([lo, hi) of
 *     pt_sim_event as "lo-(hi-1)");
 *   - two streams per rank: 0 "compute" (F, B, W) and 1 "send" (p2p), and a
 *     third, 2 "data-parallel collectives", when the step has them (src/sim
 *     replays them bucket by bucket: "all-reduce mb7 v0 L12", "reduce-scatter
 *     ...", "all-gather mb0 v0 embedding");
 *   - event names "F mb3 v1 L12-23", "B ...", "W ...", "send F mb3 v1" (a
 *     send carrying mb3's activations out of virtual stage 1) or "send B mb3
 *     v1" (its input gradients).  pt_sim_event does not say which a send
 *     carries; it is inferred: B if that micro-batch's B on that virtual stage
 *     had ended when the send starts, else F if its F had, else unknown
 *     ("send mb3 v1");
 *   - when tail_s > 0 the optimizer step, offload traffic and tied
 *     embeddings' all-reduce are one more span per rank after the last event
 *     ends, named "tail (DP comm, optimizer)" (the data-parallel collectives
 *     are events of their own since src/sim replays them).
 * Format reference: docs/reference/engines-and-formats.md section g.
 */
#ifndef PT_TIMELINE_H
#define PT_TIMELINE_H

#include <stddef.h>
#include "partita.h"
#include "sim/sim.h"
#include "emit/emit.h"

/* The step as Chrome trace JSON: {"displayTimeUnit", "traceEvents",
 * "otherData"}, one event per line.  ts/dur in microseconds rounded to the
 * nanosecond; memory as "C" counter events named "memory" with args {"GiB": x}
 * per rank.  m and st may be NULL (otherData then says "").  On PT_OK *out is a
 * malloc'd NUL-terminated text the caller frees; PT_EINPUT (d names the field)
 * when r is malformed (an event's stage, stream, kind or virtual stage out of
 * range, end before start); PT_ENOMEM. */
pt_status pt_emit_trace(const pt_sim_result *r, const pt_model *m, const pt_strategy *st,
                        char **out, pt_diag *d);

/* The step as an SVG document (starts with "<svg", no external resources):
 * title with the model, strategy and step time; one row per rank with one
 * <rect> per event coloured by kind, each with a <title> tooltip; a legend; a
 * time axis in seconds; under it memory over time per rank (step plot, GiB,
 * scaled to the largest peak) and each rank's peak.  m and st may be NULL.
 * Ownership and errors as pt_emit_trace. */
pt_status pt_emit_svg(const pt_sim_result *r, const pt_model *m, const pt_strategy *st,
                      char **out, pt_diag *d);

/* ---- shared by trace.c and svg.c (not for other callers) -------------------- */

/* What both writers derive from a result once. */
typedef struct pt_emit_tl {
    int nv;               /* virtual stages, pp * chunks, e.g. 16               */
    int *v_lo, *v_hi;     /* nv: layers [lo, hi) of virtual stage v, from its
                             first compute event (0, 0 when none)               */
    int *stage_off;       /* pp + 1: rank s runs the virtual stages             */
    int *stage_v;         /*   stage_v[stage_off[s] .. stage_off[s+1]), sorted;
                             a set, since DualPipe-V places a virtual stage on
                             different ranks for different micro-batches       */
    int v_last;           /* the output layer's virtual stage: the largest one a
                             compute event names (nv - 1 when none does)        */
    pt_op_kind *send_of;  /* nevents: for a send, PT_OP_F or PT_OP_B (what it
                             carries) or PT_OP_SEND when unknown                */
    double pipe_end_s;    /* last event end; pipeline_s when there are none     */
    double span_s;        /* time drawn: max(step_time_s, pipe_end_s + tail_s,
                             last memory sample); > 0                           */
} pt_emit_tl;

/* Checks r and fills tl (free with pt_emit_tl_free, also after a failure). */
pt_status pt_emit_tl_init(pt_emit_tl *tl, const pt_sim_result *r, pt_diag *d);
void pt_emit_tl_free(pt_emit_tl *tl);
/* "stage 0 (layers 0-11, embedding)", or "stage 3" when no event names it. */
void pt_emit_tl_stage_label(const pt_emit_tl *tl, int stage, char *buf, size_t n);
/* "F mb3 v1 L12-23", "send B mb3 v1", ... for event i of r. */
void pt_emit_tl_event_name(const pt_emit_tl *tl, const pt_sim_result *r, int i, char *buf,
                           size_t n);
/* A round tick step (1, 2 or 5 times a power of ten) giving about `target`
 * ticks over range, and the decimals its labels need (also the reports'
 * charts, html.c). */
double pt_emit_nice_step(double range, int target, int *decimals);
/* "12-23" (inclusive), "12" for one layer, "" for none. */
void pt_emit_tl_layers(int lo, int hi, char *buf, size_t n);


#endif
