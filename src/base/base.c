/*
 * base.c -- diagnostics, whole-file I/O and strict JSON reading (see base.h).
 */
#define _XOPEN_SOURCE 700 /* realpath, fchmod */
#include "base.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

void pt_strlcpy(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    if (n == 0) return;
    if (src)
        for (; i + 1 < n && src[i]; i++) dst[i] = src[i];
    dst[i] = '\0';
}

pt_status pt_diag_set(pt_diag *d, const char *file, const char *field, const char *value,
                      const char *fmt, ...)
{
    va_list ap;
    if (!d) return PT_EINPUT;
    memset(d, 0, sizeof *d);
    pt_strlcpy(d->file, file ? file : "", sizeof d->file);
    pt_strlcpy(d->field, field ? field : "", sizeof d->field);
    pt_strlcpy(d->value, value ? value : "", sizeof d->value);
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    return PT_EINPUT;
}

void pt_diag_format(const pt_diag *d, char *buf, size_t n)
{
    if (d->file[0] && d->line > 0)
        snprintf(buf, n, "%s:%d:%d: %s", d->file, d->line, d->col, d->msg);
    else if (d->file[0])
        snprintf(buf, n, "%s: %s", d->file, d->msg);
    else
        snprintf(buf, n, "%s", d->msg);
}

pt_status pt_read_file(const char *path, char **text, pt_diag *d)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    struct stat sb;
    *text = NULL;
    if (!f) return pt_diag_set(d, path, NULL, NULL, "cannot open: %s", strerror(errno));
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) { /* fopen opens a directory */
        fclose(f);
        return pt_diag_set(d, path, NULL, NULL, "is a directory, not a file");
    }
    for (;;) {
        if (cap - len < 4096) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb;
            if (ncap > ((size_t)64 << 20)) {
                free(buf);
                fclose(f);
                return pt_diag_set(d, path, NULL, NULL, "file is larger than 64 MiB");
            }
            nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                fclose(f);
                pt_diag_set(d, path, NULL, NULL, "out of memory");
                return PT_ENOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        pt_diag_set(d, path, NULL, NULL, "cannot read: %s", strerror(e));
        return PT_EIO;
    }
    fclose(f);
    buf[len] = '\0';
    if (memchr(buf, '\0', len)) {
        free(buf);
        return pt_diag_set(d, path, NULL, NULL, "file contains a NUL byte (not text)");
    }
    *text = buf;
    return PT_OK;
}

/* ---- writing outputs --------------------------------------------------------
 * Every output goes through a temporary file that mkstemp creates (O_EXCL: a
 * link planted at the name is never followed) next to the target, renamed
 * over it once everything is written.  A target that exists and is not a
 * regular file (a FIFO, a terminal, /dev/null, /dev/stdout on a pipe) cannot
 * be replaced: it is opened and written in place. */

/* A target after symlinks: the path to replace (the link's final target when
 * it is one, so the link stays a link) and whether to write it in place. */
typedef struct out_target {
    char real[4096];
    int in_place;
    int exists;
    mode_t mode;
    char tmp[4200];
    int have_tmp;
} out_target;

static pt_status out_resolve(const char *path, out_target *t, pt_diag *d)
{
    struct stat lsb, sb;
    memset(t, 0, sizeof *t);
    if (strlen(path) >= sizeof t->real - 16)
        return pt_diag_set(d, path, NULL, NULL, "cannot write: the path is too long");
    pt_strlcpy(t->real, path, sizeof t->real);
    if (lstat(path, &lsb) != 0) return PT_OK; /* not there yet: created by rename */
    if (stat(path, &sb) != 0) {
        /* a dangling link: replace the link itself */
        t->exists = 0;
        return PT_OK;
    }
    t->exists = 1;
    t->mode = sb.st_mode & 07777;
    if (!S_ISREG(sb.st_mode)) {
        if (S_ISDIR(sb.st_mode))
            return pt_diag_set(d, path, NULL, NULL, "cannot write: %s", strerror(EISDIR));
        t->in_place = 1;
        return PT_OK;
    }
    if (S_ISLNK(lsb.st_mode)) {
        char *r = realpath(path, NULL);
        if (r && strlen(r) < sizeof t->real - 16) pt_strlcpy(t->real, r, sizeof t->real);
        else t->in_place = 1; /* cannot name the target: write through the link */
        free(r);
    }
    return PT_OK;
}

static pt_status out_put(int fd, const char *path, const char *data, size_t n, pt_diag *d)
{
    while (n > 0) {
        ssize_t w = write(fd, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            pt_diag_set(d, path, NULL, NULL, "write failed: %s", strerror(w < 0 ? errno : EIO));
            return PT_EIO;
        }
        data += w;
        n -= (size_t)w;
    }
    return PT_OK;
}

/* Writes data into a fresh temporary file next to t->real. */
static pt_status out_temp(out_target *t, const char *path, const char *data, size_t n, pt_diag *d)
{
    int fd;
    pt_status st;
    mode_t mask;
    snprintf(t->tmp, sizeof t->tmp, "%s.tmp.XXXXXX", t->real);
    if ((fd = mkstemp(t->tmp)) < 0) {
        pt_diag_set(d, path, NULL, NULL, "cannot write: %s", strerror(errno));
        return PT_EIO;
    }
    t->have_tmp = 1;
    /* mkstemp makes it 0600: give it the mode a new file (or the old one) has */
    mask = umask(0);
    umask(mask);
    if (fchmod(fd, t->exists ? t->mode : (0666 & ~mask)) != 0) { /* best effort */ }
    st = out_put(fd, path, data, n, d);
    if (close(fd) != 0 && st == PT_OK) {
        pt_diag_set(d, path, NULL, NULL, "write failed: %s", strerror(errno));
        st = PT_EIO;
    }
    return st;
}

static pt_status out_in_place(const out_target *t, const char *path, const char *data, size_t n,
                              pt_diag *d)
{
    pt_status st;
    int fd = open(t->real, O_WRONLY | O_TRUNC);
    if (fd < 0) {
        pt_diag_set(d, path, NULL, NULL, "cannot write: %s", strerror(errno));
        return PT_EIO;
    }
    st = out_put(fd, path, data, n, d);
    if (close(fd) != 0 && st == PT_OK) {
        pt_diag_set(d, path, NULL, NULL, "write failed: %s", strerror(errno));
        st = PT_EIO;
    }
    return st;
}

pt_status pt_write_files_atomic(const pt_output *outs, int n, pt_diag *d)
{
    out_target *t;
    pt_status st = PT_OK;
    int i;
    if (n <= 0) return PT_OK;
    if (!(t = calloc((size_t)n, sizeof *t))) {
        pt_diag_set(d, outs[0].path, NULL, NULL, "out of memory");
        return PT_ENOMEM;
    }
    /* every target resolved and every replacement written before any is touched */
    for (i = 0; i < n && st == PT_OK; i++) st = out_resolve(outs[i].path, &t[i], d);
    for (i = 0; i < n && st == PT_OK; i++)
        if (!t[i].in_place) st = out_temp(&t[i], outs[i].path, outs[i].data, outs[i].n, d);
    for (i = 0; i < n && st == PT_OK; i++)
        if (t[i].in_place) st = out_in_place(&t[i], outs[i].path, outs[i].data, outs[i].n, d);
    for (i = 0; i < n && st == PT_OK; i++)
        if (t[i].have_tmp) {
            if (rename(t[i].tmp, t[i].real) != 0) {
                pt_diag_set(d, outs[i].path, NULL, NULL, "cannot write: %s", strerror(errno));
                st = PT_EIO;
                break;
            }
            t[i].have_tmp = 0;
        }
    for (i = 0; i < n; i++)
        if (t[i].have_tmp) unlink(t[i].tmp);
    free(t);
    return st;
}

pt_status pt_write_file_atomic(const char *path, const char *data, size_t n, pt_diag *d)
{
    pt_output o = {path, data, n};
    return pt_write_files_atomic(&o, 1, d);
}

pt_status pt_job_check(const pt_job *job, pt_diag *d)
{
    char v[32];
    if (job->seq_len < 1 || job->seq_len > PT_MAX_SEQ_LEN) {
        snprintf(v, sizeof v, "%lld", (long long)job->seq_len);
        return pt_diag_set(d, NULL, "seq_len", v, "seq_len=%s is outside 1..%lld tokens", v,
                           (long long)PT_MAX_SEQ_LEN);
    }
    if (job->global_batch < 0 || job->global_batch > PT_MAX_GLOBAL_BATCH) {
        snprintf(v, sizeof v, "%lld", (long long)job->global_batch);
        return pt_diag_set(d, NULL, "global_batch", v, "global_batch=%s is outside 1..%lld sequences", v,
                           (long long)PT_MAX_GLOBAL_BATCH);
    }
    return PT_OK;
}

/* ---- allocation ------------------------------------------------------------ */

void *pt_alloc_default(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud, (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

/* A block of the arena: its header, then its bytes. */
struct pt_arena_block {
    struct pt_arena_block *next;
    size_t size;                 /* bytes after the header */
    size_t used;
};

#define ARENA_ALIGN 16
#define ARENA_HDR ((sizeof(struct pt_arena_block) + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN)

void pt_arena_init(pt_arena *a, pt_alloc_fn fn, void *ud, size_t first_bytes)
{
    memset(a, 0, sizeof *a);
    a->alloc = fn ? fn : pt_alloc_default;
    a->ud = ud;
    a->next_bytes = first_bytes > 4096 ? first_bytes : 4096;
}

void *pt_arena_alloc(pt_arena *a, size_t n)
{
    struct pt_arena_block *b = a->head;
    unsigned char *p;
    if (a->failed) return NULL;
    if (n == 0) n = 1;
    if (n > ((size_t)1 << 40)) { /* more than any input here can need */
        a->failed = 1;
        return NULL;
    }
    n = (n + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
    if (!b || b->size - b->used < n) {
        size_t size = a->next_bytes > n ? a->next_bytes : n;
        b = a->alloc(a->ud, NULL, 0, ARENA_HDR + size);
        if (!b) {
            a->failed = 1;
            return NULL;
        }
        b->next = a->head;
        b->size = size;
        b->used = 0;
        a->head = b;
        a->blocks++;
        a->next_bytes = size < ((size_t)1 << 30) ? 2 * size : size;
    }
    p = (unsigned char *)b + ARENA_HDR + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

void *pt_arena_array(pt_arena *a, size_t count, size_t size)
{
    if (size && count > ((size_t)1 << 40) / size) {
        a->failed = 1;
        return NULL;
    }
    return pt_arena_alloc(a, count * size);
}

void pt_arena_free(pt_arena *a)
{
    struct pt_arena_block *b = a->head;
    while (b) {
        struct pt_arena_block *next = b->next;
        a->alloc(a->ud, b, ARENA_HDR + b->size, 0);
        b = next;
    }
    a->head = NULL;
    a->blocks = 0;
    a->failed = 0;
}

/* ---- locating a path in JSON text ---------------------------------------
 * A small scanner that walks the text the way a parser would, tracking line
 * and column, and stops at the value the path names.  It assumes the text
 * already parsed (jansson said so), so it does not validate. */

typedef struct scan {
    const char *p;
    int line, col;
} scan;

static void sc_adv(scan *s)
{
    if (*s->p == '\n') {
        s->line++;
        s->col = 1;
    } else if (((unsigned char)*s->p & 0xC0) != 0x80) {
        s->col++;
    }
    s->p++;
}

static void sc_ws(scan *s)
{
    while (*s->p && isspace((unsigned char)*s->p)) sc_adv(s);
}

/* The value of the four hex digits after s->p (which is 'u'), consumed. */
static unsigned long sc_hex4(scan *s)
{
    unsigned long v = 0;
    sc_adv(s);
    for (int i = 0; i < 4 && isxdigit((unsigned char)*s->p); i++) {
        int c = tolower((unsigned char)*s->p);
        v = v * 16 + (unsigned long)(isdigit(c) ? c - '0' : c - 'a' + 10);
        sc_adv(s);
    }
    return v;
}

static void sc_put(char *buf, size_t n, size_t *k, unsigned long byte)
{
    if (buf && *k + 1 < n) buf[(*k)++] = (char)byte;
}

/* Reads a string token at s->p (which is '"'); copies up to n-1 bytes of it,
 * escapes decoded ("\u0068idden_size" is the key hidden_size). */
static void sc_string(scan *s, char *buf, size_t n)
{
    size_t k = 0;
    sc_adv(s);
    while (*s->p && *s->p != '"') {
        unsigned long cp;
        if (*s->p != '\\' || !s->p[1]) {
            sc_put(buf, n, &k, (unsigned char)*s->p);
            sc_adv(s);
            continue;
        }
        sc_adv(s);
        if (*s->p != 'u') {
            const char *e = strchr("b\bf\fn\nr\rt\t", *s->p);
            sc_put(buf, n, &k, e ? (unsigned char)e[1] : (unsigned char)*s->p);
            sc_adv(s);
            continue;
        }
        cp = sc_hex4(s);
        if (cp >= 0xD800 && cp < 0xDC00 && s->p[0] == '\\' && s->p[1] == 'u') {
            sc_adv(s);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (sc_hex4(s) - 0xDC00);
        }
        if (cp < 0x80) {
            sc_put(buf, n, &k, cp);
        } else if (cp < 0x800) {
            sc_put(buf, n, &k, 0xC0 | (cp >> 6));
            sc_put(buf, n, &k, 0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            sc_put(buf, n, &k, 0xE0 | (cp >> 12));
            sc_put(buf, n, &k, 0x80 | ((cp >> 6) & 0x3F));
            sc_put(buf, n, &k, 0x80 | (cp & 0x3F));
        } else {
            sc_put(buf, n, &k, 0xF0 | (cp >> 18));
            sc_put(buf, n, &k, 0x80 | ((cp >> 12) & 0x3F));
            sc_put(buf, n, &k, 0x80 | ((cp >> 6) & 0x3F));
            sc_put(buf, n, &k, 0x80 | (cp & 0x3F));
        }
    }
    if (*s->p == '"') sc_adv(s);
    if (buf && n) buf[k] = '\0';
}

static void sc_skip_value(scan *s)
{
    int depth = 0;
    sc_ws(s);
    do {
        if (*s->p == '"') {
            sc_string(s, NULL, 0);
            continue;
        }
        if (*s->p == '{' || *s->p == '[') depth++;
        else if (*s->p == '}' || *s->p == ']') depth--;
        else if (depth == 0 && (*s->p == ',' )) break;
        if (depth < 0) break;
        sc_adv(s);
        if (depth == 0) {
            /* a scalar: run to the next delimiter */
            while (*s->p && !strchr(",}] \t\r\n", *s->p)) sc_adv(s);
            break;
        }
    } while (*s->p && depth > 0);
}

int pt_json_locate(const char *text, const char *path, int *line, int *col)
{
    scan s = {text, 1, 1};
    const char *q = path;
    sc_ws(&s);
    while (*q) {
        if (*q == '.') q++;
        if (*q == '[') {
            long idx = strtol(q + 1, (char **)&q, 10), i;
            if (*q == ']') q++;
            if (*s.p != '[') return 0;
            sc_adv(&s);
            for (i = 0; i < idx; i++) {
                sc_ws(&s);
                sc_skip_value(&s);
                sc_ws(&s);
                if (*s.p != ',') return 0;
                sc_adv(&s);
            }
            sc_ws(&s);
        } else {
            char key[128];
            size_t k = 0;
            while (*q && *q != '.' && *q != '[' && k + 1 < sizeof key) key[k++] = *q++;
            key[k] = '\0';
            if (*s.p != '{') return 0;
            sc_adv(&s);
            for (;;) {
                char got[128];
                sc_ws(&s);
                if (*s.p != '"') return 0;
                {
                    scan at = s;
                    sc_string(&s, got, sizeof got);
                    sc_ws(&s);
                    if (*s.p == ':') sc_adv(&s);
                    sc_ws(&s);
                    if (strcmp(got, key) == 0) {
                        if (!*q) { /* the key itself is what we point at */
                            s = at;
                            goto found;
                        }
                        break;
                    }
                }
                sc_skip_value(&s);
                sc_ws(&s);
                if (*s.p != ',') return 0;
                sc_adv(&s);
            }
        }
    }
found:
    *line = s.line;
    *col = s.col;
    return 1;
}

/* ---- strict JSON reading ------------------------------------------------- */

size_t pt_bom_len(const char *text)
{
    return text && !strncmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

json_t *pt_json_parse(pt_jctx *jc)
{
    json_error_t err;
    json_t *root;
    /* a byte-order mark (Windows editors write one): skipped, and positions
     * count from after it as editors show them */
    jc->text += pt_bom_len(jc->text);
    root = json_loads(jc->text, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        pt_diag_set(jc->d, jc->file, NULL, NULL, "invalid JSON: %s", err.text);
        /* jansson says column 0 before the first character of a line (an
         * empty file, a line that ends early) and -1 where it has no place */
        jc->d->line = err.line > 0 ? err.line : 1;
        jc->d->col = err.column > 0 ? err.column : 1;
        return NULL;
    }
    if (!json_is_object(root)) {
        pt_diag_set(jc->d, jc->file, NULL, NULL, "expected a JSON object at the top level");
        jc->d->line = 1;
        jc->d->col = 1;
        json_decref(root);
        return NULL;
    }
    return root;
}

void pt_path_join(char *buf, size_t n, const char *path, const char *key)
{
    if (path && path[0])
        snprintf(buf, n, "%s.%s", path, key);
    else
        snprintf(buf, n, "%s", key);
}

pt_status pt_jerr(pt_jctx *jc, const char *path, const json_t *val, const char *fmt, ...)
{
    char msg[512], vbuf[128] = "";
    va_list ap;
    int line = 0, col = 0;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (val) {
        /* 15 digits: -0.1 reads back as typed, not as -0.10000000000000001 */
        char *dump = json_dumps(val, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
        if (dump) {
            pt_strlcpy(vbuf, dump, sizeof vbuf);
            if (strlen(dump) >= sizeof vbuf) /* a long array: say it goes on */
                memcpy(vbuf + sizeof vbuf - 4, "...", 4);
            free(dump);
        }
    }
    if (val)
        pt_diag_set(jc->d, jc->file, path, vbuf, "%s: %s %s", path, vbuf, msg);
    else
        pt_diag_set(jc->d, jc->file, path, NULL, "%s: %s", path, msg);
    if (jc->text && pt_json_locate(jc->text, path, &line, &col)) {
        jc->d->line = line;
        jc->d->col = col;
    }
    return PT_EINPUT;
}

pt_status pt_json_only_keys(pt_jctx *jc, const json_t *obj, const char *path,
                            const char *const *allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(*a, key) == 0) ok = 1;
        if (!ok) {
            char full[256], list[400] = "";
            size_t used = 0;
            pt_path_join(full, sizeof full, path, key);
            for (const char *const *a = allowed; *a && used + 40 < sizeof list; a++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                         a == allowed ? "" : ", ", *a);
            pt_jerr(jc, full, NULL, "unknown key \"%s\" (known: %s)", key, list);
            pt_strlcpy(jc->d->value, key, sizeof jc->d->value);
            /* a key the path syntax cannot name ("a.b", "x[1]"): point at its object */
            if (jc->d->line == 0 && jc->text)
                pt_json_locate(jc->text, path ? path : "", &jc->d->line, &jc->d->col);
            return PT_EINPUT;
        }
    }
    return PT_OK;
}

pt_status pt_json_num(pt_jctx *jc, const json_t *obj, const char *path, const char *key,
                      int required, double *out, int *found)
{
    char full[256];
    json_t *v = json_object_get(obj, key);
    pt_path_join(full, sizeof full, path, key);
    if (found) *found = v != NULL && !json_is_null(v);
    if (!v || json_is_null(v)) {
        if (required) return pt_jerr(jc, full, NULL, "required key is missing");
        return PT_OK;
    }
    if (!json_is_number(v)) return pt_jerr(jc, full, v, "is not a number");
    *out = json_number_value(v);
    return PT_OK;
}

pt_status pt_json_int(pt_jctx *jc, const json_t *obj, const char *path, const char *key,
                      int required, int64_t lo, int64_t hi, int64_t *out, int *found)
{
    char full[256];
    json_t *v = json_object_get(obj, key);
    double x;
    pt_path_join(full, sizeof full, path, key);
    if (found) *found = v != NULL && !json_is_null(v);
    if (!v || json_is_null(v)) {
        if (required) return pt_jerr(jc, full, NULL, "required key is missing");
        return PT_OK;
    }
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < lo || i > hi)
            return pt_jerr(jc, full, v, "is out of range [%lld, %lld]", (long long)lo,
                           (long long)hi);
        *out = (int64_t)i;
        return PT_OK;
    }
    if (!json_is_real(v)) return pt_jerr(jc, full, v, "is not a whole number");
    x = json_real_value(v);
    /* before the cast: 1e30 does not fit, nor does 2^63 (== (double)INT64_MAX) */
    if (x < (double)lo || x > (double)hi || x >= 0x1p63)
        return pt_jerr(jc, full, v, "is out of range [%lld, %lld]", (long long)lo,
                       (long long)hi);
    if (x != floor(x)) return pt_jerr(jc, full, v, "is not a whole number");
    *out = (int64_t)x;
    return PT_OK;
}

pt_status pt_json_str(pt_jctx *jc, const json_t *obj, const char *path, const char *key,
                      int required, char *buf, size_t n, int *found)
{
    char full[256];
    json_t *v = json_object_get(obj, key);
    pt_path_join(full, sizeof full, path, key);
    if (found) *found = v != NULL && !json_is_null(v);
    if (!v || json_is_null(v)) {
        if (required) return pt_jerr(jc, full, NULL, "required key is missing");
        return PT_OK;
    }
    if (!json_is_string(v)) return pt_jerr(jc, full, v, "is not a string");
    if (strlen(json_string_value(v)) >= n)
        return pt_jerr(jc, full, v, "is longer than %zu characters", n - 1);
    pt_strlcpy(buf, json_string_value(v), n);
    return PT_OK;
}

pt_status pt_json_name(pt_jctx *jc, const json_t *obj, const char *path, const char *key,
                       int required, char *buf, size_t n, int *found)
{
    pt_status st = pt_json_str(jc, obj, path, key, required, buf, n, found);
    if (st != PT_OK) return st;
    for (size_t i = 0; buf[i]; i++) {
        unsigned char ch = (unsigned char)buf[i];
        if (ch < 0x20 || ch == 0x7F) {
            char full[256];
            pt_path_join(full, sizeof full, path, key);
            return pt_jerr(jc, full, json_object_get(obj, key), "holds the control character 0x%02X at "
                           "byte %zu (a name is printed in tables and files: letters, digits, "
                           "punctuation, spaces)", ch, i);
        }
    }
    return PT_OK;
}

pt_status pt_json_bool(pt_jctx *jc, const json_t *obj, const char *path, const char *key,
                       int *out, int *found)
{
    char full[256];
    json_t *v = json_object_get(obj, key);
    pt_path_join(full, sizeof full, path, key);
    if (found) *found = v != NULL && !json_is_null(v);
    if (!v || json_is_null(v)) return PT_OK;
    if (!json_is_boolean(v)) return pt_jerr(jc, full, v, "is not true or false");
    *out = json_is_true(v);
    return PT_OK;
}

const char *pt_engine_name(pt_engine e)
{
    switch (e) {
    case PT_ENGINE_MEGATRON: return "megatron";
    case PT_ENGINE_DEEPSPEED: return "deepspeed";
    case PT_ENGINE_FSDP: return "fsdp";
    case PT_ENGINE_ANY: return "any";
    }
    return "?";
}

const char *pt_moe_dispatch_name(pt_moe_dispatch d)
{
    switch (d) {
    case PT_MOE_ALLTOALL: return "alltoall";
    case PT_MOE_DEEPEP: return "deepep";
    case PT_MOE_HYBRIDEP: return "hybridep";
    }
    return "?";
}

const char *pt_dtype_name(pt_dtype t)
{
    switch (t) {
    case PT_BF16: return "bf16";
    case PT_FP16: return "fp16";
    case PT_FP8: return "fp8";
    }
    return "?";
}

const char *pt_version(void) { return PT_VERSION; }

/* Length of the UTF-8 sequence at s that decodes to a printable code point
 * (not C0, DEL or C1; not overlong, a surrogate or past U+10FFFF), or 0. */
static size_t utf8_printable(const unsigned char *s)
{
    uint32_t cp;
    size_t n;
    if (s[0] < 0x80) return s[0] >= 0x20 && s[0] != 0x7f;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2, cp = s[0] & 0x1fu;
    else if (s[0] >= 0xe0 && s[0] <= 0xef) n = 3, cp = s[0] & 0x0fu;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4) n = 4, cp = s[0] & 0x07u;
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp < 0xa0))
        return 0;
    return n;
}

const char *pt_str_escape(const char *s, char *buf, size_t n)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t k = 0;
    if (!buf || n == 0) return "";
    while (*p) {
        size_t len = utf8_printable(p);
        if (len == 0) { /* one byte as \xHH */
            if (k + 4 >= n) break;
            snprintf(buf + k, n - k, "\\x%02x", *p);
            k += 4, p++;
            continue;
        }
        if (k + len >= n) break;
        memcpy(buf + k, p, len);
        k += len, p += len;
    }
    buf[k] = '\0';
    return buf;
}

int pt_str_has_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
        if (i == n) return 1;
    }
    return 0;
}

int64_t pt_gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}
