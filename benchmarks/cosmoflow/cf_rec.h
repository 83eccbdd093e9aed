/* cf_rec: cosmoflow's part of its result record (docs/record.md
 * "cosmoflow") and of the human summary: the record kind, the `config`
 * block, the summary's title and the run's halo figures; the runtime writes
 * everything else (benchmarks/train/trec.h), the network its `network` and
 * `spatial` blocks (cf_network.c), after the run (tprog_train). */
#ifndef COSMOFLOW_CF_REC_H
#define COSMOFLOW_CF_REC_H

#include "benchmarks/common/sysinfo.h"
#include "benchmarks/cosmoflow/cf_args.h"
#include "benchmarks/train/tprog.h"

/* What tprog_train writes after a run of a: the record's header fields
 * (system si, the command line, the start time), the summary's title and
 * its halo line. */
void cf_rec_fill(tprog_run *run, const cf_args *a, const sysinfo_t *si, int argc, char **argv,
                 const char *started_utc);

#endif
