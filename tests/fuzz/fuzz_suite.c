/* Fuzz suite parsing (harness/suite): suite_load_text on the input, then the
 * launch plan of a suite it accepts. */
#define _GNU_SOURCE
#include "harness/run/launchplan.h"
#include "harness/suite/suite.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init();
    char *text = fuzz_text(data, size);
    arena_t *a = ar_new();
    machine_t m = {.cores = 4, .gpus = 0};
    suite_t s;
    char err[1024];
    if (suite_load_text(a, text, size, "fuzz-suite.yaml", ".", &m, &s, err, sizeof err) == 0) {
        launchplan_t plan;
        launchplan_build(a, &s, "run", &plan);
    }
    ar_free(a);
    free(text);
    return 0;
}
