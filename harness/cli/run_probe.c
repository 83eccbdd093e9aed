/* The probe stage of `exadl run` (run_stages.h): after the sweep and before
 * the analysis, every question the analysis and the checks have for a
 * program is asked once here and its answer recorded in the run folder's
 * probe.yaml (harness/run/probe.h): the CPU peak (peak_cpu, where peak.c wants
 * it: the machine's cached peak, or PEAK_PROBES runs of peak_cpu,
 * harness/run/peakcache.h) and the describe answers of the reference checks (`stemdl --describe
 * ...`).  Analysis, checks and report then read answers only.  `exadl run
 * --resume` keeps what is recorded and asks what is missing; `exadl analyze`
 * asks nothing: it reads the file and says what is missing. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/timer.h"
#include "harness/analysis/peak.h"
#include "harness/cli/run_stages.h"
#include "harness/proc/launch.h"
#include "harness/run/peakcache.h"

static size_t count_args(char *const *v)
{
    size_t n = 0;
    while (v[n]) n++;
    return n;
}

/* prog (exadl's bin/NAME) args...: its output, or NULL with why */
static char *ask(arena_t *a, const char *prog, char *const *args, size_t nargs, double timeout_s,
                 char *why, size_t whylen)
{
    char **argv = ar_alloc(a, (nargs + 2) * sizeof *argv);
    argv[0] = (char *)prog;
    for (size_t i = 0; i < nargs; i++) argv[i + 1] = args[i];
    argv[nargs + 1] = NULL;
    char *out = spawn_capture(argv, timeout_s, why, whylen);
    if (!out) return NULL;
    char *r = ar_strdup(a, out);
    free(out);
    return r;
}

/* PEAK_PROBES runs of peak_cpu, the machine's counters sampled around them
 * (harness/run/interference.h: a busy machine's peak is refused and never
 * cached); the first failure stops it */
static void measure_peak(run_t *r, probe_t *p, const peak_machine_t *m)
{
    runctx_t *c = &r->c;
    arena_t *a = c->a;
    char *prog = path_join(a, exadl_bindir(), PEAK_PROBE_PROGRAM);
    size_t nargs = count_args(peak_probe_args);
    char why[256];
    const char *err = "not measured: build/bin/peak_cpu is not built and the suite gives no "
                      "device_peak_flops";
    const char **outs = ar_alloc(a, (PEAK_PROBES + 1) * sizeof *outs);
    size_t n = 0;
    p->peak_via_launcher = launch_probes_wrapped();
    intf_sample_t before, after;
    intf_sample(&before);
    while (path_is_exec(prog) && n < PEAK_PROBES) {
        const char *out = ask(a, prog, peak_probe_args, nargs, 300, why, sizeof why);
        if (!out) {
            err = ar_printf(a, "not measured: peak_cpu failed (%s)", why);
            n = 0;
            break;
        }
        outs[n++] = out;
    }
    intf_sample(&after);
    probe_answer_set(a, &p->peak, PEAK_PROBE_PROGRAM, peak_probe_args, nargs, n ? outs[0] : NULL,
                     err);
    p->has_peak = 1;
    p->peak_host = p->peak_via_launcher ? c->ri.host : c->ri.exadl_host;
    p->peak_outputs = n ? outs : NULL, p->npeak_outputs = n;
    p->peak_from = "this run";
    char now[32];
    timer_utc_iso(now, sizeof now);
    p->peak_measured_utc = ar_strdup(a, now);
    if (p->peak_via_launcher) { /* another node: neither its counters nor its identity are here */
        intf_unknown(&p->peak_intf, "peak_cpu ran as a job step on a compute node");
        return;
    }
    p->peak_cpu_model = m->cpu_model, p->peak_cpus = m->cpus;
    intf_judge(&before, &after, m->cpus, &p->peak_intf); /* peak_cpu uses every core */
}

/* the peak: this machine's cache, else measured (and cached where it may be:
 * a quiet machine, a CI within the bound); on compute nodes always measured,
 * never cached (exadl does not know which node answers) */
static void ask_peak(run_t *r, probe_t *p)
{
    runctx_t *c = &r->c;
    arena_t *a = c->a;
    if (p->has_peak || !peak_wants_probe(c->s.device_peak_flops, c->ri.o, c->ri.no)) return;
    peak_machine_t m;
    peakcache_machine(a, &m);
    const char *cache = launch_probes_wrapped() ? NULL : peakcache_path(a, &m), *why = NULL;
    if (cache && !r->remeasure_peak) {
        int got = peakcache_load(a, cache, &m, p, &why);
        if (got == 1) {
            printf("exadl: peak: from %s (measured %s; exadl run --remeasure-peak measures "
                   "again)\n", cache, p->peak_measured_utc ? p->peak_measured_utc : "?");
            return;
        }
        if (got < 0) fprintf(stderr, "exadl run: warning: %s (measuring the peak again)\n", why);
    }
    printf("exadl: peak: measuring (%d runs of peak_cpu%s)\n", PEAK_PROBES,
           r->remeasure_peak ? ", --remeasure-peak" : why ? ar_printf(a, "; %s", why) : "");
    fflush(stdout);
    measure_peak(r, p, &m);
    stats_summary_t st;
    size_t np = p->npeak_outputs ? peak_probes(p, &st) : 0;
    if (!np) return;
    const char *verdict = intf_verdict_name(p->peak_intf.verdict);
    printf("exadl: peak: %.4g FLOP/s per core, 95%% CI [%.4g, %.4g] over %zu runs; machine %s "
           "(%s)\n", st.median, st.ci_lo, st.ci_hi, np, verdict, intf_line(a, &p->peak_intf));
    const char *no = !cache ? "no cache file can be named (no EXADL_PEAK_CACHE, XDG_CACHE_HOME or HOME)"
                     : p->peak_intf.verdict != INTF_QUIET
                         ? ar_printf(a, "the machine was %s during the probe", verdict)
                     : st.ci_hi - st.ci_lo > PEAK_CI_BOUND * st.median
                         ? ar_printf(a, "its CI is wider than %.0f%% of the median", 100 * PEAK_CI_BOUND)
                         : NULL;
    char err[1024];
    if (no) printf("exadl: peak: not cached: %s\n", no);
    else if (peakcache_store(cache, p, err, sizeof err))
        fprintf(stderr, "exadl run: warning: the peak is not cached: %s\n", err);
    else printf("exadl: peak: cached in %s for later runs on this machine\n", cache);
}

/* each configuration a reference check may ask about, once */
static void ask_describes(run_t *r, probe_t *p)
{
    runctx_t *c = &r->c;
    arena_t *a = c->a;
    for (size_t i = 0; i < c->nrefs; i++)
        for (size_t k = 0; k < c->refs[i].n; k++) {
            describe_q_t q;
            const char *why;
            if (reference_describe_question(a, &c->refs[i].c[k], &q, &why) != 1 ||
                probe_find(p, q.program, q.args, q.nargs))
                continue;
            const char *prog = path_join(a, exadl_bindir(), q.program);
            if (!path_is_exec(prog)) {
                probe_put(a, p, q.program, q.args, q.nargs, NULL,
                          ar_printf(a, "%s is not built, so %s cannot answer", q.program,
                                    q.args[0]));
                continue;
            }
            char msg[256];
            char *out = ask(a, prog, q.args, q.nargs, 60, msg, sizeof msg);
            probe_put(a, p, q.program, q.args, q.nargs, out,
                      out ? NULL : ar_printf(a, "%s %s failed: %s", q.program, q.args[0], msg));
        }
}

int run_stage_probe(run_t *r)
{
    runctx_t *c = &r->c;
    const char *cmd = r->analyze ? "analyze" : "run";
    probe_t *p = &r->probe;
    /* a damaged file: a run asks again; analyze, which only reads, stops on it
     * before anything is written (the folder's results.yaml stays) */
    if (r->analyze) {
        if (probe_read_or_fail(c->a, c->ri.dir, p, cmd)) {
            r->status = 2;
            return 1;
        }
        if (peak_wants_probe(c->s.device_peak_flops, c->ri.o, c->ri.no) && !p->has_peak)
            fprintf(stderr, "exadl analyze: note: %s %s: no recorded CPU peak (peak_cpu), so no "
                            "fraction of peak\n", p->path, p->missing ? "is missing" : "has no peak:");
        return 0;
    }
    probe_read_or_warn(c->a, c->ri.dir, p, cmd);
    p->missing = 0;
    ask_peak(r, p);
    ask_describes(r, p);
    char err[1024];
    if (probe_write(c->ri.dir, p, err, sizeof err))
        fprintf(stderr, "exadl run: warning: %s (analysing this folder again will lack the "
                        "probes' answers)\n", err);
    return 0;
}
