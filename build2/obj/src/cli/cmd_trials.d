build2/obj/src/cli/cmd_trials.o: src/cli/cmd_trials.c src/cli/cli.h \
 include/partita.h src/sim/sim.h src/cost/pipe.h src/base/base.h \
 src/emit/trials_out.h src/cost/ps.h src/workload/graph.h \
 src/goal/trials.h src/goal/ttt.h src/plan/search.h src/cost/cost.h \
 src/cost/roofline.h src/strategy/strategy.h src/goal/statef_csv.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/base/base.h:
src/emit/trials_out.h:
src/cost/ps.h:
src/workload/graph.h:
src/goal/trials.h:
src/goal/ttt.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/goal/statef_csv.h:
