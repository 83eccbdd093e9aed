/* mp_net_impl: the instance's struct, shared by mp_net.c (the layers and
 * the step) and mp_pair.c (the dense pair and the sparsity term) only.
 *
 * defines: mp_net */
#ifndef MODELPAR_MP_NET_IMPL_H
#define MODELPAR_MP_NET_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/modelpar/mp_model.h"
#include "benchmarks/train/kernels/kern.h"

typedef struct mp_net {
    const mp_model *m;
    const kern_ops *ops; void *ctx;
    int n, dry;               /* batch; a dry instance allocates nothing */
    size_t bytes;             /* what it allocates (or would) */
    /* weights and gradients of the shard; per layer its input with halo,
     * that input's gradient (dA[0] unused) and its output, position-major */
    float *master, *grads, *A[MP_LAYERS], *dA[MP_LAYERS], *Z[MP_LAYERS];
    float *target, *dZ, *patch, *dpatch, *send, *recv;
    /* the dense pair: its input and output over the group's positions, its
     * hidden units and their gradient, the tile's share of its output */
    float *X, *Yp, *H, *dH, *U;
    /* the sparsity term: zeros (its target), the sign and its scaled copy,
     * and lambda x tile as a 1 x 1 dense weight (the scale) */
    float *zeros, *sg, *sg2, *lam;
    double halo_s, tp_s;      /* this step's exchange times, bytes and messages */
    int64_t halo_bytes, halo_msgs, tp_bytes;
} mp_net;

#endif
