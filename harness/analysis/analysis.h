/* analysis: launch outcomes and their records turned into the numbers of
 * docs/harness.md "Metric names": per scale the median step time with its 95% CI (timed
 * steps of all repetitions pooled; per-launch medians kept), throughput,
 * weak or strong scaling efficiency against the smallest scale, sustained and
 * peak FLOP/s (total and per device), the fraction of the device peak, the
 * time per kernel kind; for collectives algbw, busbw and latency per size. */
#ifndef EXADL_HARNESS_ANALYSIS_H
#define EXADL_HARNESS_ANALYSIS_H

#include "benchmarks/common/stats.h"
#include "harness/blocks/recread.h"
#include "harness/run/outcome.h"
#include "harness/suite/suite.h"

typedef struct {
    const char *kind;
    double calls, flops, time_s; /* per step, rank 0 */
} kkind_t;

typedef struct {
    int scale;                  /* ranks */
    int gpus, devices;          /* devices: GPUs, or ranks on CPU backends */
    int nlaunch, nok;
    double *samples;            /* pooled timed step times */
    size_t n;
    stats_summary_t st;
    double *launch_median;      /* one per ok launch */
    size_t nlm;
    double samples_per_step;
    double thr, thr_lo, thr_hi; /* samples/s; CI from the step-time CI */
    double eff, eff_lo, eff_hi;
    double exec_per_step, conv_per_step;
    double sustained, peak, conv_sustained, conv_peak; /* FLOP/s, all devices */
    double frac_peak;           /* sustained per device / device peak; NaN unknown */
    kkind_t *kinds;
    size_t nkinds;
    const record_t *rec;        /* first ok record at this scale */
} sres_t;

typedef struct {
    int scale;
    const char *op, *dtype, *redop;
    int inplace;
    double bytes, count;
    size_t n;                   /* pooled samples (or launch medians) */
    stats_summary_t st;
    double factor;              /* busbw / algbw: the record's busbw_factor */
    double algbw, busbw, busbw_lo, busbw_hi, latency_us, lat_lo, lat_hi;
    long long wrong;
} cres_t;

typedef struct {
    const char *name, *program, *kind; /* kind: the records' benchmark field */
    scaling_kind scaling;
    int nlaunch, nfailed;
    sres_t *s;
    size_t ns;
    cres_t *c;
    size_t nc;
    kv_t *params;               /* scalar config of the first ok record (+ backend...) */
    size_t nparams;
    double fwd_conv_per_sample, conv_per_sample, exec_per_sample, conv_weights, parameters;
    const char *precision;      /* the first ok record's precision (NULL: none) */
    int cpu_bf16;               /* its records ran precision bf16 on CPU ranks */
} bres_t;

/* The bf16 peak per core that CPU entries which ran precision bf16 divide by
 * (harness/analysis/peak.h peak_find_bf16). */
typedef struct {
    double per_core;            /* NaN: absent (source says why) */
    const char *isa, *source;
} bf16_peak_t;

typedef struct {
    bres_t *b;
    size_t nb;
    double device_peak;         /* FLOP/s per device (per core when peak_per_core); NaN unknown */
    int peak_per_core;          /* CPU ranks: scale by the record's threads_per_rank */
    const char *peak_source;
    bf16_peak_t bf16;           /* for entries with cpu_bf16 (per_core.. NaN unless peak_per_core) */
    int any_cpu_bf16;           /* some entry has cpu_bf16 */
    const record_t *first_ok;   /* the successful launch with the most ranks (the first of
                                   those): its system block describes the machine */
} analysis_t;

/* Measured and simulated points apart (docs/simulate.md "In the report"): the
 * simulated ok launches of a benchmark that also has measured ok launches
 * become the benchmark "NAME (simulated)" (o[i].bench), so that the analysis,
 * the metrics and the report never pool the two.  Returns how many moved. */
size_t analysis_split_simulated(arena_t *a, outcome_t *o, size_t n);

void analysis_run(arena_t *a, const outcome_t *o, size_t n, double device_peak,
                  const char *peak_source, analysis_t *out);
/* The same, for a peak measured per CPU core: a CPU rank's peak is that times
 * the threads it ran (the record's threads_per_rank, else 1); entries whose
 * CPU records ran precision bf16 divide by bf16->per_core instead (NULL or
 * NaN: their fraction of peak is absent). */
void analysis_run_core_peak(arena_t *a, const outcome_t *o, size_t n, double core_peak,
                            const char *peak_source, const bf16_peak_t *bf16, analysis_t *out);

#endif
