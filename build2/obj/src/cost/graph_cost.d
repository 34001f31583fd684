build2/obj/src/cost/graph_cost.o: src/cost/graph_cost.c \
 src/cost/graph_cost.h include/partita.h src/workload/graph.h \
 src/cost/roofline.h
src/cost/graph_cost.h:
include/partita.h:
src/workload/graph.h:
src/cost/roofline.h:
