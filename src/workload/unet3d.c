/*
 * unet3d.c -- the 3D U-Net on MSD BraTS shapes as a layer graph (see
 * unet3d.h).  Layers go in through pt_graph_add as 1x1 layers of the right
 * channels on the flattened volume; their 3D kernel's GEMM, parameters and
 * (for pools and up-convolutions) new sizes are then set here.
 */
#include "workload/unet3d.h"
#include "base/base.h"

#include <stdio.h>
#include <string.h>

void pt_unet3d_brats(pt_unet3d_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->in_channels = 4;
    cfg->classes = 4;
    cfg->d = cfg->h = cfg->w = 128;
    cfg->base = 32;
    cfg->samples_per_epoch = 484;
}

typedef struct ub {
    pt_graph *g;
    pt_diag *d;
    pt_status st;
    int64_t hw;  /* H x W of the current resolution */
} ub;

static pt_glayer *last(ub *b) { return &b->g->l[b->g->n - 1]; }

static double elems(const pt_glayer *l) { return (double)l->c * (double)l->h * (double)l->w; }

/* 3x3x3 convolution, padding 1, batch norm and ReLU: the channels change,
 * the volume does not. */
static void conv3(ub *b, const char *name, const char *in, int64_t out)
{
    pt_gspec s = {.name = name, .op = PT_G_CONV, .in = {in}, .out = out, .kernel = 1, .bn = 1, .relu = 1};
    pt_glayer *l;
    double cin, vox;
    if (b->st != PT_OK || (b->st = pt_graph_add(b->g, &s, b->d)) != PT_OK) return;
    l = last(b);
    cin = (double)b->g->l[l->in[0]].c;
    vox = (double)l->h * (double)l->w;
    l->gk[0] = 27.0 * cin;
    l->flops = 2.0 * vox * (double)out * 27.0 * cin;
    l->params = 27.0 * cin * (double)out + (double)out; /* weights and a bias, as the paper counts */
}

/* 2x2x2 max pool of stride 2. */
static void pool(ub *b, const char *name)
{
    pt_gspec s = {.name = name, .op = PT_G_MAXPOOL, .kernel = 1, .stride = 1};
    pt_glayer *l;
    double in;
    if (b->st != PT_OK || (b->st = pt_graph_add(b->g, &s, b->d)) != PT_OK) return;
    l = last(b);
    in = elems(l);
    b->hw /= 4;
    l->h /= 2;
    l->w = b->hw;
    l->mem_bytes = 2.0 * (in + elems(l));
    l->act_bytes = 2.0 * elems(l) * 1.5;
}

/* 2x2x2 up-convolution of stride 2 (transposed), no bias: each input voxel
 * writes a 2x2x2 block, a GEMM of M = D H W, N = 8 C_out, K = C_in. */
static void upconv(ub *b, const char *name, int64_t out)
{
    pt_gspec s = {.name = name, .op = PT_G_CONV, .out = out, .kernel = 1};
    pt_glayer *l;
    double cin, vox;
    if (b->st != PT_OK || (b->st = pt_graph_add(b->g, &s, b->d)) != PT_OK) return;
    l = last(b);
    cin = (double)b->g->l[l->in[0]].c;
    vox = (double)l->h * (double)l->w;
    l->gm[0] = vox;
    l->gn[0] = 8.0 * (double)out;
    l->gk[0] = cin;
    l->flops = 2.0 * vox * 8.0 * (double)out * cin;
    l->params = 8.0 * cin * (double)out;
    b->hw *= 4;
    l->h *= 2;
    l->w = b->hw;
    l->act_bytes = 2.0 * elems(l);
    l->mem_bytes = 0;
}

pt_status pt_unet3d_build(pt_graph *g, const pt_unet3d_cfg *cfg, pt_diag *d)
{
    ub b = {g, d, PT_OK, cfg->h * cfg->w};
    const int64_t c0 = cfg->base;
    char v[32];
#define NEED(cond, field, val)                                                                          \
    do {                                                                                                \
        if (!(cond)) {                                                                                  \
            snprintf(v, sizeof v, "%lld", (long long)(val));                                            \
            return pt_diag_set(d, NULL, field, v, "3D U-Net: %s %s must be positive%s", field, v,        \
                               strcmp(field, "in_channels") && strcmp(field, "classes") &&             \
                                       strcmp(field, "base")                                            \
                                   ? " and divisible by 8 (three 2x2x2 pools)"                          \
                                   : "");                                                               \
        }                                                                                               \
    } while (0)
    NEED(cfg->in_channels > 0, "in_channels", cfg->in_channels);
    NEED(cfg->classes > 0, "classes", cfg->classes);
    NEED(cfg->base > 0, "base", cfg->base);
    NEED(cfg->d > 0 && cfg->d % 8 == 0, "depth", cfg->d);
    NEED(cfg->h > 0 && cfg->h % 8 == 0, "height", cfg->h);
    NEED(cfg->w > 0 && cfg->w % 8 == 0, "width", cfg->w);
#undef NEED
    g->samples_per_epoch = cfg->samples_per_epoch;
    pt_strlcpy(g->sample, "volume", sizeof g->sample);
    if ((b.st = pt_graph_add(g, &(pt_gspec){.name = "input", .op = PT_G_INPUT,
                                           .shape = {cfg->in_channels, cfg->d, cfg->h * cfg->w}},
                             d)) != PT_OK)
        return b.st;
    /* analysis path */
    conv3(&b, "enc1.conv1", "input", c0);
    conv3(&b, "enc1.conv2", "enc1.conv1", 2 * c0);
    pool(&b, "enc1.pool");
    conv3(&b, "enc2.conv1", "enc1.pool", 2 * c0);
    conv3(&b, "enc2.conv2", "enc2.conv1", 4 * c0);
    pool(&b, "enc2.pool");
    conv3(&b, "enc3.conv1", "enc2.pool", 4 * c0);
    conv3(&b, "enc3.conv2", "enc3.conv1", 8 * c0);
    pool(&b, "enc3.pool");
    conv3(&b, "bottom.conv1", "enc3.pool", 8 * c0);
    conv3(&b, "bottom.conv2", "bottom.conv1", 16 * c0);
    /* synthesis path */
    upconv(&b, "dec3.up", 16 * c0);
    if (b.st == PT_OK)
        b.st = pt_graph_add(g, &(pt_gspec){.name = "dec3.cat", .op = PT_G_CONCAT, .in = {"dec3.up", "enc3.conv2"}}, d);
    conv3(&b, "dec3.conv1", "dec3.cat", 8 * c0);
    conv3(&b, "dec3.conv2", "dec3.conv1", 8 * c0);
    upconv(&b, "dec2.up", 8 * c0);
    if (b.st == PT_OK)
        b.st = pt_graph_add(g, &(pt_gspec){.name = "dec2.cat", .op = PT_G_CONCAT, .in = {"dec2.up", "enc2.conv2"}}, d);
    conv3(&b, "dec2.conv1", "dec2.cat", 4 * c0);
    conv3(&b, "dec2.conv2", "dec2.conv1", 4 * c0);
    upconv(&b, "dec1.up", 4 * c0);
    if (b.st == PT_OK)
        b.st = pt_graph_add(g, &(pt_gspec){.name = "dec1.cat", .op = PT_G_CONCAT, .in = {"dec1.up", "enc1.conv2"}}, d);
    conv3(&b, "dec1.conv1", "dec1.cat", 2 * c0);
    conv3(&b, "dec1.conv2", "dec1.conv1", 2 * c0);
    /* 1x1x1 convolution to the labels (weights and a bias), voxel-wise softmax */
    if (b.st == PT_OK)
        b.st = pt_graph_add(g, &(pt_gspec){.name = "head", .op = PT_G_CONV, .out = cfg->classes, .kernel = 1}, d);
    if (b.st == PT_OK)
        b.st = pt_graph_add(g, &(pt_gspec){.name = "loss", .op = PT_G_LOSS, .classes = cfg->classes}, d);
    return b.st;
}
