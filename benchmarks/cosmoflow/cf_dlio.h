/* cf_dlio: `cosmoflow --data files:DIR --read-only true`: the read pattern
 * of a training without its compute, in the spirit of DLIO (docs/data.md
 * "Read-only mode"): every rank reads the batches of every step (its
 * sub-volume of its group's samples, the same shuffle, reader thread and
 * prefetch as training) and nothing else; the job's samples/s and GB/s
 * (bytes all ranks read / the slowest rank's time) are what the storage
 * delivers, to set beside the samples/s a training consumes.  The timing,
 * reading and printing are the training runtime's (benchmarks/train/tdlio.h,
 * stemdl's too); this module opens CosmoFlow's feed for it.
 *
 * defines: cf_read_only */
#ifndef COSMOFLOW_CF_DLIO_H
#define COSMOFLOW_CF_DLIO_H

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/cosmoflow/cf_args.h"
#include "benchmarks/cosmoflow/model/cf_network.h"

/* Open the data set of a on m (built, no feed yet), read steps + warmup
 * batches, print the rates on rank 0.  The exit code: 0, or 2 when the set
 * is refused. */
int cf_read_only(const cf_args *a, cf_model *m, comm_t *comm);

#endif
