/*
 * embed_cost.c -- a recommendation model's step under a table sharding
 * (see embed_cost.h).
 */
#include "cost/embed_cost.h"
#include "cost/graph_cost.h"
#include "base/base.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Bytes of one id in the input all-to-all (int64, KeyedJaggedTensor's
 * values) and of one length (int32 per sample and feature). */
#define ID_BYTES 8.0
#define LEN_BYTES 4.0
/* TorchRec's shard estimator: an embedding row costs at least 32 elements. */
#define MIN_ROW_ELEMS 32.0
/* Backward lookups cost twice the forward (TorchRec BWD_COMPUTE_MULTIPLIER). */
#define BWD_MULT 2.0
/* Dense weights, gradients and optimizer states per parameter. */
#define DENSE_STATE_BYTES 16.0

const char *pt_shard_type_name(pt_shard_type t)
{
    static const char *const names[PT_SHARD_COUNT] = {"data_parallel",  "table_wise",     "column_wise",
                                                      "row_wise",       "table_row_wise", "grid_shard"};
    return t >= 0 && t < PT_SHARD_COUNT ? names[t] : "none";
}

pt_status pt_embed_job_init(pt_embed_job *j, pt_diag *d)
{
    const pt_cluster *c = j->c;
    const pt_graph *g = &j->rs->g;
    pt_device gd;
    double per, act = 0;
    assert(j->rs && c && c->devices >= 1 && c->nlevels >= 1);
    if (!(j->batch >= (double)c->devices) || fmod(j->batch, (double)c->devices) != 0)
        return pt_diag_set(d, NULL, "global_batch", NULL, "--global-batch %.0f is not a positive multiple of the "
                           "%lld devices", j->batch, (long long)c->devices);
    j->node = c->level[0].size < c->devices ? c->level[0].size : c->devices;
    if (j->node < 1) j->node = 1;
    j->nodes = (c->devices + j->node - 1) / j->node;
    per = j->batch / (double)c->devices;
    /* the dense layers with the layer-graph efficiencies, launched from a
     * CUDA graph (NVIDIA's MLPerf DLRM submissions capture the step) */
    pt_graph_device(&c->dev, &gd);
    gd.kernel_us = PT_GRAPH_CUDA_GRAPH_KERNEL_US;
    j->dense_fwd_s = 0;
    for (int i = 0; i < g->n; i++) {
        const pt_glayer *l = &g->l[i];
        if (l->op == PT_G_EMBEDDING_BAG) continue;
        j->dense_fwd_s += pt_glayer_fwd_s(l, &gd, j->dtype, per);
        act += l->act_bytes;
    }
    j->dense_opt_s = DENSE_STATE_BYTES * pt_recsys_dense_params(j->rs) /
                     (c->dev.memory_bw_GBps * 1e9 * c->dev.mem_eff);
    j->dense_bytes = DENSE_STATE_BYTES * pt_recsys_dense_params(j->rs) + act * per;
    j->hbm_cap = c->dev.memory_GiB * PT_GiB * (1.0 - PT_EMBED_HBM_RESERVE);
    return PT_OK;
}

int pt_embed_choice_valid(const pt_embed_job *j, int t, const pt_shard_choice *ch, char *why, size_t n)
{
    const pt_glayer *tb = pt_recsys_table(j->rs, t);
    int64_t N = j->c->devices, D = tb->c;
    char dummy[8];
    if (!why) why = dummy, n = sizeof dummy;
    why[0] = 0;
    switch (ch->type) {
    case PT_SHARD_DP:
    case PT_SHARD_RW:
        if (ch->type == PT_SHARD_RW && tb->emb.rows < N) {
            snprintf(why, n, "row_wise needs at least one row per device (%lld rows, %lld devices)",
                     (long long)tb->emb.rows, (long long)N);
            return 0;
        }
        return 1;
    case PT_SHARD_TW:
    case PT_SHARD_CW:
        if (ch->type == PT_SHARD_TW ? ch->nparts != 1 : ch->nparts < 2 || ch->nparts > PT_SHARD_MAX_PARTS) {
            snprintf(why, n, "%s takes %s slices", pt_shard_type_name(ch->type),
                     ch->type == PT_SHARD_TW ? "1" : "2..16");
            return 0;
        }
        if (D % ch->nparts) {
            snprintf(why, n, "%d column slices do not divide dim %lld", ch->nparts, (long long)D);
            return 0;
        }
        for (int p = 0; p < ch->nparts; p++)
            if (ch->part[p] < 0 || ch->part[p] >= N) {
                snprintf(why, n, "device %d is not one of the %lld", ch->part[p], (long long)N);
                return 0;
            }
        return 1;
    case PT_SHARD_TWRW:
    case PT_SHARD_GRID:
        if (ch->type == PT_SHARD_TWRW ? ch->nparts != 1 : ch->nparts < 2 || ch->nparts > PT_SHARD_MAX_PARTS) {
            snprintf(why, n, "%s takes %s node slices", pt_shard_type_name(ch->type),
                     ch->type == PT_SHARD_TWRW ? "1" : "2..16");
            return 0;
        }
        if (D % ch->nparts) {
            snprintf(why, n, "%d column slices do not divide dim %lld", ch->nparts, (long long)D);
            return 0;
        }
        if (tb->emb.rows < j->node) {
            snprintf(why, n, "%s needs a row per device of a node", pt_shard_type_name(ch->type));
            return 0;
        }
        for (int p = 0; p < ch->nparts; p++)
            if (ch->part[p] < 0 || ch->part[p] >= j->nodes) {
                snprintf(why, n, "node %d is not one of the %lld", ch->part[p], (long long)j->nodes);
                return 0;
            }
        return 1;
    default: snprintf(why, n, "no sharding type"); return 0;
    }
}

/* The pieces of one table's sharding, as the evaluator and the option
 * estimator both see them. */
typedef struct piece {
    int64_t dev;        /* device                                           */
    double rows, cols;  /* its slice                                        */
    double ids;         /* ids it looks up per step                         */
    double outs;        /* samples whose pooled (partial) vector it writes  */
} piece;

/* Seconds of one piece's lookups, forward and backward. */
static double piece_lookup_s(const pt_embed_job *j, const pt_glayer *t, const piece *p, int uvm)
{
    const pt_device *dv = &j->c->dev;
    double hbm_bw = dv->memory_bw_GBps * 1e9 * dv->mem_eff, host_bw = dv->host_bw_GBps * 1e9;
    double eb = t->emb.bytes, ob = eb >= 4 ? 4.0 : 2.0, hit = uvm ? t->emb.hit_rate : 1.0;
    double row = (p->cols > MIN_ROW_ELEMS ? p->cols : MIN_ROW_ELEMS) * eb;
    double fwd = p->ids * row * (hit / hbm_bw + (1.0 - hit) / host_bw) + p->outs * p->cols * ob / hbm_bw;
    return (1.0 + BWD_MULT) * fwd;
}

/* Adds a piece's memory to its device. */
static void piece_mem(const pt_glayer *t, const piece *p, int uvm, pt_embed_dev *dv)
{
    double eb = t->emb.bytes, ob = eb >= 4 ? 4.0 : 2.0;
    double w = p->rows * p->cols * eb, full = (double)t->emb.rows * (double)t->c;
    double st = (double)pt_recsys_table_state_bytes(t);
    /* row-wise Adagrad keeps a value per row of every slice; the others per element */
    st = t->emb.optimizer == PT_EMB_ROWWISE_ADAGRAD ? st * p->rows / (double)t->emb.rows
                                                    : st * p->rows * p->cols / full;
    if (uvm) {
        dv->hbm += t->emb.hot_rows * w;
        dv->host += w + st;
    } else {
        dv->hbm += w + st;
    }
    dv->hbm += 2.0 * p->outs * p->cols * ob; /* pooled outputs and their gradients */
}

/* The column slices of a table_wise or column_wise table into out (at
 * most PT_SHARD_MAX_PARTS); returns how many. */
static int slices(const pt_embed_job *j, int t, const pt_shard_choice *ch, piece *out)
{
    const pt_glayer *tb = pt_recsys_table(j->rs, t);
    double B = j->batch, D = (double)tb->c;
    int n = 0;
    for (int p = 0; p < ch->nparts && p < PT_SHARD_MAX_PARTS; p++)
        out[n++] = (piece){ch->part[p], (double)tb->emb.rows, D / ch->nparts, B * tb->emb.pooling, B};
    return n;
}

void pt_embed_eval(const pt_embed_job *j, const pt_shard_choice *ch, pt_embed_dev *dev, pt_embed_cost *out)
{
    const pt_cluster *c = j->c;
    int64_t N = c->devices, g = j->node;
    double B = j->batch, per = B / (double)N;
    double recv_out = 0, ids_send = 0, rs_all = 0, rs_node = 0, ar;
    double vol_out = 0, vol_ids = 0;
    piece pc[PT_SHARD_MAX_PARTS];
    memset(out, 0, sizeof *out);
    memset(dev, 0, (size_t)N * sizeof *dev);
    for (int64_t d = 0; d < N; d++) dev[d].hbm = j->dense_bytes;
    ar = 2.0 * pt_recsys_dense_params(j->rs); /* 2-byte dense gradients, as graph_cost.c's */
    for (int t = 0; t < j->rs->ntables; t++) {
        const pt_glayer *tb = pt_recsys_table(j->rs, t);
        double L = tb->emb.pooling, D = (double)tb->c, ob = tb->emb.bytes >= 4 ? 4.0 : 2.0;
        double idb = L * ID_BYTES + LEN_BYTES;
        const pt_shard_choice *s = &ch[t];
        int np;
        if (s->type == PT_SHARD_NONE) continue;
        /* the types spread over a node or all devices, piece by piece */
        if (s->type == PT_SHARD_DP || s->type == PT_SHARD_RW || s->type == PT_SHARD_TWRW || s->type == PT_SHARD_GRID) {
            int64_t cnt = s->type == PT_SHARD_DP || s->type == PT_SHARD_RW ? N : (int64_t)s->nparts * g;
            for (int64_t k = 0; k < cnt; k++) {
                piece p;
                double gn = (double)g; /* devices of the node (the last may be partial: NVL72 segments) */
                if (s->type == PT_SHARD_DP) p = (piece){k, (double)tb->emb.rows, D, per * L, per};
                else if (s->type == PT_SHARD_RW) p = (piece){k, (double)tb->emb.rows / (double)N, D, B * L / (double)N, B};
                else {
                    int64_t first = (int64_t)s->part[k / g] * g, d = first + k % g;
                    if (d >= N) continue;
                    if (first + g > N) gn = (double)(N - first);
                    p = (piece){d, (double)tb->emb.rows / gn, D / s->nparts, B * L / gn, B};
                }
                dev[p.dev].lookup_s += piece_lookup_s(j, tb, &p, s->uvm);
                piece_mem(tb, &p, s->uvm, &dev[p.dev]);
                out->shards++;
                if (s->type == PT_SHARD_RW) dev[p.dev].ids += per * idb;
                if (s->type == PT_SHARD_TWRW || s->type == PT_SHARD_GRID) {
                    dev[p.dev].send += B * p.cols * ob / gn;
                    dev[p.dev].ids += B * idb / gn;
                }
            }
            if (s->type == PT_SHARD_DP) ar += (double)pt_recsys_table_bytes(tb);
            if (s->type == PT_SHARD_RW) rs_all += B * D * ob, ids_send += per * idb;
            if (s->type == PT_SHARD_TWRW || s->type == PT_SHARD_GRID) {
                for (int p = 0; p < s->nparts; p++) dev[s->part[p]].rs_node += B * D / s->nparts * ob;
                recv_out += per * D * ob;
                ids_send += per * idb;
            }
            continue;
        }
        np = slices(j, t, s, pc);
        for (int k = 0; k < np; k++) {
            pt_embed_dev *dv = &dev[pc[k].dev];
            out->shards++;
            dv->lookup_s += piece_lookup_s(j, tb, &pc[k], s->uvm);
            piece_mem(tb, &pc[k], s->uvm, dv);
            dv->send += B * pc[k].cols * ob;
            dv->ids += B * idb;
        }
        recv_out += per * D * ob;
        ids_send += (double)np * per * idb;
    }
    for (int64_t d = 0; d < N; d++) {
        pt_embed_dev *dv = &dev[d];
        double over;
        dv->hbm += 2.0 * recv_out; /* the pooled vectors of its samples, and their gradients */
        if (dv->lookup_s > out->lookup_s) out->lookup_s = dv->lookup_s;
        if (dv->send > vol_out) vol_out = dv->send;
        if (dv->ids > vol_ids) vol_ids = dv->ids;
        if (d < j->nodes && dv->rs_node > rs_node) rs_node = dv->rs_node;
        if (dv->hbm > out->hbm_max) out->hbm_max = dv->hbm, out->hbm_dev = (int)d;
        if (dv->host > out->host_max) out->host_max = dv->host, out->host_dev = (int)d;
        over = (dv->hbm > j->hbm_cap ? dv->hbm - j->hbm_cap : 0) + (dv->host > j->host_bytes ? dv->host - j->host_bytes : 0);
        out->overflow += over;
        out->balance += dv->lookup_s * dv->lookup_s;
    }
    if (recv_out > vol_out) vol_out = recv_out;
    if (ids_send > vol_ids) vol_ids = ids_send;
    out->a2a_bytes = vol_out;
    out->ids_a2a_s = pt_coll_time(c, PT_ALLTOALL, (int64_t)vol_ids, N, 1);
    out->pooled_a2a_s = 2.0 * pt_coll_time(c, PT_ALLTOALL, (int64_t)vol_out, N, 1);
    out->rs_ag_s = 2.0 * pt_coll_time(c, PT_REDUCESCATTER, (int64_t)rs_all, N, 1) +
                   2.0 * pt_coll_time(c, PT_REDUCESCATTER, (int64_t)rs_node, g, 1);
    out->a2a_s = out->ids_a2a_s + out->pooled_a2a_s + out->rs_ag_s;
    out->allreduce_bytes = ar;
    out->allreduce_s = pt_coll_time(c, PT_ALLREDUCE, (int64_t)ar, N, 1);
    out->dense_s = 3.0 * j->dense_fwd_s + j->dense_opt_s;
    out->step_s = out->lookup_s + out->a2a_s + out->dense_s + out->allreduce_s;
    out->samples_per_s = B / out->step_s;
    out->fits = out->overflow <= 0;
}

double pt_embed_option_perf(const pt_embed_job *j, int t, const pt_shard_choice *ch)
{
    const pt_glayer *tb = pt_recsys_table(j->rs, t);
    const pt_cluster *c = j->c;
    int64_t N = c->devices, g = j->node;
    double B = j->batch, per = B / (double)N, D = (double)tb->c, ob = tb->emb.bytes >= 4 ? 4.0 : 2.0;
    double idb = tb->emb.pooling * ID_BYTES + LEN_BYTES, perf = 0;
    int64_t cnt;
    /* every shard: its lookups and the collective its output takes, priced
     * for that shard's bytes (TorchRec: fwd/bwd compute + fwd/bwd comm per
     * shard, an option's perf the sum over its shards) */
    switch (ch->type) {
    case PT_SHARD_DP: {
        piece p = {0, (double)tb->emb.rows, D, per * tb->emb.pooling, per};
        double grad = pt_coll_time(c, PT_ALLREDUCE, pt_recsys_table_bytes(tb), N, 1);
        perf = (double)N * (piece_lookup_s(j, tb, &p, ch->uvm) + grad);
        break;
    }
    case PT_SHARD_TW:
    case PT_SHARD_CW:
        for (int k = 0; k < ch->nparts; k++) {
            piece p = {0, (double)tb->emb.rows, D / ch->nparts, B * tb->emb.pooling, B};
            perf += piece_lookup_s(j, tb, &p, ch->uvm) +
                    2.0 * pt_coll_time(c, PT_ALLTOALL, (int64_t)(B * p.cols * ob), N, 1) +
                    pt_coll_time(c, PT_ALLTOALL, (int64_t)(B * idb), N, 1);
        }
        break;
    case PT_SHARD_RW: {
        piece p = {0, (double)tb->emb.rows / (double)N, D, B * tb->emb.pooling / (double)N, B};
        perf = (double)N * (piece_lookup_s(j, tb, &p, ch->uvm) +
                            2.0 * pt_coll_time(c, PT_REDUCESCATTER, (int64_t)(B * D * ob), N, 1) +
                            pt_coll_time(c, PT_ALLTOALL, (int64_t)(per * idb), N, 1));
        break;
    }
    case PT_SHARD_TWRW:
    case PT_SHARD_GRID:
        cnt = (int64_t)ch->nparts * g;
        for (int64_t k = 0; k < cnt; k++) {
            piece p = {0, (double)tb->emb.rows / (double)g, D / ch->nparts, B * tb->emb.pooling / (double)g, B};
            perf += piece_lookup_s(j, tb, &p, ch->uvm) +
                    2.0 * pt_coll_time(c, PT_REDUCESCATTER, (int64_t)(B * p.cols * ob), g, 1) +
                    2.0 * pt_coll_time(c, PT_ALLTOALL, (int64_t)(B * p.cols * ob / (double)g), N, 1) +
                    pt_coll_time(c, PT_ALLTOALL, (int64_t)(B * idb / (double)g), N, 1);
        }
        break;
    default: break;
    }
    return perf;
}

int64_t pt_embed_option_shards(const pt_embed_job *j, const pt_shard_choice *ch)
{
    switch (ch->type) {
    case PT_SHARD_DP:
    case PT_SHARD_RW: return j->c->devices;
    case PT_SHARD_TW:
    case PT_SHARD_CW: return ch->nparts;
    case PT_SHARD_TWRW:
    case PT_SHARD_GRID: return (int64_t)ch->nparts * j->node;
    default: return 0;
    }
}

void pt_embed_shard_bytes(const pt_embed_job *j, int t, const pt_shard_choice *ch, double *hbm, double *host)
{
    const pt_glayer *tb = pt_recsys_table(j->rs, t);
    double B = j->batch, N = (double)j->c->devices, g = (double)j->node, R = (double)tb->emb.rows;
    double D = (double)tb->c, k = ch->nparts > 0 ? ch->nparts : 1;
    piece p = {0, R, D, 0, B};
    pt_embed_dev dv;
    memset(&dv, 0, sizeof dv);
    if (ch->type == PT_SHARD_DP) p.outs = B / N;
    else if (ch->type == PT_SHARD_RW) p.rows = R / N;
    else if (ch->type == PT_SHARD_TWRW || ch->type == PT_SHARD_GRID) p.rows = R / g;
    if (ch->type == PT_SHARD_CW || ch->type == PT_SHARD_GRID) p.cols = D / k;
    piece_mem(tb, &p, ch->uvm, &dv);
    *hbm = dv.hbm;
    *host = dv.host;
}

double pt_embed_fixed_bytes(const pt_embed_job *j)
{
    double per = j->batch / (double)j->c->devices, b = j->dense_bytes;
    for (int t = 0; t < j->rs->ntables; t++) {
        const pt_glayer *tb = pt_recsys_table(j->rs, t);
        b += 2.0 * per * (double)tb->c * (tb->emb.bytes >= 4 ? 4.0 : 2.0);
    }
    return b;
}
