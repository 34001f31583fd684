build2/obj/src/hw/cluster.o: src/hw/cluster.c src/hw/hw.h src/base/base.h \
 include/partita.h src/base/catalog.h
src/hw/hw.h:
src/base/base.h:
include/partita.h:
src/base/catalog.h:
