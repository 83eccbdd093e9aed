/* sr_worker: a worker group of the search: its leader takes a candidate from
 * the master, the group evaluates it (trains it in-process on the training
 * runtime on the group's communicator and measures its held-out loss, or
 * computes the planted fitness and waits its simulated cost) and the leader
 * returns fitness and cost, until the master says stop (docs/search.md).
 * defines: sr_wstats, sr_worker_run, sr_planned_flops */
#ifndef EXADL_SEARCH_SR_WORKER_H
#define EXADL_SEARCH_SR_WORKER_H

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/search/sr.h"

typedef struct {
    double busy_s;   /* evaluating (leader's clock) */
    double wall_s;   /* start barrier to the stop message */
    int64_t evaluated;
} sr_wstats;

/* Every rank but the master; group: the group's communicator as a comm_t. */
void sr_worker_run(const sr_cfg *c, comm_t *group, sr_wstats *ws);

/* The planned FLOPs of training x for the budget: 3 x forward convolution
 * FLOPs per sample (the published convention, plan.h) x batch x ranks of the
 * group x steps (warm-up included).  -1 when its configuration is invalid. */
double sr_planned_flops(const sr_cfg *c, const sr_genome *x);

#endif
