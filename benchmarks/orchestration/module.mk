# benchmarks/orchestration: the orchestration benchmark
ORCH_SRC += $(wildcard benchmarks/orchestration/*.c)
