/*
 * test_timeline.c -- the timeline writers (src/emit/trace.c, svg.c) on a step
 * written by hand: 2 ranks, 2 micro-batches, ZB-H1-like (F, B, W and sends),
 * 16 events and 10 memory samples.  No simulator is run.
 *
 * Checks: the Chrome trace parses with jansson; one "X" event per simulator
 * event plus one tail span per rank; "M" events naming both ranks after their
 * layers; ts/dur in microseconds (a 0.5 s F has dur 500000); what each send
 * carries inferred from the F/B ends; "C" memory counters in GiB.  The SVG:
 * starts with "<svg", one <rect> per event plus the fixed ones svg.c lists,
 * the model name XML-escaped.  Both compared byte for byte with
 * tests/golden/timeline/ (UPDATE_GOLDEN=1 rewrites them; the goldens were read
 * by eye, and the SVG rendered with rsvg-convert, when written).  Malformed results
 * are refused with the field named.  Run from the repository root.
 */
#include <jansson.h>

#include "helpers.h"
#include "emit/timeline.h"

#define GOLDEN_DIR "tests/golden/timeline/"
#define GiB ((int64_t)1 << 30)

/* ---- the hand-made step ------------------------------------------------------------ */

/* Rank 0 holds layers 0-1 (virtual stage 0), rank 1 layers 2-3 (virtual stage
 * 1).  F 0.5 s, B 1.0 s, W 0.5 s, send 0.1 s; the pipeline ends at 5.3 s and a
 * 0.2 s tail follows: step 5.5 s.  Each rank computes 2 x (0.5 + 1 + 0.5) = 4 s,
 * so the bubble is 5.3 - 4 = 1.3 s. */
#define S PT_OP_SEND
static pt_sim_event events[] = {
    /* stage stream kind mb v lo hi start end */
    {0, 0, PT_OP_F, 0, 0, 0, 2, 0.0, 0.5},
    {0, 1, S, 0, 0, 0, 2, 0.5, 0.6}, /* carries F: F(mb0, v0) ended at 0.5 */
    {0, 0, PT_OP_F, 1, 0, 0, 2, 0.6, 1.1},
    {1, 0, PT_OP_F, 0, 1, 2, 4, 0.6, 1.1},
    {0, 1, S, 1, 0, 0, 2, 1.1, 1.2},
    {1, 0, PT_OP_B, 0, 1, 2, 4, 1.1, 2.1},
    {1, 1, S, 0, 1, 2, 4, 2.1, 2.2}, /* carries B: B(mb0, v1) ended at 2.1 */
    {1, 0, PT_OP_F, 1, 1, 2, 4, 2.2, 2.7},
    {0, 0, PT_OP_B, 0, 0, 0, 2, 2.2, 3.2},
    {1, 0, PT_OP_B, 1, 1, 2, 4, 2.7, 3.7},
    {0, 0, PT_OP_W, 0, 0, 0, 2, 3.2, 3.7},
    {1, 1, S, 1, 1, 2, 4, 3.7, 3.8},
    {0, 0, PT_OP_B, 1, 0, 0, 2, 3.8, 4.8},
    {1, 0, PT_OP_W, 0, 1, 2, 4, 3.8, 4.3},
    {1, 0, PT_OP_W, 1, 1, 2, 4, 4.3, 4.8},
    {0, 0, PT_OP_W, 1, 0, 0, 2, 4.8, 5.3},
};
#undef S
#define NEVENTS ((int)(sizeof events / sizeof events[0]))

/* Rank 0: 2 GiB static, +1 GiB per F in flight, freed at W's end; rank 1 the
 * same from 1.5 GiB. */
static pt_sim_mem mem[] = {
    {0, 0.0, 2 * GiB},          {1, 0.0, 3 * GiB / 2}, {0, 0.5, 3 * GiB},
    {0, 1.1, 4 * GiB},          {1, 1.1, 5 * GiB / 2}, {1, 2.7, 7 * GiB / 2},
    {0, 3.7, 3 * GiB},          {1, 4.3, 5 * GiB / 2}, {1, 4.8, 3 * GiB / 2},
    {0, 5.3, 2 * GiB},
};
#define NMEM ((int)(sizeof mem / sizeof mem[0]))

static int64_t stage_peak[2] = {4 * GiB, 7 * GiB / 2};
static int64_t stage_static[2] = {2 * GiB, 3 * GiB / 2};

static pt_sim_result result(void)
{
    pt_sim_result r;
    memset(&r, 0, sizeof r);
    r.pp = 2;
    r.chunks = 1;
    r.microbatches = 2;
    r.pipeline_s = 5.3;
    r.tail_s = 0.2;
    r.step_time_s = 5.5;
    r.busy_s = 4.0;
    r.bubble_s = 1.3;
    r.peak_bytes = 4 * GiB;
    r.stage_peak = stage_peak;
    r.stage_static = stage_static;
    r.nevents = NEVENTS;
    r.events = events;
    r.nmem = NMEM;
    r.mem = mem;
    return r;
}

#define MODEL_NAME "toy & <tiny> \"lm\""
#define MODEL_NAME_XML "toy &amp; &lt;tiny&gt; &quot;lm&quot;"

static pt_model model(void)
{
    pt_model m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "%s", MODEL_NAME);
    m.layers = 4;
    return m;
}

static pt_strategy strategy(void)
{
    pt_strategy st;
    memset(&st, 0, sizeof st);
    st.tp = 1, st.pp = 2, st.dp = 1, st.cp = 1, st.ep = 1, st.etp = 1, st.vpp = 1, st.mbs = 1;
    st.gbs = 2;
    st.schedule = PT_SCHED_ZBH1;
    return st;
}

/* ---- golden files ----------------------------------------------------------------- */

/* Compares text with tests/golden/timeline/NAME (th_golden). */
static void golden(const char *name, const char *text)
{
    th_golden(GOLDEN_DIR, name, text, "UPDATE_GOLDEN=1 ./build/tests/test_timeline");
}

/* Occurrences of needle in s. */
static int count(const char *s, const char *needle)
{
    int k = 0;
    size_t n = strlen(needle);
    for (const char *p = strstr(s, needle); p; p = strstr(p + n, needle)) k++;
    return k;
}

/* ---- the trace ------------------------------------------------------------------------ */

static char *trace_ok(const pt_sim_result *r)
{
    pt_model m = model();
    pt_strategy st = strategy();
    pt_diag d;
    char *out = NULL;
    memset(&d, 0, sizeof d);
    if (pt_emit_trace(r, &m, &st, &out, &d) != PT_OK) fail_msg("trace refused: %s", d.msg);
    assert_non_null(out);
    return out;
}

/* The i-th trace event whose "ph" is ph and whose "name" is name (NULL: any). */
static json_t *nth_event(json_t *evs, const char *ph, const char *name, int nth)
{
    size_t i;
    json_t *e;
    json_array_foreach(evs, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), ph) != 0) continue;
        if (name && strcmp(json_string_value(json_object_get(e, "name")), name) != 0) continue;
        if (nth-- == 0) return e;
    }
    return NULL;
}

static int count_events(json_t *evs, const char *ph, const char *cat)
{
    size_t i;
    json_t *e;
    int k = 0;
    json_array_foreach(evs, i, e) {
        const char *c = json_string_value(json_object_get(e, "cat"));
        if (strcmp(json_string_value(json_object_get(e, "ph")), ph) != 0) continue;
        if (cat && (!c || strcmp(c, cat) != 0)) continue;
        k++;
    }
    return k;
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v)) fail_msg("\"%s\" is not a number", key);
    return json_number_value(v);
}

static void test_trace(void **state)
{
    pt_sim_result r = result();
    char *text = trace_ok(&r);
    json_error_t err;
    json_t *root = json_loads(text, 0, &err), *evs, *e, *other;
    (void)state;
    if (!root) fail_msg("trace is not JSON: line %d: %s", err.line, err.text);
    assert_string_equal(json_string_value(json_object_get(root, "displayTimeUnit")), "ms");
    evs = json_object_get(root, "traceEvents");
    assert_true(json_is_array(evs));

    /* 16 events + one tail span on each of the 2 ranks. */
    assert_int_equal(count_events(evs, "X", NULL), NEVENTS + 2);
    assert_int_equal(count_events(evs, "X", "tail"), 2);
    assert_int_equal(count_events(evs, "X", "forward"), 4);
    assert_int_equal(count_events(evs, "X", "backward"), 4);
    assert_int_equal(count_events(evs, "X", "weight-grad"), 4);
    assert_int_equal(count_events(evs, "X", "p2p"), 4);

    /* Metadata: 2 processes named after their layers, 2 threads each. */
    assert_int_equal(count_events(evs, "M", NULL), 2 * 6);
    e = nth_event(evs, "M", "process_name", 0);
    assert_int_equal((int)num(e, "pid"), 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(e, "args"), "name")),
                        "stage 0 (layers 0-1, embedding)");
    e = nth_event(evs, "M", "process_name", 1);
    assert_int_equal((int)num(e, "pid"), 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(e, "args"), "name")),
                        "stage 1 (layers 2-3, output layer)");
    assert_null(nth_event(evs, "M", "process_name", 2));
    e = nth_event(evs, "M", "process_sort_index", 1);
    assert_int_equal((int)num(json_object_get(e, "args"), "sort_index"), 1);
    e = nth_event(evs, "M", "thread_name", 1);
    assert_int_equal((int)num(e, "tid"), 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(e, "args"), "name")),
                        "send");

    /* Microseconds: F of 0.5 s -> dur 500000; B(mb0) on rank 1 at 1.1 s for 1 s. */
    e = nth_event(evs, "X", "F mb0 v0 L0-1", 0);
    assert_non_null(e);
    assert_true(num(e, "ts") == 0.0);
    assert_true(num(e, "dur") == 500000.0);
    assert_string_equal(json_string_value(json_object_get(e, "cat")), "forward");
    e = nth_event(evs, "X", "B mb0 v1 L2-3", 0);
    assert_non_null(e);
    assert_true(num(e, "ts") == 1100000.0);
    assert_true(num(e, "dur") == 1000000.0);
    assert_int_equal((int)num(e, "pid"), 1);
    assert_int_equal((int)num(e, "tid"), 0);
    assert_int_equal((int)num(json_object_get(e, "args"), "microbatch"), 0);
    assert_int_equal((int)num(json_object_get(e, "args"), "virtual_stage"), 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(e, "args"), "layers")),
                        "2-3");
    /* Sends: what they carry, on the send thread, 0.1 s = 100000 us. */
    e = nth_event(evs, "X", "send F mb1 v0", 0);
    assert_non_null(e);
    assert_int_equal((int)num(e, "tid"), 1);
    assert_true(num(e, "ts") == 1100000.0);
    assert_true(num(e, "dur") == 100000.0);
    assert_non_null(nth_event(evs, "X", "send B mb0 v1", 0));
    assert_non_null(nth_event(evs, "X", "send B mb1 v1", 0));
    /* The tail: from the last event's end (5.3 s) for 0.2 s. */
    e = nth_event(evs, "X", "tail (DP comm, optimizer)", 1);
    assert_true(num(e, "ts") == 5300000.0);
    assert_true(num(e, "dur") == 200000.0);

    /* Memory counters: one per sample, in GiB. */
    assert_int_equal(count_events(evs, "C", NULL), NMEM);
    e = nth_event(evs, "C", "memory", 1); /* rank 1 at 0 s: 1.5 GiB */
    assert_int_equal((int)num(e, "pid"), 1);
    assert_true(num(json_object_get(e, "args"), "GiB") == 1.5);
    e = nth_event(evs, "C", "memory", 3); /* rank 0 at 1.1 s: 4 GiB */
    assert_true(num(e, "ts") == 1100000.0);
    assert_true(num(json_object_get(e, "args"), "GiB") == 4.0);

    other = json_object_get(root, "otherData");
    assert_string_equal(json_string_value(json_object_get(other, "model")), MODEL_NAME);
    assert_true(strncmp(json_string_value(json_object_get(other, "strategy")), "tp=1 pp=2 ", 10) ==
                0);
    assert_true(num(other, "step_time_s") == 5.5);

    golden("zbh1_2stages.trace.json", text);
    json_decref(root);
    free(text);
}

/* ---- the SVG -------------------------------------------------------------------------- */

static void test_svg(void **state)
{
    pt_sim_result r = result();
    pt_model m = model();
    pt_strategy st = strategy();
    pt_diag d;
    char *svg = NULL;
    (void)state;
    memset(&d, 0, sizeof d);
    if (pt_emit_svg(&r, &m, &st, &svg, &d) != PT_OK) fail_msg("svg refused: %s", d.msg);
    assert_non_null(svg);
    assert_true(strncmp(svg, "<svg", 4) == 0);
    assert_non_null(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
    assert_true(strlen(svg) > 7 && strcmp(svg + strlen(svg) - 7, "</svg>\n") == 0);
    /* <rect>s (svg.c): 1 background + 5 legend swatches (F, B, W, send, tail)
     * + 16 events + 2 tail spans + 1 memory-chart frame. */
    assert_int_equal(count(svg, "<rect"), 1 + 5 + NEVENTS + 2 + 1);
    assert_int_equal(count(svg, "</rect>"), NEVENTS + 2); /* each with a tooltip */
    assert_int_equal(count(svg, "<polyline"), 2);         /* memory of each rank */
    /* The model name escaped, never raw; in the document title and the heading. */
    assert_int_equal(count(svg, MODEL_NAME_XML), 2);
    assert_null(strstr(svg, "<tiny>"));
    assert_null(strstr(svg, "toy & "));
    assert_non_null(strstr(svg, MODEL_NAME_XML ": simulated step 5.500 s</text>"));
    assert_non_null(strstr(svg, "tp=1 pp=2 "));
    assert_non_null(strstr(svg, "<title>F mb0 v0 L0-1, stage 0: 0.000-500.000 ms (500.000 ms)"));
    assert_non_null(strstr(svg, "<title>send B mb0 v1, stage 1: "));
    assert_non_null(strstr(svg, "stage 0 peak 4.00 GiB"));
    assert_non_null(strstr(svg, "stage 1 peak 3.50 GiB"));
    assert_non_null(strstr(svg, ">5 s</text>")); /* ticks every 1 s up to 5.5 s */
    assert_non_null(strstr(svg, "<title>stage 1 (layers 2-3, output layer)</title>stage 1"));
    golden("zbh1_2stages.svg", svg);
    free(svg);
}

/* Without a model, a strategy or a tail: still a document; no tail rects. */
static void test_svg_bare(void **state)
{
    pt_sim_result r = result();
    pt_diag d;
    char *svg = NULL, *trace = NULL;
    (void)state;
    r.tail_s = 0;
    r.step_time_s = r.pipeline_s;
    r.stage_peak = NULL; /* peaks from the samples */
    assert_int_equal(pt_emit_svg(&r, NULL, NULL, &svg, &d), PT_OK);
    assert_int_equal(count(svg, "<rect"), 1 + 4 + NEVENTS + 1);
    assert_non_null(strstr(svg, "stage 1 peak 3.50 GiB"));
    assert_int_equal(pt_emit_trace(&r, NULL, NULL, &trace, &d), PT_OK);
    assert_null(strstr(trace, "\"tail\""));
    assert_non_null(strstr(trace, "\"model\": \"\""));
    free(svg);
    free(trace);
}

/* ---- shared helpers --------------------------------------------------------------------- */

/* Interleaved (pp=2, 2 chunks, 8 layers: virtual stage v holds 2v, 2v+1) and
 * a V placement (rank 0 holds virtual stages 0 and 3, rank 1 stages 1 and 2,
 * merged into one range). */
static void test_stage_labels(void **state)
{
    pt_sim_event ev[4];
    pt_sim_result r;
    pt_emit_tl tl;
    pt_diag d;
    char buf[128];
    static const int interleaved[4] = {0, 1, 0, 1}, vshape[4] = {0, 1, 1, 0};
    (void)state;
    memset(&r, 0, sizeof r);
    memset(ev, 0, sizeof ev);
    r.pp = 2;
    r.chunks = 2;
    r.nevents = 4;
    r.events = ev;
    for (int v = 0; v < 4; v++) {
        ev[v].kind = PT_OP_F;
        ev[v].vstage = v;
        ev[v].layer_lo = 2 * v;
        ev[v].layer_hi = 2 * v + 2;
        ev[v].start_s = v;
        ev[v].end_s = v + 1;
    }
    for (int v = 0; v < 4; v++) ev[v].stage = interleaved[v];
    assert_int_equal(pt_emit_tl_init(&tl, &r, &d), PT_OK);
    pt_emit_tl_stage_label(&tl, 0, buf, sizeof buf);
    assert_string_equal(buf, "stage 0 (layers 0-1, 4-5, embedding)");
    pt_emit_tl_stage_label(&tl, 1, buf, sizeof buf);
    assert_string_equal(buf, "stage 1 (layers 2-3, 6-7, output layer)");
    pt_emit_tl_event_name(&tl, &r, 2, buf, sizeof buf);
    assert_string_equal(buf, "F mb0 v2 L4-5");
    pt_emit_tl_free(&tl);

    for (int v = 0; v < 4; v++) ev[v].stage = vshape[v];
    assert_int_equal(pt_emit_tl_init(&tl, &r, &d), PT_OK);
    pt_emit_tl_stage_label(&tl, 0, buf, sizeof buf);
    assert_string_equal(buf, "stage 0 (layers 0-1, 6-7, embedding, output layer)");
    pt_emit_tl_stage_label(&tl, 1, buf, sizeof buf);
    assert_string_equal(buf, "stage 1 (layers 2-5)");
    pt_emit_tl_free(&tl);

    /* A rank no event names; a send whose F/B is unknown. */
    r.pp = 3;
    r.chunks = 1;
    r.nevents = 1;
    ev[0].kind = PT_OP_SEND;
    ev[0].stream = 1;
    ev[0].vstage = 0;
    assert_int_equal(pt_emit_tl_init(&tl, &r, &d), PT_OK);
    pt_emit_tl_stage_label(&tl, 2, buf, sizeof buf);
    assert_string_equal(buf, "stage 2");
    pt_emit_tl_event_name(&tl, &r, 0, buf, sizeof buf);
    assert_string_equal(buf, "send mb0 v0");
    pt_emit_tl_free(&tl);

    pt_emit_tl_layers(5, 6, buf, sizeof buf);
    assert_string_equal(buf, "5");
    pt_emit_tl_layers(5, 5, buf, sizeof buf);
    assert_string_equal(buf, "");
}

/* ---- refusals ------------------------------------------------------------------------- */

static void refused(const pt_sim_result *r, const char *field)
{
    pt_diag d;
    char *out = (char *)"untouched";
    memset(&d, 0, sizeof d);
    assert_int_equal(pt_emit_trace(r, NULL, NULL, &out, &d), PT_EINPUT);
    assert_null(out);
    assert_string_equal(d.field, field);
    assert_true(d.msg[0] != '\0');
    out = (char *)"untouched";
    memset(&d, 0, sizeof d);
    assert_int_equal(pt_emit_svg(r, NULL, NULL, &out, &d), PT_EINPUT);
    assert_null(out);
    assert_string_equal(d.field, field);
}

static void test_refusals(void **state)
{
    pt_sim_event ev[NEVENTS];
    pt_sim_mem mm[NMEM];
    pt_sim_result r = result();
    (void)state;
    memcpy(ev, events, sizeof ev);
    memcpy(mm, mem, sizeof mm);
    r.events = ev;
    r.mem = mm;
    ev[3].stage = 2;
    refused(&r, "events[3].stage");
    ev[3].stage = 1;
    ev[5].vstage = 2;
    refused(&r, "events[5].vstage");
    ev[5].vstage = 1;
    ev[7].end_s = ev[7].start_s - 0.1;
    refused(&r, "events[7].end_s");
    ev[7].end_s = ev[7].start_s + 0.5;
    ev[1].stream = 3; /* 2 is the data-parallel collectives' stream */
    refused(&r, "events[1].stream");
    ev[1].stream = 1;
    mm[4].stage = -1;
    refused(&r, "mem[4].stage");
    mm[4].stage = 1;
    r.pp = 0;
    refused(&r, "pp");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace),        cmocka_unit_test(test_svg),
        cmocka_unit_test(test_svg_bare),     cmocka_unit_test(test_stage_labels),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
