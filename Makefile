# ExaDL: `make` builds the programs, `make test` builds the normal and the
# sanitizer (ASan + UBSan) trees and runs every test in both.
#
#   make                 every program in build/bin/ (stemdl, cosmoflow, collectives, exadl, ...)
#   make test            tests in build/ and build-san/, last line "N passed, N failed"
#   make SAN=1           the sanitizer build alone (build-san/)
#   make fuzz            the libFuzzer harnesses of tests/fuzz/ (clang) in build-fuzz/,
#                        each run FUZZ_SECONDS on its seed corpus (make test runs them too)
#   make GPU=0           leave out the CUDA path even where CUDA is found
#   make STRICT=0        warnings are not errors (for unfamiliar compilers)
#   make STRICT=nvcc     only nvcc's own warnings are errors (a GPU machine whose
#                        gcc is not the one the project is checked with)
#   CUDA_HOME, CUDNN_HOME, NCCL_HOME   where the CUDA toolkit, cuDNN and NCCL are

# the rules of every module.mk come before `all`: without this the first
# library would be what a bare `make` builds (run.sh calls a bare `make`)
.DEFAULT_GOAL := all

SAN    ?= 0
FUZZ   ?= 0
STRICT ?= 1
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 15
# what `make test` gives each harness: CI's time is shared by every test
FUZZ_TEST_SECONDS ?= 3
GPU    ?= auto
CUDA_HOME  ?= /usr/local/cuda
CUDNN_HOME ?= $(CUDA_HOME)
NCCL_HOME  ?= $(CUDA_HOME)

# SMPI=1 (make smpi): collectives, orchestration and mpiprobe built by SimGrid's smpicc
# into build-smpi/, to run as simulated ranks under smpirun (docs/simulate.md)
SMPI ?= 0
ifeq ($(SMPI),1)
BUILD    := build-smpi
CC       := smpicc
GPU      := 0
endif

ifeq ($(FUZZ),1)
# the fuzz harnesses' build (make fuzz-build): clang's coverage for libFuzzer on
# every library, the sanitizers of build-san plus float-cast-overflow; clang's
# warnings differ from GCC's, so they do not fail this build
BUILD    := build-fuzz
CC       := $(FUZZ_CC)
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined,float-cast-overflow \
            -fno-sanitize-recover=all -fno-omit-frame-pointer
GPU      := 0
STRICT   := 0
else ifeq ($(SAN),1)
BUILD    ?= build-san
# float-cast-overflow: a double read from a file cast to an int out of its range
# (GCC's -fsanitize=undefined leaves it out)
SANFLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all \
            -fno-omit-frame-pointer
# the CUDA runtime and ASan do not share an address space peacefully; the
# sanitizer build covers the CPU path and the harness
GPU      := 0
else
BUILD    ?= build
SANFLAGS :=
endif

CC      ?= gcc
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla \
           -Wformat=2 -Wno-format-nonliteral -Wundef
ifeq ($(STRICT),1)
WARN    += -Werror
endif
OPT     ?= -O2
CFLAGS  := -std=gnu11 $(OPT) -g $(WARN) $(SANFLAGS) -MMD -MP -I.
LDFLAGS := $(SANFLAGS)

ifeq ($(SMPI),1)
# smpicc brings SimGrid's mpi.h and -lsimgrid itself
MPI_CFLAGS :=
MPI_LIBS   :=
else
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)
endif
BLAS_LIBS  := -lopenblas
DNNL_LIBS  := -ldnnl -lgomp
YAML_LIBS  := -lyaml
SYS_LIBS   := -lm -lpthread -ldl
# HDF5 (Debian's libhdf5-dev, serial): the hdf5 encoding of data sets
# (benchmarks/common/shard, docs/data.md); without it (or HDF5=0) that
# encoding is refused in one line and the raw one still works
# zlib (zlib1g-dev): crc32_ieee (benchmarks/common/crc32.c) through zlib's
# crc32(), twice the rate of its own slicing-by-8 loop (the same CRC-32, so
# checksums written before still verify); without it (or ZLIB=0) the loop
ZLIB ?= auto
ifeq ($(ZLIB),auto)
ZLIB := $(shell pkg-config --exists zlib 2>/dev/null && echo 1 || echo 0)
endif
ifeq ($(ZLIB),1)
SYS_LIBS += $(shell pkg-config --libs zlib)
endif
HDF5 ?= auto
ifeq ($(HDF5),auto)
HDF5 := $(shell pkg-config --exists hdf5 2>/dev/null && echo 1 || echo 0)
endif
ifeq ($(HDF5),1)
HDF5_CFLAGS := $(shell pkg-config --cflags hdf5) -DEXADL_HDF5=1
HDF5_LIBS   := $(shell pkg-config --libs hdf5)
else
HDF5_CFLAGS := -DEXADL_HDF5=0
HDF5_LIBS   :=
endif

# ---- the CUDA path: built where nvcc, cuDNN and NCCL are all found ---------
NVCC := $(CUDA_HOME)/bin/nvcc
ifeq ($(GPU),auto)
GPU := $(shell test -x $(NVCC) && \
         test -f $(CUDNN_HOME)/include/cudnn.h && \
         test -f $(NCCL_HOME)/include/nccl.h && echo 1 || echo 0)
endif
CUDA_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90
# Warnings as errors, split by who gives them.  nvcc's own (the front ends
# cudafe++ and cicc: -Xcudafe reaches both; ptxas) are errors under STRICT=1
# and STRICT=nvcc.  The host compiler's are errors only under STRICT=1 and
# where it is a GCC whose warnings the project is checked against
# (NVCC_HOST_CHECKED: the major versions of the CI's gcc): on another one (the
# GPU machines' newer g++) a new warning of that compiler must not stop the
# build.  (`-Werror all-warnings` would pass -Werror to the host compiler too.)
# tests/manual/gpu_session.sh builds with STRICT=nvcc: its C files meet that
# newer gcc as well.
NVCC_HOST_CHECKED ?= 12
NVCC_HOST_VERSION ?= $(firstword $(subst ., ,$(shell gcc -dumpfullversion 2>/dev/null)))
NV_OWN_WERROR := -Xcudafe --promote_warnings -Xptxas --warning-as-error
NV_WERROR :=
ifneq ($(filter 1 nvcc,$(STRICT)),)
NV_WERROR := $(NV_OWN_WERROR)
endif
ifeq ($(STRICT),1)
ifneq ($(filter $(NVCC_HOST_VERSION),$(NVCC_HOST_CHECKED)),)
NV_WERROR += -Xcompiler -Werror
endif
endif
NVFLAGS := -O2 -g -std=c++17 $(CUDA_ARCH) -I. \
           -I$(CUDNN_HOME)/include -I$(NCCL_HOME)/include $(MPI_CFLAGS) \
           -Xcompiler -Wall,-Wextra,-fPIC $(NV_WERROR) -MMD -MP
# Library directories in order of precedence (cuDNN's, NCCL's, then the
# toolkit's), each once: the run-time search follows the same order, so a
# CUDNN_HOME or NCCL_HOME given wins over a copy in CUDA_HOME.
uniq = $(if $(1),$(firstword $(1)) $(call uniq,$(filter-out $(firstword $(1)),$(1))))
CUDNN_LIBDIRS := $(CUDNN_HOME)/lib64 $(CUDNN_HOME)/lib
NCCL_LIBDIRS  := $(NCCL_HOME)/lib64 $(NCCL_HOME)/lib
CUDA_LIBDIRS  := $(call uniq,$(CUDNN_LIBDIRS) $(NCCL_LIBDIRS) $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib)
# The file a library links from: libNAME.so in the first of its directories
# that has it, else the versioned libNAME.so.N there (Python wheels ship only
# libcudnn.so.9 and libnccl.so.2); plain -lNAME where neither is found (the
# linker then names what is missing).
cuda_lib = $(or $(firstword $(wildcard $(addsuffix /lib$(1).so,$(2)))),$(firstword \
             $(wildcard $(addsuffix /lib$(1).so.[0-9]*,$(2)))),-l$(1))
CUDA_LIBS := $(foreach d,$(CUDA_LIBDIRS),-L$(d) -Wl,-rpath,$(d)) \
             $(call cuda_lib,cudnn,$(CUDNN_LIBDIRS)) $(call cuda_lib,nccl,$(NCCL_LIBDIRS)) \
             $(call cuda_lib,cublas,$(CUDA_HOME)/lib64 $(CUDA_HOME)/lib) \
             $(call cuda_lib,cudart,$(CUDA_HOME)/lib64 $(CUDA_HOME)/lib)

# GPU_LIBS: what the GPU modules (below) link with; no program links them.
ifeq ($(GPU),1)
GPU_DEFS   := -DEXADL_GPU=1
GPU_LIBS   := $(CUDA_LIBS)
else
GPU_DEFS   := -DEXADL_GPU=0
GPU_LIBS   :=
endif
LINK       := $(CC)

# What programs link with, by kind (a module.mk names one in PROG_ldlibs).
# -I$(NCCL_HOME)/include: C files that call NCCL through a GPU module still
# include nccl.h for its types (NCCL from a Python wheel is not under CUDA_HOME).
BENCH_CFLAGS := $(MPI_CFLAGS) $(GPU_DEFS) -DEXADL_SMPI=$(SMPI) -I$(CUDA_HOME)/include -I$(NCCL_HOME)/include
TRAIN_LDLIBS := $(MPI_LIBS) $(BLAS_LIBS) $(DNNL_LIBS) $(YAML_LIBS) $(HDF5_LIBS) $(SYS_LIBS)
MPI_LDLIBS   := $(MPI_LIBS) $(YAML_LIBS) $(SYS_LIBS)
HARN_LDLIBS  := $(YAML_LIBS) $(SYS_LIBS)
# Programs and tests open GPU modules from their own ../lib and give them
# their symbols (check_fail, kern_ref_ops, MPI): -rdynamic.
MODULE_LDFLAGS := -rdynamic -Wl,-rpath,'$$ORIGIN/../lib'

BIN := $(BUILD)/bin
obj   = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
cuobj = $(patsubst %.cu,$(BUILD)/obj/%.cu.o,$(1))
lib   = $(foreach l,$(1),$(BUILD)/lib/lib$(l).a)
# static libraries in a group: their order does not matter
group = -Wl,--start-group $(filter %.a,$(1)) -Wl,--end-group

# ---- parts -----------------------------------------------------------------
# One module.mk per part folder.  It adds its sources to a library
#     LIBRARIES += NAME      NAME_src += FILES.c      NAME_cu += FILES.cu
# and may name programs
#     PROGRAMS += PROG       PROG_main := FILE.c      PROG_libs := LIB ...
#     PROG_ldlibs = $(TRAIN_LDLIBS)   [PROG_objs := more FILES.c]
# and GPU modules: shared libraries of CUDA code that a program opens with
# dlopen only when a GPU backend is asked for, so that the programs of a GPU
# build start, and run on the CPU, where CUDA, cuDNN or NCCL are missing
#     GPU_MODULES += NAME    NAME_cu += FILES.cu   ->  $(BUILD)/lib/libexadl_NAME.so
# (built where GPU=1, linked with GPU_LIBS; programs find them in ../lib).
# A new file in a folder needs no line anywhere; a new part is one module.mk.
# Every include is written from the repository root
# ("benchmarks/common/check.h"): -I. is the one include root.
LIBRARIES   :=
PROGRAMS    :=
GPU_MODULES :=
include $(sort $(wildcard benchmarks/*/module.mk benchmarks/*/*/module.mk harness/*/module.mk))

define library_rule
$(call lib,$(1)): $(call obj,$($(1)_src)) $(if $(filter 1,$(GPU)),$(call cuobj,$($(1)_cu)))
endef
$(foreach l,$(sort $(LIBRARIES)),$(eval $(call library_rule,$(l))))

define program_rule
$(BIN)/$(1): $(call obj,$($(1)_main) $($(1)_objs)) $(call lib,$($(1)_libs))
	@mkdir -p $$(@D)
	$$(or $$($(1)_link),$$(LINK)) $$(LDFLAGS) $$(MODULE_LDFLAGS) -o $$@ $$(filter %.o,$$^) $$(call group,$$^) $$($(1)_ldlibs)
endef
$(foreach p,$(sort $(PROGRAMS)),$(eval $(call program_rule,$(p))))

# A GPU module's undefined symbols (check_fail, ...) come from the program
# that opens it.
define gpu_module_rule
$(BUILD)/lib/libexadl_$(1).so: $(call cuobj,$($(1)_cu))
	@mkdir -p $$(@D)
	$$(CXX) -shared -o $$@ $$^ $$(GPU_LIBS) $$(SYS_LIBS)
endef
ifeq ($(GPU),1)
$(foreach m,$(sort $(GPU_MODULES)),$(eval $(call gpu_module_rule,$(m))))
GPU_MODULE_FILES := $(foreach m,$(sort $(GPU_MODULES)),$(BUILD)/lib/libexadl_$(m).so)
endif

# Unit tests: tests/unit/test_KIND_*.c links the libraries of KIND (common,
# train: the training runtime, stemdl, coll: collectives, orch: orchestration,
# harness, cosmo: cosmoflow, skel: skeleton, mpar: modelpar, climate: benchmarks/networks/deepcam and the runtime).
TEST_LIBS_common  := common
TEST_LIBS_train   := train comm common
TEST_LIBS_stemdl  := $(stemdl_libs)
TEST_LIBS_coll    := $(collectives_libs)
TEST_LIBS_orch    := $(orchestration_libs)
TEST_LIBS_harness := $(exadl_libs)
TEST_LIBS_cosmo   := $(cosmoflow_libs)
TEST_LIBS_skel    := $(skeleton_libs)
TEST_LIBS_mpar    := $(modelpar_libs)
TEST_LIBS_climate := deepcam train comm common
TEST_LIBS_search  := $(search_libs)
TEST_LDLIBS_common  := $(HARN_LDLIBS)
TEST_LDLIBS_train   := $(TRAIN_LDLIBS)
TEST_LDLIBS_stemdl  := $(TRAIN_LDLIBS)
TEST_LDLIBS_coll    := $(MPI_LDLIBS)
TEST_LDLIBS_orch     = $(orchestration_ldlibs)
TEST_LDLIBS_harness := $(HARN_LDLIBS)
TEST_LDLIBS_cosmo   := $(TRAIN_LDLIBS)
TEST_LDLIBS_skel    := $(TRAIN_LDLIBS)
TEST_LDLIBS_mpar    := $(TRAIN_LDLIBS)
TEST_LDLIBS_climate := $(TRAIN_LDLIBS)
TEST_LDLIBS_search  := $(TRAIN_LDLIBS)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
define test_rule
$(BUILD)/tests/test_$(1)_%: $(BUILD)/obj/tests/unit/test_$(1)_%.o $(call lib,$(TEST_LIBS_$(1)))
	@mkdir -p $$(@D)
	$$(LINK) $$(LDFLAGS) $$(MODULE_LDFLAGS) -o $$@ $$(filter %.o,$$^) $$(call group,$$^) $$(TEST_LDLIBS_$(1))
endef
$(foreach k,common train stemdl coll orch harness cosmo skel mpar climate search,$(eval $(call test_rule,$(k))))
# the CUDA set's whole-step test trains the FC-DenseNet (as the runtime's
# other users do): its library joins the runtime's for that test alone
$(BUILD)/tests/test_train_cuda: $(call lib,fcdensenet)

ifeq ($(SAN),1)
# see tests/support/nodlclose.c; tests/run.sh preloads it where it exists
SAN_EXTRA := $(BUILD)/lib/libnodlclose.so
endif
# a full filesystem for one file (tests/support/fullfs.c), preloaded by tests
TEST_EXTRA := $(BUILD)/lib/libfullfs.so

# Test doubles of the GPU modules' lower edge (tests/support/fake_*.c): a
# CUDA module without a GPU, a CUDA runtime whose device count fails, and an
# NVML whose GPUs' energy a test sets (docs/energy.md).
TEST_MODULES := $(BUILD)/lib/libexadl_fake_kcu.so $(BUILD)/lib/libexadl_fake_cudart.so \
                $(BUILD)/lib/libexadl_fake_nvml.so

.PHONY: all test test-quick clean distclean info
all: $(addprefix $(BIN)/,$(PROGRAMS)) $(GPU_MODULE_FILES) $(UNIT_BIN) $(TEST_MODULES) $(SAN_EXTRA) $(TEST_EXTRA)

$(BUILD)/lib/libnodlclose.so: tests/support/nodlclose.c
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -O2 -o $@ $<

$(BUILD)/lib/libexadl_fake_%.so: tests/support/fake_%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(BENCH_CFLAGS) -shared -fPIC -o $@ $<

# no sanitizer: preloaded before the ASan runtime, it must not need it
$(BUILD)/lib/libfullfs.so: tests/support/fullfs.c
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -O2 $(WARN) -o $@ $< -ldl

info:
	@echo "BUILD=$(BUILD) SAN=$(SAN) GPU=$(GPU) HDF5=$(HDF5) ZLIB=$(ZLIB) CUDA_HOME=$(CUDA_HOME)"
	@echo "CUDNN_HOME=$(CUDNN_HOME) NCCL_HOME=$(NCCL_HOME)"
	@echo "GPU_LIBS=$(GPU_LIBS)"
	@echo "NVFLAGS=$(NVFLAGS)"
	@echo "NVCC_HOST_VERSION=$(NVCC_HOST_VERSION) NVCC_HOST_CHECKED=$(NVCC_HOST_CHECKED)"
	@echo "LIBRARIES=$(sort $(LIBRARIES))"
	@echo "PROGRAMS=$(sort $(PROGRAMS))"
	@echo "GPU_MODULES=$(GPU_MODULE_FILES)"

# ---- compile ---------------------------------------------------------------
$(BUILD)/obj/benchmarks/%.o: benchmarks/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(BENCH_CFLAGS) -c $< -o $@

$(BUILD)/obj/benchmarks/%.cu.o: benchmarks/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -DEXADL_GPU=1 -c $< -o $@

# the commit exadl is built from, recorded in results.yaml (harness/util/version.c);
# commit.txt changes only when the commit does, so version.o rebuilds only then
EXADL_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell [ -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && echo -dirty)
$(shell mkdir -p $(BUILD) && (echo '$(EXADL_COMMIT)' | cmp -s - $(BUILD)/commit.txt || echo '$(EXADL_COMMIT)' > $(BUILD)/commit.txt))
$(BUILD)/obj/harness/util/version.o: $(BUILD)/commit.txt
$(BUILD)/obj/harness/util/version.o: CFLAGS += -DEXADL_COMMIT='"$(EXADL_COMMIT)"'
$(BUILD)/obj/benchmarks/common/crc32.o: CFLAGS += -DEXADL_ZLIB=$(ZLIB)

# the harness never sees MPI, CUDA or a benchmark's headers
$(BUILD)/obj/harness/%.o: harness/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/unit/test_harness_%.o: tests/unit/test_harness_%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/unit/test_common_%.o: tests/unit/test_common_%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(BENCH_CFLAGS) -c $< -o $@

$(BUILD)/lib/%.a:
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# ---- fuzzing -------------------------------------------------------------------
# One libFuzzer harness per parser entry point: tests/fuzz/fuzz_NAME.c ->
# build-fuzz/fuzz/fuzz_NAME, linked with every library a parser may reach.
# tests/fuzz/run.sh runs each on its seeds (tests/fuzz/seeds/NAME/ and the
# project's own files) and its crash regressions (tests/fuzz/regress/NAME/).
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN  := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_LIBS := harness cosmoflow stemdl search fcdensenet train shard comm common
$(BUILD)/fuzz/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(call lib,$(FUZZ_LIBS))
	@mkdir -p $(@D)
	$(CC) -fsanitize=fuzzer,address,undefined,float-cast-overflow $(FUZZ_LDEXTRA) -o $@ \
	    $(filter %.o,$^) $(call group,$^) $(TRAIN_LDLIBS)
# the option parsers exit on bad input: tests/fuzz/fuzz_options.c catches exit
$(BUILD)/fuzz/fuzz_options: FUZZ_LDEXTRA := -Wl,--wrap=exit

.PHONY: fuzz fuzz-build fuzz-bins
fuzz-bins: $(FUZZ_BIN)
fuzz-build:
	$(MAKE) --no-print-directory FUZZ=1 fuzz-bins
fuzz: fuzz-build
	@tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

# ---- tests -------------------------------------------------------------------
# `make test` runs every test against the normal and the sanitizer build, and
# each fuzz harness once (FUZZ_TEST_SECONDS each; 0 leaves them out;
# without clang and libFuzzer they are skipped, and say so).
test:
	$(MAKE) --no-print-directory all
	$(MAKE) --no-print-directory SAN=1 all
	@if command -v smpicc >/dev/null; then $(MAKE) --no-print-directory smpi; fi
	@if [ "$(FUZZ_TEST_SECONDS)" != 0 ] && tests/fuzz/run.sh --can-build $(FUZZ_CC); then \
	    $(MAKE) --no-print-directory fuzz-build; fi
	@EXADL_FUZZ_BUILD=build-fuzz EXADL_FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) EXADL_FUZZ_CC=$(FUZZ_CC) \
	    tests/run.sh build build-san

# One build only, for quick iterations: make test-quick [BUILD=...]
test-quick: all
	@tests/run.sh $(BUILD)

# The simulated build (docs/simulate.md): needs smpicc (libsimgrid-dev)
SMPI_PROGRAMS := collectives orchestration mpiprobe skeleton search
.PHONY: smpi
smpi:
	@command -v smpicc >/dev/null || { echo "make smpi: smpicc not found (apt-get install libsimgrid-dev, or ./run.sh simulate)"; exit 1; }
	$(MAKE) --no-print-directory SMPI=1 $(addprefix build-smpi/bin/,$(SMPI_PROGRAMS))

clean:
	rm -rf build build-san build-fuzz build-smpi

distclean: clean
	rm -rf results/*/

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
