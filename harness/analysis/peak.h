/* peak: the per-device peak FLOP/s behind "fraction of peak".  In order: the
 * suite's device_peak_flops; a device_peak_flops a record carries; on CPU runs
 * the answer of the probe build/bin/peak_cpu that exadl run's probe stage
 * recorded in probe.yaml (harness/run/probe.h; nothing here measures): per
 * core, the larger of its all-cores rate per thread
 * ("peak_per_thread_flops_per_s", or "peak_flops_per_s" / "threads") and its
 * one-thread rate ("peak_1thread_flops_per_s"), since other jobs on the cores
 * pull the all-cores rate down; a CPU rank's peak is that times its threads;
 * else unknown (NaN). */
#ifndef EXADL_HARNESS_PEAK_H
#define EXADL_HARNESS_PEAK_H

#include "harness/analysis/analysis.h"
#include "harness/run/probe.h"

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

#endif
