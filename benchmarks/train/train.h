/* train: the timed training loop of the runtime, for any network (network.h),
 * and the checks that it trained the same model on every rank.
 *
 * A step: generate and load the batch (timed apart, as data preparation),
 * barrier, forward, backward with the gradient engine reducing each layer's
 * gradients as soon as they are made (gsync.h), wait for the last reduction,
 * the optimizer step (optim.h), device sync.  Times and losses are the max
 * and the mean over ranks; the kernel table sums the timed steps.
 *
 * defines: train_job, train_result, train_run, train_dry_flops, train_table_rows */
#ifndef EXADL_TRAIN_TRAIN_H
#define EXADL_TRAIN_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/train/backend.h"
#include "benchmarks/train/ckpt.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/ensemble.h"
#include "benchmarks/train/gsync/gsync.h"
#include "benchmarks/train/network.h"
#include "benchmarks/train/runcfg.h"
#include "benchmarks/train/tpower.h"
#include "benchmarks/train/ttt.h"

#define TRAIN_MAX_CHECKS 8

typedef struct {
    char check[48];
    char outcome[8]; /* pass | fail | skipped */
    char detail[256];
    int decides;     /* a failure makes the run invalid */
} train_check;

/* The optimizer's update exchange per timed step (docs/lioncub.md). */
typedef struct {
    int bits;                /* on the wire per weight: 32 (exchange grad: fp32 sums), 1, or p */
    int64_t *wire_bytes;     /* bytes each rank sends in the exchange, rank 0 */
    int64_t *sync_bytes;     /* bytes each rank sends to synchronise momenta, rank 0 */
    int *synced;             /* layers whose momentum was synchronised */
    double *kernel_s;        /* engine time in lion_sign, max over ranks */
    double *collective_s;    /* engine time in the compressed collectives, max over ranks */
    double *disagreement;    /* local signs against the agreed update, max over ranks (NaN: not
                                measured) */
} train_update;

typedef struct {
    int steps, warmup;
    double *step_s, *warm_s; /* per step, max over ranks */
    int nranks;              /* columns of the per-rank tables */
    double *rank_step_s;     /* rank 0: [timed step][rank] each rank's own step time */
    double *rank_compute_s;  /* rank 0: [timed step][rank] its forward + backward time */
    double *data_s;          /* data generation before each timed step, max over ranks */
    double *comm_s;          /* engine time in reductions per timed step, max over ranks */
    /* gradient reduction (gsync.h), per timed step */
    double *exposed_s;       /* communication not hidden behind backward, max over ranks */
    double *negotiation_s;   /* engine time in orchestration cycles, max over ranks */
    double *backward_end_s;  /* last gradient reported, from the step's start, rank 0 */
    int *cycles;             /* engine cycles, rank 0 */
    int ngroups, ntensors;
    double *timeline;        /* rank 0: [step][group][ready, start, end], seconds from step start */
    int *group_reductions;   /* rank 0, last timed step: fused reductions per group */
    char (*group_label)[48];
    int64_t *group_bytes;
    gsync_tensor *tensors;   /* ntensors, backward order */
    int *tensor_group;
    gsync_cfg gcfg;
    int engine;              /* gsync_engine_kind that ran (gsync_pick.h) */
    char engine_reason[256]; /* why, one line (rank 0's facts) */
    double *loss, *warm_loss; /* global mean loss per step */
    train_update up;         /* the optimizer's exchange (compressed modes: lionx.h) */
    ktab_t kernels;          /* rank 0, summed over the timed steps */
    int64_t flops_rank_step; /* executed FLOPs of one step on one rank (rank 0) */
    int64_t flops_step;      /* executed FLOPs of one step summed over all ranks */
    size_t bytes;            /* memory of the network and optimizer state on rank 0 */
    train_check checks[TRAIN_MAX_CHECKS];
    int nchecks;
    int invalid;             /* a deciding check failed */
    ens_result ens;          /* trainers > 1: every trainer, world rank 0 (ensemble.h) */
    tpower_t power;          /* the timed steps' energy, every node's on world rank 0 (tpower.h) */
    double holdout_loss;     /* train_job.holdout: loss on the held-out batch; NaN: not asked */
    ttt_result ttt;          /* evaluations and time to train (ttt.h); .enabled 0: none */
    ckpt_result ckpt;        /* checkpoints written and restored (ckpt.h) */
} train_result;

/* One training run: a model of a network, the run parameters, where it runs. */
typedef struct {
    const network_t *net;
    const void *model;
    const runcfg_t *run;
    backend_t *backend;
    comm_t *comm;
    int quiet;                /* no progress lines */
    const char *dump_weights; /* write each rank's final fp32 weights to PATH.<rank> */
    /* 1: after the last step, the mean loss over the ranks of the final
     * weights on a held-out batch (samples of a seed of their own, which
     * training never draws; the same batch for every model of the same data
     * shapes and seed) into train_result.holdout_loss (search, docs/search.md) */
    int holdout;
    const ttt_cfg *quality;   /* evaluations, a target, MLLOG lines (ttt.h); NULL: none */
    const ckpt_cfg *ckpt;     /* checkpoints every N steps, a restore (ckpt.h); NULL: none */
} train_job;

/* The facts of a network's model, zeroed first (members a network leaves
 * alone read 0), and the ranks that share each sample (>= 1). */
void train_facts(const network_t *net, const void *model, net_facts *f);
int train_replica_ranks(const net_facts *f);
/* Rows a kernel table needs for one step of the network (every kernel of
 * every layer, the optimizer's and the gradient reduction's): what the
 * runtime sizes its own tables with, for callers that run a step themselves. */
int train_table_rows(const network_t *net, const void *model);

/* Executed FLOPs of one step (forward, backward, optimizer) on one rank,
 * counted by a dry step: nothing is allocated or run.  table, when not NULL,
 * receives the step's rows (ktab_free it). */
int64_t train_dry_flops(const network_t *net, const void *model, int batch, ktab_t *table);

/* Run warm-up and timed steps.  0, or -1 with err (out of memory, a dump
 * that cannot be written). */
int train_run(const train_job *j, train_result *r, char *err, size_t errlen);
void train_result_free(train_result *r);

#endif
