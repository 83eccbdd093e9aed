/* mp_model: a model of the locally connected autoencoder on one rank: its
 * geometry (mp_geom), its model group's communicators and neighbours, and
 * the statistics the record states (written by the instance, mp_net, which
 * holds the model const).
 *
 * defines: mp_model, mp_stats, mp_model_build, mp_model_free */
#ifndef MODELPAR_MP_MODEL_H
#define MODELPAR_MP_MODEL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/modelpar/mp_geom.h"

/* What the record's model_parallel block states, gathered after the last
 * step (mp_net_backward) onto world rank 0. */
typedef struct {
    int64_t steps_seen;      /* backward passes so far */
    int64_t total_steps;     /* warm-up + timed: the pass after which they are gathered */
    int64_t warmup;
    double halo_s;           /* this rank, timed steps: halo exchange time */
    int64_t halo_bytes_step; /* this rank, the last step: halo bytes sent */
    int64_t halo_msgs_step;
    double tp_s;             /* this rank, timed steps: the dense pair's collectives */
    int64_t tp_bytes_step;   /* this rank, the last step: their bytes */
    int64_t base_rss_bytes;  /* VmRSS before the instance's buffers */
    int64_t alloc_bytes;     /* what the instance allocated */
    /* gathered (world rank 0) */
    int gathered;
    double halo_s_max;       /* per timed step, max over ranks */
    double tp_s_max;
    int64_t group_halo_bytes;/* per step, sum over the ranks of model group 0 */
    int64_t *rank_hwm_bytes; /* per world rank: VmHWM - base */
    int64_t *rank_alloc_bytes;
    int64_t *rank_halo_bytes;
} mp_stats;

typedef struct {
    mp_geom g;
    int mpi;
    MPI_Comm halo;           /* a duplicate of the job's for the exchange */
    MPI_Comm group;          /* the ranks of this model group (the loss) */
    int rank, left, right, up, down; /* neighbours in halo, MPI_PROC_NULL at the edges */
    mp_stats *st;            /* written by the instance (the model is const to it) */
} mp_model;

/* The model over the job's ranks (comm NULL: one rank, no MPI, for
 * --describe at a rank count: ranks and rank stand for the job).  0, or -1
 * with one line in err. */
int mp_model_build(mp_model *m, const mp_cfg *c, const comm_t *comm, int ranks, int rank,
                   char *err, size_t errlen);
void mp_model_free(mp_model *m);

#endif
