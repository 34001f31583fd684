build2/obj/src/cost/ps.o: src/cost/ps.c src/cost/ps.h include/partita.h \
 src/workload/graph.h src/base/base.h src/cost/graph_cost.h
src/cost/ps.h:
include/partita.h:
src/workload/graph.h:
src/base/base.h:
src/cost/graph_cost.h:
