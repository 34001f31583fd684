build2/obj/src/cost/embed_cost.o: src/cost/embed_cost.c \
 src/cost/embed_cost.h include/partita.h src/workload/recsys.h \
 src/workload/graph.h src/cost/graph_cost.h src/base/base.h
src/cost/embed_cost.h:
include/partita.h:
src/workload/recsys.h:
src/workload/graph.h:
src/cost/graph_cost.h:
src/base/base.h:
