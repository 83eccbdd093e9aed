/* un_rec: the 3D U-Net's result record (cosmoflow --network unet3d
 * --record FILE; docs/record.md "unet3d"): a record of kind cosmoflow, so
 * that exadl analyze, report and model --spatial read it as they read
 * CosmoFlow's: config (network: unet3d), timing (warm-up apart), summary,
 * flops, network, spatial (the split along D, rank 0's halo bytes counted
 * from the layer list and checked against what it sent, each 3^3
 * convolution's geometry and exchanges), gradient_reduction (one
 * MPI_Allreduce of every tensor), the kernel table of the timed steps with
 * FLOPs and dtype, loss, memory, validation.
 *
 * defines: un_rec_meta, un_rec_halo, un_rec_write */
#ifndef COSMOFLOW_UN_REC_H
#define COSMOFLOW_UN_REC_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/sysinfo.h"
#include "benchmarks/cosmoflow/model/un_plan.h"
#include "benchmarks/cosmoflow/un_run.h"

typedef struct {
    const char *started_utc, *kernels; /* fast | reference | host */
    int argc, threads, ranks;
    char *const *argv;
    const sysinfo_t *system;
    void *fast_ctx;                     /* the fast set's context (dtype per row), or NULL */
    int64_t bytes;                      /* buffers per rank */
    const char *error;                  /* the run failed: why (NULL: it ran) */
} un_rec_meta;

/* Rank `rank` of S's halo traffic per step for the plan's batch, counted
 * from the layer list as un_kern.c exchanges it: each 3^3 convolution's
 * input (forward and again for the weight gradient) and, but the first's,
 * its output gradient, one padded plane ((e + 2)^2 x channels floats) to
 * each neighbour along D per sample and exchange.  Bytes; *messages its
 * messages. */
int64_t un_rec_halo(const un_plan *p, int S, int rank, int64_t *messages);

/* The record at path (rank 0 only).  0, or -1 with err. */
int un_rec_write(const char *path, const un_plan *p, const un_result *r, const ktab_t *table,
                 const un_rec_meta *m, char *err, size_t errlen);

#endif
