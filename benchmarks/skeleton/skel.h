/* skel: the compute skeleton of a data-parallel training step
 * (docs/simulate.md "The compute skeleton").  The real gradient engine
 * (gsync) and its MPI calls run as in a training run; the kernels do not:
 * a rank's device is a timeline on which each kernel takes its FLOPs (from
 * the network's own counted pass, counted.h) divided by a given rate.
 * Built for real MPI (the device's time passes as sleep) and for SimGrid's
 * SMPI (make smpi: the sleep is simulated time), where the engine runs
 * inline (gsync_cfg.inline_engine): SMPI ranks may not call MPI from a
 * second thread.
 *
 * defines: skel_trace, skel_trace_build, skel_trace_copy, skel_trace_free, skel_xport,
 *   skel_xport_open, skel_xport_close, skel_step_times, skel_step */
#ifndef EXADL_SKEL_H
#define EXADL_SKEL_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/train/gsync/gsync.h"
#include "benchmarks/train/network.h"

/* One step of the network on one device, from a dry pass of the real
 * network (every kernel counted, nothing run). */
typedef struct {
    int layers;                 /* parameter layers (gradient ready ids) */
    int nevents;                /* backward: layer `event_layer[i]` ready ... */
    int *event_layer;
    double *event_s;            /* ... at this many device seconds after backward starts */
    double fwd_s, bwd_s, opt_s; /* device seconds: forward, backward, optimizer */
    int64_t fwd_flops, bwd_flops, opt_flops; /* executed FLOPs of one step (counted.h) */
    int64_t fwd_conv_flops_sample, convention_flops_sample; /* network.h facts */
    int64_t params, conv_weights;
    double seconds_per_flop;    /* device seconds per executed FLOP */
    gsync_tensor *tensors;      /* backward order */
    int ntensors;
} skel_trace;

enum { SKEL_BASIS_CONVENTION = 0, SKEL_BASIS_EXECUTED = 1 };

/* The trace of a network's model (network.h; STEMDL's plan) at `batch`
 * samples per rank: forward and
 * backward take (basis convention) batch x the convention FLOPs (3 x forward
 * convolution) at device_flops, spread over the kernels in proportion to the
 * FLOPs they execute, as exadl model does; (basis executed) each kernel's
 * executed FLOPs at device_flops.  The optimizer's kernels at the same
 * seconds per FLOP.  0, or -1 with err. */
int skel_trace_build(const network_t *net, const void *model, int batch, double device_flops,
                     int basis, skel_trace *t, char *err, size_t errlen);
void skel_trace_free(skel_trace *t);
/* dst = a copy of src with arrays of its own (skel_trace_free frees them) */
void skel_trace_copy(const skel_trace *src, skel_trace *dst);

/* The gradient reductions: contents are never read (no kernel computes
 * them), so each fused reduction moves the bytes of its tensors (grad_bytes
 * per weight) from and to a scratch buffer and adds nothing.  The messages
 * are Rabenseifner's allreduce (MPICH's and Open MPI's for large sums),
 * written with MPI_Sendrecv: hierarchical (Horovod's hierarchical
 * allreduce, as in the 2019 runs) halves inside the node, reduces each node
 * rank's share between the nodes, doubles inside the node; flat runs it
 * over all ranks.  Under SMPI the buffer is SMPI_SHARED_MALLOC'd: no byte is
 * copied on this machine. */
typedef struct skel_xport skel_xport;

skel_xport *skel_xport_open(comm_t *comm, int grad_bytes, int hierarchical, int64_t max_elems,
                            char *err, size_t errlen);
/* The engine's transport over x (gsync_transport.allreduce). */
gsync_transport skel_xport_transport(skel_xport *x);
/* hierarchical as asked, or 0 where the nodes hold different numbers of ranks */
int skel_xport_hierarchical(const skel_xport *x);
void skel_xport_close(skel_xport *x);

/* One step's times on this rank (seconds). */
typedef struct {
    double step_s;       /* barrier to the end of the optimizer on the device */
    double compute_s;    /* forward + backward + optimizer of the device */
    double exposed_s;    /* the engine's wait after the last gradient (gsync_step) */
    double negotiation_s, reduce_s, backward_end_s;
    int cycles;
} skel_step_times;

/* One training step: forward on the device; backward, handing each
 * layer's gradient to the engine when the device has made it (between, the
 * inline engine runs its cycles); the engine's finish; the optimizer.
 * speed: this rank's device time of this step is the trace's times x
 * speed (stragglers: skel_speed). */
void skel_step(const skel_trace *t, gsync_t *gs, comm_t *comm, double speed, skel_step_times *out);
/* A rank's device-time factor for a step: 1 + cv z, z standard normal from
 * (seed, rank, step), kept above 0.5; 1 when cv is 0.  The model's
 * straggler term assumes the same (docs/model.md "Straggler term"). */
double skel_speed(double cv, uint64_t seed, int rank, int step);

#endif
