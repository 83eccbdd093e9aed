/* counted_impl: the one macro every kc_* wrapper of counted.h is written
 * with, shared by counted.c (the table and the 2D kernels), counted_3d.c (the
 * 3D kernels) and counted_seg.c (the segmentation kernels); private to those
 * three files.  The kernels are split by family so that each file stays
 * small; the macro is here so that all of them count and time a call the
 * same way.
 *
 * defines: COUNTED */
#ifndef EXADL_TRAIN_COUNTED_IMPL_H
#define EXADL_TRAIN_COUNTED_IMPL_H

#include "benchmarks/common/timer.h"
#include "benchmarks/train/counted.h"

/* Every kernel call: count, then (unless dry) run it between two clock reads. */
#define COUNTED(KERNEL, LAYER, FLOPS, CALL)                                 \
    do {                                                                    \
        ktab_row *row_ = ktab_row_for(kc->tab, (KERNEL), (LAYER));          \
        row_->calls++;                                                      \
        row_->flops += (FLOPS);                                             \
        if (kc->dry) break;                                                 \
        if (!kc->timing) {                                                  \
            CALL;                                                           \
        } else if (kc->ops->timer_start) {                                  \
            kc->tab->timer_ops = kc->ops;                                   \
            kc->tab->timer_ctx = kc->ctx;                                   \
            void *tok_ = kc->ops->timer_start(kc->ctx);                     \
            CALL;                                                           \
            kc->ops->timer_stop(kc->ctx, tok_, &row_->time_s);              \
        } else {                                                            \
            double t0_ = timer_now_s();                                     \
            CALL;                                                           \
            row_->time_s += timer_now_s() - t0_;                            \
        }                                                                   \
    } while (0)

#endif
