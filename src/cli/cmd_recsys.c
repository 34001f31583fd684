/*
 * cmd_recsys.c -- `partita plan` for recommendation models: the options
 * that apply, the search (src/plan/shard.c), the table; JSON and the
 * TorchRec export come from src/emit/shard_out.c.
 */
#include "cli/cmd_recsys.h"
#include "base/base.h"
#include "emit/shard_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* plan's options that mean nothing for an embedding sharding plan */
static const char *const not_recsys[] = {
    "seq-len", "doc-len", "engine", "no-flash-attention", "tp-comm-overlap", "moe-dispatcher", "moe-a2a-overlap", "moe-imbalance", "moe-capacity", "mtp", "objective",
        "tokens",
    "critical-batch", "target-loss", "top", "space", "fix", "threads", "explain", "verify", "trace", "svg", NULL};

static double gib(double b) { return b / PT_GiB; }

static void devices_text(const pt_embed_job *j, const pt_shard_choice *ch, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    switch (ch->type) {
    case PT_SHARD_TW:
    case PT_SHARD_CW:
        for (int p = 0; p < ch->nparts && used + 8 < n; p++)
            used += (size_t)snprintf(buf + used, n - used, "%s%d", p ? "," : "", ch->part[p]);
        break;
    case PT_SHARD_TWRW:
    case PT_SHARD_GRID:
        for (int p = 0; p < ch->nparts && used + 24 < n; p++) {
            int64_t lo = (int64_t)ch->part[p] * j->node, hi = lo + j->node - 1;
            if (hi >= j->c->devices) hi = j->c->devices - 1;
            used += (size_t)snprintf(buf + used, n - used, "%s%lld-%lld (node %d)", p ? ", " : "", (long long)lo,
                                     (long long)hi, ch->part[p]);
        }
        break;
    default: snprintf(buf, n, "all %lld", (long long)j->c->devices);
    }
}

static void row(const char *who, const pt_shard_plan *p)
{
    const pt_embed_cost *c = &p->cost;
    printf("%-16s %12.0f %9.3f %9.3f %10.3f %9.3f %10.3f %8.1f %8.1f  %s\n", who, c->samples_per_s, 1e3 * c->step_s,
           1e3 * c->lookup_s, 1e3 * c->a2a_s, 1e3 * c->dense_s, 1e3 * c->allreduce_s, gib(c->hbm_max),
           gib(c->host_max), c->fits ? "yes" : "no");
}

static void print_table(const pt_embed_job *j, const pt_shard_plan *best, const pt_shard_plan *base)
{
    char mn[300], cn[300], dn[300];
    const pt_recsys *rs = j->rs;
    printf("plan       %s on %s: %lld x %s, global batch %.0f, %s dense\n",
           pt_str_escape(rs->g.name, mn, sizeof mn), pt_str_escape(j->c->name, cn, sizeof cn),
           (long long)j->c->devices, pt_str_escape(j->c->dev.name, dn, sizeof dn), j->batch, pt_dtype_name(j->dtype));
    printf("model      %d tables, %.1f M rows, %.1f GiB of weights; dense part %.2f M parameters\n", rs->ntables,
           (double)pt_recsys_rows(rs) / 1e6, (double)pt_recsys_embedding_bytes(rs) / PT_GiB,
           pt_recsys_dense_params(rs) / 1e6);
    printf("searched   %lld sharding plans (greedy + local search); the TorchRec-style planner partitioned %lld "
           "proposals\n\n",
           (long long)best->evaluated, (long long)base->evaluated);
    printf("%-16s %12s %9s %9s %10s %9s %10s %8s %8s  %s\n", "partitioner", "samples/s", "step ms", "lookup ms",
           "a2a ms", "dense ms", "allred ms", "HBM GiB", "host GiB", "fits");
    row("partita", best);
    row("torchrec-greedy", base);
    printf("partita's plan is %.2fx the TorchRec-style greedy plan's samples/s (HBM usable %.1f GiB, host %.1f GiB "
           "per device)\n\n", base->cost.step_s / best->cost.step_s, gib(j->hbm_cap), gib(j->host_bytes));
    printf("%-10s %11s %5s %7s  %-15s %-18s %s\n", "table", "rows", "dim", "pooling", "sharding", "kernel", "devices");
    for (int i = 0; i < rs->ntables; i++) {
        const pt_glayer *t = pt_recsys_table(rs, i);
        char dv[200], tn[200];
        devices_text(j, &best->ch[i], dv, sizeof dv);
        printf("%-10s %11lld %5lld %7g  %-15s %-18s %s\n", pt_str_escape(t->name, tn, sizeof tn),
               (long long)t->emb.rows, (long long)t->c, t->emb.pooling, pt_shard_type_name(best->ch[i].type),
               pt_emit_shard_kernel(&best->ch[i]), dv);
    }
}

int cli_plan_recsys(const cli_args *a)
{
    cli_job o;
    pt_recsys rs;
    pt_cluster c;
    pt_embed_job j;
    pt_shard_plan best, base;
    pt_diag d;
    pt_status s;
    const char *v, *export_fmt = cli_get(a, "export"), *out = cli_get(a, "out");
    int64_t gb;
    double host_gib = PT_EMBED_HOST_GIB_DEFAULT;
    char *text = NULL;
    int rc;
    for (int i = 0; not_recsys[i]; i++)
        if (cli_get(a, not_recsys[i]))
            return cli_usage("--%s does not apply to a recommendation model (%s): plan searches its embedding "
                             "sharding", not_recsys[i], a->pos[0]);
    if ((s = pt_recsys_load(a->pos[0], &rs, &d)) != PT_OK) return cli_fail(s, &d);
    memset(&o, 0, sizeof o);
    if ((rc = cli_job_options(&o, a)) != 0) goto free_rs;
    rc = 2;
    if (!(v = cli_get(a, "global-batch"))) {
        rc = cli_usage("plan: give --global-batch B (samples per step)");
        goto free_rs;
    }
    if (cli_int("--global-batch", v, 1, CLI_MAX_BATCH, &gb)) goto free_rs;
    if ((v = cli_get(a, "host-memory-GiB")) && cli_real("--host-memory-GiB", v, 0, 1e6, &host_gib)) goto free_rs;
    if (export_fmt && strcmp(export_fmt, "torchrec")) {
        rc = cli_usage("--export: a recommendation model's plan exports as torchrec, not \"%s\"", export_fmt);
        goto free_rs;
    }
    if (out && !export_fmt) {
        rc = cli_usage("--out goes with --export (the file it writes)");
        goto free_rs;
    }
    if ((s = pt_cluster_load(o.cluster ? o.cluster : "dgx-h100", &c, &d)) != PT_OK ||
        (o.gpus > 0 && (s = pt_cluster_resize(&c, o.gpus, &d)) != PT_OK)) {
        rc = cli_fail(s, &d);
        goto free_rs;
    }
    memset(&j, 0, sizeof j);
    j.rs = &rs, j.c = &c, j.dtype = o.job.dtype, j.batch = (double)gb, j.host_bytes = host_gib * PT_GiB;
    if ((s = pt_embed_job_init(&j, &d)) != PT_OK) {
        pt_strlcpy(d.field, "--global-batch", sizeof d.field);
        rc = cli_fail(s, &d);
        goto free_rs;
    }
    if ((s = pt_shard_torchrec(&j, &base, &d)) != PT_OK) {
        rc = cli_fail(s, &d);
        goto free_rs;
    }
    if ((s = pt_shard_search(&j, &base, &best, &d)) != PT_OK) {
        rc = cli_fail(s, &d);
        goto free_base;
    }
    if (!best.found) {
        fprintf(stderr, "partita: no sharding of %s's tables fits on %lld x %s (HBM %.1f GiB usable, host %.1f GiB "
                "per device); the nearest needs %.1f GiB HBM and %.1f GiB host on its fullest devices\n",
                rs.g.name, (long long)c.devices, c.dev.name, gib(j.hbm_cap), host_gib, gib(best.cost.hbm_max),
                gib(best.cost.host_max));
        rc = 1;
    } else if (export_fmt) {
        if ((s = pt_emit_export_torchrec(&j, &best, &base, &text, &d)) != PT_OK) rc = cli_fail(s, &d);
        else rc = cli_output(out, text);
    } else if (cli_get(a, "json")) {
        if ((s = pt_emit_shard_json(&j, &best, &base, &text, &d)) != PT_OK) rc = cli_fail(s, &d);
        else rc = cli_output(NULL, text);
    } else {
        print_table(&j, &best, &base);
        rc = 0;
    }
    free(text);
    pt_shard_plan_free(&best);
free_base:
    pt_shard_plan_free(&base);
free_rs:
    pt_recsys_free(&rs);
    return rc;
}
