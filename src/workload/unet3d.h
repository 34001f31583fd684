/*
 * unet3d.h -- the 3D U-Net (Cicek et al., "3D U-Net: Learning Dense
 * Volumetric Segmentation from Sparse Annotation", MICCAI 2016) as a layer
 * graph, on the shapes of the Medical Segmentation Decathlon's brain-tumour
 * task (MSD Task01_BrainTumour, BraTS 2016-2017 data: Simpson et al., arXiv
 * 1902.09063, and Antonelli et al., Nature Communications 13, 4128, 2022):
 * 484 labelled training volumes of 240 x 240 x 155 voxels, 4 MR modalities
 * (FLAIR, T1w, T1gd, T2w) as input channels, 4 output labels (background,
 * oedema, non-enhancing and enhancing tumour).
 *
 * The network: an analysis path of four resolutions, each two 3x3x3
 * convolutions with batch norm and ReLU (32-64, 64-128, 128-256, 256-512
 * channels) and a 2x2x2 max pool between them; a synthesis path of 2x2x2
 * up-convolutions of stride 2, each concatenated with the analysis path's
 * features of its resolution and followed by two 3x3x3 convolutions
 * (256, 128, 64 channels); a 1x1x1 convolution to the labels.  With 3 input
 * channels and 3 labels this is the paper's 19,069,955 parameters (convs
 * with a bias, up-convolutions without; tests/test_unet3d.c checks it).
 *
 * A volume [C, D, H, W] is held in the graph's image fields as c = C,
 * h = D, w = H x W: element counts, memory traffic and activations are
 * exact, and a split along h cuts the volume into slabs of whole H x W
 * planes, which is what spatial (domain) partitioning does
 * (src/cost/spatial.h).  Each layer's GEMM is set for its 3D kernel: a
 * 3x3x3 convolution is M = D H W, N = C_out, K = 27 C_in.
 *
 * The crop is an assumption, not the dataset's: 128 x 128 x 128 voxels,
 * the patch of the common BraTS recipes (nnU-Net's, NVIDIA's), since 155
 * is not divisible by the 2^3 of three pools.
 * What it does not: read 3D shapes from graph files (the file format has
 * [C, H, W] images only), price anything (src/cost).
 */
#ifndef PT_UNET3D_H
#define PT_UNET3D_H

#include "partita.h"
#include "workload/graph.h"

typedef struct pt_unet3d_cfg {
    int64_t in_channels;   /* e.g. 4 MR modalities                   */
    int64_t classes;       /* e.g. 4 labels                          */
    int64_t d, h, w;       /* input crop, each divisible by 8         */
    int64_t base;          /* channels of the first conv, e.g. 32     */
    double samples_per_epoch; /* e.g. 484 training volumes        */
} pt_unet3d_cfg;

/* The built-in's configuration: 4 channels, 4 labels, 128^3, base 32,
 * 484 volumes per epoch. */
void pt_unet3d_brats(pt_unet3d_cfg *cfg);

/* Appends the 3D U-Net of cfg to an empty graph g (name and sample set by
 * the caller or left).  PT_EINPUT for a crop not divisible by 8 or a size
 * <= 0, naming the field. */
pt_status pt_unet3d_build(pt_graph *g, const pt_unet3d_cfg *cfg, pt_diag *d);

#endif
