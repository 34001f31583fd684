#!/bin/sh
# bench/run.sh BUILD -- speed and accuracy benchmarks (`make bench` runs it
# after building).  Prints numbers for people and the README; never fails on
# time, only when something is broken (bench_cost does not build or run, or
# partita validate refuses a CSV).
#
#   1. speed: bench/bench_cost.c, built here with the Makefile's flags against
#      BUILD/libpartita.a -- strategies priced per second on one core; and
#      bench/bench_search.c -- the plan search on gpt-1t / 3072 GPUs, plain
#      against pruned against threaded, as ratios measured in one run; and
#      bench/bench_place.c -- model-parallel placement, the heuristic against
#      the integer program, step found and time taken.
#   2. accuracy: `BUILD/partita validate CSV --json` on the three CSVs in
#      data/validation, digested by python3 (standard library only):
#      step-time and memory errors overall, on the FIT half (even CSV lines,
#      the rows the efficiency constants are fitted to, see tools/fit.c) and
#      the HELD-OUT half (odd lines, out of sample), and per source group;
#      time to train and epochs to target by workload and, for time to
#      train, by accelerator generation (V100, A100, H100, ...); and an
#      in-sample bound: each framework x generation group times the one
#      factor that fits its own rows best (the group-wide offset removed).
#      Without python3 it prints partita's own summary lines instead.
#   4. few-shot accuracy: bench/bench_fewshot.c -- for every public group of
#      training runs in published_runs.csv (one framework on one device, at
#      least 12 priced rows), `partita calibrate`'s fit on three of its rows
#      (fastest, median, slowest measured step) predicts the rest; mean
#      |step-time error| next to the zero-shot error of the same rows, and
#      two in-sample bounds on them (calibrated on all the group's rows; the
#      best single factor).  Never fails: a group that cannot be calibrated says so in the table.
#   5. sweep on MPI: bench/bench_sweep.sh -- a 1000-question `partita sweep`
#      of plan questions and a 144-question one of serving questions, each on
#      one process and under `mpirun -np 2`, the speed-up and whether the
#      outputs are the same bytes (skipped, saying why, without MPI).
#
# Environment: CC, OPT, EXTRA_CFLAGS, EXTRA_LDFLAGS as for make;
# BENCH_SECONDS (default 1): minimum wall time of each timed loop.
set -u

BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VALID="$ROOT/data/validation"
CC=${CC:-cc}
OPT=${OPT:--O2 -g}
status=0

cd "$ROOT" || exit 1
case $BUILD in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
if [ ! -f "$BUILD/libpartita.a" ] || [ ! -x "$BUILD/partita" ]; then
    echo "bench: $BUILD/libpartita.a or $BUILD/partita is missing; run make first" >&2
    exit 1
fi

# ---- 1. speed -----------------------------------------------------------------
echo "== speed =="
# shellcheck disable=SC2086  # OPT and EXTRA_* are word lists, as in the Makefile
if $CC -std=c11 -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes \
       -Werror $OPT -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc ${EXTRA_CFLAGS:-} \
       bench/bench_cost.c "$BUILD/libpartita.a" -ljansson -lglpk -lgsl -lgslcblas -lm -lpthread ${EXTRA_LDFLAGS:-} \
       -o "$BUILD/bench_cost"; then
    "$BUILD/bench_cost" "${BENCH_SECONDS:-1}" || { echo "bench: bench_cost failed" >&2; status=1; }
else
    echo "bench: bench/bench_cost.c does not build" >&2
    status=1
fi
echo
# shellcheck disable=SC2086
if $CC -std=c11 -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes \
       -Werror $OPT -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc ${EXTRA_CFLAGS:-} \
       bench/bench_search.c "$BUILD/libpartita.a" -ljansson -lglpk -lgsl -lgslcblas -lm -lpthread ${EXTRA_LDFLAGS:-} \
       -o "$BUILD/bench_search"; then
    "$BUILD/bench_search" || { echo "bench: bench_search failed" >&2; status=1; }
else
    echo "bench: bench/bench_search.c does not build" >&2
    status=1
fi
echo
# shellcheck disable=SC2086
if $CC -std=c11 -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes \
       -Werror $OPT -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc ${EXTRA_CFLAGS:-} \
       bench/bench_place.c "$BUILD/libpartita.a" -ljansson -lglpk -lgsl -lgslcblas -lm -lpthread ${EXTRA_LDFLAGS:-} \
       -o "$BUILD/bench_place"; then
    "$BUILD/bench_place" || { echo "bench: bench_place failed" >&2; status=1; }
else
    echo "bench: bench/bench_place.c does not build" >&2
    status=1
fi

# ---- 2. accuracy ----------------------------------------------------------------
echo
echo "== accuracy: partita validate against measured runs =="

PY=
if command -v python3 >/dev/null 2>&1; then PY=python3; fi
TMP=$(mktemp -d 2>/dev/null || echo "/tmp/partita-bench.$$")
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT

# The digest reads `partita validate --json` (SPEC section 6).  A row is a
# step-time/throughput row or a memory row by its metric, as src/validate/validate.c
# classifies them (or by "is_time"/"is_memory" if the JSON ever carries them).
cat >"$TMP/digest.py" <<'EOF'
import json, sys

path, name, by_source, csv_path = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
TIME = {"iter_time_s", "tflops_per_gpu", "tokens_per_s_per_gpu", "mfu", "layer_fwd_bwd_ms"}
MEM = {"mem_activation_gib_per_gpu", "mem_weights_grads_optimizer_gib_per_gpu",
       "activation_mem_pct_of_tp_baseline"}

with open(path) as f:
    doc = json.load(f)
rows = [r for r in doc.get("rows", []) if "skipped" not in r and "error" in r]
skipped = [r for r in doc.get("rows", []) if "skipped" in r]

def kind(r):
    if r.get("is_time") or r["metric"] in TIME:
        return "time"
    if r.get("is_memory") or r["metric"] in MEM:
        return "mem"
    return "other"

def stats(rs):
    e = [abs(r["error"]) for r in rs]
    return (len(e), 100.0 * sum(e) / len(e) if e else None, 100.0 * max(e) if e else None)

def cell(rs):
    n, mean, worst = stats(rs)
    if not n:
        return "%5d %8s %8s" % (0, "-", "-")
    return "%5d %7.1f%% %7.1f%%" % (n, mean, worst)

def line(label, rs):
    t = [r for r in rs if kind(r) == "time"]
    m = [r for r in rs if kind(r) == "mem"]
    nf = sum(1 for r in t if r.get("fits") is False)
    print("  %-22s %5d   %s   %s%s" % (label, len(rs), cell(t), cell(m),
          "   (%d time row%s predicted not to fit)" % (nf, "" if nf == 1 else "s") if nf else ""))

print("%s: %d rows, %d predicted, %d skipped" % (name, len(doc.get("rows", [])), len(rows), len(skipped)))
print("  %-22s %5s   %5s %8s %8s   %5s %8s %8s" % ("", "rows", "time", "mean|e|", "worst",
                                                    "mem", "mean|e|", "worst"))
line("all", rows)
line("FIT (even lines)", [r for r in rows if r["line"] % 2 == 0])
line("HELD-OUT (odd lines)", [r for r in rows if r["line"] % 2 == 1])

for k, what in (("time", "step time"), ("mem", "memory")):
    rs = [r for r in rows if kind(r) == k]
    if rs:
        w = max(rs, key=lambda r: abs(r["error"]))
        print("  worst %-9s line %d %s%s, %s: measured %.4g, predicted %.4g (%+.1f%%)" % (
            what + ":", w["line"], "(held out) " if w["line"] % 2 else "(fit) ",
            w["model"], w["metric"], w["measured"], w["predicted"], 100.0 * w["error"]))

if by_source and rows:
    # the row's GPU and framework come from the CSV itself (one physical line
    # per row: the file quotes no newlines), joined by line number
    import csv as csvmod
    with open(csv_path, newline="") as f:
        lines = list(csvmod.reader(f))
    head = lines[0]
    col = {k: i for i, k in enumerate(head)}
    def field(r, k):
        f = lines[r["line"] - 1] if r["line"] - 1 < len(lines) else []
        return f[col[k]] if k in col and col[k] < len(f) else ""
    def framework(r):
        src = field(r, "source").strip().strip('"')
        first = src.split()[0] if src.split() else "?"
        if first.startswith("mlcommons/"):
            return "MLPerf Training (mlcommons)"
        if first.startswith("https://docs.nvidia.com/nemo"):
            return "NVIDIA/NeMo"
        if "/" in first:
            return first.split("@")[0]
        return first  # a paper: its first author
    def table(title, key):
        groups = {}
        for r in rows:
            groups.setdefault(key(r), []).append(r)
        print("  by %s (mean |error|; held-out = odd lines):" % title)
        print("    %-30s %5s %8s %8s   %5s %8s   %s" % (title, "time", "mean|e|", "held-out",
              "mem", "mean|e|", "not fit"))
        for g, rs in sorted(groups.items(), key=lambda kv: (stats(kv[1])[1], kv[0])):
            t = [r for r in rs if kind(r) == "time"]
            m = [r for r in rs if kind(r) == "mem"]
            ho = stats([r for r in t if r["line"] % 2 == 1])
            fmt = lambda s: "%7.1f%%" % s[1] if s[0] else "%8s" % "-"
            nf = sum(1 for r in t if r.get("fits") is False)
            print("    %-30.30s %5d %s %s   %5d %s   %d" % (g, len(t), fmt(stats(t)), fmt(ho),
                  len(m), fmt(stats(m)), nf))
    def generation(r):
        # the device generations the constants are fitted per (data/devices.json):
        # torchtitan's 96 GB 500 W H100 (HBM2e) has its own
        g = field(r, "gpu").upper()
        if "A100" in g:
            return "A100"
        if "HBM2E" in g:
            return "H100 96 GB 500 W"
        if "H100" in g or "H200" in g:
            return "H100/H200"
        if any(x in g for x in ("B200", "B300", "GB200", "GB300")):
            return "Blackwell"
        return g or "?"
    table("framework", framework)
    table("generation", generation)
    table("gpu", lambda r: field(r, "gpu") or "?")
    # An in-sample bound, not a prediction: each framework x generation
    # group's time rows with their predicted steps times the one factor
    # that fits that group's own measurements best (a grid over +-50%).
    # What is left is scatter within groups, which no constant the rows
    # of a group share -- a device's efficiency, a calibration -- removes.
    import math
    def scaled(r, s):
        e = r["error"]
        stepwise = r["metric"] in ("iter_time_s", "layer_fwd_bwd_ms")
        return abs((1.0 + e) * s - 1.0) if stepwise else abs((1.0 + e) / s - 1.0)
    groups = {}
    for r in rows:
        if kind(r) == "time":
            groups.setdefault((framework(r), generation(r)), []).append(r)
    tot = n = 0
    for rs in groups.values():
        tot += min(sum(scaled(r, math.exp(k / 1000.0)) for r in rs) for k in range(-500, 501))
        n += len(rs)
    if n:
        print("  in-sample bound: the %d framework x generation groups' time rows, each group's predictions"
              % len(groups))
        print("    times the one factor that fits its own rows best: %.1f%% mean |error| (%d rows; %.1f%% as predicted)"
              % (100.0 * tot / n, n, 100.0 * sum(abs(r["error"]) for rs in groups.values() for r in rs) / n))
# metrics that are neither (time to train, epochs to target): by metric and
# by workload, with the held-out half beside
other = [r for r in rows if kind(r) == "other"]
if other:
    def half(rs, odd):
        n, mean, _ = stats([r for r in rs if r["line"] % 2 == odd])
        return "%6.1f%% (%d)" % (mean, n) if n else "%11s" % "-"
    held = lambda rs: half(rs, 1) + "  fit " + half(rs, 0)
    print("  other metrics: mean |error| (rows), worst, held out (odd lines), fit (even):")
    for met in sorted({r["metric"] for r in other}):
        rs = [r for r in other if r["metric"] == met]
        n, mean, worst = stats(rs)
        print("    %-24s all %6.1f%% (%d)  worst %6.1f%%  held out %s" % (met, mean, n, worst, held(rs)))
        for mod in sorted({r["model"] for r in rs}):
            ms = [r for r in rs if r["model"] == mod]
            n, mean, worst = stats(ms)
            print("      %-22.22s all %6.1f%% (%d)  worst %6.1f%%  held out %s" % (mod, mean, n, worst, held(ms)))
    # time to train by accelerator generation (the time-to-train CSV's
    # accelerator column, joined by line number), with the rows of each
    # generation that validate skipped beside
    import csv as csvmod
    with open(csv_path, newline="") as f:
        tl = list(csvmod.reader(f))
    tcol = {k: i for i, k in enumerate(tl[0])} if tl else {}
    if "accelerator" in tcol:
        def gen(line):
            f = tl[line - 1] if 0 < line <= len(tl) else []
            a = f[tcol["accelerator"]].upper() if tcol["accelerator"] < len(f) else ""
            for g in ("GB300", "GB200", "B300", "B200", "H200", "H800", "H100", "A100", "V100", "P100", "P40", "TPU"):
                if g in a:
                    return g
            return "other"
        tt = [r for r in other if r["metric"] == "time_to_train_min"]
        sk = [r for r in skipped if r.get("metric") == "time_to_train_min"]
        print("  time to train by accelerator generation: mean |error| (rows), held out (odd lines), fit (even):")
        for g in sorted({gen(r["line"]) for r in tt + sk}):
            rs = [r for r in tt if gen(r["line"]) == g]
            ns = sum(1 for r in sk if gen(r["line"]) == g)
            n, mean, worst = stats(rs)
            if n:
                print("    %-8s all %6.1f%% (%d)  worst %6.1f%%  held out %s  skipped %d" % (
                    g, mean, n, worst, held(rs), ns))
            else:
                print("    %-8s not priced, skipped %d" % (g, ns))
reasons = {}
for r in skipped:
    reasons[r["skipped"]] = reasons.get(r["skipped"], 0) + 1
for why, n in sorted(reasons.items(), key=lambda kv: -kv[1])[:5]:
    print("  skipped %4d: %s" % (n, why))
EOF

for csv in published_runs.csv single_node_runs.csv time_to_train_runs.csv; do
    echo
    if [ ! -f "$VALID/$csv" ]; then
        echo "$csv: (skipped: $VALID/$csv is absent)"
        continue
    fi
    if [ -n "$PY" ]; then
        if ! "$BUILD/partita" validate "$VALID/$csv" --json >"$TMP/out.json" 2>"$TMP/err"; then
            echo "$csv: partita validate failed:"; cat "$TMP/err"
            status=1
            continue
        fi
        by_source=0
        [ "$csv" = published_runs.csv ] && by_source=1
        if ! $PY "$TMP/digest.py" "$TMP/out.json" "$csv" "$by_source" "$VALID/$csv"; then
            echo "$csv: could not digest the JSON of partita validate" >&2
            status=1
        fi
    else
        echo "$csv (python3 absent: partita's own summary; no fit/held-out split):"
        if "$BUILD/partita" validate "$VALID/$csv" >"$TMP/out.txt" 2>"$TMP/err"; then
            sed -n '/^$/,$p' "$TMP/out.txt" | sed '/^$/d; s/^/  /'
        else
            echo "  partita validate failed:"; cat "$TMP/err"
            status=1
        fi
    fi
done

# ---- 3. what the search claims over expert strategies ---------------------------
# For every published run whose strategy is in the search's space (it fits and
# Megatron-LM's release runs it: validate --plans' published_searched), the
# best plan's predicted step against the published strategy's predicted step
# and against its measured step (iter_time_s as measured; a throughput row's
# measured step is the predicted one scaled by predicted/measured throughput).
# Grouped by source, GPU and the published run's recomputation.
echo
echo "== claimed gain of the best plan over the published strategy (validate --plans) =="
if [ -n "$PY" ] && "$BUILD/partita" validate "$VALID/published_runs.csv" --plans --json >"$TMP/plans.json" 2>"$TMP/err" &&
   "$BUILD/partita" validate "$VALID/published_runs.csv" --json >"$TMP/rows.json" 2>>"$TMP/err"; then
    $PY - "$TMP/plans.json" "$TMP/rows.json" "$VALID/published_runs.csv" <<'EOF'
import csv, json, sys
plans = json.load(open(sys.argv[1]))["runs"]
rows = {r["line"]: r for r in json.load(open(sys.argv[2]))["rows"]}
lines = list(csv.reader(open(sys.argv[3], newline="")))
col = {k: i for i, k in enumerate(lines[0])}
groups = {}
for p in plans:
    if not p["published_searched"]:
        continue
    f, w = lines[p["line"] - 1], rows[p["line"]]
    meas = w["measured"] if w["metric"] == "iter_time_s" else p["published_step_time_s"] * w["predicted"] / w["measured"]
    src = f[col["source"]].strip('"').split()[0].split("@")[0]
    key = "%s, %s, recompute %s" % (src, f[col["gpu"]], f[col["recompute"]] or "not given")
    groups.setdefault(key, []).append((p["published_step_time_s"] / p["best_step_time_s"] - 1,
                                       meas / p["best_step_time_s"] - 1))
print("  %-52s %4s %12s %12s   %s" % ("group", "runs", "vs predicted", "vs measured", "measured range"))
for k, g in sorted(groups.items()):
    a = [x for x, _ in g]; b = [y for _, y in g]
    print("  %-52.52s %4d %11.1f%% %11.1f%%   %5.1f%% .. %5.1f%%" % (k, len(g), 100 * sum(a) / len(a),
          100 * sum(b) / len(b), 100 * min(b), 100 * max(b)))
EOF
else
    echo "(skipped: python3 absent or partita validate failed)"; cat "$TMP/err" 2>/dev/null
fi

# ---- 4. few-shot: calibrate on three rows of a group, predict the rest ------------
echo
echo "== few-shot accuracy: partita calibrate on 3 rows of each public group =="
# shellcheck disable=SC2086
if $CC -std=c11 -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes \
       -Werror $OPT -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc ${EXTRA_CFLAGS:-} \
       bench/bench_fewshot.c "$BUILD/libpartita.a" -ljansson -lglpk -lgsl -lgslcblas -lm -lpthread ${EXTRA_LDFLAGS:-} \
       -o "$BUILD/bench_fewshot"; then
    "$BUILD/bench_fewshot" "$VALID/published_runs.csv" || echo "(few-shot: bench_fewshot could not read the CSV)"
else
    echo "(few-shot: bench/bench_fewshot.c does not build)"
fi
echo
sh "$ROOT/bench/serve.sh" "$BUILD" || status=1
# ---- 5. sweep on MPI: 1000 plan and 144 serving questions, 1 process and 2 ranks ---
echo
echo "== sweep: 1000 plan questions and 144 serving questions, 1 process against 2 MPI ranks =="
sh bench/bench_sweep.sh "$BUILD" || status=1

exit $status
