/* model_input: the scaling model's inputs gathered from what a run measured
 * (stemdl records with their gradient_reduction block, a collectives allreduce
 * sweep, the orchestration benchmark), from a machine file, or from
 * `stemdl --describe` and a per-GPU FLOP rate; each with a sentence saying
 * where it came from.  docs/model.md "Inputs". */
#ifndef EXADL_HARNESS_MODEL_INPUT_H
#define EXADL_HARNESS_MODEL_INPUT_H

#include "harness/analysis/analysis.h"
#include "harness/model/model.h"
#include "harness/model/model_machine.h"

typedef struct {
    mwork_t w;
    const char *work_source;
    const char *base_bench;   /* run mode: the benchmark whose smallest scale is the base */
    int base_scale;
    int have_mode;            /* run mode: the base record's engine settings */
    mmode_t mode;
    mnet_t net;
    const char *net_source;
    double fit_rms_rel;       /* NaN unless fitted */
    size_t fit_rows;
    mneg_t neg;
    const char *neg_source;
    const char *calib_detail; /* --calibrate-from: model against run, one line per row */
    const char *jitter_source;   /* where jitter_cv comes from (NULL: the work source) */
    const char *request_source;  /* where coord_per_request_s comes from (NULL: none) */
    const mfile_t *machine;   /* NULL without --machine */
} minputs_t;

/* Records of a finished run folder (RUN/records/NAME-nR-rK.yaml) as outcomes:
 * bench = NAME, scale = R, rep = K, status ok when the record says ok.
 * Returns the count (0 with err when none could be read). */
size_t model_load_run(arena_t *a, const char *run, outcome_t **out, char *err, size_t errlen);

/* The workload from the run: the smallest scale of benchmark `base` (NULL:
 * the first stemdl benchmark with layer or no grouping, else any); step time =
 * median step - median exposed, pooled over its launches; each group's ready
 * time = median over timed steps.  0, or -1 with err. */
int model_work_from_run(arena_t *a, const outcome_t *o, size_t n, const char *base,
                        minputs_t *in, char *err, size_t errlen);

/* Network: the machine file (may be NULL), with its `fit: true` figures (all
 * of them without a file) replaced by the ring fit of the run's allreduce rows
 * (float32 sum, out of place, 2 ranks or more) when there are some.
 * Negotiation: the run's orchestration benchmark when there is one, else the
 * file's negotiation block, else the latencies.  0, or -1 with err when there
 * is neither a file nor a sweep. */
int model_net_from_run(arena_t *a, const outcome_t *o, size_t n, const mfile_t *mf,
                       minputs_t *in, char *err, size_t errlen);

/* The workload from `stemdl --describe` text: step time = batch x FLOPs per
 * sample / flops_per_s (convention: 3 x forward conv FLOPs, as the published
 * per-GPU rates count; else executed), spread over the layers in proportion to
 * the conv FLOPs they execute (forward F; backward 2F, F for the first layer,
 * whose data gradient is never computed); grad_bytes per weight.  0, or -1. */
int model_work_from_describe(arena_t *a, const char *text, const char *what, double flops_per_s,
                             int convention, int batch, double grad_bytes, minputs_t *in,
                             char *err, size_t errlen);

#endif
