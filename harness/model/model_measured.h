/* model_measured: what a run measured that the scaling model carries to any
 * machine (`exadl model --from RUN`, docs/model.md "Measured inputs"): the
 * spread of per-rank compute times of its training records (the straggler
 * term, straggler.h) and the coordinator's cost per tensor request from its
 * orchestration benchmark.  Each comes with a sentence saying where from.
 * defines: model_straggler_from_run, model_request_cost_from_run */
#ifndef EXADL_HARNESS_MODEL_MEASURED_H
#define EXADL_HARNESS_MODEL_MEASURED_H

#include "harness/model/straggler.h"
#include "harness/run/outcome.h"
#include "harness/util/util.h"

/* Pooled straggler fit over the ok records (of benchmark bench, or all when
 * NULL) that hold per-rank compute times of 2 ranks or more.  0, or -1 when
 * there are none (*src then says so). */
int model_straggler_from_run(arena_t *a, const outcome_t *o, size_t n, const char *bench,
                             straggler_t *out, const char **src);

/* Rank 0's cost per request in coordinator mode: per grouping of the
 * orchestration benchmark at its largest rank count, (coordinator step - bit
 * vector step) / requests per step; the median over the rows.  It lumps rank
 * 0's per-message software cost into the request.  0, or -1 when the run has
 * no orchestration rows of both modes. */
int model_request_cost_from_run(arena_t *a, const outcome_t *o, size_t n, double *per_request_s,
                                const char **src);

#endif
