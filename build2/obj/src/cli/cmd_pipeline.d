build2/obj/src/cli/cmd_pipeline.o: src/cli/cmd_pipeline.c src/cli/cli.h \
 include/partita.h src/sim/sim.h src/cost/pipe.h src/base/base.h \
 src/emit/pipeline_out.h src/emit/emit.h src/plan/pipeline.h \
 src/plan/edge.h src/workload/graph.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/base/base.h:
src/emit/pipeline_out.h:
src/emit/emit.h:
src/plan/pipeline.h:
src/plan/edge.h:
src/workload/graph.h:
