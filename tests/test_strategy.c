/*
 * test_strategy.c -- the strategy module (src/strategy, SPEC section 4):
 * parse and format round trip, the defaults pt_strategy_resolve fills in, and
 * every way a strategy is refused -- each key of the string with a bad value
 * (PT_EINPUT, d.field naming the key, d.col pointing at it) and each validity
 * rule of pt_strategy_check, with the sentence SPEC section 4 quotes.  Then
 * the key table itself: one row for every field of pt_strategy, every row
 * through parse -> format -> parse and through --space; and the rank layout
 * (group sizes and strides) against ranks numbered by hand.
 *
 * The model is llama3-8b (32 layers, 32 heads, 8 kv heads, ffn 14336) on
 * dgx-h100 (nodes of 8) resized for each case.
 */
#include "helpers.h"
#include "strategy/strategy.h"

/* ---- parse and format ------------------------------------------------------------ */

static void test_round_trip(void **state)
{
    static const char *const texts[] = {
        "tp=8 pp=8 dp=16 cp=1 ep=1 etp=8 vpp=1 mbs=1 gbs=1536 sp=1 zero=1 recompute=none "
        "schedule=1f1b offload=none",
        "tp=2 pp=4 dp=2 cp=2 ep=1 etp=2 vpp=2 mbs=4 gbs=64 sp=0 zero=3 recompute=selective "
        "schedule=interleaved offload=params",
        "tp=1 pp=2 dp=32 cp=1 ep=1 etp=1 vpp=2 mbs=2 gbs=512 sp=0 zero=0 recompute=full "
        "schedule=zb-v offload=optimizer",
        "tp=1 pp=4 dp=1 cp=1 ep=1 etp=1 vpp=1 mbs=1 gbs=8 sp=0 zero=2 recompute=none "
        "schedule=dualpipe offload=none",
        "tp=1 pp=4 dp=1 cp=1 ep=1 etp=1 vpp=1 mbs=1 gbs=8 sp=0 zero=2 recompute=none "
        "schedule=gpipe offload=none",
        "tp=1 pp=4 dp=1 cp=1 ep=1 etp=1 vpp=1 mbs=1 gbs=8 sp=0 zero=2 recompute=none "
        "schedule=zb-h1 offload=none",
    };
    (void)state;
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        pt_strategy st, again;
        pt_diag d;
        unsigned set;
        char buf[512];
        if (pt_strategy_parse(texts[i], &st, &set, &d) != PT_OK) fail_msg("%s: %s", texts[i], d.msg);
        assert_int_equal(set, (1u << 14) - 1); /* all 14 keys given */
        pt_strategy_format(&st, buf, sizeof buf);
        assert_string_equal(buf, texts[i]);
        assert_int_equal(pt_strategy_parse(buf, &again, &set, &d), PT_OK);
        assert_memory_equal(&st, &again, sizeof st);
    }
}

static void test_parse_values(void **state)
{
    pt_strategy st;
    pt_diag d;
    unsigned set;
    (void)state;
    /* commas, tabs and runs of spaces separate; any order; unset keys are zero */
    assert_int_equal(pt_strategy_parse("  recompute=selective,tp=4\t pp=2,, mbs=3 ", &st, &set, &d),
                     PT_OK);
    assert_int_equal(set, PT_K_TP | PT_K_PP | PT_K_MBS | PT_K_RECOMPUTE);
    assert_int_equal(st.tp, 4);
    assert_int_equal(st.pp, 2);
    assert_int_equal(st.mbs, 3);
    assert_int_equal(st.recompute, PT_RC_SELECTIVE);
    assert_int_equal(st.dp, 0);
    assert_int_equal(st.gbs, 0);
    assert_int_equal(st.zero, 0);
    /* the empty string sets nothing */
    assert_int_equal(pt_strategy_parse("", &st, &set, &d), PT_OK);
    assert_int_equal(set, 0);
    /* every name of every enum */
    assert_int_equal(pt_strategy_parse("schedule=zb-h1 offload=params recompute=full", &st, &set, &d),
                     PT_OK);
    assert_int_equal(st.schedule, PT_SCHED_ZBH1);
    assert_int_equal(st.offload, PT_OFF_PARAMS);
    assert_int_equal(st.recompute, PT_RC_FULL);
    assert_string_equal(pt_schedule_name(PT_SCHED_DUALPIPE), "dualpipe");
    assert_string_equal(pt_schedule_name(PT_SCHED_ZBV), "zb-v");
    assert_string_equal(pt_recompute_name(PT_RC_NONE), "none");
    assert_string_equal(pt_offload_name(PT_OFF_OPTIMIZER), "optimizer");
    /* 64-bit global batch */
    assert_int_equal(pt_strategy_parse("gbs=1000000000 sp=0 zero=0", &st, &set, &d), PT_OK);
    assert_int_equal(st.gbs, 1000000000);
}

/* ---- bad strings: every key ------------------------------------------------------- */

typedef struct bad_parse {
    const char *text;
    const char *field; /* d.field */
    int col;           /* d.col: where the key=value starts, 1-based */
    const char *msg;   /* a part of d.msg */
} bad_parse;

static const bad_parse bad_parses[] = {
    /* an unknown key, and where it is: "tp=8 " is 5 characters, so column 6 */
    {"tp=8 foo=2", "foo", 6, "unknown key \"foo\""},
    {"tensor=8", "tensor", 1, "unknown key"},
    {"tp=8,TP=8", "TP", 6, "unknown key"},
    /* not key=value */
    {"tp=8 pp", "pp", 6, "is not key=value"},
    {"tp 8", "tp", 1, "is not key=value"},
    /* given twice: the column of the second one */
    {"tp=8 pp=2 tp=8", "tp", 11, "tp is given twice"},
    {"pp=2 pp=2", "pp", 6, "given twice"},
    {"dp=2 dp=2", "dp", 6, "given twice"},
    {"cp=2 cp=2", "cp", 6, "given twice"},
    {"ep=1 ep=1", "ep", 6, "given twice"},
    {"etp=1 etp=1", "etp", 7, "given twice"},
    {"vpp=2 vpp=2", "vpp", 7, "given twice"},
    {"mbs=1 mbs=1", "mbs", 7, "given twice"},
    {"gbs=8 gbs=8", "gbs", 7, "given twice"},
    {"sp=1 sp=1", "sp", 6, "given twice"},
    {"zero=1 zero=1", "zero", 8, "given twice"},
    {"recompute=full recompute=full", "recompute", 16, "given twice"},
    {"schedule=1f1b schedule=1f1b", "schedule", 15, "given twice"},
    {"offload=none offload=none", "offload", 14, "given twice"},
    /* not a whole number, for every numeric key */
    {"tp=eight", "tp", 1, "tp=eight is not a whole number"},
    {"pp=2x", "pp", 1, "not a whole number"},
    {"dp=-4", "dp", 1, "not a whole number"},
    {"cp=1.5", "cp", 1, "not a whole number"},
    {"ep=", "ep", 1, "not a whole number"},
    {"etp=+2", "etp", 1, "not a whole number"},
    {"vpp=two", "vpp", 1, "not a whole number"},
    {"mbs=0x4", "mbs", 1, "not a whole number"},
    {"tp=8 gbs=1e3", "gbs", 6, "gbs=1e3 is not a whole number"},
    {"sp=yes", "sp", 1, "not a whole number"},
    {"zero=one", "zero", 1, "not a whole number"},
    /* out of range */
    {"tp=0", "tp", 1, "tp=0 must be between 1 and"},
    {"pp=0", "pp", 1, "between 1 and"},
    {"dp=0", "dp", 1, "between 1 and"},
    {"cp=0", "cp", 1, "between 1 and"},
    {"ep=0", "ep", 1, "between 1 and"},
    {"etp=0", "etp", 1, "between 1 and"},
    {"vpp=0", "vpp", 1, "between 1 and"},
    {"mbs=0", "mbs", 1, "between 1 and"},
    {"gbs=0", "gbs", 1, "between 1 and"},
    {"sp=2", "sp", 1, "sp=2 must be 0 or 1"},
    {"zero=4", "zero", 1, "zero=4 must be 0, 1, 2 or 3"},
    /* names */
    {"recompute=bogus", "recompute", 1, "recompute=bogus is not none, selective or full"},
    {"schedule=bogus", "schedule", 1, "schedule=bogus is not gpipe, 1f1b, interleaved"},
    {"offload=bogus", "offload", 1, "offload=bogus is not none, optimizer or params"},
    {"recompute=", "recompute", 1, "is not none"},
    {"schedule=1F1B", "schedule", 1, "is not gpipe"},
};

static void test_bad_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_parses / sizeof bad_parses[0]; i++) {
        const bad_parse *b = &bad_parses[i];
        pt_strategy st;
        pt_diag d;
        unsigned set;
        char buf[1200], want[64];
        memset(&d, 0, sizeof d);
        if (pt_strategy_parse(b->text, &st, &set, &d) != PT_EINPUT)
            fail_msg("\"%s\": accepted", b->text);
        if (strcmp(d.field, b->field) != 0)
            fail_msg("\"%s\": field \"%s\", want \"%s\" (%s)", b->text, d.field, b->field, d.msg);
        if (d.col != b->col)
            fail_msg("\"%s\": col %d, want %d (%s)", b->text, d.col, b->col, d.msg);
        if (!strstr(d.msg, b->msg))
            fail_msg("\"%s\": message \"%s\" lacks \"%s\"", b->text, d.msg, b->msg);
        /* the location reads "strategy:1:COL: ..." */
        assert_string_equal(d.file, "strategy");
        assert_int_equal(d.line, 1);
        pt_diag_format(&d, buf, sizeof buf);
        snprintf(want, sizeof want, "strategy:1:%d: ", b->col);
        if (strncmp(buf, want, strlen(want)) != 0)
            fail_msg("\"%s\": formatted \"%s\", want it to start \"%s\"", b->text, buf, want);
    }
}

/* The refused value is reported as text. */
static void test_bad_parse_value(void **state)
{
    pt_strategy st;
    pt_diag d;
    unsigned set;
    (void)state;
    assert_int_equal(pt_strategy_parse("pp=4 schedule=bogus", &st, &set, &d), PT_EINPUT);
    assert_string_equal(d.value, "bogus");
    assert_int_equal(pt_strategy_parse("tp=0", &st, &set, &d), PT_EINPUT);
    assert_string_equal(d.value, "0");
    assert_int_equal(pt_strategy_parse("tp=4 foo=2", &st, &set, &d), PT_EINPUT);
    assert_string_equal(d.value, "2");
}

/* ---- defaults --------------------------------------------------------------------- */

static void test_defaults(void **state)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 64);
    pt_job j = th_job(8192, 512, 1);
    pt_strategy st;
    (void)state;
    /* nothing given: tp=pp=cp=ep=etp=vpp=mbs=1, dp = 64/(1*1*1) = 64, sp=0 (tp=1),
     * zero=1, recompute none, 1f1b, no offload, gbs from the job */
    st = th_strategy("", &m, &c, &j);
    assert_int_equal(st.tp, 1);
    assert_int_equal(st.pp, 1);
    assert_int_equal(st.cp, 1);
    assert_int_equal(st.ep, 1);
    assert_int_equal(st.etp, 1);
    assert_int_equal(st.vpp, 1);
    assert_int_equal(st.mbs, 1);
    assert_int_equal(st.dp, 64);
    assert_int_equal(st.gbs, 512);
    assert_int_equal(st.sp, 0);
    assert_int_equal(st.zero, 1);
    assert_int_equal(st.recompute, PT_RC_NONE);
    assert_int_equal(st.schedule, PT_SCHED_1F1B);
    assert_int_equal(st.offload, PT_OFF_NONE);

    /* tp=4 pp=2 cp=2: dp = 64/(4*2*2) = 4; sp=1 because tp>1; etp follows tp */
    st = th_strategy("tp=4 pp=2 cp=2", &m, &c, &j);
    assert_int_equal(st.dp, 4);
    assert_int_equal(st.sp, 1);
    assert_int_equal(st.etp, 4);
    assert_int_equal(st.schedule, PT_SCHED_1F1B);

    /* vpp=2 picks the interleaved schedule: 32 layers / (4*2), 512/(1*16) = 32 % 4 == 0 */
    st = th_strategy("pp=4 vpp=2", &m, &c, &j);
    assert_int_equal(st.schedule, PT_SCHED_INTERLEAVED);
    assert_int_equal(st.dp, 16);

    /* given values are kept: sp=0 with tp=2, gbs over --global-batch */
    st = th_strategy("tp=2 sp=0 gbs=128 zero=0", &m, &c, &j);
    assert_int_equal(st.sp, 0);
    assert_int_equal(st.gbs, 128);
    assert_int_equal(st.zero, 0);
    assert_int_equal(st.dp, 32);

    /* sp=1 with tp=1 is turned off, as Megatron does (with a warning there) */
    st = th_strategy("sp=1", &m, &c, &j);
    assert_int_equal(st.sp, 0);
}

static void test_resolve_refuses(void **state)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 64);
    pt_job j = th_job(8192, 0, 1); /* no --global-batch */
    pt_strategy st;
    pt_diag d;
    unsigned set;
    (void)state;
    /* no gbs anywhere */
    assert_int_equal(pt_strategy_parse("tp=2", &st, &set, &d), PT_OK);
    assert_int_equal(pt_strategy_resolve(&st, set, &m, &c, &j, &d), PT_EINPUT);
    assert_string_equal(d.field, "gbs");
    assert_non_null(strstr(d.msg, "--global-batch"));
    /* dp left out and tp*pp*cp = 3 does not divide 64 devices */
    j.global_batch = 512;
    assert_int_equal(pt_strategy_parse("pp=3", &st, &set, &d), PT_OK);
    assert_int_equal(pt_strategy_resolve(&st, set, &m, &c, &j, &d), PT_EINPUT);
    assert_string_equal(d.field, "dp");
    assert_non_null(strstr(d.msg, "tp*pp*cp=3 does not divide the cluster's 64 devices"));
}

/* ---- validity rules ------------------------------------------------------------------ */

typedef struct rule_case {
    const char *text;  /* resolved against the model, cluster and job below */
    int64_t devices;   /* dgx-h100 resized to this */
    int64_t seq_len;
    const char *field; /* d.field */
    const char *msg;   /* a part of d.msg */
} rule_case;

static const rule_case rule_cases[] = {
    /* heads 32, kv heads 8 */
    {"tp=3", 24, 8192, "tp", "tp=3 does not divide num_attention_heads=32"},
    {"tp=16", 64, 8192, "tp", "tp=16 does not divide num_key_value_heads=8"},
    /* layers 32 */
    {"pp=3", 24, 8192, "pp", "pp=3 does not divide num_layers=32"},
    {"pp=64", 64, 8192, "pp", "pp=64 does not divide num_layers=32"},
    {"pp=4 vpp=3", 64, 8192, "vpp", "pp*vpp = 4*3 does not divide num_layers=32"},
    /* interleaving */
    {"vpp=2", 64, 8192, "vpp", "vpp=2 needs pipeline parallelism"},
    {"pp=2 schedule=interleaved", 64, 8192, "schedule", "schedule=interleaved needs vpp >= 2"},
    {"pp=2 vpp=2 schedule=1f1b", 64, 8192, "vpp", "vpp=2 needs schedule=interleaved"},
    {"pp=2 vpp=2 schedule=gpipe", 64, 8192, "vpp", "needs schedule=interleaved"},
    /* 512/(1*16) = 32 micro-batches is a multiple of 4, 96/16 = 6 is not */
    {"pp=4 vpp=2 gbs=96", 64, 8192, "gbs",
     "needs the micro-batches per pipeline (gbs/(mbs*dp)=6) to be a multiple of pp=4"},
    /* other schedules */
    {"pp=2 schedule=zb-v", 64, 8192, "schedule", "schedule=zb-v needs pp >= 2 and vpp=2"},
    {"pp=4 vpp=4 schedule=zb-v", 64, 8192, "schedule", "zb-v needs"},
    {"schedule=zb-h1", 64, 8192, "schedule", "schedule=zb-h1 needs pp >= 2"},
    {"pp=1 schedule=dualpipe", 64, 8192, "schedule", "dualpipe needs an even pp"},
    {"pp=2 vpp=2 schedule=dualpipe", 64, 8192, "schedule", "dualpipe needs an even pp"},
    {"pp=2 dp=32 gbs=96", 64, 8192, NULL, NULL}, /* (control: 1f1b takes 3 micro-batches) */
    {"pp=2 schedule=dualpipe gbs=96", 64, 8192, "gbs", "dualpipe needs an even number of micro-batches"},
    /* the global batch: 128 devices, dp = 128 */
    {"gbs=64", 128, 8192, "gbs", "gbs=64 is not a multiple of mbs*dp=1*128=128"},
    {"mbs=3", 64, 8192, "gbs", "gbs=512 is not a multiple of mbs*dp=3*64=192"},
    /* context parallelism: seq_len a multiple of 2*cp */
    {"cp=4", 64, 8188, "cp", "cp=4: seq_len=8188 is not a multiple of 2*cp"},
    /* sequence parallelism: seq_len/cp a multiple of tp */
    {"tp=8", 64, 8196, "sp", "the sequence per rank (seq_len/cp=8196) is not a multiple of tp=8"},
    {"tp=8 sp=0", 64, 8196, NULL, NULL}, /* (control: without sp it runs) */
    /* offload */
    {"zero=0 offload=optimizer", 64, 8192, "offload", "offload=optimizer needs zero>=1"},
    {"zero=1 offload=params", 64, 8192, "offload", "offload=params needs zero=3 (zero=1)"},
    {"zero=2 offload=params", 64, 8192, "offload", "offload=params needs zero=3"},
    /* expert keys on a dense model */
    {"ep=2", 64, 8192, "ep", "ep=2 needs a mixture-of-experts model; llama3-8b is dense"},
    {"tp=2 etp=1", 64, 8192, "etp", "etp=1 applies to mixture-of-experts models only"},
    /* the device count: 2*2*1*8 = 32, not 64 */
    {"tp=2 pp=2 dp=8", 64, 8192, "dp",
     "tp*pp*cp*dp = 2*2*1*8 = 32 does not equal the cluster's 64 devices"},
};

static void test_rules(void **state)
{
    pt_model m = th_model("llama3-8b");
    (void)state;
    for (size_t i = 0; i < sizeof rule_cases / sizeof rule_cases[0]; i++) {
        const rule_case *r = &rule_cases[i];
        pt_cluster c = th_cluster("dgx-h100", r->devices);
        pt_job j = th_job(r->seq_len, 512, 1);
        pt_strategy st;
        pt_diag d;
        unsigned set;
        pt_status s;
        if (pt_strategy_parse(r->text, &st, &set, &d) != PT_OK)
            fail_msg("\"%s\": parse: %s", r->text, d.msg);
        memset(&d, 0, sizeof d);
        s = pt_strategy_resolve(&st, set, &m, &c, &j, &d);
        if (!r->field) {
            if (s != PT_OK) fail_msg("\"%s\": refused: %s", r->text, d.msg);
            continue;
        }
        if (s != PT_EINPUT) fail_msg("\"%s\" on %lld devices: accepted", r->text, (long long)r->devices);
        if (strcmp(d.field, r->field) != 0)
            fail_msg("\"%s\": field \"%s\", want \"%s\" (%s)", r->text, d.field, r->field, d.msg);
        if (!strstr(d.msg, r->msg))
            fail_msg("\"%s\": message \"%s\" lacks \"%s\"", r->text, d.msg, r->msg);
        assert_true(d.value[0] != '\0');
    }
}

/* Expert parallelism on MoE models (Megatron-Core's rules, strategy.c
 * expert_rules): experts % ep, moe_ffn % etp, ep*etp | tp*cp*dp, SP with
 * tp > 1; and DeepSeek-V3's 61 layers on pp=16 get an uneven split. */
static void test_expert_rules(void **state)
{
    static const struct {
        const char *model, *text;
        int64_t devices;
        const char *field, *msg; /* NULL: accepted */
    } t[] = {
        {"mixtral-8x7b", "ep=8", 64, NULL, NULL},
        {"mixtral-8x7b", "tp=2 ep=4 etp=1", 64, NULL, NULL},
        {"mixtral-8x7b", "ep=3", 48, "ep", "ep=3 does not divide the 8 experts"},
        {"mixtral-8x7b", "ep=16", 64, "ep", "ep=16 does not divide the 8 experts"},
        {"mixtral-8x7b", "tp=8 pp=8 ep=8", 64, "ep", "ep*etp = 8*8 does not divide tp*cp*dp = 8*1*1 = 8"},
        {"mixtral-8x7b", "tp=2 sp=0", 64, "sp", "needs sequence parallelism"},
        {"qwen3-30b-a3b", "etp=5 ep=1", 64, "etp", "etp=5 does not divide moe_ffn_hidden_size=768"},
        {"deepseek-v3", "tp=2 pp=16 ep=64 etp=1", 1024, NULL, NULL},
        {"deepseek-v3", "pp=2", 64, "pp", "pp=2 does not divide num_layers=61"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        pt_model m = th_model(t[i].model);
        pt_cluster c = th_cluster("dgx-h100", t[i].devices);
        pt_job j = th_job(4096, 1024, 1);
        pt_strategy st;
        pt_diag d;
        unsigned set;
        pt_status s;
        assert_int_equal(pt_strategy_parse(t[i].text, &st, &set, &d), PT_OK);
        s = pt_strategy_resolve(&st, set, &m, &c, &j, &d);
        if (!t[i].field) {
            if (s != PT_OK) fail_msg("%s \"%s\": refused: %s", t[i].model, t[i].text, d.msg);
            continue;
        }
        if (s != PT_EINPUT) fail_msg("%s \"%s\": accepted", t[i].model, t[i].text);
        if (strcmp(d.field, t[i].field) != 0 || !strstr(d.msg, t[i].msg))
            fail_msg("%s \"%s\": %s: %s, want %s: ...%s...", t[i].model, t[i].text, d.field, d.msg,
                     t[i].field, t[i].msg);
    }
}

/* Rules only pt_strategy_check can meet (resolve or parse stops them earlier),
 * and one that needs a model the catalog has no example of. */
static void test_check_direct(void **state)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 64);
    pt_job j = th_job(8192, 512, 1);
    pt_strategy ok = th_strategy("tp=8", &m, &c, &j), st;
    pt_diag d;
    (void)state;
    assert_int_equal(ok.dp, 8);
    assert_int_equal(pt_strategy_check(&ok, &m, &c, &j, &d), PT_OK);

    /* ffn 14336 = 2^11 * 7 is divided by every tp that divides 8 kv heads, so
     * take a model whose ffn is not: 14300 = 8 * 1787 + 4 */
    {
        pt_model odd = m;
        odd.ffn = 14300;
        assert_int_equal(pt_strategy_check(&ok, &odd, &c, &j, &d), PT_EINPUT);
        assert_string_equal(d.field, "tp");
        assert_non_null(strstr(d.msg, "tp=8 does not divide ffn_hidden_size=14300"));
    }
    /* sp=1 with tp=1 (resolve turns it off before checking) */
    st = th_strategy("", &m, &c, &j);
    st.sp = 1;
    assert_int_equal(pt_strategy_check(&st, &m, &c, &j, &d), PT_EINPUT);
    assert_string_equal(d.field, "sp");
    assert_non_null(strstr(d.msg, "sp=1 needs tensor parallelism"));
    /* zero out of 0..3 (parse refuses it earlier) */
    st = ok;
    st.zero = 5;
    assert_int_equal(pt_strategy_check(&st, &m, &c, &j, &d), PT_EINPUT);
    assert_string_equal(d.field, "zero");
    /* gbs below 1 */
    st = ok;
    st.gbs = 0;
    assert_int_equal(pt_strategy_check(&st, &m, &c, &j, &d), PT_EINPUT);
    assert_string_equal(d.field, "gbs");
    /* check-only refusals carry no location: they are not about a place in a file */
    assert_int_equal(d.line, 0);
    assert_int_equal(d.col, 0);
}

/* ---- the key table ------------------------------------------------------------------- */

/* Every field of pt_strategy, in declaration order, initialised positionally:
 * a field added to pt_strategy without a value here stops the build
 * (-Wmissing-field-initializers, -Wextra -Werror), and a value added here
 * without a row in the key table fails the assertion below. */
#define EVERY_FIELD 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
static const pt_strategy every_field = {EVERY_FIELD};
static const int every_value[] = {EVERY_FIELD};
_Static_assert(sizeof every_value / sizeof every_value[0] == PT_STRATEGY_NKEYS,
               "every field of pt_strategy has a row in the key table");

/* One row per field: the rows' fields are disjoint, inside the struct, and
 * each reads a different one of the values every_field holds. */
static void test_key_table_covers_struct(void **state)
{
    int seen[PT_STRATEGY_NKEYS + 1] = {0};
    unsigned bits = 0;
    (void)state;
    assert_null(pt_strategy_key_at(-1));
    assert_null(pt_strategy_key_at(PT_STRATEGY_NKEYS));
    for (int i = 0; i < PT_STRATEGY_NKEYS; i++) {
        const pt_strategy_key *k = pt_strategy_key_at(i);
        int64_t v = pt_strategy_get(&every_field, i);
        assert_non_null(k);
        /* row i is dimension i, named as the table names it */
        assert_int_equal(k->dim, i);
        assert_string_equal(pt_space_dim_name(i), k->name);
        assert_int_equal(pt_strategy_key_find(k->name, strlen(k->name)), i);
        /* one bit each, all bits 0..N-1 used: the string's order */
        assert_true(k->bit != 0 && (k->bit & (k->bit - 1)) == 0);
        assert_int_equal(bits & k->bit, 0);
        bits |= k->bit;
        assert_int_equal(pt_strategy_key_of_bit(k->bit), i);
        assert_string_equal(pt_strategy_key_name(k->bit), k->name);
        /* the field: 4 or 8 bytes inside the struct, no other row's */
        assert_true(k->width == sizeof(int) || k->width == sizeof(int64_t));
        assert_true(k->offset + k->width <= sizeof(pt_strategy));
        for (int j = 0; j < i; j++) {
            const pt_strategy_key *o = pt_strategy_key_at(j);
            assert_true(o->offset + o->width <= k->offset || k->offset + k->width <= o->offset);
            assert_string_not_equal(o->name, k->name);
        }
        assert_in_range(v, 1, PT_STRATEGY_NKEYS);
        assert_int_equal(seen[v], 0);
        seen[v] = 1;
        /* kinds: an enum has its names, a number a range */
        if (k->kind == PT_KEY_ENUM) {
            assert_non_null(k->names);
            assert_int_equal(k->lo, 0);
            assert_int_equal(k->hi, k->nnames - 1);
        } else {
            assert_null(k->names);
            assert_true(k->lo <= k->hi);
        }
        assert_true(k->def == PT_KEY_DERIVED || (k->def >= 0 && (k->kind == PT_KEY_LAYERS ? k->def == 0
                                                                   : k->def >= k->lo && k->def <= k->hi)));
    }
    assert_int_equal(bits, (1u << PT_STRATEGY_NKEYS) - 1);
    assert_int_equal(PT_D_COUNT, PT_STRATEGY_NKEYS);
    assert_int_equal(pt_strategy_key_find("tq", 2), -1);
    assert_int_equal(pt_strategy_key_find("tpp", 2), 0); /* the first 2 characters: "tp" */
    assert_int_equal(pt_strategy_key_of_bit(1u << PT_STRATEGY_NKEYS), -1);
    /* the names of the enums are the public names */
    assert_string_equal(pt_strategy_key_at(PT_D_RECOMPUTE)->names[PT_RC_SELECTIVE], pt_recompute_name(PT_RC_SELECTIVE));
    assert_string_equal(pt_strategy_key_at(PT_D_SCHEDULE)->names[PT_SCHED_ZBV], pt_schedule_name(PT_SCHED_ZBV));
    assert_string_equal(pt_strategy_key_at(PT_D_OFFLOAD)->names[PT_OFF_PARAMS], pt_offload_name(PT_OFF_PARAMS));
}

/* The values of key i to try: both ends of its range and one inside, or
 * every name of an enum. */
static int key_values(const pt_strategy_key *k, int64_t *v)
{
    int n = 0;
    if (k->kind == PT_KEY_ENUM) {
        for (int e = 0; e < k->nnames; e++) v[n++] = e;
        return n;
    }
    v[n++] = k->lo;
    if (k->hi > k->lo) v[n++] = k->hi;
    if (k->hi - k->lo > 1) v[n++] = k->lo + (k->hi - k->lo) / 3;
    return n;
}

/* Every key, every value: parse "key=value" alone; set it in a full strategy,
 * format, parse back to the same struct, format to the same text. */
static void test_key_table_round_trip(void **state)
{
    const char *full = "tp=8 pp=4 dp=2 cp=2 ep=2 etp=4 vpp=2 mbs=3 gbs=96 sp=1 zero=2 recompute=selective "
                       "schedule=zb-v offload=optimizer pp_first=5 pp_last=7";
    pt_strategy base;
    pt_diag d;
    unsigned set;
    char buf[512];
    (void)state;
    assert_int_equal(pt_strategy_parse(full, &base, &set, &d), PT_OK);
    assert_int_equal(set, (1u << PT_STRATEGY_NKEYS) - 1);
    pt_strategy_format(&base, buf, sizeof buf);
    assert_string_equal(buf, full); /* every key, in the order of the bits */
    for (int i = 0; i < PT_STRATEGY_NKEYS; i++) {
        const pt_strategy_key *k = pt_strategy_key_at(i);
        int64_t vals[64];
        int nv = key_values(k, vals);
        for (int j = 0; j < nv; j++) {
            pt_strategy st = base, one, again;
            char text[64], item[96], twice[512];
            pt_strategy_key_value_text(i, vals[j], text, sizeof text);
            snprintf(item, sizeof item, "%s=%s", k->name, text);
            if (pt_strategy_parse(item, &one, &set, &d) != PT_OK) fail_msg("\"%s\": %s", item, d.msg);
            assert_int_equal(set, k->bit);
            assert_int_equal(pt_strategy_get(&one, i), vals[j]);
            pt_strategy_set(&st, i, vals[j]);
            assert_int_equal(pt_strategy_get(&st, i), vals[j]);
            pt_strategy_format(&st, buf, sizeof buf);
            if (!strstr(buf, item)) fail_msg("\"%s\" lacks \"%s\"", buf, item);
            if (pt_strategy_parse(buf, &again, &set, &d) != PT_OK) fail_msg("\"%s\": %s", buf, d.msg);
            assert_memory_equal(&st, &again, sizeof st);
            pt_strategy_format(&again, twice, sizeof twice);
            assert_string_equal(buf, twice);
        }
        /* just outside the range: refused, naming the key */
        if (k->kind != PT_KEY_ENUM) {
            char item[96];
            for (int side = 0; side < 2; side++) {
                int64_t out = side ? k->hi + 1 : k->lo - 1;
                pt_strategy st;
                if (out < 0) continue; /* "-1" is not a whole number: another message */
                snprintf(item, sizeof item, "%s=%lld", k->name, (long long)out);
                memset(&d, 0, sizeof d);
                assert_int_equal(pt_strategy_parse(item, &st, &set, &d), PT_EINPUT);
                assert_string_equal(d.field, k->name);
                assert_non_null(strstr(d.msg, "must be"));
            }
        }
    }
    /* a 0 layer count is an even split: left out of the text, "even" in words */
    {
        pt_strategy st = base;
        st.pp_first = st.pp_last = 0;
        pt_strategy_format(&st, buf, sizeof buf);
        assert_null(strstr(buf, "pp_first"));
        assert_null(strstr(buf, "pp_last"));
        pt_strategy_key_value_text(PT_D_PP_FIRST, 0, buf, sizeof buf);
        assert_string_equal(buf, "even");
        pt_strategy_key_value_text(PT_D_SCHEDULE, PT_SCHED_DUALPIPE, buf, sizeof buf);
        assert_string_equal(buf, "dualpipe");
        pt_strategy_key_value_text(PT_D_GBS, 1536, buf, sizeof buf);
        assert_string_equal(buf, "1536");
        assert_int_equal(pt_strategy_dim(&base, PT_D_GBS), 96);
        assert_int_equal(pt_strategy_dim(&base, PT_D_ETP), 4);
        assert_int_equal(pt_strategy_dim(&base, PT_D_SCHEDULE), PT_SCHED_ZBV);
    }
}

/* Every key is a --space dimension: a list of its values, a range for a
 * number (refused for an enum); --fix pins what a strategy string set. */
static void test_key_table_space(void **state)
{
    (void)state;
    for (int i = 0; i < PT_STRATEGY_NKEYS; i++) {
        const pt_strategy_key *k = pt_strategy_key_at(i);
        int64_t vals[64];
        int nv = key_values(k, vals);
        char text[512], v[64];
        size_t used;
        pt_space sp;
        pt_diag d;
        used = (size_t)snprintf(text, sizeof text, "%s=", k->name);
        for (int j = 0; j < nv; j++) {
            pt_strategy_key_value_text(i, vals[j], v, sizeof v);
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", j ? "," : "", v);
        }
        pt_space_init(&sp);
        if (pt_space_parse(text, "--space", &sp, &d) != PT_OK) fail_msg("\"%s\": %s", text, d.msg);
        assert_int_equal(sp.kind[i], 1);
        assert_int_equal(sp.n[i], nv);
        for (int j = 0; j < nv; j++) assert_true(pt_space_allows(&sp, i, vals[j]));
        for (int o = 0; o < PT_STRATEGY_NKEYS; o++)
            if (o != i) assert_int_equal(sp.kind[o], 0);
        snprintf(text, sizeof text, "%s=%lld..%lld", k->name, (long long)k->lo, (long long)k->hi);
        pt_space_init(&sp);
        if (k->kind == PT_KEY_ENUM) {
            /* an enum has no range, by number or by name */
            assert_int_equal(pt_space_parse(text, "--space", &sp, &d), PT_EINPUT);
            assert_string_equal(d.field, k->name);
            snprintf(text, sizeof text, "%s=%s..%s", k->name, k->names[0], k->names[1]);
            assert_int_equal(pt_space_parse(text, "--space", &sp, &d), PT_EINPUT);
            assert_non_null(strstr(d.msg, "is not a range LO..HI of whole numbers"));
        } else {
            if (pt_space_parse(text, "--space", &sp, &d) != PT_OK) fail_msg("\"%s\": %s", text, d.msg);
            assert_int_equal(sp.kind[i], 2);
            assert_true(pt_space_allows(&sp, i, k->lo) && pt_space_allows(&sp, i, k->hi));
            assert_false(pt_space_allows(&sp, i, k->hi + 1));
        }
    }
    /* the unknown-key message lists the keys in the dimensions' order */
    {
        pt_space sp;
        pt_diag d;
        char want[256] = "\"tq\" is not KEY=VALUES with KEY one of";
        pt_space_init(&sp);
        for (int i = 0; i < PT_STRATEGY_NKEYS; i++) {
            strcat(want, " ");
            strcat(want, pt_space_dim_name(i));
        }
        assert_int_equal(pt_space_parse("tq=2", "--space", &sp, &d), PT_EINPUT);
        assert_string_equal(d.msg, want);
    }
    /* --fix: pt_space_pin makes a one-value list of each key the string set */
    {
        pt_strategy st;
        pt_space sp;
        pt_diag d;
        unsigned set;
        assert_int_equal(pt_strategy_parse("tp=4 recompute=full pp_last=3 etp=2", &st, &set, &d), PT_OK);
        pt_space_init(&sp);
        pt_space_pin(&sp, &st, set);
        for (int i = 0; i < PT_STRATEGY_NKEYS; i++) {
            if (!(set & pt_strategy_key_at(i)->bit)) {
                assert_int_equal(sp.kind[i], 0);
                continue;
            }
            assert_int_equal(sp.kind[i], 1);
            assert_int_equal(sp.n[i], 1);
            assert_int_equal(sp.v[i][0], pt_strategy_get(&st, i));
        }
        assert_int_equal(sp.v[PT_D_TP][0], 4);
        assert_int_equal(sp.v[PT_D_RECOMPUTE][0], PT_RC_FULL);
        assert_int_equal(sp.v[PT_D_PP_LAST][0], 3);
        assert_int_equal(sp.v[PT_D_ETP][0], 2);
    }
}

/* pt_strategy_check refuses every degree below 1, naming it (the table says
 * which keys are degrees). */
static void test_key_table_degrees(void **state)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 64);
    pt_job j = th_job(8192, 512, 1);
    pt_strategy ok = th_strategy("tp=2 pp=2", &m, &c, &j);
    int ndeg = 0;
    (void)state;
    for (int i = 0; i < PT_STRATEGY_NKEYS; i++) {
        const pt_strategy_key *k = pt_strategy_key_at(i);
        pt_strategy st = ok;
        pt_diag d;
        char want[64];
        if (k->kind != PT_KEY_DEGREE) continue;
        ndeg++;
        pt_strategy_set(&st, i, 0);
        memset(&d, 0, sizeof d);
        assert_int_equal(pt_strategy_check(&st, &m, &c, &j, &d), PT_EINPUT);
        assert_string_equal(d.field, k->name);
        snprintf(want, sizeof want, "%s=0 must be between 1 and %d", k->name, PT_STRATEGY_MAX_DEGREE);
        assert_string_equal(d.msg, want);
    }
    assert_int_equal(ndeg, 8); /* tp pp dp cp ep etp vpp mbs */
    /* two wrong: the first in the string's order (ep before vpp) is named */
    {
        pt_strategy st = ok;
        pt_diag d;
        st.vpp = 0;
        st.ep = PT_STRATEGY_MAX_DEGREE + 1;
        assert_int_equal(pt_strategy_check(&st, &m, &c, &j, &d), PT_EINPUT);
        assert_string_equal(d.field, "ep");
        assert_string_equal(d.value, "1048577");
    }
}

/* ---- the rank layout -------------------------------------------------------------------- */

/* Ranks numbered by hand in Megatron's order, rank = t + tp*(c + cp*(d + dp*p)):
 * each group is the ranks that differ from rank 0 in its coordinates only. */
static void test_rank_layout(void **state)
{
    pt_strategy st;
    int64_t world;
    (void)state;
    memset(&st, 0, sizeof st);
    /* 2 x 3 x 2 x 2 = 24 ranks; experts: etp 1, ep 2, so edp = 12/2 = 6 */
    st.tp = 2, st.cp = 3, st.dp = 2, st.pp = 2, st.ep = 2, st.etp = 1;
    world = 2 * 3 * 2 * 2;
    /* tp: {0, 1}; cp: {0, 2, 4}; dp: {0, 6}; pp: {0, 12} */
    assert_int_equal(pt_strategy_group_size(&st, PT_GROUP_TP), 2);
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_TP), 1);
    assert_int_equal(pt_strategy_group_size(&st, PT_GROUP_CP), 3);
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_CP), 2);
    assert_int_equal(pt_strategy_group_size(&st, PT_GROUP_DP), 2);
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_DP), 6);
    assert_int_equal(pt_strategy_group_size(&st, PT_GROUP_PP), 2);
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_PP), 12);
    /* dp with cp folded in: the ranks with t = 0, p = 0: {0, 2, 4, 6, 8, 10} */
    assert_int_equal(pt_strategy_group_size(&st, PT_GROUP_DP_CP), 6);
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_DP_CP), 2);
    /* experts, rank = u + etp*(e + ep*(x + edp*p)): ep {0, 1}, edp {0, 2, ..., 10} */
    assert_int_equal(pt_strategy_group_size(&st, PT_GROUP_ETP), 1);
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_ETP), 1);
    assert_int_equal(pt_strategy_group_size(&st, PT_GROUP_EP), 2);
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_EP), 1);
    assert_int_equal(pt_strategy_group_size(&st, PT_GROUP_EDP), 6);
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_EDP), 2);
    /* each grid tiles the world: a group's size times its stride is the next one's stride */
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_TP) * 2, pt_strategy_stride(&st, PT_GROUP_CP));
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_CP) * 3, pt_strategy_stride(&st, PT_GROUP_DP));
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_DP) * 2, pt_strategy_stride(&st, PT_GROUP_PP));
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_PP) * 2, world);
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_EDP) * 6, pt_strategy_stride(&st, PT_GROUP_PP));

    /* etp 2 inside tp 4: tp 4 x cp 1 x dp 4 = 16 ranks per stage, ep 2 -> edp 4;
     * ep {0, 2}, edp {0, 4, 8, 12} */
    st.tp = 4, st.cp = 1, st.dp = 4, st.pp = 1, st.ep = 2, st.etp = 2;
    assert_int_equal(pt_strategy_group_size(&st, PT_GROUP_ETP), 2);
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_EP), 2);
    assert_int_equal(pt_strategy_group_size(&st, PT_GROUP_EDP), 4);
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_EDP), 4);
    assert_int_equal(pt_strategy_stride(&st, PT_GROUP_PP), 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_parse_values),
        cmocka_unit_test(test_bad_parse),
        cmocka_unit_test(test_bad_parse_value),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_resolve_refuses),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_expert_rules),
        cmocka_unit_test(test_check_direct),
        cmocka_unit_test(test_key_table_covers_struct),
        cmocka_unit_test(test_key_table_round_trip),
        cmocka_unit_test(test_key_table_space),
        cmocka_unit_test(test_key_table_degrees),
        cmocka_unit_test(test_rank_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
