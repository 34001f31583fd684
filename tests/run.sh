#!/bin/sh
# Runs every unit-test binary given, then the end-to-end tests, TEST_JOBS at a
# time (default: the machine's processors; the tests never assert on time and
# each end-to-end script works in its own temporary folder); prints each
# test's output in order once all have run, then the five that took longest
# (wall seconds, for keeping CI inside its time; nothing is asserted on it)
# and one closing line "N passed, N failed", and exits non-zero if anything
# failed.
TDIR=$(mktemp -d) || exit 1
trap 'rm -rf "$TDIR"' EXIT
jobs=${TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
BUILD="${BUILD:-build}"
export BUILD TDIR
i=0
for t in "$@" tests/e2e/*.sh; do
  [ -f "$t" ] || continue
  i=$((i+1))
  echo "$(printf %04d "$i") $t"
done >"$TDIR/list"
# a line each: the test's number ($0) and path ($1); its output goes to
# NNNN.out, its exit status to NNNN.rc, its start and end times to NNNN.t
xargs -P "$jobs" -L 1 sh -c 'date +%s.%N >"$TDIR/$0.t"
case "$1" in *.sh) sh "$1" ;; *) "$1" ;; esac >"$TDIR/$0.out" 2>&1
echo $? >"$TDIR/$0.rc"; date +%s.%N >>"$TDIR/$0.t"' <"$TDIR/list"
pass=0; fail=0
while read -r n t; do
  cat "$TDIR/$n.out" 2>/dev/null
  if [ "$(cat "$TDIR/$n.rc" 2>/dev/null)" = 0 ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $t"; fi
done <"$TDIR/list"
while read -r n t; do
  awk -v t="$t" 'NR == 1 { s = $1 } NR == 2 { printf "%8.1f s  %s\n", $1 - s, t }' "$TDIR/$n.t" 2>/dev/null
done <"$TDIR/list" | sort -rn | head -5 | sed 's/^/slowest: /'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
