build2/obj/src/emit/export.o: src/emit/export.c src/emit/export.h \
 include/partita.h src/emit/emit.h src/base/base.h
src/emit/export.h:
include/partita.h:
src/emit/emit.h:
src/base/base.h:
