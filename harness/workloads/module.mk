# harness/workloads: the workload table (workload.h, registry.c)
harness_src += $(wildcard harness/workloads/*.c)
