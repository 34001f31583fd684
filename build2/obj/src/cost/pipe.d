build2/obj/src/cost/pipe.o: src/cost/pipe.c src/cost/pipe.h \
 include/partita.h src/base/base.h
src/cost/pipe.h:
include/partita.h:
src/base/base.h:
