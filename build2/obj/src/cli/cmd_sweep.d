build2/obj/src/cli/cmd_sweep.o: src/cli/cmd_sweep.c src/cli/cli.h \
 include/partita.h src/sim/sim.h src/cost/pipe.h src/base/base.h \
 src/emit/sweep_out.h src/emit/emit.h src/goal/sweep.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/base/base.h:
src/emit/sweep_out.h:
src/emit/emit.h:
src/goal/sweep.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
