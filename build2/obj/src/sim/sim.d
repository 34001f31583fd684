build2/obj/src/sim/sim.o: src/sim/sim.c src/sim/sim.h include/partita.h \
 src/cost/pipe.h src/base/base.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h
src/sim/sim.h:
include/partita.h:
src/cost/pipe.h:
src/base/base.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
