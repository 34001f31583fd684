build2/obj/src/api/api.o: src/api/api.c include/partita.h src/base/base.h \
 src/emit/export.h src/plan/search.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/sim/sim.h src/cost/pipe.h
include/partita.h:
src/base/base.h:
src/emit/export.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/sim/sim.h:
src/cost/pipe.h:
