# common.sh -- the preamble the end-to-end scripts share.  A script sources it
# first, from its own directory:
#     . "$(dirname "$0")/lib/common.sh" || exit 1
# and then has: the working directory at the repository root; BUILD (default
# build) and P, the partita binary in it; fail=0 and bad MESSAGE, which prints
# "SCRIPT: MESSAGE" and sets fail=1; $tmp, a temporary directory removed on
# exit; and the exit-status checks expect2, refused and refused_saying (the
# last two bounded in time where the script sets refused_within).  It checks
# nothing itself; tests/run.sh runs only tests/e2e/*.sh, never this file on
# its own.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
P=$BUILD/partita
fail=0
e2e_script=$(basename "$0")
bad() { echo "$e2e_script: $*"; fail=1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# expect2 NAME WANT CMD...: CMD exits 2, writes nothing on stdout, and its
# stderr starts "partita: " and contains the fixed string WANT.
expect2() {
    name=$1
    want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] || bad "$name: exit $rc, want 2"
    case "$(head -n 1 "$tmp/err")" in
    "partita: "*) ;;
    *) bad "$name: stderr does not start with \"partita: \": $(head -n 1 "$tmp/err")" ;;
    esac
    grep -qF -- "$want" "$tmp/err" || bad "$name: stderr lacks \"$want\": $(cat "$tmp/err")"
    [ -s "$tmp/out" ] && bad "$name: wrote to stdout: $(head -n 3 "$tmp/out")"
}

# e2e_run CMD...: runs CMD with stdout in $tmp/o and stderr in $tmp/e, its
# exit status in rc.  With refused_within set to a number of seconds, CMD
# runs under timeout(1): one still running then is reported ("did not answer
# within N s") and e2e_run returns 1, so the caller checks nothing more.
e2e_run() {
    if [ -n "${refused_within:-}" ]; then
        timeout "$refused_within" "$@" >"$tmp/o" 2>"$tmp/e"
        rc=$?
        [ $rc -eq 124 ] && { bad "did not answer within $refused_within s: $*"; return 1; }
    else
        "$@" >"$tmp/o" 2>"$tmp/e"
        rc=$?
    fi
    return 0
}

# refused CMD...: CMD exits 2 with a message on stderr, which is left in
# $tmp/e for the caller to grep (stdout in $tmp/o).  Bounded in time when the
# script sets refused_within (see e2e_run).
refused() {
    e2e_run "$@" || return 0
    [ $rc -eq 2 ] || bad "exit $rc, want 2: $*"
    [ -s "$tmp/e" ] || bad "no message: $*"
}

# refused_saying WANT CMD...: CMD exits 2 and its stderr matches WANT, a
# basic regular expression (grep); failures show that stderr.  Bounded in
# time like refused.
refused_saying() {
    want=$1
    shift
    e2e_run "$@" || return 0
    [ $rc -eq 2 ] || bad "exit $rc, want 2: $* ($(cat "$tmp/e"))"
    grep -q -- "$want" "$tmp/e" || bad "message lacks \"$want\": $* ($(cat "$tmp/e"))"
}
