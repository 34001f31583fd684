#!/bin/sh
# End-to-end `partita checkpoint` (SPEC section 9): the periods of Aupy et
# al.'s Table 2 (C = R = 600 s, D = 60 s) in the JSON keys SPEC names, the
# table, --help, and bad input refused with exit 2 naming the option and
# the value.
. "$(dirname "$0")/lib/common.sh" || exit 1

$P checkpoint --mtbf-s 240601 --checkpoint-s 600 --restart-s 600 --downtime-s 60 --json >"$tmp/j" 2>"$tmp/err" ||
    bad "checkpoint --json failed: $(cat "$tmp/err")"
python3 - "$tmp/j" <<'PY' || bad "checkpoint --json is not Aupy et al.'s Table 2 row (N = 16384)"
import json, sys
j = json.load(open(sys.argv[1]))
want = {"young_s": 17592, "daly_s": 17615, "rfo_s": 16968, "optimal_s": 17194}
for k, v in want.items():
    assert abs(j[k] - v) <= 1, (k, j[k], v)
assert abs(j["daly_high_order_s"] - j["optimal_s"]) <= 2, j["daly_high_order_s"]
assert abs(j["optimal_efficiency"] - 0.929) <= 0.0006, j["optimal_efficiency"]
PY
# the third row, and --opt=value
$P checkpoint --mtbf-s=15038 --checkpoint-s=600 --restart-s=600 --downtime-s=60 --json >"$tmp/j" 2>"$tmp/err" ||
    bad "checkpoint --opt=value failed: $(cat "$tmp/err")"
python3 - "$tmp/j" <<'PY' || bad "checkpoint --json is not Aupy et al.'s Table 2 row (N = 262144)"
import json, sys
j = json.load(open(sys.argv[1]))
for k, v in {"young_s": 4848, "daly_s": 4940, "rfo_s": 4154, "optimal_s": 4458}.items():
    assert abs(j[k] - v) <= 1, (k, j[k], v)
assert abs(j["optimal_efficiency"] - 0.712) <= 0.0005
PY
# RFO has no value when the MTBF is below downtime + restart: null, and the
# table says so
$P checkpoint --mtbf-s 500 --checkpoint-s 60 --restart-s 600 --json | grep -q '"rfo_s": null' ||
    bad "rfo_s is not null when mu <= D + R"
$P checkpoint --mtbf-s 500 --checkpoint-s 60 --restart-s 600 | grep -q 'RFO.*undefined' ||
    bad "the table does not say RFO is undefined"
$P checkpoint --mtbf-s 240601 --checkpoint-s 600 --restart-s 600 --downtime-s 60 >"$tmp/t" ||
    bad "checkpoint (table) failed"
grep -q '^optimum, exponential failures  *17194  *0.9285$' "$tmp/t" || bad "table: no optimum line: $(cat "$tmp/t")"
grep -q '^Daly, higher order (2006)  *17194 ' "$tmp/t" || bad "table: no Daly higher-order line"

$P checkpoint --help >"$tmp/h" || bad "checkpoint --help failed"
for o in mtbf-s checkpoint-s restart-s downtime-s json; do
    grep -qE -- "^ *--$o(=[^ ]+)?  +[a-zA-Z]" "$tmp/h" || bad "checkpoint --help: no line for --$o"
done
$P --help | grep -q '^  checkpoint' || bad "partita --help does not list checkpoint"

expect2 "negative MTBF" '--mtbf-s: "-5"' $P checkpoint --mtbf-s -5 --checkpoint-s 600 --restart-s 600
expect2 "zero checkpoint" '--checkpoint-s: "0"' $P checkpoint --mtbf-s 1e5 --checkpoint-s 0 --restart-s 600
expect2 "text restart" '--restart-s: "soon"' $P checkpoint --mtbf-s 1e5 --checkpoint-s 60 --restart-s soon
expect2 "inf downtime" '--downtime-s: "inf"' $P checkpoint --mtbf-s 1e5 --checkpoint-s 60 --restart-s 60 --downtime-s inf
expect2 "missing MTBF" '--mtbf-s' $P checkpoint --checkpoint-s 60 --restart-s 60
expect2 "missing restart" '--restart-s' $P checkpoint --mtbf-s 1e5 --checkpoint-s 60
expect2 "stray argument" 'unexpected argument "x"' $P checkpoint x --mtbf-s 1e5 --checkpoint-s 60 --restart-s 60
expect2 "unknown option" 'unknown option "--mtbf-h"' $P checkpoint --mtbf-h 1e5 --checkpoint-s 60 --restart-s 60
exit $fail
