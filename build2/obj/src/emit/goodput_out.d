build2/obj/src/emit/goodput_out.o: src/emit/goodput_out.c \
 src/emit/goodput_out.h include/partita.h src/goal/checkpoint.h \
 src/plan/search.h src/cost/cost.h src/cost/roofline.h \
 src/strategy/strategy.h src/goal/failure.h src/emit/emit.h
src/emit/goodput_out.h:
include/partita.h:
src/goal/checkpoint.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/goal/failure.h:
src/emit/emit.h:
