/*
 * ttt.c -- statistical efficiency, MLPerf's evaluations and the time-to-train
 * formula (see ttt.h).  A step of a layer graph is priced by
 * src/cost/graph_cost.c, evaluations' forward passes too.
 */
#include "goal/ttt.h"
#include "base/base.h"
#include "cost/graph_cost.h"

#include <assert.h>
#include <math.h>
#include <string.h>

pt_status pt_statef_fit(const double *batch, const double *epochs, int n, pt_statef *out, pt_diag *d)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, a, b, mx, my, den, res = 0, s2;
    memset(out, 0, sizeof *out);
    if (n < 2) return pt_diag_set(d, NULL, "batch", "", "fitting needs at least two (batch, steps) points");
    for (int i = 0; i < n; i++) {
        if (!(batch[i] > 0) || !(epochs[i] > 0))
            return pt_diag_set(d, NULL, "batch", "", "point %d: batch and epochs must be > 0", i + 1);
        sx += batch[i], sy += epochs[i];
    }
    mx = sx / n, my = sy / n;
    for (int i = 0; i < n; i++) {
        sxx += (batch[i] - mx) * (batch[i] - mx);
        sxy += (batch[i] - mx) * (epochs[i] - my);
    }
    if (sxx <= 0) return pt_diag_set(d, NULL, "batch", "", "fitting needs at least two different batch sizes");
    b = sxy / sxx;      /* slope: e_min / b_noise */
    a = my - b * mx;    /* intercept: e_min      */
    for (int i = 0; i < n; i++) {
        double r = epochs[i] - (a + b * batch[i]);
        res += r * r;
    }
    s2 = n > 2 ? res / (n - 2) : 0;
    den = sxx;
    out->n = n;
    out->e_min = a;
    out->b_noise = b > 0 ? a / b : INFINITY;
    {
        double se_b = sqrt(s2 / den), se_a = sqrt(s2 * (1.0 / n + mx * mx / den));
        out->e_min_se = se_a;
        /* b_noise = a/b: first-order error propagation */
        out->b_noise_se = b > 0 ? out->b_noise * sqrt((se_a / a) * (se_a / a) + (se_b / b) * (se_b / b)) : INFINITY;
    }
    if (!(a > 0)) return pt_diag_set(d, NULL, "epochs", "", "the fit gives no positive minimum epochs");
    return PT_OK;
}

double pt_statef_epochs(const pt_statef *s, double global_batch)
{
    return s->e_min * (1.0 + global_batch / s->b_noise);
}

void pt_statef_predict(const double *batch, int n, double e_min, double b_noise, double *epochs)
{
    pt_statef s = {.e_min = e_min, .b_noise = b_noise};
    assert(n >= 0 && (n == 0 || (batch && epochs)));
    for (int i = 0; i < n; i++) epochs[i] = pt_statef_epochs(&s, batch[i]);
}

void pt_statef_residuals(const double *batch, const double *epochs, int n, double e_min, double b_noise,
                         double *resid)
{
    assert(n >= 0 && (n == 0 || (batch && epochs && resid)));
    pt_statef_predict(batch, n, e_min, b_noise, resid);
    for (int i = 0; i < n; i++) resid[i] = log(resid[i] / epochs[i]);
}

/* Statistical efficiency by recipe.  Each (e_min, b_noise) is pt_statef_fit
 * on the MLPerf Training V100 rows of data/validation/time_to_train_runs.csv
 * on an even CSV line (odd lines held out), grouped by quality target and
 * optimizer -- except ResNet-50's later recipes, from MLPerf's reference
 * convergence points (v1.0+) and one A100 run (v0.7), as each says.  A
 * recipe is a target, an optimizer and its hyper-parameters, and the epochs
 * a batch needs belong to the recipe, not to the network alone.  (TPU rows are left out: Google's recipes differ,
 * e.g. GNMT v0.5 reached BLEU 21.8 in 2 epochs at B = 2048 on TPU where
 * NVIDIA's took 3 at B = 1024, which no single E(B) curve can fit.)  Batches
 * are in samples; transformer-big's are sentence pairs, tokens x 0.89 / 28
 * (the batch fill, see src/validate/validate.c).  The fits' standard errors are
 * kept: with 3-5 points per recipe they are wide. */
static const struct {
    const char *graph, *target, *opt, *round;
    const char *name; /* the recipe and where its constants come from */
    pt_statef s;
} statef_tab[] = {
    /* MLPerf v0.6, LARS (You et al. 2017) to 75.9% top-1; lines 14, 20, 24:
     * B = 3328, 33280, 59904 images -> 60, 72, 90 epochs.  The v0.6 recipe
     * (step decay, no label smoothing); the later rounds' recipes follow. */
    {"resnet-50", "75.9", "lars", "v0.6",
     "ResNet-50 LARS to 75.9%, MLPerf v0.6 (3 V100 runs)", {57.03, 108094.0, 3.14, 17271.0, 3}},
    /* MLPerf v0.7 (NVIDIA's MXNet recipe: LARS, "pow2" polynomial decay,
     * label smoothing 0.1, 5 warm-up epochs, evaluation every 4 epochs from
     * its command line): one point, the v0.7 DGX A100 run on an even line
     * of time_to_train_runs.csv (B = 3264 -> 41 epochs,
     * training_results_v0.7 NVIDIA/results/dgxa100_ngc20.06_mxnet/resnet/
     * result_0.txt: run_stop at epoch_num 41).  B_noise is not measured in
     * v0.7; it is the v1.0+ reference's below (same optimizer, same data),
     * and e_min = 41 / (1 + 3264 / 48932).  The same-batch 2-node run
     * (the odd line after it) is held out. */
    {"resnet-50", "75.9", "lars", "v0.7",
     "ResNet-50 LARS to 75.9%, MLPerf v0.7 (1 A100 run, B_noise of v1.0+)", {38.44, 48932.0, 0, 0, 1}},
    /* MLPerf v1.0 and later: the reference convergence points every closed
     * submission is checked against (mlcommons/logging,
     * mlperf_logging/rcp_checker/training_4.0.0/rcps_resnet.json, "Epochs
     * to converge" of 10-28 seeded runs per batch, LARS, NVIDIA's and
     * Google's hyper-parameters at each batch).  Their means at B = 1632,
     * 3264, 4096, 8192, 13056, 32768, 49152, 58880, 65536, 67840 are 35.0,
     * 35.2, 40.0, 42.0, 45.4, 56.0, 68.0, 79.9, 84.5, 85.9 epochs;
     * pt_statef_fit on the 1st, 3rd, ... (1632, 4096, 13056, 49152, 65536)
     * gives e_min 35.32 +- 1.53, b_noise 48932 +- 3507, mean |error| 3.3%
     * on them and 3.7% on the other five, held out (worst +7.0%, B = 3264:
     * 37.7 predicted against 35.2).  This is also the recipe of any later
     * round's row. */
    {"resnet-50", "75.9", "lars", NULL,
     "ResNet-50 LARS to 75.9%, MLPerf v1.0+ (reference convergence points)", {35.32, 48932.0, 1.53, 3507.0, 5}},
    /* MLPerf v0.5, momentum SGD to 74.9%; lines 4, 6, 12: B = 2048, 4096,
     * 16640 -> 62, 64, 82 epochs.  The critical batch is 2.6x smaller than
     * with LARS: the v0.5 512-640-GPU runs needed 82 epochs, not 69. */
    {"resnet-50", "74.9", "sgd", NULL,
     "ResNet-50 momentum SGD to 74.9%, MLPerf v0.5 (3 V100 runs)", {58.75, 42170.0, 0.54, 1694.0, 3}},
    /* MLPerf v0.6 GNMT to sacreBLEU 24.0, Adam; lines 32, 34, 38, 40:
     * B = 2048, 2048, 8192, 12288 sentence pairs -> 4, 4, 6, 7 epochs */
    {"gnmt", "24.0", NULL, NULL,
     "GNMT Adam to BLEU 24.0, MLPerf v0.6+ (4 V100 runs)", {3.417, 11450.0, 0.10, 623.0, 4}},
    /* MLPerf v0.5 GNMT to BLEU 21.8: every V100 row has B = 1024 (3 epochs),
     * so B_noise cannot be fitted; it is the BLEU 24.0 recipe's, an upper
     * bound (the noise scale grows as the loss falls, McCandlish et al. 2018
     * sec. 4), and e_min = 3 / (1 + 1024 / 11450). */
    {"gnmt", "21.8", NULL, NULL,
     "GNMT Adam to BLEU 21.8, MLPerf v0.5 (1 batch, B_noise of 24.0)", {2.754, 11450.0, 0, 0, 2}},
    /* MLPerf Transformer-big to BLEU 25.0, Adam, two recipes.  v0.6 (lr
     * 1.976e-3 at 8 GPUs, warm-up 1000, betas 0.9/0.98 in the logged
     * command lines); lines 46, 48, 52, 54: B = 2604, 4166, 19529, 19529
     * pairs -> 3, 3, 5, 5 epochs. */
    {"transformer-big", "25.0", NULL, "v0.6",
     "Transformer-big Adam to BLEU 25.0, MLPerf v0.6+ (4 V100 runs)", {2.587, 20982.0, 0.084, 1221.0, 4}},
    /* v0.5 (lr 6.4e-4, warm-up 3000, betas 0.9/0.997) needed 5 epochs at
     * 163,840 tokens where v0.6 needed 3 at 131,072.  It has one even line
     * (44: B = 5208 -> 5 epochs), so only B_noise is fitted, with E_min,
     * the small-batch limit, taken as the model's and the data's (v0.6's):
     * B_noise = 5208 / (5 / 2.587 - 1).  That E_min carries over is an
     * assumption, not a measurement. */
    {"transformer-big", "25.0", NULL, "v0.5",
     "Transformer-big Adam to BLEU 25.0, MLPerf v0.5 (1 run, E_min of v0.6)", {2.587, 5585.0, 0, 0, 1}},
    /* MLPerf v0.6 SSD-ResNet34 to COCO mAP 0.23 (NVIDIA's recipe: momentum
     * SGD, warm-up, the reference's evaluations).  A run stops at the
     * evaluation that reaches the target, and every v0.6 run evaluates at
     * the reference's iterations 120k, 160k, 180k, ... of batch 32
     * (run_and_time.sh --evaluation), epochs 32.75, 43.66, 49.12, 54.58,
     * 60.03, ... of COCO's 117,266 images: the logged epoch_num 50 is
     * 49.12 epochs trained, 61 is 60.03.  Fitted on those on the even
     * lines, 58, 60, 62, 66, 68: B = 960, 896, 1536, 1680, 1680 -> 49.12,
     * 49.12, 60.03, 60.03, 60.03 (lines 59 and 65 held out). */
    {"ssd-resnet34", "0.23", NULL, NULL,
     "SSD-ResNet34 SGD to mAP 0.23, MLPerf v0.6 (5 V100 runs)", {35.27, 2336.0, 1.99, 257.0, 5}},
    /* Inception-v3 (no MLPerf rows): Szegedy et al. 2016 ("Rethinking the
     * Inception Architecture", sec. 8) trained 100 epochs at 50 replicas x
     * 32 = 1600 images, a fixed budget: E(1600) = 100 is an upper bound on
     * the epochs to their accuracy.  B_noise is not measured for it; it is
     * the ImageNet momentum-SGD recipe's above (same data set, same
     * optimizer family; McCandlish et al. 2018 put ImageNet's critical batch
     * at "tens of thousands").  e_min = 100 / (1 + 1600 / 42170). */
    {"inception-v3", "", NULL, NULL,
     "Inception-v3, Szegedy et al. 2016's budget (B_noise of ResNet-50 SGD)", {96.34, 42170.0, 0, 0, 1}},
    /* BigLSTM (no MLPerf rows), a bound and an estimate: the f-lm README
     * (github.com/okuchaiev/f-lm, Kuchaiev & Ginsburg 2017) trains it on one
     * DGX-1 at 128 sequences per GPU (B = 1024 sequences of 20 words) for
     * one week (max_time=604800) at ~20.3K words/s: 1.23e10 words, 15.4
     * epochs of the 0.8 G-word training set -- an upper bound on the epochs
     * to the perplexity that week reaches.  B_noise is estimated, not
     * measured: Kaplan et al. 2020 (eq. 1.4) give the critical batch of a
     * language model as B* / L^(1/0.21), B* = 2e8 tokens; at perplexity 30
     * (Jozefowicz et al. 2016's best single model, L = ln 30 = 3.40 nats)
     * that is 5.9e5 tokens = 29,400 sequences of 20.  Kaplan's fit is for
     * Transformers on WebText2, so this is an order of magnitude.
     * e_min = 15.37 / (1 + 1024 / 29400). */
    {"biglstm", "", NULL, NULL,
     "BigLSTM, f-lm's one-week budget (B_noise from Kaplan et al. 2020)", {14.85, 29400.0, 0, 0, 1}},
    /* 3D U-Net on MSD BraTS (src/workload/unet3d.h), both constants
     * assumed, not measured: a hyper-parameter trial's recipe is tuned at
     * the batch it runs, 2 volumes per step as nnU-Net trains 3D BraTS
     * (Isensee et al., Nature Methods 18, 2021), and kept when the trial
     * is run data-parallel (a search does not retune each trial's learning
     * rate for a 16x larger batch), so samples beyond about that batch
     * add little per step: B_noise = 2 volumes.  E_min = 250 epochs of the
     * 484 volumes (nnU-Net: 1000 epochs of 250 steps of 2).  With the
     * learning rate retuned per batch B_noise is far larger: MLPerf's
     * 3D U-Net reference convergence points (KiTS19, rcps_unet3d.json,
     * means of 2,000-2,500 epochs of 168 volumes at B = 28..84) fit
     * B_noise ~ 210; `partita trials` prints the speed-up at other
     * values, and --stat-eff takes measured ones. */
    {"unet3d-brats", "", NULL, NULL,
     "3D U-Net on BraTS, assumed: recipe tuned at 2 volumes per step (B_noise 2), 250 epochs",
     {250.0, 2.0, 0, 0, 0}},
};

