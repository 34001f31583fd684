build2/obj/src/validate/infer_runs.o: src/validate/infer_runs.c \
 src/validate/infer_runs.h include/partita.h src/validate/validate.h \
 src/base/base.h src/base/csv.h src/cost/infer.h src/hw/gpus.h
src/validate/infer_runs.h:
include/partita.h:
src/validate/validate.h:
src/base/base.h:
src/base/csv.h:
src/cost/infer.h:
src/hw/gpus.h:
