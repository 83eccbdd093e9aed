/* orchestration: the Horovod-style orchestration benchmark as its own
 * program (docs/collectives.md, "The orchestration benchmark"). */
#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/common/mpi/mpiopt.h"
#include "benchmarks/orchestration/orch_bench.h"

int main(int argc, char **argv)
{
    check_set_program("orchestration");
    comm_t c;
    /* --check-config (opt.h): the options alone, no MPI */
    int check_only = opt_take_check_config(&argc, argv);
    if (check_only) comm_init_self(&c);
    else comm_init(&argc, &argv, &c);
    mpiopt_init("orchestration", c.rank);
    int rc = check_only ? orch_bench_check(argc, argv) : orch_bench_run(argc, argv, &c);
    comm_finalize(&c);
    return rc;
}
