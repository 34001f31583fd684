build2/obj/src/cli/cmd_scale.o: src/cli/cmd_scale.c src/cli/cli.h \
 include/partita.h src/sim/sim.h src/cost/pipe.h src/base/base.h \
 src/emit/emit.h src/emit/html.h src/goal/statef_csv.h src/goal/ttt.h \
 src/plan/search.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/workload/graph.h src/goal/scale.h \
 src/cost/ps.h src/plan/place.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/base/base.h:
src/emit/emit.h:
src/emit/html.h:
src/goal/statef_csv.h:
src/goal/ttt.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/workload/graph.h:
src/goal/scale.h:
src/cost/ps.h:
src/plan/place.h:
