build2/obj/src/cli/cmd_eval.o: src/cli/cmd_eval.c src/cli/cli.h \
 include/partita.h src/sim/sim.h src/cost/pipe.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h \
 src/emit/emit.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/emit/emit.h:
