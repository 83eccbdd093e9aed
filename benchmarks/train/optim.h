/* optim: the optimizer step of the training runtime, whatever the network:
 * Adam or Lion (docs/lioncub.md) on fp32 master weights over the network's
 * parameter slices (network.h), its moments (Adam: m and v; Lion: m) held
 * here in the kernel set's memory.  Each slice is one kernel call, so the
 * kernel table has one "adam" (or "lion", "lion_apply") row per slice (a
 * layer of the network).  With a compressed update exchange (lionx.h) Lion's
 * step is split: the sign and the momentum are computed per rank inside the
 * gradient engine, the agreed update is applied here.
 *
 * defines: optim_t, optim_create, optim_step, optim_bytes, optim_create_run,
 *          optim_bytes_run, optim_step_run, optim_moment, optim_slices, optim_state */
#ifndef EXADL_TRAIN_OPTIM_H
#define EXADL_TRAIN_OPTIM_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/lionx.h"
#include "benchmarks/train/network.h"
#include "benchmarks/train/runcfg.h"

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

/* The optimizer the run parameters name (optimizer adam | lion, with their
 * hyper-parameters); optim_create for Adam, only m for Lion. */
optim_t *optim_create_run(const runcfg_t *c, const network_t *net, const void *model, void *inst,
                          const kern_ops *ops, void *ctx, int dry, char *err, size_t errlen);
size_t optim_bytes_run(const runcfg_t *c, int64_t params);
/* One step of that optimizer (step: 1-based; grad_scale: on the reduced
 * gradients, 1/ranks).  Lion with exchange grad: the whole step per slice;
 * with an exchange x (1bit, pbit): its agreed update, then its momentum
 * sync. */
void optim_step_run(optim_t *o, kc_t *kc, int64_t step, double grad_scale, lionx_t *x);
/* Lion's hyper-parameters of the run (grad_scale 1, tie_seed 0). */
lion_hyper optim_lion_hyper(const optim_t *o);
/* The moments for a checkpoint (ckpt.h): m, and v (NULL for Lion), in the
 * kernel set's memory, of optim's parameter count (returned). */
int64_t optim_state(const optim_t *o, float **m, float **v);
/* The first moment (the exchange moves it), and the slices. */
float *optim_moment(const optim_t *o);
int optim_slices(const optim_t *o, const net_slice **slices);

#endif
