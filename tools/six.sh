#!/bin/sh
# The six problems of issue 14's "Done when", for --engine megatron and any:
# for every plan the simulator checked (step_time_source "simulated"), the
# largest gap between its analytic and simulated step; simulated peak memory
# (or the analytic one where the simulator checked nothing) against the
# device; the largest HFU.  Plans without simulated_* keys (plan --verify
# --json leaves them out where nothing was checked) count as analytic.  The problems are tests/data/six-problems.txt's, one a line
# (tests/e2e/plan.sh reads them too).  Run from the repository root after
# make.
while read -r q <&3; do
  for e in megatron any; do
  build/partita plan $q --engine $e --verify --top 5 --json | python3 -c "
import json,sys
j=json.load(sys.stdin); w=0; peak=0; hfu=0; src=set()
n1=sum(q['step_time_source']=='analytic' for q in j['plans'])
for p in j['plans']:
    if p['step_time_source']=='simulated':
        w=max(w,abs(p['simulated_step_time_s']/p['analytic_step_time_s']-1))
    peak=max(peak,p.get('simulated_peak_memory_GiB',p['memory_GiB']['total'])/p['device_memory_GiB']); hfu=max(hfu,p['hfu']); src.add(p['step_time_source'])
p=j['plans'][0]
print('%-16s %-8s #1 %-70s %7.3fs gap %.2f%% peak/dev %.3f hfu %.3f mfu %.3f %s analytic=%d' % (j['model'], '$e', p['strategy_string'][:70], p['step_time_s'], 100*w, peak, hfu, p['mfu'], ','.join(sorted(src)), n1))
"
  done
done 3<tests/data/six-problems.txt
