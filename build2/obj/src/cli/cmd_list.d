build2/obj/src/cli/cmd_list.o: src/cli/cmd_list.c src/cli/cli.h \
 include/partita.h src/sim/sim.h src/cost/pipe.h src/workload/graph.h \
 src/workload/recsys.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/workload/graph.h:
src/workload/recsys.h:
