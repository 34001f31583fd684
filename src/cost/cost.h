/*
 * cost.h -- the cost model's internal interface for the search: what one
 * strategy costs splits into a part that depends only on (model, cluster,
 * job, micro-batch, tp, cp, sp, recompute) -- the per-layer times and
 * activation bytes, prepared once -- and the rest, priced per strategy in a
 * few hundred nanoseconds (DESIGN.md "Two speeds of evaluation").
 */
#ifndef PT_COST_H
#define PT_COST_H

#include "partita.h"
#include "cost/roofline.h"

typedef struct pt_cost_prep {
    int mbs, tp, cp, sp;            /* the keys it was prepared for          */
    pt_recompute recompute;
    pt_roofline h;                  /* device rates for the job's dtype      */
    double lf, lb;                  /* one layer, one micro-batch: compute   */
    double ltp_f, ltp_b;            /* ... tensor-parallel collectives        */
    double lcp_f, lcp_b;            /* ... exposed ring-attention transfers  */
    double flops_f, flops_rc;       /* ... model and recompute FLOPs forward */
    double emb_f, emb_b, emb_tp;    /* first stage extras                    */
    double head_f, head_b;          /* last stage extras                     */
    double layer_params;            /* parameters of one layer (a MoE layer's
                                       non-expert part plus its experts / (ep*etp)
                                       for a MoE model: what one device holds x tp) */
    /* MoE models: the layers above are MoE layers; a dense layer differs by */
    double dl_f, dl_b, dl_tp_f, dl_tp_b; /* (dense - MoE) compute and TP time */
    double lep_f, lep_b;            /* a MoE layer's all-to-all (0 when dense)  */
    double act_layer;               /* activation bytes of one layer         */
    double act_layer_full;          /* the same without recompute            */
    /* Hybrid models (pt_model.hybrid): one block of each kind, 'M', '*', '-',
     * 'E' (PT_COST_KINDS order), as the layer above is priced; the layer
     * fields then hold the average block (whole-model sums stay exact for
     * code that multiplies them by layers), dl_* 0, lep_* an 'E' block's. */
    struct pt_cost_kind {
        double f, b, tp_f, tp_b, cp_f, cp_b, ep_f, ep_b, flops_f, flops_rc, act, act_full;
    } kind[4];
} pt_cost_prep;

/* The block kinds of a hybrid model, in pt_cost_prep.kind's order. */
#define PT_COST_KINDS "M*-E"

/* Prepares the (mbs, tp, cp, sp, recompute)-dependent part for st. */
void pt_cost_prepare(const pt_model *m, const pt_cluster *c, const pt_job *job,
                     const pt_strategy *st, pt_cost_prep *pr);
/* Prices st with a preparation made for the same mbs, tp, cp, sp, recompute. */
void pt_cost_eval_prepared(const pt_model *m, const pt_cluster *c, const pt_job *job,
                           const pt_strategy *st, const pt_cost_prep *pr, pt_cost *out);
/* The same with the data-parallel exposure that cost.c replays (a pipeline
 * under ZeRO 0-2, zb-v and dualpipe) taken as 0: a lower bound on the step,
 * for the search to skip the replay of a strategy that cannot rank.
 * Returns 1 when nothing was left out (*out is then pt_cost_eval_prepared's
 * price), 0 when a replay was. */
int pt_cost_eval_bound(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                       const pt_cost_prep *pr, pt_cost *out);
/* Memory of the busiest device only (cheap: the search prunes with it). */
void pt_cost_memory_prepared(const pt_model *m, const pt_cluster *c, const pt_job *job,
                             const pt_strategy *st, const pt_cost_prep *pr, pt_memory *out,
                             int *fits);

/* Weights, gradients and optimizer states of one device of a stage (the
 * first holds the embedding, the last the output layer); the rest of *out 0. */
void pt_cost_stage_states(const pt_model *m, const pt_job *job, const pt_strategy *st,
                          const pt_cost_prep *pr, int first, int last, pt_memory *out);
/* The same for a stage of nlayers layers of a dense model, whatever st's
 * layout (nlayers < 0: as st lays them out); src/cost/hetero.c's stages. */
void pt_cost_stage_states_n(const pt_model *m, const pt_job *job, const pt_strategy *st,
                            const pt_cost_prep *pr, int first, int last, int64_t nlayers, pt_memory *out);
/* Parameters one device of such a stage holds (tp-sharded, before ZeRO). */
double pt_cost_stage_params(const pt_model *m, const pt_strategy *st, int first, int last, int64_t nlayers);
/* Activation bytes beyond the layers: embedding output on the first stage,
 * final norm and fp32 logits on the last. */
double pt_cost_stage_extra_activations(const pt_model *m, const pt_job *job, const pt_strategy *st,
                                       int first, int last);
/* Per virtual stage of the pipeline p (pipe.h) of st: its first layer
 * lo[vs] (V + 1 entries, uneven ends as the strategy sets them), forward
 * and backward time of one micro-batch fwd[vs], bwd[vs] (compute, TP, CP
 * and what shows of the expert all-to-all), and activation bytes act[vs]
 * (the last stage's logits included; the first stage's embedding output is
 * counted once, with its static bytes).  What src/sim replays and cost.c
 * prices zb-v and dualpipe with. */
struct pt_pipe;
void pt_cost_vstages(const pt_model *m, const pt_job *job, const pt_strategy *st, const pt_cost_prep *pr,
                     const struct pt_pipe *p, int *lo, double *fwd, double *bwd, double *act);
/* MoE layers among layers [lo, hi) (the dense ones come first; a hybrid
 * model's 'E' blocks wherever its pattern puts them). */
int64_t pt_cost_moe_layers_in(const pt_model *m, int64_t lo, int64_t hi);
/* Load of the busiest device's experts over the even share: --moe-imbalance
 * (default PT_MOE_IMBALANCE_DEFAULT), capped by the capacity factor. */
double pt_cost_moe_load(const pt_job *job);

/* Bytes the optimizer step reads and writes per parameter of a device's
 * shard: fused Adam's 36 (fp32 p, m, v read and written, the fp32 gradient
 * read, the bf16 copy written, the grad-norm read, the zeroing), 18 in pure
 * bf16 (pt_job.states_bf16). */
double pt_cost_adam_bytes(const pt_job *job);

/* Model FLOPs of one step counted over the full s x s attention square
 * (Narayanan et al. 2021 eq. 3, PaLM, Megatron-LM <= core_r0.9, NeMo 24.x,
 * llm-foundry): what a measured TFLOP/s or MFU published with one of those
 * formulas divides by.  pt_cost_model_flops counts the causal half. */
double pt_cost_model_flops_full_square(const pt_model *m, int64_t seq_len, int64_t global_batch);
/* Tied embeddings across pipeline stages: the first and the last stage
 * all-reduce the embedding gradient once per step, after the pipeline
 * drains (0 when untied or pp == 1).  Part of time.pp_comm. */
double pt_cost_tied_embedding_s(const pt_model *m, const pt_cluster *c, const pt_strategy *st);

/* Data-parallel collectives of one pipeline rank holding P parameters (Pe of
 * them routed experts), as the analytic model prices them and src/sim
 * replays them bucket by bucket (each bucket's share of a total in
 * proportion to its parameters: the same pt_coll_time / pt_coll_time_flat
 * calls, the replay differs only in order and overlap).  Seconds for the
 * whole rank, 0 where the group has one member. */
typedef struct pt_cost_dp {
    int zero;              /* 0: all-reduce; 1, 2: reduce-scatter once a step
                              and all-gather of the updated parameters; 3:
                              all-gather before each forward and backward,
                              reduce-scatter after each backward            */
    double grad;           /* gradients once a step (zero 0-2): all-reduce
                              or reduce-scatter over dp*cp, e.g. 0.9         */
    double gather;         /* parameters: zero 1-2 once a step, zero 3 once
                              per use                                      */
    double scatter;        /* zero 3: gradients per micro-batch              */
    double e_grad, e_gather, e_scatter; /* the same for the routed experts
                              over their expert data-parallel group         */
    double slow;           /* a collective overlapping compute runs 1/slow
                              as fast: DeepSpeed ZeRO-3 1.4 (of two equal
                              overlapping spans only 60% hides,
                              DEEPSPEED_ZERO3_OVERLAP); 1 otherwise          */
    double slow_c;         /* compute overlapping a collective runs 1/slow_c
                              as fast: 1.189 (NCCL's blocks take SMs and
                              memory bandwidth, OVERLAP_COMPUTE_SLOWDOWN);
                              DeepSpeed ZeRO-3 1.4                          */
} pt_cost_dp;
void pt_cost_dp_colls(const pt_cluster *c, const pt_job *job, const pt_strategy *st, double P, double Pe,
                      pt_cost_dp *out);
/* Parameters one device holds of one bucket of a stage (tp- and ep-sharded,
 * before ZeRO), the routed experts' part in *expert: which 0 the embedding
 * (position embeddings included), 1 the model's layer `layer`, 2 the final
 * norm and the output layer (copy: the output layer is a copy of tied
 * embeddings, pp > 1 with the embedding on another rank).  Their sums are
 * the stage's parameters of pt_cost_stage_params. */
double pt_cost_bucket_params(const pt_model *m, const pt_strategy *st, int which, int64_t layer, int copy,
                             double *expert);

/* One pipeline stage (or a class of equal stages) as the data-parallel
 * collectives see it: its buckets in forward order -- the embedding (first),
 * `layers` layers (in st's vpp chunks when interleaved), the final norm and
 * output layer (last) -- each bucket's compute per micro-batch and its
 * parameters (its collectives a share of pt_cost_dp_colls' in proportion,
 * on a FIFO stream beside the compute, as src/sim replays them).  cost.c
 * fills one per stage class of a homogeneous cluster; src/cost/hetero.c one
 * per stage, at its slowest member's times. */
typedef struct pt_cost_dp_stage {
    int first, last;          /* holds the embedding / the output layer       */
    int64_t layers;           /* layers on the stage, e.g. 16                 */
    double f, b;              /* one layer, one micro-batch, forward / backward:
                                 compute, TP, exposed CP, expert all-to-all,
                                 e.g. 0.00165 / 0.00291 s                     */
    double emb_f, emb_b;      /* the embedding's, its TP collectives included */
    double head_f, head_b;    /* the output layer's, logits and loss          */
    double P, Pe;             /* parameters one device holds of one layer, Pe
                                 of them routed experts (pt_cost_bucket_params) */
    double Pemb, Phead;       /* ... of the embedding, of the output layer     */
    double t;                 /* forward + backward of one micro-batch, all of
                                 the stage (what the pipeline's pace counts)   */
    double count;             /* ZeRO-3: stages this entry stands for in the
                                 pipeline's fill and drain, e.g. pp - 2        */
} pt_cost_dp_stage;
/* Seconds the data-parallel collectives (k: pt_cost_dp_colls for Pst
 * parameters, Pexp of them routed experts) add to a step of mb micro-batches
 * per pipeline, for the stages s[0..ns) of strategy st (its schedule, vpp,
 * pp), p2p seconds per pipeline send; compute beside a collective runs
 * 1/k->slow_c as fast:
 *  - ZeRO 0-2 at pp=1: the last gradient pass's reductions draining past
 *    its end, the wait for the parameter gathers issued at the step's start
 *    (zero 1-2), and what both slow of the compute they overlap;
 *  - ZeRO 0-2 with a pipeline (s: one entry per stage, in order): the order
 *    replayed alone and with each rank's collectives beside it, the
 *    difference (how the slowdowns add up along the order has no closed
 *    form);
 *  - ZeRO-3: every micro-batch but one at the pace of the stage slowest
 *    with its per-operation gathers and reduce-scatters (but no faster than
 *    its stream carries them) beyond the slowest stage's t without them,
 *    plus each stage's exposure once (count times) for the fill and drain.
 *    With a pipeline (s: one entry per stage) it is replayed instead, each
 *    rank's stream beside the order (dp_zero3_replay) as src/sim runs it:
 *    the closed form overcounts where the reduce-scatters are long (fp32:
 *    up to 15% on ZB-H1); the closed form stays for one stage (ns = 1) and
 *    for zb-v and dualpipe from src/cost/hetero.c.
 * Not for zb-v and dualpipe, whose order cost.c replays instead. */
double pt_cost_dp_stages_s(const pt_strategy *st, const pt_cost_dp *k, double Pst, double Pexp, int64_t mb,
                           const pt_cost_dp_stage *s, int ns, double p2p);

/* The allowance for context, workspaces and fragmentation given the rest. */
int64_t pt_cost_other_bytes(double rest);

#endif
