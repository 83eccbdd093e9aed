/* Fuzz reference files (harness/checks): reference_load on the input, then
 * its checks evaluated against a small metric table (no describe answers
 * recorded: evaluating starts no program in any case). */
#define _GNU_SOURCE
#include "harness/checks/refcheck.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    arena_t *a = ar_new();
    reference_t r;
    char err[1024];
    if (reference_load(a, path, &r, err, sizeof err) == 0) {
        mtable_t t = {0};
        metric_t m = {.bench = "stemdl", .metric = "throughput_samples_per_s", .scale = 2,
                      .value = 10, .lo = 9, .hi = 11, .n = 5, .unit = "samples/s"};
        mtable_add(a, &t, &m);
        checks_t ck = {0};
        reference_evaluate(a, &r, &t, NULL, &ck);
        int p, f, na;
        checks_count(&ck, &p, &f, &na);
    }
    ar_free(a);
    return 0;
}
