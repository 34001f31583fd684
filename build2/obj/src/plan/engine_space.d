build2/obj/src/plan/engine_space.o: src/plan/engine_space.c \
 src/plan/search.h include/partita.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/base/base.h
src/plan/search.h:
include/partita.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/base/base.h:
