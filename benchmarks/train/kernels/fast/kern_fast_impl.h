/* kern_fast_impl: what the files of the fast CPU kernel set share.
 *
 *   kern_fast.c        the table, the context, the element-wise kernels
 *   kern_fast_conv.c   k x k convolutions (k > 1) on oneDNN primitives
 *   kern_fast_gemm.c   1x1 convolutions and the 1x1 stride-2 transposed
 *                      convolution as GEMMs (dnnl_sgemm) on the views
 *
 * Everything runs on oneDNN (its JIT convolutions and its sgemm), so one
 * threading runtime (OpenMP, as Debian builds oneDNN) serves every kernel. */
#ifndef STEMDL_KERN_FAST_IMPL_H
#define STEMDL_KERN_FAST_IMPL_H

#include <stddef.h>

#include <oneapi/dnnl/dnnl.h>

#include "benchmarks/train/kernels/kern.h"

/* Stops with call, file and line when a oneDNN call fails. */
#define DNNL_CHECK(call)                                                           \
    do {                                                                           \
        dnnl_status_t st_ = (call);                                                \
        if (st_ != dnnl_success)                                                   \
            check_fail(#call, __FILE__, __LINE__, "oneDNN status %d", (int)st_);   \
    } while (0)

typedef struct kf_prim kf_prim; /* a cached convolution with its reorders */

typedef struct {
    int threads;          /* OpenMP threads for oneDNN; 0 = the runtime's default */
    dnnl_engine_t eng;
    dnnl_stream_t str;
    size_t ws_limit;      /* bound on the blocked activations of one band (bytes) */
    void *ws;             /* workspace: blocked tensors, scratchpad, temporaries */
    size_t ws_bytes;
    float *wtmp;          /* the flipped weights of a data gradient */
    size_t wtmp_n;
    kf_prim **cache;      /* primitives by shape, created once */
    int ncache, capcache;
} kf_ctx;

/* Bound on the blocked copies of the activations of one band (bytes); the
 * default is KF_WS_LIMIT.  Bands of a few MB run as fast as whole images or
 * faster (they stay in the caches; docs/stemdl-cpu-kernels.md).  Tests set a
 * small bound to exercise the sample chunks and row bands. */
#define KF_WS_LIMIT ((size_t)64 << 20)
void kern_fast_set_workspace_limit(void *ctx, size_t bytes);

/* Workspace of at least `bytes` (64-byte aligned); contents not kept. */
void *kf_workspace(kf_ctx *c, size_t bytes);
/* Sets the OpenMP thread count before a oneDNN call (no-op for 0). */
void kf_threads(const kf_ctx *c);

void kf_conv_fwd(void *ctx, const tview *x, const void *w, int k, const tview *y);
void kf_conv_bwd_data(void *ctx, const tview *dy, const void *w, int k, const tview *dx);
void kf_conv_bwd_weights(void *ctx, const tview *x, const tview *dy, int k, void *dw);
void kf_conv_cache_free(kf_ctx *c);

void kf_conv1_fwd(kf_ctx *c, const tview *x, const float *w, const tview *y);
void kf_conv1_bwd_data(kf_ctx *c, const tview *dy, const float *w, const tview *dx);
void kf_conv1_bwd_weights(kf_ctx *c, const tview *x, const tview *dy, float *dw);
void kf_tconv_fwd(void *ctx, const tview *x, const void *w, const tview *y);
void kf_tconv_bwd_data(void *ctx, const tview *dy, const void *w, const tview *dx);
void kf_tconv_bwd_weights(void *ctx, const tview *x, const tview *dy, void *dw);

#endif
