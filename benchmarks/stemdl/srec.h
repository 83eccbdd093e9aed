/* srec: stemdl's part of its result record (docs/record.md) and of the
 * human summary: the record kind, the `config` block and the summary's
 * title; the runtime writes everything else (benchmarks/train/trec.h) and
 * the network its own block, after the run (tprog_train). */
#ifndef STEMDL_SREC_H
#define STEMDL_SREC_H

#include "benchmarks/common/sysinfo.h"
#include "benchmarks/stemdl/args.h"
#include "benchmarks/train/tprog.h"

/* What tprog_train writes after a run of a: the record's header fields
 * (system si, the command line, the start time) and the summary's title. */
void srec_fill(tprog_run *run, const args_t *a, const sysinfo_t *si, int argc, char **argv,
               const char *started_utc);

#endif
