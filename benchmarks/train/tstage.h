/* tstage: --stage DIR of a training that reads --data files:SRC (docs/data.md
 * "Training from a set"): before the first step the first rank of each node
 * copies the set to DIR (node-local storage, as burst buffers are used; the
 * shard library's shard_stage: shards under temporary names, the manifest
 * last), the others wait; the training then reads DIR.  The copy is framed
 * by MLLOG's staging_start/staging_stop after run_start (mllog.h: MLPerf HPC
 * times staging).  cosmoflow and stemdl share it.
 *
 * defines: tstage_copy */
#ifndef EXADL_TRAIN_TSTAGE_H
#define EXADL_TRAIN_TSTAGE_H

#include <stdint.h>

#include "benchmarks/common/mpi/comm.h"

/* Copy src to dst on every node (collective over comm's ranks); print: this
 * rank prints the MLLOG lines.  *slowest_s: the slowest node's copy time,
 * *bytes: what all nodes copied.  0, or -1 when a node failed (that node's
 * first rank says why on stderr, prefixed by prog). */
int tstage_copy(const char *src, const char *dst, const comm_t *comm, int print, const char *prog,
                double *slowest_s, int64_t *bytes);

#endif
