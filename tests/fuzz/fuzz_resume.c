/* Fuzz what `exadl run --resume` reads of a run folder and decides from it
 * (harness/run: runstate.c, sweep_resume.c; harness/util/safefile.c): the input is
 * journal.yaml, or run.yaml then "\n#journal\n" then journal.yaml, of a
 * folder of the harness's own with a fixed suite and one whole record.  Each
 * input: the folder check, run.yaml, the journal, the sweep's decision (kept
 * by journal line, kept by record, run), then the journal rebuilt from what
 * was read, which must read back with no line skipped. */
#define _GNU_SOURCE
#include <sys/stat.h>

#include "harness/run/launchplan.h"
#include "harness/run/runstate.h"
#include "harness/run/sweep.h"
#include "harness/suite/suite.h"
#include "harness/util/safefile.h"
#include "tests/fuzz/fuzz.h"

static const char suite_text[] =
    "name: fz\n"
    "launcher: \"env {cmd}\"\n"
    "scales: [1, 2]\n"
    "repetitions: 1\n"
    "benchmarks:\n"
    "  - {name: good, program: /bin/true}\n";

static const char record_text[] =
    "exadl_record: 1\nbenchmark: stemdl\nstatus: ok\nerror: null\n"
    "system: {hosts: [h], cpu: {model: c, cores: 2}, os: Linux}\n"
    "config: {preset: tiny, batch: 2, steps: 6}\nranks: 1\ngpus: 0\nbackend: cpu\n"
    "precision: fp32\nresults: {step_time_s: {mean: 0.1}}\n";

static void put(const char *dir, const char *name, const void *data, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) abort();
}

/* the folder, its suite, plan and record: made once (a static arena) */
static const char *setup(suite_t *s, launchplan_t *plan)
{
    static char dir[300];
    static arena_t *sa;
    static suite_t ss;
    static launchplan_t sp;
    if (!sa) {
        snprintf(dir, sizeof dir, "%s/run", fuzz_dir_);
        char sub[400], err[1024];
        snprintf(sub, sizeof sub, "%s/records", dir);
        if (mkdir(dir, 0755) || mkdir(sub, 0755)) abort();
        sa = ar_new();
        machine_t m = {.cores = 4, .gpus = 0};
        if (suite_load_text(sa, suite_text, sizeof suite_text - 1, "fz.yaml", ".", &m, &ss, err,
                            sizeof err))
            abort();
        launchplan_build(sa, &ss, dir, &sp);
        if (sp.n < 1) abort();
        snprintf(sub, sizeof sub, "records/%s", path_basename(sp.l[0].record));
        put(dir, sub, record_text, sizeof record_text - 1);
    }
    *s = ss, *plan = sp;
    return dir;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init();
    suite_t s;
    launchplan_t plan;
    const char *dir = setup(&s, &plan);
    const uint8_t *sep = memmem(data, size, "\n#journal\n", 10);
    size_t nrun = sep ? (size_t)(sep - data) : 0;
    const uint8_t *j = sep ? sep + 10 : data;
    size_t nj = size - (size_t)(j - data);
    if (sep) put(dir, "run.yaml", data, nrun);
    put(dir, "journal.yaml", j, nj);
    arena_t *a = ar_new();
    char err[1024];
    runstate_t st;
    if (sep) (void)runstate_read(a, dir, &st, err, sizeof err);
    if (sf_check_rundir(dir, err, sizeof err)) abort(); /* the folder is the harness's own */
    outcome_t *o;
    size_t n, kept, to_run;
    int skipped;
    if (journal_read(a, dir, &o, &n, &skipped, err, sizeof err) == 0) {
        sweep_opts_t so = {.s = &s, .p = &plan, .earlier = o, .nearlier = n, .resuming = 1};
        sweep_count(a, &so, &kept, &to_run);
        if (kept + to_run != plan.n) abort();
        char aside[600];
        if (journal_rebuild(dir, o, n, aside, sizeof aside, err, sizeof err)) abort();
        if (aside[0]) unlink(aside);
        outcome_t *o2;
        size_t n2;
        int skipped2;
        if (journal_read(a, dir, &o2, &n2, &skipped2, err, sizeof err) || skipped2) abort();
    }
    ar_free(a);
    return 0;
}
