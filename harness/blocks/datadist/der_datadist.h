/* der_datadist: the datadist block's derived numbers (docs/ensembles.md): one
 * row per entry, scale and strategy (the first record at the scale) with the
 * file's GB/s bounds and the time to the first batch over ranks.  Its rows:
 * datadist_file_GBps, datadist_first_batch_s (param strategy).  The report
 * section datadist (harness/report/sections/datadist.c) shows them.
 * defines: ddres_t, ddrun_t */
#ifndef EXADL_HARNESS_DER_DATADIST_H
#define EXADL_HARNESS_DER_DATADIST_H

#include "harness/blocks/datadist/blk_datadist.h"
#include "harness/blocks/derive.h"

typedef struct {
    const bres_t *b;
    int scale;
    const ddrow_t *d;
    double file_lo_GBps, file_hi_GBps;    /* the file's GB/s at the time's 95% CI */
    double first_med_s, first_max_s;      /* the first batch: median and max over ranks */
} ddres_t;

typedef struct {
    ddres_t *r;
    size_t n;
} ddrun_t;

#endif
