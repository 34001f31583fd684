build2/obj/src/cost/roofline.o: src/cost/roofline.c src/cost/roofline.h \
 include/partita.h
src/cost/roofline.h:
include/partita.h:
