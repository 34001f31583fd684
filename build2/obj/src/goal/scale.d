build2/obj/src/goal/scale.o: src/goal/scale.c src/goal/scale.h \
 include/partita.h src/cost/ps.h src/workload/graph.h src/goal/ttt.h \
 src/plan/search.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/plan/place.h src/base/base.h \
 src/cost/graph_cost.h
src/goal/scale.h:
include/partita.h:
src/cost/ps.h:
src/workload/graph.h:
src/goal/ttt.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/plan/place.h:
src/base/base.h:
src/cost/graph_cost.h:
