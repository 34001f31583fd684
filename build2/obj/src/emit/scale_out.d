build2/obj/src/emit/scale_out.o: src/emit/scale_out.c src/emit/emit.h \
 include/partita.h src/emit/trials_out.h src/cost/ps.h \
 src/workload/graph.h src/goal/trials.h src/goal/ttt.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h \
 src/goal/scale.h src/plan/place.h src/base/base.h
src/emit/emit.h:
include/partita.h:
src/emit/trials_out.h:
src/cost/ps.h:
src/workload/graph.h:
src/goal/trials.h:
src/goal/ttt.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/goal/scale.h:
src/plan/place.h:
src/base/base.h:
