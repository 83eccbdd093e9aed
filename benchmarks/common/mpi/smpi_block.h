/* smpi_block: under SimGrid's SMPI (make smpi, EXADL_SMPI=1) the nonblocking
 * collectives that ExaDL starts and then waits for become their blocking
 * forms.  SMPI 3.32 implements MPI_Iallreduce, MPI_Igather(v) and MPI_Ibcast
 * linearly (every rank posts a message to every other: N^2 messages, hours at
 * 27,648 simulated ranks, and a cost no real library pays), while the
 * blocking forms go through the collective selector (smpi/coll-selector: ompi
 * picks Open MPI's algorithms by size).  The request handed back is
 * MPI_REQUEST_NULL, which MPI_Wait and MPI_Test complete at once, so callers
 * stay as they are.  What is lost: overlap of the collective with the
 * caller's work, which no caller of these calls has between start and wait
 * (docs/simulate.md).  Include after <mpi.h>; in other builds it is empty. */
#ifndef EXADL_SMPI_BLOCK_H
#define EXADL_SMPI_BLOCK_H

#include <mpi.h>

#if EXADL_SMPI
static inline int smpi_block_done(int rc, MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    return rc;
}
#undef MPI_Iallreduce
#undef MPI_Igather
#undef MPI_Igatherv
#undef MPI_Ibcast
#define MPI_Iallreduce(s, r, n, t, op, comm, req) \
    smpi_block_done(MPI_Allreduce((s), (r), (n), (t), (op), (comm)), (req))
#define MPI_Igather(s, sn, st, r, rn, rt, root, comm, req) \
    smpi_block_done(MPI_Gather((s), (sn), (st), (r), (rn), (rt), (root), (comm)), (req))
#define MPI_Igatherv(s, sn, st, r, rn, d, rt, root, comm, req) \
    smpi_block_done(MPI_Gatherv((s), (sn), (st), (r), (rn), (d), (rt), (root), (comm)), (req))
#define MPI_Ibcast(b, n, t, root, comm, req) \
    smpi_block_done(MPI_Bcast((b), (n), (t), (root), (comm)), (req))
#endif

#endif
