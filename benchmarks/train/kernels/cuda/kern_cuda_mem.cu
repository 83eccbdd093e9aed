/* kern_cuda_mem.cu: device memory of the CUDA kernel set, counted for the
 * record, and the kern_ops members that allocate, transfer, copy and zero. */
#include <algorithm>

#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"

/* ---- device memory ------------------------------------------------------------ */

void *kcu_dev_alloc(Ctx *C, size_t bytes)
{
    void *p = NULL;
    if (bytes == 0) bytes = 256;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return NULL;
    }
    CK_CUDA(e);
    C->allocs[p] = bytes;
    C->alloc_cur += bytes;
    if (C->alloc_cur > C->alloc_peak) C->alloc_peak = C->alloc_cur;
    return p;
}

void kcu_dev_free(Ctx *C, void *p)
{
    if (!p) return;
    auto it = C->allocs.find(p);
    CHECK(it != C->allocs.end(), "freeing %p, which this context did not allocate", p);
    C->alloc_cur -= it->second;
    C->allocs.erase(it);
    CK_CUDA(cudaFree(p));
}

/* Grow *buf to at least bytes (contents are lost); fatal when memory is out. */
void kcu_ensure(Ctx *C, void **buf, size_t *have, size_t bytes, const char *what)
{
    if (bytes <= *have && *buf) return;
    CK_CUDA(cudaStreamSynchronize(C->s));
    kcu_dev_free(C, *buf);
    *buf = kcu_dev_alloc(C, bytes);
    CHECK(*buf != NULL, "out of device memory allocating %.3g GB for the %s", (double)bytes / 1e9,
          what);
    *have = bytes;
}

/* rows x width bytes, pitches apart: one 2D copy; one plain copy for a
 * single row; row by row where a pitch is beyond what cudaMemcpy2D takes. */
void kcu_copy_rows(Ctx *C, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                   size_t rows, cudaMemcpyKind kind)
{
    if (rows == 1) {
        CK_CUDA(cudaMemcpyAsync(dst, src, width, kind, C->s));
    } else if (dpitch <= C->max_pitch && spitch <= C->max_pitch) {
        CK_CUDA(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, kind, C->s));
    } else {
        for (size_t r = 0; r < rows; r++)
            CK_CUDA(cudaMemcpyAsync((char *)dst + r * dpitch, (const char *)src + r * spitch, width, kind, C->s));
    }
}

static void zero_rows(Ctx *C, void *dst, size_t pitch, size_t width, size_t rows)
{
    if (rows == 1) {
        CK_CUDA(cudaMemsetAsync(dst, 0, width, C->s));
    } else if (pitch <= C->max_pitch) {
        CK_CUDA(cudaMemset2DAsync(dst, pitch, 0, width, rows, C->s));
    } else {
        for (size_t r = 0; r < rows; r++) CK_CUDA(cudaMemsetAsync((char *)dst + r * pitch, 0, width, C->s));
    }
}

void kcu_op_copy(void *c, const tview *src, const tview *dst)
{
    Ctx *C = ctx_of(c);
    DV S = dv(src), D = dv(dst);
    CHECK(S.len == D.len && S.n == D.n, "copy: views differ");
    if (S.len == 0 || S.n == 0) return;
    kcu_copy_rows(C, D.p, (size_t)D.ss * C->esz, S.p, (size_t)S.ss * C->esz, (size_t)S.len * C->esz,
                  (size_t)S.n, cudaMemcpyDeviceToDevice);
}

void kcu_op_zero(void *c, const tview *dst)
{
    Ctx *C = ctx_of(c);
    DV D = dv(dst);
    if (D.len == 0 || D.n == 0) return;
    zero_rows(C, D.p, (size_t)D.ss * C->esz, (size_t)D.len * C->esz, (size_t)D.n);
}

/* ---- memory and transfers ------------------------------------------------------- */

