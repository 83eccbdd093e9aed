# harness/cli: the `exadl` command table (main.c) and one cmd_<verb>.c per command
HARN_MAIN := harness/cli/main.c
HARN_SRC  += $(filter-out $(HARN_MAIN),$(wildcard harness/cli/*.c))
