build2/obj/src/workload/unet3d.o: src/workload/unet3d.c \
 src/workload/unet3d.h include/partita.h src/workload/graph.h \
 src/base/base.h
src/workload/unet3d.h:
include/partita.h:
src/workload/graph.h:
src/base/base.h:
