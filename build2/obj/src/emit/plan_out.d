build2/obj/src/emit/plan_out.o: src/emit/plan_out.c src/emit/emit.h \
 include/partita.h src/base/base.h src/strategy/strategy.h
src/emit/emit.h:
include/partita.h:
src/base/base.h:
src/strategy/strategy.h:
