# harness/proc: every process exadl starts (spawn, signals, the process tree, argv)
harness_src += $(wildcard harness/proc/*.c)
