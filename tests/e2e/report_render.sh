#!/bin/sh
# The reports as a person sees them (issue 20): headless Chromium renders
# each --report page (plan, scale, and sweep of plan and of serving
# questions) to a PNG, light and dark theme, and python3 reads the PNG (at half scale, to keep pure-Python decoding quick) (standard library: zlib and the five PNG filters):
# it must not be blank (many colours, a good share of pixels off the page's
# background), the charts must have been drawn (pixels of the charts'
# colours), and the dark theme must give a dark page.  Chromium's DOM after
# loading (--dump-dom) must hold every section's heading.  Skipped, saying
# so, where Chromium is not installed (Debian: apt-get install chromium).
. "$(dirname "$0")/lib/common.sh" || exit 1

CHROME=""
for c in chromium chromium-browser google-chrome; do
    command -v "$c" >/dev/null 2>&1 && { CHROME=$c; break; }
done
if [ -z "$CHROME" ]; then
    echo "report_render.sh: skipped: Chromium is not installed (Debian: apt-get install chromium)"
    exit 0
fi
# Chromium's profile and crash folders go to $tmp
export HOME="$tmp"
chrome() { # chrome OUT.png W H PAGE [FLAGS...]
    c_out=$1 c_w=$2 c_h=$3 c_page=$4
    shift 4
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --user-data-dir="$tmp/profile" --force-device-scale-factor=0.5 "$@" --window-size="$c_w,$c_h" --screenshot="$c_out" "file://$c_page" \
        >"$tmp/chrome.log" 2>&1
}

cat >"$tmp/grid.json" <<'EOF'
{"command": "plan", "models": ["llama3-8b", "llama3-70b"], "clusters": ["dgx-h100", "dgx-b200"],
 "gpus": [16, 64], "global_batch": [128], "objective": ["step"]}
EOF
$P plan llama3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 --fix pp=2 --report "$tmp/plan.html" >/dev/null 2>&1 ||
    bad "plan --report failed"
$P scale gnmt --cluster dgx-1-v100 --max-gpus 64 --report "$tmp/scale.html" >/dev/null 2>&1 || bad "scale --report failed"
$P sweep "$tmp/grid.json" --report "$tmp/sweep.html" >/dev/null 2>&1 || bad "sweep --report failed"
cat >"$tmp/sgrid.json" <<'EOF'
{"command": "serve", "models": ["llama3-8b", "mixtral-8x7b"], "clusters": ["dgx-h100", "dgx-a100-80g"],
 "gpus": [8], "isl": [2048], "osl": [32], "rate": [2, 8], "tpot_ms": [40]}
EOF
$P sweep "$tmp/sgrid.json" --report "$tmp/sweep-serve.html" >/dev/null 2>&1 || bad "serving sweep --report failed"

# check NAME PNG THEME: not blank, charts drawn; THEME light or dark
check() {
    python3 - "$2" "$3" <<'PY' || bad "$1 ($3): the rendered page is not as expected"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours, counts = set(), {}
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        px = bytes(line[x:x + 3])
        counts[px] = counts.get(px, 0) + 1
    prev = line
total = w * h
bg, nbg = max(counts.items(), key=lambda kv: kv[1])
assert len(counts) > 64, "only %d colours: blank" % len(counts)
assert total - nbg > total // 50, "%.1f%% of the pixels off the background" % (100.0 * (total - nbg) / total)
light = sum(bg) > 600
assert light == (sys.argv[2] == "light"), "background %r in the %s theme" % (bg, sys.argv[2])
# the charts' series and bars (Tableau 10's first colours, and the two of
# scale_out.c's curves): drawn, not just text.  The dark screenshot is the
# top of the page only, above the charts.
tab = [(0x4e, 0x79, 0xa7), (0xf2, 0x8e, 0x2b), (0xe1, 0x57, 0x59), (0x59, 0xa1, 0x4f), (0x1f, 0x77, 0xb4),
       (0xd6, 0x27, 0x28)]
near = lambda px, t: max(abs(px[k] - t[k]) for k in range(3)) <= 24  # anti-aliased edges count too
drawn = sum(n for px, n in counts.items() if any(near(px, t) for t in tab))
assert sys.argv[2] == "dark" or drawn > 100, "only %d pixels of the charts' colours" % drawn
print("%s: %dx%d, %d colours, %.0f%% off the background, %d chart pixels" % (sys.argv[1].split("/")[-1], w, h,
      len(counts), 100.0 * (total - nbg) / total, drawn))
PY
}

for page in plan scale sweep sweep-serve; do
    chrome "$tmp/$page.png" 1280 2200 "$tmp/$page.html" || { bad "$page: chromium failed: $(tail -n 3 "$tmp/chrome.log")"; continue; }
    [ -s "$tmp/$page.png" ] || { bad "$page: no screenshot"; continue; }
    check "$page" "$tmp/$page.png" light
    chrome "$tmp/$page-dark.png" 1280 1000 "$tmp/$page.html" --force-dark-mode ||
        { bad "$page: chromium (dark) failed"; continue; }
    check "$page" "$tmp/$page-dark.png" dark
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" --dump-dom \
        "file://$tmp/$page.html" >"$tmp/$page.dom" 2>/dev/null || bad "$page: chromium --dump-dom failed"
    case $page in
    plan) want="The question|Top plans|Why #1 wins|Simulated step: timeline and memory over time per stage|Memory per device|Where the time goes" ;;
    scale) want="The question|Scaling curves|Device counts|Model-parallel speed-up of one worker over one device" ;;
    sweep) want="The grid|Pareto front: time against dollars|Every answer, in grid order" ;;
    sweep-serve) want="The grid|Pareto front: time to first token against dollars|Every answer, in grid order" ;;
    esac
    echo "$want" | tr '|' '\n' | while read -r h2; do
        grep -qF "<h2>$h2</h2>" "$tmp/$page.dom" || echo "$page: the rendered page lacks the section \"$h2\""
    done >"$tmp/missing"
    [ -s "$tmp/missing" ] && bad "$(cat "$tmp/missing")"
done
exit $fail
