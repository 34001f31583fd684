#!/bin/sh
# End-to-end `partita models | devices | clusters`: each exits 0 and lists the
# built-in names SPEC section 2 promises (a sample of each), one per line,
# the name first.
. "$(dirname "$0")/lib/common.sh" || exit 1

# lists COMMAND NAME...: `partita COMMAND` exits 0 and has a line starting NAME
lists() {
    cmd=$1
    shift
    if ! "$P" "$cmd" >"$tmp/out" 2>"$tmp/err"; then
        bad "partita $cmd: exit status not 0: $(cat "$tmp/err")"
        return
    fi
    for name in "$@"; do
        awk -v n="$name" '$1 == n { found = 1 } END { exit !found }' "$tmp/out" ||
            bad "partita $cmd does not list $name"
    done
}

lists models gpt3-175b llama3.1-405b llama3-8b gpt-22b dlrm dlrm-dcnv2
lists devices a100-sxm4-80g h100-sxm-80g gb200
lists clusters gb200-nvl72 dgx-a100-80g dgx-h100
exit $fail
