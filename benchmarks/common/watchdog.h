/* watchdog: a deadline for a blocking call that has none of its own.
 * ncclCommInitRank waits for every rank of the communicator with no time
 * limit: a rank that died before it, or a blocked network, hangs the job
 * until the batch system kills it, with no word of why.  Armed before such
 * a call and disarmed after it, a watchdog thread ends the process (exit
 * status 1, one line naming the call, the rank and the host) when the call
 * is not back in time; the launcher then takes the other ranks down.
 * _exit, not exit: the blocked call holds its library's locks.
 * defines: wd_arm, wd_disarm, wd_timeout_s */
#ifndef EXADL_WATCHDOG_H
#define EXADL_WATCHDOG_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wd wd_t;

/* Start the deadline: unless wd_disarm comes within timeout_s, prints
 * "PROGRAM: error: [HOST] WHAT: not complete after T s: HINT" and _exits 1.
 * what: the call and the rank ("ncclCommInitRank, rank 3 of 8"). */
wd_t *wd_arm(double timeout_s, const char *what, const char *hint);
/* The call came back: stop the watchdog (NULL: nothing). */
void wd_disarm(wd_t *w);

/* The deadline for a communicator's set-up: the environment variable `env`
 * (seconds, > 0) where set, else the larger of floor_s and at_least_s.  A
 * value that is no positive number is a usage error naming the variable. */
double wd_timeout_s(const char *env, double floor_s, double at_least_s);

#ifdef __cplusplus
}
#endif

#endif
