/*
 * replay.c -- runs a harness over files without libFuzzer, so `make test`
 * (with gcc, and under `make asan` with ASan + UBSan) replays everything the
 * fuzzers kept in fuzz/corpus/NAME/.
 *
 * Usage: replay_NAME DIR|FILE...  Each regular file of each directory (in
 * name order, not recursing) and each file given is read whole and passed to
 * LLVMFuzzerTestOneInput; a harness that finds a broken invariant aborts.
 * Prints "NAME: N inputs replayed" and exits 0, or 2 when a path cannot be
 * read.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    if (!f) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        return -1;
    }
    for (;;) {
        size_t got;
        if (cap - len < 4096) {
            size_t ncap = cap ? 2 * cap : 65536;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) abort();
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        fprintf(stderr, "replay: %s: read error\n", path);
        fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every regular file in dir; returns how many, or -1. */
static int run_dir(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int count = 0;
    if (!dp) {
        fprintf(stderr, "replay: %s: cannot open directory\n", dir);
        return -1;
    }
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            names = realloc(names, cap * sizeof *names);
            if (!names) abort();
        }
        names[n] = strdup(e->d_name);
        if (!names[n]) abort();
        n++;
    }
    closedir(dp);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
            if (run_file(path) < 0) count = -1;
            else if (count >= 0) count++;
        }
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    int total = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        int got;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
            bad = 1;
            continue;
        }
        got = S_ISDIR(sb.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
        if (got < 0) bad = 1;
        else total += got;
    }
    printf("%s: %d inputs replayed\n", name, total);
    return bad ? 2 : 0;
}
