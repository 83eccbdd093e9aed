/* mp_pair: the parts of modelpar's step beside the locally connected
 * layers (mp_net.c): the tensor-parallel dense pair after lc2 with its
 * allgathers and reduce-scatters over the model group (docs/modelparallel.md
 * "The tensor-parallel dense pair"), and the sparsity term on lc2's output.
 * Each does nothing where the configuration has none.
 *
 * defines: mp_pair_forward, mp_pair_backward, mp_sparsity_forward,
 *          mp_sparsity_backward */
#ifndef MODELPAR_MP_PAIR_H
#define MODELPAR_MP_PAIR_H

#include "benchmarks/modelpar/mp_net_impl.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/network.h"

/* The pair on the tile's lc2 output z ([tile][n][hidden2]) into n->U. */
void mp_pair_forward(mp_net *n, kc_t *kc, const float *z);
/* Its backward: du in, the gradient of its input into du; ready for tp2, tp1. */
void mp_pair_backward(mp_net *n, kc_t *kc, float *du, net_grad_ready_fn ready, void *user);
/* The sparsity term of the tile's code z (its part of the loss) and its
 * gradient added into dz. */
double mp_sparsity_forward(mp_net *n, kc_t *kc, float *z);
void mp_sparsity_backward(mp_net *n, kc_t *kc, float *z, float *dz);

#endif
