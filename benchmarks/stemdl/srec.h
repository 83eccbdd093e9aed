/* srec: stemdl's part of its result record (docs/record.md) and of the
 * human summary: the record kind, the `config` block and the summary's
 * title; the runtime writes everything else (benchmarks/train/trec.h) and
 * the network its own block, after the run (tprog_train). */
#ifndef STEMDL_SREC_H
#define STEMDL_SREC_H

#include "benchmarks/stemdl/args.h"
#include "benchmarks/train/tprog.h"

/* stemdl's record kind, config block and summary title for a run of a
 * (run made by tprog_run_init). */
void srec_fill(tprog_run *run, const args_t *a);

#endif
