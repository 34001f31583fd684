build2/obj/src/plan/rerank.o: src/plan/rerank.c src/plan/search.h \
 include/partita.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/base/base.h src/sim/sim.h src/cost/pipe.h
src/plan/search.h:
include/partita.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/base/base.h:
src/sim/sim.h:
src/cost/pipe.h:
