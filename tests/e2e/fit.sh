#!/bin/sh
# End-to-end tools/fit.c (BUILD/fit, built by `make test`): it fits only the
# rows on the device it fits, by validate's own mapping of the gpu column
# (data/gpus.json).  Four A100 rows of data/validation/published_runs.csv
# (Narayanan et al. SC'21 Table 1, CSV lines 2-5) are fitted alone, then with
# two H100 rows (Megatron-LM's weak-scaling table, published lines 132-133)
# appended as lines 6 and 7: the constants must not move, and each half must
# say it skipped one H100 row.  --device h100 fits those two instead; --device
# v100 on tests/data/ttt_small.csv finds the time-to-train rows' V100s.
# Few trust-region iterations (--iterations 60) keep it quick; the comparison is
# exact because the same rows give the same steps.
. "$(dirname "$0")/lib/common.sh" || exit 1
F=$BUILD/fit
if [ ! -x "$F" ]; then
    bad "$F is not built (make test builds it)"
    exit 1
fi
runs=data/validation/published_runs.csv
sed -n '1,5p' "$runs" >"$tmp/a100.csv"
{ cat "$tmp/a100.csv"; sed -n '132,133p' "$runs"; } >"$tmp/mixed.csv"
grep -q ',A100-SXM4-80GB,' "$tmp/a100.csv" || bad "published lines 2-5 are no longer A100 rows"
[ "$(tail -n 2 "$tmp/mixed.csv" | grep -c ',H100,')" -eq 2 ] || bad "published lines 132-133 are no longer H100 rows"

"$F" --iterations 60 "$tmp/a100.csv" >"$tmp/a.out" 2>&1 || bad "fit a100.csv: exit $?: $(cat "$tmp/a.out")"
"$F" --iterations 60 "$tmp/mixed.csv" >"$tmp/m.out" 2>&1 || bad "fit mixed.csv: exit $?: $(cat "$tmp/m.out")"
# the constants: "  NAME  VALUE" lines (the per-file lines name a path)
grep -E '^  [a-z_A-Z]+ +[0-9.e+-]+$' "$tmp/a.out" >"$tmp/a.k"
grep -E '^  [a-z_A-Z]+ +[0-9.e+-]+$' "$tmp/m.out" >"$tmp/m.k"
[ "$(wc -l <"$tmp/a.k")" -eq 7 ] || bad "fit printed $(wc -l <"$tmp/a.k") constants, want 7: $(cat "$tmp/a.out")"
cmp -s "$tmp/a.k" "$tmp/m.k" || bad "the H100 rows moved the A100 fit: $(paste "$tmp/a.k" "$tmp/m.k")"
# each half: 2 A100 rows fitted / held out, and (mixed) 1 H100 row skipped
for h in "fit  half:    2 rows" "held half:    2 rows"; do
    grep -q "a100.csv  *$h,.*; 0 rows not on a100 skipped$" "$tmp/a.out" || bad "a100.csv: no \"$h ... 0 rows not on a100 skipped\": $(cat "$tmp/a.out")"
    grep -q "mixed.csv  *$h,.*; 1 rows not on a100 skipped$" "$tmp/m.out" || bad "mixed.csv: no \"$h ... 1 rows not on a100 skipped\": $(cat "$tmp/m.out")"
done

"$F" --iterations 60 --device h100 "$tmp/mixed.csv" >"$tmp/h.out" 2>&1 || bad "fit --device h100: exit $?"
for h in "fit  half:    1 rows" "held half:    1 rows"; do
    grep -q "mixed.csv  *$h,.*; 2 rows not on h100 skipped$" "$tmp/h.out" || bad "--device h100: no \"$h ... 2 rows not on h100 skipped\": $(cat "$tmp/h.out")"
done

"$F" --iterations 60 --device v100 tests/data/ttt_small.csv >"$tmp/v.out" 2>&1 || bad "fit --device v100: exit $?"
grep -q "ttt_small.csv  *fit  half:    2 rows,.*; 0 rows not on v100 skipped$" "$tmp/v.out" ||
    bad "--device v100 ttt_small.csv: the two even-line V100 rows are not fitted: $(cat "$tmp/v.out")"

"$F" --iterations 0 "$tmp/a100.csv" >"$tmp/o" 2>"$tmp/e"
rc=$?
[ "$rc" -eq 2 ] || bad "--iterations 0: exit $rc, want 2"
grep -q -- "--iterations 0 is not a whole number" "$tmp/e" || bad "--iterations 0: stderr $(cat "$tmp/e")"
exit "$fail"
