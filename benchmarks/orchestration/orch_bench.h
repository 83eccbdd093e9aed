/* orch_bench: `collectives --orchestration`, the per-step control cost of
 * coordinator negotiation against the response cache (orch.h), without,
 * with per-layer and with N even groups. */
#ifndef EXADL_ORCH_BENCH_H
#define EXADL_ORCH_BENCH_H

#include "benchmarks/common/mpi/comm.h"

/* argv holds the whole command line; returns the exit status. */
int coll_orch_main(int argc, char **argv, comm_t *c);

#endif
