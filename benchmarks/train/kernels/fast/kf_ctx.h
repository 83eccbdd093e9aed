/* kf_ctx: the context of the fast CPU kernel set, shared by its files:
 * oneDNN's engine and stream, the workspace, the thread count, DNNL_CHECK.
 *
 *   kf_ctx.c           the context: create/release of engine and stream,
 *                      workspace, threads (depends on nothing of the set)
 *   kf_dnnl.c          the oneDNN plumbing of both convolution files
 *                      (memories, reorders, primitive descriptors)
 *   kf_gemm.c          the set's GEMMs: dnnl_sgemm, or in bf16 mode a
 *                      cached oneDNN bf16 matmul (fp32 accumulation)
 *   kern_fast_gemm.c   1x1 convolutions and the 1x1 stride-2 transposed
 *                      convolution as GEMMs (kf_gemm) on the views
 *   kern_fast_conv.c   k x k convolutions (k > 1) on oneDNN primitives
 *   kern_fast_conv3d.c k x k x k convolutions on oneDNN primitives (channels-last)
 *   kern_fast_3d.c     the other 3D kernels (OpenMP loops, dense layers on kf_gemm)
 *   kern_fast_seg.c    dilated / grouped convolutions and batch norm on oneDNN
 *                      primitives (climate, docs/climate.md); kern_fast_segew.c
 *                      its loss and pooling loops
 *   kern_fast.c        the kern_ops table, the element-wise kernels, and
 *                      kern_fast_create/release (context + primitive cache)
 *
 * Dependencies run one way: kern_fast.c -> conv, gemm -> kf_gemm, kf_dnnl ->
 * kf_ctx.  Everything runs on oneDNN (its JIT convolutions, its sgemm, its
 * bf16 matmul), so one threading runtime (OpenMP, as Debian builds oneDNN)
 * serves every kernel.
 *
 * defines: kf_ctx, DNNL_CHECK, KF_WS_LIMIT, kf_workspace, kf_threads, kf_flip_weights */
#ifndef EXADL_TRAIN_KF_CTX_H
#define EXADL_TRAIN_KF_CTX_H

#include <stddef.h>

#include <oneapi/dnnl/dnnl.h>

/* Stops with call, file and line when a oneDNN call fails. */
#define DNNL_CHECK(call)                                                           \
    do {                                                                           \
        dnnl_status_t st_ = (call);                                                \
        if (st_ != dnnl_success)                                                   \
            check_fail(#call, __FILE__, __LINE__, "oneDNN status %d", (int)st_);   \
    } while (0)

/* Primitives by shape, created once (kf_dnnl.h: kf_dnnl_cache_find, _add):
 * the entries are the convolution files' own structs, each opening with its
 * int64_t key. */
typedef struct {
    void **e;
    int n, cap;
} kf_prim_cache;

typedef struct {
    int threads;          /* OpenMP threads for oneDNN; 0 = the runtime's default */
    dnnl_engine_t eng;
    dnnl_stream_t str;
    size_t ws_limit;      /* bound on the blocked activations of one band (bytes) */
    void *ws;             /* workspace: blocked tensors, scratchpad, temporaries */
    size_t ws_bytes;
    float *wtmp;          /* the flipped weights of a data gradient */
    size_t wtmp_n;
    kf_prim_cache cache;  /* the 2D convolutions' primitives (kern_fast_conv.c) */
    struct kf3_cache *cache3; /* the 3D convolutions' primitives (kern_fast_conv3d.c) */
    /* bf16 mode (--precision bf16, kern_fast_set_bf16): the convolutions and
     * GEMMs take bf16 inputs (rounded from the fp32 views at the kernel's
     * boundary) and accumulate in fp32 into fp32 outputs; 0: all fp32 */
    int bf16;
    kf_prim_cache gcache; /* the bf16 GEMMs' matmuls (kf_gemm.c) */
    void *gbuf;           /* their bf16 operand copies */
    size_t gbuf_bytes;
    struct kf_seg_cache *cache_seg; /* dilated convs, batch norms (kern_fast_seg.c) */
} kf_ctx;

/* Bound on the blocked copies of the activations of one band (bytes); the
 * default is KF_WS_LIMIT.  Bands of a few MB run as fast as whole images or
 * faster (they stay in the caches; docs/stemdl-cpu-kernels.md).  Tests set a
 * small bound to exercise the sample chunks and row bands. */
#define KF_WS_LIMIT ((size_t)64 << 20)
void kern_fast_set_workspace_limit(void *ctx, size_t bytes);

/* A context with oneDNN's CPU engine and a stream; threads 0 = the runtime's
 * default.  kf_ctx_release frees what kf_ctx_create made (the primitive
 * cache is kern_fast_conv.c's to free first). */
kf_ctx *kf_ctx_create(int threads);
void kf_ctx_release(kf_ctx *c);

/* Workspace of at least `bytes` (64-byte aligned); contents not kept. */
void *kf_workspace(kf_ctx *c, size_t bytes);
/* Sets the OpenMP thread count before a oneDNN call (no-op for 0). */
void kf_threads(const kf_ctx *c);
/* The weights w[co][ci][t] (taps t < taps) transposed and turned by 180
 * degrees, flip[ci][co][t] = w[co][ci][taps - 1 - t], in the context's
 * temporary buffer: a data gradient as a forward convolution of dy. */
float *kf_flip_weights(kf_ctx *c, const float *w, int co_n, int ci_n, int taps);

#endif
