/* kern_hyper: the optimizer hyper-parameters (kern.h: adam_hyper,
 * lion_hyper) in the float form that every kernel set's update loop uses,
 * computed in one place so that the sets cannot drift apart (the fast set
 * is tested bit for bit against the reference on Adam and Lion).
 *
 * defines: kern_lion_f32, kern_hyper_lion, kern_adam_f32, kern_hyper_adam */
#ifndef EXADL_TRAIN_KERN_HYPER_H
#define EXADL_TRAIN_KERN_HYPER_H

#include <math.h>
#include <stdint.h>

#include "benchmarks/train/kernels/kern.h"

/* Lion's numbers in float: interpolation b1, momentum decay b2, gradient
 * scale gs, learning rate lr, decoupled weight decay wd */
typedef struct {
    float b1, b2, gs, lr, wd;
} kern_lion_f32;

static inline kern_lion_f32 kern_hyper_lion(const lion_hyper *h)
{
    kern_lion_f32 f;
    f.b1 = (float)h->beta1;
    f.b2 = (float)h->beta2;
    f.gs = (float)h->grad_scale;
    f.lr = (float)h->lr;
    f.wd = (float)h->weight_decay;
    return f;
}

/* Adam's numbers in float at 1-based step `step`: the step size lr_t and
 * epsilon eps_t with the bias corrections folded into them (the form
 * PyTorch computes), b1, b2, and the gradient scale gs. */
typedef struct {
    float lr_t, eps_t, b1, b2, gs;
} kern_adam_f32;

static inline kern_adam_f32 kern_hyper_adam(const adam_hyper *h, int64_t step)
{
    double bc1 = 1.0 - pow(h->beta1, (double)step);
    double bc2 = 1.0 - pow(h->beta2, (double)step);
    kern_adam_f32 f;
    f.lr_t = (float)(h->lr * sqrt(bc2) / bc1);
    f.eps_t = (float)(h->eps * sqrt(bc2));
    f.b1 = (float)h->beta1;
    f.b2 = (float)h->beta2;
    f.gs = (float)h->grad_scale;
    return f;
}

#endif
