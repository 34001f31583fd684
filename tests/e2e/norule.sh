#!/bin/sh
# End-to-end `partita plan` when nothing is left to price or nothing fits:
# "no valid strategy" names the rules that refused the candidates, with
# their counts; the nearest-miss list holds only changes that move the
# answer; a layout whose pp does not divide the layers is searched.
. "$(dirname "$0")/lib/common.sh" || exit 1

# --fix pp=8 vpp=3 on 32 layers: the vpp rule is named
$P plan llama3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 --fix "pp=8 vpp=3" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 1 ] || bad "pp=8 vpp=3: exit status not 1"
grep -q "^partita: no valid strategy for llama3-8b on 16 devices that megatron runs$" "$tmp/e" || bad "pp=8 vpp=3: $(cat "$tmp/e")"
grep -q "candidates refused, by rule" "$tmp/e" || bad "pp=8 vpp=3: no rule header: $(cat "$tmp/e")"
grep -Eq "^ +[0-9]+  vpp: pp\*vpp must divide num_layers=32" "$tmp/e" || bad "pp=8 vpp=3: vpp rule not named: $(cat "$tmp/e")"
# zero=1 offload=params (DeepSpeed takes both keys, not together): the offload
# rule comes first
$P plan llama3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 --engine deepspeed \
    --fix "zero=1 offload=params" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 1 ] || bad "zero=1 offload=params: exit status not 1"
sed -n 3p "$tmp/e" | grep -q "offload=params zero=3" || bad "zero=1 offload=params: first rule: $(cat "$tmp/e")"

# 405B on one node: no line repeats the miss's own memory
$P plan llama3.1-405b --cluster dgx-h100 --gpus 8 --global-batch 64 >"$tmp/o" 2>"$tmp/e"
[ $? -eq 1 ] || bad "405B on 8: exit status not 1"
miss=$(sed -n 's/^  needing \([0-9.]*\) GiB.*/\1/p' "$tmp/e")
[ -n "$miss" ] || bad "405B on 8: no miss memory: $(cat "$tmp/e")"
sed -n 's/^  with .* \([0-9.]*\) GiB.*/\1/p' "$tmp/e" | while read -r g; do
    awk -v g="$g" -v m="$miss" 'BEGIN { exit !(g < m) }' || echo "$g"
done >"$tmp/same"
[ -s "$tmp/same" ] && bad "405B on 8: a change that does not cut memory: $(cat "$tmp/e")"

# 126 layers on 8 stages: 15 + 6 x 16 + 15 is searched (it was "no valid strategy")
$P plan llama3.1-405b --gpus 512 --global-batch 1024 --fix "pp=8 pp_first=15 pp_last=15" --top 1 --json \
    >"$tmp/o" 2>"$tmp/e" || bad "405B pp=8 15/15: $(cat "$tmp/e")"
grep -q '"pp_first": 15' "$tmp/o" || bad "405B pp=8 15/15: plan lacks pp_first 15"
exit $fail
