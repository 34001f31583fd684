#!/bin/sh
# Outputs are written atomically (pt_write_file_atomic: a temporary file in the
# same directory, then rename): a failed export leaves an existing --out file
# as it was, a write that fails leaves nothing behind, and a successful one
# replaces the file whole.  No "*.tmp.*" file is ever left over.
. "$(dirname "$0")/lib/common.sh" || exit 1
job="llama3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 --seq-len 2048"
no_leftovers() {
    left=$(find "$tmp" -name '*.tmp.*')
    [ -z "$left" ] || bad "$1: temporary files left: $left"
}

# an export the engine cannot express fails before anything is written
printf 'old content\n' >"$tmp/existing.txt"
$P plan $job --export torchtitan --fix zero=1 --out "$tmp/existing.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || bad "failed export: exit $rc, want 2"
grep -q "torchtitan cannot express zero=1" "$tmp/err" || bad "failed export: $(cat "$tmp/err")"
[ "$(cat "$tmp/existing.txt")" = "old content" ] || bad "failed export changed existing.txt"
no_leftovers "failed export"

# a plan with nothing that fits writes nothing either (exit 1)
$P plan gpt3-175b --cluster dgx-h100 --gpus 8 --global-batch 8 --seq-len 2048 --fix "tp=1 pp=1" \
    --export megatron --out "$tmp/existing.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || bad "nothing fits: exit $rc, want 1"
[ "$(cat "$tmp/existing.txt")" = "old content" ] || bad "nothing fits changed existing.txt"

# the rename fails (the target is a directory): the directory and its file stay,
# the temporary file is removed, exit 2 naming the path
mkdir "$tmp/adir" && printf 'keep\n' >"$tmp/adir/f"
$P plan $job --fix "tp=2 pp=1" --export megatron --out "$tmp/adir" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || bad "--out a directory: exit $rc, want 2"
grep -q "^partita: $tmp/adir: cannot write: " "$tmp/err" || bad "--out a directory: $(cat "$tmp/err")"
[ "$(cat "$tmp/adir/f")" = "keep" ] || bad "--out a directory: its content changed"
no_leftovers "--out a directory"

# a directory that is not there: nothing is created
$P eval $job --strategy "tp=2" --trace "$tmp/none/t.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || bad "--trace into a missing directory: exit $rc, want 2"
grep -q "^partita: $tmp/none/t.json: cannot write: No such file or directory" "$tmp/err" ||
    bad "--trace into a missing directory: $(cat "$tmp/err")"
[ -e "$tmp/none" ] && bad "--trace into a missing directory created it"

# success replaces the file whole: --out, --trace and --svg
$P plan $job --fix "tp=2 pp=1" --export megatron --out "$tmp/existing.txt" >"$tmp/out" 2>"$tmp/err" ||
    bad "export: $(cat "$tmp/err")"
grep -q -- "--tensor-model-parallel-size 2" "$tmp/existing.txt" ||
    bad "export did not replace existing.txt: $(head -n 3 "$tmp/existing.txt")"
grep -q "old content" "$tmp/existing.txt" && bad "export kept the old content"
printf 'old trace\n' >"$tmp/t.json"
printf 'old svg\n' >"$tmp/t.svg"
$P eval $job --strategy "tp=2 pp=2" --trace "$tmp/t.json" --svg "$tmp/t.svg" >"$tmp/out" 2>"$tmp/err" ||
    bad "eval --trace --svg: $(cat "$tmp/err")"
head -c 1 "$tmp/t.json" | grep -q '{' || bad "--trace did not replace t.json"
grep -q '<svg' "$tmp/t.svg" || bad "--svg did not replace t.svg"
no_leftovers "successful writes"
exit $fail
