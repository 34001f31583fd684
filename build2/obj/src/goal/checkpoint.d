build2/obj/src/goal/checkpoint.o: src/goal/checkpoint.c \
 src/goal/checkpoint.h include/partita.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h \
 src/base/base.h
src/goal/checkpoint.h:
include/partita.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/base/base.h:
