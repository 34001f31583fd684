build2/obj/src/goal/statef_csv.o: src/goal/statef_csv.c \
 src/goal/statef_csv.h src/goal/ttt.h include/partita.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h \
 src/workload/graph.h src/base/base.h src/base/csv.h
src/goal/statef_csv.h:
src/goal/ttt.h:
include/partita.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/workload/graph.h:
src/base/base.h:
src/base/csv.h:
