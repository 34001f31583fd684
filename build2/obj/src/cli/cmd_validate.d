build2/obj/src/cli/cmd_validate.o: src/cli/cmd_validate.c src/cli/cli.h \
 include/partita.h src/sim/sim.h src/cost/pipe.h src/base/base.h \
 src/emit/emit.h src/validate/validate.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/base/base.h:
src/emit/emit.h:
src/validate/validate.h:
