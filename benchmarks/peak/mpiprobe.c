/* mpiprobe: start MPI and say what started: the ranks, the hosts, the MPI
 * library.  What `exadl run` and `exadl validate` run as a 1-rank job under
 * the suite's launcher before anything long (the preflight): a launcher that
 * cannot start an MPI job (srun without the --mpi plugin the MPI library
 * needs) fails here in a second instead of in every launch. */
#include <stdio.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"

int main(int argc, char **argv)
{
    check_set_program("mpiprobe");
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts("usage: mpiprobe   start MPI; print `ranks: N`, `hosts: H,...` and `mpi: LIBRARY`\n"
                 "(exadl's preflight runs it as a 1-rank job under the suite's launcher)");
            return 0;
        }
    comm_t c;
    comm_init(&argc, &argv, &c);
    if (c.rank == 0) {
        char lib[256];
        comm_library_version(lib, sizeof lib);
        printf("ranks: %d\nhosts: ", c.size);
        for (int i = 0; i < c.nhosts; i++) printf("%s%s", i ? "," : "", c.hosts[i]);
        printf("\nmpi: %s\n", lib);
        fflush(stdout);
    }
    comm_finalize(&c);
    return 0;
}
