# benchmarks/orchestration: the orchestration benchmark
LIBRARIES += orch
orch_src  += $(wildcard benchmarks/orchestration/*.c)
