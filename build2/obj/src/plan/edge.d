build2/obj/src/plan/edge.o: src/plan/edge.c src/plan/edge.h \
 include/partita.h src/workload/graph.h src/base/base.h \
 src/base/catalog.h src/cost/roofline.h
src/plan/edge.h:
include/partita.h:
src/workload/graph.h:
src/base/base.h:
src/base/catalog.h:
src/cost/roofline.h:
