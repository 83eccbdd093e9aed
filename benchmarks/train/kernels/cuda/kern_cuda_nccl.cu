/* kern_cuda_nccl.cu: NCCL for the CUDA kernel set: the communicator and the
 * gradient transport of gsync.h. */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
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

/* ---- gsync's transport ------------------------------------------------------------------- */

extern "C" void kcu_gs_prepare(void *ctx, int nslots, int64_t fusion_elems)
{
    Ctx *C = ctx_of(ctx);
    /* the fusion buffer, at its largest once: a cudaMalloc (and the
     * cudaStreamSynchronize a larger one needed) inside a step would be
     * counted in the step and stall the reductions queued before it */
    if (fusion_elems > 0 && (size_t)fusion_elems > C->gs_fusion_elems) {
        if (C->gs_fusion) CK_CUDA(cudaFree(C->gs_fusion));
        C->gs_fusion = NULL;
        CK_CUDA(cudaMalloc(&C->gs_fusion, (size_t)fusion_elems * sizeof(float)));
        C->gs_fusion_elems = (size_t)fusion_elems;
    }
    while ((int)C->gs_ev.size() < nslots) {
        cudaEvent_t e;
        CK_CUDA(cudaEventCreate(&e)); /* with timing: when the gradient was made */
        C->gs_ev.push_back(e);
    }
    C->gs_marked.assign(C->gs_ev.size(), 0);
    if (!C->gs_base) CK_CUDA(cudaEventCreate(&C->gs_base));
}

extern "C" void kcu_gs_begin(void *ctx)
{
    Ctx *C = ctx_of(ctx);
    CHECK(C->gs_base, "gradient transport used before kcu_gs_prepare");
    std::fill(C->gs_marked.begin(), C->gs_marked.end(), 0);
    C->gs_ncalls = 0;
    CK_CUDA(cudaEventRecord(C->gs_base, C->s));
}

extern "C" void kcu_gs_mark(void *ctx, int slot)
{
    Ctx *C = ctx_of(ctx);
    CHECK(slot >= 0 && slot < (int)C->gs_ev.size(), "gradient slot %d of %zu", slot, C->gs_ev.size());
    CK_CUDA(cudaEventRecord(C->gs_ev[(size_t)slot], C->s));
    C->gs_marked[(size_t)slot] = 1;
}

extern "C" void kcu_gs_thread_init(void *ctx)
{
    CK_CUDA(cudaSetDevice(ctx_of(ctx)->device));
}

/* Queued, not waited for: the communication stream waits for the gradients'
 * events, so the host goes on to the next reduction (pipelined) and the start
 * event marks when the reduction really starts on the device. */
extern "C" void kcu_gs_allreduce(void *ctx, float *const *bufs, const int64_t *counts,
                                 const int *slots, int n)
{
    Ctx *C = ctx_of(ctx);
    CHECK(C->has_nccl, "NCCL transport used before kcu_nccl_init");
    size_t need = 2 * ((size_t)C->gs_ncalls + 1);
    while (C->gs_call_ev.size() < need) {
        cudaEvent_t e;
        CK_CUDA(cudaEventCreate(&e));
        C->gs_call_ev.push_back(e);
    }
    cudaEvent_t e0 = C->gs_call_ev[need - 2], e1 = C->gs_call_ev[need - 1];
    for (int i = 0; i < n; i++) CK_CUDA(cudaStreamWaitEvent(C->cs, C->gs_ev[(size_t)slots[i]], 0));
    CK_CUDA(cudaEventRecord(e0, C->cs));
    std::vector<std::pair<float *, int64_t>> sp((size_t)n);
    int64_t total = 0;
    for (int i = 0; i < n; i++) sp[(size_t)i] = {bufs[i], counts[i]}, total += counts[i];
    std::sort(sp.begin(), sp.end());
    bool contiguous = true;
    for (size_t i = 1; i < sp.size(); i++) contiguous &= sp[i - 1].first + sp[i - 1].second == sp[i].first;
    if (contiguous) {
        CK_NCCL(ncclAllReduce(sp[0].first, sp[0].first, (size_t)total, ncclFloat32, ncclSum, C->nccl, C->cs));
    } else {
        /* sized by kcu_gs_prepare from the fusion threshold: never here */
        CHECK((size_t)total <= C->gs_fusion_elems,
              "a fused gradient reduction of %lld floats, above the %zu kcu_gs_prepare sized",
              (long long)total, C->gs_fusion_elems);
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
    CK_CUDA(cudaEventRecord(e1, C->cs));
    C->gs_ncalls++;
}

/* After a failure the communicator cannot be trusted: abort it (its result
 * does not matter, the step fails with the reason already in hand). */
static void abort_comm(Ctx *C)
{
    (void)ncclCommAbort(C->nccl);
    C->has_nccl = 0;
}

/* Polls the step's last reduction, and NCCL's asynchronous error (a peer
 * that died), every 50 us: a blocking cudaEventSynchronize would never return
 * when a peer is gone. */
extern "C" int kcu_gs_wait(void *ctx, double timeout_s, char *err, size_t errlen)
{
    Ctx *C = ctx_of(ctx);
    if (C->gs_ncalls == 0) return 0;
    cudaEvent_t last = C->gs_call_ev[2 * (size_t)C->gs_ncalls - 1];
    auto t0 = std::chrono::steady_clock::now();
    for (;;) {
        cudaError_t e = cudaEventQuery(last);
        if (e == cudaSuccess) return 0;
        if (e != cudaErrorNotReady) CK_CUDA(e);
        ncclResult_t a = ncclSuccess;
        CK_NCCL(ncclCommGetAsyncError(C->nccl, &a));
        if (a != ncclSuccess && a != ncclInProgress) {
            snprintf(err, errlen, "NCCL failed in this step's gradient reductions on %s: %s (%s)", check_host(),
                     ncclGetErrorString(a), ncclGetLastError(C->nccl));
            abort_comm(C);
            return -1;
        }
        double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (waited > timeout_s) {
            snprintf(err, errlen,
                     "this step's NCCL gradient reductions were not complete after %.0f s "
                     "(--comm-timeout) on %s: a rank stopped or hangs",
                     timeout_s, check_host());
            abort_comm(C);
            return -1;
        }
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    }
}

static double since_base(Ctx *C, cudaEvent_t e)
{
    float ms = 0;
    CK_CUDA(cudaEventSynchronize(e));
    CK_CUDA(cudaEventElapsedTime(&ms, C->gs_base, e));
    return ms * 1e-3;
}

extern "C" int kcu_gs_settle(void *ctx, double *ready_s, int nslots, double *start_s, double *end_s,
                             int max_calls)
{
    Ctx *C = ctx_of(ctx);
    CHECK(C->gs_base, "gradient transport used before kcu_gs_prepare");
    CK_CUDA(cudaEventSynchronize(C->gs_base));
    for (int t = 0; t < nslots; t++)
        ready_s[t] = t < (int)C->gs_ev.size() && C->gs_marked[(size_t)t] ? since_base(C, C->gs_ev[(size_t)t]) : NAN;
    for (int i = 0; i < C->gs_ncalls && i < max_calls; i++) {
        start_s[i] = since_base(C, C->gs_call_ev[2 * (size_t)i]);
        end_s[i] = since_base(C, C->gs_call_ev[2 * (size_t)i + 1]);
    }
    return C->gs_ncalls;
}
