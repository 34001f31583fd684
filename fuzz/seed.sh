#!/bin/sh
# seed.sh OUT [NAME...] -- writes the generated seeds of the harnesses named
# (default: every one) under OUT/NAME/:
# each entry of the built-in catalogs (data/*.json) as a standalone file (a
# model's config as a config.json, a cluster as a cluster file, a device
# inlined in a two-level cluster), the fixtures of tests/data/, the golden
# files of tests/golden/, and the strategy and space strings the end-to-end
# tests and the README pass.  The hand-written seeds are in fuzz/seeds/NAME/.
# Needs jq for the catalogs (skipped with a message without it).
set -eu
cd "$(dirname "$0")/.."
out=$1
shift
names=${*:-hf cluster strategy space csv graph statef}
# Every seed is written, and kept only in the directories named (so runs of
# different harnesses at once do not disturb each other's seeds).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
real_out=$out
out=$tmp
for n in hf cluster strategy space csv graph statef; do mkdir -p "$out/$n"; done

if command -v jq >/dev/null 2>&1; then
    n=$(jq '.models | length' data/models.json)
    i=0
    while [ "$i" -lt "$n" ]; do
        name=$(jq -r ".models[$i].name" data/models.json)
        jq ".models[$i].config" data/models.json >"$out/hf/catalog-$name.json"
        i=$((i + 1))
    done
    n=$(jq '.clusters | length' data/clusters.json)
    i=0
    while [ "$i" -lt "$n" ]; do
        name=$(jq -r ".clusters[$i].name" data/clusters.json)
        jq ".clusters[$i]" data/clusters.json >"$out/cluster/catalog-$name.json"
        i=$((i + 1))
    done
    n=$(jq '.devices | length' data/devices.json)
    i=0
    while [ "$i" -lt "$n" ]; do
        name=$(jq -r ".devices[$i].name" data/devices.json)
        jq "{name: \"inline\", device: .devices[$i], devices: 16,
             levels: [{name: \"nvlink\", size: 8, bw_GBps: 300, latency_us: 2},
                      {name: \"ib\", size: 16, bw_GBps: 25, efficiency: 0.9}]}" \
            data/devices.json >"$out/cluster/device-$name.json"
        i=$((i + 1))
    done
else
    echo "seed.sh: jq is not installed; the catalog seeds are left out" >&2
fi

for f in tests/data/hf/*.json; do cp "$f" "$out/hf/test-$(basename "$f")"; done
for f in tests/golden/*.json tests/golden/export/*.json; do
    [ -f "$f" ] || continue
    cp "$f" "$out/hf/golden-$(basename "$f")"
    cp "$f" "$out/cluster/golden-$(basename "$f")"
done
for f in tests/data/graph/*.json; do
    [ -f "$f" ] && cp "$f" "$out/graph/test-$(basename "$f")"
done
for f in tests/data/*.csv; do cp "$f" "$out/csv/test-$(basename "$f")"; done
for f in tests/data/statef/*.csv; do cp "$f" "$out/statef/test-$(basename "$f")"; done
# the first rows of the shared validation data, where it is checked out
for f in ../shared/data/validation/*.csv; do
    [ -f "$f" ] || continue
    head -n 8 "$f" >"$out/csv/shared-$(basename "$f")"
done

# strategy and space strings as the tests and the README give them
i=0
grep -ho -- '--\(strategy\|fix\|space\) "[^"]*"' tests/e2e/*.sh README.md 2>/dev/null | sort -u |
while IFS= read -r line; do
    i=$((i + 1))
    s=${line#*\"}
    s=${s%\"}
    printf '%s' "$s" >"$out/strategy/e2e-$i"
    printf '%s' "$s" >"$out/space/e2e-$i"
done
for f in tests/golden/*.json; do
    [ -f "$f" ] || continue
    if command -v jq >/dev/null 2>&1; then
        jq -j '.strategy_string // empty' "$f" >"$out/strategy/golden-$(basename "$f" .json)"
    fi
done

for n in $names; do
    rm -rf "${real_out:?}/$n"
    mkdir -p "$real_out"
    cp -r "$out/$n" "$real_out/$n"
done
