build2/obj/src/emit/buf.o: src/emit/buf.c src/emit/emit.h \
 include/partita.h src/base/base.h
src/emit/emit.h:
include/partita.h:
src/base/base.h:
