/* peak: the per-device peak FLOP/s behind "fraction of peak".  In order: the
 * suite's device_peak_flops; a device_peak_flops a record carries; on CPU runs
 * the answer of the probe build/bin/peak_cpu that exadl run's probe stage
 * recorded in probe.yaml (harness/run/probe.h; nothing here measures): per
 * core, the larger of its all-cores rate per thread
 * ("peak_per_thread_flops_per_s", or "peak_flops_per_s" / "threads") and its
 * one-thread rate ("peak_1thread_flops_per_s"), since other jobs on the cores
 * pull the all-cores rate down; a CPU rank's peak is that times its threads;
 * else unknown (NaN).  CPU entries that ran precision bf16 divide by the
 * probe's bf16 peak (peak_find_bf16), by the same per-core rule.  A probe
 * repeated PEAK_PROBES times (harness/run/peakcache.h) gives the median over
 * its runs, refused (NaN, the source says why) when it ran while the machine
 * was busy or its CI is wider than PEAK_CI_BOUND of the median. */
#ifndef EXADL_HARNESS_PEAK_H
#define EXADL_HARNESS_PEAK_H

#include "benchmarks/common/stats.h"
#include "harness/analysis/analysis.h"
#include "harness/run/probe.h"

/* A repeated probe's peak is refused as a denominator when its 95% CI is
 * wider than this share of its median (docs/harness.md "The peak"). */
#define PEAK_CI_BOUND 0.10
/* The per-core peaks of the recorded probes (a repeated probe's outputs:,
 * else the one output:), summarised in st (median, 95% CI); their count. */
size_t peak_probes(const probe_t *p, stats_summary_t *st);
/* The CPU probe's question (the program in exadl's bin/ and its arguments). */
#define PEAK_PROBE_PROGRAM "peak_cpu"
extern char *const peak_probe_args[];
/* Whether peak_find needs the CPU probe's answer for these outcomes. */
int peak_wants_probe(double suite_peak, const outcome_t *o, size_t n);
/* The peak, with source saying where it came from; probe: the recorded
 * answers (NULL: none).  Starts no process. */
double peak_find(arena_t *a, double suite_peak, const outcome_t *o, size_t n,
                 const probe_t *probe, const char **source, int *per_core);
/* The probe's output parsed; NaN when it has no peak line. */
double peak_parse(const char *out);
/* The bf16 peak per core from the probe's bf16 lines (peak_bf16_per_thread_
 * and peak_bf16_1thread_flops_per_s, the larger); NaN where absent or not a
 * finite positive number. */
double peak_parse_bf16(const char *out);
/* The per-core bf16 peak that CPU entries which ran precision bf16 divide by:
 * only where peak_find took the probe's per-core answer (per_core); isa: the
 * probe's peak_bf16_isa; source: where it came from, or in one line why it is
 * absent (NaN: peak_cpu said none, an older probe.yaml, bad lines).  Starts
 * no process. */
double peak_find_bf16(arena_t *a, const probe_t *probe, int per_core, const char *fp32_source,
                      const char **isa, const char **source);

#endif
