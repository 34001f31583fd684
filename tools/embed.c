/*
 * embed.c -- turns a data file into a C array so catalogs are compiled into the
 * binary (DESIGN.md: data/ is compiled in).  Usage: embed SYMBOL IN OUT.c
 */
#include <stdio.h>

int main(int argc, char **argv)
{
    FILE *in, *out;
    int c;
    long n = 0;
    if (argc != 4) {
        fprintf(stderr, "usage: embed SYMBOL IN OUT.c\n");
        return 2;
    }
    in = fopen(argv[2], "rb");
    if (!in) {
        perror(argv[2]);
        return 2;
    }
    out = fopen(argv[3], "wb");
    if (!out) {
        perror(argv[3]);
        return 2;
    }
    fprintf(out, "/* generated from %s by tools/embed.c; do not edit */\n", argv[2]);
    fprintf(out, "extern const char %s[];\nconst char %s[] = {", argv[1], argv[1]);
    while ((c = fgetc(in)) != EOF) {
        if (n++ % 16 == 0) fputs("\n ", out);
        fprintf(out, " %d,", c);
    }
    fputs("\n  0\n};\n", out);
    fclose(in);
    return fclose(out) == 0 ? 0 : 2;
}
