#!/bin/sh
# The library's lower modules form layers with no cycles (the order
# src/strategy/strategy.h states): base < workload < hw < strategy < cost < sim.
# Checked on the built objects, by symbol, not by #include: every symbol a
# module uses that the library defines must be defined in that module or in
# one below it.  A call through include/partita.h counts -- that is how cost
# once called up into plan (pt_strategy_stage_layers).  The generated data
# objects (BUILD/gen) count as base.  Modules above sim (plan, goal, emit,
# cli) are not ordered here yet.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
LAYERS="base workload hw strategy cost sim"
fail=0
bad() { echo "layers.sh: $*"; fail=1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

command -v nm >/dev/null 2>&1 || { bad "nm (binutils) is not installed"; exit 1; }
# every global symbol the library defines, with its module: "SYMBOL MODULE"
for dir in src/*/; do
    m=$(basename "$dir")
    [ "$m" = cli ] && continue
    for o in "$BUILD"/obj/src/"$m"/*.o; do
        [ -f "$o" ] || continue
        # an object whose source is gone (a file moved since the last build) does not count
        [ -f "src/$m/$(basename "$o" .o).c" ] || continue
        nm -g --defined-only "$o" | awk -v m="$m" 'NF == 3 { print $3, m }'
    done
done >"$tmp/defs"
for o in "$BUILD"/gen/*.o; do
    [ -f "$o" ] && nm -g --defined-only "$o" | awk 'NF == 3 { print $3, "base" }'
done >>"$tmp/defs"
[ -s "$tmp/defs" ] || { bad "no objects under $BUILD/obj: run make first"; exit 1; }

below=""
for m in $LAYERS; do
    below="$below $m"
    [ -d "src/$m" ] || { bad "src/$m is missing"; continue; }
    for c in src/"$m"/*.c; do
        o="$BUILD/obj/src/$m/$(basename "$c" .c).o"
        [ -f "$o" ] || { bad "$o is missing: run make first"; continue; }
        nm -u "$o" | awk '{ print $NF }' | sort -u >"$tmp/used"
        # SYMBOL MODULE for each used symbol the library defines outside the allowed layers
        awk -v ok="$below" 'BEGIN { n = split(ok, a, " "); for (i = 1; i <= n; i++) allow[a[i]] = 1 }
             NR == FNR { used[$1] = 1; next }
             ($1 in used) && !($2 in allow) { print $1, $2 }' "$tmp/used" "$tmp/defs" >"$tmp/up"
        while read -r sym where; do
            bad "$c uses $sym from src/$where, a module above $m (order: $LAYERS)"
        done <"$tmp/up"
    done
done
exit $fail
