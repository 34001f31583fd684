build2/obj/src/emit/serve_out.o: src/emit/serve_out.c \
 src/emit/serve_out.h include/partita.h src/plan/serve_search.h \
 src/cost/infer.h src/base/base.h src/emit/emit.h
src/emit/serve_out.h:
include/partita.h:
src/plan/serve_search.h:
src/cost/infer.h:
src/base/base.h:
src/emit/emit.h:
