/* optim: the optimizer step of the training runtime, whatever the network:
 * Adam on fp32 master weights over the network's parameter slices
 * (network.h), its moments m and v held here in the kernel set's memory.
 * Each slice is one kc_adam call, so the kernel table has one "adam" row per
 * slice (a layer of the network).
 *
 * defines: optim_t, optim_create, optim_step, optim_bytes */
#ifndef TRAIN_OPTIM_H
#define TRAIN_OPTIM_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/network.h"

typedef struct optim optim_t;

/* Bytes of optimizer state for `params` parameters (m and v, fp32). */
size_t optim_bytes(int64_t params);

/* The optimizer of an instance of net (its parameter arrays and the model's
 * slices), moments zero.  dry: nothing allocated (FLOP counting).  NULL when
 * memory runs out, with the size that failed in err. */
optim_t *optim_create(const network_t *net, const void *model, void *inst, const kern_ops *ops,
                      void *ctx, int dry, char *err, size_t errlen);
void optim_free(optim_t *o);

/* One step on the (reduced) gradients: the kernel set's gradient check
 * where it has one (fp16 loss scaling may skip the step), then Adam on
 * every slice in order; h->step is the 1-based step number. */
void optim_step(optim_t *o, kc_t *kc, const adam_hyper *h);

#endif
