#!/bin/sh
# The source tree's layers, lowest first, and the rule that no module
# includes a header of a layer above its own (DESIGN: each concept has one
# home; goal sits above plan, so the search gets time to train as a
# callback, and validate above goal):
#   base < workload < hw < strategy < cost < sim < plan < goal < validate < emit < cli
# A directory not in the list is an error here, so a new layer gets a place.
cd "$(dirname "$0")/../.." || exit 1
order="base workload hw strategy cost sim plan goal validate emit cli"
fail=0
rank() {
    i=0
    for l in $order; do
        [ "$l" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
    echo -1
}
for f in src/*/*.c src/*/*.h; do
    [ -f "$f" ] || continue
    own=$(echo "$f" | cut -d/ -f2)
    r=$(rank "$own")
    if [ "$r" -lt 0 ]; then
        echo "layers.sh: $f: directory src/$own is not in the layer order"
        fail=1
        continue
    fi
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\)\/[^"]*".*/\1/p' "$f"); do
        ri=$(rank "$inc")
        if [ "$ri" -lt 0 ] || [ "$ri" -gt "$r" ]; then
            echo "layers.sh: $f ($own) includes a $inc/ header, which is not below it"
            fail=1
        fi
    done
done
exit $fail
