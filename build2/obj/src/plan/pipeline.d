build2/obj/src/plan/pipeline.o: src/plan/pipeline.c src/plan/pipeline.h \
 include/partita.h src/plan/edge.h src/workload/graph.h src/base/base.h
src/plan/pipeline.h:
include/partita.h:
src/plan/edge.h:
src/workload/graph.h:
src/base/base.h:
