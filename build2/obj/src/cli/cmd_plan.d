build2/obj/src/cli/cmd_plan.o: src/cli/cmd_plan.c src/cli/cli.h \
 include/partita.h src/sim/sim.h src/cost/pipe.h src/base/base.h \
 src/emit/emit.h src/emit/export.h src/emit/html.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h \
 src/goal/ttt.h src/workload/graph.h src/cli/plan_goodput.h \
 src/goal/failure.h src/goal/checkpoint.h src/cli/cmd_recsys.h \
 src/workload/recsys.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/base/base.h:
src/emit/emit.h:
src/emit/export.h:
src/emit/html.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/goal/ttt.h:
src/workload/graph.h:
src/cli/plan_goodput.h:
src/goal/failure.h:
src/goal/checkpoint.h:
src/cli/cmd_recsys.h:
src/workload/recsys.h:
