/*
 * pipeline.h -- inference pipelines over edge devices (SPEC section 10,
 * `partita pipeline`): a layer graph cut into stages, each on one compute
 * unit of one board (a CPU cluster, a GPU, an NPU), repeated as replicas.
 *
 * The model (wave2-notes section 3; EdgePipe/PipeEdge, arXiv 2110.14895;
 * Pipe-it, arXiv 1903.05898):
 *  - a batch of B samples flows through the stages; a stage computes batch
 *    k while it sends batch k-1 onwards and receives batch k+1 (double
 *    buffering), so a stage is busy max(compute, receive, send) per batch
 *    and the pipeline delivers B / max over stages of that (its
 *    bottleneck); a batch's latency is every stage's compute plus every
 *    transfer in turn;
 *  - a transfer at a cut carries every tensor made before the cut and used
 *    after it (a residual too), B samples of them, over the on-chip link
 *    between units of one board or the network between boards, plus the
 *    link's latency;
 *  - r replicas (each a pipeline on its own boards, the boards of each kind
 *    shared out evenly) deliver r times one's throughput;
 *  - a stage's memory (its weights and a batch of its largest layer's input
 *    and output) stays under its board's usable memory divided among the
 *    board's units (PT_EDGE_MEM_USABLE);
 *  - a CPU stage runs with the best of the thread-pool settings (intra-op
 *    threads per operator x inter-op sub-batches at once, at most the
 *    cluster's cores; edge.h prices them); the plan says which, and what
 *    the vendors' default (all cores to one operator, one at a time) costs;
 *  - with the latency objective a stage may also be split over w boards of
 *    one kind, each computing 1/w of every layer's rows (HALP's
 *    segment-based partition, arXiv 2211.13778; MoDNN): after each layer
 *    the boards exchange their segments over the network, (w-1)/w of its
 *    output each way, overlapped with the computation as HALP does, so a
 *    split layer takes max(compute / w, exchange) plus the link latency.
 * The partition is an exact dynamic programme over cut points (Jena/PipeDream
 * style): for a fixed order of the units, f[s][j] is the best pipeline of
 * layers [0, j) whose last stage is unit s; f[s][j] = min over s' < s,
 * i < j of max(f[s'][i], stage(s, i, j), transfer(s', s, i)) (throughput)
 * or the sum (latency).  Units may be left idle.  The orders tried: the
 * kinds of board in every order, boards of one kind in turn, a board's units
 * in catalog order or reversed.  tests/test_pipeline.c checks the DP against
 * brute force over every assignment of cut points.
 * Relation to place.c: pt_pprob_chain_dp places a layer chain on identical
 * devices with transfers added to the stage's load (training, no overlap);
 * here every unit prices layers differently and transfers overlap, so the
 * recurrence carries the unit index and takes the max.
 * What it does not: model contention of one board's units for memory
 * bandwidth, shared Wi-Fi airtime between boards, or the input's delivery.
 */
#ifndef PT_PLAN_PIPELINE_H
#define PT_PLAN_PIPELINE_H

#include "partita.h"
#include "plan/edge.h"
#include "workload/graph.h"

#define PT_PIPE_MAX_STAGES 256

typedef enum pt_pipe_objective { PT_PIPE_THROUGHPUT = 0, PT_PIPE_LATENCY } pt_pipe_objective;

typedef struct pt_pipe_opts {
    int batch;                     /* samples per batch, e.g. 1              */
    pt_edge_dtype dtype;           /* e.g. PT_EDGE_FP32                      */
    pt_pipe_objective objective;
    int replicas;                  /* fixed replica count, 0 = the best      */
    unsigned kinds;                /* bit (1 << pt_unit_kind): unit kinds it
                                    * may use; 0 = every kind               */
} pt_pipe_opts;

typedef struct pt_pipe_stage {
    int board;                     /* index of its (first) board             */
    int width;                     /* boards splitting it (1 = one board)    */
    int unit;                      /* unit of the board's kind               */
    int first, last;               /* layers [first, last) in graph order    */
    int intra, inter;              /* CPU threads per operator, sub-batches  */
    double compute_s;              /* one batch                              */
    double default_s;              /* at intra = cores, inter = 1 (CPU)      */
    double transfer_s;             /* sending one batch's output onwards     */
    double mem_bytes;
    int fallback_layers;           /* layers an NPU hands to its fallback    */
} pt_pipe_stage;

typedef struct pt_pipe_plan {
    int replicas, nstages;
    pt_pipe_stage stage[PT_PIPE_MAX_STAGES];
    double bottleneck_s;           /* max over stages of its busy time       */
    double latency_s;              /* one batch through the empty pipeline   */
    double samples_per_s;          /* all replicas                           */
    double speedup;                /* over the best single unit: samples/s
                                    * (throughput) or latency (latency)     */
    double single_samples_per_s, single_latency_s;
    int single_type, single_unit;  /* the best single unit                   */
    int single_fits;               /* 0: no one unit holds the graph; its
                                    * time is what it would take            */
    double threads_gain;           /* the plan's throughput over the same
                                    * stages at the vendors' default threads */
    long long candidates;          /* (order, replicas) DPs solved           */
} pt_pipe_plan;

/* The best plan of g on c (deterministic); PT_INFEASIBLE (with d) when no
 * partition fits the boards' memory, PT_EINPUT when an option is out of
 * range. */
pt_status pt_pipe_plan_graph(const pt_graph *g, const pt_edge_cluster *c, const pt_pipe_opts *o, pt_pipe_plan *p,
                             pt_diag *d);

/* The DP on an abstract problem, for tests: m units in order, n layers.
 * stage[(s * (n + 1) + i) * (n + 1) + j] is unit s's time for layers
 * [i, j) (INFINITY: does not fit); xfer[(s' * m + s) * (n + 1) + i] the
 * transfer at cut i from unit s' to unit s.  Fills cut[] (stage s' layers
 * [cut_first[k], cut_last[k]) on unit cut_unit[k], k < *nst) and returns the
 * bottleneck (throughput) or the latency, INFINITY when nothing fits. */
double pt_pipe_dp(int n, int m, const double *stage, const double *xfer, pt_pipe_objective obj, int *cut_unit,
                  int *cut_first, int *cut_last, int *nst);

#endif
