/* metrics: the flat table of every derived number of a run, one row per
 * (benchmark, scale, metric[, collective row]); what results.yaml lists and
 * what `exadl check`, `compare` and `history` work on; each record block
 * adds its rows (harness/blocks/derive.h).  The catalogue of metric names
 * (the blocks' rows) is what reference files may use. */
#ifndef EXADL_HARNESS_METRICS_H
#define EXADL_HARNESS_METRICS_H

#include "harness/analysis/analysis.h"
#include "harness/blocks/block.h"

/* NULL-terminated catalogue (name == NULL ends it): the rows of every record
 * block (harness/blocks/<name>/), in the order of blocks.def. */
const metric_info_t *metric_catalog(void);
const metric_info_t *metric_info(const char *name);
/* NULL-terminated list of the names, for suggestions. */
const char *const *metric_names(void);

typedef struct {
    const char *bench, *program, *kind; /* suite entry, program, record's benchmark */
    int scale;                          /* 0: not per scale */
    const char *metric;
    double value, lo, hi;               /* lo/hi: 95% CI, NaN when none */
    double n;                           /* samples behind it (NaN: n/a) */
    const char *unit;
    int better;
    kv_t *params;                       /* config of the run + op, bytes, ... */
    size_t nparams;
    const double *launch;               /* the value per ok launch where known (the
                                           variation across launches), else NULL */
    size_t nlaunch;
} metric_t;

typedef struct mtable { /* the tag: block.h names it without this header */
    metric_t *m;
    size_t n, cap;
} mtable_t;

void mtable_add(arena_t *a, mtable_t *t, const metric_t *m);
/* A parameter of a row ("op", "preset", ...); NULL when absent. */
const char *metric_param(const metric_t *m, const char *key);
/* "stemdl n=2" / "collectives n=2 allreduce 1048576 B" */
char *metric_label(arena_t *a, const metric_t *m);

#endif
