/* cf_rec: cosmoflow's part of its result record (docs/record.md
 * "cosmoflow") and of the human summary: the record kind, the `config`
 * block, the summary's title and the run's halo figures; the runtime writes
 * everything else (benchmarks/train/trec.h), the network its `network` and
 * `spatial` blocks (cf_network.c), after the run (tprog_train). */
#ifndef COSMOFLOW_CF_REC_H
#define COSMOFLOW_CF_REC_H

#include "benchmarks/cosmoflow/cf_args.h"
#include "benchmarks/train/tprog.h"

/* cosmoflow's record kind, config block, summary title and halo line for a
 * run of a (run made by tprog_run_init). */
void cf_rec_fill(tprog_run *run, const cf_args *a);

#endif
