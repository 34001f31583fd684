#!/bin/sh
# The README's examples are real output: every fenced block that starts with
# "$ build/partita ..." is run, and each line the README shows must appear,
# in order, in what the command prints now ("..." stands for lines left out;
# an annotation after the command in parentheses is not part of it).  Files
# the example writes go to a temporary folder; where the README names a file
# kept in the repository (docs/*.svg), the fresh one must equal it.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

python3 - "$BUILD" "$tmp" <<'PY'
import os, shlex, subprocess, sys

sys.path.insert(0, "tests/e2e/lib")
from examples import blocks, command as split_command, is_example, norm

build, tmp = sys.argv[1], sys.argv[2]
OUTPUT_FLAGS = ("--trace", "--svg", "--out", "--report")

failures, count = 0, 0
for start, block, name in blocks(open("README.md").read()):
    if not is_example(block, name):
        continue
    command, _, i = split_command(block)
    argv = shlex.split(command)
    argv[0] = os.path.join(build, "partita")
    kept = []
    for k in range(1, len(argv)):
        if argv[k - 1] in OUTPUT_FLAGS:
            fresh = os.path.join(tmp, "%d-%s" % (start, os.path.basename(argv[k])))
            if os.path.dirname(argv[k]) and os.path.exists(argv[k]):
                kept.append((argv[k], fresh))
            argv[k] = fresh
    count += 1
    r = subprocess.run(argv, capture_output=True, text=True)
    got = [norm(l) for l in (r.stdout + r.stderr).split("\n")]
    want = [norm(l) for l in block[i:] if l.strip() != "..."]
    j = 0
    for w in want:
        while j < len(got) and got[j] != w:
            j += 1
        if j == len(got):
            print("readme.sh: README.md:%d: `%s` no longer prints:\n  %s" % (start, command, w))
            failures += 1
            break
        j += 1
    for path, fresh in kept:
        if not os.path.exists(fresh) or open(path, "rb").read() != open(fresh, "rb").read():
            print("readme.sh: README.md:%d: %s differs from what `%s` writes now" % (start, path, command))
            failures += 1
if count == 0:
    print("readme.sh: no examples found in README.md")
    failures += 1
print("readme.sh: %d examples checked" % count)
sys.exit(1 if failures else 0)
PY
