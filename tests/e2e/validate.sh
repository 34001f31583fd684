#!/bin/sh
# End-to-end `partita validate`: tests/data/runs_small.csv (three rows copied
# from published_runs.csv: Narayanan et al. SC'21 Table 1 GPT-1.7B, Korthikanti
# et al. 2022 Table 5 GPT-22B selective+SP, llm-foundry MPT-70b on 64 A100) is
# predicted in full; and every row of data/validation/published_runs.csv is
# read and at least 120 of them predicted.
. "$(dirname "$0")/lib/common.sh" || exit 1

# check JSON MIN_PREDICTED ROWS: the keys of SPEC section 6, at least
# MIN_PREDICTED rows predicted, ROWS rows in all.
check() {
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$@" <<'PY'
import json, sys
path, least, nrows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
o = json.load(open(path))
bad = []
for k in ("rows", "predicted_rows", "skipped_rows", "mean_abs_error", "worst_abs_error"):
    if k not in o:
        bad.append("no key " + k)
if not bad:
    rows = o["rows"]
    if len(rows) != nrows:
        bad.append("%d rows, want %d" % (len(rows), nrows))
    if o["predicted_rows"] < least:
        bad.append("predicted_rows %d < %d" % (o["predicted_rows"], least))
    if o["predicted_rows"] + o["skipped_rows"] != len(rows):
        bad.append("predicted_rows + skipped_rows != len(rows)")
    if not 0 <= o["mean_abs_error"] <= o["worst_abs_error"]:
        bad.append("mean_abs_error %g, worst_abs_error %g" % (o["mean_abs_error"], o["worst_abs_error"]))
    for r in rows:
        for k in ("source", "model", "metric", "measured"):
            if k not in r:
                bad.append("line %s: no %s" % (r.get("line"), k))
        if "skipped" not in r and not ("predicted" in r and "error" in r):
            bad.append("line %s: neither predicted+error nor skipped" % r.get("line"))
for b in bad:
    print(path + ": " + b)
sys.exit(1 if bad else 0)
PY
    else
        for k in rows predicted_rows skipped_rows mean_abs_error worst_abs_error; do
            grep -q "^  \"$k\": " "$1" || { echo "$1: no key $k"; return 1; }
        done
        n=$(sed -n 's/^  "predicted_rows": \([0-9]*\).*/\1/p' "$1")
        [ "${n:-0}" -ge "$2" ] || { echo "$1: predicted_rows ${n:-?} < $2"; return 1; }
    fi
}

# the small CSV shipped with the tests: all three rows predicted
if "$P" validate tests/data/runs_small.csv --json >"$tmp/small.json" 2>"$tmp/err"; then
    check "$tmp/small.json" 3 3 || bad "runs_small.csv: see above"
else
    bad "validate tests/data/runs_small.csv --json: exit $?: $(cat "$tmp/err")"
fi
if "$P" validate tests/data/runs_small.csv >"$tmp/small.txt" 2>"$tmp/err"; then
    grep -q "^3 rows predicted, 0 skipped" "$tmp/small.txt" ||
        bad "runs_small.csv: the table does not end with \"3 rows predicted, 0 skipped\""
else
    bad "validate tests/data/runs_small.csv: exit $?: $(cat "$tmp/err")"
fi

# a mixture-of-experts row (moe_experts, moe_topk, ep) is priced, not skipped:
# Mixtral 8x7B's sizes (as a CSV row builds it: a GPT-style MLP) with
# Megatron's example strategy (tp=1 pp=4 ep=8).  The measured_value 1 is not
# a measurement; only that the row is priced is checked.
hdr=$(head -1 tests/data/runs_small.csv)
printf '%s
%s
' "$hdr" \
    "moe check,mixtral-like,47,32,4096,32,8,14336,4096,32000,8,2,H100-SXM5-80GB,64,1,4,16,1,8,,1,256,none,no,1,iter_time_s,1,not a measurement" \
    >"$tmp/moe.csv"
if "$P" validate "$tmp/moe.csv" --json >"$tmp/moe.json" 2>"$tmp/err"; then
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$tmp/moe.json" <<'PY' || bad "moe row: not priced"
import json, sys
o = json.load(open(sys.argv[1]))
r = o["rows"][0]
sys.exit(0 if o["predicted_rows"] == 1 and r.get("predicted", 0) > 0 else 1)
PY
    fi
else
    bad "validate a MoE row: exit $?: $(cat "$tmp/err")"
fi

# Korthikanti Fig. 1 parameters+gradients+optimizer (tests/data/runs_fig1.csv,
# two rows of published_runs.csv): the figure counts 18 bytes per parameter of
# the transformer layers on a device, no embedding -- GPT-1T at tp=8 pp=64:
# a layer holds 12h^2 + 13h parameters, of which the two layer norms' 4h are
# not split by tp, so 2 x ((12 x 25600^2 + 9 x 25600) / 8 + 4 x 25600)
# = 1,966,342,400 parameters x 18 B = 32.963 GiB; GPT-530B at tp=8 pp=35:
# 3 layers of h=20480, 1,887,751,680 x 18 B = 31.646 GiB.
if "$P" validate tests/data/runs_fig1.csv --json >"$tmp/fig1.json" 2>"$tmp/err"; then
    python3 - "$tmp/fig1.json" <<'PY' || bad "Fig. 1 parameter memory not priced as the figure counts it"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
want = [1966342400 * 18 / 2**30, 1887751680 * 18 / 2**30]
got = [r["predicted"] for r in rows]
assert len(got) == 2 and all(abs(g - w) < 1e-6 * w for g, w in zip(got, want)), (got, want)
PY
else
    bad "validate tests/data/runs_fig1.csv: exit $?: $(cat "$tmp/err")"
fi

# the published runs (data/validation)
csv=data/validation/published_runs.csv
rows=$(($(wc -l <"$csv") - 1)) # one line per row: the CSV quotes no newlines
if "$P" validate "$csv" --json >"$tmp/all.json" 2>"$tmp/err"; then
    check "$tmp/all.json" 120 "$rows" || bad "published_runs.csv: see above"
else
    bad "validate published_runs.csv --json: exit $?: $(cat "$tmp/err")"
fi
exit $fail
