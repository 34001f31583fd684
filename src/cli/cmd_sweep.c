/*
 * cmd_sweep.c -- `partita sweep GRID.json [--json] [--report FILE.html]`
 * (SPEC section 11): every question of a grid -- plan or serving questions
 * -- answered in grid order (src/goal/sweep.c), written as a table, JSON or
 * a report (src/emit/sweep_out.c).
 *
 * MPI: built with OpenMPI's mpicc found (the Makefile defines PT_HAVE_MPI)
 * and run under `mpirun -np K`, the K ranks split the questions by estimated
 * cost (pt_sweep_split: longest first to the least loaded rank; every rank
 * computes the same split, so nothing is sent to decide it), each answers
 * its share, and ranks 1..K-1 send their answers -- plain structs, as bytes,
 * in chunks -- to rank 0, which puts them in grid order and writes the
 * output.  The output is built from the answers alone, so any K gives the
 * same bytes.  Without mpirun (no OMPI_COMM_WORLD_SIZE, PMIX_RANK or
 * PMI_RANK in the environment) MPI is not initialised at all and the same
 * binary runs the sweep on one process, as does a build without MPI.
 */
#include "cli/cli.h"
#include "base/base.h"
#include "emit/sweep_out.h"
#include "goal/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef PT_HAVE_MPI
#include <mpi.h>
#endif

static const cli_opt opts[] = {
    {"json", NULL, "print JSON ({\"questions\", \"answers\": [...]} in grid order) instead of the table"},
    {"report", "FILE.html", "also write a self-contained HTML report with the Pareto front of time (serve: TTFT) against dollars"},
    {"threads", "T", "search threads per plan question, 1..1024 (default: the CPUs over the MPI ranks; the answer is the same; serving questions search on one)"},
    {NULL, NULL, NULL}};

const cli_cmd cli_cmd_sweep = {
    "sweep", "GRID.json [OPTION]...",
    "answer a grid of plan or serve questions (models x clusters x GPUs x batches or loads x objectives)",
    "GRID.json: {\"command\": \"plan\", \"models\": [...], \"clusters\": [...], \"gpus\": [...],\n"
    "\"global_batch\": [...], \"seq_len\": [...], \"objective\": [\"step\", \"cost\"], \"dtype\": \"bf16\"}\n"
    "or {\"command\": \"serve\", \"models\", \"clusters\", \"gpus\", \"isl\": [...], \"osl\": [...],\n"
    "\"rate\": [...], \"ttft_ms\": [...], \"tpot_ms\": [...], \"percentile\": 90, \"dtype\": \"bf16\",\n"
    "\"kv_dtype\": \"bf16\", \"engine\": \"vllm\"} (no rate: offline), each answered as `serve --top 1`.\n"
    "Under `mpirun -np K` the questions are split over the ranks and merged on rank 0:\n"
    "the same output for any K.\n", 1, opts, cmd_sweep};

/* The MPI world: rank and size, and whether MPI was initialised. */
typedef struct sweep_world {
    int rank, size, mpi;
} sweep_world;

static void world_init(sweep_world *w, int *argc, char ***argv)
{
    w->rank = 0, w->size = 1, w->mpi = 0;
#ifdef PT_HAVE_MPI
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK")) {
        MPI_Init(argc, argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
        MPI_Comm_size(MPI_COMM_WORLD, &w->size);
        w->mpi = 1;
    }
#else
    (void)argc, (void)argv;
#endif
}

static void world_end(sweep_world *w)
{
#ifdef PT_HAVE_MPI
    if (w->mpi) MPI_Finalize();
#endif
    w->mpi = 0;
}

#ifdef PT_HAVE_MPI
enum { TAG_STATUS = 1, TAG_ANSWERS = 2, CHUNK = 256 };

/* Rank 0 receives every other rank's answers into a (grid order); a rank
 * sends its own, in grid order and in chunks, after its status.  Returns
 * the first failing rank's status (PT_OK when none).  Out of memory for the
 * chunk buffer aborts the job: a rank that stopped receiving would leave the
 * others blocked. */
static pt_status gather(const sweep_world *w, const pt_sweep_grid *g, const int *owner, pt_sweep_answer *a,
                        pt_status mine)
{
    pt_sweep_answer *buf = malloc(CHUNK * sizeof *buf);
    int st = (int)mine, worst = (int)mine;
    if (!buf) {
        fprintf(stderr, "partita: sweep: out of memory on MPI rank %d\n", w->rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (w->rank != 0) {
        int k = 0;
        MPI_Send(&st, 1, MPI_INT, 0, TAG_STATUS, MPI_COMM_WORLD);
        for (int64_t i = 0; st == PT_OK && i < g->n; i++) {
            if (owner[i] != w->rank) continue;
            buf[k++] = a[i];
            if (k == CHUNK) {
                MPI_Send(buf, (int)((size_t)k * sizeof *buf), MPI_BYTE, 0, TAG_ANSWERS, MPI_COMM_WORLD);
                k = 0;
            }
        }
        if (k) MPI_Send(buf, (int)((size_t)k * sizeof *buf), MPI_BYTE, 0, TAG_ANSWERS, MPI_COMM_WORLD);
        free(buf);
        return (pt_status)st;
    }
    for (int r = 1; r < w->size; r++) {
        int theirs, k = 0, have = 0;
        MPI_Recv(&theirs, 1, MPI_INT, r, TAG_STATUS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (theirs != PT_OK) {
            if (worst == PT_OK) worst = theirs;
            continue;
        }
        for (int64_t i = 0; i < g->n; i++) {
            if (owner[i] != r) continue;
            if (k == have) { /* the next chunk: as many as are left, at most CHUNK */
                int left = 0;
                for (int64_t j = i; j < g->n && left < CHUNK; j++) left += owner[j] == r;
                MPI_Recv(buf, (int)((size_t)left * sizeof *buf), MPI_BYTE, r, TAG_ANSWERS, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                k = 0, have = left;
            }
            a[i] = buf[k++];
        }
    }
    free(buf);
    return (pt_status)worst;
}
#endif

int cmd_sweep(int argc, char **argv)
{
    cli_args a;
    sweep_world w;
    pt_sweep_grid g;
    pt_sweep_answer *ans = NULL;
    int *owner = NULL;
    pt_diag d;
    pt_status st = PT_OK;
    cli_progress prog;
    const char *v, *report;
    int64_t threads = 0, mine = 0, done = 0;
    int rc;
    char *text = NULL;
    if ((rc = cli_parse(&cli_cmd_sweep, argc, argv, &a)) != CLI_GO) return rc;
    if (a.npos < 1) return cli_usage("sweep: give a GRID.json (SPEC section 11: models, clusters, gpus, global_batch)");
    if ((v = cli_get(&a, "threads")) && cli_int("--threads", v, 1, CLI_MAX_THREADS, &threads)) return 2;
    report = cli_get(&a, "report");
    world_init(&w, &argc, &argv);
    /* every rank reads and checks the grid; only rank 0 says what is wrong */
    if ((st = pt_sweep_read(a.pos[0], &g, &d)) != PT_OK) {
        rc = w.rank == 0 ? cli_fail(st, &d) : 2;
        world_end(&w);
        return rc;
    }
    if (threads == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > w.size ? cpus / w.size : 1;
    }
    ans = calloc((size_t)(g.n > 0 ? g.n : 1), sizeof *ans);
    owner = calloc((size_t)(g.n > 0 ? g.n : 1), sizeof *owner);
    if (!ans || !owner) st = pt_diag_set(&d, a.pos[0], NULL, NULL, "out of memory for %lld answers", (long long)g.n),
                        st = PT_ENOMEM;
    if (st == PT_OK) st = pt_sweep_split(&g, w.size, owner, &d);
    for (int64_t i = 0; st == PT_OK && i < g.n; i++) mine += owner[i] == w.rank;
    cli_progress_start(&prog, "sweep: answering questions");
    for (int64_t i = 0; st == PT_OK && i < g.n; i++) {
        if (owner[i] != w.rank) continue;
        st = pt_sweep_answer_one(&g, i, (int)threads, &ans[i], &d);
        if (w.rank == 0) cli_progress_cb(&prog, ++done, mine);
    }
    cli_progress_end(&prog);
#ifdef PT_HAVE_MPI
    if (w.mpi && w.size > 1) {
        pt_status all = gather(&w, &g, owner, ans, st);
        if (all != PT_OK && st == PT_OK) {
            st = all;
            pt_diag_set(&d, a.pos[0], NULL, NULL, "another MPI rank failed (%s)",
                        all == PT_ENOMEM ? "out of memory" : "error");
        }
    }
#endif
    rc = 0;
    if (st != PT_OK) rc = w.rank == 0 ? cli_fail(st, &d) : 2;
    else if (w.rank == 0) {
        if (report) {
            if ((st = pt_emit_html_sweep(&g, ans, &text, &d)) != PT_OK) rc = cli_fail(st, &d);
            else rc = cli_output(report, text);
            free(text);
            text = NULL;
        }
        if (!rc) {
            st = cli_get(&a, "json") ? pt_emit_sweep_json(&g, ans, &text, &d) : pt_emit_sweep_text(&g, ans, &text, &d);
            if (st != PT_OK) rc = cli_fail(st, &d);
            else fputs(text, stdout);
            free(text);
        }
    }
    free(ans);
    free(owner);
    pt_sweep_free(&g);
    fflush(stdout);
    world_end(&w);
    return rc;
}
