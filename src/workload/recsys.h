/*
 * recsys.h -- recommendation models (issue 19): embedding tables next to a
 * small dense network, as DLRM (Naumov et al. 2019) and DCN-v2 (Wang et al.
 * 2021) build them.
 *
 * What it does: holds a recommendation model as a layer graph
 * (src/workload/graph.h) whose embedding_bag layers are its tables -- rows,
 * dimension, pooling factor (ids per sample: one-hot 1, multi-hot more),
 * hot rows and cache hit rate, precision, optimizer -- and whose other
 * layers (bottom MLP, interaction, top MLP, loss) are the dense part; builds
 * the two built-ins with the same code the graph-file reader uses; says
 * whether a MODEL argument names one (a built-in, or a graph file with an
 * embedding_bag layer).
 * What it does not: shard the tables or price anything (src/cost/embed_cost.h,
 * src/plan/shard.h).
 *
 * Built-ins and their sources:
 *   dlrm        MLPerf Training v1.0 DLRM on Criteo Terabyte: 26 one-hot
 *               tables of dimension 128, the sizes of --max-ind-range=40000000
 *               (facebookresearch/dlrm, dlrm_data_pytorch.py's "Criteo
 *               Terabyte MLPerf training" branch: ln_emb 39884406, 39043, ...,
 *               36; ln_bot 13-512-256-128, ln_top 479-1024-1024-512-256-1;
 *               HugeCTR's MLPerf config lists the same slot_size_array), dot
 *               interaction, SGD (the MLPerf reference's optimizer), fp32
 *               tables.
 *   dlrm-dcnv2  MLPerf Training v3.0+ DLRM-DCNv2 on the Criteo 1TB multi-hot
 *               data set (mlcommons/training recommendation_v2/torchrec_dlrm;
 *               its materialize_synthetic_multihot_dataset.py arguments, as
 *               mlcommons/ck's preprocess_multihot.sh passes them:
 *               --num_embeddings_per_feature 40000000,39060,17295,7424,20265,
 *               3,7122,1543,63,40000000,3067956,405282,10,2209,11938,155,4,
 *               976,14,40000000,40000000,40000000,590152,12973,108,36 and
 *               --multi_hot_sizes 3,2,1,2,6,1,1,1,1,7,3,8,1,6,9,5,1,1,1,12,
 *               100,27,10,3,1,1), dimension 128, dense arch 512-256-128, a
 *               DCN-v2 interaction of 3 low-rank (512) cross layers, over arch
 *               1024-1024-512-256-1, row-wise Adagrad on the tables (TorchRec's
 *               EXACT_ROWWISE_ADAGRAD, the reference's --adagrad), fp32 tables.
 *   Both: 4,195,197,692 training samples per epoch (Criteo Terabyte days
 *   0-22, the MLPerf training split).
 */
#ifndef PT_RECSYS_H
#define PT_RECSYS_H

#include "workload/graph.h"

/* Embedding optimizers (pt_gemb.optimizer) and the state each keeps. */
typedef enum pt_emb_opt {
    PT_EMB_SGD = 0,          /* none                                            */
    PT_EMB_ROWWISE_ADAGRAD,  /* one fp32 per row (fbgemm EXACT_ROWWISE_ADAGRAD)  */
    PT_EMB_ADAGRAD,          /* one fp32 per element                           */
    PT_EMB_ADAM              /* two fp32 per element                           */
} pt_emb_opt;

typedef struct pt_recsys {
    pt_graph g;       /* owned: the whole model                                  */
    int ntables;      /* e.g. 26                                                 */
    int *table;       /* owned: indices of g's embedding_bag layers, in order   */
} pt_recsys;

int pt_recsys_catalog_count(void);
const char *pt_recsys_catalog_name(int i);
/* A built-in recommendation model by name ("dlrm", "dlrm-dcnv2"). */
pt_status pt_recsys_builtin(const char *name, pt_recsys *rs, pt_diag *d);
/* 1 when name_or_path is a built-in recommendation model or a readable graph
 * file (JSON) with an embedding_bag layer; 0 otherwise (anything else is
 * some other kind of model, or not a model). */
int pt_recsys_probe(const char *name_or_path);
/* A built-in name or a graph file; a graph without tables is refused. */
pt_status pt_recsys_load(const char *name_or_path, pt_recsys *rs, pt_diag *d);
/* Takes *g over (cleared on return, success or not). */
pt_status pt_recsys_from_graph(pt_graph *g, pt_recsys *rs, pt_diag *d);
void pt_recsys_free(pt_recsys *rs);

/* The i-th table (an embedding_bag layer of rs->g). */
const pt_glayer *pt_recsys_table(const pt_recsys *rs, int i);
/* Bytes of a table's weights: rows * dim * precision bytes. */
int64_t pt_recsys_table_bytes(const pt_glayer *t);
/* Bytes of its optimizer state (see pt_emb_opt). */
int64_t pt_recsys_table_state_bytes(const pt_glayer *t);
/* Every table's rows, weights and state together. */
int64_t pt_recsys_rows(const pt_recsys *rs);
int64_t pt_recsys_embedding_bytes(const pt_recsys *rs);
/* Parameters and forward FLOPs per sample of the dense part (all layers but
 * the tables). */
double pt_recsys_dense_params(const pt_recsys *rs);
double pt_recsys_dense_flops(const pt_recsys *rs);
/* "sgd", "rowwise_adagrad", ... */
const char *pt_emb_opt_name(int opt);
/* "fp32", "fp16" (2 bytes), "int8" */
const char *pt_emb_precision_name(int bytes);

#endif
