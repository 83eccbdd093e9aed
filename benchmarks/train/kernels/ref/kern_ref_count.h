/* kern_ref_count: FL(n), the mark on every floating-point operation of the
 * reference kernel set (kern_ref.c, kern_ref_3d.c, kern_ref_lion.c).  Built
 * normally it does nothing; a test that compiles one of those files with
 * KERN_REF_COUNT defined (test_train_flops.c, test_cosmo_flops.c,
 * test_train_lion.c) gets each loop counting its own operations into
 * kern_ref_flops, which it checks against the formulas of flops.h.
 *
 * defines: FL */
#ifndef EXADL_TRAIN_KERN_REF_COUNT_H
#define EXADL_TRAIN_KERN_REF_COUNT_H

#include <stdint.h>

#ifdef KERN_REF_COUNT
extern int64_t kern_ref_flops;
#define FL(n) (kern_ref_flops += (n))
#else
#define FL(n) ((void)0)
#endif

#endif
