/* orch_bench: the `orchestration` program's benchmark: the per-step control
 * cost of coordinator negotiation against the response cache (orch.h),
 * without, with per-layer and with N even groups.
 * defines: orch_bench_run, orch_bench_check */
#ifndef EXADL_ORCH_BENCH_H
#define EXADL_ORCH_BENCH_H

#include "benchmarks/common/mpi/comm.h"

/* argv holds the whole command line; returns the exit status. */
int orch_bench_run(int argc, char **argv, comm_t *c);
/* --check-config: the options parsed as orch_bench_run would (exit 2 on a bad
 * one); 0 after saying they are valid. */
int orch_bench_check(int argc, char **argv);

#endif
