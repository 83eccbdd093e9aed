/* Fuzz a run folder's state (harness/run/runstate.c): run.yaml, which
 * `exadl run --resume` and `exadl analyze` read, and journal.yaml, one line
 * per finished launch.  The input becomes both files of a folder of the
 * harness's own (a loader reads a folder, not a path). */
#define _GNU_SOURCE
#include "harness/run/runstate.h"
#include "harness/util/util.h"
#include "tests/fuzz/fuzz.h"

static void put(const char *dir, const char *name, const uint8_t *data, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init();
    put(fuzz_dir_, "run.yaml", data, size);
    put(fuzz_dir_, "journal.yaml", data, size);
    arena_t *a = ar_new();
    char err[1024];
    runstate_t st;
    (void)runstate_read(a, fuzz_dir_, &st, err, sizeof err);
    outcome_t *o;
    size_t n;
    int skipped;
    (void)journal_read(a, fuzz_dir_, &o, &n, &skipped, err, sizeof err);
    ar_free(a);
    return 0;
}
