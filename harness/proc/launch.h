/* launch: start a real process in its own process group, with its stdout and
 * stderr in a log file, wait for it with a time limit, and on timeout (or when
 * exadl itself is interrupted) stop it: SIGTERM to its group, a grace period,
 * then SIGKILL to every process below exadl (the ranks a launcher put in
 * groups of their own included).  Records how it ended: exit status or
 * signal. */
#ifndef EXADL_HARNESS_LAUNCH_H
#define EXADL_HARNESS_LAUNCH_H

#include <stddef.h>

#include "harness/util/util.h"

typedef struct {
    char *const *argv;     /* NULL-terminated; argv[0] searched on PATH */
    const kv_t *env;       /* set (value NULL: unset) in the child */
    size_t nenv;
    const char *log;       /* stdout + stderr, appended after a header; NULL: /dev/null */
    const char *header;    /* written at the top of the log (may be NULL) */
    double timeout_s;      /* <= 0: none */
    double grace_s;        /* between SIGTERM and SIGKILL */
    int capture;           /* collect stdout into out (stderr to the log) */
} spawn_opts_t;

typedef struct {
    int started;           /* 0: fork or exec failed (see why) */
    int exited, code;      /* exited normally with code */
    int signaled, sig;     /* killed by signal sig */
    int timed_out;         /* exceeded timeout_s and was killed */
    int interrupted;       /* exadl got SIGINT/SIGTERM meanwhile */
    double elapsed_s;
    char why[256];         /* one line describing how it ended */
    char *out;             /* captured stdout (malloc'ed) when capture was set */
    size_t outlen;
} spawn_result_t;

/* Replace this process by argv (argv[0] searched on PATH), as `exadl bind`
 * does; returns only when that failed, with errno set. */
int spawn_exec(char *const *argv);

/* Run and wait.  Returns 0 when it exited with status 0, 1 otherwise. */
int spawn_run(const spawn_opts_t *o, spawn_result_t *r);
void spawn_result_free(spawn_result_t *r);

/* Convenience: run argv, capture stdout (at most 4 MiB), time limit t.
 * Returns the malloc'ed output (NULL when it could not run or exited non-zero;
 * then why, when given, says what happened). */
char *spawn_capture(char *const *argv, double timeout_s, char *why, size_t whylen);
/* The environment spawn_capture's commands get on top of exadl's own: `exadl
 * run` sets the suite's env, so `stemdl --describe`, `--help` probes and the
 * peak probe run as the benchmarks do (a suite may set LD_LIBRARY_PATH...). */
void launch_set_probe_env(const kv_t *env, size_t n);
/* And through what: where the launches are job steps on compute nodes (srun),
 * `exadl run` wraps every probe (the peak probe, `stemdl --describe`) as a
 * 1-rank launch, so that it measures and answers on the machine the
 * benchmarks ran on, not on the login node (fn NULL: as is). */
void launch_set_probe_wrap(char **(*fn)(void *ctx, char *const *argv), void *ctx);
/* Whether probes go through the launcher now. */
int launch_probes_wrapped(void);

/* exadl's signals during a sweep (docs/harness.md "Signals"): every signal
 * whose default would end exadl is handled.  SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGALRM, SIGXCPU ... and the real-time ones stop the run: the
 * running launch is stopped (SIGTERM to its group, the grace period, then
 * SIGKILL to every process below exadl), the rest are not run, the results
 * are written.  SIGUSR1 and SIGUSR2 (Slurm's warning before a time limit,
 * --signal=B:USR1@T) let the running launch finish and start no other.
 * SIGPIPE is ignored: a reader that went away (exadl run | head) leaves the
 * run going.  A fault of exadl itself (SIGSEGV ...) kills the launch tree
 * before exadl dies.  A launch's processes get SIGTERM if exadl is killed
 * outright (PR_SET_PDEATHSIG). */
void launch_install_signals(void);
/* After the sweep, while the report is written: SIGINT ends exadl at once
 * (every file it writes is whole or absent); the other signals are only
 * noted (launch_late_signal), so a time limit's SIGTERM does not lose the
 * report that the grace before SIGKILL leaves time for. */
void launch_report_mode(void);
/* Back to the default dispositions. */
void launch_reset_signals(void);
/* Become the reaper of orphaned descendants (Linux), so that what a killed
 * launch leaves behind is collected instead of lingering as zombies, and
 * stays below exadl where proctree.h finds it. */
void launch_become_subreaper(void);
/* A stop signal came (the running launch is being stopped). */
int launch_interrupted(void);
/* SIGUSR1 or SIGUSR2 came (finish the running launch, start no other). */
int launch_draining(void);
/* The signal that stopped or drained the sweep (0: none). */
int launch_stop_signal(void);
/* A signal noted while the report was written (0: none). */
int launch_late_signal(void);
/* Sleep for s seconds (a signal may end it early). */
void sleep_s(double s);

/* The last lines of a log (at most max_lines lines and max_bytes bytes),
 * with non-printable bytes replaced, arena-allocated. */
char *log_tail(arena_t *a, const char *path, int max_lines, size_t max_bytes);

/* "exit 3", "killed by SIGSEGV", "timed out after 10 s (SIGTERM)" ... */
const char *signal_name(int sig);

#endif
