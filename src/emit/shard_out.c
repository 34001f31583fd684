/*
 * shard_out.c -- a recommendation model's sharding plan as JSON and as
 * TorchRec planner input (see shard_out.h).
 */
#include "emit/shard_out.h"
#include "emit/emit.h"

#include <stdlib.h>
#include <string.h>

const char *pt_emit_shard_kernel(const pt_shard_choice *ch)
{
    if (ch->type == PT_SHARD_DP) return "dense";
    return ch->uvm ? "fused_uvm_caching" : "fused";
}

/* The devices a table's shards sit on, in order. */
static json_t *devices_json(const pt_embed_job *j, const pt_shard_choice *ch)
{
    json_t *a = json_array();
    int64_t N = j->c->devices, g = j->node;
    switch (ch->type) {
    case PT_SHARD_TW:
    case PT_SHARD_CW:
        for (int p = 0; p < ch->nparts; p++) json_array_append_new(a, json_integer(ch->part[p]));
        break;
    case PT_SHARD_TWRW:
    case PT_SHARD_GRID:
        for (int p = 0; p < ch->nparts; p++)
            for (int64_t k = 0; k < g && (int64_t)ch->part[p] * g + k < N; k++)
                json_array_append_new(a, json_integer((json_int_t)((int64_t)ch->part[p] * g + k)));
        break;
    default:
        for (int64_t k = 0; k < N; k++) json_array_append_new(a, json_integer((json_int_t)k));
    }
    return a;
}

static json_t *plan_json(const pt_embed_job *j, const pt_shard_plan *p, const char *who)
{
    json_t *o = json_object(), *t = json_object(), *a = json_object(), *m = json_object(), *sh = json_array();
    const pt_embed_cost *c = &p->cost;
    json_object_set_new(o, "partitioner", json_string(who));
    json_object_set_new(o, "samples_per_s", json_real(c->samples_per_s));
    json_object_set_new(o, "step_time_s", json_real(c->step_s));
    json_object_set_new(o, "fits", json_boolean(c->fits));
    json_object_set_new(t, "embedding_lookup", json_real(c->lookup_s));
    json_object_set_new(t, "all_to_all", json_real(c->a2a_s));
    json_object_set_new(t, "dense_compute", json_real(c->dense_s));
    json_object_set_new(t, "all_reduce", json_real(c->allreduce_s));
    json_object_set_new(o, "time_s", t);
    json_object_set_new(a, "ids", json_real(c->ids_a2a_s));
    json_object_set_new(a, "pooled", json_real(c->pooled_a2a_s));
    json_object_set_new(a, "reduce_scatter_all_gather", json_real(c->rs_ag_s));
    json_object_set_new(o, "all_to_all_s", a);
    json_object_set_new(o, "all_to_all_bytes", json_real(c->a2a_bytes));
    json_object_set_new(o, "all_reduce_bytes", json_real(c->allreduce_bytes));
    json_object_set_new(m, "hbm", json_real(c->hbm_max / PT_GiB));
    json_object_set_new(m, "hbm_usable", json_real(j->hbm_cap / PT_GiB));
    json_object_set_new(m, "host", json_real(c->host_max / PT_GiB));
    json_object_set_new(m, "host_capacity", json_real(j->host_bytes / PT_GiB));
    json_object_set_new(o, "memory_GiB", m);
    for (int i = 0; i < j->rs->ntables; i++) {
        const pt_glayer *tb = pt_recsys_table(j->rs, i);
        const pt_shard_choice *ch = &p->ch[i];
        json_t *e = json_object();
        json_object_set_new(e, "table", json_string(tb->name));
        json_object_set_new(e, "rows", json_integer((json_int_t)tb->emb.rows));
        json_object_set_new(e, "dim", json_integer((json_int_t)tb->c));
        json_object_set_new(e, "pooling", json_real(tb->emb.pooling));
        json_object_set_new(e, "sharding_type", json_string(pt_shard_type_name(ch->type)));
        json_object_set_new(e, "compute_kernel", json_string(pt_emit_shard_kernel(ch)));
        json_object_set_new(e, "devices", devices_json(j, ch));
        if (ch->type == PT_SHARD_TWRW || ch->type == PT_SHARD_GRID) {
            json_t *h = json_array();
            for (int k = 0; k < ch->nparts; k++) json_array_append_new(h, json_integer(ch->part[k]));
            json_object_set_new(e, "hosts", h);
        }
        json_array_append_new(sh, e);
    }
    json_object_set_new(o, "embedding_sharding", sh);
    return o;
}

pt_status pt_emit_shard_json(const pt_embed_job *j, const pt_shard_plan *best, const pt_shard_plan *base,
                             char **out, pt_diag *d)
{
    json_t *o = json_object(), *plans = json_array();
    const pt_cluster *c = j->c;
    json_object_set_new(o, "model", json_string(j->rs->g.name));
    json_object_set_new(o, "kind", json_string("recommendation"));
    json_object_set_new(o, "cluster", json_string(c->name));
    json_object_set_new(o, "device", json_string(c->dev.name));
    json_object_set_new(o, "devices", json_integer((json_int_t)c->devices));
    json_object_set_new(o, "global_batch", json_integer((json_int_t)j->batch));
    json_object_set_new(o, "dtype", json_string(pt_dtype_name(j->dtype)));
    json_object_set_new(o, "tables", json_integer(j->rs->ntables));
    json_object_set_new(o, "embedding_rows", json_integer((json_int_t)pt_recsys_rows(j->rs)));
    json_object_set_new(o, "embedding_GiB", json_real((double)pt_recsys_embedding_bytes(j->rs) / PT_GiB));
    json_object_set_new(o, "dense_params", json_real(pt_recsys_dense_params(j->rs)));
    json_object_set_new(o, "candidates_evaluated", json_integer((json_int_t)(best->evaluated + base->evaluated)));
    json_array_append_new(plans, plan_json(j, best, "partita"));
    json_object_set_new(o, "plans", plans);
    json_object_set_new(o, "baseline", plan_json(j, base, "torchrec-greedy"));
    json_object_set_new(o, "speedup_over_baseline", json_real(base->cost.step_s / best->cost.step_s));
    return pt_emit_json_finish(o, out, d);
}

/* A table name as a Python string literal's inside (names from graph files
 * hold no control characters: pt_json_name refuses them). */
static const char *py(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    for (; *s && k + 3 < n; s++) {
        if (*s == '"' || *s == '\\') buf[k++] = '\\';
        buf[k++] = *s;
    }
    buf[k] = 0;
    return buf;
}

/* TorchRec's ShardingType enum member for a type. */
static const char *enum_name(pt_shard_type t)
{
    static const char *const n[PT_SHARD_COUNT] = {"DATA_PARALLEL", "TABLE_WISE",     "COLUMN_WISE",
                                                  "ROW_WISE",      "TABLE_ROW_WISE", "GRID_SHARD"};
    return n[t];
}

pt_status pt_emit_export_torchrec(const pt_embed_job *j, const pt_shard_plan *best, const pt_shard_plan *base,
                                  char **out, pt_diag *d)
{
    pt_emit_buf b;
    const pt_embed_cost *c = &best->cost;
    memset(&b, 0, sizeof b);
    pt_emit_buf_printf(&b, "# partita: predicted step %.3f ms, %.0f samples/s, HBM %.1f of %.1f GiB usable per device, "
                           "for %s on %lld x %s (%s), global batch %.0f\n",
                       1e3 * c->step_s, c->samples_per_s, c->hbm_max / PT_GiB, j->hbm_cap / PT_GiB,
                       j->rs->g.name, (long long)j->c->devices, j->c->dev.name, j->c->name, j->batch);
    pt_emit_buf_printf(&b, "# partita: time split: embedding lookups %.3f ms, all-to-all %.3f ms, dense compute "
                           "%.3f ms, all-reduce %.3f ms; the TorchRec-style greedy plan: %.3f ms (%.2fx)\n",
                       1e3 * c->lookup_s, 1e3 * c->a2a_s, 1e3 * c->dense_s, 1e3 * c->allreduce_s,
                       1e3 * base->cost.step_s, base->cost.step_s / c->step_s);
    pt_emit_buf_puts(&b, "from torchrec.distributed.embedding_types import EmbeddingComputeKernel\n"
                         "from torchrec.distributed.planner.types import ParameterConstraints\n"
                         "from torchrec.distributed.sharding_plan import (\n"
                         "    column_wise,\n    data_parallel,\n    grid_shard,\n    row_wise,\n"
                         "    table_row_wise,\n    table_wise,\n)\n"
                         "from torchrec.distributed.types import CacheParams, ShardingType\n\n");
    pt_emit_buf_printf(&b, "WORLD_SIZE = %lld\nLOCAL_SIZE = %lld\nGLOBAL_BATCH = %.0f\n\n",
                       (long long)j->c->devices, (long long)j->node, j->batch);
    pt_emit_buf_puts(&b, "# EmbeddingShardingPlanner(topology=..., constraints=constraints)\nconstraints = {\n");
    for (int i = 0; i < j->rs->ntables; i++) {
        const pt_glayer *tb = pt_recsys_table(j->rs, i);
        const pt_shard_choice *ch = &best->ch[i];
        char nb[120];
        pt_emit_buf_printf(&b, "    \"%s\": ParameterConstraints(\n        sharding_types=[ShardingType.%s.value],\n"
                               "        compute_kernels=[EmbeddingComputeKernel.%s.value],\n"
                               "        pooling_factors=[%g],\n",
                           py(tb->name, nb, sizeof nb), enum_name(ch->type),
                           ch->type == PT_SHARD_DP ? "DENSE" : ch->uvm ? "FUSED_UVM_CACHING" : "FUSED",
                           tb->emb.pooling);
        if (ch->uvm) pt_emit_buf_printf(&b, "        cache_params=CacheParams(load_factor=%g),\n", tb->emb.hot_rows);
        pt_emit_buf_puts(&b, "    ),\n");
    }
    pt_emit_buf_puts(&b, "}\n\n# construct_module_sharding_plan(ebc, per_param_sharding, local_size=LOCAL_SIZE, "
                         "world_size=WORLD_SIZE)\nper_param_sharding = {\n");
    for (int i = 0; i < j->rs->ntables; i++) {
        const pt_glayer *tb = pt_recsys_table(j->rs, i);
        const pt_shard_choice *ch = &best->ch[i];
        const char *k = ch->uvm ? ", compute_kernel=EmbeddingComputeKernel.FUSED_UVM_CACHING.value" : "";
        char nb[120];
        pt_emit_buf_printf(&b, "    \"%s\": ", py(tb->name, nb, sizeof nb));
        switch (ch->type) {
        case PT_SHARD_TW: pt_emit_buf_printf(&b, "table_wise(rank=%d%s),\n", ch->part[0], k); break;
        case PT_SHARD_CW:
        case PT_SHARD_GRID:
            pt_emit_buf_puts(&b, ch->type == PT_SHARD_CW ? "column_wise(ranks=[" : "grid_shard(host_indexes=[");
            for (int p = 0; p < ch->nparts; p++) pt_emit_buf_printf(&b, "%s%d", p ? ", " : "", ch->part[p]);
            pt_emit_buf_printf(&b, "]%s),\n", ch->type == PT_SHARD_CW ? k : "");
            break;
        case PT_SHARD_RW: pt_emit_buf_puts(&b, "row_wise(),\n"); break;
        case PT_SHARD_TWRW: pt_emit_buf_printf(&b, "table_row_wise(host_index=%d),\n", ch->part[0]); break;
        default: pt_emit_buf_puts(&b, "data_parallel(),\n"); break;
        }
    }
    pt_emit_buf_puts(&b, "}\n");
    return pt_emit_buf_finish(&b, out, d);
}
