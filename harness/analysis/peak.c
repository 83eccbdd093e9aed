/* The device peak FLOP/s that "fraction of peak" divides by: given by the
 * suite, recorded by the benchmark, or measured by build/bin/peak_cpu in exadl
 * run's probe stage (probe.yaml). */
#define _GNU_SOURCE
#include "harness/analysis/peak.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/stats.h"
#include "harness/blocks/training/blk_training.h"

/* "peak_flops_per_s: X" (and "threads: N", dividing it) from the probe */
static double field(const char *out, const char *key)
{
    size_t l = strlen(key);
    for (const char *p = out; (p = strstr(p, key)); p += l)
        if ((p == out || p[-1] == '\n') && p[l] == ':') return strtod(p + l + 1, NULL);
    return NAN;
}

double peak_parse(const char *out)
{
    /* per core: the all-cores rate per thread, or the one-thread rate where that is
     * higher (other jobs on the cores pull the all-cores rate down) */
    double per = field(out, "peak_per_thread_flops_per_s");
    if (!(per > 0)) {
        double all = field(out, "peak_flops_per_s"), th = field(out, "threads");
        per = all > 0 ? all / (th >= 1 ? th : 1) : NAN;
    }
    double one = field(out, "peak_1thread_flops_per_s");
    if (one > 0 && !(per >= one)) per = one;
    return per > 0 ? per : NAN;
}

/* bf16 (peak_cpu's peak_bf16.c): the same per-core rule over its bf16 lines
 * (the peak lines: already the larger of its instruction loop and its matmul);
 * a value that is not a finite positive number counts as absent */
double peak_parse_bf16(const char *out)
{
    double per = field(out, "peak_bf16_per_thread_flops_per_s");
    double one = field(out, "peak_bf16_1thread_flops_per_s");
    if (!(per > 0 && isfinite(per))) per = NAN;
    if (one > 0 && isfinite(one) && !(per >= one)) per = one;
    return per > 0 ? per : NAN;
}

/* the ISA word after "peak_bf16_isa:" (NULL: no such line, or not a word of
 * letters, digits and "_.+-": the folder may come from anywhere, and the word
 * goes into report.md as it is) */
static const char *bf16_isa(arena_t *a, const char *out)
{
    const char *key = "peak_bf16_isa:";
    size_t l = strlen(key);
    for (const char *p = out; (p = strstr(p, key)); p += l) {
        if (p != out && p[-1] != '\n') continue;
        p += l;
        p += strspn(p, " \t");
        size_t w = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-");
        if (!w || w > 64 || !strchr(" \t\r\n", p[w])) return NULL; /* p[w] == 0: the end */
        return ar_printf(a, "%.*s", (int)w, p);
    }
    return NULL;
}

/* the recorded probes' outputs: outputs: of a repeated probe, else the one output: */
static const char *const *outputs(const probe_t *p, size_t *n)
{
    if (p->npeak_outputs) return *n = p->npeak_outputs, p->peak_outputs;
    *n = p->peak.output ? 1 : 0;
    return &p->peak.output;
}

/* the median of parse() over the outputs that give a value; their count */
static size_t probes_of(const probe_t *p, double (*parse)(const char *), stats_summary_t *st)
{
    size_t n, k = 0;
    const char *const *o = outputs(p, &n);
    double v[128];
    for (size_t i = 0; i < n && k < 128; i++) {
        double x = parse(o[i]);
        if (x > 0 && isfinite(x)) v[k++] = x;
    }
    stats_summarize(v, k, st);
    return k;
}

size_t peak_probes(const probe_t *p, stats_summary_t *st)
{
    return probes_of(p, peak_parse, st);
}

double peak_find_bf16(arena_t *a, const probe_t *probe, int per_core, const char *fp32_source,
                      const char **isa, const char **source)
{
    *isa = NULL;
    if (!per_core) {
        *source = ar_printf(a, "not used: the device peak (%s) applies to every entry",
                            fp32_source);
        return NAN;
    }
    const char *out = probe && probe->has_peak ? probe->peak.output : NULL;
    const char *name = out ? bf16_isa(a, out) : NULL;
    if (!name) {
        *source = "not measured: the recorded peak_cpu answer has no readable peak_bf16_isa line "
                  "(a probe.yaml from before peak_cpu measured bf16)";
        return NAN;
    }
    if (!strcmp(name, "none")) {
        *source = "not measured: peak_cpu found neither AVX512-BF16 nor AMX (peak_bf16_isa: "
                  "none)";
        return NAN;
    }
    stats_summary_t st;
    double v = probes_of(probe, peak_parse_bf16, &st) ? st.median : NAN;
    if (!(v > 0)) {
        *source = "not measured: peak_cpu printed no usable peak_bf16 rate line";
        return NAN;
    }
    *isa = name;
    *source = "measured by peak_cpu (the larger of a loop of AVX512-BF16 dot products and "
              "oneDNN's bf16 matmul, fp32 accumulation; an older peak_cpu: the matmul alone): "
              "per core, the larger of the all-cores rate per thread and the one-thread rate; a "
              "CPU rank's peak is that times its threads";
    return v;
}

char *const peak_probe_args[] = {"--reps", "5", "--seconds", "0.1", NULL};

/* 0: the suite or a record gives the peak; 1: a GPU run without one; 2: the
 * CPU probe's answer is wanted; 3: no launch ended ok (nothing to divide) */
static int need(double suite_peak, const outcome_t *o, size_t n, size_t *from)
{
    if (suite_peak > 0) return 0;
    int gpu = 0, any = 0;
    for (size_t i = 0; i < n; i++) {
        if (o[i].status != LS_OK || !o[i].rec) continue;
        double recorded = rec_training(o[i].rec)->device_peak_flops;
        if (isfinite(recorded) && recorded > 0) {
            *from = i;
            return 0;
        }
        any = 1;
        gpu |= o[i].rec->gpus > 0;
    }
    return gpu ? 1 : any ? 2 : 3;
}

/* the peak of a repeated probe, or NaN where it is refused as a denominator:
 * taken while the machine was busy (others' work pulls it down, so a fraction
 * of it would rise), or a CI wider than PEAK_CI_BOUND of its median */
static double repeated(arena_t *a, const probe_t *p, const stats_summary_t *st, size_t np,
                       const char **source, int *per_core)
{
    const char *where = p->peak_via_launcher ? "on a compute node (1-rank launches through the "
                                               "launcher)" : "on this host";
    const char *from = p->peak_from ? p->peak_from : "this run";
    const char *when = p->peak_measured_utc ? p->peak_measured_utc : "?";
    if (p->peak_intf.verdict == INTF_BUSY) {
        *source = ar_printf(a, "refused: peak_cpu ran %s while the machine was busy (%s; from %s, "
                               "%s), so no fraction of peak (exadl run --remeasure-peak on a "
                               "quiet machine)", where, intf_line(a, &p->peak_intf), from, when);
        return NAN;
    }
    if (np >= 2 && st->ci_hi - st->ci_lo > PEAK_CI_BOUND * st->median) {
        *source = ar_printf(a, "refused: the 95%% CI of the peak over %zu peak_cpu probes %s, "
                               "[%.4g, %.4g] FLOP/s per core, is wider than %.0f%% of its median "
                               "%.4g (from %s, %s), so no fraction of peak (exadl run "
                               "--remeasure-peak on a quiet machine)", np, where, st->ci_lo,
                            st->ci_hi, 100 * PEAK_CI_BOUND, st->median, from, when);
        return NAN;
    }
    *source = ar_printf(a, "measured by peak_cpu %s: median of %zu probes, 95%% CI [%.4g, %.4g] "
                           "FLOP/s per core (from %s, measured %s); FMA peak per core (the larger "
                           "of the all-cores rate per thread and the one-thread rate); a CPU "
                           "rank's peak is that times its threads",
                        where, np, st->ci_lo, st->ci_hi, from, when);
    *per_core = 1;
    return st->median;
}

int peak_wants_probe(double suite_peak, const outcome_t *o, size_t n)
{
    size_t from;
    return need(suite_peak, o, n, &from) == 2;
}

double peak_find(arena_t *a, double suite_peak, const outcome_t *o, size_t n,
                 const probe_t *probe, const char **source, int *per_core)
{
    *per_core = 0;
    size_t from = 0;
    int k = need(suite_peak, o, n, &from);
    if (k == 0 && suite_peak > 0) {
        *source = "given by the suite (device_peak_flops)";
        return suite_peak;
    }
    if (k == 0) {
        *source = ar_printf(a, "measured by the benchmark (record %s)", o[from].id);
        return rec_training(o[from].rec)->device_peak_flops;
    }
    if (k == 1) {
        *source = "not measured: no GPU peak in the records and none given by the suite "
                  "(device_peak_flops)";
        return NAN;
    }
    if (k == 3) {
        *source = "not measured: build/bin/peak_cpu is not built and the suite gives no "
                  "device_peak_flops";
        return NAN;
    }
    if (!probe || !probe->has_peak) {
        *source = ar_printf(a, "not measured: no recorded peak_cpu answer (%s %s)",
                            probe ? probe->path : PROBE_FILE,
                            probe && !probe->missing ? "has no peak:" : "is missing");
        return NAN;
    }
    if (probe->peak.error) {
        *source = probe->peak.error;
        return NAN;
    }
    stats_summary_t st;
    size_t np = peak_probes(probe, &st);
    double v = np ? st.median : NAN;
    if (!(v > 0)) {
        *source = "not measured: peak_cpu printed no peak_flops_per_s line";
        return NAN;
    }
    if (probe->npeak_outputs) /* a repeated probe: its CI and its machine's state judge it */
        return repeated(a, probe, &st, np, source, per_core);
    *source = ar_printf(a, "measured by peak_cpu %s: FMA peak per core (the larger of the "
                           "all-cores rate per thread and the one-thread rate); a CPU rank's "
                           "peak is that times its threads",
                        probe->peak_via_launcher ? "on a compute node (a 1-rank launch through "
                                                   "the launcher)"
                                                 : "on this host");
    *per_core = 1;
    return v;
}
