/* wf_files: the workflow through files on a shared file system (wf.h).
 * Layout of DIR: one folder pP per producer holding its sample files
 * wNNNNNNNN.smp (N: the producer's write count; the sample's own producer,
 * sequence and checksum are in its header), each written as .wN.tmp and
 * renamed, so that the trainer lists whole samples only; `pid` (the
 * producer process), `done` ("produced N blocked_s S", written by the
 * producer at its end), `failed` (one line: how it ended, written by its
 * launching rank, or by the producer for --fail-how stop) and `hung` (a
 * producer told to hang, --fail-how hang, waiting to be killed).
 * Ranks 1..R-1 each start their producer as a process of its own (this
 * program with --as-producer P) and wait for it: a producer killed by a
 * signal leaves MPI_COMM_WORLD whole, its rank writes `failed`, and the
 * trainer goes on with the others.
 * defines: wf_files_prepare, wf_files_launch, wf_files_producer,
 *          wf_files_trainer, wf_files_cleanup */
#ifndef EXADL_WORKFLOW_WF_FILES_H
#define EXADL_WORKFLOW_WF_FILES_H

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/workflow/wf_trainer.h"

/* Rank 0 makes DIR (mkdtemp under $TMPDIR when not given; a given one must
 * be empty or absent) and its producers' folders; every rank gets its name.
 * 0, or -1 with err on rank 0. */
int wf_files_prepare(wf_cfg *c, const comm_t *comm, int *made_dir, char *err, size_t errlen);
/* Ranks >= 1: start producer rank - 1 (argv: this program's command line)
 * and wait for it; write `failed` when it did not finish. */
void wf_files_launch(const wf_cfg *c, const comm_t *comm, char *const *argv);
/* The producer process (--as-producer): its samples, then `done`; exit status. */
int wf_files_producer(const wf_cfg *c);
void wf_files_trainer(const wf_cfg *c, int producers, wf_tr *T, double *wall_s);
/* Rank 0 at the end: remove what the run left in DIR (and DIR when it made
 * it); the count of partial .tmp files a failed producer left. */
int wf_files_cleanup(const wf_cfg *c, int producers, int made_dir);

#endif
