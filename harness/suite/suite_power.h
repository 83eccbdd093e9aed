/* suite_power: the suite's `power:` block (docs/energy.md "Configuration"):
 * where a machine's power sources are, as every launch's environment
 * (EXADL_POWERCAP_ROOT, EXADL_NVML_LIB, EXADL_POWER_METER,
 * EXADL_POWER_METER_ACCURACY, EXADL_POWER_INTERVAL_S), which the suite's and
 * a benchmark's `env:` may override.
 * defines: suite_parse_power */
#ifndef EXADL_HARNESS_SUITE_POWER_H
#define EXADL_HARNESS_SUITE_POWER_H

#include "harness/suite/suite_values.h"

/* power: {powercap_root, nvml_lib, meter, meter_accuracy, interval_s}, each
 * optional: checked (positioned errors) and added to (*env, *nenv); paths
 * relative to the suite's folder. */
int suite_parse_power(ctx_t *c, const ytnode *n, kv_t **env, size_t *nenv, size_t *cap);

#endif
