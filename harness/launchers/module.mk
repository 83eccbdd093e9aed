# harness/launchers: launcher_t, one file per launcher, registry.c lists them
harness_src += $(wildcard harness/launchers/*.c)
