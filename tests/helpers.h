/*
 * helpers.h -- the scaffolding the unit tests share (tests/helpers.c, linked
 * into every tests/test_*.c binary by the Makefile).
 *
 * What it holds: the inputs most tests start from (a built-in model, a
 * built-in cluster resized to n devices, a job, a strategy parsed and
 * resolved, a search's options), the numeric checks with a tolerance that
 * say what was compared, reading a file whole, and the one golden-file
 * comparison of the export and timeline tests.
 *
 * What it does not hold: anything a single test file needs alone (its fixture
 * tables, its own refusal checks), and any expected value -- those stay next
 * to the test that says where they come from.
 *
 * Every helper that checks something fails the running cmocka test when the
 * check does not hold, with a message naming what was checked; the macros
 * below pass the caller's file and line, so the failure points at the test,
 * not here.  Include this file instead of cmocka.h: it brings the headers
 * cmocka needs, in the order it needs them.
 */
#ifndef PT_TESTS_HELPERS_H
#define PT_TESTS_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "partita.h"
#include "plan/search.h"

/* ---- inputs --------------------------------------------------------------------- */

/* The catalog model `name` (e.g. "llama3-8b"); fails the test if unknown. */
#define th_model(name) th_model_at(__FILE__, __LINE__, (name))
pt_model th_model_at(const char *file, int line, const char *name);

/* The catalog cluster `name` (e.g. "dgx-h100") resized to n devices (as
 * --gpus does); fails the test if either step is refused. */
#define th_cluster(name, n) th_cluster_at(__FILE__, __LINE__, (name), (n))
pt_cluster th_cluster_at(const char *file, int line, const char *name, int64_t n);

/* A job of global_batch sequences of seq_len tokens, BF16, Megatron, MoE
 * defaults; flash: 1 with the fused attention kernel.  Plain value, no check. */
pt_job th_job(int64_t seq_len, int64_t global_batch, int flash);

/* text (e.g. "tp=8 pp=8 recompute=full") parsed and resolved for m, c, j; fails
 * the test, naming the text and the step, unless both succeed. */
#define th_strategy(text, m, c, j) th_strategy_at(__FILE__, __LINE__, (text), (m), (c), (j))
pt_strategy th_strategy_at(const char *file, int line, const char *text, const pt_model *m,
                           const pt_cluster *c, const pt_job *j);

/* Search options over the whole default space keeping the top k, with
 * `threads` threads, memory pruning on and the global batch fixed at gbs. */
pt_search_opts th_search_opts(int k, int threads, int64_t gbs);

/* ---- numbers -------------------------------------------------------------------- */

/* |got - want| <= rel * |want|; `what` names the quantity in the failure. */
#define th_near_rel(got, want, rel, what) \
    th_near_rel_at(__FILE__, __LINE__, (got), (want), (rel), (what))
void th_near_rel_at(const char *file, int line, double got, double want, double rel,
                    const char *what);

/* |got - want| <= tol, in double (cmocka's assert_float_equal rounds to float). */
#define th_near_abs(got, want, tol, what) \
    th_near_abs_at(__FILE__, __LINE__, (got), (want), (tol), (what))
void th_near_abs_at(const char *file, int line, double got, double want, double tol,
                    const char *what);

/* ---- files ---------------------------------------------------------------------- */

/* The whole file at path, NUL-terminated, its length in *n; NULL when it
 * cannot be read.  The caller frees it. */
char *th_slurp(const char *path, size_t *n);

/* Line `no` (1-based) of s into buf (cut to n - 1 bytes), or "<end of text>"
 * when s has fewer lines. */
void th_line_of(const char *s, int no, char *buf, size_t n);

/* Compares text with the golden file DIR/NAME (dir ends with '/', relative to
 * the repository root, where tests run), or writes text there instead when
 * the environment has UPDATE_GOLDEN=1.  text must end with a newline.  On a
 * mismatch prints the first differing line of each, the whole text, and
 * `update`, which says how to rewrite the golden when the change is meant. */
#define th_golden(dir, name, text, update) \
    th_golden_at(__FILE__, __LINE__, (dir), (name), (text), (update))
void th_golden_at(const char *file, int line, const char *dir, const char *name,
                  const char *text, const char *update);

#endif
