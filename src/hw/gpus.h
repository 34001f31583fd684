/*
 * gpus.h -- what the GPU name of a runs CSV means (data/gpus.json, compiled in
 * as pt_data_gpus_json): the catalog cluster whose nodes and network a run is
 * priced on and, where it differs from that cluster's own, the catalog device.
 *
 * What it does: reads a table of rules ("training_runs" for the published-
 * runs CSV's gpu column, "time_to_train" for the time-to-train CSV's
 * accelerator and system columns), checks every rule strictly (known keys
 * only, clusters and devices that the catalogs hold, 0 < clock_scale <= 10),
 * and returns the first rule that matches: every one of its "gpu" substrings
 * appears in the name, case ignored, and its "system" substring, if it has
 * one, appears in the system; and builds the cluster a match means.
 * What it does not: resize the cluster to a run's device count or apply
 * fitted efficiencies (the caller, src/validate/validate.c, does), or guess
 * a GPU no rule names (such a row is not predicted).
 *
 * A table's rule (exactly these keys; any other key is an error):
 *   gpu          non-empty array of non-empty strings, required, e.g. ["A100", "40"]
 *   system       string, e.g. "dgx2"; absent = any system
 *   cluster      catalog cluster name, required, e.g. "dgx-a100-80g"
 *   device       catalog device name, e.g. "a100-sxm4-40g"; absent = the cluster's
 *   clock_scale  number in (0, 10], default 1, multiplies every TFLOPS figure
 *                (DGX-2H's 450 W V100s: 1.05)
 *   source       string, ignored (says why)
 */
#ifndef PT_HW_GPUS_H
#define PT_HW_GPUS_H

#include "partita.h"

typedef struct pt_gpu_match {
    char cluster[64];    /* e.g. "dgx-2-v100"                         */
    char device[48];     /* e.g. "a100-sxm4-40g"; "" = the cluster's   */
    double clock_scale;  /* e.g. 1.05; 1 when the rule gives none     */
    int rule;            /* index of the rule in its table            */
} pt_gpu_match;

/* Looks gpu (and system, which may be NULL: then only rules without
 * "system" match) up in the built-in table `table`.  *found is 1 with *out
 * filled, or 0 when no rule matches; PT_EINPUT (with d naming
 * data/gpus.json, the line, the field and the value) when the table is not
 * as above. */
pt_status pt_gpu_lookup(const char *table, const char *gpu, const char *system, pt_gpu_match *out,
                        int *found, pt_diag *d);
/* The same on a document given as text; file names it in errors. */
pt_status pt_gpu_lookup_text(const char *text, const char *file, const char *table, const char *gpu,
                             const char *system, pt_gpu_match *out, int *found, pt_diag *d);

/* The cluster a match means: the catalog cluster at its default size, its
 * device replaced by the match's (if any) and the TFLOPS scaled. */
pt_status pt_gpu_cluster(const pt_gpu_match *m, pt_cluster *out, pt_diag *d);

#endif
