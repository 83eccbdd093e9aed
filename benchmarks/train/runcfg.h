/* runcfg: the run parameters of a training run (batch, steps, seed,
 * precision, kernel set, backend, optimizer, threads, timing, gradient
 * engine), whatever the network.  A workload's configuration holds a
 * runcfg_t and lists RUNCFG_TABLE among its key tables (keytab.h), so every
 * network gets these keys, their checks, --help lines and record entries.
 *
 * defines: runcfg_t, runcfg_keys, RUNCFG_TABLE, runcfg_default, runcfg_validate,
 *          runcfg_lr_at */
#ifndef EXADL_TRAIN_RUNCFG_H
#define EXADL_TRAIN_RUNCFG_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/train/gsync/gsync.h"
#include "benchmarks/train/keytab.h"

typedef struct {
    int batch;                 /* samples per rank per step */
    int steps, warmup;         /* timed steps; warm-up steps run before them */
    uint64_t seed;             /* weights and synthetic data */
    char precision[8];         /* fp32, bf16 (CPU, fast kernels); tf32, bf16, fp16 on CUDA */
    char kernels[16];          /* reference | fast */
    char backend[8];           /* cpu | cuda */
    double lr, beta1, beta2, eps; /* Adam (eps), Lion */
    /* Lion and its update exchange (docs/lioncub.md) */
    char optimizer[8];         /* adam | lion | sgd */
    double momentum;           /* SGD's momentum (Keras form: v = mu v - lr g; w += v) */
    /* the learning-rate schedule of any optimizer (runcfg_lr_at): a linear
     * warm-up from lr_warmup_start to lr over the first steps, then lr times
     * the factor of the last decay boundary passed (MLPerf HPC's form) */
    int lr_warmup_steps;       /* 0: none */
    double lr_warmup_start;
    char lr_decay[64];         /* none | STEP:FACTOR[,STEP:FACTOR]... (at most 8) */
    double weight_decay;       /* Lion's decoupled weight decay */
    char exchange[8];          /* grad | 1bit | pbit */
    char momentum_sync[12];    /* none | every | selective (1bit, pbit) */
    int momentum_sync_every;   /* K: every K steps (selective: checked every K steps) */
    double momentum_sync_threshold; /* selective: a layer's sign disagreement / the network's */
    int threads;               /* threads per rank for the fast path; 0 = cores / ranks */
    int kernel_timing;         /* per-kernel times (off: only the step is timed) */
    /* gradient reduction (gsync.h, docs/gsync.md) */
    char orchestration[16];    /* coordinator | bitvector */
    int cache_capacity;        /* response cache, tensors; 0: no cache */
    char grouping[16];         /* none | layer | N */
    int fusion_bytes;          /* largest fused reduction */
    double cycle_ms;           /* engine cycle time */
    double comm_timeout;       /* seconds before a stalled step fails */
    char engine[8];            /* auto | thread | inline: who runs the engine's cycles
                                  (gsync_pick.h: auto's rule) */
    /* many models at once (ensemble.h, docs/ensembles.md) */
    int trainers;              /* K trainers of ranks / K ranks each */
    int tournament_every;      /* E: LTFB round every E steps (0: none) */
} runcfg_t;

/* The keys of runcfg_t, in record order (NULL-ended). */
extern const kt_key runcfg_keys[];
/* The kt_table of a runcfg_t that is member MEMBER of the configuration TYPE. */
#define RUNCFG_TABLE(TYPE, MEMBER) {runcfg_keys, offsetof(TYPE, MEMBER)}

/* Defaults: batch 1, 10 steps after 2 warm-up, seed 42, fp32, fast kernels
 * on the CPU, Adam 1e-3/0.9/0.999/1e-8 (Lion: weight decay 0, exchange
 * grad, momentum sync none, every 10 steps, threshold 1), per-kernel timing, and the 2019
 * engine (bit vector, 1024-tensor cache, layer groups, 8 MiB fusion, 1 ms
 * cycles, 60 s timeout, engine auto). */
void runcfg_default(runcfg_t *r);

/* Checks of a runcfg_t filled in by code (keytab checks what is set by
 * key): batch and steps at least 1, the precision the backend runs, an
 * update exchange the optimizer and backend have, momentum sync only with a
 * compressed exchange.  0, or -1 with one line in err. */
int runcfg_validate(const runcfg_t *r, char *err, size_t errlen);

/* The learning rate of 1-based step `step` (MLPerf HPC CosmoFlow's
 * schedule, mlcommons/hpc cosmoflow/utils/optimizers.py, with steps for
 * epochs): with i = step - 1, i < lr_warmup_steps gives
 * lr_warmup_start + i (lr - lr_warmup_start) / lr_warmup_steps; after it, lr
 * times the factor of the last decay boundary STEP with step >= STEP (1
 * before the first). */
double runcfg_lr_at(const runcfg_t *r, int64_t step);

/* The gradient engine's settings (gsync.h) of a validated runcfg_t. */
void runcfg_gsync(const runcfg_t *r, gsync_cfg *g);

#endif
