/* mp_net: an instance of a model (mp_model.h): the buffers of a batch on
 * a CPU kernel set, the forward and backward passes with the halo exchange between the tiles of
 * a model group (docs/modelpar.md "The partition").
 *
 * Every FLOP goes through the counted kernels (benchmarks/train/counted.h):
 * a position's layer is a dense product of its gathered receptive field
 * (the GEMM kernel, one call per position: a batched GEMM), its bias, the
 * leaky ReLU over the tile; the loss is the sum over positions of the
 * per-position mean squared error, so that a tile's gradient is exactly
 * its part of the whole image's.
 *
 * defines: mp_net and its functions */
#ifndef MODELPAR_MP_NET_H
#define MODELPAR_MP_NET_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/modelpar/mp_model.h"
#include "benchmarks/train/counted.h"

typedef struct mp_net mp_net;

mp_net *mp_net_create(const mp_model *m, const kern_ops *ops, void *ctx, int batch, int dry,
                      char *err, size_t errlen);
void mp_net_free(mp_net *n);
size_t mp_net_bytes(const mp_net *n);
void mp_net_init_params(mp_net *n, uint64_t seed);
void mp_net_get_params(const mp_net *n, float *host);
void mp_net_set_params(mp_net *n, const float *host);
float *mp_net_master(const mp_net *n);
float *mp_net_grads(const mp_net *n);
/* input: the whole image, batch x size x size x channels (channels last) */
void mp_net_load(mp_net *n, const float *input);
double mp_net_forward(mp_net *n, kc_t *kc);
void mp_net_backward(mp_net *n, kc_t *kc, void (*ready)(void *, int, void *, int64_t), void *user);

#endif
