/*
 * infer_runs.h -- `partita validate` on an inference-runs CSV (SPEC section 8):
 * every measured number of a serving run (output tokens/s, TTFT, TPOT)
 * against what the inference cost model (src/cost/infer.c) predicts.
 *
 * What it does: recognises the CSV by its header (source, model, gpu,
 * n_gpus, tp, pp, dp, ep, input_len, output_len, batch_or_rate, ttft_ms,
 * tpot_ms, tokens_per_s, notes); maps the model name onto a built-in model
 * and the GPU name onto a catalog cluster (data/gpus.json's training_runs
 * table); reads the precision from the notes (FP8: fp8 weights and KV cache;
 * FP16: 16-bit); prices each row by how it ran:
 *   "offline max load"   every request queued: continuous batching at the
 *                        most sequences the KV cache holds (capped at the
 *                        engine's max batch), output tokens/s of all replicas;
 *   "static batch N"     N sequences prefilled together, decoded to the end;
 *   "batch 1"            one request: TTFT = its prefill, TPOT = one step.
 * Each row's strategy text starts with `gpu=NAME engine=LABEL` (the GPU
 * column and the engine release the source names) so that reports can
 * group errors by GPU and engine.
 * What it does not: fit anything (the device efficiencies are those of
 * data/devices.json), print (src/cli), or guess a GPU or a model it does
 * not know (such a row is skipped, with the reason).
 */
#ifndef PT_VALIDATE_INFER_RUNS_H
#define PT_VALIDATE_INFER_RUNS_H

#include "partita.h"
#include "validate/validate.h"

/* 1 when the header row (fields f[0..nf-1]) is an inference-runs CSV's. */
int pt_infer_runs_header(char *const *f, int nf);

/* Validates an inference-runs CSV given as text; file names it in errors.
 * Fills out as pt_validate_csv does (the caller frees it with
 * pt_validate_free). */
pt_status pt_infer_runs_csv(const char *text, const char *file, pt_vresult *out, pt_diag *d);

/* Error of one group of rows (by GPU or by engine). */
typedef struct pt_infer_group {
    char key[16];       /* "gpu" or "engine"                   */
    char name[48];      /* "H100", "TensorRT-LLM 1.0"          */
    int rows;
    double mean_abs_error, worst_abs_error;
} pt_infer_group;

/* Groups the predicted rows of r by GPU and by engine (from each row's
 * strategy text); at most max groups; returns how many. */
int pt_infer_runs_groups(const pt_vresult *r, pt_infer_group *g, int max);

#endif
