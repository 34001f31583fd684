build2/obj/src/hw/coll.o: src/hw/coll.c include/partita.h
include/partita.h:
