/* validate: the whole-configuration check of the FC-DenseNet.  Apart from
 * config.c because it needs the plan (the weight and FLOP counts of the
 * layers must fit 64 bits), and the plan needs the configuration: config
 * <- plan <- validate, one direction only.
 *
 * defines: cfg_validate */
#ifndef EXADL_FCDENSENET_VALIDATE_H
#define EXADL_FCDENSENET_VALIDATE_H

#include <stddef.h>

#include "benchmarks/networks/fcdensenet/config.h"

/* Whole-configuration checks (sizes positive, lists agree, image divisible by
 * 2^levels, kernels odd, ..., and runcfg_validate), then the counts of the
 * plan and of every step against 64 bits.  0, or -1 with one line in err. */
int cfg_validate(const cfg_t *c, char *err, size_t errlen);

#endif
