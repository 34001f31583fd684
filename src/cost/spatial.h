/*
 * spatial.h -- spatial (domain) partitioning of a convolutional network's
 * activations: each sample's image or volume is cut along its height
 * (depth for a volume, src/workload/unet3d.h) into p slabs, one per device
 * of a group, so p devices work on one sample and a data-parallel job of
 * N devices runs N / p samples at a time instead of N (model parallelism
 * that keeps the global batch small, as Dryden et al., "Improving
 * Strong-Scaling of CNN Training by Exploiting Finer-Grained Parallelism",
 * IPDPS 2019, and the spatial parallelism of MeshTensorFlow/LBANN do for
 * 3D volumes).
 *
 * Per layer of a group of p devices and b samples:
 *   compute   the layer's forward on b / p samples' worth of voxels
 *             (pt_glayer_fwd_s at b / p), backward twice that;
 *   halo      a convolution of kernel extent k along the cut reads
 *             r = (k - 1) / 2 planes of its neighbours' input on each side:
 *             2 bytes x C_in x (plane elements) x r x b per side, once in
 *             the forward and once more for the input gradient in the
 *             backward, sent to both neighbours at once (pt_p2p_time over
 *             the group); not overlapped with the interior's compute, so
 *             an upper bound;
 *   batch norm  each norm's statistics are summed over the group (an
 *             all-reduce of 2 C floats forward and backward);
 *   pools and 2x2x2 up-convolutions need no halo when every slab holds a
 *             whole number of their windows: the group size must divide
 *             every layer's height (16 planes at the U-Net's bottom: p <= 16).
 * The kernel extent comes from a convolution's GEMM: K / C_in taps, a cube
 * (3x3x3: 27) read as a 3D kernel, else a square (3x3: 9) as a 2D one.
 * Gradients: every device holds the whole model; the exchange over all
 * devices is the fastest of pt_ps_time's schemes (src/cost/ps.h), hidden
 * under the backward as graph_cost.c's step hides it.
 * What it does not: cut along a second axis, or partition sequence layers
 * (p > 1 on a graph with one is refused).
 */
#ifndef PT_SPATIAL_H
#define PT_SPATIAL_H

#include "partita.h"
#include "cost/ps.h"
#include "workload/graph.h"

typedef struct pt_spatial_cost {
    int p;                  /* devices per sample group                  */
    int64_t groups;         /* data-parallel groups                      */
    double compute_s;       /* forward and backward, one device          */
    double halo_s;          /* halo exchanges, forward and backward      */
    double norm_s;          /* batch-norm statistics over the group      */
    double halo_bytes;      /* per device per step, one direction        */
    double dp_comm_s;       /* exposed gradient exchange                 */
    double optimizer_s;
    double step_s;
    double mem_bytes;       /* one device                                 */
    pt_ps_scheme sync;      /* the gradient exchange chosen              */
} pt_spatial_cost;

/* The largest group size p (a power of two) that divides every layer's
 * height, i.e. the deepest cut the graph allows; 0 for a graph with
 * sequence layers. */
int pt_spatial_max_p(const pt_graph *g);

/* One training step of g on all of c's devices in groups of p consecutive
 * devices, each group b samples; k CPU machines for the gradient exchange
 * (see ps.h), whose pushes cover the rows push_samples samples touched
 * (pt_ps_push_fraction; 0: b, more where micro-batches accumulate).
 * p = 1 is data parallelism alone and takes any graph.  PT_EINPUT when p
 * does not divide the devices or every layer's height, or p > 1 on a
 * graph with sequence layers. */
pt_status pt_spatial_step(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, int p, double b, double k,
                          double push_samples, pt_spatial_cost *out, pt_diag *d);

#endif
