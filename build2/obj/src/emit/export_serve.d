build2/obj/src/emit/export_serve.o: src/emit/export_serve.c \
 src/emit/serve_out.h include/partita.h src/plan/serve_search.h \
 src/cost/infer.h src/base/base.h src/emit/emit.h
src/emit/serve_out.h:
include/partita.h:
src/plan/serve_search.h:
src/cost/infer.h:
src/base/base.h:
src/emit/emit.h:
