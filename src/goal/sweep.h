/*
 * sweep.h -- a grid of planning questions (`partita sweep GRID.json`, SPEC
 * section 11): the cartesian product of models x clusters x device counts x
 * global batches x sequence lengths x objectives, each answered by the same
 * search and re-ranking as `partita plan` (best plan only), in a fixed order.
 *
 * What it does: reads GRID.json and checks every value before any question
 * is answered (a model or cluster that does not load, a device count the
 * cluster cannot take, a key it does not know are all refused with the file,
 * the key and the value); numbers the questions in grid order (the lists'
 * order, models outermost, objectives innermost); answers one question into
 * a plain struct (no pointers, so an MPI rank can send it as bytes and rank 0
 * rebuild the same output, src/cli/cmd_sweep.c); estimates the relative cost
 * of a question so ranks get balanced shares.
 * What it does not: print (src/emit/sweep_out.c), or know about MPI.
 *
 * Objectives: "step" ranks a question's plans by tokens/s, as `plan` does;
 * "cost" by tokens per dollar (the cluster's price_per_device_hour; refused
 * for a cluster without a price).  At one device count the two orders agree,
 * since dollars per token = devices x price / tokens/s; they part once
 * failures and checkpoints are priced (issue 17's objectives plug in through
 * the score hook below).
 *
 * Serving grids ("command": "serve"): models x clusters x device counts x
 * prompt lengths (isl) x output lengths (osl) x request rates (rate; absent:
 * offline) x TTFT objectives (ttft_ms) x TPOT objectives (tpot_ms), the
 * lists in that order, each question answered by `partita serve`'s search
 * (src/plan/serve_search.c, pt_serve_search) with --top 1: the same best
 * plan.  One grid is one command: a plan key (global_batch, seq_len,
 * objective) in a serve grid, or a serve key in a plan grid, is refused,
 * naming it.  Plan questions leave the serve lists at one unused value, and
 * serve questions the plan lists, so one grid order serves both.
 */
#ifndef PT_SWEEP_H
#define PT_SWEEP_H

#include "partita.h"
#include "plan/search.h"
#include "plan/serve_search.h"

#define PT_SWEEP_MAX_LIST 64         /* values per key                        */
#define PT_SWEEP_MAX_QUESTIONS 1000000
#define PT_SWEEP_MAX_TOKENS ((int64_t)1 << 24) /* isl, osl: as `serve --isl`       */

typedef enum pt_sweep_obj { PT_SWEEP_STEP = 0, PT_SWEEP_COST, PT_SWEEP_OBJ_COUNT } pt_sweep_obj;
const char *pt_sweep_obj_name(pt_sweep_obj o);

/* What the grid's questions ask: "plan" (training) or "serve". */
typedef enum pt_sweep_cmd { PT_SWEEP_PLAN = 0, PT_SWEEP_SERVE } pt_sweep_cmd;

/* The grid as read: every list's values, loaded.  Free with pt_sweep_free. */
typedef struct pt_sweep_grid {
    char file[256];                  /* "grid.json", for messages             */
    int nmodel, ncluster, ngpus, ngbs, nseq, nobj;
    pt_model *model;                 /* nmodel, loaded                        */
    char (*model_arg)[256];          /* as given: a name or a config.json path */
    pt_cluster *cluster;             /* ncluster, at their default size       */
    char (*cluster_arg)[256];
    int64_t gpus[PT_SWEEP_MAX_LIST]; /* e.g. 64, 256; 0 = the cluster's size  */
    int64_t gbs[PT_SWEEP_MAX_LIST];  /* global batch, sequences               */
    int64_t seq[PT_SWEEP_MAX_LIST];  /* 0 = the model's (capped at 4096)      */
    pt_sweep_obj obj[PT_SWEEP_MAX_LIST];
    pt_dtype dtype;                  /* "dtype": one value, default bf16      */
    pt_sweep_cmd cmd;                /* "command", default plan               */
    /* serve grids (1 each, unused, in plan grids): */
    int nisl, nosl, nrate, nttft, ntpot;
    int64_t isl[PT_SWEEP_MAX_LIST];  /* prompt tokens, e.g. 2048              */
    int64_t osl[PT_SWEEP_MAX_LIST];  /* output tokens, e.g. 256               */
    double rate[PT_SWEEP_MAX_LIST];  /* requests/s, e.g. 4; 0 = offline       */
    double ttft_ms[PT_SWEEP_MAX_LIST]; /* objective at the percentile; 0 none */
    double tpot_ms[PT_SWEEP_MAX_LIST];
    int percentile;                  /* "percentile": 50, 90 (default) or 99  */
    pt_qtype wq, kvq;                /* "dtype" (bf16, fp8, fp4), "kv_dtype"  */
    char engine[16];                 /* "engine": vllm (default), sglang, trtllm */
    int64_t n;                       /* questions: the product of the counts  */
} pt_sweep_grid;

/* Question i of the grid, as indices into the lists. */
typedef struct pt_sweep_q {
    int model, cluster, gpus, gbs, seq, obj;
    int isl, osl, rate, ttft, tpot;  /* serve grids                            */
} pt_sweep_q;

/* One answer.  status: 0 a plan (best, check), 1 nothing fits (why says the
 * nearest miss's memory), 2 the search refused the question (why: its
 * message).  Plain values only. */
typedef struct pt_sweep_answer {
    int status;
    char why[384];
    int64_t devices;                 /* the question's resolved device count  */
    int64_t seq_len;                 /* and sequence length                   */
    int64_t evaluated;               /* candidates the search priced or sized */
    pt_plan best;
    pt_plan_check check;
    pt_engine engine;                /* the engine best is priced as          */
    double hours_per_btok;           /* wall hours per 10^9 tokens trained    */
    double dollars_per_btok;         /* dollars per 10^9 tokens (0: no price) */
    /* serve grids: the best plan as `serve --top 1` ranks it (the closest
     * to the objectives when none meets them), and its price */
    pt_serve_plan serve;
    int any_meets;                   /* some plan meets the objectives        */
    double dollars_per_mtok;         /* per 10^6 output tokens (0: no price)  */
} pt_sweep_answer;

/* Reads GRID.json (path) into g.  Keys: "command" ("plan" or "serve";
 * default "plan"), "models", "clusters", "gpus" (lists, required); for plan,
 * "global_batch" (list, required), "seq_len" and "objective" (lists, default
 * [model's] and ["step"]), "dtype" (bf16, fp16, fp8); for serve, "isl" and
 * "osl" (lists, required), "rate", "ttft_ms", "tpot_ms" (lists; default
 * offline, no objectives), "percentile", "dtype" (bf16, fp8, fp4), "kv_dtype"
 * and "engine" (one value each, defaults as `partita serve`'s).
 * PT_EINPUT with d naming the file, the key (e.g. "gpus[2]") and the value. */
pt_status pt_sweep_read(const char *path, pt_sweep_grid *g, pt_diag *d);
void pt_sweep_free(pt_sweep_grid *g);

/* Question i (0 <= i < g->n) in grid order. */
pt_sweep_q pt_sweep_question(const pt_sweep_grid *g, int64_t i);

/* Answers question i with `threads` search threads (the answer is the same
 * for any count).  PT_ENOMEM only; a question the search refuses is an
 * answer with status 2. */
pt_status pt_sweep_answer_one(const pt_sweep_grid *g, int64_t i, int threads, pt_sweep_answer *a,
                              pt_diag *d);

/* A relative estimate of question i's search time (> 0).  Plan: the ways to
 * split its devices into tp x pp x cp x dp, times the global batch's
 * divisors (micro-batch sizes), times the model's layers (pipeline layouts).
 * Serve: the replica shapes the serving search prices (tp x pp as it
 * enumerates them, with the MoE variants; those whose weights cannot fit
 * count a twentieth), each simulated at 8 batch sizes for about osl steps
 * per request, times 1 + 0.3 / (requests/s per device) under a rate (a light
 * load decodes few sequences a step: more steps for the same requests).
 * Measured on 192 serving questions (4 models, dense and MoE, x 2 clusters x
 * 8 and 32 GPUs x isl 512, 4096 x osl 64, 512 x 1, 20, 200 requests/s; 0.001
 * to 20 s each): Pearson 0.86 against the time; split over 2, 3, 4 ranks the
 * largest share is 1.06, 1.08, 1.08 x an even one (1.41, 2.08, 1.46 x dealt
 * round robin).  Only questions of one grid are compared, so the plan and
 * serve scales never meet. */
double pt_sweep_estimate(const pt_sweep_grid *g, int64_t i);

/* Splits the questions over nranks by estimated cost (longest first, each to
 * the least loaded rank, the lowest on ties): owner[i] is question i's rank.
 * The same for every caller given the same grid. */
pt_status pt_sweep_split(const pt_sweep_grid *g, int nranks, int *owner, pt_diag *d);

#endif
