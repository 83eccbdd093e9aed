/* spatial_input: the spatial model's inputs (spatial.h) gathered from what a
 * run measured: the workload from a cosmoflow record of one rank holding
 * whole samples (its kernel table: each conv block's kernels, the dense
 * head, the optimizer; the rest of the median step as "other"), the link
 * constants from the run's allreduce sweep or a machine file, each with a
 * sentence saying where it came from (docs/cosmoflow.md "The model").
 *
 * defines: mspin_t, msp_work_from_record, msp_inputs_from_run */
#ifndef EXADL_HARNESS_SPATIAL_INPUT_H
#define EXADL_HARNESS_SPATIAL_INPUT_H

#include <stddef.h>

#include "harness/model/model_input.h"
#include "harness/model/spatial.h"

typedef struct {
    msw_t w;
    mnet_t net;
    int have_net;              /* 0: no sweep, no machine file: links cost 0 */
    const record_t *base;
    const char *base_bench;
    double base_step_s;        /* the base's median step */
    const char *work_source, *net_source;
} mspin_t;

/* The workload of one record (spatial block and kernel table) whose median
 * step is step_s.  0, or -1 with err. */
int msp_work_from_record(const record_t *r, double step_s, msw_t *w, char *err, size_t errlen);

/* From a run's outcomes: the base is the first one-rank cosmoflow record of
 * entry `bench` (NULL: any), else of any cosmoflow entry; mf may be NULL.
 * 0, or -1 with err when no base exists. */
int msp_inputs_from_run(arena_t *a, const outcome_t *o, size_t n, const char *bench,
                        const mfile_t *mf, mspin_t *in, char *err, size_t errlen);

#endif
