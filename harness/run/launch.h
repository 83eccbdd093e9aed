/* launch: start a real process in its own process group, with its stdout and
 * stderr in a log file, wait for it with a time limit, and on timeout (or when
 * exadl itself is interrupted) kill the whole group: SIGTERM, a grace period,
 * then SIGKILL.  Records how it ended: exit status or signal. */
#ifndef EXADL_HARNESS_LAUNCH_H
#define EXADL_HARNESS_LAUNCH_H

#include <stddef.h>

#include "harness/suite/suite.h"
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
/* A run folder is data from anywhere (another site, a vendor): of the env its
 * suite.yaml sets, only these variables reach a process `exadl check` starts
 * (stemdl --describe): thread counts and device selection, nothing that names
 * a file to load or run, never the loader's (LD_*).  NULL-terminated. */
extern const char *const launch_run_env_allowed[];
/* 1 when name is on that list. */
int launch_run_env_ok(const char *name);

/* exadl's own SIGINT/SIGTERM/SIGHUP: set a flag that makes spawn_run kill
 * the running group and return; the sweep then stops. */
void launch_install_signals(void);
/* Back to the default dispositions (after the sweep: a second Ctrl-C during
 * the report ends exadl at once; every file it writes is whole or absent). */
void launch_reset_signals(void);
/* Become the reaper of orphaned descendants (Linux), so that what a killed
 * launch leaves behind is collected instead of lingering as zombies. */
void launch_become_subreaper(void);
/* Sleep for s seconds (a signal may end it early). */
int launch_interrupted(void);
/* Sleep for s seconds (a signal may end it early). */
void sleep_s(double s);

/* The last lines of a log (at most max_lines lines and max_bytes bytes),
 * with non-printable bytes replaced, arena-allocated. */
char *log_tail(arena_t *a, const char *path, int max_lines, size_t max_bytes);

/* "exit 3", "killed by SIGSEGV", "timed out after 10 s (SIGTERM)" ... */
const char *signal_name(int sig);

#endif
