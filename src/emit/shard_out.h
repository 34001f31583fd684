/*
 * shard_out.h -- `partita plan` on a recommendation model (issue 19): the
 * sharding plan as JSON, and as TorchRec's planner input (--export torchrec).
 *
 * JSON: {"model", "kind": "recommendation", "cluster", "device", "devices",
 * "global_batch", "dtype", "tables", "embedding_rows", "embedding_GiB",
 * "dense_params", "candidates_evaluated", "plans": [PLAN], "baseline": PLAN,
 * "speedup_over_baseline"}, where PLAN is {"partitioner", "samples_per_s",
 * "step_time_s", "fits", "time_s": {"embedding_lookup", "all_to_all",
 * "dense_compute", "all_reduce"}, "all_to_all_s": {"ids", "pooled",
 * "reduce_scatter_all_gather"}, "all_to_all_bytes", "all_reduce_bytes",
 * "memory_GiB": {"hbm", "hbm_usable", "host", "host_capacity"},
 * "embedding_sharding": [{"table", "rows", "dim", "pooling", "sharding_type",
 * "compute_kernel", "devices": [...], "hosts": [...]}]} ("hosts" for
 * table_row_wise and grid_shard: the nodes, TorchRec's host indexes).
 *
 * The export is Python for TorchRec: a ParameterConstraints per table (its
 * sharding type, compute kernel, pooling factor and, UVM-cached, its
 * CacheParams load factor) for EmbeddingShardingPlanner, and the placement
 * for construct_module_sharding_plan (table_wise(rank=...),
 * column_wise(ranks=[...]), row_wise(), table_row_wise(host_index=...),
 * grid_shard(host_indexes=[...]), data_parallel(): the helpers of
 * torchrec/distributed/sharding_plan.py), after a comment with what Partita
 * predicts.
 */
#ifndef PT_SHARD_OUT_H
#define PT_SHARD_OUT_H

#include "plan/shard.h"

pt_status pt_emit_shard_json(const pt_embed_job *j, const pt_shard_plan *best, const pt_shard_plan *base,
                             char **out, pt_diag *d);
pt_status pt_emit_export_torchrec(const pt_embed_job *j, const pt_shard_plan *best, const pt_shard_plan *base,
                                  char **out, pt_diag *d);
/* "fused" or "fused_uvm_caching" (TorchRec's EmbeddingComputeKernel values);
 * data_parallel tables "dense". */
const char *pt_emit_shard_kernel(const pt_shard_choice *ch);

#endif
