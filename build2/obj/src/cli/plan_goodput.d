build2/obj/src/cli/plan_goodput.o: src/cli/plan_goodput.c \
 src/cli/plan_goodput.h src/cli/cli.h include/partita.h src/sim/sim.h \
 src/cost/pipe.h src/goal/failure.h src/goal/checkpoint.h \
 src/plan/search.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/base/base.h src/emit/goodput_out.h
src/cli/plan_goodput.h:
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/goal/failure.h:
src/goal/checkpoint.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/base/base.h:
src/emit/goodput_out.h:
