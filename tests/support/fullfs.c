/* A full filesystem for one file, preloaded by tests (LD_PRELOAD): a file
 * opened for writing whose path contains $EXADL_FULLFS is /dev/full instead,
 * so every write to it fails with ENOSPC as on a full disk, while the rest of
 * the program (MPI's shared memory, logs) works.  tests/it/sec_untrusted.sh
 * checks that a benchmark that cannot write its record says so and exits
 * non-zero (issue 12, D4). */
#define _GNU_SOURCE
#include <dlfcn.h>
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
