build2/obj/src/plan/search.o: src/plan/search.c src/plan/search.h \
 include/partita.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/base/base.h
src/plan/search.h:
include/partita.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/base/base.h:
