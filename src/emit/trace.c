/*
 * trace.c -- a simulated step as Chrome Trace Event Format JSON (Perfetto,
 * chrome://tracing), and the helpers svg.c shares (timeline.h).
 *
 * Mapping (docs/reference/engines-and-formats.md section g): pid = the
 * pipeline rank, tid = the stream (0 compute, 1 send, 2 data-parallel
 * collectives, named only when the step has them); "M" metadata events
 * name them (process_name, process_sort_index, thread_name,
 * thread_sort_index); one "X" complete event per pt_sim_event with ts and dur
 * in microseconds; "C" counter events "memory" {"GiB": x} per rank from the
 * memory samples.  Times are rounded to the nanosecond (ts and dur both from
 * the rounded ends, so ts + dur is the next event's ts exactly) and printed
 * with 15 significant digits; GiB to 1e-6.
 * Not here: the picture (svg.c).
 */
#include "emit/timeline.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <assert.h>
#include <jansson.h>

#include "base/base.h"


/* ---- what both writers derive --------------------------------------------------- */

static pt_status bad(pt_diag *d, const char *field, const char *value, const char *what)
{
    return pt_diag_set(d, NULL, field, value, "%s: %s is %s", field, value, what);
}

static pt_status bad_int(pt_diag *d, const char *field, long long v, const char *what)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return bad(d, field, buf, what);
}

static pt_status bad_real(pt_diag *d, const char *field, double v, const char *what)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%.9g", v);
    return bad(d, field, buf, what);
}

static pt_status nomem(pt_diag *d)
{
    pt_diag_set(d, NULL, NULL, NULL, "out of memory while writing the output");
    return PT_ENOMEM;
}

/* The end of a (virtual stage, micro-batch)'s F or B, for inferring sends. */
typedef struct op_end {
    int vstage, mb, kind;
    double end_s;
} op_end;

static int op_end_cmp(const void *a, const void *b)
{
    const op_end *x = a, *y = b;
    if (x->vstage != y->vstage) return x->vstage < y->vstage ? -1 : 1;
    if (x->mb != y->mb) return x->mb < y->mb ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return (x->end_s > y->end_s) - (x->end_s < y->end_s);
}

