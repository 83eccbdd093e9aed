/* kern_fast_lion: the fast CPU set's Lion kernels (kern.h: lion, lion_sign,
 * lion_apply): the reference's arithmetic in the same order per element
 * (bit-identical results), with the signs packed 4 at a time by SSE compare
 * masks where the compiler offers SSE2 (signpack.h: sp_sign_word).
 * defines: kern_fast_lion_fill */
#ifndef EXADL_TRAIN_KERN_FAST_LION_H
#define EXADL_TRAIN_KERN_FAST_LION_H

#include "benchmarks/train/kernels/kern.h"

/* Set the Lion members of the fast table. */
void kern_fast_lion_fill(kern_ops *ops);

#endif
