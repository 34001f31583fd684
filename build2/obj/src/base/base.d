build2/obj/src/base/base.o: src/base/base.c src/base/base.h \
 include/partita.h
src/base/base.h:
include/partita.h:
