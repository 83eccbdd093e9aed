/* cf_make: `cosmoflow --make-data DIR`: a CosmoFlow data set as shards
 * (benchmarks/common/shard, docs/data.md): the GRF set (--data grf,
 * cf_grf.h) or the synthetic samples, train and val splits.
 *
 * defines: cf_make_data */
#ifndef COSMOFLOW_CF_MAKE_H
#define COSMOFLOW_CF_MAKE_H

#include "benchmarks/cosmoflow/cf_args.h"

/* Write the set a asks for; prints what it wrote.  The exit code: 0, 1
 * when writing failed, 2 for a bad request. */
int cf_make_data(const cf_args *a);

#endif
