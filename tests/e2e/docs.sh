#!/bin/sh
# The user documentation's examples are real output, as readme.sh checks the
# README's: in every docs/*.md, each fenced block that starts with
# "$ build/partita ..." is run and each line it shows must appear, in order,
# in what the command prints now (stdout, then stderr; "..." stands for lines
# left out).  An annotation after the command, "   (exit status N)", is
# checked too.  A fenced block right after a line "<!-- file: NAME -->" is an
# input file the page shows: it is written to NAME in the folder the commands
# run in (a temporary one, which also holds links to the repository's data/,
# tests/ and docs/), so a page's example files are the ones its commands read.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

python3 - "$BUILD" "$tmp" <<'PY'
import glob, os, re, shlex, subprocess, sys

sys.path.insert(0, "tests/e2e/lib")
from examples import blocks, command as split_command, is_example, norm

build, tmp = os.path.abspath(sys.argv[1]), sys.argv[2]
root = os.getcwd()
for d in ("data", "tests", "docs"):
    os.symlink(os.path.join(root, d), os.path.join(tmp, d))

pages = sorted(glob.glob("docs/*.md"))
failures, count, files = 0, 0, 0
for page in pages:
    for start, block, name in blocks(open(page).read()):
        if name:
            if os.path.dirname(name) or name.startswith("."):
                print("docs.sh: %s:%d: file name %r must be a plain name" % (page, start, name))
                failures += 1
                continue
            with open(os.path.join(tmp, name), "w") as f:
                f.write("\n".join(block) + "\n")
            files += 1
for page in pages:
    for start, block, name in blocks(open(page).read()):
        if not is_example(block, name):
            continue
        command, note, i = split_command(block)
        want_rc = None
        e = re.match(r"exit status (\d+)$", note or "")
        if e:
            want_rc = int(e.group(1))
        argv = shlex.split(command)
        argv[0] = os.path.join(build, "partita")
        count += 1
        r = subprocess.run(argv, capture_output=True, text=True, cwd=tmp)
        got = [norm(l) for l in (r.stdout + r.stderr).split("\n")]
        want = [norm(l) for l in block[i:] if l.strip() != "..."]
        j = 0
        for w in want:
            while j < len(got) and got[j] != w:
                j += 1
            if j == len(got):
                print("docs.sh: %s:%d: `%s` no longer prints:\n  %s" % (page, start, command, w))
                failures += 1
                break
            j += 1
        if want_rc is not None and r.returncode != want_rc:
            print("docs.sh: %s:%d: `%s` exits %d, the page says %d" % (page, start, command,
                                                                      r.returncode, want_rc))
            failures += 1
        elif want_rc is None and r.returncode != 0:
            print("docs.sh: %s:%d: `%s` exits %d; say \"(exit status %d)\" after the command if "
                  "that is the point" % (page, start, command, r.returncode, r.returncode))
            failures += 1
if count == 0:
    print("docs.sh: no examples found in docs/*.md")
    failures += 1
print("docs.sh: %d examples and %d example files checked in %d pages" % (count, files, len(pages)))
sys.exit(1 if failures else 0)
PY
