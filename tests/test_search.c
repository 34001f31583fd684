/*
 * test_search.c -- the strategy search (src/plan/search.c).
 *
 * Checked against brute force: every strategy the enumeration may produce is
 * priced one by one through the public path (parse, resolve, pt_cost_eval);
 * the search's best must equal the brute-force best, its top K must be
 * ordered, valid, and priced exactly as pt_cost_eval prices them; the answer
 * must not depend on the thread count or on memory pruning.
 */
#include "helpers.h"
#include "plan/search.h"

/* llama3-8b on 16 H100 (2 nodes), seq 4096, gbs 32: small enough to price
 * every strategy one by one. */
static void test_brute_force(void **state)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 16);
    pt_job j = th_job(4096, 32, 1);
    pt_search_opts o = th_search_opts(PT_SEARCH_MAX_TOP, 1, 32);
    pt_search_result r;
    pt_diag d;
    double best = 0;
    /* even stages only: the brute force below does not write uneven ones */
    assert_int_equal(pt_space_parse("pp_first=0 pp_last=0", "--space", &o.space, &d), PT_OK);
    int64_t fitting = 0;
    static const char *const sched[] = {"gpipe", "1f1b", "interleaved", "zb-h1", "zb-v", "dualpipe"};
    static const char *const rcs[] = {"none", "full"}; /* selective == none with flash */
    static const char *const offs[] = {"none", "optimizer", "params"};
    (void)state;
    assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_OK);
    for (int tp = 1; tp <= 16; tp *= 2)
        for (int cp = 1; cp <= 16; cp *= 2)
            for (int pp = 1; pp <= 16; pp *= 2)
                for (int vpp = 1; vpp <= 16; vpp++)
                    for (int mbs = 1; mbs <= 32; mbs++)
                        for (int sp = 0; sp <= 1; sp++)
                            for (int z = 0; z <= 3; z++)
                                for (int rc = 0; rc < 2; rc++)
                                    for (int s = 0; s < 6; s++)
                                        for (int of = 0; of < 3; of++) {
                                            char buf[256];
                                            pt_strategy st;
                                            unsigned set;
                                            pt_cost k;
                                            int odd = mbs;
                                            while (odd % 2 == 0) odd /= 2;
                                            if (odd != 1 && odd != 3) continue;
                                            if (sp && tp == 1) continue;
                                            /* cheap pre-filters: the rules would refuse these */
                                            if (m.layers % (pp * vpp) || 32 % mbs || 16 % (tp * cp * pp))
                                                continue;
                                            /* without a pipeline gpipe is 1f1b: searched once */
                                            if (pp == 1 && s == 0) continue;
                                            snprintf(buf, sizeof buf,
                                                     "tp=%d cp=%d pp=%d vpp=%d mbs=%d sp=%d zero=%d "
                                                     "recompute=%s schedule=%s offload=%s",
                                                     tp, cp, pp, vpp, mbs, sp, z, rcs[rc], sched[s], offs[of]);
                                            if (pt_strategy_parse(buf, &st, &set, &d) != PT_OK) continue;
                                            if (pt_strategy_resolve(&st, set, &m, &c, &j, &d) != PT_OK) continue;
                                            pt_cost_eval(&m, &c, &j, &st, &k);
                                            if (!k.fits) continue;
                                            fitting++;
                                            if (k.tokens_per_s > best) best = k.tokens_per_s;
                                        }
    /* every strategy that fits was found, and the best is the best */
    assert_int_equal(r.fitting, fitting);
    assert_true(r.n > 0);
    assert_true(r.plans[0].cost.tokens_per_s == best);
    for (int i = 0; i < r.n; i++) {
        pt_cost k;
        assert_int_equal(pt_strategy_check(&r.plans[i].st, &m, &c, &j, &d), PT_OK);
        pt_cost_eval(&m, &c, &j, &r.plans[i].st, &k);
        assert_true(k.step_time_s == r.plans[i].cost.step_time_s); /* prepared == direct */
        assert_true(k.mem.total == r.plans[i].cost.mem.total);
        if (i) assert_true(r.plans[i - 1].cost.tokens_per_s >= r.plans[i].cost.tokens_per_s);
    }
    pt_search_free(&r);
}

static int same_plans(const pt_search_result *a, const pt_search_result *b)
{
    if (a->n != b->n || a->evaluated != b->evaluated || a->fitting != b->fitting) return 0;
    for (int i = 0; i < a->n; i++)
        if (memcmp(&a->plans[i].st, &b->plans[i].st, sizeof a->plans[i].st) ||
            a->plans[i].cost.step_time_s != b->plans[i].cost.step_time_s)
            return 0;
    return 1;
}

/* The same answer for 1, 2 and 5 threads, and with pruning off. */
static void test_threads_and_pruning(void **state)
{
    pt_model m = th_model("gpt3-175b");
    pt_cluster c = th_cluster("dgx-a100-80g", 128);
    pt_job j = th_job(2048, 256, 1);
    pt_search_result r1, r2, r5, rn;
    pt_search_opts o = th_search_opts(8, 1, 256);
    pt_diag d;
    (void)state;
    assert_int_equal(pt_search(&m, &c, &j, &o, &r1, &d), PT_OK);
    o.threads = 2;
    assert_int_equal(pt_search(&m, &c, &j, &o, &r2, &d), PT_OK);
    o.threads = 5;
    assert_int_equal(pt_search(&m, &c, &j, &o, &r5, &d), PT_OK);
    o.threads = 1;
    o.prune = 0;
    assert_int_equal(pt_search(&m, &c, &j, &o, &rn, &d), PT_OK);
    assert_true(same_plans(&r1, &r2));
    assert_true(same_plans(&r1, &r5));
    assert_true(r1.pruned > 0 && rn.pruned == 0);
    assert_true(rn.priced == r1.evaluated); /* without pruning everything is priced */
    assert_int_equal(rn.n, r1.n);
    for (int i = 0; i < r1.n; i++)
        assert_memory_equal(&rn.plans[i].st, &r1.plans[i].st, sizeof r1.plans[i].st);
    /* the explanation's alternatives differ from the winner in their dimension */
    for (int dd = 0; dd < PT_D_COUNT; dd++)
        if (r1.have_alt[dd])
            assert_true(pt_strategy_dim(&r1.alt[dd].st, dd) != pt_strategy_dim(&r1.plans[0].st, dd));
    pt_search_free(&r1);
    pt_search_free(&r2);
    pt_search_free(&r5);
    pt_search_free(&rn);
}

/* The search's own score, as a callback: it prices every strategy in full. */
static double by_tokens(const pt_plan *p, const pt_job *job, const void *arg)
{
    (void)job, (void)arg;
    return p->cost.tokens_per_s;
}

/* Ranked by tokens/s alone the search first prices a strategy with the
 * replayed data-parallel time taken as 0 (pt_cost_eval_bound) and replays it
 * only if that bound could still rank: the same plans, step times to the
 * bit and per-dimension alternatives as pricing every strategy in full, on a
 * space of pipelines under ZeRO 1 (replayed), ZB-V and DualPipe; the bound
 * is one, never slower than the full price, and says when it is the full
 * price (nothing replayed left out), so the search prices that strategy
 * once. */
static void test_lazy_bound(void **state)
{
    pt_model m = th_model("gpt3-175b");
    pt_cluster c = th_cluster("dgx-a100-80g", 128);
    pt_job j = th_job(2048, 256, 1);
    pt_search_result lazy, full;
    pt_search_opts o = th_search_opts(8, 1, 256);
    pt_diag d;
    (void)state;
    assert_int_equal(pt_search(&m, &c, &j, &o, &lazy, &d), PT_OK);
    o.score = by_tokens;
    assert_int_equal(pt_search(&m, &c, &j, &o, &full, &d), PT_OK);
    assert_true(same_plans(&lazy, &full));
    for (int dd = 0; dd < PT_D_COUNT; dd++) {
        assert_int_equal(lazy.have_alt[dd], full.have_alt[dd]);
        if (lazy.have_alt[dd]) {
            assert_memory_equal(&lazy.alt[dd].st, &full.alt[dd].st, sizeof lazy.alt[dd].st);
            assert_true(lazy.alt[dd].cost.step_time_s == full.alt[dd].cost.step_time_s);
        }
    }
    {
        pt_strategy st = th_strategy("tp=8 pp=8 dp=2 mbs=1 zero=1 vpp=2 schedule=interleaved", &m, &c, &j);
        pt_cost_prep pr;
        pt_cost lo, hi;
        pt_cost_prepare(&m, &c, &j, &st, &pr);
        assert_int_equal(pt_cost_eval_bound(&m, &c, &j, &st, &pr, &lo), 0); /* a replay left out */
        pt_cost_eval_prepared(&m, &c, &j, &st, &pr, &hi);
        assert_true(lo.step_time_s < hi.step_time_s && hi.time.dp_comm > 0 && lo.time.dp_comm == 0);
        /* ZeRO-3 through a 1F1B pipeline is replayed too (dp_zero3_replay) */
        st = th_strategy("tp=8 pp=8 dp=2 mbs=1 zero=3 schedule=1f1b", &m, &c, &j);
        pt_cost_prepare(&m, &c, &j, &st, &pr);
        assert_int_equal(pt_cost_eval_bound(&m, &c, &j, &st, &pr, &lo), 0);
        pt_cost_eval_prepared(&m, &c, &j, &st, &pr, &hi);
        assert_true(lo.step_time_s < hi.step_time_s && hi.time.dp_comm > 0 && lo.time.dp_comm == 0);
        /* without a pipeline ZeRO-3 is priced in closed form: the bound is
         * the price, and says so (the search then prices it once) */
        st = th_strategy("tp=8 pp=1 dp=16 mbs=1 zero=3", &m, &c, &j);
        pt_cost_prepare(&m, &c, &j, &st, &pr);
        assert_int_equal(pt_cost_eval_bound(&m, &c, &j, &st, &pr, &lo), 1);
        pt_cost_eval_prepared(&m, &c, &j, &st, &pr, &hi);
        assert_true(lo.step_time_s == hi.step_time_s && lo.time.dp_comm == hi.time.dp_comm && hi.time.dp_comm > 0);
    }
    pt_search_free(&lazy);
    pt_search_free(&full);
}

/* --space / --fix syntax. */
static void test_space(void **state)
{
    pt_space sp;
    pt_diag d;
    (void)state;
    pt_space_init(&sp);
    assert_int_equal(pt_space_parse("tp=4,8 pp=1..16 recompute=none,full", "--space", &sp, &d), PT_OK);
    assert_true(pt_space_allows(&sp, PT_D_TP, 8) && !pt_space_allows(&sp, PT_D_TP, 2));
    assert_true(pt_space_allows(&sp, PT_D_PP, 16) && !pt_space_allows(&sp, PT_D_PP, 32));
    assert_true(pt_space_allows(&sp, PT_D_RECOMPUTE, PT_RC_FULL));
    assert_false(pt_space_allows(&sp, PT_D_RECOMPUTE, PT_RC_SELECTIVE));
    assert_true(pt_space_allows(&sp, PT_D_MBS, 7)); /* not constrained */
    assert_int_equal(pt_space_parse("tq=2", "--space", &sp, &d), PT_EINPUT);
    assert_string_equal(d.field, "tq");
    assert_int_equal(d.col, 1);
    assert_int_equal(pt_space_parse("tp=4 pp=x", "--space", &sp, &d), PT_EINPUT);
    assert_string_equal(d.field, "pp");
    assert_int_equal(d.col, 6);
    assert_int_equal(pt_space_parse("pp=8..2", "--space", &sp, &d), PT_EINPUT);
    assert_int_equal(pt_space_parse("schedule=1f1b..zb-v", "--space", &sp, &d), PT_EINPUT);
}

/* A global-batch range tries several batches and ranks by tokens/s. */
static void test_gbs_range(void **state)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 64);
    pt_job j = th_job(8192, 256, 1);
    pt_search_opts o = th_search_opts(50, 2, 256);
    pt_search_result r;
    pt_diag d;
    int seen_other = 0;
    (void)state;
    o.gbs_hi = 1024;
    assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_OK);
    for (int i = 0; i < r.n; i++) {
        assert_true(r.plans[i].st.gbs >= 256 && r.plans[i].st.gbs <= 1024);
        if (r.plans[i].st.gbs != r.plans[0].st.gbs) seen_other = 1;
    }
    (void)seen_other;
    assert_true(r.n == 50);
    pt_search_free(&r);
}

/* Uneven stages: llama3-70b (80 layers) on 64 H100, tp=4 pp=4, no recompute,
 * seq 8192: the even split (20 layers a stage) does not fit on the first
 * stage, which holds 4 micro-batches of activations; the search finds a
 * layout that gives the first stage fewer layers and fits. */
static void test_uneven_stages(void **state)
{
    pt_model m = th_model("llama3-70b");
    pt_cluster c = th_cluster("dgx-h100", 64);
    pt_job j = th_job(8192, 64, 1);
    pt_search_opts o = th_search_opts(5, 2, 64);
    pt_search_result r;
    pt_strategy even;
    pt_cost k;
    pt_diag d;
    unsigned set;
    (void)state;
    assert_int_equal(pt_strategy_parse("tp=4 pp=4 mbs=1 zero=1 recompute=none schedule=1f1b", &even, &set, &d),
                     PT_OK);
    assert_int_equal(pt_strategy_resolve(&even, set, &m, &c, &j, &d), PT_OK);
    pt_cost_eval(&m, &c, &j, &even, &k);
    assert_false(k.fits);
    assert_int_equal(pt_space_parse("tp=4 pp=4 cp=1 mbs=1 zero=1 recompute=none schedule=1f1b offload=none",
                                    "--fix", &o.space, &d), PT_OK);
    assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_OK);
    assert_true(r.n > 0);
    assert_true(r.plans[0].cost.fits);
    assert_true(r.plans[0].st.pp_first > 0 && r.plans[0].st.pp_first < 20);
    assert_int_equal(pt_strategy_check(&r.plans[0].st, &m, &c, &j, &d), PT_OK);
    pt_search_free(&r);
}

/* What test_uneven_not_dividing's on_fit sees: every layout of pp=8 that
 * fits, and any fitting plan the strategy rules refuse. */
typedef struct layouts {
    const pt_model *m;
    const pt_cluster *c;
    const pt_job *j;
    int n, seen[16][2];
    int64_t invalid, fitting;
} layouts;

static void note_layout(const pt_plan *p, void *arg)
{
    layouts *L = arg;
    pt_diag d;
    int i;
    L->fitting++;
    if (pt_strategy_check(&p->st, L->m, L->c, L->j, &d) != PT_OK) L->invalid++;
    if (p->st.pp != 8) return;
    for (i = 0; i < L->n; i++)
        if (L->seen[i][0] == p->st.pp_first && L->seen[i][1] == p->st.pp_last) return;
    if (L->n < 16) {
        L->seen[L->n][0] = p->st.pp_first;
        L->seen[L->n][1] = p->st.pp_last;
        L->n++;
    }
}

/* Llama 3.1 405B has 126 layers, which no pp above 2 divides.  On 512 H100
 * (gbs 1024, seq 4096) the search prices pp = 4, 8, 16, 32, 64 with uneven
 * first and last stages, the middle ones even: for pp=8 the middle six take
 * 16 or 17 layers and the ends split the rest, 15+15 or 12+12 (hand count:
 * 126 - 6*16 = 30, 126 - 6*17 = 24).  Every plan that fits passes the
 * strategy rules, and a layout --fix names is priced even where those two
 * would not reach it (13 + 6*17 + 11). */
static void test_uneven_not_dividing(void **state)
{
    pt_model m = th_model("llama3.1-405b");
    pt_cluster c = th_cluster("dgx-h100", 512);
    pt_job j = th_job(4096, 1024, 1);
    pt_search_opts o = th_search_opts(5, 2, 1024), f = th_search_opts(5, 2, 1024);
    pt_search_result r, rf;
    layouts L;
    pt_diag d;
    int has15 = 0;
    (void)state;
    memset(&L, 0, sizeof L);
    L.m = &m, L.c = &c, L.j = &j;
    o.on_fit = note_layout;
    o.on_fit_arg = &L;
    assert_int_equal(m.layers, 126);
    assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_OK);
    assert_true(r.n > 0);
    assert_true(L.fitting > 0);
    assert_int_equal(L.invalid, 0);
    assert_true(L.n >= 1 && L.n <= 2);
    for (int i = 0; i < L.n; i++) {
        int ff = L.seen[i][0], ll = L.seen[i][1];
        assert_true((ff == 15 && ll == 15) || (ff == 12 && ll == 12));
        has15 |= ff == 15;
    }
    assert_true(has15);
    for (int i = 0; i < r.n; i++) {
        pt_cost k;
        assert_int_equal(pt_strategy_check(&r.plans[i].st, &m, &c, &j, &d), PT_OK);
        if (126 % r.plans[i].st.pp) assert_true(r.plans[i].st.pp_first > 0 && r.plans[i].st.pp_last > 0);
        pt_cost_eval(&m, &c, &j, &r.plans[i].st, &k);
        assert_true(k.step_time_s == r.plans[i].cost.step_time_s);
    }
    /* the layout, and one outside the three, named by --fix */
    assert_int_equal(pt_space_parse("pp=8 pp_first=15 pp_last=15", "--fix", &f.space, &d), PT_OK);
    assert_int_equal(pt_search(&m, &c, &j, &f, &rf, &d), PT_OK);
    assert_true(rf.n > 0);
    assert_int_equal(rf.plans[0].st.pp_first, 15);
    pt_search_free(&rf);
    f = th_search_opts(5, 2, 1024);
    assert_int_equal(pt_space_parse("pp=8 pp_first=13 pp_last=11", "--fix", &f.space, &d), PT_OK);
    assert_int_equal(pt_search(&m, &c, &j, &f, &rf, &d), PT_OK);
    assert_true(rf.n > 0);
    assert_int_equal(rf.plans[0].st.pp_first, 13);
    assert_int_equal(rf.plans[0].st.pp_last, 11);
    assert_int_equal(pt_strategy_check(&rf.plans[0].st, &m, &c, &j, &d), PT_OK);
    pt_search_free(&rf);
    pt_search_free(&r);
}

/* Nothing left to price: the search counts, per rule, the values it refused
 * while enumerating, so `plan` can name the rule.  llama3-8b (32 layers) on
 * 16 H100, gbs 64: vpp=3 with pp=8 needs 24 | 32, which fails; zero=1 with
 * offload=params breaks "offload=params needs zero=3" for every candidate;
 * tp=3 does not divide 16.  Each is the rule with the most refusals or among
 * them, and the rule's text names the model's numbers. */
static void test_refusal_rules(void **state)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 16);
    pt_job j = th_job(4096, 64, 1);
    static const struct {
        const char *fix;
        int rule;
        int top;   /* 1: the rule with the most refusals */
    } cases[] = {
        {"pp=8 vpp=3", PT_RULE_VPP, 0},
        {"zero=1 offload=params", PT_RULE_OFFLOAD, 1},
        {"tp=3", PT_RULE_DEVICES, 1},
        {"pp=4 cp=3", PT_RULE_DEVICES, 1},
        {"schedule=dualpipe pp=1", PT_RULE_SCHEDULE, 1},
    };
    char text[256];
    pt_diag d;
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pt_search_opts o = th_search_opts(5, 2, 64);
        pt_search_result r;
        int64_t most = 0;
        assert_int_equal(pt_space_parse(cases[i].fix, "--fix", &o.space, &d), PT_OK);
        assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_OK);
        assert_int_equal(r.n, 0);
        assert_int_equal(r.evaluated, 0);
        assert_false(r.have_miss);
        for (int k = 0; k < PT_RULE_COUNT; k++)
            if (r.refused[k] > most) most = r.refused[k];
        if (r.refused[cases[i].rule] == 0) fail_msg("--fix %s: rule %d not counted", cases[i].fix, cases[i].rule);
        if (cases[i].top) assert_true(r.refused[cases[i].rule] == most);
        pt_search_free(&r);
    }
    /* a search that prices something refuses no value it could have tried */
    {
        pt_search_opts o = th_search_opts(5, 2, 64);
        pt_search_result r;
        assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_OK);
        assert_true(r.n > 0);
        assert_int_equal(r.refused[PT_RULE_OFFLOAD], 0); /* zero and offload open */
        pt_search_free(&r);
    }
    pt_search_rule_describe(PT_RULE_VPP, &m, &c, &j, text, sizeof text);
    assert_non_null(strstr(text, "num_layers=32"));
    pt_search_rule_describe(PT_RULE_DEVICES, &m, &c, &j, text, sizeof text);
    assert_non_null(strstr(text, "16 devices"));
    pt_search_rule_describe(PT_RULE_TP_SHAPE, &m, &c, &j, text, sizeof text);
    assert_non_null(strstr(text, "num_key_value_heads=8"));
}

/* A MoE model: Qwen3-235B-A22B on 64 H100 (8 nodes of 8 on NVLink, 50 GB/s
 * per GPU of InfiniBand between them) must shard its 128 experts (235B
 * parameters do not fit otherwise).  The search keeps the expert-parallel
 * group inside one NVLink domain: its four all-to-alls per MoE layer at
 * NVLink speed cost less than anything a wider group saves.  Forcing the
 * group across nodes (ep=16 or 32 with etp=1, or ep=8 with etp=2) is slower,
 * mostly by the all-to-all (test_cost.c test_ep_placement prices one
 * strategy both ways). */
static void test_moe_ep_inside_node(void **state)
{
    pt_model m = th_model("qwen3-235b-a22b");
    pt_cluster c = th_cluster("dgx-h100", 64);
    pt_job j = th_job(4096, 512, 1);
    pt_search_opts o = th_search_opts(3, 2, 512), wide = th_search_opts(1, 2, 512);
    pt_search_result r, rw;
    pt_diag d;
    const pt_plan *b;
    (void)state;
    assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_OK);
    assert_true(r.n > 0);
    b = &r.plans[0];
    assert_true(b->st.ep > 1);
    assert_int_equal(pt_coll_level(&c, b->st.ep, b->st.etp), 0);
    assert_true(b->cost.time.ep_comm > 0.0);
    /* every expert grid spanning nodes */
    assert_int_equal(pt_space_parse("ep=16,32,64,128", "--space", &wide.space, &d), PT_OK);
    assert_int_equal(pt_search(&m, &c, &j, &wide, &rw, &d), PT_OK);
    assert_true(rw.n > 0);
    assert_true(pt_coll_level(&c, rw.plans[0].st.ep, rw.plans[0].st.etp) > 0);
    assert_true(rw.plans[0].cost.step_time_s > b->cost.step_time_s);
    /* with Megatron's 1F1B (no DualPipe to hide the all-to-all behind the
     * paired micro-batch) the wide group's all-to-all is what costs more */
    {
        pt_search_opts o1 = th_search_opts(1, 2, 512), w1 = th_search_opts(1, 2, 512);
        pt_search_result r1, rw1;
        assert_int_equal(pt_space_parse("schedule=1f1b", "--space", &o1.space, &d), PT_OK);
        assert_int_equal(pt_space_parse("schedule=1f1b ep=16,32,64,128", "--space", &w1.space, &d), PT_OK);
        assert_int_equal(pt_search(&m, &c, &j, &o1, &r1, &d), PT_OK);
        assert_int_equal(pt_search(&m, &c, &j, &w1, &rw1, &d), PT_OK);
        assert_true(r1.n > 0 && rw1.n > 0);
        assert_int_equal(pt_coll_level(&c, r1.plans[0].st.ep, r1.plans[0].st.etp), 0);
        assert_true(rw1.plans[0].cost.step_time_s > r1.plans[0].cost.step_time_s);
        assert_true(rw1.plans[0].cost.time.ep_comm > r1.plans[0].cost.time.ep_comm);
        pt_search_free(&r1);
        pt_search_free(&rw1);
    }
    /* a dense model is searched with ep=1, etp=tp only */
    {
        pt_model l = th_model("llama3-8b");
        pt_search_result rl;
        pt_search_opts ol = th_search_opts(5, 2, 512);
        assert_int_equal(pt_search(&l, &c, &j, &ol, &rl, &d), PT_OK);
        for (int k = 0; k < rl.n; k++) {
            assert_int_equal(rl.plans[k].st.ep, 1);
            assert_int_equal(rl.plans[k].st.etp, rl.plans[k].st.tp);
        }
        pt_search_free(&rl);
    }
    pt_search_free(&r);
    pt_search_free(&rw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brute_force),
        cmocka_unit_test(test_threads_and_pruning),
        cmocka_unit_test(test_lazy_bound),
        cmocka_unit_test(test_space),
        cmocka_unit_test(test_gbs_range),
        cmocka_unit_test(test_uneven_stages),
        cmocka_unit_test(test_uneven_not_dividing),
        cmocka_unit_test(test_refusal_rules),
        cmocka_unit_test(test_moe_ep_inside_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
