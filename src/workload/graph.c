/*
 * graph.c -- layer graphs: shapes, costs, the graph file, built-in networks
 * (see graph.h).
 */
#include "workload/graph.h"
#include "base/base.h"
#include "workload/unet3d.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[PT_G_COUNT] = {
    "input", "conv", "maxpool", "avgpool", "globalpool", "linear", "lstm",
    "embedding", "attention", "norm", "add", "concat", "relu", "loss", "embedding_bag", "interaction"};

/* ---- layer names: an open-addressing hash table ----------------------------
 * g->hidx holds g->hcap slots (a power of two, at least twice the layers), each
 * a layer index or -1; a name probes linearly from its FNV-1a hash.  Lookups
 * and inserts are O(1) expected, so a graph of n layers reads in O(n) (the
 * list scan it replaces made 10^6 layers take over 100 s). */

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int find_layer(const pt_graph *g, const char *name)
{
    uint32_t mask, i;
    if (!g->hcap) return -1;
    mask = (uint32_t)g->hcap - 1;
    for (i = name_hash(name) & mask; g->hidx[i] >= 0; i = (i + 1) & mask)
        if (!strcmp(g->l[g->hidx[i]].name, name)) return g->hidx[i];
    return -1;
}

/* Room for one more name: the table is at most half full. */
static int index_grow(pt_graph *g)
{
    int ncap, *nh;
    if (2 * (g->n + 1) <= g->hcap) return 0;
    ncap = g->hcap ? 2 * g->hcap : 128;
    if (!(nh = malloc((size_t)ncap * sizeof *nh))) return -1;
    for (int i = 0; i < ncap; i++) nh[i] = -1;
    for (int k = 0; k < g->n; k++) {
        uint32_t mask = (uint32_t)ncap - 1, i = name_hash(g->l[k].name) & mask;
        while (nh[i] >= 0) i = (i + 1) & mask;
        nh[i] = k;
    }
    free(g->hidx);
    g->hidx = nh;
    g->hcap = ncap;
    return 0;
}

static void index_put(pt_graph *g, int k)
{
    uint32_t mask = (uint32_t)g->hcap - 1, i = name_hash(g->l[k].name) & mask;
    while (g->hidx[i] >= 0) i = (i + 1) & mask;
    g->hidx[i] = k;
}

static void gemm(pt_glayer *l, double m, double n, double k, double batch, double serial)
{
    int i = l->ngemm++;
    l->gm[i] = m;
    l->gn[i] = n;
    l->gk[i] = k;
    l->gbatch[i] = batch;
    l->gserial[i] = serial;
    l->flops += 2.0 * m * n * k * batch * serial;
}

static double elems(const pt_glayer *l)
{
    return l->seq ? (double)l->t * (double)l->d : (double)l->c * (double)l->h * (double)l->w;
}

/* ---- recommendation layers ------------------------------------------------
 * embedding_bag: the table of one sparse feature.  Its forward reads
 * pooling rows of dim elements and writes the pooled vector; how it is
 * sharded and what that costs is src/cost/embed_cost.c's. */
static pt_status emb_table(const pt_gspec *s, pt_glayer *L, pt_diag *d)
{
    static const char *const prec[] = {"fp32", "fp16", "bf16", "int8"};
    static const int prec_bytes[] = {4, 2, 2, 1};
    static const char *const opt[] = {"sgd", "rowwise_adagrad", "adagrad", "adam"};
    const char *who = s->name;
    int i;
    if (s->rows <= 0 || s->dim <= 0)
        return pt_diag_set(d, NULL, s->rows <= 0 ? "rows" : "dim", who, "embedding_bag %s needs rows and dim > 0", who);
    if (!(s->pooling >= 0 && s->pooling <= 1e6))
        return pt_diag_set(d, NULL, "pooling", who, "embedding_bag %s: pooling must be in (0, 1e6] ids per sample", who);
    if (!(s->hot_rows >= 0 && s->hot_rows <= 1))
        return pt_diag_set(d, NULL, "hot_rows", who, "embedding_bag %s: hot_rows must be a fraction in (0, 1]", who);
    if (!(s->hit_rate >= 0 && s->hit_rate <= 1))
        return pt_diag_set(d, NULL, "hit_rate", who, "embedding_bag %s: hit_rate must be a fraction in (0, 1]", who);
    L->emb.rows = s->rows;
    L->emb.pooling = s->pooling > 0 ? s->pooling : 1.0;
    /* TorchRec's default cache_load_factor (planner constants:
     * UVM_CACHING_RATIO 0.2); without access statistics a cache of a
     * fraction of the rows serves that fraction of uniform lookups */
    L->emb.hot_rows = s->hot_rows > 0 ? s->hot_rows : 0.2;
    L->emb.hit_rate = s->hit_rate > 0 ? s->hit_rate : L->emb.hot_rows;
    for (i = 0; i < 4 && s->precision && strcmp(s->precision, prec[i]); i++) {}
    if (i == 4)
        return pt_diag_set(d, NULL, "precision", s->precision, "embedding_bag %s: precision \"%s\" is not fp32, "
                           "fp16, bf16 or int8", who, s->precision);
    L->emb.bytes = prec_bytes[s->precision ? i : 0];
    for (i = 0; i < 4 && s->optimizer && strcmp(s->optimizer, opt[i]); i++) {}
    if (i == 4)
        return pt_diag_set(d, NULL, "optimizer", s->optimizer, "embedding_bag %s: optimizer \"%s\" is not sgd, "
                           "rowwise_adagrad, adagrad or adam", who, s->optimizer);
    L->emb.optimizer = s->optimizer ? i : 1;
    L->c = s->dim, L->h = 1, L->w = 1;
    L->params = (double)s->rows * (double)s->dim;
    L->mem_bytes = L->emb.pooling * (double)s->dim * L->emb.bytes + 4.0 * (double)s->dim;
    L->act_bytes = 4.0 * (double)s->dim;
    return PT_OK;
}

/* interaction: the dense vector `a` and every embedding_bag before it. */
static pt_status interaction(const pt_graph *g, const pt_gspec *s, const pt_glayer *a, pt_glayer *L, pt_diag *d)
{
    const char *who = s->name;
    double F = 1, W = (double)a->c;
    int dcn = s->kind && !strcmp(s->kind, "dcn");
    if (s->kind && !dcn && strcmp(s->kind, "dot"))
        return pt_diag_set(d, NULL, "kind", s->kind, "interaction %s: kind \"%s\" is not dot or dcn", who, s->kind);
    if (a->seq || a->h != 1 || a->w != 1)
        return pt_diag_set(d, NULL, "in", a->name, "interaction %s needs a vector input (a linear layer's output)",
                           who);
    for (int i = 0; i < g->n; i++) {
        const pt_glayer *e = &g->l[i];
        if (e->op != PT_G_EMBEDDING_BAG) continue;
        if (!dcn && e->c != a->c)
            return pt_diag_set(d, NULL, "in", e->name, "interaction %s (dot): table %s has dim %lld, the dense "
                               "vector %s has %lld", who, e->name, (long long)e->c, a->name, (long long)a->c);
        F += 1, W += (double)e->c;
    }
    if (F < 2) return pt_diag_set(d, NULL, "in", who, "interaction %s: no embedding_bag layer before it", who);
    if (!dcn) {
        double D = (double)a->c;
        L->c = a->c + (int64_t)(F * (F - 1) / 2);
        gemm(L, F, F, D, 1, 1); /* all pairwise dot products, as one F x F x D GEMM */
        L->mem_bytes = 2.0 * (F * D + (double)L->c) * 2.0;
        L->act_bytes = 2.0 * F * D;
    } else {
        double r = (double)s->rank;
        if (s->cross_layers <= 0 || s->rank <= 0)
            return pt_diag_set(d, NULL, s->cross_layers <= 0 ? "cross_layers" : "rank", who,
                               "interaction %s (dcn) needs cross_layers and rank > 0", who);
        L->c = (int64_t)W;
        /* per layer V^T x_l, then U (...): layer after layer */
        gemm(L, 1, r, W, 1, (double)s->cross_layers);
        gemm(L, 1, W, r, 1, (double)s->cross_layers);
        L->params = (double)s->cross_layers * (2.0 * W * r + W);
        L->mem_bytes = (double)s->cross_layers * 2.0 * 4.0 * W; /* x0 * (...) + b + x_l */
        L->act_bytes = (double)s->cross_layers * 2.0 * (2.0 * W + r);
    }
    L->h = 1, L->w = 1;
    return PT_OK;
}

pt_status pt_graph_add(pt_graph *g, const pt_gspec *s, pt_diag *d)
{
    pt_glayer L, *a = NULL;
    pt_status rst;
    const char *who = s->name ? s->name : "?";
    memset(&L, 0, sizeof L);
    pt_strlcpy(L.name, who, sizeof L.name);
    L.op = s->op;
    L.kv = -1;
    if (!s->name || !s->name[0]) return pt_diag_set(d, NULL, "name", "", "a layer has no name");
    if (g->n >= PT_GRAPH_MAX_LAYERS)
        return pt_diag_set(d, NULL, "layers", who, "a graph holds at most %d layers", PT_GRAPH_MAX_LAYERS);
    if (find_layer(g, s->name) >= 0)
        return pt_diag_set(d, NULL, "name", s->name, "layer name \"%s\" is used twice", s->name);
    if (s->op == PT_G_EMBEDDING_BAG && s->in[0])
        return pt_diag_set(d, NULL, "in", s->in[0], "embedding_bag %s reads its own sparse feature: it takes no in",
                           who);
    if (s->op != PT_G_INPUT && s->op != PT_G_EMBEDDING_BAG) {
        if (!s->in[0]) {
            if (g->n == 0) return pt_diag_set(d, NULL, "in", "", "layer %s has no input", who);
            L.in[L.nin++] = g->n - 1;
        }
        for (int i = 0; i < PT_GRAPH_MAX_IN && s->in[i]; i++) {
            int k = find_layer(g, s->in[i]);
            if (k < 0)
                return pt_diag_set(d, NULL, "in", s->in[i], "layer %s: input \"%s\" is not an earlier layer",
                                   who, s->in[i]);
            L.in[L.nin++] = k;
        }
        a = &g->l[L.in[0]];
    }
#define NEED(cond, field, ...)                                                                       \
    do {                                                                                             \
        if (!(cond)) return pt_diag_set(d, NULL, field, who, __VA_ARGS__);                           \
    } while (0)
    switch (s->op) {
    case PT_G_INPUT:
        NEED(s->shape[0] > 0, "shape", "input %s: shape must be [C, H, W] or [T] with positive sizes", who);
        if (s->shape[1] > 0) {
            NEED(s->shape[2] > 0, "shape", "input %s: an image shape needs [C, H, W]", who);
            L.c = s->shape[0], L.h = s->shape[1], L.w = s->shape[2];
        } else {
            L.seq = 1, L.t = s->shape[0], L.d = 0; /* token ids */
        }
        break;
    case PT_G_CONV: {
        int64_t kh = s->kh ? s->kh : s->kernel, kw = s->kw ? s->kw : s->kernel;
        int64_t ph = s->kh ? s->ph : s->pad, pw = s->kw ? s->pw : s->pad;
        int64_t st = s->stride ? s->stride : 1, gr = s->groups ? s->groups : 1;
        NEED(!a->seq, "in", "conv %s needs an image input", who);
        NEED(s->out > 0 && kh > 0 && kw > 0, "out_channels", "conv %s needs out_channels and kernel > 0", who);
        NEED(a->c % gr == 0 && s->out % gr == 0, "groups", "conv %s: groups=%lld does not divide the channels",
             who, (long long)gr);
        NEED(a->h + 2 * ph >= kh && a->w + 2 * pw >= kw, "kernel", "conv %s: kernel larger than its input", who);
        NEED(s->tokens >= 0 && s->tokens <= 64, "tokens", "conv %s: tokens=%lld is not in 0..64", who,
             (long long)s->tokens);
        L.c = s->out;
        L.h = (a->h + 2 * ph - kh) / st + 1;
        L.w = (a->w + 2 * pw - kw) / st + 1;
        gemm(&L, (double)(L.h * L.w), (double)(s->out / gr), (double)(a->c / gr * kh * kw), (double)gr, 1);
        L.params = (double)(s->out * (a->c / gr) * kh * kw) + (double)(s->bn ? 2 * s->out : s->out);
        if (s->tokens > 0) {
            /* patch embedding: the positions become tokens, each with a
             * learnt position embedding, plus tokens - 1 learnt tokens */
            L.seq = 1, L.t = L.h * L.w + s->tokens - 1, L.d = s->out;
            L.params += (double)(L.t * s->out) + (double)((s->tokens - 1) * s->out);
            L.c = 0, L.h = 0, L.w = 0;
        }
        L.act_bytes = 2.0 * elems(&L) * (s->bn ? 2.0 : 1.0);
        L.mem_bytes = (s->bn ? 4.0 : 0.0) * elems(&L) + (s->relu ? 4.0 : 0.0) * elems(&L);
        break;
    }
    case PT_G_MAXPOOL:
    case PT_G_AVGPOOL: {
        int64_t k = s->kernel, st = s->stride ? s->stride : 1;
        NEED(!a->seq && k > 0, "kernel", "%s %s needs an image input and kernel > 0", op_names[s->op], who);
        NEED(a->h + 2 * s->pad >= k && a->w + 2 * s->pad >= k, "kernel", "%s %s: kernel larger than its input",
             op_names[s->op], who);
        L.c = a->c;
        L.h = (a->h + 2 * s->pad - k) / st + 1;
        L.w = (a->w + 2 * s->pad - k) / st + 1;
        L.mem_bytes = 2.0 * (elems(a) + elems(&L));
        L.act_bytes = 2.0 * elems(&L) * (s->op == PT_G_MAXPOOL ? 1.5 : 1.0);
        break;
    }
    case PT_G_GLOBALPOOL:
        NEED(!a->seq, "in", "globalpool %s needs an image input", who);
        L.c = a->c, L.h = 1, L.w = 1;
        L.mem_bytes = 2.0 * elems(a);
        L.act_bytes = 2.0 * elems(&L);
        break;
    case PT_G_LINEAR: {
        double k = a->seq ? (double)a->d : elems(a), m = a->seq ? (double)a->t : 1.0;
        NEED(s->out > 0, "out", "linear %s needs out > 0", who);
        NEED(!a->seq || a->d > 0, "in", "linear %s: token ids need an embedding first", who);
        if (a->seq) L.seq = 1, L.t = a->t, L.d = s->out;
        else L.c = s->out, L.h = 1, L.w = 1;
        gemm(&L, m, (double)s->out, k, 1, 1);
        L.params = k * (double)s->out + (double)s->out;
        L.act_bytes = 2.0 * elems(&L);
        L.mem_bytes = s->relu ? 4.0 * elems(&L) : 0.0;
        break;
    }
    case PT_G_LSTM: {
        double H = (double)s->hidden, dirs = s->bidirectional ? 2.0 : 1.0;
        double P = s->proj > 0 ? (double)s->proj : H, T, D;
        NEED(a->seq && a->d > 0, "in", "lstm %s needs a sequence of features (an embedding or a layer before)", who);
        NEED(s->hidden > 0, "hidden", "lstm %s needs hidden > 0", who);
        T = (double)a->t, D = (double)a->d;
        L.seq = 1, L.t = a->t, L.d = (int64_t)(P * dirs);
        gemm(&L, T, 4.0 * H, D, dirs, 1);      /* input projection, all steps at once */
        gemm(&L, 1.0, 4.0 * H, P, dirs, T);    /* recurrent, one step at a time      */
        if (s->proj > 0) gemm(&L, T, P, H, dirs, 1);
        L.params = dirs * (4.0 * H * (D + P) + 8.0 * H + (s->proj > 0 ? H * P : 0.0));
        L.act_bytes = 2.0 * T * dirs * (6.0 * H + P);
        L.mem_bytes = 2.0 * T * dirs * 12.0 * H; /* gate non-linearities and cell update */
        break;
    }
    case PT_G_EMBEDDING:
        NEED(a->seq && a->d == 0, "in", "embedding %s needs token ids (an input of shape [T])", who);
        NEED(s->vocab > 0 && s->dim > 0, "vocab", "embedding %s needs vocab and dim > 0", who);
        L.seq = 1, L.t = a->t, L.d = s->dim;
        L.params = (double)(s->vocab * s->dim);
        L.mem_bytes = 4.0 * elems(&L);
        break;
    case PT_G_ATTENTION: {
        const pt_glayer *kv = a;
        double D, T, Tk, h = (double)(s->heads > 0 ? s->heads : 1);
        if (s->kv) {
            int k = find_layer(g, s->kv);
            NEED(k >= 0, "kv", "attention %s: kv \"%s\" is not an earlier layer", who, s->kv);
            kv = &g->l[k];
            L.kv = k;
        }
        NEED(a->seq && a->d > 0 && kv->seq && kv->d > 0, "in", "attention %s needs sequences of features", who);
        NEED(s->heads > 0 && a->d % s->heads == 0, "heads", "attention %s: heads must divide the width %lld",
             who, (long long)a->d);
        D = (double)a->d, T = (double)a->t, Tk = (double)kv->t;
        L.seq = 1, L.t = a->t, L.d = a->d;
        gemm(&L, T, 2.0 * D, D, 1, 1);             /* query and output projections */
        gemm(&L, Tk, 2.0 * (double)kv->d, D, 1, 1); /* keys and values             */
        gemm(&L, T, Tk, D / h, 2.0 * h, 1);         /* scores and weighted values  */
        L.params = 2.0 * D * D + 2.0 * (double)kv->d * D + 4.0 * D;
        L.act_bytes = 2.0 * (4.0 * T * D + h * T * Tk);
        L.mem_bytes = 2.0 * 4.0 * h * T * Tk;       /* softmax read and write, twice */
        break;
    }
    case PT_G_NORM:
    case PT_G_RELU:
        L.seq = a->seq, L.c = a->c, L.h = a->h, L.w = a->w, L.t = a->t, L.d = a->d;
        L.mem_bytes = 4.0 * elems(&L);
        L.act_bytes = s->op == PT_G_NORM ? 2.0 * elems(&L) : 0.5 * elems(&L);
        L.params = s->op == PT_G_NORM ? 2.0 * (double)(a->seq ? a->d : a->c) : 0.0;
        break;
    case PT_G_ADD:
        NEED(L.nin >= 2, "in", "add %s needs two or more inputs", who);
        for (int i = 1; i < L.nin; i++) {
            const pt_glayer *b = &g->l[L.in[i]];
            NEED(b->seq == a->seq && b->c == a->c && b->h == a->h && b->w == a->w && b->t == a->t &&
                 b->d == a->d, "in", "add %s: inputs %s and %s differ in shape", who, a->name, b->name);
        }
        L.seq = a->seq, L.c = a->c, L.h = a->h, L.w = a->w, L.t = a->t, L.d = a->d;
        L.mem_bytes = 2.0 * (L.nin + 1.0) * elems(&L) + (s->relu ? 4.0 * elems(&L) : 0.0);
        break;
    case PT_G_CONCAT:
        NEED(L.nin >= 2, "in", "concat %s needs two or more inputs", who);
        L.seq = a->seq, L.c = a->c, L.h = a->h, L.w = a->w, L.t = a->t, L.d = a->d;
        for (int i = 1; i < L.nin; i++) {
            const pt_glayer *b = &g->l[L.in[i]];
            NEED(b->seq == a->seq && (a->seq ? b->t == a->t : b->h == a->h && b->w == a->w), "in",
                 "concat %s: inputs %s and %s differ in size", who, a->name, b->name);
            if (a->seq) L.d += b->d;
            else L.c += b->c;
        }
        L.mem_bytes = 4.0 * elems(&L);
        break;
    case PT_G_LOSS: {
        double rows = a->seq ? (double)a->t : 1.0, width = a->seq ? (double)a->d : elems(a);
        L.seq = a->seq, L.t = a->seq ? a->t : 0, L.d = 1, L.c = 1, L.h = 1, L.w = 1;
        if (s->sampled > 0) {
            /* sampled softmax: the output embedding's rows for the true and
             * the sampled classes (Jozefowicz et al. 2016) */
            NEED(s->classes > 0, "classes", "loss %s with sampled softmax needs classes (the vocabulary)", who);
            gemm(&L, rows, (double)s->sampled, width, 1, 1);
            L.params = (double)s->classes * width;
            width = (double)s->sampled;
        }
        L.mem_bytes = 12.0 * rows * width;
        break;
    }
    case PT_G_EMBEDDING_BAG:
        if ((rst = emb_table(s, &L, d)) != PT_OK) return rst;
        break;
    case PT_G_INTERACTION:
        if ((rst = interaction(g, s, a, &L, d)) != PT_OK) return rst;
        break;
    default:
        return pt_diag_set(d, NULL, "op", "", "layer %s: unknown op", who);
    }
#undef NEED
    if (g->n == g->cap) {
        int nc = g->cap ? 2 * g->cap : 64;
        pt_glayer *nl = realloc(g->l, (size_t)nc * sizeof *nl);
        if (!nl) {
            pt_diag_set(d, NULL, NULL, NULL, "out of memory");
            return PT_ENOMEM;
        }
        g->l = nl;
        g->cap = nc;
    }
    if (index_grow(g) < 0) {
        pt_diag_set(d, NULL, NULL, NULL, "out of memory");
        return PT_ENOMEM;
    }
    g->l[g->n++] = L;
    index_put(g, g->n - 1);
    return PT_OK;
}

void pt_graph_free(pt_graph *g)
{
    free(g->l);
    free(g->hidx);
    memset(g, 0, sizeof *g);
}

double pt_graph_params(const pt_graph *g)
{
    double p = 0;
    for (int i = 0; i < g->n; i++) p += g->l[i].params;
    return p;
}

double pt_graph_flops(const pt_graph *g)
{
    double f = 0;
    for (int i = 0; i < g->n; i++) f += g->l[i].flops;
    return f;
}

/* ---- builders ------------------------------------------------------------ */

typedef struct gb {
    pt_graph *g;
    pt_diag *d;
    pt_status st;
    char name[48];
} gb;

static const char *nm(gb *b, const char *fmt, const char *pre, int i)
{
    snprintf(b->name, sizeof b->name, fmt, pre, i);
    return b->name;
}

static void add(gb *b, pt_gspec s)
{
    if (b->st == PT_OK) b->st = pt_graph_add(b->g, &s, b->d);
}

static void conv(gb *b, const char *name, const char *in, int64_t out, int64_t k, int64_t stride, int64_t pad)
{
    add(b, (pt_gspec){.name = name, .op = PT_G_CONV, .in = {in}, .out = out, .kernel = k, .stride = stride,
                      .pad = pad, .bn = 1, .relu = 1});
}

static void conv_hw(gb *b, const char *name, const char *in, int64_t out, int64_t kh, int64_t kw, int64_t ph,
                    int64_t pw)
{
    add(b, (pt_gspec){.name = name, .op = PT_G_CONV, .in = {in}, .out = out, .kh = kh, .kw = kw, .ph = ph,
                      .pw = pw, .stride = 1, .bn = 1, .relu = 1});
}

/* ResNet-50 v1.5 (He et al. 2016; torchvision/MLPerf v1.5: the stride sits on
 * the 3x3 convolution): 25,557,032 parameters, ~4.1 G multiply-adds. */
static void build_resnet50(gb *b)
{
    static const int blocks[4] = {3, 4, 6, 3}, width[4] = {64, 128, 256, 512};
    char prev[48] = "pool1";
    b->g->samples_per_epoch = 1281167; /* ImageNet-1k training images */
    pt_strlcpy(b->g->sample, "image", sizeof b->g->sample);
    add(b, (pt_gspec){.name = "input", .op = PT_G_INPUT, .shape = {3, 224, 224}});
    conv(b, "conv1", "input", 64, 7, 2, 3);
    add(b, (pt_gspec){.name = "pool1", .op = PT_G_MAXPOOL, .kernel = 3, .stride = 2, .pad = 1});
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < blocks[s]; k++) {
            char base[32], n1[48], n2[48], n3[48], ds[48], sum[48];
            int stride = (k == 0 && s > 0) ? 2 : 1;
            snprintf(base, sizeof base, "s%d.b%d", s + 1, k);
            snprintf(n1, sizeof n1, "%s.conv1", base);
            snprintf(n2, sizeof n2, "%s.conv2", base);
            snprintf(n3, sizeof n3, "%s.conv3", base);
            snprintf(ds, sizeof ds, "%s.down", base);
            snprintf(sum, sizeof sum, "%s.add", base);
            conv(b, n1, prev, width[s], 1, 1, 0);
            conv(b, n2, n1, width[s], 3, stride, 1);
            add(b, (pt_gspec){.name = n3, .op = PT_G_CONV, .in = {n2}, .out = 4 * width[s], .kernel = 1, .bn = 1});
            if (k == 0)
                add(b, (pt_gspec){.name = ds, .op = PT_G_CONV, .in = {prev}, .out = 4 * width[s], .kernel = 1,
                                  .stride = stride, .bn = 1});
            add(b, (pt_gspec){.name = sum, .op = PT_G_ADD, .in = {n3, k == 0 ? ds : prev}, .relu = 1});
            pt_strlcpy(prev, sum, sizeof prev);
        }
    add(b, (pt_gspec){.name = "avgpool", .op = PT_G_GLOBALPOOL, .in = {prev}});
    add(b, (pt_gspec){.name = "fc", .op = PT_G_LINEAR, .out = 1000});
    add(b, (pt_gspec){.name = "loss", .op = PT_G_LOSS, .classes = 1000});
}

/* Inception-v3 (Szegedy et al. 2016, torchvision's layout without the
 * auxiliary classifier): 299x299 input, ~5.7 G multiply-adds. */
static void build_inception_v3(gb *b)
{
    char p[48];
    b->g->samples_per_epoch = 1281167;
    pt_strlcpy(b->g->sample, "image", sizeof b->g->sample);
    add(b, (pt_gspec){.name = "input", .op = PT_G_INPUT, .shape = {3, 299, 299}});
    conv(b, "c1a", "input", 32, 3, 2, 0);
    conv(b, "c2a", "c1a", 32, 3, 1, 0);
    conv(b, "c2b", "c2a", 64, 3, 1, 1);
    add(b, (pt_gspec){.name = "mp1", .op = PT_G_MAXPOOL, .kernel = 3, .stride = 2});
    conv(b, "c3b", "mp1", 80, 1, 1, 0);
    conv(b, "c4a", "c3b", 192, 3, 1, 0);
    add(b, (pt_gspec){.name = "mp2", .op = PT_G_MAXPOOL, .kernel = 3, .stride = 2});
    pt_strlcpy(p, "mp2", sizeof p);
    for (int i = 0; i < 3; i++) { /* InceptionA, pool features 32, 64, 64 */
        char x[8][48];
        int pf = i == 0 ? 32 : 64;
        for (int k = 0; k < 8; k++) snprintf(x[k], sizeof x[k], "5%c.%d", 'b' + i, k);
        conv(b, x[0], p, 64, 1, 1, 0);
        conv(b, x[1], p, 48, 1, 1, 0);
        conv(b, x[2], x[1], 64, 5, 1, 2);
        conv(b, x[3], p, 64, 1, 1, 0);
        conv(b, x[4], x[3], 96, 3, 1, 1);
        conv(b, x[5], x[4], 96, 3, 1, 1);
        add(b, (pt_gspec){.name = x[6], .op = PT_G_AVGPOOL, .in = {p}, .kernel = 3, .stride = 1, .pad = 1});
        conv(b, x[7], x[6], pf, 1, 1, 0);
        add(b, (pt_gspec){.name = nm(b, "mixed5%s.%d", "", i), .op = PT_G_CONCAT, .in = {x[0], x[2], x[5], x[7]}});
        pt_strlcpy(p, b->g->l[b->g->n - 1].name, sizeof p);
    }
    /* InceptionB: to 17x17 */
    conv(b, "6a.0", p, 384, 3, 2, 0);
    conv(b, "6a.1", p, 64, 1, 1, 0);
    conv(b, "6a.2", "6a.1", 96, 3, 1, 1);
    conv(b, "6a.3", "6a.2", 96, 3, 2, 0);
    add(b, (pt_gspec){.name = "6a.pool", .op = PT_G_MAXPOOL, .in = {p}, .kernel = 3, .stride = 2});
    add(b, (pt_gspec){.name = "mixed6a", .op = PT_G_CONCAT, .in = {"6a.0", "6a.3", "6a.pool"}});
    pt_strlcpy(p, "mixed6a", sizeof p);
    for (int i = 0; i < 4; i++) { /* InceptionC, c7 = 128, 160, 160, 192 */
        char x[11][48];
        int c7 = i == 0 ? 128 : i == 3 ? 192 : 160;
        for (int k = 0; k < 11; k++) snprintf(x[k], sizeof x[k], "6%c.%d", 'b' + i, k);
        conv(b, x[0], p, 192, 1, 1, 0);
        conv(b, x[1], p, c7, 1, 1, 0);
        conv_hw(b, x[2], x[1], c7, 1, 7, 0, 3);
        conv_hw(b, x[3], x[2], 192, 7, 1, 3, 0);
        conv(b, x[4], p, c7, 1, 1, 0);
        conv_hw(b, x[5], x[4], c7, 7, 1, 3, 0);
        conv_hw(b, x[6], x[5], c7, 1, 7, 0, 3);
        conv_hw(b, x[7], x[6], c7, 7, 1, 3, 0);
        conv_hw(b, x[8], x[7], 192, 1, 7, 0, 3);
        add(b, (pt_gspec){.name = x[9], .op = PT_G_AVGPOOL, .in = {p}, .kernel = 3, .stride = 1, .pad = 1});
        conv(b, x[10], x[9], 192, 1, 1, 0);
        add(b, (pt_gspec){.name = nm(b, "mixed6%s.%d", "", i), .op = PT_G_CONCAT, .in = {x[0], x[3], x[8], x[10]}});
        pt_strlcpy(p, b->g->l[b->g->n - 1].name, sizeof p);
    }
    /* InceptionD: to 8x8 */
    conv(b, "7a.0", p, 192, 1, 1, 0);
    conv(b, "7a.1", "7a.0", 320, 3, 2, 0);
    conv(b, "7a.2", p, 192, 1, 1, 0);
    conv_hw(b, "7a.3", "7a.2", 192, 1, 7, 0, 3);
    conv_hw(b, "7a.4", "7a.3", 192, 7, 1, 3, 0);
    conv(b, "7a.5", "7a.4", 192, 3, 2, 0);
    add(b, (pt_gspec){.name = "7a.pool", .op = PT_G_MAXPOOL, .in = {p}, .kernel = 3, .stride = 2});
    add(b, (pt_gspec){.name = "mixed7a", .op = PT_G_CONCAT, .in = {"7a.1", "7a.5", "7a.pool"}});
    pt_strlcpy(p, "mixed7a", sizeof p);
    for (int i = 0; i < 2; i++) { /* InceptionE */
        char x[12][48];
        for (int k = 0; k < 12; k++) snprintf(x[k], sizeof x[k], "7%c.%d", 'b' + i, k);
        conv(b, x[0], p, 320, 1, 1, 0);
        conv(b, x[1], p, 384, 1, 1, 0);
        conv_hw(b, x[2], x[1], 384, 1, 3, 0, 1);
        conv_hw(b, x[3], x[1], 384, 3, 1, 1, 0);
        conv(b, x[4], p, 448, 1, 1, 0);
        conv(b, x[5], x[4], 384, 3, 1, 1);
        conv_hw(b, x[6], x[5], 384, 1, 3, 0, 1);
        conv_hw(b, x[7], x[5], 384, 3, 1, 1, 0);
        add(b, (pt_gspec){.name = x[8], .op = PT_G_AVGPOOL, .in = {p}, .kernel = 3, .stride = 1, .pad = 1});
        conv(b, x[9], x[8], 192, 1, 1, 0);
        add(b, (pt_gspec){.name = nm(b, "mixed7%s.%d", "", 1 + i), .op = PT_G_CONCAT,
                          .in = {x[0], x[2], x[3], x[6], x[7], x[9]}});
        pt_strlcpy(p, b->g->l[b->g->n - 1].name, sizeof p);
    }
    add(b, (pt_gspec){.name = "avgpool", .op = PT_G_GLOBALPOOL, .in = {p}});
    add(b, (pt_gspec){.name = "fc", .op = PT_G_LINEAR, .out = 1000});
    add(b, (pt_gspec){.name = "loss", .op = PT_G_LOSS, .classes = 1000});
}

/* GNMT as in the MLPerf v0.5 reference (Wu et al. 2016, 4+4 layers): a
 * bidirectional first encoder layer and three more, 1024 units, residual
 * connections from the third layer; a 4-layer decoder whose first layer's
 * output attends over the encoder (normalised Bahdanau attention) and whose
 * later layers take [layer output, context]; a 32,320-token BPE vocabulary
 * shared by both embeddings.
 * A sample is a sentence pair of T = 27 tokens each side (the mean length
 * of the WMT16 En-De training set after BPE, about 27 tokens). */
static void build_gnmt(gb *b)
{
    const int64_t T = 27, V = 32320, H = 1024;
    b->g->samples_per_epoch = 3498161; /* sentence pairs, MLPerf's WMT16 En-De */
    pt_strlcpy(b->g->sample, "sentence", sizeof b->g->sample);
    add(b, (pt_gspec){.name = "src", .op = PT_G_INPUT, .shape = {T}});
    add(b, (pt_gspec){.name = "src.emb", .op = PT_G_EMBEDDING, .vocab = V, .dim = H});
    add(b, (pt_gspec){.name = "enc0", .op = PT_G_LSTM, .hidden = H, .bidirectional = 1});
    add(b, (pt_gspec){.name = "enc1", .op = PT_G_LSTM, .hidden = H});
    add(b, (pt_gspec){.name = "enc2", .op = PT_G_LSTM, .hidden = H});
    add(b, (pt_gspec){.name = "enc2.res", .op = PT_G_ADD, .in = {"enc2", "enc1"}});
    add(b, (pt_gspec){.name = "enc3", .op = PT_G_LSTM, .hidden = H});
    add(b, (pt_gspec){.name = "enc3.res", .op = PT_G_ADD, .in = {"enc3", "enc2.res"}});
    add(b, (pt_gspec){.name = "tgt", .op = PT_G_INPUT, .shape = {T}});
    add(b, (pt_gspec){.name = "tgt.emb", .op = PT_G_EMBEDDING, .vocab = V, .dim = H});
    add(b, (pt_gspec){.name = "dec0", .op = PT_G_LSTM, .hidden = H});
    add(b, (pt_gspec){.name = "attn", .op = PT_G_ATTENTION, .kv = "enc3.res", .heads = 1});
    add(b, (pt_gspec){.name = "dec1.in", .op = PT_G_CONCAT, .in = {"dec0", "attn"}});
    add(b, (pt_gspec){.name = "dec1", .op = PT_G_LSTM, .hidden = H});
    add(b, (pt_gspec){.name = "dec2.in", .op = PT_G_CONCAT, .in = {"dec1", "attn"}});
    add(b, (pt_gspec){.name = "dec2", .op = PT_G_LSTM, .hidden = H});
    add(b, (pt_gspec){.name = "dec2.res", .op = PT_G_ADD, .in = {"dec2", "dec1"}});
    add(b, (pt_gspec){.name = "dec3.in", .op = PT_G_CONCAT, .in = {"dec2.res", "attn"}});
    add(b, (pt_gspec){.name = "dec3", .op = PT_G_LSTM, .hidden = H});
    add(b, (pt_gspec){.name = "dec3.res", .op = PT_G_ADD, .in = {"dec3", "dec2.res"}});
    add(b, (pt_gspec){.name = "classifier", .op = PT_G_LINEAR, .out = V});
    add(b, (pt_gspec){.name = "loss", .op = PT_G_LOSS, .classes = V});
    /* share_embedding=True: encoder and decoder share one embedding (the
     * classifier keeps its own), as the MLPerf v0.6 NVIDIA run logs it:
     * "Number of parameters: 160671297" (training_results_v0.6,
     * NVIDIA/results/dgx2h_n16_ngc19.05_pytorch/gnmt/result_0.txt).  Here
     * 162.8 M: the attention is priced as four D x D projections where
     * Bahdanau's has two plus a vector. */
    for (int i = 0; i < b->g->n; i++)
        if (!strcmp(b->g->l[i].name, "tgt.emb")) b->g->l[i].params = 0;
}

/* BigLSTM (Jozefowicz et al. 2016, "LSTM-8192-1024"; the model of Pal et al.
 * 2019): 2 LSTM layers of 8192 units projected to 1024, a 793,471-word
 * vocabulary, sampled softmax over 8192 classes, 20-token samples of the
 * One Billion Word benchmark (~0.8 G training words); ~1.8 G parameters. */
static void build_biglstm(gb *b)
{
    const int64_t T = 20, V = 793471;
    b->g->samples_per_epoch = 798945280.0 / 20.0; /* words / tokens per sample */
    pt_strlcpy(b->g->sample, "sequence", sizeof b->g->sample);
    add(b, (pt_gspec){.name = "tokens", .op = PT_G_INPUT, .shape = {T}});
    add(b, (pt_gspec){.name = "emb", .op = PT_G_EMBEDDING, .vocab = V, .dim = 1024});
    add(b, (pt_gspec){.name = "lstm0", .op = PT_G_LSTM, .hidden = 8192, .proj = 1024});
    add(b, (pt_gspec){.name = "lstm1", .op = PT_G_LSTM, .hidden = 8192, .proj = 1024});
    add(b, (pt_gspec){.name = "loss", .op = PT_G_LOSS, .classes = V, .sampled = 8192});
}

/* Transformer (big) for WMT En-De (Vaswani et al. 2017; fairseq's
 * transformer_wmt_en_de_big as in MLPerf v0.5-0.6): 6+6 layers, width 1024,
 * feed-forward 4096, 16 heads, a shared ~33k-token vocabulary.  A sample is
 * a sentence pair of T = 28 tokens each side. */
static void build_transformer_big(gb *b)
{
    const int64_t T = 28, V = 33712, D = 1024, F = 4096, L = 6;
    char prev[48], x[6][48];
    b->g->samples_per_epoch = 4590101; /* WMT'17 En-De sentence pairs (fairseq) */
    pt_strlcpy(b->g->sample, "sentence", sizeof b->g->sample);
    add(b, (pt_gspec){.name = "src", .op = PT_G_INPUT, .shape = {T}});
    add(b, (pt_gspec){.name = "src.emb", .op = PT_G_EMBEDDING, .vocab = V, .dim = D});
    pt_strlcpy(prev, "src.emb", sizeof prev);
    for (int i = 0; i < L; i++) {
        for (int k = 0; k < 6; k++) snprintf(x[k], sizeof x[k], "enc%d.%d", i, k);
        add(b, (pt_gspec){.name = x[0], .op = PT_G_ATTENTION, .in = {prev}, .heads = 16});
        add(b, (pt_gspec){.name = x[1], .op = PT_G_ADD, .in = {x[0], prev}});
        add(b, (pt_gspec){.name = x[2], .op = PT_G_NORM});
        add(b, (pt_gspec){.name = x[3], .op = PT_G_LINEAR, .out = F, .relu = 1});
        add(b, (pt_gspec){.name = x[4], .op = PT_G_LINEAR, .out = D});
        add(b, (pt_gspec){.name = x[5], .op = PT_G_ADD, .in = {x[4], x[2]}});
        pt_strlcpy(prev, x[5], sizeof prev);
    }
    add(b, (pt_gspec){.name = "enc.out", .op = PT_G_NORM, .in = {prev}});
    add(b, (pt_gspec){.name = "tgt", .op = PT_G_INPUT, .shape = {T}});
    add(b, (pt_gspec){.name = "tgt.emb", .op = PT_G_EMBEDDING, .vocab = V, .dim = D});
    pt_strlcpy(prev, "tgt.emb", sizeof prev);
    for (int i = 0; i < L; i++) {
        char y[8][48];
        for (int k = 0; k < 8; k++) snprintf(y[k], sizeof y[k], "dec%d.%d", i, k);
        add(b, (pt_gspec){.name = y[0], .op = PT_G_ATTENTION, .in = {prev}, .heads = 16, .causal = 1});
        add(b, (pt_gspec){.name = y[1], .op = PT_G_ADD, .in = {y[0], prev}});
        add(b, (pt_gspec){.name = y[2], .op = PT_G_ATTENTION, .in = {y[1]}, .kv = "enc.out", .heads = 16});
        add(b, (pt_gspec){.name = y[3], .op = PT_G_ADD, .in = {y[2], y[1]}});
        add(b, (pt_gspec){.name = y[4], .op = PT_G_NORM});
        add(b, (pt_gspec){.name = y[5], .op = PT_G_LINEAR, .out = F, .relu = 1});
        add(b, (pt_gspec){.name = y[6], .op = PT_G_LINEAR, .out = D});
        add(b, (pt_gspec){.name = y[7], .op = PT_G_ADD, .in = {y[6], y[4]}});
        pt_strlcpy(prev, y[7], sizeof prev);
    }
    add(b, (pt_gspec){.name = "dec.out", .op = PT_G_NORM, .in = {prev}});
    add(b, (pt_gspec){.name = "logits", .op = PT_G_LINEAR, .out = V});
    add(b, (pt_gspec){.name = "loss", .op = PT_G_LOSS, .classes = V});
    /* --share-all-embeddings: one matrix for both embeddings and the output */
    b->g->l[b->g->n - 2].params -= (double)(V * D);
    for (int i = 0; i < b->g->n; i++)
        if (!strcmp(b->g->l[i].name, "tgt.emb")) b->g->l[i].params = 0;
}

/* 3D U-Net on MSD BraTS crops (src/workload/unet3d.h) */
static void build_unet3d(gb *b)
{
    pt_unet3d_cfg cfg;
    pt_unet3d_brats(&cfg);
    if (b->st == PT_OK) b->st = pt_unet3d_build(b->g, &cfg, b->d);
}

/* SSD300 with a ResNet-34 backbone, MLPerf Training's single-stage detector
 * (v0.5-v1.0; the reference mlcommons/training single_stage_detector/ssd/
 * ssd300.py, NVIDIA's v0.6 implementation the same network):
 *  - torchvision's resnet34 up to layer3 (conv4_x), whose first block's
 *    stride is set to 1, so 300x300 images give a 38x38x256 map;
 *  - five extra blocks, each a 1x1 convolution and a 3x3 one (with biases
 *    and ReLU, no batch norm), the first three of stride 2: 19x19x512,
 *    10x10x512, 5x5x256, then unpadded: 3x3x256, 1x1x256;
 *  - on each of the six maps a 3x3 location head (4 numbers a default box)
 *    and a 3x3 class head (81 COCO classes a box), 4, 6, 6, 6, 4 and 4
 *    default boxes per cell: 8732 boxes.  Each map's two heads are one
 *    convolution of nd x 85 channels here (the same weights and FLOPs).
 * The loss (smooth L1 and cross-entropy with hard-negative mining) reads
 * each map's predictions.  19,972,534 parameters (test_ttt counts them). */
static void build_ssd_resnet34(gb *b)
{
    static const int blocks[3] = {3, 4, 6}, width[3] = {64, 128, 256};
    static const int ext_mid[5] = {256, 256, 128, 128, 128}, ext_out[5] = {512, 512, 256, 256, 256};
    static const int nd[6] = {4, 6, 6, 6, 4, 4};
    char prev[48] = "pool1", feat[6][48];
    int in_c = 64;
    b->g->samples_per_epoch = 117266; /* COCO 2017 train images with annotations */
    pt_strlcpy(b->g->sample, "image", sizeof b->g->sample);
    add(b, (pt_gspec){.name = "input", .op = PT_G_INPUT, .shape = {3, 300, 300}});
    conv(b, "conv1", "input", 64, 7, 2, 3);
    add(b, (pt_gspec){.name = "pool1", .op = PT_G_MAXPOOL, .kernel = 3, .stride = 2, .pad = 1});
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < blocks[s]; k++) {
            char n1[48], n2[48], ds[48], sum[48];
            int stride = (k == 0 && s == 1) ? 2 : 1, down = k == 0 && (stride != 1 || in_c != width[s]);
            snprintf(n1, sizeof n1, "l%d.b%d.conv1", s + 1, k);
            snprintf(n2, sizeof n2, "l%d.b%d.conv2", s + 1, k);
            snprintf(ds, sizeof ds, "l%d.b%d.down", s + 1, k);
            snprintf(sum, sizeof sum, "l%d.b%d.add", s + 1, k);
            conv(b, n1, prev, width[s], 3, stride, 1);
            add(b, (pt_gspec){.name = n2, .op = PT_G_CONV, .in = {n1}, .out = width[s], .kernel = 3, .pad = 1,
                              .bn = 1});
            if (down)
                add(b, (pt_gspec){.name = ds, .op = PT_G_CONV, .in = {prev}, .out = width[s], .kernel = 1,
                                  .stride = stride, .bn = 1});
            add(b, (pt_gspec){.name = sum, .op = PT_G_ADD, .in = {n2, down ? ds : prev}, .relu = 1});
            pt_strlcpy(prev, sum, sizeof prev);
            in_c = width[s];
        }
    pt_strlcpy(feat[0], prev, sizeof feat[0]);
    for (int i = 0; i < 5; i++) {
        char n1[48];
        snprintf(n1, sizeof n1, "ext%d.conv1", i + 1);
        snprintf(feat[i + 1], sizeof feat[i + 1], "ext%d.conv2", i + 1);
        add(b, (pt_gspec){.name = n1, .op = PT_G_CONV, .in = {feat[i]}, .out = ext_mid[i], .kernel = 1,
                          .relu = 1});
        add(b, (pt_gspec){.name = feat[i + 1], .op = PT_G_CONV, .in = {n1}, .out = ext_out[i], .kernel = 3,
                          .stride = i < 3 ? 2 : 1, .pad = i < 3 ? 1 : 0, .relu = 1});
    }
    for (int i = 0; i < 6; i++) {
        char head[48], loss[48];
        snprintf(head, sizeof head, "head%d", i + 1);
        snprintf(loss, sizeof loss, "loss%d", i + 1);
        add(b, (pt_gspec){.name = head, .op = PT_G_CONV, .in = {feat[i]}, .out = nd[i] * (4 + 81), .kernel = 3,
                          .pad = 1});
        add(b, (pt_gspec){.name = loss, .op = PT_G_LOSS, .in = {head}, .classes = 81});
    }
}

/* VGG-16 (Simonyan and Zisserman, ICLR 2015, configuration D): thirteen
 * 3x3 convolutions with biases and ReLU (no batch norm), five max-pools,
 * three fully connected layers; 138,357,544 parameters, 15.5 G
 * multiply-adds at 224x224. */
static void build_vgg16(gb *b)
{
    static const int width[5] = {64, 128, 256, 512, 512}, convs[5] = {2, 2, 3, 3, 3};
    char n[48];
    b->g->samples_per_epoch = 1281167;
    pt_strlcpy(b->g->sample, "image", sizeof b->g->sample);
    add(b, (pt_gspec){.name = "input", .op = PT_G_INPUT, .shape = {3, 224, 224}});
    for (int s = 0; s < 5; s++) {
        for (int k = 0; k < convs[s]; k++) {
            snprintf(n, sizeof n, "conv%d_%d", s + 1, k + 1);
            add(b, (pt_gspec){.name = n, .op = PT_G_CONV, .out = width[s], .kernel = 3, .stride = 1, .pad = 1,
                              .relu = 1});
        }
        add(b, (pt_gspec){.name = nm(b, "%s%d", "pool", s + 1), .op = PT_G_MAXPOOL, .kernel = 2, .stride = 2});
    }
    add(b, (pt_gspec){.name = "fc6", .op = PT_G_LINEAR, .out = 4096, .relu = 1});
    add(b, (pt_gspec){.name = "fc7", .op = PT_G_LINEAR, .out = 4096, .relu = 1});
    add(b, (pt_gspec){.name = "fc8", .op = PT_G_LINEAR, .out = 1000});
    add(b, (pt_gspec){.name = "loss", .op = PT_G_LOSS, .classes = 1000});
}

/* MobileNet-V2 (Sandler et al., CVPR 2018, Table 2; torchvision's layout):
 * inverted residual blocks (1x1 expansion by t, 3x3 depthwise, linear 1x1
 * projection; a residual add where stride is 1 and the width is kept), ReLU6
 * priced as ReLU; 3,504,872 parameters, ~300 M multiply-adds at 224x224. */
static void build_mobilenet_v2(gb *b)
{
    static const int t[7] = {1, 6, 6, 6, 6, 6, 6}, c[7] = {16, 24, 32, 64, 96, 160, 320};
    static const int reps[7] = {1, 2, 3, 4, 3, 3, 1}, str[7] = {1, 2, 2, 2, 1, 2, 1};
    char prev[48] = "conv0";
    int64_t in = 32;
    b->g->samples_per_epoch = 1281167;
    pt_strlcpy(b->g->sample, "image", sizeof b->g->sample);
    add(b, (pt_gspec){.name = "input", .op = PT_G_INPUT, .shape = {3, 224, 224}});
    conv(b, "conv0", "input", 32, 3, 2, 1);
    for (int s = 0; s < 7; s++)
        for (int k = 0; k < reps[s]; k++) {
            char e[48], dw[48], pj[48], sum[48];
            int64_t hid = in * t[s];
            int stride = k == 0 ? str[s] : 1;
            const char *x = prev;
            snprintf(e, sizeof e, "b%d.%d.expand", s + 1, k);
            snprintf(dw, sizeof dw, "b%d.%d.dw", s + 1, k);
            snprintf(pj, sizeof pj, "b%d.%d.project", s + 1, k);
            snprintf(sum, sizeof sum, "b%d.%d.add", s + 1, k);
            if (t[s] != 1) conv(b, e, prev, hid, 1, 1, 0), x = e;
            add(b, (pt_gspec){.name = dw, .op = PT_G_CONV, .in = {x}, .out = hid, .kernel = 3, .stride = stride,
                              .pad = 1, .groups = hid, .bn = 1, .relu = 1});
            add(b, (pt_gspec){.name = pj, .op = PT_G_CONV, .in = {dw}, .out = c[s], .kernel = 1, .bn = 1});
            if (stride == 1 && in == c[s]) {
                add(b, (pt_gspec){.name = sum, .op = PT_G_ADD, .in = {pj, prev}});
                pt_strlcpy(prev, sum, sizeof prev);
            } else {
                pt_strlcpy(prev, pj, sizeof prev);
            }
            in = c[s];
        }
    conv(b, "conv_last", prev, 1280, 1, 1, 0);
    add(b, (pt_gspec){.name = "avgpool", .op = PT_G_GLOBALPOOL});
    add(b, (pt_gspec){.name = "fc", .op = PT_G_LINEAR, .out = 1000});
    add(b, (pt_gspec){.name = "loss", .op = PT_G_LOSS, .classes = 1000});
}

/* L transformer encoder layers of width D (MLP width F, h heads) after the
 * sequence layer `first`, named "<pre><layer>.<k>"; prenorm: ViT's
 * x + attn(LN(x)), x + mlp(LN(x)); else BERT's LN(x + attn(x)),
 * LN(x + mlp(x)).  GELU is priced as ReLU (one pass over the activations).
 * `last` gets the name of the last layer's output. */
static void encoder(gb *b, const char *pre, const char *first, int L, int64_t D, int64_t F, int64_t h, int prenorm,
                    char last[48])
{
    char prev[48], x[7][48];
    pt_strlcpy(prev, first, sizeof prev);
    for (int i = 0; i < L; i++) {
        for (int k = 0; k < 7; k++) snprintf(x[k], sizeof x[k], "%s%d.%d", pre, i, k);
        if (prenorm) {
            add(b, (pt_gspec){.name = x[0], .op = PT_G_NORM, .in = {prev}});
            add(b, (pt_gspec){.name = x[1], .op = PT_G_ATTENTION, .heads = h});
            add(b, (pt_gspec){.name = x[2], .op = PT_G_ADD, .in = {x[1], prev}});
            add(b, (pt_gspec){.name = x[3], .op = PT_G_NORM});
            add(b, (pt_gspec){.name = x[4], .op = PT_G_LINEAR, .out = F, .relu = 1});
            add(b, (pt_gspec){.name = x[5], .op = PT_G_LINEAR, .out = D});
            add(b, (pt_gspec){.name = x[6], .op = PT_G_ADD, .in = {x[5], x[2]}});
        } else {
            add(b, (pt_gspec){.name = x[0], .op = PT_G_ATTENTION, .in = {prev}, .heads = h});
            add(b, (pt_gspec){.name = x[1], .op = PT_G_ADD, .in = {x[0], prev}});
            add(b, (pt_gspec){.name = x[2], .op = PT_G_NORM});
            add(b, (pt_gspec){.name = x[3], .op = PT_G_LINEAR, .out = F, .relu = 1});
            add(b, (pt_gspec){.name = x[4], .op = PT_G_LINEAR, .out = D});
            add(b, (pt_gspec){.name = x[5], .op = PT_G_ADD, .in = {x[4], x[2]}});
            add(b, (pt_gspec){.name = x[6], .op = PT_G_NORM});
        }
        pt_strlcpy(prev, x[6], sizeof prev);
    }
    pt_strlcpy(last, prev, 48);
}

/* ViT-Large/16 (Dosovitskiy et al., ICLR 2021, Table 1: 24 layers, width
 * 1024, MLP 4096, 16 heads, 307 M parameters; timm's vit_large_patch16_224,
 * 304,326,632 with the 1000-class head): 224x224 images cut into 16x16
 * patches, 196 patch tokens and a class token.  The head runs on the class
 * token only; here it is priced on all 197 (0.3% of the FLOPs). */
static void build_vit_large(gb *b)
{
    char last[48];
    b->g->samples_per_epoch = 1281167;
    pt_strlcpy(b->g->sample, "image", sizeof b->g->sample);
    add(b, (pt_gspec){.name = "input", .op = PT_G_INPUT, .shape = {3, 224, 224}});
    add(b, (pt_gspec){.name = "patch_embed", .op = PT_G_CONV, .out = 1024, .kernel = 16, .stride = 16,
                      .tokens = 2});
    encoder(b, "enc", "patch_embed", 24, 1024, 4096, 16, 1, last);
    add(b, (pt_gspec){.name = "norm", .op = PT_G_NORM, .in = {last}});
    add(b, (pt_gspec){.name = "head", .op = PT_G_LINEAR, .out = 1000});
    add(b, (pt_gspec){.name = "loss", .op = PT_G_LOSS, .classes = 1000});
}

/* BERT-Large (Devlin et al., NAACL 2019: 24 layers, width 1024, 16 heads,
 * 340 M parameters; Hugging Face bert-large-uncased: vocabulary 30,522, 512
 * positions, 2 token types) answering SQuAD questions as MLPerf Inference's
 * bert-99 does: 384-token sequences, a start/end linear head (1024 -> 2). */
static void build_bert_large(gb *b)
{
    const int64_t T = 384, V = 30522, D = 1024;
    char last[48];
    b->g->samples_per_epoch = 87599; /* SQuAD v1.1 training questions */
    pt_strlcpy(b->g->sample, "sequence", sizeof b->g->sample);
    add(b, (pt_gspec){.name = "tokens", .op = PT_G_INPUT, .shape = {T}});
    add(b, (pt_gspec){.name = "emb", .op = PT_G_EMBEDDING, .vocab = V, .dim = D});
    add(b, (pt_gspec){.name = "emb.norm", .op = PT_G_NORM});
    /* position (512) and token-type (2) embeddings */
    if (b->st == PT_OK) b->g->l[b->g->n - 2].params += (double)((512 + 2) * D);
    encoder(b, "enc", "emb.norm", 24, D, 4 * D, 16, 0, last);
    add(b, (pt_gspec){.name = "qa", .op = PT_G_LINEAR, .in = {last}, .out = 2});
    add(b, (pt_gspec){.name = "loss", .op = PT_G_LOSS, .classes = T});
}

static const struct {
    const char *name;
    void (*build)(gb *);
} builtins[] = {
    {"resnet-50", build_resnet50},
    {"inception-v3", build_inception_v3},
    {"gnmt", build_gnmt},
    {"biglstm", build_biglstm},
    {"transformer-big", build_transformer_big},
    {"unet3d-brats", build_unet3d},
    {"ssd-resnet34", build_ssd_resnet34},
    {"vgg-16", build_vgg16},
    {"mobilenet-v2", build_mobilenet_v2},
    {"vit-large", build_vit_large},
    {"bert-large", build_bert_large},
};

int pt_graph_catalog_count(void) { return (int)(sizeof builtins / sizeof *builtins); }
const char *pt_graph_catalog_name(int i) { return builtins[i].name; }

pt_status pt_graph_builtin(const char *name, pt_graph *g, pt_diag *d)
{
    memset(g, 0, sizeof *g);
    for (int i = 0; i < pt_graph_catalog_count(); i++)
        if (!strcmp(builtins[i].name, name)) {
            gb b = {g, d, PT_OK, ""};
            pt_strlcpy(g->name, name, sizeof g->name);
            builtins[i].build(&b);
            if (b.st != PT_OK) pt_graph_free(g);
            return b.st;
        }
    return pt_diag_set(d, NULL, "model", name, "\"%s\" is not a built-in graph", name);
}

/* ---- the graph file ------------------------------------------------------- */

static int op_of(const char *s)
{
    for (int i = 0; i < PT_G_COUNT; i++)
        if (!strcmp(op_names[i], s)) return i;
    return -1;
}

pt_status pt_graph_parse(const char *text, const char *file, pt_graph *g, pt_diag *d)
{
    static const char *const top_keys[] = {"name", "sample", "samples_per_epoch", "layers", "source", NULL};
    static const char *const layer_keys[] = {
        "name", "op", "in", "out", "out_channels", "kernel", "stride", "pad", "groups", "kernel_hw",
        "pad_hw", "bn", "relu", "hidden", "bidirectional", "proj", "vocab", "dim", "heads", "kv",
        "causal", "classes", "sampled", "shape", "rows", "pooling", "hot_rows", "hit_rate", "precision",
        "optimizer", "kind", "cross_layers", "rank", NULL};
    pt_jctx jc = {text, file, d};
    json_t *root = pt_json_parse(&jc), *layers;
    pt_status st = PT_OK;
    memset(g, 0, sizeof *g);
    if (!root) return PT_EINPUT;
    if ((st = pt_json_only_keys(&jc, root, "", top_keys)) != PT_OK ||
        (st = pt_json_name(&jc, root, "", "name", 1, g->name, sizeof g->name, NULL)) != PT_OK)
        goto done;
    if (!g->name[0]) {
        st = pt_jerr(&jc, "name", json_object_get(root, "name"), "must not be empty");
        goto done;
    }
    pt_strlcpy(g->sample, "sample", sizeof g->sample);
    if ((st = pt_json_name(&jc, root, "", "sample", 0, g->sample, sizeof g->sample, NULL)) != PT_OK ||
        (st = pt_json_num(&jc, root, "", "samples_per_epoch", 0, &g->samples_per_epoch, NULL)) != PT_OK)
        goto done;
    if (g->samples_per_epoch < 0) {
        st = pt_jerr(&jc, "samples_per_epoch", json_object_get(root, "samples_per_epoch"), "must be >= 0");
        goto done;
    }
    layers = json_object_get(root, "layers");
    if (!json_is_array(layers) || json_array_size(layers) == 0) {
        st = pt_jerr(&jc, "layers", layers, "must be a non-empty array of layers");
        if (!d->line) d->line = 1, d->col = 1; /* absent: point at the document */
        goto done;
    }
    if (json_array_size(layers) > PT_GRAPH_MAX_LAYERS) {
        char n[32];
        snprintf(n, sizeof n, "%zu", json_array_size(layers));
        st = pt_jerr(&jc, "layers", NULL, "has %s layers; a graph file holds at most %d", n, PT_GRAPH_MAX_LAYERS);
        pt_strlcpy(d->value, n, sizeof d->value);
        goto done;
    }
    for (size_t i = 0; i < json_array_size(layers); i++) {
        json_t *o = json_array_get(layers, i), *v;
        char path[32], name[48] = "", op[24] = "", kv[48] = "", ins[PT_GRAPH_MAX_IN][48];
        char prec[16] = "", optim[24] = "", kind[16] = "";
        pt_gspec s;
        int64_t x;
        int found;
        snprintf(path, sizeof path, "layers[%zu]", i);
        memset(&s, 0, sizeof s);
        if (!json_is_object(o)) {
            st = pt_jerr(&jc, path, o, "is not a layer object");
            goto done;
        }
        if ((st = pt_json_only_keys(&jc, o, path, layer_keys)) != PT_OK ||
            (st = pt_json_name(&jc, o, path, "name", 1, name, sizeof name, NULL)) != PT_OK ||
            (st = pt_json_str(&jc, o, path, "op", 1, op, sizeof op, NULL)) != PT_OK)
            goto done;
        if (op_of(op) < 0) {
            char full[64];
            snprintf(full, sizeof full, "%s.op", path);
            st = pt_jerr(&jc, full, json_object_get(o, "op"),
                         "is not an op (input conv maxpool avgpool globalpool linear lstm embedding "
                         "attention norm add concat relu loss embedding_bag interaction)");
            goto done;
        }
        s.name = name;
        s.op = (pt_gop)op_of(op);
        v = json_object_get(o, "in");
        if (json_is_string(v)) {
            pt_strlcpy(ins[0], json_string_value(v), sizeof ins[0]);
            s.in[0] = ins[0];
        } else if (json_is_array(v)) {
            for (size_t k = 0; k < json_array_size(v); k++) {
                json_t *e = json_array_get(v, k);
                char full[64];
                snprintf(full, sizeof full, "%s.in[%zu]", path, k);
                if (!json_is_string(e) || k >= PT_GRAPH_MAX_IN) {
                    st = pt_jerr(&jc, full, e, "is not a layer name (at most %d inputs)", PT_GRAPH_MAX_IN);
                    goto done;
                }
                pt_strlcpy(ins[k], json_string_value(e), sizeof ins[k]);
                s.in[k] = ins[k];
            }
        } else if (v) {
            char full[64];
            snprintf(full, sizeof full, "%s.in", path);
            st = pt_jerr(&jc, full, v, "must be a layer name or a list of them");
            goto done;
        }
#define INT(key, field, lo)                                                                          \
    do {                                                                                             \
        x = 0;                                                                                       \
        if ((st = pt_json_int(&jc, o, path, key, 0, lo, (int64_t)1 << 40, &x, &found)) != PT_OK)     \
            goto done;                                                                               \
        if (found) s.field = x;                                                                      \
    } while (0)
        INT("out", out, 1);
        INT("out_channels", out, 1);
        INT("kernel", kernel, 1);
        INT("stride", stride, 1);
        INT("pad", pad, 0);
        INT("groups", groups, 1);
        INT("hidden", hidden, 1);
        INT("proj", proj, 1);
        INT("vocab", vocab, 1);
        INT("dim", dim, 1);
        INT("heads", heads, 1);
        INT("classes", classes, 1);
        INT("sampled", sampled, 1);
        INT("rows", rows, 1);
        INT("cross_layers", cross_layers, 1);
        INT("rank", rank, 1);
#undef INT
        {
            static const char *const fr[3] = {"pooling", "hot_rows", "hit_rate"};
            double *dst[3] = {&s.pooling, &s.hot_rows, &s.hit_rate};
            for (int k = 0; k < 3; k++) {
                double fv = 0;
                if ((st = pt_json_num(&jc, o, path, fr[k], 0, &fv, &found)) != PT_OK) goto done;
                if (found && !(fv > 0 && fv <= (k ? 1.0 : 1e6))) {
                    char full[64];
                    snprintf(full, sizeof full, "%s.%s", path, fr[k]);
                    st = pt_jerr(&jc, full, json_object_get(o, fr[k]),
                                 k ? "must be a fraction in (0, 1]" : "must be in (0, 1e6] ids per sample");
                    goto done;
                }
                if (found) *dst[k] = fv;
            }
        }
        if ((st = pt_json_str(&jc, o, path, "precision", 0, prec, sizeof prec, &found)) != PT_OK) goto done;
        if (found) s.precision = prec;
        if ((st = pt_json_str(&jc, o, path, "optimizer", 0, optim, sizeof optim, &found)) != PT_OK) goto done;
        if (found) s.optimizer = optim;
        if ((st = pt_json_str(&jc, o, path, "kind", 0, kind, sizeof kind, &found)) != PT_OK) goto done;
        if (found) s.kind = kind;
        {
            int bn = 0, relu = 0, bi = 0, causal = 0;
            if ((st = pt_json_bool(&jc, o, path, "bn", &bn, NULL)) != PT_OK ||
                (st = pt_json_bool(&jc, o, path, "relu", &relu, NULL)) != PT_OK ||
                (st = pt_json_bool(&jc, o, path, "bidirectional", &bi, NULL)) != PT_OK ||
                (st = pt_json_bool(&jc, o, path, "causal", &causal, NULL)) != PT_OK)
                goto done;
            s.bn = bn, s.relu = relu, s.bidirectional = bi, s.causal = causal;
        }
        if ((st = pt_json_str(&jc, o, path, "kv", 0, kv, sizeof kv, &found)) != PT_OK) goto done;
        if (found) s.kv = kv;
        {
            static const char *const arr[3] = {"shape", "kernel_hw", "pad_hw"};
            for (int k = 0; k < 3; k++) {
                json_t *a = json_object_get(o, arr[k]);
                int64_t val[3] = {0, 0, 0};
                size_t n;
                char full[64];
                if (!a) continue;
                snprintf(full, sizeof full, "%s.%s", path, arr[k]);
                n = json_is_array(a) ? json_array_size(a) : 0;
                if (!n || n > (k == 0 ? 3u : 2u)) {
                    st = pt_jerr(&jc, full, a, k == 0 ? "must be [C, H, W] or [T]" : "must be [H, W]");
                    goto done;
                }
                for (size_t e = 0; e < n; e++) {
                    json_t *ev = json_array_get(a, e);
                    if (!json_is_integer(ev) || json_integer_value(ev) < (k == 2 ? 0 : 1) ||
                        json_integer_value(ev) > ((json_int_t)1 << 31)) {
                        st = pt_jerr(&jc, full, a, "must hold whole numbers %s", k == 2 ? ">= 0" : "> 0");
                        goto done;
                    }
                    val[e] = (int64_t)json_integer_value(ev);
                }
                if (k == 0) memcpy(s.shape, val, sizeof s.shape);
                else if (k == 1) s.kh = val[0], s.kw = n > 1 ? val[1] : val[0];
                else s.ph = val[0], s.pw = n > 1 ? val[1] : val[0];
            }
        }
        if ((st = pt_graph_add(g, &s, d)) != PT_OK) {
            /* locate the message at the layer */
            int line = 0, col = 0;
            char msg[sizeof d->msg], field[sizeof d->field];
            size_t k;
            pt_strlcpy(msg, d->msg, sizeof msg);
            pt_strlcpy(field, path, sizeof field);
            k = strlen(field);
            pt_strlcpy(field + k, ".", sizeof field - k);
            pt_strlcpy(field + k + 1, d->field[0] ? d->field : "name", sizeof field - k - 1);
            pt_strlcpy(d->file, file ? file : "", sizeof d->file);
            pt_strlcpy(d->field, field, sizeof d->field);
            pt_strlcpy(d->msg, field, sizeof d->msg);
            k = strlen(d->msg);
            pt_strlcpy(d->msg + k, ": ", sizeof d->msg - k);
            pt_strlcpy(d->msg + k + 2, msg, sizeof d->msg - k - 2);
            if (pt_json_locate(jc.text, path, &line, &col)) d->line = line, d->col = col;
            goto done;
        }
    }
done:
    json_decref(root);
    if (st != PT_OK) pt_graph_free(g);
    return st;
}

pt_status pt_graph_load(const char *name_or_path, pt_graph *g, pt_diag *d)
{
    char *text;
    pt_status st;
    for (int i = 0; i < pt_graph_catalog_count(); i++)
        if (!strcmp(builtins[i].name, name_or_path)) return pt_graph_builtin(name_or_path, g, d);
    if ((st = pt_read_file(name_or_path, &text, d)) != PT_OK) return st;
    st = pt_graph_parse(text, name_or_path, g, d);
    free(text);
    return st;
}
