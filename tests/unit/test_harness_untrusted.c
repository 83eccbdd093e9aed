/* Untrusted files (issue 12): records, results.yaml, suites and machine files
 * with values that used to overflow, wrap or pass silently are refused with
 * one line naming FILE:LINE:COL and the allowed range.
 *   D8  ranks: 2147483648 in a record (the model cast it to int)
 *   D9  scale: 1e23 in results.yaml (a double cast straight to int)
 *   D11 a key given twice in a record or results.yaml (first or last value?)
 *   D13 timeout_s: 1e-9, kill_grace_s: 1e308, a machine of 1e12 ranks */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/blocks/recread.h"
#include "harness/model/model_machine.h"
#include "harness/report/results.h"
#include "harness/suite/suite.h"
#include "tests/unit/tap.h"

static char tmpdir[200];
static char err[1024];

static const char *put(const char *name, const char *text)
{
    static char path[400];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    T_ASSERT(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
    return path;
}

/* err must start with "PATH:LINE:" and hold sub, on one line */
static void expect(const char *path, int line, const char *sub)
{
    char want[500];
    snprintf(want, sizeof want, "%s:%d:", path, line);
    T_ASSERT(!strncmp(err, want, strlen(want)), "'%s' does not start with '%s'", err, want);
    T_ASSERT(strstr(err, sub), "'%s' lacks '%s'", err, sub);
    T_ASSERT(!strchr(err, '\n'), "'%s' is more than one line", err);
}

static const char rec_head[] = "exadl_record: 1\nbenchmark: stemdl\n";

static int load_record(const char *text, const char **path)
{
    arena_t *a = ar_new();
    record_t r;
    *path = put("rec.yaml", text);
    err[0] = 0;
    int rc = record_load(a, *path, &r, err, sizeof err);
    ar_free(a);
    return rc;
}

static void test_record_ranks(void)
{
    const char *p;
    char text[512];
    snprintf(text, sizeof text, "%sstatus: ok\nranks: 2147483648\n", rec_head);
    T_ASSERT(load_record(text, &p) == -1, "ranks 2^31 accepted");
    expect(p, 4, "ranks: 2147483648 is out of range (1 to 100000000)");
    snprintf(text, sizeof text, "%sstatus: ok\nranks: 0\n", rec_head);
    T_ASSERT(load_record(text, &p) == -1, "ranks 0 accepted");
    expect(p, 4, "ranks: 0 is out of range");
    snprintf(text, sizeof text, "%sstatus: ok\nranks: 4\ngpus: -1\n", rec_head);
    T_ASSERT(load_record(text, &p) == -1, "gpus -1 accepted");
    expect(p, 5, "gpus: -1 is out of range");
    snprintf(text, sizeof text,
             "%sstatus: ok\nranks: 2\ngradient_reduction: {groups: 10000000000000}\n", rec_head);
    T_ASSERT(load_record(text, &p) == -1, "10^13 groups accepted");
    expect(p, 5, "groups: 10000000000000 is out of range");
    snprintf(text, sizeof text, "%sstatus: ok\nranks: 100000000\n", rec_head);
    T_ASSERT(load_record(text, &p) == 0, "ranks 1e8 refused: %s", err);
}

static void test_record_duplicates(void)
{
    const char *p;
    char text[512];
    snprintf(text, sizeof text, "%sstatus: failed\nranks: 2\nstatus: ok\n", rec_head);
    T_ASSERT(load_record(text, &p) == -1, "a record with status twice accepted");
    expect(p, 5, "key 'status' given twice (first at line 3)");
    snprintf(text, sizeof text, "%sstatus: ok\ntiming: {step_s: [1], step_s: [2]}\n", rec_head);
    T_ASSERT(load_record(text, &p) == -1, "timing.step_s twice accepted");
    expect(p, 4, "key 'step_s' given twice");
}

static const char res_head[] = "exadl_results: 1\nrun: {name: r1, launches: 2}\n";

static int load_results(const char *text, const char **path)
{
    arena_t *a = ar_new();
    results_t r;
    *path = put("results.yaml", text);
    err[0] = 0;
    int rc = results_load(a, *path, &r, err, sizeof err);
    ar_free(a);
    return rc;
}

static void test_results(void)
{
    const char *p;
    char text[1024];
    /* D9: a scale of 1e23 was cast to int (float-cast-overflow) */
    snprintf(text, sizeof text, "%smetrics:\n  - {benchmark: b, metric: throughput_samples_per_s, "
             "scale: 1e23, value: 1}\n", res_head);
    T_ASSERT(load_results(text, &p) == -1, "scale 1e23 accepted");
    expect(p, 4, "scale");
    snprintf(text, sizeof text, "%smetrics:\n  - {benchmark: b, metric: throughput_samples_per_s, "
             "scale: 3000000000, value: 1}\n", res_head);
    T_ASSERT(load_results(text, &p) == -1, "scale 3e9 accepted");
    expect(p, 4, "scale: 3000000000 is out of range (0 to 100000000)");
    snprintf(text, sizeof text, "exadl_results: 1\nrun: {name: r1, launches: 1e300}\n");
    T_ASSERT(load_results(text, &p) == -1, "launches 1e300 accepted");
    expect(p, 2, "launches");
    snprintf(text, sizeof text, "%schecks:\n  - {reference: r, metric: m, scale: -5}\n", res_head);
    T_ASSERT(load_results(text, &p) == -1, "a check at scale -5 accepted");
    expect(p, 4, "scale: -5 is out of range");
    /* D11 */
    snprintf(text, sizeof text, "%smetrics:\n  - {benchmark: b, metric: throughput_samples_per_s, "
             "scale: 2, value: 1, value: 5}\n", res_head);
    T_ASSERT(load_results(text, &p) == -1, "value twice accepted");
    expect(p, 4, "key 'value' given twice");
    snprintf(text, sizeof text, "%smetrics:\n  - {benchmark: b, metric: throughput_samples_per_s, "
             "scale: 2, value: 1}\n", res_head);
    T_ASSERT(load_results(text, &p) == 0, "a good results file refused: %s", err);
}

static int load_suite(const char *text)
{
    arena_t *a = ar_new();
    machine_t m = {.cores = 4};
    suite_t s;
    err[0] = 0;
    int rc = suite_load_text(a, text, strlen(text), "s.yaml", ".", &m, &s, err, sizeof err);
    ar_free(a);
    return rc;
}

static void test_suite_values(void)
{
    static const char bench[] = "benchmarks: [{program: /bin/true}]\n";
    char text[512];
    snprintf(text, sizeof text, "timeout_s: 1e-9\n%s", bench);
    T_ASSERT(load_suite(text) == -1, "timeout_s 1e-9 accepted");
    T_ASSERT(!strcmp(err, "s.yaml:1:12: timeout_s: 1e-09 is out of range (allowed 0.1 to 2.592e+06)"),
             "'%s'", err);
    snprintf(text, sizeof text, "kill_grace_s: 1e308\n%s", bench);
    T_ASSERT(load_suite(text) == -1, "kill_grace_s 1e308 accepted");
    T_ASSERT(strstr(err, "s.yaml:1:15: kill_grace_s: 1e+308 is out of range (allowed 0.01 to 3600)"),
             "'%s'", err);
    snprintf(text, sizeof text, "benchmarks: [{program: /bin/true, timeout_s: .inf}]\n");
    T_ASSERT(load_suite(text) == -1, "timeout_s .inf accepted");
    snprintf(text, sizeof text, "device_peak_flops: 1e300\n%s", bench);
    T_ASSERT(load_suite(text) == -1, "device_peak_flops 1e300 accepted");
    T_ASSERT(strstr(err, "out of range"), "'%s'", err);
    snprintf(text, sizeof text, "timeout_s: 0.5\nkill_grace_s: 0.5\n%s", bench);
    T_ASSERT(load_suite(text) == 0, "sensible values refused: %s", err);
}

static void test_machine_size(void)
{
    const char *p = put("m.yaml", "exadl_machine: 1\nnodes: 1000000000\nranks_per_node: 1000\n"
                                  "intra_node: {latency_s: 1e-6, bandwidth_Bps: 1e10}\n"
                                  "inter_node: {latency_s: 1e-6, bandwidth_Bps: 1e10}\n");
    arena_t *a = ar_new();
    mfile_t m;
    err[0] = 0;
    int rc = mfile_load(a, p, &m, err, sizeof err);
    ar_free(a);
    T_ASSERT(rc == -1, "a machine of 1e12 ranks accepted");
    expect(p, 2, "nodes x ranks_per_node is 1e+12 ranks; at most 100000000");
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/exadl-untrusted-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) return perror("mkdtemp"), 1;
    T_RUN(test_record_ranks);
    T_RUN(test_record_duplicates);
    T_RUN(test_results);
    T_RUN(test_suite_values);
    T_RUN(test_machine_size);
    static const char *const files[] = {"rec.yaml", "results.yaml", "m.yaml", NULL};
    for (int i = 0; files[i]; i++) {
        char path[400];
        snprintf(path, sizeof path, "%s/%s", tmpdir, files[i]);
        unlink(path);
    }
    rmdir(tmpdir);
    T_DONE();
}
