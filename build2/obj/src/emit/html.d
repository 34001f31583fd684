build2/obj/src/emit/html.o: src/emit/html.c src/emit/html.h \
 include/partita.h src/emit/emit.h src/emit/timeline.h src/sim/sim.h \
 src/cost/pipe.h src/goal/scale.h src/cost/ps.h src/workload/graph.h \
 src/goal/ttt.h src/plan/search.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/plan/place.h src/base/base.h
src/emit/html.h:
include/partita.h:
src/emit/emit.h:
src/emit/timeline.h:
src/sim/sim.h:
src/cost/pipe.h:
src/goal/scale.h:
src/cost/ps.h:
src/workload/graph.h:
src/goal/ttt.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/plan/place.h:
src/base/base.h:
