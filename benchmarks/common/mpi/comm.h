/* comm: MPI start-up and the facts about the job that every benchmark needs
 * (rank, size, rank on the node, the hosts).  Works as a singleton too: a
 * program started without mpirun is a job of one rank. */
#ifndef EXADL_COMM_H
#define EXADL_COMM_H

#include <mpi.h>

#include "benchmarks/common/check.h"

typedef struct {
    int rank, size;
    int local_rank, local_size; /* within the node: for GPU binding and thread counts */
    MPI_Comm world, node;
    int nhosts;                 /* distinct host names in the job */
    char **hosts;               /* nhosts names, on every rank, sorted */
    int mpi;                    /* MPI was initialised (0 after comm_init_self) */
} comm_t;

void comm_init(int *argc, char ***argv, comm_t *c);
/* The same with the thread level `required` (comm_init asks for
 * MPI_THREAD_SERIALIZED); *provided gets what the library gives. */
void comm_init_thread(int *argc, char ***argv, int required, int *provided, comm_t *c);
/* A job of one process that never starts MPI: for answers that need no
 * communication (--help, --describe, --sysinfo), which then take milliseconds
 * instead of MPI's start-up. */
void comm_init_self(comm_t *c);
void comm_finalize(comm_t *c);

/* MPI library version string ("Open MPI v4.1.4, ..."), first line only. */
void comm_library_version(char *buf, int len);

void comm_fail_mpi(int code, const char *call, const char *file, int line)
    __attribute__((noreturn));

#define CHECK_MPI(call)                                               \
    do {                                                              \
        int mpi_rc_ = (call);                                         \
        if (mpi_rc_ != MPI_SUCCESS) comm_fail_mpi(mpi_rc_, #call, __FILE__, __LINE__); \
    } while (0)

/* Complete a request: MPI_Wait when poll_us <= 0, otherwise MPI_Test every
 * poll_us microseconds, sleeping in between (MPI_Wait spins on a core). */
void comm_wait(MPI_Request *req, int poll_us);

/* Largest value of x over all ranks (how per-rank times are combined). */
double comm_max_double(const comm_t *c, double x);

#endif
