build2/obj/src/validate/calib.o: src/validate/calib.c \
 src/validate/calib.h include/partita.h src/goal/ttt.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h \
 src/workload/graph.h src/validate/validate.h src/base/base.h \
 src/base/csv.h
src/validate/calib.h:
include/partita.h:
src/goal/ttt.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/workload/graph.h:
src/validate/validate.h:
src/base/base.h:
src/base/csv.h:
