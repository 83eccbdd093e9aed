/* Fuzz results.yaml (harness/report): results_load on the input, as
 * `exadl check`, `compare`, `history` and `summary` read it. */
#define _GNU_SOURCE
#include "harness/report/results.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    arena_t *a = ar_new();
    results_t r;
    char err[1024];
    (void)results_load(a, path, &r, err, sizeof err);
    ar_free(a);
    return 0;
}
