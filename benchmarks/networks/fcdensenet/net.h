/* net: forward and backward of the FC-DenseNet of a plan, on any kernel set
 * (the optimizer step is the runtime's: benchmarks/train/optim.h).
 *
 * Buffers: every dense block owns one NCHW buffer [block input | new maps]
 * and a ReLU twin (the dense layers read ReLU'd inputs; each map is passed
 * through ReLU once, when it is made, instead of once per consuming layer),
 * plus gradients of both.  Parameters live in one flat fp32 array in forward
 * layer order (weights then bias per layer), so that any run of consecutive
 * layers is one contiguous slice: gradient groups need no packing. */
#ifndef EXADL_FCDENSENET_NET_H
#define EXADL_FCDENSENET_NET_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/network.h"

typedef struct net net_t;

/* Allocate the network for `batch` samples per step.  dry: allocate nothing
 * (pointers stay NULL) for FLOP counting with a dry kc_t.  Returns NULL and
 * says in err which buffer ("a buffer of 1.07 GB could not be allocated")
 * when memory runs out. */
net_t *net_create(const plan_t *p, const kern_ops *ops, void *ctx, int batch, int dry, char *err,
                  size_t errlen);
void net_free(net_t *n);

/* Bytes of device (or host) memory the network holds. */
size_t net_bytes(const net_t *n);
/* Bytes a network of this plan and batch would need (nothing allocated). */
size_t net_bytes_needed(const plan_t *p, const kern_ops *ops, int batch);

/* Deterministic initial weights: He normal for layers fed by a ReLU, LeCun
 * normal for the others, zero biases. */
void net_init_params(net_t *n, uint64_t seed);

/* Copy a batch (dense [batch][c][h][w] host floats) into the network's input
 * and target buffers, converted to the kernel set's element type. */
void net_load(net_t *n, const float *input, const float *target);
/* Forward pass; input and target as for net_load, or NULL for the batch
 * net_load put there; returns the mean L1 loss of this rank's batch. */
double net_forward(net_t *n, kc_t *kc, const float *input, const float *target);
/* Backward pass; ready (may be NULL) is called per layer in backward order. */
void net_backward(net_t *n, kc_t *kc, net_grad_ready_fn ready, void *user);

/* The fp32 master parameters (plan->params floats) copied to host. */
void net_get_params(const net_t *n, float *host);
/* Overwrite the parameters (and their compute copy) from host (all ranks
 * start from rank 0's). */
void net_set_params(net_t *n, const float *host);
/* The flat gradient array (device pointer). */
void *net_grads(const net_t *n);
/* The master weights, their compute copy and the gradients (device pointers). */
void net_param_arrays(const net_t *n, net_params *p);
/* The output of the last forward pass, to host (batch * c_out * h * w floats). */
void net_get_output(const net_t *n, float *host);

#endif