/* The recipe of a row: the first entry of the graph that matches target,
 * optimizer and round; failing that, the first that matches target and round
 * whatever the optimizer (a row that names none, or one the table does not
 * know); failing that, the graph's first entry.  -1: no entry for graph. */
static int statef_lookup(const char *graph, const char *target, const char *optimizer, const char *round)
{
    int first = -1;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sizeof statef_tab / sizeof *statef_tab; i++) {
            if (strcmp(statef_tab[i].graph, graph)) continue;
            if (first < 0) first = (int)i;
            if (target && statef_tab[i].target[0] && !strstr(target, statef_tab[i].target)) continue;
            if (pass == 0 && optimizer && optimizer[0] && statef_tab[i].opt && strcmp(statef_tab[i].opt, optimizer))
                continue;
            if (round && round[0] && statef_tab[i].round && strcmp(statef_tab[i].round, round)) continue;
            return (int)i;
        }
    return first;
}

int pt_statef_builtin_for(const char *graph, const char *target, const char *optimizer, const char *round,
                          pt_statef *out)
{
    int i = statef_lookup(graph, target, optimizer, round);
    memset(out, 0, sizeof *out);
    if (i < 0) return 0;
    *out = statef_tab[i].s;
    return 1;
}

const char *pt_statef_recipe(const char *graph, const char *target, const char *optimizer, const char *round)
{
    int i = statef_lookup(graph, target, optimizer, round);
    return i < 0 ? NULL : statef_tab[i].name;
}

int pt_statef_builtin(const char *graph, pt_statef *out)
{
    return pt_statef_builtin_for(graph, NULL, NULL, NULL, out);
}

/* MLPerf Training evaluations, from the NVIDIA submission logs
 * (mlcommons/training_results_v0.5 and _v0.6):
 * - ResNet-50: the 50,000 ImageNet validation images ("eval_size: 50000")
 *   every 4 epochs (v0.6 config_*.sh EVAL_PERIOD="4"; the v0.5 logs evaluate
 *   at epochs 1, 5, 9, ...); on 640 GPUs, 78 images each, eval_start to
 *   eval_stop is 0.17-0.25 s (v0.5 dgx1_multi resnet result_1.txt): 0.2 s.
 * - GNMT: newstest2014, 3003 sentences, every epoch, beam 5 (v0.6 run
 *   arguments beam_size=5); 0.40 s on 256 GPUs with one 16-sentence batch
 *   each (v0.6 dgx2h_n16 gnmt result_0.txt): 0.4 s.
 * - Transformer-big: newstest2014, 3003 sentences, every epoch, beam 4
 *   ("Generate test with beam=4"); 1.35-1.42 s on 480 GPUs with 6-8
 *   sentences each (v0.6 dgx1_n60 transformer result_0.txt): 1.4 s.
 * Every figure is read from the log of a run on an even line of
 * time_to_train_runs.csv (12, 38, 54), the half the constants are fitted
 * on.  Beam search decodes token by token, so on few devices it is slower than
 * its FLOPs (6.4 s on 8 GPUs, v0.6 dgx1 transformer); that latency is not
 * modelled. */
#define SSD_EVAL_FIXED_S 3.8
#define SSD_EVAL_HOST_S 0.0082
/* From v0.7 NVIDIA's SSD evaluates beside the next epoch (--async-val in the
 * MXNet runs; the v0.7 PyTorch run logs eval_start, eval_accuracy and
 * eval_stop at one time, after the next epoch began), at epochs 40, 50, 55,
 * 60, ... (v0.7: val_epochs=[40, 50, 55, ...]) or every 5 (v1.0:
 * val_interval=5); only the last is on the clock, and its eval_start to
 * eval_stop took 2.46, 2.22, 2.26 and 0.97 s in the v0.7 and v1.0 DGX A100
 * logs of lines 103-106 (time_to_train_runs.csv): 2.2 s, the median,
 * with the boxes decoded on the GPU (no per-image host term). */
#define SSD_ASYNC_EVAL_S 2.2
int pt_ttt_eval_builtin_for(const char *graph, const char *round, pt_ttt_eval *out)
{
    int later = round && round[0] && strcmp(round, "v0.5") && strcmp(round, "v0.6");
    if (!pt_ttt_eval_builtin(graph, out)) return 0;
    if (later && !strcmp(graph, "ssd-resnet34")) {
        int v07 = !strcmp(round, "v0.7");
        memset(out, 0, sizeof *out);
        out->samples = 5000.0, out->passes = 1.0, out->fixed_s = SSD_ASYNC_EVAL_S, out->async = 1;
        out->every_epochs = 5.0;
        if (v07) out->nat = 2, out->at[0] = 40.0, out->at[1] = 50.0;
    }
    return 1;
}

int pt_ttt_eval_builtin(const char *graph, pt_ttt_eval *out)
{
    static const struct { const char *name; pt_ttt_eval e; } tab[] = {
        {"resnet-50", {.samples = 50000.0, .every_epochs = 4.0, .passes = 1.0, .fixed_s = 0.2}},
        {"gnmt", {.samples = 3003.0, .every_epochs = 1.0, .passes = 5.0, .fixed_s = 0.4}},
        {"transformer-big", {.samples = 3003.0, .every_epochs = 1.0, .passes = 4.0, .fixed_s = 1.4}},
        {"ssd-resnet34", {.samples = 5000.0, .every_epochs = 20000.0 * 32.0 / 117266.0, .passes = 1.0,
                          .fixed_s = SSD_EVAL_FIXED_S, .host_s = SSD_EVAL_HOST_S, .nat = 2,
                          .at = {120000.0 * 32.0 / 117266.0, 160000.0 * 32.0 / 117266.0}}},
    };
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
        if (!strcmp(tab[i].name, graph)) {
            *out = tab[i].e;
            return 1;
        }
    return 0;
}

double pt_ttt_eval_s(const pt_graph *g, const pt_cluster *c, pt_dtype dtype, const pt_ttt_eval *e)
{
    double per_dev, t = 0;
    assert(g && c && e && c->devices > 0);
    if (!(e->samples > 0)) return 0;
    per_dev = ceil(e->samples / (double)c->devices);
    for (int i = 0; i < g->n; i++)
        t += pt_glayer_fwd_s(&g->l[i], &c->dev, dtype, per_dev * (e->passes > 0 ? e->passes : 1.0));
    return e->fixed_s + per_dev * e->host_s + t;
}

int pt_ttt_evals(const pt_ttt_eval *e, double epochs)
{
    int n = 0;
    double last = 0;
    if (!(e->samples > 0) || !(e->every_epochs > 0) || !(epochs > 0)) return 0;
    assert(e->nat >= 0 && e->nat <= PT_TTT_EVAL_AT_MAX);
    for (int i = 0; i < e->nat; i++) {
        n++, last = e->at[i];
        if (last >= epochs - 1e-9) return n;
    }
    return n + (int)ceil((epochs - last) / e->every_epochs - 1e-9);
}

int pt_ttt_evals_on_clock(const pt_ttt_eval *e, double epochs)
{
    int n = pt_ttt_evals(e, epochs);
    return e->async && n > 1 ? 1 : n;
}

void pt_goal_time_to_train(double step_s, double samples_per_step, const pt_statef *se, double samples_per_epoch,
                           const pt_goal_overheads *ov, pt_goal_ttt *out)
{
    assert(se && out && samples_per_step > 0);
    out->epochs = pt_statef_epochs(se, samples_per_step);
    out->samples = out->epochs * samples_per_epoch;
    out->steps = out->samples / samples_per_step;
    out->time_s = out->steps * step_s;
    if (ov)
        out->time_s += ov->fixed_s + out->epochs * ov->per_epoch_s +
                       (ov->eval ? pt_ttt_evals_on_clock(ov->eval, out->epochs) * ov->eval_s : 0.0);
}

void pt_goal_lm_time_to_train(const pt_goal_lm *lm, const pt_plan *p, const pt_job *job, pt_goal_ttt *out)
{
    pt_statef se = {.e_min = 1.0, .b_noise = lm->bcrit_tokens};
    double tokens_per_step = (double)p->st.gbs * (double)job->seq_len;
    pt_goal_time_to_train(p->cost.step_time_s, tokens_per_step, &se, lm->min_tokens, NULL, out);
}

double pt_goal_lm_score(const pt_plan *p, const pt_job *job, const void *arg)
{
    const pt_goal_lm *lm = arg;
    pt_goal_ttt t;
    pt_goal_lm_time_to_train(lm, p, job, &t);
    return lm->min_tokens / t.time_s;
}
