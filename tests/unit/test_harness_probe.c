/* probe.yaml (harness/run/probe.h): what exadl run's probe stage writes is
 * read back whole (the peak, describe answers with several lines, errors); a
 * folder without one reads as missing; bad files give one error naming file,
 * line and problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/run/probe.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/exadl-probe-XXXXXX";
static char err[1024];

static void test_round_trip(void)
{
    arena_t *a = ar_new();
    probe_t p = {0};
    char *pargs[] = {"--reps", "5", "--seconds", "0.1", NULL};
    probe_answer_set(a, &p.peak, "peak_cpu", pargs, 4, "threads: 2\npeak_flops_per_s: 1.5e11\n",
                     NULL);
    p.has_peak = 1, p.peak_via_launcher = 1, p.peak_host = "node1";
    char *d1[] = {"--describe", "--preset", "gb2019"}, *d2[] = {"--describe", "--preset", "x: 'y'"};
    probe_put(a, &p, "stemdl", d1, 3, "conv_weights  220398848\n\tlast line \"quoted\"", NULL);
    probe_put(a, &p, "stemdl", d2, 3, NULL, "stemdl --describe failed: exit status 3");
    probe_put(a, &p, "stemdl", d1, 3, "conv_weights  1\n", NULL); /* asked again: replaced */
    T_ASSERT(probe_write(dir, &p, err, sizeof err) == 0, "%s", err);
    probe_t q;
    int rc = probe_read(a, dir, &q, err, sizeof err);
    T_ASSERT(rc == 0, "read back: %s", err);
    const probe_answer_t *x = probe_find(&q, "stemdl", d1, 3), *y = probe_find(&q, "stemdl", d2, 3);
    T_ASSERT(q.nd == 2 && x && y, "two answers (%zu)", q.nd);
    T_ASSERT(x && x->output && !strcmp(x->output, "conv_weights  1\n") && !x->error, "the answer");
    T_ASSERT(y && !y->output && !strcmp(y->error, "stemdl --describe failed: exit status 3"),
             "the failed one keeps why");
    T_ASSERT(!probe_find(&q, "stemdl", d1, 2) && !probe_find(&q, "cosmoflow", d1, 3),
             "another question has no answer");
    T_ASSERT(q.has_peak && q.peak_via_launcher && !strcmp(q.peak_host, "node1") &&
                 !strcmp(q.peak.output, "threads: 2\npeak_flops_per_s: 1.5e11\n") &&
                 q.peak.nargs == 4 && !strcmp(q.peak.args[3], "0.1"),
             "the peak answer");
    /* several lines and quotes survive */
    probe_put(a, &p, "stemdl", d1, 3, "a\n\tb \"c\" 'd'\n\n", NULL);
    T_ASSERT(probe_write(dir, &p, err, sizeof err) == 0, "%s", err);
    T_ASSERT(probe_read(a, dir, &q, err, sizeof err) == 0, "%s", err);
    x = probe_find(&q, "stemdl", d1, 3);
    T_ASSERT(x && !strcmp(x->output, "a\n\tb \"c\" 'd'\n\n"), "lines and quotes: [%s]",
             x ? x->output : "(none)");
    ar_free(a);
}

static void test_missing(void)
{
    arena_t *a = ar_new();
    char sub[600];
    snprintf(sub, sizeof sub, "%s/none", dir);
    probe_t q;
    int rc = probe_read(a, sub, &q, err, sizeof err);
    int ok = rc == 1 && q.missing && !q.has_peak && q.nd == 0 && strstr(q.path, "none/probe.yaml");
    ar_free(a);
    T_ASSERT(ok, "no probe.yaml: 1, missing (rc %d)", rc);
}

static void bad(const char *text, const char *want)
{
    arena_t *a = ar_new();
    probe_t q;
    int rc = probe_read_text(a, text, strlen(text), "p.yaml", &q, err, sizeof err);
    ar_free(a);
    T_ASSERT(rc == -1 && strstr(err, want), "want '%s', got rc %d '%s'", want, rc, err);
}

static void test_bad(void)
{
    bad("", "p.yaml");
    bad("describe: []\n", "p.yaml:1:1: not a probe record (no exadl_probe: 1)");
    bad("exadl_probe: 2\n", "p.yaml:1:14: probe format 2; this exadl reads 1");
    bad("exadl_probe: 1\npaek: {}\n", "p.yaml:2:1: unknown key 'paek'");
    bad("exadl_probe: 1\ndescribe:\n  - {program: stemdl, args: [--describe]}\n",
        "p.yaml:3:5: an answer has output: or error: (one of them)");
    bad("exadl_probe: 1\ndescribe:\n  - {program: stemdl, output: a, error: b}\n",
        "p.yaml:3:5: an answer has output: or error:");
    bad("exadl_probe: 1\ndescribe:\n  - {program: /bin/sh, output: a}\n",
        "p.yaml:3:15: program: a program's name (no path)");
    bad("exadl_probe: 1\ndescribe:\n  - {program: stemdl, args: [[1]], output: a}\n",
        "p.yaml:3:30: args: plain values only");
    bad("exadl_probe: 1\ndescribe:\n  - {program: stemdl, output: a}\n  - {program: stemdl, output: b}\n",
        "p.yaml:4:5: describe: the same question twice");
    bad("exadl_probe: 1\npeak: {program: peak_cpu, output: a, via_launcher: perhaps}\n",
        "p.yaml:2");
    bad("exadl_probe: 1\ndescribe: {a: 1}\n", "p.yaml:2");
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    T_RUN(test_round_trip);
    T_RUN(test_missing);
    T_RUN(test_bad);
    char path[600];
    snprintf(path, sizeof path, "%s/probe.yaml", dir);
    unlink(path);
    if (rmdir(dir)) printf("# could not remove %s\n", dir);
    T_DONE();
}
