/* mp_net: an instance of a model (mp_model.h): the buffers of a batch on
 * a CPU kernel set, the forward and backward passes with the halo exchange between the tiles of
 * a model group (docs/modelparallel.md "The partition").
 *
 * Every FLOP goes through the counted kernels (benchmarks/train/counted.h):
 * a position's layer is a dense product of its gathered receptive field
 * (the GEMM kernel, one call per position: a batched GEMM), its bias, the
 * leaky ReLU over the tile; the loss is the sum over positions of the
 * per-position mean squared error, so that a tile's gradient is exactly
 * its part of the whole image's.
 *
 * defines: the mp_net_* functions of modelpar_network */
#ifndef MODELPAR_MP_NET_H
#define MODELPAR_MP_NET_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/modelpar/mp_model.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/network.h"

/* The instance half of modelpar_network (benchmarks/train/network.h), in
 * its signatures: inst is an mp_net, model an mp_model. */
void *mp_net_create(const void *model, const kern_ops *ops, void *ctx, int batch, int dry,
                    char *err, size_t errlen);
void mp_net_free(void *inst);
size_t mp_net_bytes(const void *inst);
size_t mp_net_bytes_needed(const void *model, const kern_ops *ops, int batch);
void mp_net_init_params(void *inst, uint64_t seed);
void mp_net_get_params(const void *inst, float *host);
void mp_net_set_params(void *inst, const float *host);
void mp_net_params(const void *inst, net_params *p);
/* input: the whole image, batch x size x size x channels (channels last);
 * the target is the input */
void mp_net_load(void *inst, const float *input, const float *target);
double mp_net_forward(void *inst, kc_t *kc);
void mp_net_backward(void *inst, kc_t *kc, net_grad_ready_fn ready, void *user);

#endif
