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
 * pt_shard_torchrec, the baseline: TorchRec's planner as documented and
 *   as its source reads (torchrec/distributed/planner: EmbeddingEnumerator
 *   -> shard estimators -> proposers -> GreedyPerfPartitioner).  Options per
 *   table are its sharding types with column slices of 128 (its MIN_CW_DIM)
 *   and the fused or fused_uvm_caching kernel, each shard priced alone
 *   (pt_embed_option_perf: lookups and the shard's own collectives).  The
 *   proposers of EmbeddingShardingPlanner's default: GreedyProposer with
 *   use_depth (options by their largest shard's perf) and without (by the
 *   sum of their shards'), each starting every table at its first option
 *   and then, proposal after proposal, moving the table whose option holds
 *   the most storage to its next; and UniformProposer (one sharding type
 *   for all tables).  Every proposal is partitioned as GreedyPerfPartitioner
 *   does (proposers.py, partitioners.py: the uniform group first -- row_wise
 *   and data_parallel, a shard on every device -- then the host group,
 *   table_row_wise and grid_shard, then the device group, table_wise and
 *   column_wise; within a group shards by perf, largest first, each on the
 *   device, or host, with the least perf so far that has the storage), and
 *   the partitioned plan with the least largest device perf (TorchRec's perf
 *   rating) is the baseline.  GridSearchProposer is left out: 26 tables of
 *   some ten options each are far beyond its 10^4 proposals, where TorchRec
 *   skips it too.
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
