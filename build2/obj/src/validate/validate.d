build2/obj/src/validate/validate.o: src/validate/validate.c \
 src/validate/validate.h include/partita.h src/plan/search.h \
 src/cost/cost.h src/cost/roofline.h src/strategy/strategy.h \
 src/goal/ttt.h src/workload/graph.h src/validate/infer_runs.h \
 src/cost/graph_cost.h src/hw/gpus.h src/workload/model.h src/base/base.h \
 src/base/csv.h
src/validate/validate.h:
include/partita.h:
src/plan/search.h:
src/cost/cost.h:
src/cost/roofline.h:
src/strategy/strategy.h:
src/goal/ttt.h:
src/workload/graph.h:
src/validate/infer_runs.h:
src/cost/graph_cost.h:
src/hw/gpus.h:
src/workload/model.h:
src/base/base.h:
src/base/csv.h:
