build2/obj/src/cli/cmd_checkpoint.o: src/cli/cmd_checkpoint.c \
 src/cli/cli.h include/partita.h src/sim/sim.h src/cost/pipe.h \
 src/emit/goodput_out.h src/goal/checkpoint.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h \
 src/goal/failure.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/emit/goodput_out.h:
src/goal/checkpoint.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/goal/failure.h:
