/*
 * ps.h -- how data-parallel workers exchange gradients between machines:
 * synchronous all-reduce, parameter servers on the GPU machines
 * (colocated), parameter servers on k spare CPU machines (non-colocated),
 * BytePS's mix of the two, and sparse or partial pushes.
 *
 * The analysis is BytePS's (Jiang et al., "A Unified Architecture for
 * Accelerating Distributed DNN Training in Heterogeneous GPU/CPU Clusters",
 * OSDI'20, section 3.1): n GPU machines, k CPU machines, a model of M
 * bytes, every machine's NIC B bytes/s each way (full duplex).  The time is
 * the busiest NIC's bytes in one direction over B:
 *   all-reduce (ring)          2 (n - 1) M / (n B)
 *   colocated PS (n shards)    2 (n - 1) M / (n B)   (the same bytes)
 *   non-colocated PS, k CPUs   max(M / B, n M / (k B))
 *   BytePS, optimum            2 n (n - 1) M / ((n^2 + k n - 2 k) B),  k <= n
 *                              (M / B for k >= n: the CPU machines take it all)
 * BytePS reaches its optimum by giving the CPU machines a share
 *   x = 2 k (n - 1) / (n^2 + k n - 2 k)
 * of the summation and the GPU machines the rest; pt_ps_time derives x from
 * the two NICs' loads (a GPU machine: x M + (1 - x) 2 (n - 1) M / n; a CPU
 * machine: n x M / k), which is the formula above when every worker pushes
 * and pulls the whole model.
 *
 * Sparse or partial pushes (a fraction rho of the gradient per step: rows of
 * an embedding that a batch touched, or a partial push of the largest
 * gradients as in parameter-server data parallelism with partial pushes)
 * change the bytes.  Of the push rho M, a part delta M is dense (every
 * worker sends the same parameters: the dense layers) and the rest
 * sigma = rho - delta is sparse rows, taken as disjoint between workers.
 * A worker pushes p = (delta + sigma x) M (x the index overhead: 1 for whole
 * rows or blocks, (value + 4) / value for element indices) and pulls what
 * any worker pushed, q = (delta + min(1 - delta, n sigma) x) M (capped at
 * M).  A parameter server moves exactly these; an all-reduce sums the dense
 * part by a ring and either rings the rest dense too or all-gathers the
 * sparse pushes ((n - 1) sigma x M per machine), whichever is less.
 *
 * Inside a machine its GPUs first reduce over the fast link and at the end
 * broadcast (pt_coll_time on the machine's devices); that is the same for
 * every scheme and is added to each.
 * What it does not: price the compute or the overlap with the backward
 * (pt_ps_step does that through graph_cost.c), or decide how many CPU
 * machines a cluster has (the caller's k).
 */
#ifndef PT_PS_H
#define PT_PS_H

#include "partita.h"
#include "workload/graph.h"

typedef enum pt_ps_scheme {
    PT_PS_ALLREDUCE = 0, /* ring/tree all-reduce among the GPU machines     */
    PT_PS_COLOCATED,     /* one server shard on each GPU machine            */
    PT_PS_SERVERS,       /* servers on the k CPU machines only              */
    PT_PS_BYTEPS,        /* BytePS: GPU machines and k CPU machines share it */
    PT_PS_COUNT
} pt_ps_scheme;

const char *pt_ps_scheme_name(pt_ps_scheme s); /* "all-reduce", "colocated-ps", ... */

/* One exchange of n GPU machines and k CPU machines. */
typedef struct pt_ps_in {
    double n;            /* GPU machines, e.g. 8                           */
    double k;            /* spare CPU machines, e.g. 4 (0: none)           */
    double model_bytes;  /* M: the gradient, e.g. 2 x 25.6e6 (fp16)        */
    double nic_Bps;      /* B: each machine's NIC, one way, e.g. 12.5e9    */
    double push_frac;    /* rho in (0, 1]; 1 = dense                       */
    double index_over;   /* x >= 1: bytes per pushed byte with its indices */
    double dense_frac;   /* delta <= rho: the part of the push every worker
                          * sends whole (dense layers), summed, not gathered;
                          * the sparse rest rho - delta is disjoint rows     */
} pt_ps_in;

typedef struct pt_ps_out {
    double time_s[PT_PS_COUNT];   /* INFINITY: the scheme cannot run (no CPU machines) */
    double cpu_share;             /* BytePS: the CPU machines' share x           */
    double push_bytes, pull_bytes;/* p and q per worker                          */
    pt_ps_scheme best;            /* the fastest (ties: the lower enum)          */
} pt_ps_out;

/* The time of every scheme for one exchange (no latency terms: the
 * bandwidth analysis of the paper). */
void pt_ps_time(const pt_ps_in *in, pt_ps_out *out);

/* The paper's closed forms, dense pushes, for tests and the README. */
double pt_ps_allreduce_s(double n, double model_bytes, double nic_Bps);
double pt_ps_servers_s(double n, double k, double model_bytes, double nic_Bps);
double pt_ps_byteps_s(double n, double k, double model_bytes, double nic_Bps);

/* ---- a data-parallel step of a layer graph under each scheme ------------ */

/* The fraction of g's gradient one worker of `samples` samples per step
 * must push: an embedding's gradient is the rows its tokens touched,
 * min(vocab, T x samples) of them, and a sampled softmax's the rows of the
 * sampled and the true classes, min(classes, sampled + T x samples); every
 * other layer's is dense.  E.g. BigLSTM at 256 sequences of 20 words: 5,120
 * of 793,471 rows of each of its two 1024-wide tables, so about 0.09 of
 * its 1.78 G parameters.  1 for a graph without them.  *dense_frac (may
 * be NULL) gets the dense layers' share of the parameters. */
double pt_ps_push_fraction(const pt_graph *g, double samples, double *dense_frac);

/* The exchange of grad_bytes among all of c's devices: its machines are
 * the innermost domains (nodes), each machine's NIC the outermost level's
 * bandwidth (times its efficiency) times the machine's devices; the
 * reduce-and-broadcast inside a machine (*intra_s) is an all-reduce over
 * its devices.  Fills ex for every scheme; returns the machines. */
int64_t pt_ps_cluster(const pt_cluster *c, double grad_bytes, double k, double push_frac, double dense_frac,
                      double *intra_s, pt_ps_in *in, pt_ps_out *ex);

typedef struct pt_ps_step {
    int64_t machines;             /* GPU machines (whole nodes of the cluster)   */
    double nic_GBps;              /* per machine: level bandwidth x its GPUs     */
    double grad_bytes;            /* 2 bytes per parameter                       */
    double intra_s;               /* reduce and broadcast inside a machine       */
    double compute_s, optimizer_s;
    double comm_s[PT_PS_COUNT];   /* whole exchange: intra + between machines    */
    double exposed_s[PT_PS_COUNT];/* what the backward does not hide             */
    double step_s[PT_PS_COUNT];   /* INFINITY where the scheme cannot run        */
    pt_ps_out ex;
    pt_ps_scheme best;
    char why[320];                /* one sentence: why best wins                 */
} pt_ps_step;

/* g run data-parallel on every device of c, per_device samples each, with k
 * CPU machines (each with a GPU machine's NIC) and pushes of push_frac of
 * the gradient, dense_frac of it dense (as in pt_ps_in; rows, no index
 * overhead).  The backward hides the
 * exchange as graph_cost.c's step does (one bucket per layer with
 * parameters).  PT_EINPUT for k < 0, push_frac outside (0, 1] or
 * dense_frac outside [0, push_frac]. */
pt_status pt_ps_step_price(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, int64_t per_device, double k,
                           double push_frac, double dense_frac, pt_ps_step *out, pt_diag *d);

#endif
