build2/obj/src/goal/failure.o: src/goal/failure.c src/goal/failure.h \
 include/partita.h src/goal/checkpoint.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h
src/goal/failure.h:
include/partita.h:
src/goal/checkpoint.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
