/*
 * checkpoint.h -- how often to checkpoint, and what a checkpoint costs a plan.
 *
 * What it does:
 *  1. The checkpoint period for a job that fails at exponentially distributed
 *     times with mean mu (its MTBF), checkpoints in C seconds, loses D
 *     seconds of downtime per failure and then R seconds to restart (reload
 *     the checkpoint), by the classic formulas and by the exact optimum
 *     (`partita checkpoint`, SPEC section 9).  Every period T counts the
 *     checkpoint: T = work + C.
 *       Young 1974:              T = sqrt(2 mu C) + C
 *       Daly 2006, first order:  T = sqrt(2 (mu + D + R) C) + C
 *       RFO (Aupy et al. 2013):  T = sqrt(2 (mu - D - R) C)     (mu > D + R)
 *       Daly 2006, higher order (Eq. 37): the work between checkpoints is
 *         tau = sqrt(2 C mu) [1 + (1/3) sqrt(C / 2mu) + (1/9) (C / 2mu)] - C
 *         for C < 2 mu, else tau = mu; T = tau + C.
 *       Exact, exponential failures (Aupy, Robert, Vivien and Zaidouni,
 *       "Checkpointing algorithms and fault prediction", 2013; after
 *       Bougeret et al., SC'11): the expected time to do T - C seconds of
 *       work and save it is (mu + D) e^(R/mu) (e^(T/mu) - 1), so
 *       the efficiency is
 *         E(T) = (T - C) / ((mu + D) e^(R/mu) (e^(T/mu) - 1)).
 *       Setting dE/dT = 0 gives e^x (1 + C/mu - x) = 1 with x = T/mu, i.e.
 *       T = mu + C + mu W0(-e^(-1 - C/mu)) (Lambert W).  It is solved here in
 *       the form v + ln(1 - v) + C/mu = 0, v = (T - C)/mu in (0, 1), by a
 *       safeguarded Newton iteration (log1p keeps it exact for tiny C/mu);
 *       D and R scale E but do not move its maximum.
 *     Test vectors: Aupy et al.'s Table 2 (C = R = 600 s, D = 60 s; mu =
 *     3,849,609 s, 240,601 s, 15,038 s), tests/test_failure.c.
 *  2. The checkpoint a plan writes (pt_ckpt_plan): the model state each rank
 *     holds under the plan's sharding, and the seconds it blocks training
 *     in each of three modes (pt_ckpt_mode).
 * What it does not: decide when a job fails or how long a restart takes
 * (goal/failure.h), or search strategies (src/plan).
 */
#ifndef PT_GOAL_CHECKPOINT_H
#define PT_GOAL_CHECKPOINT_H

#include "partita.h"
#include "plan/search.h"

/* The inputs of the period formulas; seconds. */
typedef struct pt_ckpt_params {
    double mtbf_s;        /* mu, the job's mean time between failures, e.g. 240601 */
    double checkpoint_s;  /* C, seconds one checkpoint blocks training, e.g. 600   */
    double restart_s;     /* R, seconds to restart and reload after a failure     */
    double downtime_s;    /* D, seconds lost before the restart begins, e.g. 60    */
} pt_ckpt_params;

/* The periods (work + checkpoint, seconds) and the efficiency at the optimum. */
typedef struct pt_ckpt_periods {
    double young_s;              /* e.g. 17592                                   */
    double daly_s;               /* first order, e.g. 17615                     */
    double rfo_s;                /* e.g. 16968; 0 when rfo_defined is 0         */
    int rfo_defined;             /* 0 when mu <= D + R (the square root of < 0) */
    double daly_high_order_s;    /* e.g. 17194                                   */
    double optimal_s;            /* the exact optimum, e.g. 17194                */
    double optimal_efficiency;   /* E(optimal_s), e.g. 0.929                     */
} pt_ckpt_periods;

/* Checks p (mu > 0, C > 0, R >= 0, D >= 0, all finite; pt_diag names the
 * field and value) and computes every period. */
pt_status pt_ckpt_periods_compute(const pt_ckpt_params *p, pt_ckpt_periods *out, pt_diag *d);

/* E(T) above: the fraction of wall-clock time spent on work that is kept,
 * with period T (work T - C, then a checkpoint); 0 when T <= C. */
double pt_ckpt_efficiency(const pt_ckpt_params *p, double period_s);

/* The exact optimum period for exponential failures of mean mtbf_s and a
 * checkpoint of checkpoint_s (both > 0). */
double pt_ckpt_optimal_period(double mtbf_s, double checkpoint_s);

/* ---- the checkpoint of a plan ----------------------------------------------- */

/* Where the checkpoint goes. */
typedef enum pt_ckpt_mode {
    PT_CKPT_SYNC = 0, /* training waits until every rank's state is on storage  */
    PT_CKPT_ASYNC,    /* training waits for the device-to-host copy only; host
                         memory drains to storage while training goes on
                         (CheckFreq, PyTorch DCP async_save)                     */
    PT_CKPT_MEMORY    /* device-to-host copy, then to a peer node's host memory
                         (Gemini, SOSP'23; REFT, arXiv 2310.12670); a restart
                         reloads from the peer, or from storage when the peer's
                         copy was lost too                                        */
} pt_ckpt_mode;

/* "sync", "async", "memory". */
const char *pt_ckpt_mode_name(pt_ckpt_mode m);
/* 1 and *out when s names a mode. */
int pt_ckpt_mode_parse(const char *s, pt_ckpt_mode *out);

/* Llama 3's checkpoint storage (Dubey et al. 2024, section 3.3.1: Tectonic,
 * 2 TB/s sustained, 7 TB/s peak, for the 16,384-GPU run): the default
 * aggregate storage bandwidth is this much per device of the job. */
#define PT_CKPT_STORAGE_GBPS_PER_DEVICE (2000.0 / 16384.0)

/* What one checkpoint of plan p on c costs.  Bytes each rank saves are its
 * weights and optimizer states as the cost model holds them on the busiest
 * device (cost.mem.weights + cost.mem.optimizer: ZeRO/FSDP shards and
 * experts as the strategy places them; gradients are not saved); for an
 * offloading plan, the same strategy without offload is priced for them
 * (offloaded states are saved all the same, from host memory).  The
 * state stored once for the whole job is (weights of one data-parallel
 * replica) + (optimizer states of all ranks), with replicas' identical
 * weights written once (DCP de-duplicates them).  Seconds:
 *   snapshot  = rank bytes / the device's host link (device to host);
 *   storage   = stored bytes / storage_GBps (aggregate);
 *   peer      = rank bytes / the outermost level's bandwidth per device;
 * SYNC blocks for snapshot + storage; ASYNC and MEMORY for the snapshot,
 * and the copy is durable `drain_s` later (storage, or the peer copy). */
typedef struct pt_ckpt_cost {
    int64_t rank_bytes;     /* per rank (busiest), e.g. 4.1e9                */
    double stored_bytes;    /* the whole job's checkpoint, e.g. 5.7e12        */
    double snapshot_s;      /* device to host                                */
    double storage_s;       /* the stored bytes at the storage's bandwidth   */
    double blocking_s;      /* C: what training waits for per checkpoint     */
    double drain_s;         /* after the block, until the copy is durable     */
    double reload_storage_s;/* every rank reads its state back from storage  */
    double reload_peer_s;   /* every rank reads it from a peer's host memory */
} pt_ckpt_cost;

/* The checkpoint of plan p (strategy and cost) on c in mode m, storage of
 * storage_GBps (> 0, 10^9 B/s, the whole file system). */
void pt_ckpt_plan(const pt_model *mdl, const pt_job *job, const pt_plan *p, const pt_cluster *c, pt_ckpt_mode m,
                  double storage_GBps, pt_ckpt_cost *out);

#endif
