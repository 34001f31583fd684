build2/obj/src/sim/serve_sim.o: src/sim/serve_sim.c src/sim/serve_sim.h \
 include/partita.h src/cost/infer.h src/base/base.h
src/sim/serve_sim.h:
include/partita.h:
src/cost/infer.h:
src/base/base.h:
