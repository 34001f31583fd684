build2/obj/src/workload/graph.o: src/workload/graph.c \
 src/workload/graph.h include/partita.h src/base/base.h \
 src/workload/unet3d.h
src/workload/graph.h:
include/partita.h:
src/base/base.h:
src/workload/unet3d.h:
