#!/bin/sh
# End-to-end GNU conventions of the command line (SPEC section 1): --version,
# CMD --help for every command listing every option, --opt=value, options
# before or after MODEL, unknown options and stray arguments refused (exit 2)
# in every command, MODEL checked before the other arguments, numbers
# refused outside their range by name, user names escaped in the scale SVG
# and on the terminal, and progress never written when stderr is not a
# terminal (and cleared when it is).
. "$(dirname "$0")/lib/common.sh" || exit 1

# --version: "partita X.Y.Z", the version of include/partita.h
ver=$(sed -n 's/^#define PT_VERSION "\(.*\)"$/\1/p' include/partita.h)
[ -n "$ver" ] || bad "no PT_VERSION in include/partita.h"
[ "$($P --version 2>&1)" = "partita $ver" ] || bad "--version: \"$($P --version 2>&1)\", want \"partita $ver\""
[ "$($P version 2>&1)" = "partita $ver" ] || bad "version: \"$($P version 2>&1)\""

# partita --help / help / -h: exit 0, every command listed, on stdout
for h in --help help -h; do
    $P $h >"$tmp/out" 2>"$tmp/err" || bad "partita $h: exit not 0"
    [ -s "$tmp/err" ] && bad "partita $h wrote to stderr"
    for c in plan eval validate scale models devices clusters; do
        grep -q "^  $c" "$tmp/out" || bad "partita $h does not list $c"
    done
done

# CMD --help and -h: exit 0, stdout, every option on a line of its own with
# its meaning; `partita help CMD` is the same text
helps() {
    cmd=$1
    shift
    $P "$cmd" --help >"$tmp/h" 2>"$tmp/err" || bad "$cmd --help: exit not 0: $(cat "$tmp/err")"
    [ -s "$tmp/err" ] && bad "$cmd --help wrote to stderr"
    $P "$cmd" -h >"$tmp/h2" 2>&1 || bad "$cmd -h: exit not 0"
    cmp -s "$tmp/h" "$tmp/h2" || bad "$cmd -h differs from --help"
    $P help "$cmd" >"$tmp/h3" 2>&1 || bad "help $cmd: exit not 0"
    cmp -s "$tmp/h" "$tmp/h3" || bad "help $cmd differs from $cmd --help"
    grep -q "^usage: partita $cmd" "$tmp/h" || bad "$cmd --help: no usage line"
    for o in "$@" help; do
        # "  --opt" or "  --opt=VALUE", then at least two spaces and words
        grep -qE -- "^ *(-h, )?--$o(=[^ ]+)?  +[a-zA-Z]" "$tmp/h" || bad "$cmd --help: no line for --$o"
    done
    # and each option listed is accepted by the parser (not "unknown option")
    for o in "$@"; do
        $P "$cmd" "--$o=" >/dev/null 2>"$tmp/err"
        grep -q "unknown option" "$tmp/err" && bad "$cmd: --$o listed in --help but unknown"
    done
}
job="cluster gpus seq-len doc-len dtype engine no-flash-attention tp-comm-overlap moe-imbalance moe-capacity mtp"
helps plan $job global-batch objective tokens critical-batch target-loss top space fix threads json \
    explain verify export out trace svg
helps eval $job strategy global-batch json simulate trace svg
helps validate json plans
helps scale cluster max-gpus stat-eff dtype ilp-nodes json svg
helps models
helps devices
helps clusters
# the limits are stated in --help
$P plan --help | grep -- "--threads" | grep -q "1024" || bad "plan --help: --threads without its limit"
$P plan --help | grep -- "--top" | grep -q "10000" || bad "plan --help: --top without its limit"
$P plan --help | grep -- "--gpus" | grep -q "16777216" || bad "plan --help: --gpus without its limit"
$P plan --help | grep -- "--global-batch" | grep -q "1073741824" || bad "plan --help: --global-batch without its limit"
$P scale --help | grep -- "--max-gpus" | grep -q "16777216" || bad "scale --help: --max-gpus without its limit"

# --opt=value is --opt value; options before MODEL, after it, and with
# POSIXLY_CORRECT set (which would stop a plain getopt at MODEL)
$P eval gpt3-175b --cluster=dgx-a100-80g --gpus=64 "--strategy=tp=8 pp=8 mbs=1 gbs=512" >"$tmp/a" 2>"$tmp/err" ||
    bad "eval with --opt=value failed: $(cat "$tmp/err")"
$P eval gpt3-175b --cluster dgx-a100-80g --gpus 64 --strategy "tp=8 pp=8 mbs=1 gbs=512" >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b" || bad "--opt=value and --opt value differ"
grep -q "^strategy   tp=8 pp=8 dp=1" "$tmp/a" || bad "eval --strategy=...: not the strategy asked: $(head -n 3 "$tmp/a")"
$P eval --cluster dgx-a100-80g --gpus 64 --strategy "tp=8 pp=8 mbs=1 gbs=512" gpt3-175b >"$tmp/c" 2>&1
cmp -s "$tmp/a" "$tmp/c" || bad "MODEL after the options differs"
POSIXLY_CORRECT=1 $P eval gpt3-175b --cluster dgx-a100-80g --gpus=64 --strategy "tp=8 pp=8 mbs=1 gbs=512" \
    >"$tmp/d" 2>&1
cmp -s "$tmp/a" "$tmp/d" || bad "with POSIXLY_CORRECT set: $(head -n 2 "$tmp/d")"
$P scale gnmt --cluster=dgx-1-v100 --max-gpus=8 --ilp-nodes=1 --json >"$tmp/a" 2>&1 || bad "scale --max-gpus=8 failed"
$P scale gnmt --cluster dgx-1-v100 --max-gpus 8 --ilp-nodes 1 --json >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b" || bad "scale: --opt=value and --opt value differ"

# unknown options, flags given values, missing values, ambiguous prefixes
expect2 "models --bogus" '"--bogus"' $P models --bogus
expect2 "devices --bogus" '"--bogus"' $P devices --bogus
expect2 "clusters -x" '"-x"' $P clusters -x
expect2 "validate --bogus" '"--bogus"' $P validate tests/data/runs_small.csv --bogus
expect2 "plan --json=1" '--json takes no value' $P plan llama3-8b --global-batch 512 --json=1
expect2 "plan --gpus at the end" '--gpus needs a value' $P plan llama3-8b --global-batch 512 --gpus
expect2 "plan --s (ambiguous)" 'ambiguous' $P plan llama3-8b --global-batch 512 --s 8
expect2 "plan --help=x" '"--help=x" takes no value' $P plan --help=x
expect2 "--out without --export" '--out goes with --export' $P plan llama3-8b --global-batch 512 --out "$tmp/x"

# a stray argument, for each command
ev="--cluster dgx-h100 --global-batch 64 --strategy tp=8"
expect2 "plan stray" 'unexpected argument "stray"' $P plan llama3-8b stray --global-batch 512
expect2 "eval stray" 'unexpected argument "stray"' $P eval llama3-8b $ev stray
expect2 "validate stray" 'unexpected argument "stray"' $P validate tests/data/runs_small.csv stray
expect2 "scale stray" 'unexpected argument "stray"' $P scale gnmt --cluster dgx-1-v100 --max-gpus 8 --ilp-nodes 1 stray
expect2 "models stray" 'unexpected argument "stray"' $P models stray
expect2 "devices stray" 'unexpected argument "stray"' $P devices stray
expect2 "clusters stray" 'unexpected argument "stray"' $P clusters stray
expect2 "--version stray" 'unexpected argument "stray"' $P --version stray

# MODEL is checked before the other arguments
expect2 "plan: model before --global-batch" 'unknown model "llama3-8bb"' $P plan llama3-8bb --cluster dgx-h100
grep -q "global-batch" "$tmp/err" && bad "plan llama3-8bb: complains about --global-batch: $(cat "$tmp/err")"
expect2 "eval: model before --cluster" 'unknown model "llama3-8bb"' $P eval llama3-8bb --gpus twelve
expect2 "scale: graph before --max-gpus" '"nosuchgraph"' $P scale nosuchgraph --max-gpus 0

# numbers outside their range are refused by option name, with the range
expect2 "--threads 2^32" '--threads: "4294967296" is not a whole number in [1, 1024]' \
    $P plan llama3-8b --cluster dgx-h100 --global-batch 512 --threads 4294967296
expect2 "--threads 1025" '[1, 1024]' $P plan llama3-8b --global-batch 512 --threads 1025
expect2 "--top 10001" '--top: "10001" is not a whole number in [1, 10000]' \
    $P plan llama3-8b --global-batch 512 --top 10001
expect2 "--gpus 2^24+1" '--gpus: "16777217" is not a whole number in [1, 16777216]' \
    $P plan llama3-8b --global-batch 512 --gpus 16777217
expect2 "--seq-len 2^24+1" '--seq-len: "16777217"' $P eval llama3-8b $ev --seq-len 16777217
expect2 "--global-batch 2^30+1" '--global-batch: "1073741825" is not a whole number in [1, 1073741824]' \
    $P plan llama3-8b --global-batch 1073741825
expect2 "--global-batch LO..2^30+1" '--global-batch: "1073741825"' $P plan llama3-8b --global-batch 64..1073741825
expect2 "--global-batch HI < LO" '--global-batch: "64" is not a whole number in [512, 1073741824]' \
    $P plan llama3-8b --global-batch 512..64
expect2 "--max-gpus 2^24+1" '--max-gpus: "16777217" is not a whole number in [1, 16777216]' \
    $P scale gnmt --cluster dgx-1-v100 --max-gpus 16777217
expect2 "--gpus 8x" '--gpus: "8x"' $P plan llama3-8b --global-batch 512 --gpus 8x
expect2 "--gpus -8" '--gpus: "-8"' $P plan llama3-8b --global-batch 512 --gpus=-8
expect2 "--moe-imbalance nan" '--moe-imbalance: "nan" is not a number in [1, 1000]' \
    $P eval mixtral-8x7b $ev --moe-imbalance nan
expect2 "--tokens 1e19" '--tokens: "1e19" is not a number in [1, 1e18]' \
    $P plan llama3-8b --objective time-to-train --tokens 1e19 --critical-batch 2e6

# the scale SVG with cluster names that are markup: well-formed, names kept
for name in '<script>' 'a&b"' "it's <b>&amp;"; do
    python3 - "$tmp/c.json" "$name" <<'PY'
import json, sys
json.dump({"name": sys.argv[2], "device": "v100-sxm2-32g", "devices": 64,
           "levels": [{"name": "nvlink", "size": 8, "bw_GBps": 150},
                      {"name": "ib", "size": 64, "bw_GBps": 12.5}]}, open(sys.argv[1], "w"))
PY
    rm -f "$tmp/s.svg"
    $P scale gnmt --cluster "$tmp/c.json" --max-gpus 4 --ilp-nodes 1 --svg "$tmp/s.svg" >/dev/null 2>"$tmp/err" ||
        bad "scale --svg with cluster \"$name\": $(cat "$tmp/err")"
    python3 - "$tmp/s.svg" "$name" <<'PY' || bad "scale SVG with cluster name \"$name\" is not well-formed XML or lost the name"
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
want = "on " + sys.argv[2] + ":"
assert any(want in t for t in texts), (want, texts[:1])
PY
done

# a control character in a cluster name is refused where it is read (names
# are printed in tables and files), and the message carries no raw byte
printf '%s\n' '{"name": "evil\u001b[31mred\u009b", "device": "v100-sxm2-32g", "devices": 64,' \
    '"levels": [{"name": "nvlink", "size": 8, "bw_GBps": 150}, {"name": "ib", "size": 64, "bw_GBps": 12.5}]}' \
    >"$tmp/ctl.json"
norawbytes() { # norawbytes WHAT FILE: FILE holds no ESC, BEL or C1 CSI byte
    python3 - "$2" <<'PY' || bad "$1: control characters printed raw"
import sys
b = open(sys.argv[1], "rb").read()
assert b"\x1b" not in b and b"\x07" not in b and b"\xc2\x9b" not in b, b[:200]
PY
}
$P eval llama3-8b --cluster "$tmp/ctl.json" --global-batch 512 --strategy tp=8 >"$tmp/o" 2>&1
[ $? -eq 2 ] || bad "a cluster name with control characters: exit not 2"
grep -q 'holds the control character 0x1B' "$tmp/o" || bad "cluster name: refusal does not name the byte: $(cat "$tmp/o")"
norawbytes "eval refusal" "$tmp/o"
# a model given by a path with control characters in it: the name printed
# in the table is the path, escaped
mkdir -p "$tmp/$(printf 'm\033[31m')"
cp tests/data/hf/llama3-8b.json "$tmp/$(printf 'm\033[31m')/config.json"
$P eval "$tmp/$(printf 'm\033[31m')/config.json" --cluster dgx-h100 --gpus 16 --global-batch 512 \
    --strategy tp=8 >"$tmp/o" 2>&1 || bad "eval on a config.json path with ESC failed: $(cat "$tmp/o")"
norawbytes "eval table" "$tmp/o"
grep -q 'm\\x1b\[31m/config.json' "$tmp/o" || bad "eval: the model path is not printed escaped: $(head -n 2 "$tmp/o")"
$P plan "$tmp/$(printf 'm\033[31m')/config.json" --cluster dgx-h100 --gpus 16 --global-batch 512 --top 1 \
    --explain >"$tmp/o" 2>&1 || bad "plan on a config.json path with ESC failed: $(cat "$tmp/o")"
norawbytes "plan table" "$tmp/o"
$P plan llama3.1-405b --cluster dgx-1-v100 --gpus 8 --global-batch 8 >"$tmp/o" 2>&1
[ $? -eq 1 ] || bad "plan 405b on 8 V100s: exit not 1"
grep -q "no strategy fits" "$tmp/o" || bad "plan 405b on 8 V100s: no nearest miss: $(head -n 2 "$tmp/o")"
expect2 "control characters in an argument" 'unknown model "a\x1bb"' $P plan "$(printf 'a\033b')"

# progress: nothing on stderr when it is not a terminal (a pipe or a file)
$P plan llama3-8b --cluster dgx-h100 --gpus 64 --global-batch 512 --top 1 >"$tmp/o" 2>"$tmp/err" || bad "plan failed"
[ -s "$tmp/err" ] && bad "plan wrote to stderr without a terminal: $(od -c "$tmp/err" | head -n 2)"
$P scale gnmt --cluster dgx-1-v100 --max-gpus 8 --ilp-nodes 1 2>&1 >/dev/null | od -c >"$tmp/err"
[ "$(wc -c <"$tmp/err")" -le 8 ] || bad "scale wrote to stderr without a terminal: $(head -n 2 "$tmp/err")"
# with stderr on a terminal: stdout the same bytes, and whatever progress
# was drawn is cleared (the last \r-separated piece is blank)
python3 - "$P" "$tmp/o" <<'PY' || bad "plan with stderr on a terminal: stdout differs or progress not cleared"
import os, pty, subprocess, sys
m, s = pty.openpty()
p = subprocess.Popen([sys.argv[1], "plan", "llama3-8b", "--cluster", "dgx-h100", "--gpus", "64",
                      "--global-batch", "512", "--top", "1"], stdout=subprocess.PIPE, stderr=s)
os.close(s)
err = b""
while True:
    try:
        d = os.read(m, 4096)
    except OSError:
        break
    if not d:
        break
    err += d
out = p.stdout.read()
assert p.wait() == 0
assert out == open(sys.argv[2], "rb").read(), "stdout differs"
assert err.split(b"\r")[-1].strip() == b"", err[-200:]
assert b"\n" not in err, err[-200:]
PY
exit $fail
