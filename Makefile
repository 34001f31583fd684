# Partita -- plain Makefile.  `make` builds build/partita and build/libpartita.a.
#   make run     build and run the main job on a built-in example
#   make test    build and run every test (unit, golden, end-to-end, validation)
#   make asan    the same tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make bench   speed and accuracy benchmarks (print numbers, never fail on time)
#   make fuzz    libFuzzer on every parser, FUZZ_SECONDS each (fuzz/README.md)

# Builds use every processor unless the command line says -j (make -j1: one).
MAKEFLAGS += -j$(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

CC      ?= cc
BUILD   ?= build
PKGS    := jansson cmocka
DEBPKGS := libjansson-dev libcmocka-dev libglpk-dev libgsl-dev pkg-config python3 \
           libopenmpi-dev openmpi-bin chromium
WARN    := -std=c11 -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes \
           -Wmissing-prototypes -Werror
OPT     ?= -O2 -g
CFLAGS_ALL = $(WARN) $(OPT) -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc $(EXTRA_CFLAGS) $(FILE_CFLAGS)
LDLIBS_ALL = -ljansson -lglpk -lgsl -lgslcblas -lm -lpthread $(EXTRA_LDFLAGS)

# MPI is optional: with OpenMPI's mpicc on the PATH (Debian: libopenmpi-dev,
# openmpi-bin), `partita sweep` splits its grid over `mpirun -np K` ranks
# (src/cli/cmd_sweep.c); without it, or with MPI=0, the same sweep runs on one
# process.  Only cmd_sweep.c sees mpi.h (as a system header: its warnings are
# not ours); the binary links the MPI library.
MPICC   ?= mpicc
MPI     ?= $(shell $(MPICC) --showme:compile >/dev/null 2>&1 && echo 1 || echo 0)
ifeq ($(MPI),1)
MPI_CFLAGS := -DPT_HAVE_MPI $(patsubst -I%,-isystem %,$(shell $(MPICC) --showme:compile))
MPI_LIBS   := $(shell $(MPICC) --showme:link)
endif

LIB_SRC := $(sort $(wildcard src/base/*.c src/workload/*.c src/hw/*.c src/cost/*.c \
                             src/strategy/*.c src/plan/*.c src/sim/*.c src/goal/*.c src/validate/*.c \
                             src/emit/*.c src/api/*.c))
CLI_SRC := $(sort $(wildcard src/cli/*.c))
DATA    := devices clusters models gpus
GEN_SRC := $(DATA:%=$(BUILD)/gen/data_%.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(GEN_SRC:%.c=%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TESTS   := $(patsubst tests/%.c,%,$(sort $(wildcard tests/test_*.c)))
TEST_BIN:= $(TESTS:%=$(BUILD)/tests/%)
# Fuzz harnesses (fuzz/fuzz_NAME.c): `make test` replays fuzz/corpus/NAME/
# through each with fuzz/replay.c; `make fuzz` runs them under libFuzzer.
FUZZ_NAMES := hf cluster strategy space csv graph statef
REPLAY_BIN := $(FUZZ_NAMES:%=$(BUILD)/fuzz/replay_%)

.PHONY: all run test asan bench clean deps fuzz fuzz-bins
.SECONDARY:
all: $(BUILD)/partita $(BUILD)/libpartita.a

# Build dependencies are Debian packages (python3 checks the tests' JSON).
# As root, install what is missing;
# otherwise print the exact command and stop.
$(BUILD)/.deps:
	@mkdir -p $(BUILD)
	@if ! pkg-config --exists $(PKGS) 2>/dev/null || ! test -f /usr/include/glpk.h || \
	     ! test -f /usr/include/gsl/gsl_multifit_nlinear.h || \
	     ! command -v python3 >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "partita: installing build dependencies: $(DEBPKGS)"; \
	    (apt-get install -y $(DEBPKGS) || (apt-get update && apt-get install -y $(DEBPKGS))) >&2 || exit 1; \
	  else \
	    echo "partita: missing build dependencies; run:" >&2; \
	    echo "  sudo apt-get install -y $(DEBPKGS)" >&2; exit 1; \
	  fi; \
	fi
	@touch $@
deps: $(BUILD)/.deps

$(BUILD)/embed: tools/embed.c | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) -O1 -o $@ $<

$(BUILD)/gen/data_%.c: data/%.json $(BUILD)/embed
	@mkdir -p $(@D)
	$(BUILD)/embed pt_data_$*_json $< $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(OPT) $(EXTRA_CFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: %.c | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(BUILD)/libpartita.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/partita: $(CLI_OBJ) $(BUILD)/libpartita.a $(BUILD)/mpi.flags
	$(CC) $(OPT) $(EXTRA_CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libpartita.a $(LDLIBS_ALL) $(MPI_LIBS)

# cmd_sweep.o and the binary are rebuilt when MPI comes or goes: mpi.flags
# holds the choice and changes only with it.
# (its own variable: `make asan` sets EXTRA_CFLAGS on the command line,
# which would override a target-specific EXTRA_CFLAGS and drop MPI there)
$(BUILD)/obj/src/cli/cmd_sweep.o: FILE_CFLAGS = $(MPI_CFLAGS)
$(BUILD)/obj/src/cli/cmd_sweep.o: $(BUILD)/mpi.flags
$(BUILD)/mpi.flags: FORCE
	@mkdir -p $(@D)
	@echo 'MPI=$(MPI) $(MPI_CFLAGS) $(MPI_LIBS)' >$@.tmp.new
	@if cmp -s $@.tmp.new $@; then rm -f $@.tmp.new; else mv $@.tmp.new $@; fi

# Every test binary links the shared scaffolding of tests/helpers.c.
TEST_HELPERS := $(BUILD)/obj/tests/helpers.o
$(BUILD)/tests/%: tests/%.c tests/helpers.h $(TEST_HELPERS) $(BUILD)/libpartita.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Wno-missing-prototypes -o $@ $< $(TEST_HELPERS) $(BUILD)/libpartita.a -lcmocka $(LDLIBS_ALL)

$(BUILD)/fuzz/replay_%: fuzz/fuzz_%.c fuzz/replay.c fuzz/fuzz.h $(BUILD)/libpartita.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Ifuzz -o $@ fuzz/fuzz_$*.c fuzz/replay.c $(BUILD)/libpartita.a $(LDLIBS_ALL)

# The main job on a built-in example: how to train GPT-3 175B on 1024 A100s.
run: all
	$(BUILD)/partita plan gpt3-175b --cluster dgx-a100-80g --gpus 1024 \
	  --global-batch 1536 --seq-len 2048 --explain

test: all $(TEST_BIN) $(REPLAY_BIN) $(BUILD)/fit
	@BUILD=$(BUILD) sh tests/run.sh $(TEST_BIN)

asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
	  EXTRA_LDFLAGS="-fsanitize=address,undefined" test

bench: all
	@sh bench/run.sh $(BUILD)

# libFuzzer comes with clang's compiler-rt (Debian: libclang-rt-14-dev).  As
# root, install what is missing; otherwise print the exact command and stop.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_CC      ?= clang
FUZZ_DEBPKGS := clang libclang-rt-14-dev jq
fuzz:
	@if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return !d + (int)n; }' | \
	    $(FUZZ_CC) -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "partita: installing libFuzzer: $(FUZZ_DEBPKGS)"; \
	    (apt-get install -y $(FUZZ_DEBPKGS) || (apt-get update && apt-get install -y $(FUZZ_DEBPKGS))) >&2 || exit 1; \
	  else \
	    echo "partita: $(FUZZ_CC) cannot link libFuzzer; run:" >&2; \
	    echo "  sudo apt-get install -y $(FUZZ_DEBPKGS)" >&2; exit 1; \
	  fi; \
	fi
	$(MAKE) BUILD=build-fuzz CC=$(FUZZ_CC) OPT="-O1 -g -fno-omit-frame-pointer" \
	  EXTRA_CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
	  EXTRA_LDFLAGS="-fsanitize=address,undefined" fuzz-bins
	sh fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-bins: $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)

$(BUILD)/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(BUILD)/libpartita.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Ifuzz -fsanitize=fuzzer -o $@ $< $(BUILD)/libpartita.a $(LDLIBS_ALL)

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# Maintainers' tool: refits the efficiency constants (see tools/fit.c).
$(BUILD)/fit: tools/fit.c $(BUILD)/libpartita.a
	$(CC) $(CFLAGS_ALL) -Wno-missing-prototypes -o $@ $< $(BUILD)/libpartita.a $(LDLIBS_ALL)

# ---- install ------------------------------------------------------------------
#   make install   [PREFIX=/usr/local] [DESTDIR=]   the CLI, the library, its header,
#                  partita.pc, the man page and the bash completion
#   make uninstall [PREFIX=/usr/local] [DESTDIR=]   removes exactly those files
# Directories follow the GNU names; DESTDIR is prepended to every path at install
# time only (for packagers), so partita.pc names the final PREFIX.
.PHONY: install uninstall
# The version comes from PT_VERSION in include/partita.h where the header has it.
VERSION     := $(or $(shell sed -n 's/^\#define PT_VERSION "\([^"]*\)".*/\1/p' include/partita.h),0.9.0)
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
INSTALL     ?= install
INSTALL_FILES := $(BINDIR)/partita $(LIBDIR)/libpartita.a $(INCLUDEDIR)/partita.h \
                 $(PKGCONFIGDIR)/partita.pc $(MANDIR)/man1/partita.1 $(BASHCOMPDIR)/partita

# partita.pc: the template's @NAME@ filled in; rebuilt when any of them changes.
$(BUILD)/partita.pc: partita.pc.in FORCE
	@mkdir -p $(@D)
	@sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	     -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' partita.pc.in >$@.tmp.new
	@if cmp -s $@.tmp.new $@; then rm -f $@.tmp.new; else mv $@.tmp.new $@; fi
.PHONY: FORCE
FORCE:

install: all $(BUILD)/partita.pc
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 $(BUILD)/partita $(DESTDIR)$(BINDIR)/partita
	$(INSTALL) -m 644 $(BUILD)/libpartita.a $(DESTDIR)$(LIBDIR)/libpartita.a
	$(INSTALL) -m 644 include/partita.h $(DESTDIR)$(INCLUDEDIR)/partita.h
	$(INSTALL) -m 644 $(BUILD)/partita.pc $(DESTDIR)$(PKGCONFIGDIR)/partita.pc
	$(INSTALL) -m 644 man/partita.1 $(DESTDIR)$(MANDIR)/man1/partita.1
	$(INSTALL) -m 644 completion/partita.bash $(DESTDIR)$(BASHCOMPDIR)/partita

uninstall:
	rm -f $(INSTALL_FILES:%=$(DESTDIR)%)
