/* gsync: averaging the gradients of all ranks (data parallelism).
 *
 * The network calls gsync_ready as each layer's gradient completes during
 * backward; gsync_finish returns once every gradient is reduced.  Today each
 * layer is one allreduce of its own buffer as soon as it is ready (blocking
 * over MPI; queued on its own stream over NCCL, overlapping the rest of
 * backward);
 * the paper's grouping and bit-vector orchestration plug in behind the same
 * three calls.  The sum is taken here; the division by the number of ranks is
 * folded into the optimizer's grad_scale. */
#ifndef STEMDL_GSYNC_H
#define STEMDL_GSYNC_H

#include <stdint.h>

#include "comm.h"
#include "counted.h"
#include "plan.h"

typedef struct {
    const char *name; /* "mpi", "nccl" */
    /* Blocking transports (MPI): in-place sum over all ranks of count fp32
     * values in host memory, done when the call returns. */
    void (*allreduce_sum)(void *ctx, float *buf, int64_t count);
    /* Asynchronous transports (NCCL; NULL elsewhere): start queues the
     * in-place sum of count fp32 values in device memory after the work
     * queued so far and returns at once; its duration is added to *time_s
     * (may be NULL) by the time the device's timers are flushed.  wait
     * orders the work queued after it (the optimizer) after every sum
     * started, without blocking the host.  settle, once the device is
     * synchronised and its timers flushed, returns the seconds the sums
     * started since the last settle took. */
    void (*start)(void *ctx, float *buf, int64_t count, double *time_s);
    void (*wait)(void *ctx);
    double (*settle)(void *ctx);
    void *ctx;
} gsync_transport;

typedef struct gsync gsync_t;

/* The MPI transport (host buffers, MPI_Allreduce on comm->world). */
gsync_transport gsync_mpi_transport(comm_t *comm);

gsync_t *gsync_create(const plan_t *p, int ranks, gsync_transport tr);
void gsync_free(gsync_t *g);

/* Start a step; reduction times go to kc's table as "allreduce" rows. */
void gsync_begin(gsync_t *g, kc_t *kc);
/* net_grad_ready_fn: layer's gradient (count floats at grad) is complete. */
void gsync_ready(void *g, int layer, void *grad, int64_t count);
/* Wait for every reduction of the step; returns the seconds spent reducing.
 * With an asynchronous transport the wait is queued on the device and the
 * seconds are known only after it: see gsync_settle. */
double gsync_finish(gsync_t *g);
/* After the step's device work is synchronised and its timers flushed: the
 * seconds the step's reductions took (blocking transports: what
 * gsync_finish returned; asynchronous ones: the sum of their durations). */
double gsync_settle(gsync_t *g);

#endif
