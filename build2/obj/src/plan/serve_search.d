build2/obj/src/plan/serve_search.o: src/plan/serve_search.c \
 src/plan/serve_search.h include/partita.h src/cost/infer.h \
 src/base/base.h src/sim/serve_sim.h
src/plan/serve_search.h:
include/partita.h:
src/cost/infer.h:
src/base/base.h:
src/sim/serve_sim.h:
