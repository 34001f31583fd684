build2/obj/src/workload/recsys.o: src/workload/recsys.c \
 src/workload/recsys.h src/workload/graph.h include/partita.h \
 src/base/base.h
src/workload/recsys.h:
src/workload/graph.h:
include/partita.h:
src/base/base.h:
