build2/obj/src/emit/shard_out.o: src/emit/shard_out.c \
 src/emit/shard_out.h src/plan/shard.h src/cost/embed_cost.h \
 include/partita.h src/workload/recsys.h src/workload/graph.h \
 src/emit/emit.h
src/emit/shard_out.h:
src/plan/shard.h:
src/cost/embed_cost.h:
include/partita.h:
src/workload/recsys.h:
src/workload/graph.h:
src/emit/emit.h:
