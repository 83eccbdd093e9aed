/* coll_rec: the `collectives` program's record (docs/collectives.md): the
 * header with the config block (every option that ran), the timing block,
 * one result per row that ran, and the exactness check.
 * defines: coll_rec_write */
#ifndef EXADL_COLL_REC_H
#define EXADL_COLL_REC_H

#include "benchmarks/collectives/coll_cfg.h"
#include "benchmarks/collectives/coll_row.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/sysinfo.h"

/* The record at cfg->record, written by one rank: status "ok", "invalid" or
 * "failed" (then error says why and rows may be NULL); wrong: the wrong
 * elements of every row; gpus: the run's GPUs.  0, or -1 (said on stderr)
 * when the record cannot be written: the exit status must say so, or a full
 * disk looks like a run without a record. */
int coll_rec_write(const coll_cfg_t *cfg, const comm_t *c, const sysinfo_t *si, int argc,
                   char **argv, const char *started, const char *status, const char *error,
                   const coll_row_t *rows, int nrows, long long wrong, int gpus);

#endif
