build2/obj/src/emit/gplan_out.o: src/emit/gplan_out.c \
 src/emit/gplan_out.h include/partita.h src/plan/gplan.h src/cost/ps.h \
 src/workload/graph.h src/cost/spatial.h src/emit/emit.h \
 src/emit/trials_out.h src/goal/trials.h src/goal/ttt.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h
src/emit/gplan_out.h:
include/partita.h:
src/plan/gplan.h:
src/cost/ps.h:
src/workload/graph.h:
src/cost/spatial.h:
src/emit/emit.h:
src/emit/trials_out.h:
src/goal/trials.h:
src/goal/ttt.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
