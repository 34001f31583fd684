build2/obj/src/emit/svg.o: src/emit/svg.c src/emit/timeline.h \
 include/partita.h src/sim/sim.h src/cost/pipe.h src/emit/emit.h \
 src/base/base.h
src/emit/timeline.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/emit/emit.h:
src/base/base.h:
