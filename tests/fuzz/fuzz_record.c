/* Fuzz result records (harness/blocks/recread.c): record_load on the input,
 * the readers of its kind's blocks included. */
#define _GNU_SOURCE
#include "harness/blocks/recread.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    arena_t *a = ar_new();
    record_t r;
    char err[1024];
    (void)record_load(a, path, &r, err, sizeof err);
    ar_free(a);
    return 0;
}
