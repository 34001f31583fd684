build2/obj/src/cost/infer.o: src/cost/infer.c src/cost/infer.h \
 include/partita.h src/base/base.h src/cost/roofline.h
src/cost/infer.h:
include/partita.h:
src/base/base.h:
src/cost/roofline.h:
