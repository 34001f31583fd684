#!/bin/sh
# Runs every unit-test binary given, then the end-to-end tests; prints one
# closing line "N passed, N failed" and exits non-zero if anything failed.
pass=0; fail=0
for t in "$@"; do
  if "$t"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $t"; fi
done
for e in tests/e2e/*.sh; do
  [ -f "$e" ] || continue
  if BUILD="${BUILD:-build}" sh "$e"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $e"; fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
