/* network: what the training runtime needs from a network, so that a new
 * network (a workload's model) plugs into the same loop (train.h), FLOP
 * counting, gradient engine (gsync.h), optimizer (optim.h) and record
 * (trec.h) without copying them.
 *
 * A network_t is a table of functions over two objects of the network's own
 * types, which the runtime passes through untouched:
 *   model     the network of one configuration, built by the workload before
 *             the run (stemdl: its plan_t): layers, shapes, the layout of the
 *             flat parameter array; no buffers.
 *   instance  a model's buffers for a batch on a kernel set (create/release);
 *             a dry instance allocates nothing and is only for FLOP counting.
 *
 * Contract the runtime relies on:
 *   - parameters are one flat fp32 array (the master weights) of facts.params
 *     floats; the gradients have the same layout; the instance may keep a copy
 *     of the weights in the kernel set's compute type (net_params.compute);
 *   - every kernel call of forward and backward goes through counted.h with
 *     the kc_t it is given (that is how FLOPs and times are counted);
 *   - backward calls ready(user, layer, ...) once per parameter layer, as soon
 *     as that layer's gradients are complete, layer ids 0..facts.layers-1;
 *   - tensors() lists every gradient tensor in the order backward completes
 *     them (the engine's order), each inside one layer's slice;
 *   - the optimizer (optim.h) updates each slice() in turn, one kernel-table
 *     row per slice, after the gradients are reduced;
 *   - data are generated on the fly: sample g of step t depends only on
 *     (seed, t, g), so R ranks of batch b see the samples one rank of batch
 *     R*b sees;
 *   - spatial parallelism (facts.replica_ranks = S > 1): ranks S*g ..
 *     S*g + S-1 form group g, which trains on the samples of group g (the
 *     runtime passes first_sample = g * batch to every rank of the group);
 *     each rank computes its part of every gradient, parts that add up to
 *     the group's gradient, so the runtime sums over all ranks and divides by
 *     the number of groups.
 *   - model parallelism (facts.sharded, with replica_ranks = M > 1): the M
 *     ranks of a group each hold their own shard of the weights (their
 *     parameter arrays differ); each shard's gradient is complete on its rank
 *     and is summed over the ranks holding the same shard (rank % M), divided
 *     by the number of groups (benchmarks/modelpar, docs/modelparallel.md).
 *
 * defines: network_t, net_facts, net_slice, net_params, net_grad_ready_fn */
#ifndef EXADL_TRAIN_NETWORK_H
#define EXADL_TRAIN_NETWORK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "benchmarks/common/record/record.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/gsync/gsync.h"
#include "benchmarks/train/kernels/kern.h"

/* Called during backward as soon as the gradient of a layer is complete
 * (weights and bias), so that its reduction can start while backward goes on. */
typedef void (*net_grad_ready_fn)(void *user, int layer, void *grad, int64_t count);

/* What the runtime and the record need to know of a model. */
typedef struct {
    int layers;               /* parameter layers (ready ids, kernel-table size) */
    int64_t params;           /* floats of the flat parameter array */
    int64_t fwd_conv_flops;   /* per sample: forward convolution FLOPs (docs/stemdl.md) */
    int64_t convention_flops; /* per sample: the published convention (3 x forward conv) */
    int replica_ranks;        /* ranks sharing each sample (spatial parallelism); 0 or 1:
                                 none.  The runtime zeroes net_facts before facts() */
    int sharded;              /* model parallelism: the replica_ranks ranks of a group each
                                 hold a different shard of the parameters (params is this
                                 rank's); first weights, gradient sums and the identity check
                                 then run among the ranks r, r + R, r + 2R, ... only */
    int64_t train_samples;    /* a data set's train split (epochs); 0: samples made on the fly */
    int64_t eval_samples;     /* its validation split (generate_eval); 0: none */
    int bn_group_ranks;       /* ranks whose batch-norm statistics each batch norm combines
                                 (MLPerf DeepCAM's batchnorm_group_size); 0: no batch norm */
} net_facts;

/* A run of the parameter array updated as one (the optimizer's unit). */
typedef struct {
    const char *name;         /* the kernel table's layer column; lives as long as the model */
    int64_t off, count;       /* floats from the start of the parameter array */
} net_slice;

/* An instance's parameter arrays (kernel-set memory; NULL when dry). */
typedef struct {
    float *master;            /* fp32 master weights */
    void *compute;            /* the weights in the compute type; == master where that is fp32 */
    float *grads;             /* fp32 gradients, same layout */
} net_params;

typedef struct network {
    const char *name;         /* "FC-DenseNet" */
    const char *oom_hint;     /* what to shrink when memory runs out: "try a smaller --batch, ..." */

    /* ---- the model --------------------------------------------------- */
    void (*facts)(const void *model, net_facts *f);
    /* Parameter slices in update order; the count; *out malloc'ed. */
    int (*slices)(const void *model, net_slice **out);
    /* Gradient tensors in backward order; the count; *out malloc'ed. */
    int (*tensors)(const void *model, gsync_tensor **out);
    /* The layer table and totals (--describe); executed_per_step from a dry step. */
    void (*describe)(const void *model, FILE *f, int64_t executed_per_step, int batch);
    /* The network's own block of the record (a key and its value). */
    void (*write_record)(const void *model, rec_t *w);
    /* Floats of a batch's input and target (host, dense). */
    void (*batch_floats)(const void *model, int batch, size_t *input, size_t *target);
    /* The samples first_sample .. first_sample + batch - 1 of step `step`. */
    void (*generate)(const void *model, uint64_t seed, int64_t step, int64_t first_sample,
                     int batch, float *input, float *target);
    /* Validation samples first_sample .. + batch - 1 (mod facts.eval_samples); may be
     * NULL where eval_samples is 0 (ttt.h). */
    void (*generate_eval)(const void *model, int64_t first_sample, int batch, float *input,
                          float *target);

    /* ---- an instance --------------------------------------------------- */
    /* NULL when a buffer cannot be allocated (err says which size). */
    void *(*create)(const void *model, const kern_ops *ops, void *ctx, int batch, int dry,
                    char *err, size_t errlen);
    void (*release)(void *inst);
    size_t (*bytes)(const void *inst);                  /* memory it holds */
    size_t (*bytes_needed)(const void *model, const kern_ops *ops, int batch);
    /* Deterministic initial weights of a seed. */
    void (*init_params)(void *inst, uint64_t seed);
    void (*get_params)(const void *inst, float *host); /* fp32 master weights to host */
    void (*set_params)(void *inst, const float *host); /* and the compute copy */
    void (*params)(const void *inst, net_params *p);
    /* Copy a batch into the instance (converted to the compute type). */
    void (*load)(void *inst, const float *input, const float *target);
    /* Forward pass on the loaded batch: the mean loss of this rank's batch. */
    double (*forward)(void *inst, kc_t *kc);
    /* Optional (NULL: the network has no such measure): the mean absolute
     * error of the last forward's output against the loaded target, over
     * the batch's samples and outputs; the validation reads it after each
     * forward (CosmoFlow's MLPerf eval_error, docs/data.md), no second pass. */
    double (*forward_mae)(void *inst);
    /* Backward pass; ready (may be NULL) per layer in backward order. */
    void (*backward)(void *inst, kc_t *kc, net_grad_ready_fn ready, void *user);
} network_t;

#endif
