build2/obj/src/plan/gplan.o: src/plan/gplan.c src/plan/gplan.h \
 include/partita.h src/cost/ps.h src/workload/graph.h src/cost/spatial.h \
 src/base/base.h src/cost/graph_cost.h
src/plan/gplan.h:
include/partita.h:
src/cost/ps.h:
src/workload/graph.h:
src/cost/spatial.h:
src/base/base.h:
src/cost/graph_cost.h:
