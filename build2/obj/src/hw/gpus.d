build2/obj/src/hw/gpus.o: src/hw/gpus.c src/hw/gpus.h include/partita.h \
 src/hw/hw.h src/base/base.h src/base/catalog.h
src/hw/gpus.h:
include/partita.h:
src/hw/hw.h:
src/base/base.h:
src/base/catalog.h:
