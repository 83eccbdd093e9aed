/* kern_ref_lion: the reference kernel set's Lion kernels (kern.h: lion,
 * lion_sign, lion_apply), plain loops whose every floating-point operation
 * is marked with FL(n) like kern_ref.c's (test_train_lion.c compiles this
 * file with KERN_REF_COUNT and checks flops.h against the count).
 * defines: kern_ref_lion_fill */
#ifndef EXADL_TRAIN_KERN_REF_LION_H
#define EXADL_TRAIN_KERN_REF_LION_H

#include "benchmarks/train/kernels/kern.h"

/* Set the Lion members of a reference table. */
void kern_ref_lion_fill(kern_ops *ops);

#endif
