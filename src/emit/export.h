/*
 * export.h -- a priced plan as the launch configuration of a real engine:
 * Megatron-LM command-line arguments, a DeepSpeed JSON config, a torchtitan
 * job config (legacy TOML).  Each engine's divisibility rules are checked on
 * what is written; a plan the engine cannot express is refused with the
 * reason (PT_EINPUT, the diag names the strategy key).
 * Sources: docs/reference/engines-and-formats.md sections a-c (Megatron
 * validate_args and flag names, DeepSpeed config.py/zero config, torchtitan
 * job_config.py / parallel_dims.py).
 */
#ifndef PT_EXPORT_H
#define PT_EXPORT_H

#include <stddef.h>
#include "partita.h"

typedef enum pt_export_fmt { PT_EXPORT_MEGATRON = 0, PT_EXPORT_DEEPSPEED, PT_EXPORT_TORCHTITAN } pt_export_fmt;

/* "megatron" | "deepspeed" | "torchtitan" -> fmt; returns 0 if unknown. */
int pt_export_parse_fmt(const char *name, pt_export_fmt *out);

/* Writes the configuration into a malloc'd NUL-terminated string (*out, the
 * caller frees).  The model's shape flags come from m; devices and the
 * interconnect from c; sequence length, precision from job. */
pt_status pt_emit_export(pt_export_fmt fmt, const pt_model *m, const pt_cluster *c,
                         const pt_job *job, const pt_strategy *st, char **out, pt_diag *d);

/* The same for a priced plan, with what Partita predicts for it: note gets
 * one line (no newline, no comment marker), "partita: predicted step 15.514 s
 * (analytic model), peak memory 61.2 of 80.0 GiB per device, for tp=8 ...";
 * with sim_peak_bytes > 0 the step k->step_time_s and that peak are the step
 * simulator's (a plan re-ranked by simulation) and the note says so;
 * the Megatron arguments and the torchtitan TOML start with it as a "# "
 * comment line; DeepSpeed's JSON, whose parser takes no comments and whose
 * config keys are checked, is written as pt_emit_export writes it and the
 * caller prints note (on stderr). */
pt_status pt_emit_export_priced(pt_export_fmt fmt, const pt_model *m, const pt_cluster *c,
                                const pt_job *job, const pt_strategy *st, const pt_cost *k,
                                int64_t sim_peak_bytes, char **out, char *note, size_t note_n, pt_diag *d);

#endif
