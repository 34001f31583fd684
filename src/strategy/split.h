/*
 * split.h -- the uneven parts of a strategy on a heterogeneous cluster (SPEC
 * section 10): how many layers each pipeline stage holds and how many
 * micro-batches each data-parallel rank runs per step.
 *
 * The strategy string writes them as two more keys, `layers=12,12,8,8` (one
 * count per pipeline stage, first stage first, summing to the model's
 * layers) and `batch_share=40,40,24,24` (one count per data-parallel rank:
 * the micro-batches of mbs sequences that rank accumulates per step, summing
 * to gbs/mbs).  A list's commas are read as part of it while a digit follows
 * ("layers=20,12,tp=8" is layers 20,12 and tp 8), and "AxN" is A written N
 * times ("batch_share=6x32,2x32": 32 ranks of 6, then 32 of 2), which is
 * how pt_split_format writes repeats.  They are kept beside
 * pt_strategy rather than in it: a count per stage and per rank is a list,
 * and the search's key table (strategy.c) holds one number per key.
 *
 * pt_split_resolve fills a pooled cluster's strategy's defaults and checks
 * its rules: the rules of pt_strategy_check that do not depend on an even
 * pipeline or an even batch (tp against the model's shape, sp, zero,
 * offload), plus the ones of pools: pipelines of gpipe or 1f1b without
 * virtual stages, dense models, zero <= 2, no offload, and the lists'
 * lengths and sums.
 * Not here: what the split costs or how it is chosen (src/cost/hetero.c).
 */
#ifndef PT_STRATEGY_SPLIT_H
#define PT_STRATEGY_SPLIT_H

#include "partita.h"

#define PT_SPLIT_MAX_STAGES 128 /* pipeline stages a layers= list holds    */
#define PT_SPLIT_MAX_DP 1024    /* data-parallel ranks a batch_share= holds */

typedef struct pt_split {
    int nlayers;                        /* 0: even split (pp must divide the layers) */
    int layers[PT_SPLIT_MAX_STAGES];    /* e.g. {20, 12}                         */
    int nshare;                         /* 0: even shares                        */
    int share[PT_SPLIT_MAX_DP];         /* micro-batches per DP rank, e.g. {40, 24} */
} pt_split;

/* Parses a strategy string with optional layers= and batch_share= into *st,
 * *set (as pt_strategy_parse) and *sp (zeroed first).  Errors name the key,
 * the value and its column. */
pt_status pt_split_parse(const char *text, pt_strategy *st, unsigned *set, pt_split *sp, pt_diag *d);

/* Defaults and rules for a strategy on a cluster with pools (c->npools > 1),
 * as the header says; with batch_share the global batch is mbs times its
 * sum (gbs, if given, must equal it).  An empty list stays empty (an even
 * split, which pp must then divide). */
pt_status pt_split_resolve(pt_strategy *st, unsigned set, pt_split *sp, const pt_model *m,
                           const pt_cluster *c, const pt_job *job, pt_diag *d);

/* The strategy string with the lists: pt_strategy_format's text, then
 * " layers=a,b,..." and " batch_share=..." when they are set. */
void pt_split_format(const pt_strategy *st, const pt_split *sp, char *buf, size_t n);

#endif
