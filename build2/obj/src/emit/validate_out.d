build2/obj/src/emit/validate_out.o: src/emit/validate_out.c \
 src/emit/emit.h include/partita.h src/validate/validate.h
src/emit/emit.h:
include/partita.h:
src/validate/validate.h:
