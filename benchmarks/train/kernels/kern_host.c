/* The memory members of the CPU kernel sets: plain host memory. */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/train/kernels/kern.h"

static void *host_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    /* 64-byte alignment keeps vector loads of every buffer aligned */
    size_t rounded = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, rounded ? rounded : 64);
    if (p) memset(p, 0, rounded);
    return p;
}

static void host_release(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static void host_copy(void *ctx, void *dst, const void *src, size_t bytes)
{
    (void)ctx;
    memcpy(dst, src, bytes);
}

static void host_put_f32(void *ctx, const tview *dst, const float *src)
{
    (void)ctx;
    size_t plane = (size_t)dst->c * dst->h * dst->w;
    for (int n = 0; n < dst->n; n++)
        memcpy((float *)dst->p + (size_t)n * dst->sstride, src + n * plane, plane * sizeof(float));
}

static void host_get_f32(void *ctx, const tview *src, float *dst)
{
    (void)ctx;
    size_t plane = (size_t)src->c * src->h * src->w;
    for (int n = 0; n < src->n; n++)
        memcpy(dst + n * plane, (const float *)src->p + (size_t)n * src->sstride, plane * sizeof(float));
}

static void host_cast_params(void *ctx, const float *master, void *w_compute, int64_t n)
{
    (void)ctx;
    if (w_compute && w_compute != master) memcpy(w_compute, master, (size_t)n * sizeof(float));
}

static void host_sync(void *ctx) { (void)ctx; }

void kern_host_fill(kern_ops *ops)
{
    ops->act_bytes = sizeof(float);
    ops->alloc = host_alloc;
    ops->release = host_release;
    ops->h2d = host_copy;
    ops->d2h = host_copy;
    ops->put_f32 = host_put_f32;
    ops->get_f32 = host_get_f32;
    ops->cast_params = host_cast_params;
    ops->sync = host_sync;
    ops->timer_start = NULL;
    ops->timer_stop = NULL;
    ops->timer_flush = NULL;
}
