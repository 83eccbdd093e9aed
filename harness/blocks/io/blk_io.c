/* Block io (blk_io.h): the `io` and `time_to_train` maps of a training
 * record (docs/record.md "io"). */
#define _GNU_SOURCE
#include "harness/blocks/io/blk_io.h"

#include <math.h>

static int read_io(const rd_t *c, const ytnode *root, record_t *rec)
{
    const ytnode *io, *q, *cv, *ck;
    if (rd_map(c, root, "io", &io) || rd_map(c, root, "time_to_train", &q) ||
        rd_map(c, root, "checkpoint", &ck))
        return -1;
    if (!io && !q && !ck) return 0;
    ioinfo_t *r = rd_alloc(c, sizeof *r);
    rec->blk[BLOCK_io] = r;
    if (io) {
        r->has_io = 1;
        if (rd_str(c, io, "source", "", &r->source) || rd_str(c, io, "encoding", "", &r->encoding) ||
            rd_str(c, io, "shuffle", "", &r->shuffle) ||
            rd_num(c, io, "prefetch", RD_COUNT, &r->prefetch) ||
            rd_num(c, io, "readahead", RD_COUNT, &r->readahead) ||
            rd_num(c, io, "bytes_read", RD_COUNT, &r->bytes_read) ||
            rd_num(c, io, "samples_read", RD_COUNT, &r->samples_read) ||
            rd_num(c, io, "read_s", RD_COUNT, &r->read_s) ||
            rd_num(c, io, "exposed_read_s", RD_COUNT, &r->exposed_read_s) ||
            rd_num(c, io, "steps", RD_COUNT, &r->steps) ||
            rd_num(c, io, "staging_s", RD_COUNT, &r->staging_s))
            return -1;
    }
    if (ck) {
        r->has_ckpt = 1;
        if (rd_num(c, ck, "writes", RD_COUNT, &r->ckpt_writes) ||
            rd_num(c, ck, "bytes_per_write", RD_COUNT, &r->ckpt_bytes) ||
            rd_num(c, ck, "write_GBps", RD_COUNT, &r->ckpt_GBps) ||
            rd_num(c, ck, "restored_step", RD_COUNT, &r->restored_step))
            return -1;
    }
    if (q) {
        r->has_ttt = 1;
        size_t n2 = 0, n3 = 0;
        if (rd_bool(c, q, "reached", 0, &r->reached) ||
            rd_num(c, q, "target_loss", RD_COUNT, &r->target_loss) ||
            rd_num(c, q, "steps", RD_COUNT, &r->ttt_steps) ||
            rd_num(c, q, "steps_to_target", RD_COUNT, &r->steps_to_target) ||
            rd_num(c, q, "samples_to_target", RD_COUNT, &r->samples_to_target) ||
            rd_num(c, q, "epochs_to_target", RD_ANY, &r->epochs_to_target) ||
            rd_num(c, q, "time_to_train_s", RD_COUNT, &r->time_to_train_s) ||
            rd_num(c, q, "init_s", RD_COUNT, &r->init_s) ||
            rd_num(c, q, "eval_s", RD_COUNT, &r->eval_s) || rd_map(c, q, "curve", &cv))
            return -1;
        if (cv && (rd_nums(c, cv, "step", RD_COUNT, &r->curve_step, &r->ncurve) ||
                   rd_nums(c, cv, "val_loss", RD_ANY, &r->curve_loss, &n2) ||
                   rd_nums(c, cv, "val_mae", RD_ANY, &r->curve_mae, &n3)))
            return -1;
        if (n2 != r->ncurve) return rd_err(c, cv, "curve: %zu steps, %zu losses", r->ncurve, n2);
        if (n3 && n3 != r->ncurve)
            return rd_err(c, cv, "curve: %zu steps, %zu val_mae values", r->ncurve, n3);
        if (!n3) r->curve_mae = NULL;
    }
    return 0;
}

/* per scale (docs/data.md) */
static const metric_info_t catalog[] = {
    {"io_read_GBps", "GB/s", 1, 1, "rank 0's bytes read from the data set / its time in reads"},
    {"io_exposed_read_s", "s", -1, 1, "per step: time the step waited for its batch (rank 0)"},
    {"time_to_train_s", "s", -1, 1, "run_start to the evaluation that reached the target"},
    {"time_to_train_staged_s", "s", -1, 1, "time to train plus the staging of the data set"},
    {"steps_to_target", "steps", -1, 1, "training steps until the validation loss reached the target"},
    {"epochs_to_target", "epochs", -1, 1, "passes over the train split until the target"},
    {"checkpoint_write_GBps", "GB/s", 1, 1, "checkpoint bytes all ranks wrote / the write's time"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_io = {.name = "io", .key = "io, time_to_train, checkpoint", .read = read_io,
                          .catalog = catalog, .derive = io_derive, .rows = io_rows,
                          .rows_at = BLOCK_ROWS_RUN, .section = "io"};
