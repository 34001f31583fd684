build2/obj/src/workload/hf.o: src/workload/hf.c src/workload/model.h \
 src/base/base.h include/partita.h
src/workload/model.h:
src/base/base.h:
include/partita.h:
