build2/obj/src/plan/shard.o: src/plan/shard.c src/plan/shard.h \
 src/cost/embed_cost.h include/partita.h src/workload/recsys.h \
 src/workload/graph.h src/base/base.h
src/plan/shard.h:
src/cost/embed_cost.h:
include/partita.h:
src/workload/recsys.h:
src/workload/graph.h:
src/base/base.h:
