build2/obj/src/emit/sweep_out.o: src/emit/sweep_out.c \
 src/emit/sweep_out.h src/emit/emit.h include/partita.h src/goal/sweep.h \
 src/plan/search.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/emit/html.h src/base/base.h
src/emit/sweep_out.h:
src/emit/emit.h:
include/partita.h:
src/goal/sweep.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/emit/html.h:
src/base/base.h:
