/* model_calib: `exadl model --calibrate-from RUN`: the orchestration model's
 * latency scale fitted to a run's orchestration benchmark (simulated or
 * measured), docs/model.md "Orchestration".
 * defines: model_calibrate_from_run */
#ifndef EXADL_HARNESS_MODEL_CALIB_H
#define EXADL_HARNESS_MODEL_CALIB_H

#include "harness/model/model.h"
#include "harness/run/outcome.h"
#include "harness/util/util.h"

/* Every ok orchestration row at 2 ranks or more (a bit-vector row only when
 * its timed steps sent no request, so that it is the allreduce alone): the
 * model's cycle from the collectives (model_orch.h, latencies as in net) x
 * against the row's per-cycle time y.  lat_scale = the s minimising
 * sum ((s x - y) / y)^2, i.e. sum(x/y) / sum((x/y)^2); neg becomes the
 * algorithm model (from_latency) with that scale; *detail gets one line per
 * row (the model at that scale against the run).  0, or -1 with *src saying
 * why (no usable row). */
int model_calibrate_from_run(arena_t *a, const outcome_t *o, size_t n, const mnet_t *net,
                             mneg_t *neg, const char **src, const char **detail);

#endif
