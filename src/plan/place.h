/*
 * place.h -- model parallelism for a general layer graph: which of a
 * worker's M devices runs each layer (Pal et al., IEEE Micro 2019, DLPlacer).
 *
 * The worker's batch is cut into k micro-batches that flow through the
 * placement one after another (GPipe; for k = 1 plain model parallelism).
 * With load(d) the seconds device d is busy per micro-batch -- the forward
 * and backward of its layers, plus every tensor it sends or receives -- and
 * latency the length of one micro-batch's schedule through the placed graph,
 * the worker's step is
 *
 *     J = (k - 1) * max_d load(d) + latency
 *
 * which is GPipe's (m + p - 1) formula for a chain of stages, and for a
 * branching graph lets parallel branches overlap on different devices.  The
 * schedule of one micro-batch is a list schedule in topological order: a
 * layer starts when its inputs have arrived (a cut edge adds its transfer)
 * and its device is free.  Between two recurrent or per-token layers the
 * consumer need not wait for the whole sequence: it starts one time step
 * after the producer (wavefront pipelining of stacked LSTMs) and ends one
 * of its own time steps after the producer ends.  Forward and backward are
 * one node (3x the forward time) and a cut edge costs its activation plus
 * its gradient.
 *
 * Three solvers minimise J over placements:
 *   - pt_pprob_chain_dp: exact dynamic programming over contiguous
 *     partitions of the topological order (pipeline stages); exact for J
 *     when the graph is a chain, where latency is the serial sum;
 *   - pt_pprob_ilp: the integer program (GLPK, Debian's libglpk) with
 *     assignment, load, cut, precedence and device-exclusivity constraints,
 *     seeded with the heuristic's solution; a node budget keeps the answer
 *     the same on every machine, a wall-clock limit is the safety net;
 *   - pt_pprob_heuristic: the better of the DP and a greedy start, improved
 *     by moving and swapping nodes while J drops.
 * Memory: a placement takes everything it works with from one arena
 * (pt_arena, src/base) filled through pt_place_opts.alloc, a realloc-style
 * hook (NULL: malloc): one block when the first guess holds, freed at once,
 * plus the answer's layer_dev.  The local search allocates nothing (the
 * objective runs in the problem's scratch, pt_pprob.work); out of memory is
 * PT_ENOMEM.  GLPK keeps its own allocator.
 * Sizes: the coarsening is near-linear in layers and edges (place.c says
 * how), so graphs up to PT_GRAPH_MAX_LAYERS place in seconds.
 * Not here: statistical efficiency and time to train (src/goal).
 */
#ifndef PT_PLACE_H
#define PT_PLACE_H

#include "partita.h"
#include "base/base.h"
#include "workload/graph.h"

/* A placement problem: n nodes in topological order (edges u < v). */
typedef struct pt_pprob {
    int n, m, k;          /* nodes, devices, micro-batches                */
    double *dur;          /* [n] forward + backward seconds, one micro-batch */
    double *mem;          /* [n] bytes kept on the node's device; NULL = 0 */
    double mem_cap;       /* bytes per device; 0 = unlimited                */
    int ne;
    int *eu, *ev;         /* [ne] edge ends                                 */
    double *ecomm;        /* [ne] seconds to move it both ways when cut     */
    double *estream;      /* [ne] time steps it streams over; 1 = none      */
    /* filled by pt_pprob_index, NULL otherwise (then found on each call) */
    int *prio;            /* [n] the default schedule priority order       */
    int *inoff, *inedge;  /* [n + 1], [ne]: the edges into each node        */
    double critical;      /* the latency with no transfers and a device per
                           * node: every placement's latency >= it          */
    double *work;         /* [n] scratch for the objective, or NULL (then it
                           * allocates per call); a placement sets it        */
} pt_pprob;

/* Precomputes the priority order and each node's incoming edges, which the
 * objective otherwise rebuilds on every call; the problem must not change
 * afterwards.  -1 when out of memory (the problem still works unindexed). */
int pt_pprob_index(pt_pprob *p);
void pt_pprob_unindex(pt_pprob *p);

/* J for dev[n] (INFINITY when a device's memory overflows); *bottleneck and
 * *latency (either may be NULL) get its two parts. */
double pt_pprob_objective(const pt_pprob *p, const int *dev, double *bottleneck, double *latency);
/* The same, with the devices running their nodes in order[] (a topological
 * order) instead of index order. */
double pt_pprob_objective_order(const pt_pprob *p, const int *dev, const int *order, double *bottleneck,
                                double *latency);
/* finish[v]: when node v ends in one micro-batch's list schedule (order as
 * for pt_pprob_objective_order; NULL = the default priority). */
void pt_pprob_finish(const pt_pprob *p, const int *dev, const int *order, double *finish);
/* J with latency the serial sum of every node and cut edge (what the DP
 * minimises; equal to pt_pprob_objective on a chain). */
double pt_pprob_objective_serial(const pt_pprob *p, const int *dev);
/* Best contiguous partition into at most m stages (J serial); INFINITY if none fits. */
double pt_pprob_chain_dp(const pt_pprob *p, int *dev);
double pt_pprob_heuristic(const pt_pprob *p, int *dev);

typedef struct pt_ilp_result {
    double objective;     /* J of the best placement the program found     */
    double bound;         /* its proven lower bound                         */
    int optimal;          /* 1: proven optimal                              */
    int timed_out;        /* 1: the wall-clock limit ended it               */
    int nodes;            /* branch-and-bound nodes                         */
} pt_ilp_result;
/* Solves the integer program; dev and order get the best placement and the
 * order its devices run their nodes in (the heuristic's, in index order,
 * when the program finds nothing better).  The program's schedule may order
 * independent nodes differently from index order, so its J is the list
 * schedule in the program's order.  PT_EINPUT when GLPK fails. */
pt_status pt_pprob_ilp(const pt_pprob *p, int node_budget, double seconds, int *dev, int *order,
                       pt_ilp_result *r, pt_diag *d);

/* ---- a layer graph on a worker ------------------------------------------ */

typedef enum pt_place_method { PT_PLACE_DP = 0, PT_PLACE_HEURISTIC, PT_PLACE_ILP } pt_place_method;
const char *pt_place_method_name(pt_place_method m);

/* The integer program takes problems of at most this many groups; larger
 * ones get the heuristic alone (on 32-group Inception-v3 it already stops
 * at its node budget without a proof). */
#define PT_ILP_MAX_NODES 32

typedef struct pt_place_opts {
    int m;                /* devices per worker                            */
    double batch;         /* samples per worker per step                   */
    int64_t dp;           /* workers (data-parallel replicas)              */
    pt_dtype dtype;
    int max_nodes;        /* coarsen the graph to at most this many groups */
    int use_ilp;          /* run the integer program on the best k (only
                           * for dp <= 1: with dp > 1 the devices' gradient
                           * all-reduces join the objective, and local
                           * search balances them)                         */
    int ilp_nodes;        /* its branch-and-bound node budget              */
    double ilp_seconds;   /* its wall-clock limit                          */
    pt_alloc_fn alloc;    /* where the placement's memory comes from (NULL:
                           * malloc): one arena for all its work, plus the
                           * answer's layer_dev; tests inject failures here */
    void *alloc_ud;
} pt_place_opts;

typedef struct pt_placement {
    int m, k, groups;
    double micro;         /* samples per micro-batch                        */
    pt_place_method method;
    int optimal;          /* proven optimal for J (ILP, or DP on a chain)  */
    int timed_out;
    int too_large;        /* more groups than the program takes (PT_ILP_MAX_NODES):
                           * the heuristic's answer, not proven           */
    double pipe_s;        /* J                                              */
    double bottleneck_s, latency_s;
    double dp_comm_s, optimizer_s, step_s;
    /* how long each device's gradient all-reduce can hide behind the
     * worker's backward: the backward mirrors the forward at twice its
     * cost, so device d's last gradients appear (2/3) x its last node's
     * finish in the forward-and-backward schedule before the step ends
     * (for one device, the whole backward) */
    double grad_window_s[64];
    double mem_bytes;     /* the fullest device                             */
    int fits;
    int *layer_dev;       /* [g->n] device of each layer (owned, from the
                           * opts' alloc hook; pt_placement_free frees it)  */
    pt_alloc_fn alloc;
    void *alloc_ud;
    size_t layer_dev_bytes;
    int arena_blocks;     /* blocks the placement's arena took, e.g. 1      */
} pt_placement;

/* The best placement of g on o->m devices of c (the worker's devices are
 * consecutive; the dp replicas are strided by m over the whole cluster c),
 * over micro-batch counts k that divide the batch into whole samples. */
pt_status pt_place_graph(const pt_graph *g, const pt_cluster *c, const pt_place_opts *o, pt_placement *out,
                         pt_diag *d);
void pt_placement_free(pt_placement *p);
/* Prices the data-parallel side of a placement again for dp workers of c:
 * each device's gradient all-reduce (stride m) and optimizer, then step_s,
 * mem_bytes and fits.  pt_place_graph ends with it. */
void pt_place_data_parallel(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, double batch, int64_t dp,
                            pt_placement *out);

#endif
