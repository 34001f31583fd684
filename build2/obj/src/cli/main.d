build2/obj/src/cli/main.o: src/cli/main.c src/cli/cli.h include/partita.h \
 src/sim/sim.h src/cost/pipe.h src/base/base.h src/emit/timeline.h \
 src/emit/emit.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/base/base.h:
src/emit/timeline.h:
src/emit/emit.h:
