/* cl_net: forward and backward of a cl_plan on any kernel set that has the
 * segmentation kernels (the reference, fast and CUDA sets; the CUDA set's
 * have never run on a GPU: docs/climate.md "CUDA").
 *
 * Buffers: one activation array per tensor of the plan (windows share
 * their parent's); gradient arrays shared by tensors whose gradients are
 * not live at the same time in backward.  A gradient that several
 * operations send (a tensor read by several, or a ReLU's input: relu_bwd
 * adds) is zeroed when its first sender runs and each sender adds into it,
 * through a scratch buffer where its kernel overwrites.  Batch norm uses
 * the statistics of this rank's batch (kern.h's bn_*), or with --bn sync
 * those of its group of ranks (cl_bnsync.h, host loops: CPU sets only).  Parameters: one flat fp32 array in forward layer order
 * (cl_plan.h).  Split over an H x W grid (--spatial HxW, cl_split.h: the
 * plan's group), every map holds this rank's tile (the image pool's 1x1 maps
 * whole), the halo convolutions run on padded tiles (cl_split_pass.c) and
 * batch norm must be synchronised over (at least) the group.
 *
 * defines: cl_net, cl_net_create, cl_net_free, cl_net_bytes, cl_net_bytes_needed,
 *   cl_net_init_params, cl_net_load, cl_net_forward, cl_net_backward,
 *   cl_net_get_params, cl_net_set_params, cl_net_param_arrays */
#ifndef CLIMATE_CL_NET_H
#define CLIMATE_CL_NET_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/networks/deepcam/cl_plan.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/network.h"

typedef struct cl_net cl_net;

/* NULL with the size of the buffer that could not be allocated in err. */
cl_net *cl_net_create(const cl_plan *p, const kern_ops *ops, void *ctx, int batch, int dry,
                      char *err, size_t errlen);
void cl_net_free(cl_net *n);
size_t cl_net_bytes(const cl_net *n);
size_t cl_net_bytes_needed(const cl_plan *p, const kern_ops *ops, int batch);
/* He normal convolution weights, batch norm and affine gamma 1, beta 0,
 * biases 0, from the seed. */
void cl_net_init_params(cl_net *n, uint64_t seed);
/* input [batch][channels][h][w], target [batch][h][w] class ids as floats */
void cl_net_load(cl_net *n, const float *input, const float *target);
double cl_net_forward(cl_net *n, kc_t *kc);
void cl_net_backward(cl_net *n, kc_t *kc, net_grad_ready_fn ready, void *user);
void cl_net_get_params(const cl_net *n, float *host);
void cl_net_set_params(cl_net *n, const float *host);
void cl_net_param_arrays(const cl_net *n, net_params *p);

#endif
