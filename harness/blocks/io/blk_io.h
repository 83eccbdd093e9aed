/* blk_io: a training's data set and its time to train (docs/record.md
 * "io", docs/data.md): the `io` map a program writes when it reads a data
 * set (cosmoflow --data files:DIR or grf: what rank 0 read, in how long,
 * what its steps waited), the runtime's `time_to_train` map (evaluations,
 * the target, the quality curve: validation loss and, where the network
 * reports it, the validation MAE) and its `checkpoint` map (writes, bytes,
 * write GB/s, the step restored from).
 * defines: ioinfo_t, rec_io */
#ifndef EXADL_HARNESS_BLK_IO_H
#define EXADL_HARNESS_BLK_IO_H

#include "harness/blocks/block.h"

typedef struct {
    int has_io;
    const char *source, *encoding, *shuffle; /* files | memory; raw | hdf5 | none */
    double prefetch, bytes_read, samples_read, read_s, exposed_read_s, steps;
    double readahead;                /* samples hinted ahead of each read (NaN: older record) */
    double staging_s;                /* --stage: the copy to node-local storage (0: none) */
    int has_ttt, reached;
    double target_loss, ttt_steps, steps_to_target, samples_to_target, epochs_to_target;
    double time_to_train_s, init_s, eval_s;
    double *curve_step, *curve_loss; /* the validation loss after each evaluation */
    size_t ncurve;
    double *curve_mae;               /* its validation MAE (val_mae), NULL: not reported */
    int has_ckpt;                    /* the runtime's `checkpoint` map */
    double ckpt_writes, ckpt_bytes, ckpt_GBps, restored_step;
} ioinfo_t;

/* NULL when the record has neither map */
static inline const ioinfo_t *rec_io(const record_t *r) { return r->blk[BLOCK_io]; }

/* its derived half (der_io.h) */
block_derive_fn io_derive;
block_rows_fn io_rows;

#endif
