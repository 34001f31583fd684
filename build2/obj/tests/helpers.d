build2/obj/tests/helpers.o: tests/helpers.c tests/helpers.h \
 include/partita.h src/plan/search.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h
tests/helpers.h:
include/partita.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