void *kcu_op_alloc(void *c, size_t bytes)
{
    Ctx *C = ctx_of(c);
    void *p = kcu_dev_alloc(C, bytes);
    if (p) CK_CUDA(cudaMemsetAsync(p, 0, bytes ? bytes : 256, C->s));
    return p;
}

void kcu_op_release(void *c, void *p)
{
    Ctx *C = ctx_of(c);
    CK_CUDA(cudaStreamSynchronize(C->s));
    kcu_dev_free(C, p);
}

void kcu_op_h2d(void *c, void *dst, const void *src, size_t bytes)
{
    Ctx *C = ctx_of(c);
    CK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, C->s));
    CK_CUDA(cudaStreamSynchronize(C->s));
}

void kcu_op_d2h(void *c, void *dst, const void *src, size_t bytes)
{
    Ctx *C = ctx_of(c);
    CK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, C->s));
    CK_CUDA(cudaStreamSynchronize(C->s));
}

static const size_t kStageElems = (size_t)16 << 20; /* 64 MB of fp32 */

/* The fp32 staging buffer of put_f32 / get_f32 on 16-bit activations,
 * allocated on first use. */
static void stage_ensure(Ctx *C)
{
    if (C->stage) return;
    C->stage = (float *)kcu_dev_alloc(C, kStageElems * sizeof(float));
    CHECK(C->stage, "out of device memory for the %zu MB staging buffer", kStageElems * 4 >> 20);
    C->stage_elems = kStageElems;
}

void kcu_op_put_f32(void *c, const tview *dst, const float *src)
{
    Ctx *C = ctx_of(c);
    DV D = dv(dst);
    if (D.len == 0 || D.n == 0) return;
    if (C->elem == E_F32) {
        kcu_copy_rows(C, D.p, (size_t)D.ss * 4, src, (size_t)D.len * 4, (size_t)D.len * 4, (size_t)D.n,
                      cudaMemcpyHostToDevice);
    } else {
        stage_ensure(C);
        for (int s = 0; s < D.n; s++)
            for (int64_t off = 0; off < D.len; off += (int64_t)C->stage_elems) {
                int64_t k = std::min((int64_t)C->stage_elems, D.len - off);
                /* the copy waits for the previous conversion (same stream) */
                CK_CUDA(cudaMemcpyAsync(C->stage, src + (size_t)s * D.len + off, (size_t)k * 4,
                                        cudaMemcpyHostToDevice, C->s));
                char *d = D.p + ((size_t)s * D.ss + off) * C->esz;
                kcu_from_f32(C, C->stage, d, k);
            }
    }
    CK_CUDA(cudaStreamSynchronize(C->s));
}

void kcu_op_get_f32(void *c, const tview *src, float *dst)
{
    Ctx *C = ctx_of(c);
    DV S = dv(src);
    if (S.len == 0 || S.n == 0) return;
    if (C->elem == E_F32) {
        kcu_copy_rows(C, dst, (size_t)S.len * 4, S.p, (size_t)S.ss * 4, (size_t)S.len * 4, (size_t)S.n,
                      cudaMemcpyDeviceToHost);
    } else {
        stage_ensure(C);
        for (int s = 0; s < S.n; s++)
            for (int64_t off = 0; off < S.len; off += (int64_t)C->stage_elems) {
                int64_t k = std::min((int64_t)C->stage_elems, S.len - off);
                const char *p = S.p + ((size_t)s * S.ss + off) * C->esz;
                kcu_to_f32(C, p, C->stage, k);
                CK_CUDA(cudaMemcpyAsync(dst + (size_t)s * S.len + off, C->stage, (size_t)k * 4,
                                        cudaMemcpyDeviceToHost, C->s));
            }
    }
    CK_CUDA(cudaStreamSynchronize(C->s));
}

void kcu_op_cast_params(void *c, const float *master, void *w_compute, int64_t n)
{
    Ctx *C = ctx_of(c);
    if (!w_compute || w_compute == (const void *)master || n <= 0) return;
    kcu_from_f32(C, master, w_compute, n);
    CK_CUDA(cudaStreamSynchronize(C->s));
}
