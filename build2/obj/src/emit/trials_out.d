build2/obj/src/emit/trials_out.o: src/emit/trials_out.c \
 src/emit/trials_out.h include/partita.h src/cost/ps.h \
 src/workload/graph.h src/goal/trials.h src/goal/ttt.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h \
 src/emit/emit.h
src/emit/trials_out.h:
include/partita.h:
src/cost/ps.h:
src/workload/graph.h:
src/goal/trials.h:
src/goal/ttt.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/emit/emit.h:
