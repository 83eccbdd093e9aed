# ExaDL: `make` builds the programs, `make test` builds the normal and the
# sanitizer (ASan + UBSan) trees and runs every test in both.
#
#   make                 build/bin/{stemdl,collectives,orchestration,exadl}
#   make test            tests in build/ and build-san/, last line "N passed, N failed"
#   make SAN=1           the sanitizer build alone (build-san/)
#   make GPU=0           leave out the CUDA path even where CUDA is found
#   make STRICT=0        warnings are not errors (for unfamiliar compilers)
#   CUDA_HOME, CUDNN_HOME, NCCL_HOME   where the CUDA toolkit, cuDNN and NCCL are

SAN    ?= 0
STRICT ?= 1
GPU    ?= auto
CUDA_HOME  ?= /usr/local/cuda
CUDNN_HOME ?= $(CUDA_HOME)
NCCL_HOME  ?= $(CUDA_HOME)

ifeq ($(SAN),1)
BUILD    ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
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

MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)
BLAS_LIBS  := -lopenblas
DNNL_LIBS  := -ldnnl -lgomp
YAML_LIBS  := -lyaml
SYS_LIBS   := -lm -lpthread

# ---- the CUDA path: built where nvcc, cuDNN and NCCL are all found ---------
NVCC := $(CUDA_HOME)/bin/nvcc
ifeq ($(GPU),auto)
GPU := $(shell test -x $(NVCC) && \
         test -f $(CUDNN_HOME)/include/cudnn.h && \
         test -f $(NCCL_HOME)/include/nccl.h && echo 1 || echo 0)
endif
CUDA_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90
NVFLAGS := -O2 -g -std=c++17 $(CUDA_ARCH) -I. \
           -I$(CUDNN_HOME)/include -I$(NCCL_HOME)/include $(MPI_CFLAGS) \
           -Xcompiler -Wall,-Wextra -Werror all-warnings -MMD -MP
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

ifeq ($(GPU),1)
GPU_DEFS   := -DEXADL_GPU=1
GPU_LIBS   := $(CUDA_LIBS)
LINK       := $(CXX)
else
GPU_DEFS   := -DEXADL_GPU=0
GPU_LIBS   :=
LINK       := $(CC)
endif

# What programs link with, by kind (a module.mk names one in PROG_ldlibs).
BENCH_CFLAGS := $(MPI_CFLAGS) $(GPU_DEFS) -I$(CUDA_HOME)/include -I$(NCCL_HOME)/include
TRAIN_LDLIBS := $(MPI_LIBS) $(BLAS_LIBS) $(DNNL_LIBS) $(YAML_LIBS) $(GPU_LIBS) $(SYS_LIBS)
MPI_LDLIBS   := $(MPI_LIBS) $(YAML_LIBS) $(GPU_LIBS) $(SYS_LIBS)
HARN_LDLIBS  := $(YAML_LIBS) $(SYS_LIBS)

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
# A new file in a folder needs no line anywhere; a new part is one module.mk.
# Every include is written from the repository root
# ("benchmarks/common/check.h"): -I. is the one include root.
LIBRARIES :=
PROGRAMS  :=
include $(sort $(wildcard benchmarks/*/module.mk benchmarks/*/*/module.mk harness/*/module.mk))

define library_rule
$(call lib,$(1)): $(call obj,$($(1)_src)) $(if $(filter 1,$(GPU)),$(call cuobj,$($(1)_cu)))
endef
$(foreach l,$(sort $(LIBRARIES)),$(eval $(call library_rule,$(l))))

define program_rule
$(BIN)/$(1): $(call obj,$($(1)_main) $($(1)_objs)) $(call lib,$($(1)_libs))
	@mkdir -p $$(@D)
	$$(or $$($(1)_link),$$(LINK)) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $$(call group,$$^) $$($(1)_ldlibs)
endef
$(foreach p,$(sort $(PROGRAMS)),$(eval $(call program_rule,$(p))))

# Unit tests: tests/unit/test_KIND_*.c links the libraries of KIND (common,
# stemdl, coll: collectives, orch: orchestration, harness, cosmo: cosmoflow).
TEST_LIBS_common  := common
TEST_LIBS_stemdl  := $(stemdl_libs)
TEST_LIBS_coll    := $(collectives_libs)
TEST_LIBS_orch    := $(orchestration_libs)
TEST_LIBS_harness := $(exadl_libs)
TEST_LIBS_cosmo   := $(cosmoflow_libs)
TEST_LDLIBS_common  := $(HARN_LDLIBS)
TEST_LDLIBS_stemdl  := $(TRAIN_LDLIBS)
TEST_LDLIBS_coll    := $(MPI_LDLIBS)
TEST_LDLIBS_orch     = $(orchestration_ldlibs)
TEST_LDLIBS_harness := $(HARN_LDLIBS)
TEST_LDLIBS_cosmo   := $(TRAIN_LDLIBS)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
define test_rule
$(BUILD)/tests/test_$(1)_%: $(BUILD)/obj/tests/unit/test_$(1)_%.o $(call lib,$(TEST_LIBS_$(1)))
	@mkdir -p $$(@D)
	$$(LINK) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $$(call group,$$^) $$(TEST_LDLIBS_$(1))
endef
$(foreach k,common stemdl coll orch harness cosmo,$(eval $(call test_rule,$(k))))

ifeq ($(SAN),1)
# see tests/support/nodlclose.c; tests/run.sh preloads it where it exists
SAN_EXTRA := $(BUILD)/lib/libnodlclose.so
endif

.PHONY: all test test-quick clean distclean info
all: $(addprefix $(BIN)/,$(PROGRAMS)) $(UNIT_BIN) $(SAN_EXTRA)

$(BUILD)/lib/libnodlclose.so: tests/support/nodlclose.c
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -O2 -o $@ $<

info:
	@echo "BUILD=$(BUILD) SAN=$(SAN) GPU=$(GPU) CUDA_HOME=$(CUDA_HOME)"
	@echo "CUDNN_HOME=$(CUDNN_HOME) NCCL_HOME=$(NCCL_HOME)"
	@echo "GPU_LIBS=$(GPU_LIBS)"
	@echo "LIBRARIES=$(sort $(LIBRARIES))"
	@echo "PROGRAMS=$(sort $(PROGRAMS))"

# ---- compile ---------------------------------------------------------------
$(BUILD)/obj/benchmarks/%.o: benchmarks/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(BENCH_CFLAGS) -c $< -o $@

$(BUILD)/obj/benchmarks/%.cu.o: benchmarks/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -DEXADL_GPU=1 -c $< -o $@

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

# ---- tests -------------------------------------------------------------------
# `make test` runs every test against the normal and the sanitizer build.
test:
	$(MAKE) --no-print-directory all
	$(MAKE) --no-print-directory SAN=1 all
	@tests/run.sh build build-san

# One build only, for quick iterations: make test-quick [BUILD=...]
test-quick: all
	@tests/run.sh $(BUILD)

clean:
	rm -rf build build-san

distclean: clean
	rm -rf results/*/

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
