/* sr_wait: how the search's ranks wait for a message, and the master's host
 * clock.  Natively a wait is MPI_Test every SR_POLL_US microseconds with a
 * sleep between (a blocking MPI_Wait spins on a core that the worker groups
 * need); under SMPI (EXADL_SMPI) it is MPI_Wait, since a sleep there would
 * be simulated time.  The host clock is this thread's CPU time read by the
 * system call itself: SMPI replaces clock_gettime with its simulated clock,
 * and a decision of the master is host computation (docs/search.md).
 * defines: SR_POLL_US, sr_wait, sr_host_cpu_s, sr_charge */
#ifndef EXADL_SEARCH_SR_WAIT_H
#define EXADL_SEARCH_SR_WAIT_H

#include <mpi.h>

#define SR_POLL_US 100

/* Complete req; st (may be MPI_STATUS_IGNORE) gets its status. */
void sr_wait(MPI_Request *req, MPI_Status *st);
/* This thread's CPU seconds. */
double sr_host_cpu_s(void);
/* Under SMPI: advance this rank's simulated clock by s seconds of host
 * computation (a simulated sleep: the master has nothing else to do), so that the master's measured decision cost
 * is part of the simulated timeline; natively nothing (it was spent). */
void sr_charge(double s);
/* Under SMPI the simulated sleep of a planted cost; natively nanosleep. */
void sr_sleep(double s);

#endif
