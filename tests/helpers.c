/*
 * helpers.c -- the scaffolding the unit tests share; what each helper does is
 * said in tests/helpers.h.  Failures go through cmocka (print_error, then
 * _fail with the caller's file and line), so a helper ends the running test
 * exactly as fail_msg() in the test itself would.
 */
#include <math.h>

#include "helpers.h"

/* Prints "ERROR: " and the message, then fails the test at file:line. */
static void th_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void th_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    print_error("ERROR: ");
    va_start(ap, fmt);
    vprint_error(fmt, ap);
    va_end(ap);
    print_error("\n");
    _fail(file, line);
}

/* ---- inputs --------------------------------------------------------------------- */

pt_model th_model_at(const char *file, int line, const char *name)
{
    pt_model m;
    pt_diag d;
    memset(&m, 0, sizeof m);
    if (pt_model_builtin(name, &m, &d) != PT_OK) th_fail(file, line, "model %s: %s", name, d.msg);
    return m;
}

pt_cluster th_cluster_at(const char *file, int line, const char *name, int64_t n)
{
    pt_cluster c;
    pt_diag d;
    memset(&c, 0, sizeof c);
    if (pt_cluster_builtin(name, &c, &d) != PT_OK)
        th_fail(file, line, "cluster %s: %s", name, d.msg);
    if (pt_cluster_resize(&c, n, &d) != PT_OK)
        th_fail(file, line, "cluster %s resized to %lld: %s", name, (long long)n, d.msg);
    return c;
}

pt_job th_job(int64_t seq_len, int64_t global_batch, int flash)
{
    pt_job j;
    memset(&j, 0, sizeof j);
    j.seq_len = seq_len;
    j.global_batch = global_batch;
    j.dtype = PT_BF16;
    j.flash_attention = flash;
    j.engine = PT_ENGINE_MEGATRON;
    return j;
}

pt_strategy th_strategy_at(const char *file, int line, const char *text, const pt_model *m,
                           const pt_cluster *c, const pt_job *j)
{
    pt_strategy st;
    pt_diag d;
    unsigned set = 0;
    memset(&st, 0, sizeof st);
    if (pt_strategy_parse(text, &st, &set, &d) != PT_OK)
        th_fail(file, line, "parse \"%s\": %s", text, d.msg);
    if (pt_strategy_resolve(&st, set, m, c, j, &d) != PT_OK)
        th_fail(file, line, "resolve \"%s\": %s", text, d.msg);
    return st;
}

pt_search_opts th_search_opts(int k, int threads, int64_t gbs)
{
    pt_search_opts o;
    memset(&o, 0, sizeof o);
    pt_space_init(&o.space);
    o.top_k = k;
    o.threads = threads;
    o.prune = 1;
    o.gbs_lo = o.gbs_hi = gbs;
    return o;
}

/* ---- numbers -------------------------------------------------------------------- */

void th_near_rel_at(const char *file, int line, double got, double want, double rel,
                    const char *what)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        th_fail(file, line, "%s: got %.17g, want %.17g (relative error %.3g > %.3g)", what, got,
                want, fabs(got - want) / fabs(want), rel);
}

void th_near_abs_at(const char *file, int line, double got, double want, double tol,
                    const char *what)
{
    if (!(fabs(got - want) <= tol))
        th_fail(file, line, "%s: got %.17g, want %.17g (off by %.3g > %.3g)", what, got, want,
                fabs(got - want), tol);
}

/* ---- files ---------------------------------------------------------------------- */

char *th_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long len;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = malloc((size_t)len + 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        fclose(f);
        return NULL;
    }
    buf[len] = '\0';
    fclose(f);
    *n = (size_t)len;
    return buf;
}

void th_line_of(const char *s, int no, char *buf, size_t n)
{
    const char *p = s, *e;
    size_t len;
    for (int i = 1; i < no && p; i++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p || !*p) {
        snprintf(buf, n, "<end of text>");
        return;
    }
    e = strchr(p, '\n');
    len = e ? (size_t)(e - p) : strlen(p);
    if (len >= n) len = n - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
}

void th_golden_at(const char *file, int line, const char *dir, const char *name,
                  const char *text, const char *update)
{
    char path[256];
    const char *upd = getenv("UPDATE_GOLDEN");
    size_t len = strlen(text), n = 0, i = 0;
    char *want;
    int at = 1;
    if (len == 0 || text[len - 1] != '\n')
        th_fail(file, line, "%s: does not end with a newline", name);
    snprintf(path, sizeof path, "%s%s", dir, name);
    if (upd && strcmp(upd, "1") == 0) {
        FILE *f = fopen(path, "wb");
        if (!f) th_fail(file, line, "cannot write %s (run from the repository root)", path);
        if (fwrite(text, 1, len, f) != len) {
            fclose(f);
            th_fail(file, line, "short write to %s", path);
        }
        fclose(f);
        print_message("wrote %s\n", path);
        return;
    }
    want = th_slurp(path, &n);
    if (!want)
        th_fail(file, line, "cannot read %s (run from the repository root; %s writes it)", path,
                update);
    while (i < n && text[i] && want[i] == text[i]) {
        if (want[i] == '\n') at++;
        i++;
    }
    if (i != n || text[i] != '\0') {
        char got_l[1024], want_l[1024];
        th_line_of(text, at, got_l, sizeof got_l);
        th_line_of(want, at, want_l, sizeof want_l);
        free(want);
        /* cmocka formats each print_error into a buffer of about 1 KiB: print
         * in pieces so neither long lines nor the whole text are cut short */
        print_error("ERROR: %s differs from the output at line %d:\n", path, at);
        print_error("  golden: %s\n", want_l);
        print_error("  output: %s\n", got_l);
        print_error("whole output:\n");
        for (size_t k = 0; k < len; k += 512)
            print_error("%.*s", (int)(len - k < 512 ? len - k : 512), text + k);
        print_error("(if the change is intended: %s, then git diff %s)\n", update, dir);
        _fail(file, line);
    }
    free(want);
}
