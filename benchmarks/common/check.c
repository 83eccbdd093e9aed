#define _GNU_SOURCE
#include "benchmarks/common/check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *g_program = "exadl";
static int g_rank = -1;
static void (*g_abort)(int) = NULL;
static char g_host[256];
static _Thread_local char g_last[1024];

void check_set_program(const char *name) { g_program = name; }
const char *check_program(void) { return g_program; }
void check_set_rank(int rank) { g_rank = rank; }
void check_set_abort(void (*abort_fn)(int)) { g_abort = abort_fn; }
const char *check_last_error(void) { return g_last; }

const char *check_host(void)
{
    if (!g_host[0] && gethostname(g_host, sizeof g_host - 1) != 0)
        snprintf(g_host, sizeof g_host, "unknown-host");
    return g_host;
}

const char *check_errno_str(void) { return strerror(errno); }

void check_fail(const char *call, const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* kept for an abort hook that reports it (a long one is cut: no harm) */
    if (snprintf(g_last, sizeof g_last, "%s:%d: %s: %s", file, line, call, msg) < 0) g_last[0] = 0;
    if (g_rank >= 0)
        fprintf(stderr, "%s: error: [rank %d on %s] %s:%d: %s: %s\n", g_program, g_rank,
                check_host(), file, line, call, msg);
    else
        fprintf(stderr, "%s: error: [%s] %s:%d: %s: %s\n", g_program, check_host(), file,
                line, call, msg);
    fflush(stderr);
    if (g_abort) g_abort(1);
    exit(1);
}

void check_usage(const char *fmt, ...)
{
    /* every rank parses the same command line: one of them says what is wrong.  The others
     * leave the floor to rank 0: a rank that exits non-zero first makes mpirun abort the job,
     * which can kill rank 0 before its line is written (on a loaded machine the refusal was
     * lost so).  mpirun ends them when rank 0 exits; where rank 0 does not fail (an error
     * only some ranks see), they exit after 10 s */
    if (g_rank > 0) {
        for (int i = 0; i < 100; i++) usleep(100000);
        exit(2);
    }
    va_list ap;
    fprintf(stderr, "%s: error: ", g_program);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    exit(2);
}

void *check_malloc(size_t bytes, const char *what, const char *file, int line)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        check_fail("malloc", file, line, "cannot allocate %zu bytes for %s", bytes, what);
    return p;
}

void *check_calloc(size_t n, size_t size, const char *what, const char *file, int line)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        check_fail("calloc", file, line, "cannot allocate %zu x %zu bytes for %s", n, size,
                   what);
    return p;
}
