/* A full filesystem for one file, preloaded by tests (LD_PRELOAD): a file
 * opened for writing whose path contains $EXADL_FULLFS is /dev/full instead,
 * so every write to it fails with ENOSPC as on a full disk, while the rest of
 * the program (MPI's shared memory, logs) works.  tests/it/sec_untrusted.sh
 * checks that a benchmark that cannot write its record says so and exits
 * non-zero (issue 12, D4).  open and openat are covered too (exadl opens its
 * launch logs with them): tests/it/sec_inputs.sh checks that a launch whose
 * log cannot be written says why (issue 30, D8). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

FILE *fopen(const char *path, const char *mode);
FILE *fopen(const char *path, const char *mode)
{
    static FILE *(*real)(const char *, const char *);
    if (!real) real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
    const char *m = getenv("EXADL_FULLFS");
    if (m && *m && path && mode && strstr(path, m) && (strchr(mode, 'w') || strchr(mode, 'a'))) {
        /* the device exists: "x" (a fresh file, O_EXCL) would refuse it */
        char dm[16];
        size_t k = 0;
        for (const char *c = mode; *c && k + 1 < sizeof dm; c++)
            if (*c != 'x') dm[k++] = *c;
        dm[k] = 0;
        return real("/dev/full", dm);
    }
    return real(path, mode);
}

/* the marked path, when path is marked and opened for writing */
static const char *full_path(const char *path, int flags)
{
    const char *m = getenv("EXADL_FULLFS");
    if (m && *m && path && strstr(path, m) && (flags & (O_WRONLY | O_RDWR))) return "/dev/full";
    return path;
}

/* the mode argument of open(2), there only with O_CREAT or O_TMPFILE */
static int mode_of(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, int) : 0;
}

/* /dev/full exists: what would create the marked file must not fail on it */
static int real_flags(const char *p, const char *path, int flags)
{
    return p == path ? flags : flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW);
}

static int full_open(const char *sym, const char *path, int flags, va_list ap)
{
    int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, sym);
    int mode = mode_of(flags, ap);
    const char *p = full_path(path, flags);
    return real(p, real_flags(p, path, flags), mode);
}

#define FULL_OPEN(name)                                                    \
    int name(const char *path, int flags, ...);                            \
    int name(const char *path, int flags, ...)                             \
    {                                                                      \
        va_list ap;                                                        \
        va_start(ap, flags);                                               \
        int fd = full_open(#name, path, flags, ap);                        \
        va_end(ap);                                                        \
        return fd;                                                         \
    }
FULL_OPEN(open)
FULL_OPEN(open64)

int openat(int dir, const char *path, int flags, ...);
int openat(int dir, const char *path, int flags, ...)
{
    int (*real)(int, const char *, int, ...) =
        (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
    va_list ap;
    va_start(ap, flags);
    int mode = mode_of(flags, ap);
    va_end(ap);
    const char *p = full_path(path, flags);
    return real(dir, p, real_flags(p, path, flags), mode);
}
