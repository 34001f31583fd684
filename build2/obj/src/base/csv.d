build2/obj/src/base/csv.o: src/base/csv.c src/base/csv.h src/base/base.h \
 include/partita.h
src/base/csv.h:
src/base/base.h:
include/partita.h:
