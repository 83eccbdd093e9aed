/* cf_network: CosmoFlow as a network of the training runtime
 * (benchmarks/train/network.h), and the model it runs: built from a
 * configuration and the job (plan, this rank's part, the spatial group's
 * communicator, the sample file).
 *
 * defines: cosmoflow_network, cf_model_build, cf_model_whole, cf_model_free,
 *          cf_describe */
#ifndef COSMOFLOW_CF_NETWORK_H
#define COSMOFLOW_CF_NETWORK_H

#include <stdio.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/cosmoflow/model/cf_net.h"
#include "benchmarks/train/network.h"

extern const network_t cosmoflow_network;

/* The model of rank comm->rank among comm->size: plan, part (refusing
 * splits that do not fit, naming --spatial), the spatial communicator
 * (collective over comm->world when MPI is up and a sample has several
 * ranks), the sample file of cfg.data.  0, or -1 with one line in err. */
int cf_model_build(cf_model *m, const cf_cfg *c, const comm_t *comm, char *err, size_t errlen);
/* The model of one rank holding whole samples, whatever cfg.spatial says
 * (--describe, --write-data, tests' references). */
void cf_model_whole(cf_model *m, const cf_cfg *c);
void cf_model_free(cf_model *m);

/* --describe: the layer table and the exact totals (cf_describe.c). */
void cf_describe(const cf_model *m, FILE *f, int64_t executed_per_step, int batch);

#endif
