build2/obj/src/workload/model.o: src/workload/model.c \
 src/workload/model.h src/base/base.h include/partita.h \
 src/base/catalog.h
src/workload/model.h:
src/base/base.h:
include/partita.h:
src/base/catalog.h:
