/* un_train: the 3D U-Net trained on one rank or a split along D, with the
 * reference loops of un_host.h or a kernel set of the training runtime
 * (un_kern.h; ops of un_net_create): every layer's buffers, forward (conv +
 * BN + ReLU, pooling, the transposed convolutions writing into the first channels of each level's
 * concatenation buffer, whose other channels are the encoder's skip output
 * itself, so the concatenation copies nothing), softmax cross-entropy per
 * voxel, backward, SGD with momentum 0.9.
 *
 * Synthetic data with a learnable signal: sample g of step t has voxels
 * uniform in [-1, 1] from (seed, t, g), and each voxel's class is the bin
 * of its first channel's value (classes equal bins over [-1, 1]).
 *
 * defines: un_net, un_net_bytes, un_net_create, un_net_free, un_net_step,
 *          un_net_grad, un_net_params, un_net_grads, un_net_ktab,
 *          un_net_halo_bytes */
#ifndef COSMOFLOW_UN_TRAIN_H
#define COSMOFLOW_UN_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "benchmarks/cosmoflow/model/un_host.h"
#include "benchmarks/cosmoflow/model/un_plan.h"
#include "benchmarks/train/counted.h"

typedef struct un_net un_net;

/* Bytes the buffers of a batch take (parameters, activations, gradients)
 * on each of S ranks splitting D, on the host loops (ops NULL) or a kernel
 * set. */
int64_t un_net_bytes(const un_plan *p, int S, const kern_ops *ops);
/* The network of this rank among the ranks of comm, which split each
 * sample along D into equal parts (MPI_COMM_NULL: alone, whole samples);
 * NULL when a buffer cannot be allocated.  Split, each 3^3 convolution's
 * input gets a halo plane from each neighbour (and its data gradient sends
 * them back), batch norm's statistics and the loss are summed over the
 * ranks, and so are the gradients; pooling, the 2^3 stride-2 transposed
 * convolutions (no overlap between inputs: no halo) and the
 * concatenations (both sides split alike) are local. */
un_net *un_net_create(const un_plan *p, MPI_Comm comm, const kern_ops *ops, void *ctx);
void un_net_free(un_net *n);
/* One training step on the batch of step t: its mean loss; *flops gets the
 * FLOPs its loops executed (un_host.h's counts). */
double un_net_step(un_net *n, int64_t t, int64_t *flops);
/* The step without the update: loss, and the gradients of the parameters
 * (un_net_grads, the layout of un_plan's offsets) for the batch of step t. */
double un_net_grad(un_net *n, int64_t t, int64_t *flops);
float *un_net_params(un_net *n);
const float *un_net_grads(const un_net *n);
/* The kernel table of every step so far (NULL on the host loops). */
const ktab_t *un_net_ktab(const un_net *n);
/* Halo bytes this rank sent in the last step (kernel sets). */
int64_t un_net_halo_bytes(const un_net *n);

#endif
