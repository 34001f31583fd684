build2/obj/src/cli/cmd_recsys.o: src/cli/cmd_recsys.c \
 src/cli/cmd_recsys.h src/cli/cli.h include/partita.h src/sim/sim.h \
 src/cost/pipe.h src/base/base.h src/emit/shard_out.h src/plan/shard.h \
 src/cost/embed_cost.h src/workload/recsys.h src/workload/graph.h
src/cli/cmd_recsys.h:
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/base/base.h:
src/emit/shard_out.h:
src/plan/shard.h:
src/cost/embed_cost.h:
src/workload/recsys.h:
src/workload/graph.h:
