/*
 * test_unet3d.c -- the 3D U-Net built-in (src/workload/unet3d.c) and
 * spatial partitioning with halo exchange (src/cost/spatial.c): parameter
 * counts against the paper, FLOPs and halo bytes by hand.
 */
#include <math.h>

#include "helpers.h"
#include "cost/graph_cost.h"
#include "cost/spatial.h"
#include "workload/graph.h"
#include "workload/unet3d.h"

/* Cicek et al. 2016: "The architecture has 19,069,955 parameters in total"
 * (3 input channels, 3 labels).  By hand: 3x3x3 conv weights 19,067,616 -
 * up-conv weights included - plus 2,339 conv biases.  The BraTS built-in
 * (4 channels, 4 labels) adds 27 x 32 weights for the 4th channel and
 * 64 + 1 for the 4th label: 19,070,884.  Its first conv on 128^3:
 * 2 x 128^3 x 32 x (27 x 4) = 14,495,514,624 FLOPs. */
static void test_unet3d_params(void **state)
{
    pt_graph g;
    pt_diag d;
    pt_unet3d_cfg cfg;
    (void)state;
    pt_unet3d_brats(&cfg);
    cfg.in_channels = 3, cfg.classes = 3;
    memset(&g, 0, sizeof g);
    assert_int_equal(pt_unet3d_build(&g, &cfg, &d), PT_OK);
    assert_true(pt_graph_params(&g) == 19069955.0);
    pt_graph_free(&g);
    assert_int_equal(pt_graph_builtin("unet3d-brats", &g, &d), PT_OK);
    assert_true(pt_graph_params(&g) == 19070884.0);
    assert_true(g.samples_per_epoch == 484);
    assert_string_equal(g.sample, "volume");
    assert_string_equal(g.l[1].name, "enc1.conv1");
    assert_true(g.l[1].flops == 14495514624.0);
    /* the volume is c, h = depth, w = height x width; pools halve each axis */
    assert_true(g.l[1].c == 32 && g.l[1].h == 128 && g.l[1].w == 128 * 128);
    assert_true(g.l[3].h == 64 && g.l[3].w == 64 * 64);
    /* the deepest level: 16^3, 512 channels */
    for (int i = 0; i < g.n; i++)
        if (!strcmp(g.l[i].name, "bottom.conv2")) assert_true(g.l[i].c == 512 && g.l[i].h == 16 && g.l[i].w == 256);
    pt_graph_free(&g);
    /* a crop the three pools cannot halve */
    cfg.d = 100;
    memset(&g, 0, sizeof g);
    assert_int_equal(pt_unet3d_build(&g, &cfg, &d), PT_EINPUT);
    assert_string_equal(d.field, "depth");
    assert_string_equal(d.value, "100");
    pt_graph_free(&g);
}

/* Halo bytes by hand for the BraTS U-Net, one volume per group, any p > 1:
 * each 3x3x3 conv sends one plane of its input (2 bytes x C_in x H W) to
 * both neighbours, forward and backward: 2 x 2 x 2 x sum(C_in x H W).
 * sum(C_in x H W) = 16384 (4 + 32 + 192 + 64) + 4096 (64 + 64 + 384 + 128)
 *                 + 1024 (128 + 128 + 768 + 256) + 256 (256 + 256) = 8,847,360,
 * so 70,778,880 bytes per device per step. */
static void test_spatial_halo(void **state)
{
    pt_graph g, gn;
    pt_diag d;
    pt_spatial_cost s1, s2, s4;
    pt_graph_cost gc;
    pt_cluster c = th_cluster("dgx-1-v100", 8);
    (void)state;
    assert_int_equal(pt_graph_builtin("unet3d-brats", &g, &d), PT_OK);
    assert_int_equal(pt_spatial_max_p(&g), 16);
    assert_int_equal(pt_spatial_step(&g, &c, PT_FP16, 1, 1, 0, 0, &s1, &d), PT_OK);
    assert_int_equal(pt_spatial_step(&g, &c, PT_FP16, 2, 1, 0, 0, &s2, &d), PT_OK);
    assert_int_equal(pt_spatial_step(&g, &c, PT_FP16, 4, 1, 0, 0, &s4, &d), PT_OK);
    assert_true(s1.halo_s == 0 && s1.halo_bytes == 0 && s1.norm_s == 0);
    assert_true(s2.halo_bytes == 70778880.0 && s4.halo_bytes == 70778880.0);
    assert_true(s2.halo_s > 0 && s2.norm_s > 0);
    assert_int_equal(s4.groups, 2);
    /* p = 1 computes what the data-parallel step computes */
    pt_graph_step(&g, &c, PT_FP16, 1, &gc);
    th_near_rel(s1.compute_s, gc.compute_s, 1e-12, "p = 1 compute");
    /* each device keeps 1/p of the activations, all of the weights */
    th_near_rel(s2.mem_bytes - 16.0 * pt_graph_params(&g), (s1.mem_bytes - 16.0 * pt_graph_params(&g)) / 2, 1e-12,
                "activations / 2");
    /* the slabs make the step shorter here (big convolutions, NVLink) */
    assert_true(s4.step_s < s2.step_s && s2.step_s < s1.step_s);
    assert_true(s4.compute_s < s1.compute_s / 3.0);
    /* 32 slabs: the 16^3 bottom has 16 planes */
    c = th_cluster("dgx-1-v100", 64);
    assert_int_equal(pt_spatial_step(&g, &c, PT_FP16, 32, 1, 0, 0, &s1, &d), PT_EINPUT);
    assert_string_equal(d.field, "spatial");
    assert_non_null(strstr(d.msg, "at most 16"));
    /* 3 does not divide 64 devices */
    assert_int_equal(pt_spatial_step(&g, &c, PT_FP16, 3, 1, 0, 0, &s1, &d), PT_EINPUT);
    pt_graph_free(&g);
    /* sequences are not cut */
    assert_int_equal(pt_graph_builtin("gnmt", &gn, &d), PT_OK);
    assert_int_equal(pt_spatial_max_p(&gn), 0);
    assert_int_equal(pt_spatial_step(&gn, &c, PT_FP16, 2, 1, 0, 0, &s1, &d), PT_EINPUT);
    assert_int_equal(pt_spatial_step(&gn, &c, PT_FP16, 1, 1, 0, 0, &s1, &d), PT_OK); /* data parallelism */
    pt_graph_free(&gn);
    /* a 2D CNN: 3x3 kernels read one row; ResNet-50's 7x7 rows = 7 at 224 */
    assert_int_equal(pt_graph_builtin("resnet-50", &gn, &d), PT_OK);
    assert_int_equal(pt_spatial_max_p(&gn), 1);
    pt_graph_free(&gn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unet3d_params),
        cmocka_unit_test(test_spatial_halo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
