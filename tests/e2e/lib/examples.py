"""
examples.py -- how README.md and docs/*.md show a command and its output,
read one way by the checks (tests/e2e/readme.sh, tests/e2e/docs.sh) and by
the tool that refreshes them (tools/refresh-examples.py).

A fenced block whose first line starts with "$ build/partita" is an example:
the command (continued over lines ending in a backslash, an annotation after
three or more spaces in parentheses, e.g. "   (exit status 2)", not part of
it), then lines the command's output must hold in order ("..." stands for
lines left out).  A fenced block right after a line "<!-- file: NAME -->" is
an input file the page shows.
"""
import re


def norm(line):
    """A line as compared: the thread count is the machine's core count."""
    return re.sub(r"\(\d+ threads?\)", "(N threads)", line.rstrip())


def blocks(text):
    """(line number of the block's first line, its lines, file name or None)
    of each fenced block of text."""
    block, start, name, pending = None, 0, None, None
    for no, line in enumerate(text.split("\n"), 1):
        m = re.match(r"<!-- file: (\S+) -->\s*$", line)
        if block is None and m:
            pending = m.group(1)
            continue
        if line.startswith("```"):
            if block is None:
                block, start, name, pending = [], no + 1, pending, None
            else:
                yield start, block, name
                block = None
        elif block is not None:
            block.append(line)
        elif line.strip():
            pending = None


def is_example(block, name=None):
    return not name and bool(block) and block[0].startswith("$ build/partita")


def command(block):
    """(command, annotation or None, index in block of the first output line)."""
    i, parts = 0, []
    while True:
        line = block[i]
        i += 1
        more = line.endswith("\\")
        parts.append(line[2 if not parts else 0:len(line) - more])
        if not more:
            break
    cmd = " ".join(p.strip() for p in parts)
    m = re.search(r"\s{3,}\((.*)\)$", cmd)
    if m:
        return cmd[:m.start()], m.group(1), i
    return cmd, None, i
