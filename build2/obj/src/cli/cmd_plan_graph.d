build2/obj/src/cli/cmd_plan_graph.o: src/cli/cmd_plan_graph.c \
 src/cli/cli.h include/partita.h src/sim/sim.h src/cost/pipe.h \
 src/base/base.h src/emit/gplan_out.h src/plan/gplan.h src/cost/ps.h \
 src/workload/graph.h src/cost/spatial.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/base/base.h:
src/emit/gplan_out.h:
src/plan/gplan.h:
src/cost/ps.h:
src/workload/graph.h:
src/cost/spatial.h:
