build2/obj/src/goal/ttt.o: src/goal/ttt.c src/goal/ttt.h \
 include/partita.h src/plan/search.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/workload/graph.h src/base/base.h \
 src/cost/graph_cost.h
src/goal/ttt.h:
include/partita.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/workload/graph.h:
src/base/base.h:
src/cost/graph_cost.h:
