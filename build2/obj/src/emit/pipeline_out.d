build2/obj/src/emit/pipeline_out.o: src/emit/pipeline_out.c \
 src/emit/pipeline_out.h src/emit/emit.h include/partita.h \
 src/plan/pipeline.h src/plan/edge.h src/workload/graph.h src/base/base.h
src/emit/pipeline_out.h:
src/emit/emit.h:
include/partita.h:
src/plan/pipeline.h:
src/plan/edge.h:
src/workload/graph.h:
src/base/base.h:
