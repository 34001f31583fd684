build2/obj/src/plan/nearmiss.o: src/plan/nearmiss.c src/plan/search.h \
 include/partita.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h
src/plan/search.h:
include/partita.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
