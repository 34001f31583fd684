/*
 * graph.h -- any network as a graph of layers with shapes (SPEC section 3:
 * "a Partita graph file"), for the networks that are not transformers built
 * from a Hugging Face config: CNNs, RNNs, encoder-decoder translation models.
 *
 * A graph is a list of layers in topological order; each names its inputs
 * (by default the layer before).  Tensors are per sample: an image [C, H, W]
 * or a sequence [T, D] (tokens [T] before an embedding).  From the shapes the
 * builder derives each layer's parameters, its GEMMs (M per sample, N, K) or
 * its memory traffic, and the bytes it keeps for the backward pass; the cost
 * of a layer for a micro-batch of b samples is priced in src/cost/graph_cost.c.
 * The built-in graphs (resnet-50, inception-v3, gnmt, biglstm,
 * transformer-big, unet3d-brats, ssd-resnet34, and for inference vgg-16,
 * mobilenet-v2, vit-large, bert-large) are built by the same code the file reader uses.
 *
 * Recommendation models (issue 19) add two ops.  `embedding_bag` is one
 * embedding table read by its own sparse feature (it takes no `in`): rows,
 * dim, pooling (ids per sample), hot_rows / hit_rate (an HBM cache of hot
 * rows when the table lives in host memory), precision, optimizer; its
 * output is the pooled vector [dim, 1, 1].  `interaction` joins its `in`
 * (the bottom MLP's output vector) with every embedding_bag before it:
 * kind "dot" (DLRM: pairwise dot products of the F = tables + 1 vectors of
 * width D, concatenated with the dense vector: D + F(F-1)/2 features) or
 * "dcn" (DCN-v2 low-rank cross layers over the concatenation of width W:
 * x_{l+1} = x_0 * (U (V^T x_l) + b) + x_l, U and V of W x rank; Wang et al.
 * 2021, "DCN V2", Eq. 1 and section 5).  src/workload/recsys.c reads the
 * tables out of such a graph and prices the rest as the dense part.
 */
#ifndef PT_GRAPH_H
#define PT_GRAPH_H

#include "partita.h"

typedef enum pt_gop {
    PT_G_INPUT = 0, PT_G_CONV, PT_G_MAXPOOL, PT_G_AVGPOOL, PT_G_GLOBALPOOL, PT_G_LINEAR,
    PT_G_LSTM, PT_G_EMBEDDING, PT_G_ATTENTION, PT_G_NORM, PT_G_ADD, PT_G_CONCAT, PT_G_RELU,
    PT_G_LOSS, PT_G_EMBEDDING_BAG, PT_G_INTERACTION, PT_G_COUNT
} pt_gop;

/* The table of an embedding_bag layer (recommendation models: what it
 * holds and how it is read; src/workload/recsys.h uses it). */
typedef struct pt_gemb {
    int64_t rows;        /* e.g. 40000000                                       */
    double pooling;      /* ids looked up and summed per sample (multi-hot), e.g. 3 */
    double hot_rows;     /* fraction of rows an HBM cache holds when the table
                            lives in host memory (UVM caching), e.g. 0.2       */
    double hit_rate;     /* fraction of lookups those rows serve, e.g. 0.2     */
    int bytes;           /* bytes per element: 4 fp32, 2 fp16/bf16, 1 int8     */
    int optimizer;       /* pt_emb_opt (recsys.h): 0 sgd, 1 rowwise adagrad, ... */
} pt_gemb;

#define PT_GRAPH_MAX_IN 8

typedef struct pt_glayer {
    char name[48];
    pt_gop op;
    int nin;
    int in[PT_GRAPH_MAX_IN];     /* indices of input layers                    */
    int kv;                      /* cross-attention: the layer keys and values
                                    come from, or -1                          */
    int seq;                     /* output is a sequence [T, D] (else [C, H, W]) */
    int64_t c, h, w;             /* image output: channels, height, width      */
    int64_t t, d;                /* sequence output: tokens, features          */
    /* GEMMs per sample (up to 3: e.g. LSTM input and recurrent, attention). */
    int ngemm;
    double gm[3], gn[3], gk[3];  /* M per sample, N, K                           */
    double gbatch[3];            /* batched GEMMs per sample (attention heads)  */
    double gserial[3];           /* sequential steps (LSTM time steps), 1 else  */
    double mem_bytes;            /* element-wise bytes per sample, forward      */
    double act_bytes;            /* bytes kept for backward per sample          */
    double params;               /* parameters                                   */
    double flops;                /* forward FLOPs per sample (GEMMs)             */
    pt_gemb emb;                 /* embedding_bag: its table; zero otherwise      */
} pt_glayer;

/* The most layers a graph holds (a graph file with more is refused, naming
 * the limit): names are found through a hash table and the placement
 * coarsens near-linearly, so 100,000 layers read in well under a second. */
#define PT_GRAPH_MAX_LAYERS 100000

typedef struct pt_graph {
    char name[64];
    char sample[16];             /* "image", "sentence", "token"                */
    double samples_per_epoch;    /* e.g. 1281167 ImageNet images                */
    int n, cap;
    pt_glayer *l;                /* owned                                        */
    int *hidx, hcap;             /* owned: layer index by name, open addressing  */
} pt_graph;

/* Built-in graphs: names and builders. */
int pt_graph_catalog_count(void);
const char *pt_graph_catalog_name(int i);
pt_status pt_graph_builtin(const char *name, pt_graph *g, pt_diag *d);
/* The graph file (JSON, see README). */
pt_status pt_graph_parse(const char *text, const char *file, pt_graph *g, pt_diag *d);
/* A built-in name or a path to a graph file. */
pt_status pt_graph_load(const char *name_or_path, pt_graph *g, pt_diag *d);
void pt_graph_free(pt_graph *g);

double pt_graph_params(const pt_graph *g);
double pt_graph_flops(const pt_graph *g); /* forward, per sample */

/* One layer as the graph file writes it: what builders and the reader fill. */
typedef struct pt_gspec {
    const char *name;
    pt_gop op;
    const char *in[PT_GRAPH_MAX_IN]; /* NULL-terminated; none = the previous layer */
    int64_t out;       /* conv out_channels, linear out features            */
    int64_t kernel, stride, pad, groups;
    int64_t kh, kw;    /* non-square kernels (inception's 1x7); 0 = kernel  */
    int64_t ph, pw;    /* their paddings; -1 = pad                          */
    int bn, relu;      /* conv followed by batch norm / ReLU                 */
    int64_t hidden;    /* lstm                                               */
    int bidirectional; /* lstm                                               */
    int64_t proj;      /* lstm projection (BigLSTM)                          */
    int64_t vocab, dim;/* embedding                                          */
    int64_t heads;     /* attention                                          */
    const char *kv;    /* attention: the layer keys/values come from (cross) */
    int causal;        /* attention                                          */
    int64_t classes;   /* loss: classes per sample or per token             */
    int64_t sampled;   /* loss: sampled softmax candidates (BigLSTM)         */
    int64_t shape[3];  /* input: [C, H, W] or [T]                           */
    /* embedding_bag (its dim is `dim`): */
    int64_t rows;      /* rows of the table                                  */
    double pooling;    /* ids per sample; 0 = 1                              */
    double hot_rows;   /* cached fraction of rows; 0 = 0.2                   */
    double hit_rate;   /* lookups the cache serves; < 0 = hot_rows (uniform) */
    const char *precision; /* "fp32" (NULL), "fp16", "bf16", "int8"          */
    const char *optimizer; /* "rowwise_adagrad" (NULL), "sgd", "adagrad", "adam" */
    /* interaction (its inputs: `in` and every embedding_bag before it): */
    const char *kind;  /* "dot" (NULL) or "dcn"                              */
    int64_t cross_layers, rank; /* dcn: layers and low rank, e.g. 3 and 512 */
    int64_t tokens;    /* conv: 0 = an image out; k >= 1 = its H*W positions
                          as a sequence [H*W + k - 1, out] (ViT's patch
                          embedding, k = 2: one class token more)            */
} pt_gspec;

/* Appends a layer; shapes and costs follow from its inputs. */
pt_status pt_graph_add(pt_graph *g, const pt_gspec *s, pt_diag *d);

#endif
