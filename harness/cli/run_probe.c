/* The probe stage of `exadl run` (run_stages.h): after the sweep and before
 * the analysis, every question the analysis and the checks have for a
 * program is asked once here and its answer recorded in the run folder's
 * probe.yaml (harness/run/probe.h): the CPU peak (peak_cpu, where peak.c wants
 * it) and the describe answers of the reference checks (`stemdl --describe
 * ...`).  Analysis, checks and report then read answers only.  `exadl run
 * --resume` keeps what is recorded and asks what is missing; `exadl analyze`
 * asks nothing: it reads the file and says what is missing. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "harness/analysis/peak.h"
#include "harness/cli/run_stages.h"
#include "harness/proc/launch.h"

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

/* the peak probe measures the machine the launches ran on (a 1-rank launch
 * through the launcher where launches are job steps) */
static void ask_peak(run_t *r, probe_t *p)
{
    runctx_t *c = &r->c;
    arena_t *a = c->a;
    if (p->has_peak || !peak_wants_probe(c->s.device_peak_flops, c->ri.o, c->ri.no)) return;
    char *prog = path_join(a, exadl_bindir(), PEAK_PROBE_PROGRAM);
    size_t nargs = count_args(peak_probe_args);
    char why[256];
    const char *out = NULL, *err = "not measured: build/bin/peak_cpu is not built and the suite "
                                   "gives no device_peak_flops";
    if (path_is_exec(prog)) {
        out = ask(a, prog, peak_probe_args, nargs, 300, why, sizeof why);
        if (!out) err = ar_printf(a, "not measured: peak_cpu failed (%s)", why);
    }
    probe_answer_set(a, &p->peak, PEAK_PROBE_PROGRAM, peak_probe_args, nargs, out, err);
    p->has_peak = 1;
    p->peak_via_launcher = launch_probes_wrapped();
    p->peak_host = p->peak_via_launcher ? c->ri.host : c->ri.exadl_host;
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
