/* der_io: the io block's derived numbers (docs/data.md): one row per entry
 * and scale whose first record read a data set or evaluated: read GB/s,
 * exposed read time per step, time to train, steps and epochs to the
 * target.  Its rows: io_read_GBps, io_exposed_read_s, time_to_train_s,
 * time_to_train_staged_s, steps_to_target, epochs_to_target,
 * checkpoint_write_GBps.  The report section io
 * (harness/report/sections/io.c) shows them and the quality curves.
 * defines: iores_t, iorun_t */
#ifndef EXADL_HARNESS_DER_IO_H
#define EXADL_HARNESS_DER_IO_H

#include "harness/blocks/derive.h"
#include "harness/blocks/io/blk_io.h"

typedef struct {
    const bres_t *b;
    int scale;
    const ioinfo_t *d;
    double read_GBps, exposed_per_step_s; /* NaN where the record has no io map */
} iores_t;

typedef struct {
    iores_t *r;
    size_t n;
} iorun_t;

#endif
