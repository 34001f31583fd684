#!/bin/sh
# `make install` into a temporary prefix, then use what it installed as a user
# would: every file is there; the man page renders without a warning (skipped
# only where neither man nor groff is installed); the bash completion is valid
# bash and completes "partita pl" to "plan"; a C program built with
# `pkg-config --cflags --libs partita` against the installed header and
# library loads a built-in model and cluster, prices a strategy and prints
# its step time; `make uninstall` leaves no file behind.
# Uses the existing build (make BUILD=$BUILD); needs no root.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "install.sh: $*"; fail=1; }

# a make started from inside `make test` must not inherit its jobserver or flags
unset MAKEFLAGS MFLAGS MAKELEVEL
prefix="$tmp/prefix"
if ! make -s BUILD="$BUILD" PREFIX="$prefix" install >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    err "make install PREFIX=$prefix failed"
    exit 1
fi

files="bin/partita lib/libpartita.a include/partita.h lib/pkgconfig/partita.pc
       share/man/man1/partita.1 share/bash-completion/completions/partita"
for f in $files; do
    [ -f "$prefix/$f" ] || err "make install did not install $f"
done
[ -x "$prefix/bin/partita" ] || err "bin/partita is not executable"
"$prefix/bin/partita" clusters | grep -q '^dgx-h100 ' || err "the installed partita does not list dgx-h100"

# the man page: no warnings from man (or groff directly)
page="$prefix/share/man/man1/partita.1"
if command -v man >/dev/null 2>&1 && man -l "$page" >/dev/null 2>&1; then
    MANWIDTH=80 man -l --warnings=w "$page" >"$tmp/man.txt" 2>"$tmp/man.err"
    [ -s "$tmp/man.err" ] && { cat "$tmp/man.err"; err "man -l $page warns"; }
    grep -q 'EXIT STATUS' "$tmp/man.txt" || err "man -l $page does not render EXIT STATUS"
elif command -v groff >/dev/null 2>&1; then
    groff -man -Tutf8 -ww -z "$page" 2>"$tmp/man.err"
    [ -s "$tmp/man.err" ] && { cat "$tmp/man.err"; err "groff warns on $page"; }
else
    echo "install.sh: man and groff are absent; the man page check is skipped"
fi

# the completion: valid bash, and "partita pl<TAB>" gives plan
comp="$prefix/share/bash-completion/completions/partita"
if command -v bash >/dev/null 2>&1; then
    bash -n "$comp" || err "$comp is not valid bash"
    got=$(PATH="$prefix/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(partita pl); COMP_CWORD=1; _partita
             printf "%s\n" "${COMPREPLY[@]}"' sh "$comp")
    [ "$got" = plan ] || err "the completion of \"partita pl\" is \"$got\", not plan"
    got=$(PATH="$prefix/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(partita plan llama3-8b --cluster dgx-h1)
             COMP_CWORD=4; _partita; printf "%s\n" "${COMPREPLY[@]}"' sh "$comp")
    [ "$got" = dgx-h100 ] || err "the completion of \"--cluster dgx-h1\" is \"$got\", not dgx-h100"
else
    echo "install.sh: bash is absent; the completion check is skipped"
fi

# a program against the installed header and library, built with pkg-config
cat >"$tmp/price.c" <<'EOF'
#include <partita.h>
#include <stdio.h>

int main(void)
{
    pt_model m;
    pt_cluster c;
    pt_strategy st;
    pt_job job = {0};
    pt_cost cost;
    pt_diag d;
    unsigned set;
    job.seq_len = 2048;
    job.global_batch = 512;
    job.dtype = PT_BF16;
    job.flash_attention = 1;
    if (pt_model_builtin("gpt3-175b", &m, &d) != PT_OK || pt_cluster_builtin("dgx-a100-80g", &c, &d) != PT_OK ||
        pt_cluster_resize(&c, 64, &d) != PT_OK || pt_strategy_parse("tp=8 pp=8 mbs=1", &st, &set, &d) != PT_OK ||
        pt_strategy_resolve(&st, set, &m, &c, &job, &d) != PT_OK || pt_cost_eval(&m, &c, &job, &st, &cost) != PT_OK) {
        fprintf(stderr, "price: %s\n", d.msg);
        return 2;
    }
    printf("step_time_s %.3f dp %d fits %d\n", cost.step_time_s, st.dp, cost.fits);
    return 0;
}
EOF
if ! flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs partita); then
    err "pkg-config does not find the installed partita.pc"
else
    case $flags in *"-I$prefix/include"*"-L$prefix/lib"*"-lpartita"*) ;;
        *) err "pkg-config --cflags --libs partita gives \"$flags\"" ;; esac
    # a library built for the sanitizers (make asan) needs their runtime too
    san=
    nm "$BUILD/libpartita.a" 2>/dev/null | grep -q __asan_ && san="-fsanitize=address,undefined"
    # shellcheck disable=SC2086  # flags is a word list
    if ! ${CC:-cc} -std=c11 -Wall -Werror $san -o "$tmp/price" "$tmp/price.c" $flags 2>"$tmp/cc.err"; then
        cat "$tmp/cc.err"
        err "a program built with \`pkg-config --cflags --libs partita\` does not compile and link"
    else
        out=$("$tmp/price") || err "the program against the installed library failed: $out"
        # the same question through the installed CLI must give the same step time
        want=$("$prefix/bin/partita" eval gpt3-175b --cluster dgx-a100-80g --gpus 64 --seq-len 2048 \
                   --global-batch 512 --strategy "tp=8 pp=8 mbs=1" --json |
               python3 -c 'import json,sys; j=json.load(sys.stdin); print("step_time_s %.3f dp %d fits %d" %
                          (j["step_time_s"], j["strategy"]["dp"], j["fits"]))')
        [ -n "$want" ] && [ "$out" = "$want" ] || err "the program prints \"$out\", partita eval \"$want\""
    fi
    # examples/*.c use the public header only: each builds against the
    # installed copy and runs; plan.c plans, simulates and exports
    for ex in examples/*.c; do
        name=$(basename "$ex" .c)
        # shellcheck disable=SC2086
        if ! ${CC:-cc} -std=c11 -Wall -Wextra -Werror $san -o "$tmp/ex-$name" "$ex" $flags 2>"$tmp/cc.err"; then
            cat "$tmp/cc.err"
            err "$ex does not build against the installed header and library"
        elif ! "$tmp/ex-$name" >"$tmp/ex-$name.out" 2>&1; then
            cat "$tmp/ex-$name.out"
            err "$ex failed against the installed library"
        fi
    done
    if [ -f "$tmp/ex-plan.out" ]; then
        grep -q '^llama3-8b on 16 x h100-sxm-80g: [0-9]* candidates, [0-9]* fit$' "$tmp/ex-plan.out" ||
            err "examples/plan.c: no search summary: $(head -1 "$tmp/ex-plan.out")"
        [ "$(grep -c '^#[1-3]  ' "$tmp/ex-plan.out")" -eq 3 ] || err "examples/plan.c: not three plans"
        grep -q '^simulated: .* fits$' "$tmp/ex-plan.out" || err "examples/plan.c: the best plan's simulation does not fit"
        grep -q -- '--tensor-model-parallel-size' "$tmp/ex-plan.out" || err "examples/plan.c: no Megatron arguments"
    fi
fi

if ! make -s BUILD="$BUILD" PREFIX="$prefix" uninstall >"$tmp/uninstall.log" 2>&1; then
    cat "$tmp/uninstall.log"
    err "make uninstall PREFIX=$prefix failed"
fi
left=$(find "$prefix" ! -type d)
[ -z "$left" ] || err "make uninstall left: $left"

# DESTDIR: staged under it, with the .pc naming the final PREFIX
if make -s BUILD="$BUILD" PREFIX=/opt/partita DESTDIR="$tmp/stage" install >"$tmp/stage.log" 2>&1; then
    [ -x "$tmp/stage/opt/partita/bin/partita" ] || err "DESTDIR: bin/partita is not under DESTDIR/PREFIX"
    grep -q '^libdir=/opt/partita/lib$' "$tmp/stage/opt/partita/lib/pkgconfig/partita.pc" ||
        err "DESTDIR: partita.pc does not name libdir=/opt/partita/lib"
    make -s BUILD="$BUILD" PREFIX=/opt/partita DESTDIR="$tmp/stage" uninstall >/dev/null 2>&1
    left=$(find "$tmp/stage" ! -type d)
    [ -z "$left" ] || err "DESTDIR: make uninstall left: $left"
else
    cat "$tmp/stage.log"
    err "make install DESTDIR=$tmp/stage failed"
fi
exit $fail
