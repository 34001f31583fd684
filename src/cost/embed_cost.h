/*
 * embed_cost.h -- what a recommendation model's step costs with its tables
 * sharded one way or another (issue 19).
 *
 * What it does: for every table a sharding type (TorchRec's names):
 *   data_parallel   a replica on every device; each looks up its own B/N
 *                   samples; the table's gradient is all-reduced;
 *   table_wise      the whole table on one device, which looks up all B
 *                   samples; ids and pooled vectors travel by all-to-all;
 *   column_wise     k column slices of D/k, each table-wise on its device;
 *   row_wise        rows/N on every device, B L / N lookups each; partial
 *                   sums for all B samples are reduce-scattered forward and
 *                   their gradients all-gathered backward;
 *   table_row_wise  row-wise inside one node (g devices): reduce-scatter over
 *                   NVLink, then the node's shard of the output by all-to-all;
 *   grid_shard      k column slices, each table-row-wise on a node;
 * and where its shard lives: HBM (TorchRec's FUSED kernel) or host memory
 * with a cache of the hot rows in HBM (FUSED_UVM_CACHING).  From that it
 * prices one training step on the cluster:
 *   embedding lookups  the busiest device's TBE kernels: per looked-up row
 *                      max(D, 32) elements read (TorchRec's shard estimator
 *                      rounds dim up to 32), cache hits at HBM bandwidth x
 *                      mem_eff, misses over the host link; the pooled output
 *                      written; backward twice forward (TorchRec's
 *                      BWD_COMPUTE_MULTIPLIER 2);
 *   all-to-all         ids (8 bytes each, plus a 4-byte length per sample and
 *                      feature) forward; pooled vectors forward and their
 *                      gradients backward (4 bytes per element for fp32
 *                      tables, else 2); the busiest device's send or receive
 *                      volume sets the time (pt_coll_time over the cluster's
 *                      levels); row-wise tables' reduce-scatter and all-gather
 *                      over all devices, table-row-wise ones' inside the node;
 *   dense compute      the dense layers (bottom MLP, interaction, top MLP)
 *                      for B/N samples, forward + backward = 3 x forward
 *                      (src/cost/graph_cost.h's layer pricing, CUDA-graph
 *                      launches), plus the dense optimizer streaming 16 bytes
 *                      per parameter;
 *   all-reduce         the dense gradients (job dtype bytes) and the
 *                      data-parallel tables' gradients (their precision),
 *                      hierarchical over the levels.
 * The four add up to the step (TorchRec's pipelines hide some of the input
 * all-to-all; not counted here, so the step is an upper bound of that kind).
 * Memory per device: its shards' weights and optimizer state (or their HBM
 * cache, the rest in host memory), pooled outputs and their gradients, the
 * dense part's 16 bytes per parameter and activations; HBM keeps 15% free
 * (TorchRec's HeuristicalStorageReservation default percentage 0.15).
 * What it does not: choose the sharding (src/plan/shard.h).
 */
#ifndef PT_EMBED_COST_H
#define PT_EMBED_COST_H

#include "partita.h"
#include "workload/recsys.h"

typedef enum pt_shard_type {
    PT_SHARD_DP = 0, PT_SHARD_TW, PT_SHARD_CW, PT_SHARD_RW, PT_SHARD_TWRW, PT_SHARD_GRID,
    PT_SHARD_COUNT,
    PT_SHARD_NONE = PT_SHARD_COUNT /* not placed yet (a partial plan) */
} pt_shard_type;

/* Column slices at most (column_wise, grid_shard). */
#define PT_SHARD_MAX_PARTS 16

/* One table's sharding.  A value: tests write it as a literal. */
typedef struct pt_shard_choice {
    pt_shard_type type;
    int uvm;                       /* 1: host memory, hot rows cached in HBM   */
    int nparts;                    /* table_wise 1; column_wise, grid_shard k; else 0 */
    int part[PT_SHARD_MAX_PARTS];  /* table_wise, column_wise: device of each slice;
                                      table_row_wise, grid_shard: node of each */
} pt_shard_choice;

/* TorchRec's planner default host (DDR) capacity per rank, 128 GiB
 * (torchrec/distributed/planner/constants.py DDR_CAP). */
#define PT_EMBED_HOST_GIB_DEFAULT 128.0
/* HBM kept free (TorchRec HeuristicalStorageReservation, percentage 0.15). */
#define PT_EMBED_HBM_RESERVE 0.15

/* A job: the model, the cluster, the batch; pt_embed_job_init fills the rest. */
typedef struct pt_embed_job {
    const pt_recsys *rs;
    const pt_cluster *c;
    pt_dtype dtype;        /* the dense part's, e.g. PT_BF16                  */
    double batch;          /* global batch, samples, e.g. 55296              */
    double host_bytes;     /* host memory per device for UVM, e.g. 128 GiB   */
    int64_t node;          /* devices per node (the innermost level), e.g. 8 */
    int64_t nodes;         /* devices / node                                  */
    double dense_fwd_s;    /* the dense layers' forward on batch/devices      */
    double dense_opt_s;    /* the dense optimizer step                        */
    double dense_bytes;    /* dense weights, gradients, states, activations   */
    double hbm_cap;        /* usable HBM per device, bytes                    */
} pt_embed_job;

/* Per device, what a plan puts there. */
typedef struct pt_embed_dev {
    double hbm, host;      /* bytes                                           */
    double lookup_s;       /* its lookups, forward and backward               */
    double send;           /* pooled bytes it sends in the output all-to-all  */
    double ids;            /* id bytes it receives                            */
    double rs_node;        /* (at index j < nodes) node j's reduce-scatter bytes */
} pt_embed_dev;

typedef struct pt_embed_cost {
    double step_s, samples_per_s;
    double lookup_s, a2a_s, dense_s, allreduce_s; /* the step, split          */
    double ids_a2a_s, pooled_a2a_s, rs_ag_s;       /* a2a_s, split             */
    double a2a_bytes;      /* the busiest device's pooled send or receive, forward */
    double allreduce_bytes;
    double hbm_max, host_max; /* bytes on the fullest device                  */
    int hbm_dev, host_dev;
    double overflow;       /* bytes beyond capacity, all devices              */
    double balance;        /* sum of squared per-device lookup seconds        */
    int64_t shards;        /* pieces of tables on devices, e.g. 26 (all table_wise) */
    int fits;
} pt_embed_cost;

/* Fills the derived fields of j (rs, c, dtype, batch and host_bytes set).
 * Refuses a batch that is not a positive multiple of the device count. */
pt_status pt_embed_job_init(pt_embed_job *j, pt_diag *d);

/* 1 when ch is a sharding table t can take on j's cluster; else 0 and why
 * in buf (may be NULL). */
int pt_embed_choice_valid(const pt_embed_job *j, int t, const pt_shard_choice *ch, char *why, size_t n);

/* Prices the plan ch[0..ntables) (PT_SHARD_NONE tables left out).  dev is
 * scratch of c->devices entries, left holding each device's share. */
void pt_embed_eval(const pt_embed_job *j, const pt_shard_choice *ch, pt_embed_dev *dev, pt_embed_cost *out);

/* A table's sharding priced alone as TorchRec's shard estimator does: the
 * sum over its shards of lookup and communication seconds (a shard's
 * perf; an option's perf is their sum).  For the TorchRec-style baseline. */
double pt_embed_option_perf(const pt_embed_job *j, int t, const pt_shard_choice *ch);

/* Shards an option has (TorchRec's shards: one per device it touches). */
int64_t pt_embed_option_shards(const pt_embed_job *j, const pt_shard_choice *ch);
/* Bytes one shard of table t's option puts on its device: HBM (weights and
 * state, or the hot-row cache; its pooled outputs and their gradients) and
 * host memory (a UVM-cached shard's weights and state). */
void pt_embed_shard_bytes(const pt_embed_job *j, int t, const pt_shard_choice *ch, double *hbm, double *host);
/* Bytes every device holds whatever the sharding: the dense part, and the
 * pooled vectors of its samples from every table with their gradients. */
double pt_embed_fixed_bytes(const pt_embed_job *j);

/* "table_wise", ... as TorchRec's ShardingType values. */
const char *pt_shard_type_name(pt_shard_type t);

#endif
