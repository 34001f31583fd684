#!/bin/sh
# The library's modules form layers with no cycles, lowest first:
#   base < workload < hw < strategy < cost < sim < plan < goal < validate < emit < api < cli
# (the README's architecture section says why this order).  Two checks:
#  1. by symbol, on the built objects (as curl and SQLite keep their rules by
#     script): every symbol a module uses that the library defines must be
#     defined in that module or in one below it.  A call through
#     include/partita.h counts -- that is how cost once called up into plan
#     (pt_strategy_stage_layers).  The generated data objects (BUILD/gen)
#     count as base.
#  2. by #include: no file includes a header of a layer above its own, so
#     types do not leak upwards either.
# A directory under src/ that is not in the order is an error, so a new
# module gets a place.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
LAYERS="base workload hw strategy cost sim plan goal validate emit api cli"
fail=0
bad() { echo "layers.sh: $*"; fail=1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

for dir in src/*/; do
    m=$(basename "$dir")
    case " $LAYERS " in *" $m "*) ;; *) bad "src/$m is not in the layer order ($LAYERS)" ;; esac
done

# 1. symbols
command -v nm >/dev/null 2>&1 || { bad "nm (binutils) is not installed"; exit 1; }
# every global symbol the library defines, with its module: "SYMBOL MODULE"
for m in $LAYERS; do
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
nobj=0
for m in $LAYERS; do
    below="$below $m"
    [ -d "src/$m" ] || { bad "src/$m is missing"; continue; }
    for c in src/"$m"/*.c; do
        o="$BUILD/obj/src/$m/$(basename "$c" .c).o"
        [ -f "$o" ] || { bad "$o is missing: run make first"; continue; }
        nobj=$((nobj + 1))
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

# 2. includes
rank() {
    i=0
    for l in $LAYERS; do
        [ "$l" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
    echo -1
}
for f in src/*/*.c src/*/*.h; do
    [ -f "$f" ] || continue
    own=$(echo "$f" | cut -d/ -f2)
    r=$(rank "$own")
    [ "$r" -ge 0 ] || continue
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\)\/[^"]*".*/\1/p' "$f"); do
        ri=$(rank "$inc")
        if [ "$ri" -lt 0 ] || [ "$ri" -gt "$r" ]; then
            bad "$f ($own) includes a $inc/ header, which is not below it"
        fi
    done
done
[ $fail -eq 0 ] && echo "layers.sh: $nobj objects in 12 layers, no call or #include upwards"
exit $fail
