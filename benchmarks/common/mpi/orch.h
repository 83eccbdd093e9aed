/* orch: Horovod-style orchestration of gradient reductions.
 *
 * T tensors become ready on every rank in its own order; a tensor (or a group
 * of tensors) may be reduced only once it is ready on all ranks, and every
 * rank must reduce the same groups in the same order.  Each rank calls
 * orch_cycle() once per cycle (a collective over the communicator); the cycle
 * returns the groups that became complete everywhere, in an order all ranks
 * agree on.  Two ways to find out (see docs/collectives.md):
 *
 *   ORCH_COORDINATOR  every rank sends the tensors that became ready since its
 *                     last report to rank 0 (MPI_Gather + MPI_Gatherv); rank 0
 *                     counts them and broadcasts the tensors now ready on all
 *                     ranks (MPI_Bcast of a header, then of the list).
 *   ORCH_CACHE        the response cache: once a tensor has been negotiated it
 *                     is cached on every rank, and its readiness is one bit;
 *                     one MPI_Allreduce(MPI_BAND) over the bit vector per cycle
 *                     finds the tensors ready everywhere.  Tensors not yet
 *                     cached (the first step) go through the coordinator, in
 *                     the same cycle, when a flag bit says some rank has one.
 *
 * Grouping: ORCH_GROUP_NONE (each tensor its own group), ORCH_GROUP_LAYER (one
 * group per layer id, "graph-aware"), ORCH_GROUP_EVEN (N groups of contiguous
 * tensors, sizes differing by at most one).  A group is released in the first
 * cycle after which all its tensors are ready on all ranks; both modes release
 * the same groups in the same cycle.
 *
 * A step in which some tensor never becomes ready on some rank ends, on every
 * rank in the same cycle, in an error naming the tensor and the ranks, once no
 * group has been released for timeout_s (a rank that stops calling orch_cycle
 * altogether still hangs the others: cycles are collectives). */
#ifndef EXADL_ORCH_H
#define EXADL_ORCH_H

#include <mpi.h>
#include <stddef.h>

typedef enum { ORCH_COORDINATOR = 0, ORCH_CACHE = 1 } orch_mode_t;
typedef enum { ORCH_GROUP_NONE = 0, ORCH_GROUP_LAYER = 1, ORCH_GROUP_EVEN = 2 } orch_grouping_t;

extern const char *const orch_mode_names[];     /* "coordinator", "cache", NULL */
extern const char *const orch_grouping_names[]; /* "none", "layer", "even", NULL */

typedef struct {
    orch_mode_t mode;
    orch_grouping_t grouping;
    int ngroups;        /* ORCH_GROUP_EVEN: number of groups (clamped to the tensors) */
    int ntensors;
    const int *layer;   /* ORCH_GROUP_LAYER: layer id of each tensor; NULL: one per tensor */
    double timeout_s;   /* <= 0: no timeout */
    MPI_Comm comm;      /* duplicated inside */
    int cache_capacity; /* ORCH_CACHE: tensors the response cache holds, first come first
                         * cached; the rest are negotiated by the coordinator every step.
                         * <= 0: no limit (0 is not "disabled": use ORCH_COORDINATOR) */
    int poll_us;        /* > 0: wait for each collective by testing it every poll_us
                         * microseconds (comm_wait) instead of blocking in MPI, which
                         * spins: a background thread then leaves the cores to compute */
} orch_config_t;

typedef struct {
    long cycles;            /* orch_cycle calls since creation */
    long coordinator_rounds;/* gather/broadcast rounds */
    long bitvector_rounds;  /* bit-vector allreduces */
    long requests;          /* tensor ids this rank sent to the coordinator */
} orch_stats_t;

typedef struct orch orch_t;

/* NULL with a message on a bad configuration.  Not collective, except for the
 * communicator duplication (MPI_Comm_dup), so all ranks must call it. */
orch_t *orch_create(const orch_config_t *cfg, char *err, size_t errlen);
void orch_destroy(orch_t *o);

int orch_ngroups(const orch_t *o);
int orch_group_of(const orch_t *o, int tensor);
/* Tensors of group g (ascending), n of them. */
const int *orch_group_members(const orch_t *o, int g, int *n);

/* Start a step: nothing ready, nothing released (the cache is kept). */
void orch_step_begin(orch_t *o);
/* This rank's tensor became ready (its gradient is computed).  Marking a
 * tensor twice in a step is ignored. */
void orch_mark_ready(orch_t *o, int tensor);
/* One cycle, collective.  Writes the released groups to released[] (room for
 * orch_ngroups) in the agreed order and returns how many; -1 with a message
 * when the step timed out (on all ranks alike). */
int orch_cycle(orch_t *o, int *released, char *err, size_t errlen);
/* Every group of the step has been released (the same on all ranks). */
int orch_step_done(const orch_t *o);

orch_stats_t orch_stats(const orch_t *o);

#endif
