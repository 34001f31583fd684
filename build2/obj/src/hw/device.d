build2/obj/src/hw/device.o: src/hw/device.c src/hw/hw.h src/base/base.h \
 include/partita.h src/base/catalog.h
src/hw/hw.h:
src/base/base.h:
include/partita.h:
src/base/catalog.h:
