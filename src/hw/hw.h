/*
 * hw.h -- internal declarations of the hardware module (src/hw).
 *
 * What it does: shares the one reader of a device object between the built-in
 * device catalog (device.c, data/devices.json) and inline devices in cluster
 * files (cluster.c, SPEC section 2), and fixes the defaults both use.
 * What it does not: anything public; the API is in include/partita.h.
 *
 * A device object (exactly these keys; any other key is an error):
 *   name             string, required, e.g. "a100-sxm4-80g"
 *   memory_GiB       > 0, required, e.g. 80
 *   memory_bw_GBps   > 0, required, e.g. 2039 (10^9 B/s)
 *   tflops           object, required: bf16 (> 0, required), fp16, fp8, fp4,
 *                    tf32, fp32 (>= 0; missing = 0 = "none"), dense, 10^12 FLOP/s
 *   host_bw_GBps     > 0, default PT_DEV_DEFAULT_HOST_BW_GBPS
 *   gemm_eff         (0, 1], default PT_DEV_DEFAULT_GEMM_EFF
 *   gemm_half_GFLOP  >= 0,   default PT_DEV_DEFAULT_GEMM_HALF_GFLOP
 *   attn_eff         (0, 1], default PT_DEV_DEFAULT_ATTN_EFF
 *   mem_eff          (0, 1], default PT_DEV_DEFAULT_MEM_EFF
 *   kernel_us        >= 0,   default PT_DEV_DEFAULT_KERNEL_US
 *   fp8_gemm_ratio   (0, 1], optional: fp8 GEMMs reach gemm_eff * this of
 *                    the fp8 peak (src/cost/roofline.c); missing = 0 = not
 *                    measured, taken as 1
 *   best_published_mfu (0, 1], optional: the best model FLOPs utilisation
 *                    ever published for the device (its source in "source");
 *                    eval and plan flag predictions above it
 *   generation       name, e.g. "hopper": the architecture; default ""
 *   fitted_on        name, e.g. "ampere": the generation whose measured runs
 *                    fitted the efficiency constants, or "none" (the default:
 *                    defaults, microbenchmarks or another generation's fit);
 *                    eval and plan print a note when it is not `generation`
 *   source           string, ignored (says where the numbers come from)
 * Every number is also at least 1e-6 and at most 1e9 (0 stays allowed where it
 * is), so the cost model's products stay finite.
 *
 * Invariants of a device read here: every field above is set and in range, so
 * cost code may divide by memory_bw_GBps, host_bw_GBps, tflops_bf16, gemm_eff,
 * attn_eff and mem_eff without checking.
 */
#ifndef PT_HW_HW_H
#define PT_HW_HW_H

#include "base/base.h"

/* Defaults of the optional device keys, used when a device object leaves them
 * out (every built-in device without a fitted value, and inline devices).
 * They are first guesses, to be refitted against measured runs:
 *   - host_bw: PCIe gen4 x16 is 32 GB/s per direction; ~25 is what pinned
 *     copies reach;
 *   - gemm_eff: large bf16 GEMMs on A100/H100 reach 70-80% of dense peak in
 *     cuBLAS; Calculon's a100_80g uses 0.9 at >= 16 GFLOP, 0.6 at 1 GFLOP;
 *   - gemm_half_GFLOP: a GEMM of this many GFLOP reaches half of gemm_eff;
 *   - attn_eff: FlashAttention-2 forward+backward reaches ~50% of peak on A100;
 *   - mem_eff: element-wise kernels reach ~70% of HBM bandwidth (Calculon's
 *     HBM efficiency is 0.6-0.75 for 1-10 MB transfers);
 *   - kernel_us: launch plus tail cost of one kernel, a few microseconds. */
#define PT_DEV_DEFAULT_HOST_BW_GBPS 25.0
#define PT_DEV_DEFAULT_GEMM_EFF 0.75
#define PT_DEV_DEFAULT_GEMM_HALF_GFLOP 0.5
#define PT_DEV_DEFAULT_ATTN_EFF 0.5
#define PT_DEV_DEFAULT_MEM_EFF 0.7
#define PT_DEV_DEFAULT_KERNEL_US 4.0

/* Reads the device object `obj` of the document jc describes into *out.
 * `path` names obj inside that document ("device" in a cluster file,
 * "devices[3]" in the catalog), so errors carry the full field path
 * ("device.tflops.bf16") and its line:col.  On failure *out is untouched and
 * jc->d says why (PT_EINPUT). */
pt_status pt_device_from_json(pt_jctx *jc, const json_t *obj, const char *path, pt_device *out);

/* Every rate, size and time a device or cluster file gives is within
 * [PT_HW_NUM_LO, PT_HW_NUM_HI] (or 0 where 0 is allowed): beyond, the cost
 * model's products overflow to infinity and inf - inf made step times NaN
 * (gemm_half_GFLOP 1e300, found by fuzz_cluster); no real device or link is a
 * billionth or a billion times the catalog's. */
#define PT_HW_NUM_LO 1e-6
#define PT_HW_NUM_HI 1e9

typedef enum pt_hw_range {
    PT_HW_POS,     /* > 0                  */
    PT_HW_NONNEG,  /* >= 0                 */
    PT_HW_FRAC     /* a fraction in (0, 1] */
} pt_hw_range;

/* obj[key] (at path, for messages) as a number in range r, the device and
 * cluster readers' one number check.  *out keeps its value (the default) when
 * the key is absent and not required. */
pt_status pt_hw_num_in(pt_jctx *jc, const json_t *obj, const char *path, const char *key,
                       int required, pt_hw_range r, double *out);

/* Reads one catalog object (at path, for messages) into out. */
typedef pt_status (*pt_hw_entry_reader)(pt_jctx *jc, const json_t *obj, const char *path, void *out);

/* The entry named `name` of a built-in catalog: parses its text (file names
 * it in messages), finds the object of the array `key` ("devices",
 * "clusters") whose "name" is name and reads it with read(jc, obj,
 * "key[i]", out).  A name the catalog lacks is PT_EINPUT, field `what`
 * ("device", "cluster"), pointing at `partita <what>s`. */
pt_status pt_hw_catalog_entry(const char *text, const char *file, const char *key, const char *what,
                              const char *name, pt_hw_entry_reader read, void *out, pt_diag *d);

#endif
