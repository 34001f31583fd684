build2/obj/src/strategy/strategy.o: src/strategy/strategy.c \
 src/strategy/strategy.h include/partita.h src/base/base.h
src/strategy/strategy.h:
include/partita.h:
src/base/base.h:
