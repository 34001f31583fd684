/*
 * gplan.h -- `partita plan` for a layer graph (src/workload/graph.h): the
 * data-parallel ways to run one global batch on N devices, ranked by step
 * time.
 *
 * Each candidate is a spatial group size p (each sample cut into p slabs
 * over p devices of a node, src/cost/spatial.h; p = 1 is data parallelism
 * alone), N / p data-parallel groups, and a number of micro-batches k
 * (gradient accumulation) so that one micro-batch fits in memory; each
 * prices its gradient exchange as the fastest of all-reduce, parameter
 * servers on the GPU machines, on k spare CPU machines, and BytePS
 * (src/cost/ps.h), and keeps why that one won.  The step is
 *     k x (compute + halo + norm statistics)  +  exposed exchange  +  optimizer
 * (the exchange hides under the last micro-batch's backward).
 * What it does not: place layers on different devices (model parallelism
 * by layers is `partita scale`'s, src/plan/place.h), or price
 * transformers (src/plan/search.h).
 */
#ifndef PT_GPLAN_H
#define PT_GPLAN_H

#include "partita.h"
#include "cost/ps.h"
#include "cost/spatial.h"
#include "workload/graph.h"

typedef struct pt_gplan {
    int p;                  /* devices per sample (spatial), e.g. 4     */
    int64_t dp;             /* groups                                    */
    int64_t k;              /* micro-batches per step                    */
    double micro;           /* samples per group per micro-batch         */
    pt_spatial_cost cost;   /* one micro-batch's pricing                 */
    double step_s, samples_per_s;
    double mem_GiB;
    int fits;
    pt_ps_step xchg;        /* the exchange: every scheme, chosen, why   */
} pt_gplan;

#define PT_GPLAN_MAX 64

typedef struct pt_gplan_result {
    int n;                  /* candidates, best first (fitting ones first) */
    int evaluated;
    pt_gplan plan[PT_GPLAN_MAX];
} pt_gplan_result;

/* All candidates for global_batch samples per step on c's devices, k CPU
 * machines.  PT_EINPUT when the batch is smaller than one sample per
 * group for every p or cannot be split evenly (naming both), or
 * cpu_machines is out of range. */
pt_status pt_gplan_search(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, int64_t global_batch,
                          double cpu_machines, pt_gplan_result *r, pt_diag *d);

/* "p=4 dp=8 mbs=2 k=4, byteps" */
void pt_gplan_string(const pt_gplan *p, char *buf, size_t n);

#endif
