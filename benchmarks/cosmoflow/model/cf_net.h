/* cf_net: a CosmoFlow model's buffers on a kernel set (an instance of
 * network.h) and its training step on this rank's sub-volume.
 *
 * Layout: every activation is channels-last and dense within a sample
 * (kern.h t3view).  The input of each conv block is kept with a halo of
 * kernel/2 voxels on every side (xp): the neighbours' voxels after the halo
 * exchange, zeros at the volume's edge, so that the convolutions are
 * "valid" ones on it.  Pooling writes the next block's input straight into
 * the interior of its padded buffer.  Backward keeps dy dense (for the
 * weight gradient) and copies it into a padded buffer (dyp) whose halo the
 * exchange fills for the data gradient.
 *
 * Step (cf_step.c): per block, exchange (cf_halo.h), conv, bias, leaky
 * ReLU, pool; the last block's features gathered into the dense head's
 * global input (cf_gather); dense 1, 2, 3 with biases and leaky ReLUs; MSE.
 * Backward in reverse; the dense head's weight gradients are made by the
 * group's spatial rank 0 only (the others hold the same numbers and put
 * zeros there), so that the sum over all ranks counts each group once.
 *
 * defines: cf_model, cf_net, cf_net_create, cf_net_free, cf_net_bytes,
 *          cf_net_bytes_needed, cf_net_init_params, cf_net_set_params,
 *          cf_net_get_params, cf_net_load, cf_net_forward, cf_net_backward */
#ifndef COSMOFLOW_CF_NET_H
#define COSMOFLOW_CF_NET_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/cosmoflow/model/cf_data.h"
#include "benchmarks/cosmoflow/model/cf_geom.h"
#include "benchmarks/cosmoflow/model/cf_halo.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/network.h"

/* The model network.h hands around: the layers, this rank's part, its
 * communicator and the sample file (NULL: synthetic).  Built by the
 * program (cosmoflow's main.c) or a test. */
typedef struct {
    cf_plan plan;
    cf_part part;
    cf_comm comm;         /* cart = MPI_COMM_NULL when the rank is alone with its samples */
    cf_data_file *file;
    struct shard_feed *feed; /* --data files:DIR or grf (cf_feed.h); NULL otherwise */
} cf_model;

typedef struct cf_net {
    const cf_model *m;
    const cf_plan *p;
    const cf_part *pt;
    const kern_ops *ops;
    void *ctx;
    int batch, dry, host;
    size_t esz, bytes;
    float *master, *grads;
    void *wc;                                      /* weights in the compute type */
    t3view xp[CF_MAX_BLOCKS], y[CF_MAX_BLOCKS];    /* padded inputs; conv outputs */
    t3view dy[CF_MAX_BLOCKS], dyp[CF_MAX_BLOCKS];  /* their gradients; dy padded (l >= 1) */
    t3view dx[CF_MAX_BLOCKS];                      /* gradient of block l's input (l >= 1) */
    t3view feat, dfeat;                            /* the last block's pooled output, local */
    t3view fin, dfin;                              /* the dense head's input, global */
    void *a1, *a2, *out, *da1, *da2, *dout, *tgt;  /* dense head */
    t3view in_stage;                               /* the loaded batch, dense */
    char *gather_host;                             /* cf_gather's room */
    void *gather_dev;
    cf_halo halo;
    int64_t halo_bytes, gather_bytes;              /* sent in the last step */
    float *mask1, *mask2;                          /* dropout masks (host), or NULL */
    int64_t fwd_count;                             /* forward passes: the masks' stream */
    void *allocs[8 * CF_MAX_BLOCKS + 32];
    int nallocs;
} cf_net;

/* The interior of a padded view (pad voxels on every side). */
static inline t3view cf_interior(const t3view *P, int pad, size_t esz)
{
    t3view v = *P;
    v.d -= 2 * pad, v.h -= 2 * pad, v.w -= 2 * pad;
    if (P->p) v.p = (char *)P->p + (pad * (P->sd + P->sh + P->sw)) * (int64_t)esz;
    return v;
}

/* NULL when a buffer cannot be allocated (err says which size). */
cf_net *cf_net_create(const cf_model *m, const kern_ops *ops, void *ctx, int batch, int dry,
                      char *err, size_t errlen);
void cf_net_free(cf_net *n);
size_t cf_net_bytes(const cf_net *n);
size_t cf_net_bytes_needed(const cf_model *m, const kern_ops *ops, int batch);

/* Keras' defaults: Glorot-uniform weights from the seed, zero biases. */
void cf_net_init_params(cf_net *n, uint64_t seed);
void cf_net_set_params(cf_net *n, const float *host);
void cf_net_get_params(const cf_net *n, float *host);
void cf_net_grads_to_host(const cf_net *n, float *host);

/* Copy a batch (cf_data layout) into the instance. */
void cf_net_load(cf_net *n, const float *input, const float *target);
/* The step (cf_step.c): the batch's mean loss (the same on every rank of a
 * group); backward reports each parameter layer to ready. */
double cf_net_forward(cf_net *n, kc_t *kc);
void cf_net_backward(cf_net *n, kc_t *kc, net_grad_ready_fn ready, void *user);

#endif
