/* wf_mpi: the workflow with samples sent over MPI (wf.h): rank 0 trains,
 * ranks 1..R-1 produce.  A producer that fails (--fail-how stop) tells the
 * trainer and stops; a rank that dies takes the job down under Open MPI 4.1
 * (no fault tolerance in MPI_COMM_WORLD), which is why the files transport
 * runs its producers as processes of their own (docs/workflow.md).
 * defines: wf_mpi_producer, wf_mpi_trainer */
#ifndef EXADL_WORKFLOW_WF_MPI_H
#define EXADL_WORKFLOW_WF_MPI_H

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/workflow/wf_trainer.h"

void wf_mpi_producer(const wf_cfg *c, const comm_t *comm);
/* The trainer's loop until every producer has ended and every sample that
 * arrived is trained; *wall_s its time. */
void wf_mpi_trainer(const wf_cfg *c, const comm_t *comm, wf_tr *T, double *wall_s);

#endif
