/*
 * model.h -- internal declarations of the workload module (src/workload).
 *
 * What it does: shares the Hugging Face config reader (hf.c) with the built-in
 * catalog (model.c), which keeps each model as an HF-style config inside
 * data/models.json, and fixes the limits every model shape must respect.
 * What it does not: anything public; the API is in include/partita.h.
 *
 * Invariants of a checked pt_model (pt_model_check):
 *   - layers, hidden, heads, kv_heads, head_dim, ffn, vocab, max_seq are all in
 *     [1, PT_MODEL_DIM_MAX];
 *   - kv_heads divides heads;
 *   - a MoE model (experts > 0) has 1 <= topk <= experts, moe_ffn in
 *     [1, PT_MODEL_DIM_MAX], shared_ffn >= 0 and 0 <= dense_layers <= layers;
 *     an MLA model (mla = 1) has kv_lora, qk_nope, qk_rope, v_head >= 1;
 *   - a hybrid model (hybrid[0] != 0) has one of M, *, -, E per layer
 *     (strlen(hybrid) == layers), and with Mamba blocks mamba_heads,
 *     mamba_head_dim, mamba_state, mamba_groups, mamba_conv, mamba_chunk in
 *     [1, PT_MODEL_DIM_MAX] with mamba_groups dividing mamba_heads;
 *   - the whole parameter count is at most PT_MODEL_PARAMS_MAX, so every
 *     product in pt_model_params (and in cost code using these fields the same
 *     way) fits in int64_t.
 */
#ifndef PT_WORKLOAD_MODEL_H
#define PT_WORKLOAD_MODEL_H

#include "base/base.h"

/* Largest value accepted for any one shape field, e.g. hidden_size. */
#define PT_MODEL_DIM_MAX ((int64_t)1 << 31)
/* Largest whole-model parameter count accepted (10^15). */
#define PT_MODEL_PARAMS_MAX ((int64_t)1000000000000000)

/* Reads a Hugging Face style config held in `cfg` (a JSON object inside the
 * document jc describes) into *out.  `path` names cfg inside that document
 * ("" for a config.json, "models[3].config" for a catalog entry), so errors
 * carry the full field path and its line:col.  Unknown keys are ignored.
 * Leaves out->name empty; the caller names the model.  On failure *out is
 * untouched and jc->d says why. */
pt_status pt_hf_read_json(pt_jctx *jc, const json_t *cfg, const char *path, pt_model *out);

/* Every catalog model of data/models.json, in its order, read in one parse
 * into out[0..max) (each named); *n is how many.  For callers that look
 * models up by more than the exact name (src/validate matches a runs CSV's
 * model column against the catalog). */
pt_status pt_model_catalog_read(pt_model *out, int max, int *n, pt_diag *d);

#endif
