/* proctree: every process below a given one, found in /proc by parent PID,
 * and signalled.  A launcher may put what it starts in process groups or
 * sessions of its own (Open MPI's ranks are), so killing a launch's process
 * group is not enough; exadl is the subreaper of what it starts (launch.h),
 * so orphans stay below it and are found too.  Async-signal-safe: raw
 * open/getdents64/read on static buffers, no malloc, so the handler of a
 * crash can stop the launch tree before exadl dies.  Linux only (elsewhere
 * nothing is found).
 * defines: proctree_below, proctree_signal */
#ifndef EXADL_HARNESS_PROCTREE_H
#define EXADL_HARNESS_PROCTREE_H

#include <sys/types.h>

/* The descendants of root (not root itself), at most max, into out: their
 * count.  A snapshot: processes may start or end meanwhile. */
int proctree_below(pid_t root, pid_t *out, int max);

/* sig to every descendant of root; the count signalled. */
int proctree_signal(pid_t root, int sig);

#endif
