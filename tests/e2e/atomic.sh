#!/bin/sh
# Outputs are written atomically (pt_write_file_atomic: a temporary file in the
# same directory, then rename): a failed export leaves an existing --out file
# as it was, a write that fails leaves nothing behind, and a successful one
# replaces the file whole.  No "*.tmp.*" file is ever left over.  The temporary
# name comes from mkstemp (a link planted at the old predictable OUT.tmp.PID is
# not followed); a FIFO or /dev/stdout is written in place, not replaced; a
# link to a file stays a link; a command's outputs are written all or none.
. "$(dirname "$0")/lib/common.sh" || exit 1
job="llama3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 --seq-len 2048"
no_leftovers() {
    left=$(find "$tmp" -name '*.tmp.*')
    [ -z "$left" ] || bad "$1: temporary files left: $left"
}

# an export the engine cannot express fails before anything is written
printf 'old content\n' >"$tmp/existing.txt"
# (after the search: torchtitan has no llama2 flavor)
$P plan llama2-7b --cluster dgx-h100 --gpus 16 --global-batch 64 --seq-len 2048 --export torchtitan \
    --out "$tmp/existing.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || bad "failed export: exit $rc, want 2"
grep -q "torchtitan has no registered model for llama2-7b" "$tmp/err" || bad "failed export: $(cat "$tmp/err")"
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

# a link planted where the old predictable temporary name (OUT.tmp.PID) was:
# not followed, its target untouched (the temporary name comes from mkstemp)
printf 'victim\n' >"$tmp/victim"
sh -c 'ln -s "$1/victim" "$1/out.sh.tmp.$$"; exec "$2" plan $3 --fix "tp=2 pp=1" --export megatron --out "$1/out.sh"' \
    sh "$tmp" "$P" "$job" >"$tmp/out" 2>"$tmp/err" || bad "planted link: $(cat "$tmp/err")"
[ "$(cat "$tmp/victim")" = "victim" ] || bad "planted link: the link's target was overwritten"
grep -q -- "--tensor-model-parallel-size 2" "$tmp/out.sh" || bad "planted link: out.sh not written"
rm -f "$tmp"/out.sh.tmp.*

# a target that is not a regular file is written in place, not replaced: a FIFO
# stays a FIFO and its reader gets the text; /dev/stdout on a pipe works
mkfifo "$tmp/fifo" || bad "mkfifo failed"
timeout 20 cat "$tmp/fifo" >"$tmp/from_fifo" &
reader=$!
timeout 60 $P eval $job --strategy "tp=2 pp=2" --trace "$tmp/fifo" >"$tmp/out" 2>"$tmp/err" ||
    bad "--trace FIFO: $(cat "$tmp/err")"
wait $reader
[ -p "$tmp/fifo" ] || bad "--trace FIFO: the FIFO was replaced"
head -c 1 "$tmp/from_fifo" | grep -q '{' || bad "--trace FIFO: the reader got no trace"
# (first through /proc/self/fd/1, where a build that renames over the target
# fails instead of replacing anything; /dev/stdout only once that passed: run
# as root, such a build would turn /dev/stdout into a regular file)
inplace_ok=0
$P plan $job --fix "tp=2 pp=1" --export megatron --out /proc/self/fd/1 2>"$tmp/err" | cat >"$tmp/piped"
if grep -q -- "--tensor-model-parallel-size 2" "$tmp/piped" && [ -p "$tmp/fifo" ]; then
    inplace_ok=1
else
    bad "--out /proc/self/fd/1 on a pipe: nothing came through: $(cat "$tmp/err")"
fi
if [ $inplace_ok = 1 ]; then
    $P plan $job --fix "tp=2 pp=1" --export megatron --out /dev/stdout 2>"$tmp/err" | cat >"$tmp/piped"
    grep -q -- "--tensor-model-parallel-size 2" "$tmp/piped" || bad "--out /dev/stdout on a pipe: $(cat "$tmp/err")"
    [ -L /dev/stdout ] || [ -c /dev/stdout ] || bad "/dev/stdout is no longer a link or a device"
fi

# a link to a regular file stays a link: its target is replaced whole
printf 'old\n' >"$tmp/real.sh"
ln -s real.sh "$tmp/link.sh"
$P plan $job --fix "tp=2 pp=1" --export megatron --out "$tmp/link.sh" >"$tmp/out" 2>"$tmp/err" ||
    bad "--out a link: $(cat "$tmp/err")"
[ -L "$tmp/link.sh" ] || bad "--out a link: the link was replaced"
grep -q -- "--tensor-model-parallel-size 2" "$tmp/real.sh" || bad "--out a link: its target not written"

# a command with several outputs writes all or none: plan --trace with an
# export that fails, and --trace with an --svg that cannot be written
printf 'old trace\n' >"$tmp/keep.json"
$P plan llama2-7b --cluster dgx-h100 --gpus 16 --global-batch 64 --seq-len 2048 --export torchtitan \
    --out "$tmp/x.sh" --trace "$tmp/keep.json" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || bad "plan --trace with a failing export: want exit 2"
[ "$(cat "$tmp/keep.json")" = "old trace" ] || bad "plan --trace with a failing export replaced the trace"
$P eval $job --strategy "tp=2 pp=2" --trace "$tmp/keep.json" --svg "$tmp/none/t.svg" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || bad "eval --trace with an --svg that cannot be written: want exit 2"
[ "$(cat "$tmp/keep.json")" = "old trace" ] || bad "eval: the trace was replaced though the svg failed"
$P plan $job --fix "tp=2 pp=2" --export megatron --out "$tmp/adir" --trace "$tmp/keep.json" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || bad "plan --out a directory --trace: want exit 2"
[ "$(cat "$tmp/keep.json")" = "old trace" ] || bad "plan: the trace was replaced though --out failed"
no_leftovers "outputs that fail together"

# a new file gets the usual mode (umask), not mkstemp's 0600
(umask 022 && $P eval $job --strategy "tp=2 pp=2" --trace "$tmp/mode.json" >/dev/null 2>&1)
[ "$(stat -c %a "$tmp/mode.json")" = "644" ] || bad "new file mode $(stat -c %a "$tmp/mode.json"), want 644"
exit $fail
