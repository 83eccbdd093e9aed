/* lionx: Lion's update exchange for data parallelism (docs/lioncub.md), the
 * modes 1bit and pbit of --exchange.  The ranks do not sum gradients: each
 * rank turns its own gradient into Lion's sign update with the kernel
 * lion_sign (which also moves its own momentum m), and the ranks agree on
 * one update through a compressed collective (benchmarks/common/mpi/signx.h):
 * the majority vote of the signs (1bit: 1 bit per weight on the wire) or
 * their sum in p = ceil(log2(ranks + 1)) bits (pbit), applied as the mean of
 * the signs.  Every rank then applies the same update to the same weights
 * (lion_apply), so the weights stay identical; the momenta differ (each is
 * its rank's own gradient history) unless synchronised (lionx_momentum_sync:
 * every K steps, or selectively every K steps the layers whose signs
 * disagreed with the agreed update more than threshold times the whole
 * network did over those K steps).
 *
 * The exchange is the gradient engine's exchange (gsync_set_exchange): each
 * group of tensors is exchanged as soon as backward has made it, fused up to
 * fusion_bytes like reductions, in the order every rank agrees on, on the
 * engine's thread.  Its kernels are counted in a table of its own
 * (lionx_take_rows moves them into the step's table after gsync_finish).
 *
 * defines: lionx_cfg, lionx_step, lionx_create, lionx_free, lionx_exchange,
 *          lionx_begin, lionx_apply, lionx_momentum_sync, lionx_last,
 *          lionx_take_rows, lionx_bits */
#ifndef EXADL_TRAIN_LIONX_H
#define EXADL_TRAIN_LIONX_H

#include <stdint.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/gsync/gsync.h"
#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/network.h"

enum { LX_SYNC_NONE = 0, LX_SYNC_EVERY = 1, LX_SYNC_SELECTIVE = 2 };

typedef struct {
    int pbit;              /* 0: majority vote in 1 bit; 1: sum of signs in p bits */
    int sync;              /* LX_SYNC_* */
    int sync_every;        /* K */
    double sync_threshold; /* selective: a layer is synced when its disagreement exceeds this
                              times the network's (largest of any rank, over K steps) */
    uint64_t seed;         /* the run's seed: tie words */
    int poll_us;           /* the engine's request polling (gsync_cfg.poll_us) */
    int timing;            /* time the exchange's kernels */
} lionx_cfg;

/* One step, this rank. */
typedef struct {
    double kernel_s;        /* in lion_sign */
    double collective_s;    /* in the compressed collectives */
    int64_t wire_bytes;     /* bytes this rank sent in them */
    int64_t sync_bytes;     /* bytes this rank sent to synchronise momenta */
    int synced;             /* layers whose momentum was synchronised */
    double disagreement;    /* weights whose agreed update does not move them the way the
                               local sign does (1bit: the vote differs; pbit: the mean is 0
                               or of the other sign), as a fraction (NaN: not measured: pbit
                               without selective sync) */
} lionx_step;

typedef struct lionx lionx_t;

/* An exchange over the tensors (backward order, inside the slices) of the
 * parameter array whose moment m (kernel-set memory, the host on the CPU
 * sets) it moves.  Collective over comm->world (it duplicates it). */
lionx_t *lionx_create(const lionx_cfg *cfg, comm_t *comm, const kern_ops *ops, void *ctx,
                      const gsync_tensor *tensors, int ntensors, const net_slice *slices,
                      int nslices, float *m);
void lionx_free(lionx_t *x);

/* The engine's exchange (gsync_set_exchange). */
gsync_exchange lionx_exchange(lionx_t *x);

/* Bits per weight on the wire: 1, or p of pbit. */
int lionx_bits(const lionx_t *x);

/* Before gsync_begin of step `step` (1-based): the hyper-parameters (their
 * grad_scale applies to this rank's own gradient) and the step's tie words. */
void lionx_begin(lionx_t *x, const lion_hyper *h, int64_t step);

/* After gsync_finish: the agreed update on every slice (lion_apply through
 * kc, one row per slice); master and compute as net_params. */
void lionx_apply(lionx_t *x, kc_t *kc, float *master, void *compute, size_t act_bytes);

/* After lionx_apply, on the main thread: synchronise momenta when the mode
 * says so at this step (the mean over the ranks, MPI_Allreduce).  Row
 * "momentum_sync" in kc's table (the division by the ranks: 1 FLOP per
 * weight synchronised). */
void lionx_momentum_sync(lionx_t *x, kc_t *kc, int64_t step);

/* The step just finished. */
const lionx_step *lionx_last(const lionx_t *x);

/* Add the exchange's kernel rows of the step (engine thread) to tab and
 * reset them; call after gsync_finish. */
void lionx_take_rows(lionx_t *x, ktab_t *tab);

#endif
