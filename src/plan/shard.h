/*
 * shard.h -- embedding sharding search for recommendation models (issue 19):
 * which sharding type, which devices and which memory (HBM, or host memory
 * with an HBM cache) each table takes, so that the step is shortest and
 * every device's HBM and host memory hold what it is given.
 *
 * Two partitioners over the same cost model (src/cost/embed_cost.h):
 *
 * pt_shard_search, Partita's: candidates per table -- data_parallel;
 *   table_wise on each device; column_wise in 2, 4, 8 or 16 slices on
 *   aligned runs of devices; row_wise; table_row_wise on each node;
 *   grid_shard in 2 or 4 slices on aligned runs of nodes; each in HBM or
 *   UVM-cached (data_parallel in HBM only).  Greedy: tables heaviest first
 *   (lookup bytes per step), each given the candidate that makes the plan so
 *   far best, where plans compare by (bytes over capacity, step time, the
 *   sum of squared per-device lookup seconds to 0.01%, fewer shards, the
 *   fullest device's HBM): time first, then how evenly lookups spread, then
 *   the simpler plan and the emptier memory.  Then local
 *   search: every table's every candidate with the others held, and every
 *   swap of two table_wise tables' devices, until a whole pass improves
 *   nothing.  The search also starts from the baseline's plan when there is
 *   one and keeps the better end, so it never returns a worse plan than the
 *   baseline (in this cost model).
 *
 * pt_shard_torchrec, the baseline: TorchRec's planner as documented
 *   (torchrec.distributed.planner: EmbeddingEnumerator -> shard estimators
 *   -> GreedyProposer -> GreedyPerfPartitioner).  Options per table are its
 *   sharding types with column slices of 128 (its MIN_CW_DIM) and the fused
 *   or fused_uvm_caching kernel, each priced alone as the sum of its shards'
 *   perf (pt_embed_option_perf).  The proposer starts every table at its
 *   cheapest option; the partitioner (torchrec/distributed/planner/
 *   partitioners.py: the uniform group first -- row_wise and data_parallel,
 *   a shard on every device -- then the host group, table_row_wise and
 *   grid_shard, then the device group, table_wise and column_wise; within a
 *   group shards by perf, largest first) puts each shard on the device or
 *   host with the least perf so far that still has the storage.  When a
 *   shard fits nowhere the proposer moves the table with the most bytes per
 *   device to its next option by perf, and partitions again.
 *
 * What it does not: price (embed_cost.h) or print (src/emit/shard_out.c).
 */
#ifndef PT_SHARD_H
#define PT_SHARD_H

#include "cost/embed_cost.h"

typedef struct pt_shard_plan {
    pt_shard_choice *ch;   /* owned: one per table                              */
    pt_embed_cost cost;
    int64_t evaluated;     /* plans priced, e.g. 41232                          */
    int found;             /* 1: a plan that fits; 0: none (ch the nearest)    */
} pt_shard_plan;

/* The TorchRec-style greedy plan. */
pt_status pt_shard_torchrec(const pt_embed_job *j, pt_shard_plan *out, pt_diag *d);
/* Partita's plan; start (may be NULL, or found == 0) is a second start. */
pt_status pt_shard_search(const pt_embed_job *j, const pt_shard_plan *start, pt_shard_plan *out, pt_diag *d);
void pt_shard_plan_free(pt_shard_plan *p);

/* 1 when a is the better plan cost (the order pt_shard_search uses). */
int pt_shard_better(const pt_embed_cost *a, const pt_embed_cost *b);

#endif
