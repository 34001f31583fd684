build2/obj/src/goal/trials.o: src/goal/trials.c src/goal/trials.h \
 include/partita.h src/cost/ps.h src/workload/graph.h src/goal/ttt.h \
 src/plan/search.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/base/base.h src/cost/graph_cost.h \
 src/cost/spatial.h
src/goal/trials.h:
include/partita.h:
src/cost/ps.h:
src/workload/graph.h:
src/goal/ttt.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/base/base.h:
src/cost/graph_cost.h:
src/cost/spatial.h:
