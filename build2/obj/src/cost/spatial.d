build2/obj/src/cost/spatial.o: src/cost/spatial.c src/cost/spatial.h \
 include/partita.h src/cost/ps.h src/workload/graph.h src/base/base.h \
 src/cost/graph_cost.h src/cost/roofline.h
src/cost/spatial.h:
include/partita.h:
src/cost/ps.h:
src/workload/graph.h:
src/base/base.h:
src/cost/graph_cost.h:
src/cost/roofline.h:
