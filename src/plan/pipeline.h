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
 *  - a transfer over the network also costs both boards' CPUs per byte
 *    (edge.h, pt_edge_type.net_s_per_byte: the TCP/IP stack and the
 *    framework's copies); a stage on the CPU cluster running the stack pays
 *    it in its busy time when it uses every core (a static thread pool
 *    waits at each operator for the thread the stack interrupts) and hides
 *    it when it leaves a core idle (busy = max(compute, network CPU)); a
 *    stage on a GPU or NPU does not pay it; a transfer takes the longer of
 *    the wire and either end's stack, plus the link's latency;
 *  - a CPU stage runs with the best of the thread-pool settings (intra-op
 *    threads per operator x inter-op sub-batches at once, at most the
 *    cluster's cores, or one fewer to leave a core to the network stack;
 *    edge.h prices them); the plan says which, and what the vendors'
 *    default (all cores to one operator, one at a time) costs;
 *  - with the latency objective a stage may also be split over w boards of
 *    one kind as HALP (Dong et al., arXiv 2211.13778; Li et al., ICC 2022)
 *    and MoDNN run a layer: a host board holds the layer's input, sends
 *    each of the w - 1 secondaries its segment in turn (its share r of the
 *    output rows and the receptive field's kernel - stride halo rows of
 *    input; all of the input when the share is of a fully connected
 *    layer's output features), computes its own share 1 - (w - 1) r
 *    meanwhile while its CPU also runs the sends and receives, and gathers
 *    the secondaries' outputs as they come back (a secondary receives,
 *    computes, sends back); the layer is done when the host has every
 *    segment.  The partitioning ratio r, HALP's knob, is chosen per layer
 *    (a grid and a finer grid over [0, 1/(w-1)]; 0 leaves the layer to the
 *    host alone, as it does VGG-16's pools).  Before this model the boards
 *    exchanged every layer's segments among themselves, hidden behind the
 *    computation: 2.14x for HALP's VGG-16 on three Pi 4 boards against the
 *    paper's 1.7x; the host's link gives 2.05x, its CPU's network work
 *    1.65x (README, "Why HALP's boards reach 1.7x").
 * The partition is an exact dynamic programme over cut points (Jena/PipeDream
 * style): for a fixed order of the units, f[s][j][o] is the best pipeline
 * of layers [0, j) whose last stage is unit s, o saying whether the next
 * stage is on another board (then s also pays the network CPU of sending
 * cut j); f[s][j][o] = min over s' < s, i < j of max(f[s'][i][o'],
 * stage(s, i, j, net), transfer(s', s, i)) (throughput) or the sum
 * (latency), where o' is whether s' and s are on different boards and net
 * the network CPU of cut i (when o') and cut j (when o).  Units may be left
 * idle.  The orders tried: the kinds of board in every order, boards of one
 * kind in turn, a board's units in catalog order or reversed.
 * tests/test_pipeline.c checks the DP against brute force over every
 * assignment of cut points, with and without network CPU.
 * Relation to place.c: pt_pprob_chain_dp places a layer chain on identical
 * devices with transfers added to the stage's load (training, no overlap);
 * here every unit prices layers differently and transfers overlap, so the
 * recurrence carries the unit index and takes the max.
 * What it does not: shared Wi-Fi airtime between boards, a framework's
 * per-message overhead beyond the link's latency, fused layers whose
 * segments stay on the secondaries (DPFP, Li et al. 2022), or the input's
 * delivery.
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
    double compute_s;              /* one batch, its network CPU included
                                    * where it takes the cores (edge.h)     */
    double default_s;              /* at intra = cores, inter = 1 (CPU)      */
    double transfer_s;             /* sending one batch's output onwards     */
    double net_cpu_s;              /* its board's CPU on the network stack,
                                    * receiving its input and sending its
                                    * output (in compute_s where it competes) */
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

/* Unit s's time per batch for layers [i, j) while its board's CPU spends
 * net_s seconds on the network stack (INFINITY: does not fit). */
typedef double (*pt_pipe_busy_fn)(const void *ctx, int s, int i, int j, double net_s);

/* The DP, exposed for tests: m units in order, n layers.  busy(ctx, s, i,
 * j, net_s) prices a stage; xfer[(s' * m + s) * (n + 1) + i] is the
 * transfer at cut i from unit s' to unit s; net[s * (n + 1) + i] the CPU
 * seconds unit s spends sending or receiving the tensors of cut i over the
 * network (NULL: none), paid when the neighbouring stage is on another board
 * (board[s], NULL: every unit its own board).  Fills cut[] (stage k: layers
 * [cut_first[k], cut_last[k]) on unit cut_unit[k], k < *nst) and returns the
 * bottleneck (throughput) or the latency, INFINITY when nothing fits.  The
 * state carries whether the next stage is on another board, so that a
 * stage's sending is priced with it: exact, O(m^2 n^2). */
double pt_pipe_dp(int n, int m, pt_pipe_busy_fn busy, const void *ctx, const double *xfer, const double *net,
                  const int *board, pt_pipe_objective obj, int *cut_unit, int *cut_first, int *cut_last, int *nst);

#endif
