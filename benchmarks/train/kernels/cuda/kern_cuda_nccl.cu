/* kern_cuda_nccl.cu: NCCL for the CUDA kernel set: the communicator and the
 * gradient transport of gsync.h. */
#include <algorithm>
#include <utility>

#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"

/* ---- NCCL ---------------------------------------------------------------------------------- */

extern "C" void kcu_nccl_unique_id(char id[KCU_NCCL_ID_BYTES])
{
    static_assert(sizeof(ncclUniqueId) == KCU_NCCL_ID_BYTES, "NCCL id size");
    ncclUniqueId u;
    CK_NCCL(ncclGetUniqueId(&u));
    memcpy(id, &u, sizeof u);
}

extern "C" void kcu_nccl_init(void *ctx, const char id[KCU_NCCL_ID_BYTES], int nranks, int rank)
{
    Ctx *C = ctx_of(ctx);
    ncclUniqueId u;
    memcpy(&u, id, sizeof u);
    CK_CUDA(cudaSetDevice(C->device));
    CK_NCCL(ncclCommInitRank(&C->nccl, nranks, u, rank));
    C->has_nccl = 1;
    /* the reductions get the higher priority: they are on the critical path at
     * the end of backward and take few multiprocessors */
    int lo = 0, hi = 0;
    CK_CUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CK_CUDA(cudaStreamCreateWithPriority(&C->cs, cudaStreamNonBlocking, hi));
}

extern "C" void kcu_gs_prepare(void *ctx, int nslots)
{
    Ctx *C = ctx_of(ctx);
    CHECK(C->has_nccl, "NCCL transport used before kcu_nccl_init");
    while ((int)C->gs_ev.size() < nslots) {
        cudaEvent_t e;
        CK_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        C->gs_ev.push_back(e);
    }
}

extern "C" void kcu_gs_mark(void *ctx, int slot)
{
    Ctx *C = ctx_of(ctx);
    CHECK(slot >= 0 && slot < (int)C->gs_ev.size(), "gradient slot %d of %zu", slot, C->gs_ev.size());
    CK_CUDA(cudaEventRecord(C->gs_ev[(size_t)slot], C->s));
}

extern "C" void kcu_gs_thread_init(void *ctx)
{
    CK_CUDA(cudaSetDevice(ctx_of(ctx)->device));
}

extern "C" void kcu_gs_allreduce(void *ctx, float *const *bufs, const int64_t *counts,
                                 const int *slots, int n)
{
    Ctx *C = ctx_of(ctx);
    /* as Horovod does: wait on the host until the gradients exist, so that the
     * reduction's start time (taken by gsync) is when it really starts */
    for (int i = 0; i < n; i++) CK_CUDA(cudaEventSynchronize(C->gs_ev[(size_t)slots[i]]));
    std::vector<std::pair<float *, int64_t>> sp((size_t)n);
    int64_t total = 0;
    for (int i = 0; i < n; i++) sp[(size_t)i] = {bufs[i], counts[i]}, total += counts[i];
    std::sort(sp.begin(), sp.end());
    bool contiguous = true;
    for (size_t i = 1; i < sp.size(); i++) contiguous &= sp[i - 1].first + sp[i - 1].second == sp[i].first;
    if (contiguous) {
        CK_NCCL(ncclAllReduce(sp[0].first, sp[0].first, (size_t)total, ncclFloat32, ncclSum, C->nccl, C->cs));
    } else {
        if ((size_t)total > C->gs_fusion_elems) {
            if (C->gs_fusion) CK_CUDA(cudaFree(C->gs_fusion));
            CK_CUDA(cudaMalloc(&C->gs_fusion, (size_t)total * sizeof(float)));
            C->gs_fusion_elems = (size_t)total;
        }
        int64_t off = 0;
        for (auto &x : sp) {
            CK_CUDA(cudaMemcpyAsync(C->gs_fusion + off, x.first, (size_t)x.second * sizeof(float),
                                    cudaMemcpyDeviceToDevice, C->cs));
            off += x.second;
        }
        CK_NCCL(ncclAllReduce(C->gs_fusion, C->gs_fusion, (size_t)total, ncclFloat32, ncclSum, C->nccl, C->cs));
        off = 0;
        for (auto &x : sp) {
            CK_CUDA(cudaMemcpyAsync(x.first, C->gs_fusion + off, (size_t)x.second * sizeof(float),
                                    cudaMemcpyDeviceToDevice, C->cs));
            off += x.second;
        }
    }
    CK_CUDA(cudaStreamSynchronize(C->cs));
}
