build2/obj/src/emit/xml.o: src/emit/xml.c src/emit/emit.h \
 include/partita.h src/base/base.h
src/emit/emit.h:
include/partita.h:
src/base/base.h:
