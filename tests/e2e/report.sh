#!/bin/sh
# End-to-end `--report FILE.html` (issue 20, SPEC section 11) on plan,
# scale and serve: one self-contained file (no http:, no src=, no @import, no <link>,
# no external script), every section the issue names present with its charts
# (the timeline's stage rows and memory chart, the bars of memory and time per
# plan with their units and legends, the scaling curves), dark-theme and print
# styles, the same bytes twice, stdout unchanged by --report, and a report
# that cannot be written refused with exit status 2 and nothing left behind.
. "$(dirname "$0")/lib/common.sh" || exit 1

# self_contained NAME FILE: no reference outside the file
self_contained() {
    for pat in 'http:' 'https:' 'src=' '@import' '<link' '<script' 'url('; do
        grep -qiF -- "$pat" "$2" && bad "$1: the report holds \"$pat\": $(grep -oiF -- "$pat" "$2" | head -n 1)"
    done
    head -c 15 "$2" | grep -qF '<!DOCTYPE html>' || bad "$1: not an HTML document"
    tail -n 1 "$2" | grep -qF '</html>' || bad "$1: not written whole"
    grep -qF '@media (prefers-color-scheme: dark)' "$2" || bad "$1: no dark-theme style"
    grep -qF '@media print' "$2" || bad "$1: no print style"
}

# sections NAME FILE ID...: each <section id=ID> is in the file
sections() {
    name=$1 f=$2
    shift 2
    for id in "$@"; do
        grep -qF "<section id=\"$id\">" "$f" || bad "$name: no section \"$id\""
    done
}

# plan: a pipeline (pp=2) so the timeline has stage rows
PLAN="plan llama3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 --fix pp=2 --top 3"
$P $PLAN >"$tmp/table" 2>"$tmp/err" || bad "plan failed: $(cat "$tmp/err")"
$P $PLAN --report "$tmp/r.html" >"$tmp/table2" 2>"$tmp/err" || bad "plan --report failed: $(cat "$tmp/err")"
cmp -s "$tmp/table" "$tmp/table2" || bad "plan --report changed what plan prints"
$P $PLAN --report "$tmp/r2.html" >/dev/null 2>&1
cmp -s "$tmp/r.html" "$tmp/r2.html" || bad "plan --report: two runs differ"
self_contained plan "$tmp/r.html"
sections plan "$tmp/r.html" question plans explanation timeline memory time
python3 - "$tmp/r.html" <<'PY' || bad "plan --report: contents not as expected"
import re, sys
h = open(sys.argv[1]).read()
def section(i):
    m = re.search(r'<section id="%s">(.*?)</section>' % i, h, re.S)
    assert m, i
    return m.group(1)
q = section("question")
for k in ("llama3-8b", "dgx-h100", "16 x h100-sxm-80g", "64 sequences", "searched"):
    assert k in q, k
t = section("plans")
rows = re.findall(r"<tr><td>(\d+)</td>", t)
assert rows == ["1", "2", "3"], rows
assert all("pp=2" in r for r in re.findall(r'<td class="l">([^<]*)</td>', t))
for col in ("step s", "tokens/s", "MFU", "memory GiB"):
    assert "<th>%s</th>" % col in t, col
e = section("explanation")
assert "<pre>" in e and "not" in e and "\\x0a" not in e, e[:300]
tl = section("timeline")
assert tl.count("<svg") == 1 and "stage 0" in tl and "stage 1" in tl, "timeline rows"
assert "memory per stage (GiB" in tl and "F forward" in tl and " s</text>" in tl, "timeline legend, axis, memory"
m = section("memory")
for k in ("weights", "optimizer states", "activations", ">GiB</text>", "device 80 GiB", "#1"):
    assert k in m, k
assert len(re.findall(r"<rect [^>]*><title>#\d weights", m)) == 3, "one memory bar per plan"
w = section("time")
assert "compute" in w and "seconds per step" in w
assert len(re.findall(r"<title>#\d compute: ", w)) == 3, "one time bar per plan"
PY

# --report with --json: the JSON as before, the report written too
$P $PLAN --json 2>/dev/null | sed '/search_seconds/d' >"$tmp/j1"
$P $PLAN --json --report "$tmp/r3.html" 2>/dev/null | sed '/search_seconds/d' >"$tmp/j2"
cmp -s "$tmp/j1" "$tmp/j2" || bad "plan --json --report changed the JSON"
[ -s "$tmp/r3.html" ] || bad "plan --json --report wrote no report"

# a report that cannot be written: exit 2, naming the file
refused_saying "nodir/r.html" $P $PLAN --report "$tmp/nodir/r.html"
[ -e "$tmp/nodir" ] && bad "a failed report left something behind"

# the issue's example: gpt3-175b on 1024 A100s (a pipeline of many micro-batches)
$P plan gpt3-175b --cluster dgx-a100-80g --gpus 1024 --global-batch 1536 --report "$tmp/g.html" \
    >/dev/null 2>"$tmp/err" || bad "gpt3-175b --report failed: $(cat "$tmp/err")"
self_contained gpt3 "$tmp/g.html"
sections gpt3 "$tmp/g.html" question plans explanation timeline memory time
last=$($P plan gpt3-175b --cluster dgx-a100-80g --gpus 1024 --global-batch 1536 --top 1 --json 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["plans"][0]["microbatches"] - 1)')
[ "$(grep -c "<title>F mb$last " "$tmp/g.html")" -ge 16 ] || bad "gpt3-175b: the timeline lacks the last micro-batch's forward passes"

# scale: the curves (data parallel alone and hybrid), the table
$P scale gnmt --cluster dgx-1-v100 --max-gpus 64 --report "$tmp/s.html" >"$tmp/st" 2>"$tmp/err" ||
    bad "scale --report failed: $(cat "$tmp/err")"
$P scale gnmt --cluster dgx-1-v100 --max-gpus 64 >"$tmp/st2" 2>&1
cmp -s "$tmp/st" "$tmp/st2" || bad "scale --report changed what scale prints"
self_contained scale "$tmp/s.html"
sections scale "$tmp/s.html" question curves table speedup
python3 - "$tmp/s.html" <<'PY' || bad "scale --report: contents not as expected"
import re, sys
h = open(sys.argv[1]).read()
c = re.search(r'<section id="curves">(.*?)</section>', h, re.S).group(1)
assert c.count("<polyline") == 2 and "data parallel alone" in c and "hybrid" in c, "two curves with a legend"
assert ">GPUs</text>" in c and " min</text>" in c, "axes with units"
t = re.search(r'<section id="table">(.*?)</section>', h, re.S).group(1)
assert [int(x) for x in re.findall(r"<tr><td>(\d+)</td>", t)] == [1, 2, 4, 8, 16, 32, 64]
PY

# serve: the question, the top plans (the serve table's numbers), TTFT and
# TPOT against load for the first colocated plan (here #7: the six above
# disaggregate prefill and decode)
SERVE="serve llama3-8b --cluster dgx-h100 --gpus 8 --isl 2048 --osl 256 --rate 20 --ttft-ms 500 --tpot-ms 30 --top 8"
$P $SERVE >"$tmp/sv" 2>"$tmp/err" || bad "serve failed: $(cat "$tmp/err")"
$P $SERVE --report "$tmp/sv.html" >"$tmp/sv2" 2>"$tmp/err" || bad "serve --report failed: $(cat "$tmp/err")"
cmp -s "$tmp/sv" "$tmp/sv2" || bad "serve --report changed what serve prints"
[ -s "$tmp/sv.html" ] || bad "serve --report wrote no report"
$P $SERVE --report "$tmp/sv3.html" >/dev/null 2>&1
cmp -s "$tmp/sv.html" "$tmp/sv3.html" || bad "serve --report: two runs differ"
self_contained serve "$tmp/sv.html"
sections serve "$tmp/sv.html" question plans load
python3 - "$tmp/sv.html" "$tmp/sv" <<'PY' || bad "serve --report: contents not as expected"
import re, sys
h = open(sys.argv[1]).read()
table = open(sys.argv[2]).read()
def section(i):
    m = re.search(r'<section id="%s">(.*?)</section>' % i, h, re.S)
    assert m, i
    return m.group(1)
q = section("question")
for k in ("llama3-8b", "dgx-h100", "8 x h100-sxm-80g", "2048 prompt tokens", "256 output tokens",
          "20 requests/s", "TTFT &lt;= 500 ms", "TPOT &lt;= 30 ms", "p90"):
    assert k in q, k
t = section("plans")
rows = re.findall(r"<tr><td>(\d+)</td><td class=\"l\">([^<]*)</td>((?:<td>[^<]*</td>)+)</tr>", t)
assert [r[0] for r in rows] == [str(i) for i in range(1, 9)], rows
for rank, strat, cells in rows:
    # the same numbers as the serve table's row
    line = [l for l in table.splitlines() if l.strip().startswith(rank + "  ")][0]
    assert strat in line, (strat, line)
    assert line.split()[-8:] == re.findall(r"<td>([^<]*)</td>", cells), (line, cells)
l = section("load")
assert l.count("<svg") == 2 and l.count("<polyline") == 4, "two charts, a curve and an objective each"
first = [r for r in rows if "disagg=" not in r[1]][0]
reps = re.search(r"replicas=(\d+)", first[1]).group(1)
for k in ("TTFT p90 (ms)", "TPOT p90 (ms)", "requests/s (all %s replicas)" % reps, "TTFT p90, plan %s" % first[0],
          "objective 500 ms"):
    assert k in l, k
pts = re.findall(r"<tr><td>([0-9.e+]+)</td><td>([0-9.]+)</td><td>([0-9.]+)</td></tr>", l)
assert 6 <= len(pts) <= 8, pts
rates = [float(p[0]) for p in pts]
ttft = [float(p[1]) for p in pts]
assert rates == sorted(rates) and rates[0] < 5 and rates[-1] > 30, rates
assert ttft[-1] > 10 * ttft[0], ttft  # past saturation the queue grows
PY
refused_saying "nodir/sv.html" $P $SERVE --report "$tmp/nodir/sv.html"
[ -e "$tmp/nodir" ] && bad "a failed serve report left something behind"

exit $fail
