#!/usr/bin/env python3
"""
refresh-examples.py -- after a change to the model, rewrite the example
output that README.md and docs/*.md show (the blocks tests/e2e/readme.sh and
tests/e2e/docs.sh check) with what the commands print now.

    python3 tools/refresh-examples.py [--build build] [FILE.md ...]

Each fenced block that starts with "$ build/partita" is run as those tests
run it (docs/ pages in a scratch folder holding the pages' example files and
links to data/, tests/ and docs/).  A shown line the output no longer holds
is replaced by the most similar line of the output after the last line
matched (difflib, at least 0.5 alike), so "..." elisions and the lines
chosen stay as they were; a line with no such match is reported and left.
Repository files a README example writes (--svg docs/x.svg) are replaced
by the fresh ones.  Prints every line it changed: numbers quoted in the prose
around an example are not touched, so read the list and mend those by hand.
A maintainers' tool, not part of partita or of make test.
"""
import difflib
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e", "lib"))
from examples import blocks, command as split_command, is_example, norm  # noqa: E402

OUTPUT_FLAGS = ("--trace", "--svg", "--out", "--report")


def refresh(path, build, root):
    text = open(path).read()
    lines = text.split("\n")
    is_doc = os.path.dirname(os.path.abspath(path)) == os.path.join(root, "docs")
    tmp = tempfile.mkdtemp()
    changed = 0
    try:
        for d in ("data", "tests", "docs"):
            os.symlink(os.path.join(root, d), os.path.join(tmp, d))
        if is_doc:
            for start, block, name in blocks(text):
                if name:
                    with open(os.path.join(tmp, name), "w") as f:
                        f.write("\n".join(block) + "\n")
        for start, block, name in blocks(text):
            if not is_example(block, name):
                continue
            command, _, first = split_command(block)
            s = start - 1                    # the block's first line, as an index into lines
            i, e = s + first, s + len(block)  # its output lines
            argv = shlex.split(command)
            argv[0] = os.path.join(root, build, "partita")
            kept = []
            for k in range(1, len(argv)):
                # README examples write to a scratch folder (readme.sh); a
                # docs page's commands read what its earlier ones wrote there
                if argv[k - 1] in OUTPUT_FLAGS and not is_doc:
                    fresh = os.path.join(tmp, "out-%d-%s" % (s, os.path.basename(argv[k])))
                    if os.path.dirname(argv[k]) and os.path.exists(os.path.join(root, argv[k])):
                        kept.append((os.path.join(root, argv[k]), fresh))
                    argv[k] = fresh
            r = subprocess.run(argv, capture_output=True, text=True, cwd=tmp if is_doc else root)
            got = (r.stdout + r.stderr).split("\n")
            gotn = [norm(x) for x in got]
            j = 0
            for k in range(i, e):
                w = lines[k]
                if w.strip() == "...":
                    continue
                if norm(w) in gotn[j:]:
                    j = gotn.index(norm(w), j) + 1
                    continue
                best, bj = 0.0, -1
                for jj in range(j, len(got)):
                    a = difflib.SequenceMatcher(None, norm(w), gotn[jj]).ratio()
                    if a > best:
                        best, bj = a, jj
                if best >= 0.5:
                    print("%s:%d\n  - %s\n  + %s" % (path, k + 1, w, got[bj]))
                    lines[k] = got[bj]
                    j = bj + 1
                    changed += 1
                else:
                    print("%s:%d: no line like this any more, left: %s" % (path, k + 1, w))
            for repo_path, fresh in kept:
                if os.path.exists(fresh) and open(repo_path, "rb").read() != open(fresh, "rb").read():
                    shutil.copyfile(fresh, repo_path)
                    print("%s: %s rewritten" % (path, os.path.relpath(repo_path, root)))
    finally:
        shutil.rmtree(tmp)
    if changed:
        with open(path, "w") as f:
            f.write("\n".join(lines))
    return changed


def main():
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    args, build = sys.argv[1:], "build"
    if args[:1] == ["--build"]:
        build, args = args[1], args[2:]
    files = args or ["README.md"] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    n = sum(refresh(os.path.join(root, f) if not os.path.isabs(f) else f, build, root) for f in files)
    print("%d lines rewritten" % n)


if __name__ == "__main__":
    main()
