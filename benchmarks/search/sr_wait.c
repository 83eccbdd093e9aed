/* sr_wait: waits, the host clock and simulated costs (sr_wait.h). */
#define _GNU_SOURCE
#include "benchmarks/search/sr_wait.h"

#include <errno.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"

void sr_wait(MPI_Request *req, MPI_Status *st)
{
#if EXADL_SMPI
    CHECK_MPI(MPI_Wait(req, st));
#else
    struct timespec ts = {0, (long)SR_POLL_US * 1000L};
    for (;;) {
        int done = 0;
        CHECK_MPI(MPI_Test(req, &done, st));
        if (done) return;
        nanosleep(&ts, NULL);
    }
#endif
}

double sr_host_cpu_s(void)
{
    struct timespec ts;
    CHECK(syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts) == 0, "clock_gettime: thread CPU time");
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sr_charge(double s)
{
#if EXADL_SMPI
    /* a simulated sleep of s: smpi_execute(s) would run s x smpi/host-speed
     * FLOPs at the platform host's speed (a GPU's, on Summit's), not s */
    sr_sleep(s);
#else
    (void)s;
#endif
}

void sr_sleep(double s)
{
    if (s <= 0) return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    /* SMPI: its simulated sleep (smpi_helpers.h) */
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) continue;
}
