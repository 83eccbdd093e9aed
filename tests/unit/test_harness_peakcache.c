/* The machine's peak (harness/run/peakcache.h, harness/analysis/peak.h): a
 * cache is used only on the machine it names (host, CPU model, CPU count); a
 * damaged one is an error; a repeated probe gives its median, and is refused
 * as a denominator (NaN, the source says why) when it ran while the machine
 * was busy or its CI is wider than PEAK_CI_BOUND of the median; a folder of an
 * older exadl (one probe, no outputs:) keeps the number it had. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/analysis/peak.h"
#include "harness/run/peakcache.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/exadl-peakcache-XXXXXX";
static char err[1024];
static char *pargs[] = {"--reps", "5", "--seconds", "0.1", NULL};

static const char *answer(arena_t *a, double per_core)
{
    return ar_printf(a, "threads: 2\npeak_flops_per_s: %g\npeak_per_thread_flops_per_s: %g\n"
                        "peak_1thread_flops_per_s: %g\n", 2 * per_core, per_core, per_core);
}

/* a repeated probe of five answers: per_core x (1 + spread, 1, 1, 1, 1 - spread) */
static void probe5(arena_t *a, probe_t *p, const peak_machine_t *m, double per_core, double spread,
                   intf_verdict_t v)
{
    memset(p, 0, sizeof *p);
    const char **o = ar_alloc(a, 6 * sizeof *o);
    double f[] = {1 + spread, 1, 1, 1, 1 - spread};
    for (int i = 0; i < 5; i++) o[i] = answer(a, per_core * f[i]);
    probe_answer_set(a, &p->peak, "peak_cpu", pargs, 4, o[0], NULL);
    p->has_peak = 1, p->peak_host = m->host, p->peak_cpu_model = m->cpu_model, p->peak_cpus = m->cpus;
    p->peak_outputs = o, p->npeak_outputs = 5, p->peak_from = "this run";
    p->peak_measured_utc = "2026-01-01T00:00:00Z";
    intf_unknown(&p->peak_intf, NULL);
    p->peak_intf.verdict = v;
    p->peak_intf.cpus = p->peak_intf.launch_cores = m->cpus;
}

static void test_cache_keyed(void)
{
    arena_t *a = ar_new();
    peak_machine_t m = {"node7", "Fake CPU 9000", 64}, other;
    char *path = ar_printf(a, "%s/sub/dir/peak-node7.yaml", dir);
    probe_t p, q = {0};
    probe5(a, &p, &m, 3e10, 0.01, INTF_QUIET);
    T_ASSERT(peakcache_store(path, &p, err, sizeof err) == 0, "store (folders made): %s", err);
    const char *why = NULL;
    T_ASSERT(peakcache_load(a, path, &m, &q, &why) == 1, "the same machine uses it: %s", why);
    T_ASSERT(q.npeak_outputs == 5 && q.peak_intf.verdict == INTF_QUIET && strstr(q.peak_from, path),
             "outputs, verdict and where it came from (%s)", q.peak_from);
    other = m, other.cpu_model = "Fake CPU 9001";
    probe_t r = {0};
    T_ASSERT(peakcache_load(a, path, &other, &r, &why) == 0 && !r.has_peak &&
                 strstr(why, "another machine"), "another CPU model: not used (%s)", why);
    other = m, other.cpus = 32;
    T_ASSERT(peakcache_load(a, path, &other, &r, &why) == 0 && !r.has_peak, "another CPU count");
    other = m, other.host = "node8";
    T_ASSERT(peakcache_load(a, path, &other, &r, &why) == 0 && !r.has_peak, "another host");
    char *bad = ar_printf(a, "%s/bad.yaml", dir);
    FILE *f = fopen(bad, "w");
    T_ASSERT(f, "fopen");
    fputs("exadl_probe: 1\npeak: [\n", f);
    fclose(f);
    T_ASSERT(peakcache_load(a, bad, &m, &r, &why) == -1 && strstr(why, "bad.yaml"),
             "a damaged cache is an error naming it (%s)", why);
    T_ASSERT(peakcache_load(a, ar_printf(a, "%s/none.yaml", dir), &m, &r, &why) == 0, "none yet");
    ar_free(a);
}

/* a CPU run's outcome that wants the probe's peak */
static outcome_t cpu_outcome(arena_t *a)
{
    outcome_t o = {0};
    record_t *rec = ar_alloc(a, sizeof *rec);
    char e[256];
    const char *text = "exadl_record: 1\nbenchmark: stemdl\nstatus: ok\nranks: 1\ngpus: 0\n"
                       "backend: cpu\nprecision: fp32\n"
                       "timing: {step_s: [0.1, 0.1], samples_per_step: 2}\n";
    char *path = ar_printf(a, "%s/r.yaml", dir);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) return o;
    if (record_load(a, path, rec, e, sizeof e)) {
        printf("# %s\n", e);
        rec = NULL;
    }
    o.status = LS_OK, o.rec = rec, o.id = "x";
    return o;
}

static void test_refusals(void)
{
    arena_t *a = ar_new();
    peak_machine_t m = {"node7", "Fake CPU 9000", 64};
    outcome_t o = cpu_outcome(a);
    T_ASSERT(o.rec, "the record reads");
    probe_t p;
    const char *src;
    int per_core;
    probe5(a, &p, &m, 3e10, 0.02, INTF_QUIET);
    double v = peak_find(a, NAN, &o, 1, &p, &src, &per_core);
    T_ASSERT(v == 3e10 && per_core && strstr(src, "median of 5 probes"), "the median: %g (%s)", v, src);
    probe5(a, &p, &m, 3e10, 0.02, INTF_BUSY);
    v = peak_find(a, NAN, &o, 1, &p, &src, &per_core);
    T_ASSERT(isnan(v) && !per_core && !strncmp(src, "refused: ", 9) && strstr(src, "busy"),
             "a probe on a busy machine is refused: %g (%s)", v, src);
    probe5(a, &p, &m, 3e10, 0.2, INTF_QUIET); /* CI [2.4e10, 3.6e10]: 40% of the median */
    v = peak_find(a, NAN, &o, 1, &p, &src, &per_core);
    T_ASSERT(isnan(v) && strstr(src, "refused: the 95% CI"), "a wide CI is refused: %g (%s)", v, src);
    probe5(a, &p, &m, 3e10, 0.04, INTF_UNKNOWN); /* 8%: within the bound */
    v = peak_find(a, NAN, &o, 1, &p, &src, &per_core);
    T_ASSERT(v == 3e10, "a CI within the bound is used: %g (%s)", v, src);
    /* an older folder: one answer, no outputs:, the number it always had */
    probe_t old = {0};
    probe_answer_set(a, &old.peak, "peak_cpu", pargs, 4, answer(a, 2e10), NULL);
    old.has_peak = 1;
    v = peak_find(a, NAN, &o, 1, &old, &src, &per_core);
    T_ASSERT(v == 2e10 && per_core, "one probe of an older folder: %g (%s)", v, src);
    ar_free(a);
}

int main(void)
{
    if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
    T_RUN(test_cache_keyed);
    T_RUN(test_refusals);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    T_DONE();
}
