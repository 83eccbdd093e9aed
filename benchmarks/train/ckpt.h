/* ckpt: sharded checkpoints of a training (docs/data.md "Checkpoints"):
 * every N steps each rank writes its weights and optimizer moments to
 * DIR/step-NNNNNNNN/rank-RRRRR.bin (under a temporary name, renamed when
 * complete; a 64-byte header, the fp32 weights, m, v, then the CRC-32 of
 * all before it) and rank 0 then writes the folder's manifest.yaml (ranks,
 * step, bytes), last; the write is timed between barriers (its bandwidth:
 * the bytes all ranks wrote / that time).  A run started with --restore
 * DIR/step-NNNNNNNN reads its rank's file (refusing a missing manifest, a
 * rank count that differs, a truncated or corrupt file, naming it) and
 * continues from that step: with the same data and configuration it ends
 * with the weights of the run that never stopped.
 *
 * Before a run builds anything, ckpt_check tells a checkpoint of another
 * rank count or another network (parameter count: another preset or
 * configuration) from the one the run needs, so that the program refuses
 * it as bad input (exit 2) in one line.
 *
 * defines: ckpt_cfg, ckpt_result, ckpt_check, ckpt_write, ckpt_restore,
 *          ckpt_write_record, ckpt_free */
#ifndef EXADL_TRAIN_CKPT_H
#define EXADL_TRAIN_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/train/network.h"
#include "benchmarks/train/optim.h"

typedef struct {
    int every;            /* write every N steps; 0: never */
    const char *dir;      /* where (created) */
    const char *restore;  /* a step folder to start from, or NULL */
} ckpt_cfg;

typedef struct {
    int writes, cap;
    int *step;
    double *write_s;       /* per write, between barriers */
    int64_t bytes;         /* all ranks, per write */
    int restored_step;     /* 0: not restored */
    double restore_s;
    int64_t restore_bytes; /* all ranks */
} ckpt_result;

/* After step `step` (1-based count of steps done): every rank writes its
 * shard, rank 0 the manifest; sample_flops (net_facts.fwd_conv_flops) goes
 * into the header, for ckpt_check.  Collective.  0, or -1 with err (any
 * rank's failure fails all). */
int ckpt_write(const ckpt_cfg *c, const comm_t *comm, const network_t *net, void *inst,
               optim_t *opt, const kern_ops *ops, void *ctx, int step, int64_t sample_flops,
               ckpt_result *r, char *err, size_t errlen);
/* c->restore fits this run: its manifest is there and this rank's file is a
 * checkpoint of this rank of comm->size ranks with `params` parameters and
 * sample_flops forward FLOPs per sample (header only; a header's 0 is not
 * compared); *step: the steps it had done.  Collective.  0, or -1 with err
 * naming the folder or file and what differs (any rank's failure fails all). */
int ckpt_check(const ckpt_cfg *c, const comm_t *comm, int64_t params, int64_t sample_flops,
               int *step, char *err, size_t errlen);
/* Read c->restore into the instance and the optimizer; *step is the steps
 * it had done.  Collective.  0, or -1 with err. */
int ckpt_restore(const ckpt_cfg *c, const comm_t *comm, const network_t *net, void *inst,
                 optim_t *opt, const kern_ops *ops, void *ctx, int *step, ckpt_result *r,
                 char *err, size_t errlen);
void ckpt_write_record(const ckpt_cfg *c, const ckpt_result *r, rec_t *w);
void ckpt_free(ckpt_result *r);

#endif