/* The end of (vstage, mb, kind) in the sorted ends, or -1 if there is none. */
static double find_end(const op_end *ends, size_t n, int vstage, int mb, int kind)
{
    size_t lo = 0, hi = n;
    op_end key;
    key.vstage = vstage;
    key.mb = mb;
    key.kind = kind;
    key.end_s = -HUGE_VAL;
    while (lo < hi) { /* first element >= key */
        size_t mid = lo + (hi - lo) / 2;
        if (op_end_cmp(&ends[mid], &key) < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo < n && ends[lo].vstage == vstage && ends[lo].mb == mb && ends[lo].kind == kind)
        return ends[lo].end_s;
    return -1.0;
}

static pt_status check_event(const pt_sim_result *r, int nv, int i, pt_diag *d)
{
    const pt_sim_event *e = &r->events[i];
    char f[64];
    if (e->stage < 0 || e->stage >= r->pp) {
        snprintf(f, sizeof f, "events[%d].stage", i);
        return bad_int(d, f, e->stage, "not a rank of the pipeline");
    }
    if (e->stream < 0 || e->stream > 2) {
        snprintf(f, sizeof f, "events[%d].stream", i);
        return bad_int(d, f, e->stream, "not 0 (compute), 1 (send) or 2 (data-parallel collectives)");
    }
    if ((int)e->kind < (int)PT_OP_F || (int)e->kind > (int)PT_OP_ALLGATHER) {
        snprintf(f, sizeof f, "events[%d].kind", i);
        return bad_int(d, f, (long long)e->kind, "not an operation kind");
    }
    if (e->vstage < 0 || e->vstage >= nv) {
        snprintf(f, sizeof f, "events[%d].vstage", i);
        return bad_int(d, f, e->vstage, "not a virtual stage");
    }
    if (e->mb < 0) {
        snprintf(f, sizeof f, "events[%d].mb", i);
        return bad_int(d, f, e->mb, "negative");
    }
    if (!(e->start_s >= 0) || !isfinite(e->start_s)) {
        snprintf(f, sizeof f, "events[%d].start_s", i);
        return bad_real(d, f, e->start_s, "not a time >= 0");
    }
    if (!(e->end_s >= e->start_s) || !isfinite(e->end_s)) {
        snprintf(f, sizeof f, "events[%d].end_s", i);
        return bad_real(d, f, e->end_s, "before the start");
    }
    return PT_OK;
}

void pt_emit_tl_free(pt_emit_tl *tl)
{
    free(tl->v_lo);
    free(tl->v_hi);
    free(tl->stage_off);
    free(tl->stage_v);
    free(tl->send_of);
    memset(tl, 0, sizeof *tl);
}

static int pair_cmp(const void *a, const void *b)
{
    const int *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Which virtual stages each rank runs: the distinct (stage, vstage) pairs of
 * the compute events, sorted. */
static pt_status stage_sets(pt_emit_tl *tl, const pt_sim_result *r, pt_diag *d)
{
    size_t n = 0, u = 0;
    int *pairs = malloc(2 * (size_t)(r->nevents > 0 ? r->nevents : 1) * sizeof *pairs);
    tl->stage_off = calloc((size_t)r->pp + 1, sizeof *tl->stage_off);
    if (!pairs || !tl->stage_off) {
        free(pairs);
        return nomem(d);
    }
    for (int i = 0; i < r->nevents; i++) {
        if (r->events[i].kind > PT_OP_W) continue; /* sends and collectives */
        pairs[2 * n] = r->events[i].stage;
        pairs[2 * n + 1] = r->events[i].vstage;
        n++;
    }
    qsort(pairs, n, 2 * sizeof *pairs, pair_cmp);
    for (size_t i = 0; i < n; i++) {
        if (u > 0 && pair_cmp(&pairs[2 * (u - 1)], &pairs[2 * i]) == 0) continue;
        pairs[2 * u] = pairs[2 * i];
        pairs[2 * u + 1] = pairs[2 * i + 1];
        u++;
    }
    tl->stage_v = malloc((u > 0 ? u : 1) * sizeof *tl->stage_v);
    if (!tl->stage_v) {
        free(pairs);
        return nomem(d);
    }
    for (size_t i = 0; i < u; i++) {
        tl->stage_v[i] = pairs[2 * i + 1];
        tl->stage_off[pairs[2 * i] + 1]++;
    }
    for (int s = 0; s < r->pp; s++) tl->stage_off[s + 1] += tl->stage_off[s];
    free(pairs);
    return PT_OK;
}

pt_status pt_emit_tl_init(pt_emit_tl *tl, const pt_sim_result *r, pt_diag *d)
{
    op_end *ends = NULL;
    size_t nends = 0;
    double last = 0;
    pt_status rc;
    assert(tl && r);
    memset(tl, 0, sizeof *tl);
    if (r->pp < 1 || r->pp > 65536) return bad_int(d, "pp", r->pp, "not in 1..65536");
    if (r->chunks < 1 || r->chunks > 1024) return bad_int(d, "chunks", r->chunks, "not in 1..1024");
    if (r->nevents < 0 || (r->nevents > 0 && !r->events))
        return bad_int(d, "nevents", r->nevents, "not the length of events");
    if (r->nmem < 0 || (r->nmem > 0 && !r->mem))
        return bad_int(d, "nmem", r->nmem, "not the length of mem");
    if (!(r->tail_s >= 0) || !isfinite(r->tail_s))
        return bad_real(d, "tail_s", r->tail_s, "not a time >= 0");
    if (!isfinite(r->step_time_s)) return bad_real(d, "step_time_s", r->step_time_s, "not finite");
    tl->nv = r->pp * r->chunks;
    for (int i = 0; i < r->nevents; i++)
        if ((rc = check_event(r, tl->nv, i, d)) != PT_OK) return rc;
    for (int i = 0; i < r->nmem; i++) {
        char f[64];
        if (r->mem[i].stage < 0 || r->mem[i].stage >= r->pp) {
            snprintf(f, sizeof f, "mem[%d].stage", i);
            return bad_int(d, f, r->mem[i].stage, "not a rank of the pipeline");
        }
        if (!(r->mem[i].t >= 0) || !isfinite(r->mem[i].t)) {
            snprintf(f, sizeof f, "mem[%d].t", i);
            return bad_real(d, f, r->mem[i].t, "not a time >= 0");
        }
        if (r->mem[i].bytes < 0) {
            snprintf(f, sizeof f, "mem[%d].bytes", i);
            return bad_int(d, f, (long long)r->mem[i].bytes, "negative");
        }
        if (r->mem[i].t > last) last = r->mem[i].t;
    }
    if ((rc = stage_sets(tl, r, d)) != PT_OK) return rc;

    tl->v_lo = calloc((size_t)tl->nv, sizeof *tl->v_lo);
    tl->v_hi = calloc((size_t)tl->nv, sizeof *tl->v_hi);
    tl->send_of = malloc((size_t)(r->nevents > 0 ? r->nevents : 1) * sizeof *tl->send_of);
    ends = malloc((size_t)(r->nevents > 0 ? r->nevents : 1) * sizeof *ends);
    if (!tl->v_lo || !tl->v_hi || !tl->send_of || !ends) {
        free(ends);
        return nomem(d);
    }

    tl->pipe_end_s = r->nevents > 0 ? 0 : (r->pipeline_s > 0 ? r->pipeline_s : 0);
    tl->v_last = -1;
    for (int i = 0; i < r->nevents; i++) {
        const pt_sim_event *e = &r->events[i];
        if (e->end_s > tl->pipe_end_s) tl->pipe_end_s = e->end_s;
        if (e->kind > PT_OP_W) continue;
        if (e->vstage > tl->v_last) tl->v_last = e->vstage;
        if (tl->v_hi[e->vstage] <= tl->v_lo[e->vstage]) {
            tl->v_lo[e->vstage] = e->layer_lo;
            tl->v_hi[e->vstage] = e->layer_hi;
        }
        if (e->kind == PT_OP_F || e->kind == PT_OP_B) {
            ends[nends].vstage = e->vstage;
            ends[nends].mb = e->mb;
            ends[nends].kind = (int)e->kind;
            ends[nends].end_s = e->end_s;
            nends++;
        }
    }
    if (tl->v_last < 0) tl->v_last = tl->nv - 1;
    qsort(ends, nends, sizeof *ends, op_end_cmp);
    for (int i = 0; i < r->nevents; i++) {
        const pt_sim_event *e = &r->events[i];
        double eps = 1e-12 * (1.0 + e->start_s), fe, be;
        tl->send_of[i] = e->kind;
        if (e->kind != PT_OP_SEND) continue;
        be = find_end(ends, nends, e->vstage, e->mb, (int)PT_OP_B);
        fe = find_end(ends, nends, e->vstage, e->mb, (int)PT_OP_F);
        if (be >= 0 && be <= e->start_s + eps) tl->send_of[i] = PT_OP_B;
        else if (fe >= 0 && fe <= e->start_s + eps) tl->send_of[i] = PT_OP_F;
    }
    free(ends);

    tl->span_s = tl->pipe_end_s + r->tail_s;
    if (r->step_time_s > tl->span_s) tl->span_s = r->step_time_s;
    if (last > tl->span_s) tl->span_s = last;
    if (!(tl->span_s > 0)) tl->span_s = 1.0;
    return PT_OK;
}

void pt_emit_tl_layers(int lo, int hi, char *buf, size_t n)
{
    if (hi <= lo) snprintf(buf, n, "%s", "");
    else if (hi == lo + 1) snprintf(buf, n, "%d", lo);
    else snprintf(buf, n, "%d-%d", lo, hi - 1);
}

void pt_emit_tl_stage_label(const pt_emit_tl *tl, int stage, char *buf, size_t n)
{
    size_t len;
    int any = 0, lo = 0, hi = 0, have = 0, emb = 0, out = 0;
    int a = tl->stage_off[stage], z = tl->stage_off[stage + 1];
    char part[48];
    snprintf(buf, n, "stage %d", stage);
    len = strlen(buf);
#define APPEND(...)                                                   \
    do {                                                              \
        if (len < n) snprintf(buf + len, n - len, __VA_ARGS__);       \
        len = strlen(buf);                                            \
    } while (0)
    /* Layer ranges of the rank's virtual stages in order, adjacent ones merged. */
    for (int k = a; k <= z; k++) {
        int v = k < z ? tl->stage_v[k] : -1;
        int take = v >= 0 && tl->v_hi[v] > tl->v_lo[v];
        if (v == 0) emb = 1;
        if (v == tl->v_last) out = 1;
        if (take && have && tl->v_lo[v] == hi) {
            hi = tl->v_hi[v];
            continue;
        }
        if (have) {
            pt_emit_tl_layers(lo, hi, part, sizeof part);
            APPEND("%s%s", any ? ", " : " (layers ", part);
            any = 1;
            have = 0;
        }
        if (take) {
            lo = tl->v_lo[v];
            hi = tl->v_hi[v];
            have = 1;
        }
    }
    if (emb) {
        APPEND("%s", any ? ", embedding" : " (embedding");
        any = 1;
    }
    if (out) {
        APPEND("%s", any ? ", output layer" : " (output layer");
        any = 1;
    }
    if (any) APPEND(")");
#undef APPEND
}

void pt_emit_tl_event_name(const pt_emit_tl *tl, const pt_sim_result *r, int i, char *buf,
                           size_t n)
{
    const pt_sim_event *e = &r->events[i];
    char layers[48];
    if (e->kind == PT_OP_SEND) {
        pt_op_kind of = tl->send_of[i];
        snprintf(buf, n, "send %s%smb%d v%d", of == PT_OP_F ? "F" : of == PT_OP_B ? "B" : "",
                 of == PT_OP_SEND ? "" : " ", e->mb, e->vstage);
        return;
    }
    pt_emit_tl_layers(e->layer_lo, e->layer_hi, layers, sizeof layers);
    if (e->kind > PT_OP_SEND) { /* a bucket: its layer, or the embedding / output layer */
        static const char *const coll[] = {"all-reduce", "reduce-scatter", "all-gather"};
        snprintf(buf, n, "%s mb%d v%d %s%s", coll[e->kind - PT_OP_ALLREDUCE], e->mb, e->vstage,
                 layers[0] ? "L" : e->layer_lo == 0 ? "embedding" : "output layer", layers);
        return;
    }
    snprintf(buf, n, "%s mb%d v%d%s%s", e->kind == PT_OP_F ? "F" : e->kind == PT_OP_B ? "B" : "W",
             e->mb, e->vstage, layers[0] ? " L" : "", layers);
}

/* ---- the trace ---------------------------------------------------------------------- */

/* Seconds -> microseconds rounded to the nanosecond. */
static double us(double s)
{
    return round(s * 1e9) / 1e3;
}

/* Summary numbers of r for otherData; jansson refuses NaN and infinities. */
static double fin(double x)
{
    return isfinite(x) ? x : 0.0;
}

static double gib(int64_t bytes)
{
    return round((double)bytes / PT_GiB * 1e6) / 1e6;
}

/* Appends one event as a line (",\n" before all but the first); steals ev. */
static void put(pt_emit_buf *b, json_t *ev, int *first)
{
    char *s;
    if (!ev) {
        b->oom = 1;
        return;
    }
    s = json_dumps(ev, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(ev);
    if (!s) {
        b->oom = 1;
        return;
    }
    pt_emit_buf_printf(b, "%s%s", *first ? "" : ",\n", s);
    *first = 0;
    free(s);
}

static json_t *meta(const char *name, int pid, int tid, const char *key, json_t *value)
{
    return json_pack("{s:s, s:s, s:i, s:i, s:{s:o}}", "name", name, "ph", "M", "pid", pid, "tid",
                     tid, "args", key, value);
}

/* s as a JSON string; bytes that are not UTF-8 text become '?' (a model name
 * is a file path, any bytes). */
static json_t *jstr(const char *s)
{
    char buf[256];
    size_t i;
    json_t *j = json_string(s);
    if (j) return j;
    for (i = 0; s[i] && i + 1 < sizeof buf; i++)
        buf[i] = (unsigned char)s[i] < 0x80 && (unsigned char)s[i] >= 0x20 ? s[i] : '?';
    buf[i] = '\0';
    return json_string(buf);
}

static const char *const kind_cat[] = {"forward", "backward", "weight-grad", "p2p",
                                       "dp-allreduce", "dp-reducescatter", "dp-allgather"};

pt_status pt_emit_trace(const pt_sim_result *r, const pt_model *m, const pt_strategy *st,
                        char **out, pt_diag *d)
{
    pt_emit_tl tl;
    pt_emit_buf b = {0};
    pt_status rc;
    char name[256], strat[256], layers[48];
    int first = 1, dp = 0;
    assert(r && out);
    for (int i = 0; i < r->nevents; i++) dp |= r->events[i].stream == 2;
    *out = NULL;
    if ((rc = pt_emit_tl_init(&tl, r, d)) != PT_OK) {
        pt_emit_tl_free(&tl);
        return rc;
    }
    strat[0] = '\0';
    if (st) pt_strategy_format(st, strat, sizeof strat);

    pt_emit_buf_puts(&b, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    for (int s = 0; s < r->pp; s++) {
        pt_emit_tl_stage_label(&tl, s, name, sizeof name);
        put(&b, meta("process_name", s, 0, "name", json_string(name)), &first);
        put(&b, meta("process_sort_index", s, 0, "sort_index", json_integer(s)), &first);
        put(&b, meta("thread_name", s, 0, "name", json_string("compute")), &first);
        put(&b, meta("thread_sort_index", s, 0, "sort_index", json_integer(0)), &first);
        put(&b, meta("thread_name", s, 1, "name", json_string("send")), &first);
        put(&b, meta("thread_sort_index", s, 1, "sort_index", json_integer(1)), &first);
        if (dp) {
            put(&b, meta("thread_name", s, 2, "name", json_string("data-parallel collectives")), &first);
            put(&b, meta("thread_sort_index", s, 2, "sort_index", json_integer(2)), &first);
        }
    }
    for (int i = 0; i < r->nevents; i++) {
        const pt_sim_event *e = &r->events[i];
        double ts = us(e->start_s), te = us(e->end_s);
        pt_emit_tl_event_name(&tl, r, i, name, sizeof name);
        pt_emit_tl_layers(e->layer_lo, e->layer_hi, layers, sizeof layers);
        put(&b,
            json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:{s:i, s:i, s:s}}", "name", name, "cat",
                      kind_cat[e->kind], "ph", "X", "ts", ts, "dur", te - ts, "pid", e->stage,
                      "tid", e->stream, "args", "microbatch", e->mb, "virtual_stage", e->vstage,
                      "layers", layers),
            &first);
    }
    if (r->tail_s > 0) {
        double ts = us(tl.pipe_end_s), te = us(tl.pipe_end_s + r->tail_s);
        for (int s = 0; s < r->pp; s++)
            put(&b,
                json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:{}}", "name",
                          "tail (DP comm, optimizer)", "cat", "tail", "ph", "X", "ts", ts, "dur",
                          te - ts, "pid", s, "tid", 0, "args"),
                &first);
    }
    for (int i = 0; i < r->nmem; i++)
        put(&b,
            json_pack("{s:s, s:s, s:i, s:f, s:{s:f}}", "name", "memory", "ph", "C", "pid",
                      r->mem[i].stage, "ts", us(r->mem[i].t), "args", "GiB",
                      gib(r->mem[i].bytes)),
            &first);
    {
        json_t *other = json_pack(
            "{s:o, s:s, s:s, s:i, s:i, s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "model",
            jstr(m ? m->name : ""), "strategy", strat, "schedule",
            st ? pt_schedule_name(st->schedule) : "", "pp", r->pp, "chunks", r->chunks,
            "microbatches", (json_int_t)r->microbatches, "step_time_s", fin(r->step_time_s),
            "pipeline_s", fin(r->pipeline_s), "tail_s", fin(r->tail_s), "busy_s", fin(r->busy_s),
            "bubble_s", fin(r->bubble_s), "peak_GiB", gib(r->peak_bytes));
        char *s = other ? json_dumps(other, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) : NULL;
        json_decref(other);
        if (!s) b.oom = 1;
        else pt_emit_buf_printf(&b, "%s],\n\"otherData\": %s}\n", first ? "" : "\n", s);
        free(s);
    }
    pt_emit_tl_free(&tl);
    return pt_emit_buf_finish(&b, out, d);
}
