build2/obj/src/cli/cmd_serve.o: src/cli/cmd_serve.c src/cli/cli.h \
 include/partita.h src/sim/sim.h src/cost/pipe.h src/base/base.h \
 src/emit/serve_out.h src/plan/serve_search.h src/cost/infer.h
src/cli/cli.h:
include/partita.h:
src/sim/sim.h:
src/cost/pipe.h:
src/base/base.h:
src/emit/serve_out.h:
src/plan/serve_search.h:
src/cost/infer.h:
