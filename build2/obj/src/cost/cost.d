build2/obj/src/cost/cost.o: src/cost/cost.c src/cost/cost.h \
 include/partita.h src/cost/roofline.h src/cost/pipe.h \
 src/strategy/strategy.h
src/cost/cost.h:
include/partita.h:
src/cost/roofline.h:
src/cost/pipe.h:
src/strategy/strategy.h:
