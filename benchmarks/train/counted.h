/* counted: the one place every kernel call of a network goes through.  Each call
 * adds its FLOPs (flops.h) and its elapsed time to a row (kernel, layer) of
 * the step's table.  In dry mode nothing runs and only FLOPs are added, which
 * is how --describe knows a step's executed FLOPs without allocating. */
#ifndef EXADL_TRAIN_COUNTED_H
#define EXADL_TRAIN_COUNTED_H

#include <stdint.h>

#include "benchmarks/train/kernels/kern.h"

typedef struct {
    char kernel[24];
    char layer[40];
    int64_t calls;
    int64_t flops;
    double time_s;
} ktab_row;

typedef struct {
    ktab_row *rows;
    int n, cap;        /* rows never move once created: timers hold pointers into them */
    /* the kernel set whose deferred timers point into rows (kern_ops.timer_start):
     * ktab_free makes it forget those still pending */
    const kern_ops *timer_ops;
    void *timer_ctx;
} ktab_t;

void ktab_init(ktab_t *t, int cap);
/* Frees the rows; a kernel set's timers still pending on them are dropped
 * (kern_ops.timer_discard), so that its next flush writes no freed memory. */
void ktab_free(ktab_t *t);
void ktab_reset(ktab_t *t);               /* keep rows, zero their counts */
ktab_row *ktab_row_for(ktab_t *t, const char *kernel, const char *layer);
int64_t ktab_total_flops(const ktab_t *t);
double ktab_total_time(const ktab_t *t);
/* Add the counts of src into dst (same rows by name). */
void ktab_accumulate(ktab_t *dst, const ktab_t *src);

typedef struct {
    const kern_ops *ops;
    void *ctx;
    ktab_t *tab;
    int dry;          /* count FLOPs only, run nothing */
    int timing;       /* time each kernel */
    /* NULL, or told the shapes of every call of the 2D kernels of counted.c
     * but the optimizers' and grad_check (also when dry): kernel is the row's
     * kernel name ("conv_fwd", "pool_bwd", "add", ...), x the input side (or
     * its gradient) and y the output side (or its gradient; x again for
     * bias and zero), k the convolution's (1 for the transposed ones, 2 for
     * pooling, else 0); kc_copy3d's boxes too, as kernel "copy3d" (whatever
     * row it names) with their d x h planes as rows, and kc_adam's n
     * parameters as a 1 x 1 x 1 x n view (x = y).  The plan model
     * (fcdensenet/fd_convtime.h) learns a step's kernels so. */
    void (*observe)(void *arg, const char *kernel, const tview *x, const tview *y, int k);
    void *observe_arg;
} kc_t;

void kc_conv_fwd(kc_t *kc, const char *layer, const tview *x, const void *w, int k, const tview *y);
void kc_conv_bwd_data(kc_t *kc, const char *layer, const tview *dy, const void *w, int k,
                      const tview *dx);
void kc_conv_bwd_weights(kc_t *kc, const char *layer, const tview *x, const tview *dy, int k,
                         void *dw);
void kc_tconv_fwd(kc_t *kc, const char *layer, const tview *x, const void *w, const tview *y);
void kc_tconv_bwd_data(kc_t *kc, const char *layer, const tview *dy, const void *w,
                       const tview *dx);
void kc_tconv_bwd_weights(kc_t *kc, const char *layer, const tview *x, const tview *dy, void *dw);
void kc_bias_fwd(kc_t *kc, const char *layer, const tview *y, const void *b);
void kc_bias_bwd(kc_t *kc, const char *layer, const tview *dy, void *db);
void kc_relu_fwd(kc_t *kc, const char *layer, const tview *x, const tview *y);
void kc_relu_bwd(kc_t *kc, const char *layer, const tview *x, const tview *dy, const tview *dx);
void kc_pool_fwd(kc_t *kc, const char *layer, const tview *x, const tview *y);
void kc_pool_bwd(kc_t *kc, const char *layer, const tview *dy, const tview *dx);
double kc_l1_fwd(kc_t *kc, const char *layer, const tview *y, const tview *t);
void kc_l1_bwd(kc_t *kc, const char *layer, const tview *y, const tview *t, const tview *dy);
void kc_adam(kc_t *kc, const char *layer, float *master, void *w_compute, const void *g, float *m,
             float *v, int64_t n, const adam_hyper *h);
void kc_lion(kc_t *kc, const char *layer, float *master, void *w_compute, const void *g, float *m,
             int64_t n, const lion_hyper *h);
void kc_lion_sign(kc_t *kc, const char *layer, float *m, const void *g, uint64_t *bits, int64_t n,
                  const lion_hyper *h);
void kc_lion_apply(kc_t *kc, const char *layer, float *master, void *w_compute,
                   const uint64_t *words, int p, int nranks, int64_t n, const lion_hyper *h);
void kc_copy(kc_t *kc, const char *layer, const tview *src, const tview *dst);
void kc_add(kc_t *kc, const char *layer, const tview *src, const tview *dst);
void kc_zero(kc_t *kc, const char *layer, const tview *dst);
/* 3D kernels (kern.h; formulas in flops.h) */
void kc_conv3d_fwd(kc_t *kc, const char *layer, const t3view *x, const void *w, int k,
                   const t3view *y);
void kc_conv3d_bwd_data(kc_t *kc, const char *layer, const t3view *dy, const void *w, int k,
                        const t3view *dx);
void kc_conv3d_bwd_weights(kc_t *kc, const char *layer, const t3view *x, const t3view *dy, int k,
                           void *dw);
void kc_pool3d_fwd(kc_t *kc, const char *layer, const t3view *x, const t3view *y);
void kc_pool3d_bwd(kc_t *kc, const char *layer, const t3view *x, const t3view *dy,
                   const t3view *dx);
void kc_lrelu_fwd(kc_t *kc, const char *layer, const t3view *x, const t3view *y, float slope);
void kc_lrelu_bwd(kc_t *kc, const char *layer, const t3view *y, const t3view *dy,
                  const t3view *dx, float slope);
void kc_bias3d_fwd(kc_t *kc, const char *layer, const t3view *y, const void *b);
void kc_bias3d_bwd(kc_t *kc, const char *layer, const t3view *dy, void *db);
void kc_dense_fwd(kc_t *kc, const char *layer, const void *x, const void *w, int n, int in,
                  int out, void *y);
void kc_dense_bwd_data(kc_t *kc, const char *layer, const void *dy, const void *w, int n, int in,
                       int out, void *dx);
void kc_dense_bwd_weights(kc_t *kc, const char *layer, const void *x, const void *dy, int n,
                          int in, int out, void *dw);
void kc_lc_fwd(kc_t *kc, const char *layer, const void *x, const void *w, int npos, int n, int in,
               int out, void *y);
void kc_lc_bwd_data(kc_t *kc, const char *layer, const void *dy, const void *w, int npos, int n,
                    int in, int out, void *dx);
void kc_lc_bwd_weights(kc_t *kc, const char *layer, const void *x, const void *dy, int npos, int n,
                       int in, int out, void *dw);
double kc_mse_fwd(kc_t *kc, const char *layer, const void *y, const void *t, int64_t count);
void kc_mse_bwd(kc_t *kc, const char *layer, const void *y, const void *t, int64_t count,
                void *dy);
/* A strided copy (0 FLOPs) under the given kernel name, so that halo
 * packing and gathers get rows of their own ("halo_pack", "gather"). */
void kc_copy3d(kc_t *kc, const char *kernel, const char *layer, const t3view *src,
               const t3view *dst);

/* Segmentation kernels (kern.h; formulas in flops.h).  Each stops with a
 * clear error when the kernel set lacks the kernel (the CUDA set today) or
 * when the views do not match the geometry. */
void kc_dconv_fwd(kc_t *kc, const char *layer, const tview *x, const void *w, const kern_dconv *g,
                  const tview *y);
void kc_dconv_bwd_data(kc_t *kc, const char *layer, const tview *dy, const void *w,
                       const kern_dconv *g, const tview *dx);
void kc_dconv_bwd_weights(kc_t *kc, const char *layer, const tview *x, const tview *dy,
                          const kern_dconv *g, void *dw);
void kc_bn_fwd(kc_t *kc, const char *layer, const tview *x, const void *gamma, const void *beta,
               float eps, float *mean, float *var, const tview *y);
void kc_bn_bwd(kc_t *kc, const char *layer, const tview *x, const tview *dy, const void *gamma,
               const float *mean, const float *var, float eps, const tview *dx, void *dgamma,
               void *dbeta);
double kc_wce_fwd(kc_t *kc, const char *layer, const tview *z, const int32_t *label,
                  const float *class_w);
void kc_wce_bwd(kc_t *kc, const char *layer, const tview *z, const int32_t *label,
                const float *class_w, const tview *dz);
/* kernel names the row (the same kernel serves the pooling, its backward,
 * the broadcast and its backward: "gpool_fwd", "bcast_bwd", ...) */
void kc_gpool(kc_t *kc, const char *kernel, const char *layer, const tview *x, const tview *y,
              float scale);
void kc_bcast(kc_t *kc, const char *kernel, const char *layer, const tview *x, const tview *y,
              float scale);

/* The kernel set's once-per-step gradient check (kern_ops.grad_check, where
 * it has one): 0 FLOPs, it tests bits (inf/NaN), it does no arithmetic. */
void kc_grad_check(kc_t *kc, const char *layer, const float *grads, int64_t n);

#endif
