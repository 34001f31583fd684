build2/obj/src/plan/place.o: src/plan/place.c src/plan/place.h \
 include/partita.h src/base/base.h src/workload/graph.h \
 src/cost/graph_cost.h
src/plan/place.h:
include/partita.h:
src/base/base.h:
src/workload/graph.h:
src/cost/graph_cost.h:
