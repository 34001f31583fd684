build2/obj/src/emit/search_out.o: src/emit/search_out.c src/emit/emit.h \
 include/partita.h src/plan/search.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/goal/ttt.h src/workload/graph.h \
 src/sim/sim.h src/cost/pipe.h
src/emit/emit.h:
include/partita.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/goal/ttt.h:
src/workload/graph.h:
src/sim/sim.h:
src/cost/pipe.h:
