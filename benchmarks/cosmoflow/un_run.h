/* un_run: the 3D U-Net's measured run (cosmoflow --network unet3d
 * --record): warm-up steps, then timed steps with a barrier before each,
 * each step's time the slowest rank's, every rank's own compute, the loss,
 * and the kernel table of the timed steps only (docs/record.md "unet3d").
 *
 * defines: un_result, un_run, un_result_free */
#ifndef COSMOFLOW_UN_RUN_H
#define COSMOFLOW_UN_RUN_H

#include <stdint.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/cosmoflow/model/un_train.h"

typedef struct {
    int warmup, steps, nranks, failed_step; /* failed_step: -1, or the step whose loss was not finite */
    double *warm_s, *warm_loss;            /* per warm-up step */
    double *step_s, *loss, *allreduce_s;   /* per timed step (max over ranks; rank 0's allreduce) */
    double *rank_step_s;                   /* steps x nranks, rank 0 only */
    int64_t flops_rank_step;               /* rank 0's FLOPs of one timed step */
    int64_t flops_step;                    /* every rank's FLOPs of one timed step */
    int64_t flops_total;                   /* this rank's FLOPs over every step */
    int64_t halo_bytes_step;               /* rank 0's halo bytes sent in the last step */
    double cpu_s;                          /* rank 0's CPU time over all steps */
} un_result;

/* Runs warmup + steps steps of n (steps t = 0, 1, ... continue from the
 * warm-up's); prints each step's loss on rank 0 unless quiet.  0, or 1
 * when a loss was not finite (r->failed_step says which). */
int un_run(un_net *n, const comm_t *comm, int warmup, int steps, int quiet, un_result *r);
void un_result_free(un_result *r);

#endif
