build2/obj/src/goal/sweep.o: src/goal/sweep.c src/goal/sweep.h \
 include/partita.h src/plan/search.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/base/base.h
src/goal/sweep.h:
include/partita.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/base/base.h:
