/*
 * recsys.c -- recommendation models: the built-ins, the tables of a graph
 * (see recsys.h).
 */
#include "workload/recsys.h"
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Criteo Terabyte training samples (days 0-22), the MLPerf split. */
#define CRITEO_TB_TRAIN_SAMPLES 4195197692.0

static const int64_t dlrm_rows[26] = {
    39884406, 39043, 17289, 7420, 20263, 3, 7120, 1543, 63, 38532951, 2953546, 403346, 10,
    2208, 11938, 155, 4, 976, 14, 39979771, 25641295, 39664984, 585935, 12972, 108, 36};
static const int64_t dcnv2_rows[26] = {
    40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10,
    2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36};
static const int dcnv2_pooling[26] = {3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1,
                                      6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1};

typedef struct rb {
    pt_graph *g;
    pt_diag *d;
    pt_status st;
} rb;

static void add(rb *b, pt_gspec s)
{
    if (b->st == PT_OK) b->st = pt_graph_add(b->g, &s, b->d);
}

/* MLP layers name0, name1, ... of the given widths after `in`; the last
 * without ReLU when `last_linear`. */
static void mlp(rb *b, const char *name, const char *in, const int64_t *w, int n, int last_linear, char *out,
                size_t out_n)
{
    char nm[48], prev[48];
    pt_strlcpy(prev, in, sizeof prev);
    for (int i = 0; i < n; i++) {
        snprintf(nm, sizeof nm, "%s%d", name, i);
        add(b, (pt_gspec){.name = nm, .op = PT_G_LINEAR, .in = {prev}, .out = w[i],
                          .relu = !(last_linear && i == n - 1)});
        pt_strlcpy(prev, nm, sizeof prev);
    }
    pt_strlcpy(out, prev, out_n);
}

static void tables(rb *b, const int64_t *rows, const int *pooling, const char *opt)
{
    for (int i = 0; i < 26; i++) {
        char nm[48];
        snprintf(nm, sizeof nm, "t%d", i);
        add(b, (pt_gspec){.name = nm, .op = PT_G_EMBEDDING_BAG, .rows = rows[i], .dim = 128,
                          .pooling = pooling ? pooling[i] : 1, .optimizer = opt});
    }
}

static void build_dlrm(rb *b, int dcn)
{
    static const int64_t bot[3] = {512, 256, 128}, top[5] = {1024, 1024, 512, 256, 1};
    char last[48];
    b->g->samples_per_epoch = CRITEO_TB_TRAIN_SAMPLES;
    pt_strlcpy(b->g->sample, "click", sizeof b->g->sample);
    add(b, (pt_gspec){.name = "dense", .op = PT_G_INPUT, .shape = {13, 1, 1}});
    mlp(b, "bot", "dense", bot, 3, 0, last, sizeof last);
    if (dcn) tables(b, dcnv2_rows, dcnv2_pooling, "rowwise_adagrad");
    else tables(b, dlrm_rows, NULL, "sgd");
    add(b, (pt_gspec){.name = "interaction", .op = PT_G_INTERACTION, .in = {last},
                      .kind = dcn ? "dcn" : "dot", .cross_layers = 3, .rank = 512});
    mlp(b, "top", "interaction", top, 5, 1, last, sizeof last);
    add(b, (pt_gspec){.name = "loss", .op = PT_G_LOSS, .classes = 1});
}

static void build_dlrm_v1(rb *b) { build_dlrm(b, 0); }
static void build_dlrm_dcnv2(rb *b) { build_dlrm(b, 1); }

static const struct {
    const char *name;
    void (*build)(rb *);
} builtins[] = {
    {"dlrm", build_dlrm_v1},
    {"dlrm-dcnv2", build_dlrm_dcnv2},
};

int pt_recsys_catalog_count(void) { return (int)(sizeof builtins / sizeof *builtins); }
const char *pt_recsys_catalog_name(int i) { return builtins[i].name; }

void pt_recsys_free(pt_recsys *rs)
{
    pt_graph_free(&rs->g);
    free(rs->table);
    memset(rs, 0, sizeof *rs);
}

pt_status pt_recsys_from_graph(pt_graph *g, pt_recsys *rs, pt_diag *d)
{
    int n = 0;
    memset(rs, 0, sizeof *rs);
    rs->g = *g;
    memset(g, 0, sizeof *g);
    for (int i = 0; i < rs->g.n; i++) n += rs->g.l[i].op == PT_G_EMBEDDING_BAG;
    if (n == 0) {
        pt_diag_set(d, NULL, "layers", rs->g.name, "%s has no embedding_bag layer: not a recommendation model",
                    rs->g.name);
        pt_recsys_free(rs);
        return PT_EINPUT;
    }
    if (!(rs->table = malloc((size_t)n * sizeof *rs->table))) {
        pt_recsys_free(rs);
        pt_diag_set(d, NULL, NULL, NULL, "out of memory");
        return PT_ENOMEM;
    }
    for (int i = 0; i < rs->g.n; i++)
        if (rs->g.l[i].op == PT_G_EMBEDDING_BAG) rs->table[rs->ntables++] = i;
    return PT_OK;
}

pt_status pt_recsys_builtin(const char *name, pt_recsys *rs, pt_diag *d)
{
    memset(rs, 0, sizeof *rs);
    for (int i = 0; i < pt_recsys_catalog_count(); i++)
        if (!strcmp(builtins[i].name, name)) {
            pt_graph g;
            rb b = {&g, d, PT_OK};
            memset(&g, 0, sizeof g);
            pt_strlcpy(g.name, name, sizeof g.name);
            builtins[i].build(&b);
            if (b.st != PT_OK) {
                pt_graph_free(&g);
                return b.st;
            }
            return pt_recsys_from_graph(&g, rs, d);
        }
    return pt_diag_set(d, NULL, "model", name, "\"%s\" is not a built-in recommendation model", name);
}

int pt_recsys_probe(const char *name_or_path)
{
    char *text;
    pt_diag d;
    json_t *root, *layers;
    int found = 0;
    for (int i = 0; i < pt_recsys_catalog_count(); i++)
        if (!strcmp(builtins[i].name, name_or_path)) return 1;
    if (pt_read_file(name_or_path, &text, &d) != PT_OK) return 0;
    root = json_loads(text + pt_bom_len(text), 0, NULL);
    free(text);
    layers = json_is_object(root) ? json_object_get(root, "layers") : NULL;
    for (size_t i = 0; json_is_array(layers) && i < json_array_size(layers) && !found; i++) {
        const json_t *op = json_object_get(json_array_get(layers, i), "op");
        found = json_is_string(op) && !strcmp(json_string_value(op), "embedding_bag");
    }
    json_decref(root);
    return found;
}

pt_status pt_recsys_load(const char *name_or_path, pt_recsys *rs, pt_diag *d)
{
    pt_graph g;
    pt_status st;
    for (int i = 0; i < pt_recsys_catalog_count(); i++)
        if (!strcmp(builtins[i].name, name_or_path)) return pt_recsys_builtin(name_or_path, rs, d);
    memset(rs, 0, sizeof *rs);
    if ((st = pt_graph_load(name_or_path, &g, d)) != PT_OK) return st;
    return pt_recsys_from_graph(&g, rs, d);
}

const pt_glayer *pt_recsys_table(const pt_recsys *rs, int i) { return &rs->g.l[rs->table[i]]; }

int64_t pt_recsys_table_bytes(const pt_glayer *t) { return t->emb.rows * t->c * t->emb.bytes; }

int64_t pt_recsys_table_state_bytes(const pt_glayer *t)
{
    switch (t->emb.optimizer) {
    case PT_EMB_ROWWISE_ADAGRAD: return 4 * t->emb.rows;
    case PT_EMB_ADAGRAD: return 4 * t->emb.rows * t->c;
    case PT_EMB_ADAM: return 8 * t->emb.rows * t->c;
    default: return 0;
    }
}

int64_t pt_recsys_rows(const pt_recsys *rs)
{
    int64_t n = 0;
    for (int i = 0; i < rs->ntables; i++) n += pt_recsys_table(rs, i)->emb.rows;
    return n;
}

int64_t pt_recsys_embedding_bytes(const pt_recsys *rs)
{
    int64_t n = 0;
    for (int i = 0; i < rs->ntables; i++) n += pt_recsys_table_bytes(pt_recsys_table(rs, i));
    return n;
}

double pt_recsys_dense_params(const pt_recsys *rs)
{
    double p = 0;
    for (int i = 0; i < rs->g.n; i++)
        if (rs->g.l[i].op != PT_G_EMBEDDING_BAG) p += rs->g.l[i].params;
    return p;
}

double pt_recsys_dense_flops(const pt_recsys *rs)
{
    double f = 0;
    for (int i = 0; i < rs->g.n; i++)
        if (rs->g.l[i].op != PT_G_EMBEDDING_BAG) f += rs->g.l[i].flops;
    return f;
}

const char *pt_emb_opt_name(int opt)
{
    static const char *const names[] = {"sgd", "rowwise_adagrad", "adagrad", "adam"};
    return opt >= 0 && opt < 4 ? names[opt] : "?";
}

const char *pt_emb_precision_name(int bytes)
{
    return bytes == 4 ? "fp32" : bytes == 2 ? "fp16" : bytes == 1 ? "int8" : "?";
}
