/* fuzz: what every libFuzzer harness of tests/fuzz/ shares (make fuzz;
 * docs/harness.md "Security and trust").  A harness defines
 * LLVMFuzzerTestOneInput and feeds one parser entry point the bytes it is
 * given; any crash, sanitizer report, exit or CHECK failure is a finding.
 *
 * fuzz_init: once per process: a folder of its own for fuzz_file, and CHECK
 *   failures abort (libFuzzer reports them) instead of exiting.  (It does not
 *   change folder: libFuzzer reads its corpus by relative names later;
 *   tests/fuzz/run.sh starts the harnesses in an empty folder.)
 * fuzz_file: the input as a file (the loaders read paths): an in-memory
 *   file (memfd) rewritten each time, named /proc/self/fd/N, so that no disk
 *   is touched (a file in /tmp cost 5 ms per input).
 * fuzz_text: the input as a NUL-terminated string (malloc'ed). */
#ifndef EXADL_TESTS_FUZZ_H
#define EXADL_TESTS_FUZZ_H

/* each harness defines _GNU_SOURCE first (memfd_create) */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "benchmarks/common/check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir_[256];

static void fuzz_abort_(int code)
{
    (void)code;
    abort();
}

static inline void fuzz_init(void)
{
    if (fuzz_dir_[0]) return;
    snprintf(fuzz_dir_, sizeof fuzz_dir_, "%s/exadl-fuzz-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(fuzz_dir_)) abort();
    check_set_abort(fuzz_abort_);
}

static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    static char path[64];
    static int fd = -1;
    fuzz_init();
    if (fd < 0) {
        fd = memfd_create("exadl-fuzz-input", 0);
        if (fd < 0) abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) abort();
    return path;
}

static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (!t) abort();
    memcpy(t, data, size);
    t[size] = 0;
    return t;
}

#endif
