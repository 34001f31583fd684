build2/obj/src/cli/cmd_calibrate.o: src/cli/cmd_calibrate.c src/cli/cli.h \
 include/partita.h src/sim/sim.h src/cost/pipe.h src/base/base.h \
 src/emit/emit.h src/validate/calib.h src/goal/ttt.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h \
 src/workload/graph.h src/validate/validate.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/base/base.h:
src/emit/emit.h:
src/validate/calib.h:
src/goal/ttt.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/workload/graph.h:
src/validate/validate.h:
