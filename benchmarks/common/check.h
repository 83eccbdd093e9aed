/* check: fatal-error reporting shared by every ExaDL program.
 *
 * Every library call is wrapped in a CHECK_* macro so that a failure names the
 * call, the source file and line, the MPI rank and the host.  This module does
 * not depend on MPI: comm.c registers the rank and an abort hook, so the harness
 * (which links no MPI) uses the same messages. */
#ifndef EXADL_CHECK_H
#define EXADL_CHECK_H

#include <stddef.h>

/* Program name shown in front of every message ("stemdl", "exadl", ...). */
void check_set_program(const char *name);
/* The name set there ("exadl" until then). */
const char *check_program(void);
/* Rank shown in messages; -1 (the default) means "not an MPI program". */
void check_set_rank(int rank);
/* Called instead of exit() by check_fail; comm.c installs MPI_Abort here so
 * that one failing rank takes the whole job down instead of hanging it.  A
 * test harness may install a hook that does not return (longjmp to the
 * running test: tests/unit/tap_check.h), so that a failed library call in
 * one test (a CUDA or cuDNN error) fails that test and the next ones run;
 * check_last_error() then holds what check_fail printed.  A hook that
 * returns leaves check_fail to exit(1). */
void check_set_abort(void (*abort_fn)(int code));
/* "FILE:LINE: CALL: MESSAGE" of this thread's last check_fail ("" before). */
const char *check_last_error(void);

/* Print "PROGRAM: error: [rank R on HOST] FILE:LINE: CALL: MESSAGE" and abort. */
void check_fail(const char *call, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));

/* A user error (bad option, bad file): one line "PROGRAM: error: MESSAGE",
 * exit status 2, no source location since the user's input is at fault.
 * Ranks other than 0 exit silently: they all read the same input. */
void check_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Hostname of this process, cached. */
const char *check_host(void);

void *check_malloc(size_t bytes, const char *what, const char *file, int line);
void *check_calloc(size_t n, size_t size, const char *what, const char *file, int line);

#define CHECK(cond, ...)                                              \
    do {                                                              \
        if (!(cond)) check_fail(#cond, __FILE__, __LINE__, __VA_ARGS__); \
    } while (0)

/* For POSIX calls that return -1 and set errno. */
#define CHECK_SYS(call)                                               \
    do {                                                              \
        if ((call) == -1) check_fail(#call, __FILE__, __LINE__, "%s", check_errno_str()); \
    } while (0)

#define XMALLOC(bytes, what) check_malloc((bytes), (what), __FILE__, __LINE__)
#define XCALLOC(n, size, what) check_calloc((n), (size), (what), __FILE__, __LINE__)

const char *check_errno_str(void);

#endif
