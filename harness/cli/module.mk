# harness/cli: `exadl`: main.c (the command table, EXADL_COMMANDS of cmds.h), one cmd_<verb>.c per command
LIBRARIES    += harness
harness_src  += $(filter-out harness/cli/main.c,$(wildcard harness/cli/*.c))

PROGRAMS     += exadl
exadl_main   := harness/cli/main.c
exadl_libs   := harness common
exadl_link    = $(CC)
exadl_ldlibs  = $(HARN_LDLIBS)
