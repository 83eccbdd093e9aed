#define _GNU_SOURCE
#include "benchmarks/collectives/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/collectives/coll_gpu.h"
#include "benchmarks/common/check.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#if EXADL_GPU
#define CHECK_CUDA(call)                                                                \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) check_fail(#call, __FILE__, __LINE__, "%s", cudaGetErrorString(e_)); \
    } while (0)
#define CHECK_NCCL(call)                                                                \
    do {                                                                                \
        ncclResult_t r_ = (call);                                                       \
        if (r_ != ncclSuccess) check_fail(#call, __FILE__, __LINE__, "%s", ncclGetErrorString(r_)); \
    } while (0)
#endif

#if EXADL_GPU
/* CUDA-aware MPI: 1 yes, 0 no (why says so), -1 cannot tell. */
static int mpi_cuda_aware(char *why, size_t len)
{
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    int rt = MPIX_Query_cuda_support();
    if (rt) return 1;
    snprintf(why, len,
             "the MPI library is not CUDA-aware (Open MPI: MPIX_Query_cuda_support() = 0, "
             "built with MPIX_CUDA_AWARE_SUPPORT = %d); use --backend nccl, or an MPI built "
             "with CUDA",
             (int)MPIX_CUDA_AWARE_SUPPORT);
    return 0;
#else
    snprintf(why, len,
             "cannot tell whether this MPI is CUDA-aware (no MPIX_Query_cuda_support in "
             "mpi-ext.h); refusing to pass device buffers to it");
    return -1;
#endif
}
#endif

int coll_dev_built_for(coll_backend_t kind, char *why, size_t len)
{
    if (kind == BK_MPI) return 1;
#if !EXADL_GPU
    snprintf(why, len, "backend %s needs the CUDA build (this binary was built without CUDA: "
                       "GPU=0 or no CUDA toolkit with NCCL found)",
             coll_backend_names[kind]);
    return 0;
#else
    if (kind == BK_MPI_CUDA) return mpi_cuda_aware(why, len) == 1;
    return 1;
#endif
}

#if EXADL_GPU
static void version_str(int v, int nccl, char *buf, size_t len)
{
    if (nccl) snprintf(buf, len, "%d.%d.%d", v / 10000, (v % 10000) / 100, v % 100);
    else snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* 0, or COLL_EXIT_UNAVAILABLE with the reason */
static int pick_gpu(coll_dev_t *d, const comm_t *c, char *err, size_t errlen)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        snprintf(err, errlen, "backend %s needs a GPU and this host (%s) has none: "
                 "cudaGetDeviceCount: %s",
                 coll_backend_names[d->kind], check_host(),
                 e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        (void)cudaGetLastError();
        return COLL_EXIT_UNAVAILABLE;
    }
    d->gpus_visible = n;
    d->gpu = c->local_rank % n;
    if (c->local_size > n && c->rank == 0)
        fprintf(stderr, "collectives: warning: %d ranks on a node with %d GPUs share devices\n",
                c->local_size, n);
    CHECK_CUDA(cudaSetDevice(d->gpu));
    return 0;
}
#endif

int coll_dev_open(coll_dev_t *d, coll_backend_t kind, const comm_t *c, sysinfo_t *si,
                  char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->gpu = -1;
    snprintf(d->desc, sizeof d->desc, "none (host memory)");
    int code = 0;
    char why[512] = "";
    if (!coll_dev_built_for(kind, why, sizeof why)) code = COLL_EXIT_UNAVAILABLE;
#if EXADL_GPU
    if (!code && kind != BK_MPI) code = pick_gpu(d, c, why, sizeof why);
#endif
    /* every rank learns whether any rank failed, and the lowest one's reason */
    int worst = 0, first = c->size;
    int mine = code ? c->rank : c->size;
    CHECK_MPI(MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, c->world));
    CHECK_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c->world));
    if (worst) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", why);
        CHECK_MPI(MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, c->world));
        snprintf(err, errlen, "%s", msg);
        return worst;
    }
    if (kind == BK_MPI) return 0;
#if EXADL_GPU
    d->on_device = 1;
    struct cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, d->gpu));
    int rt = 0, drv = 0;
    CHECK_CUDA(cudaRuntimeGetVersion(&rt));
    CHECK_CUDA(cudaDriverGetVersion(&drv));
    char buf[64];
    version_str(rt, 0, buf, sizeof buf);
    sysinfo_set_version(si, "cuda_runtime", buf);
    version_str(drv, 0, buf, sizeof buf);
    sysinfo_set_version(si, "cuda_driver", buf);
    snprintf(si->gpu_model, sizeof si->gpu_model, "%s", prop.name);
    snprintf(si->gpu_cc, sizeof si->gpu_cc, "%d.%d", prop.major, prop.minor);
    snprintf(si->gpu_driver, sizeof si->gpu_driver, "CUDA driver API %.40s", buf);
    si->gpu_memory_bytes = (long long)prop.totalGlobalMem;
    si->gpu_count = c->size;
    snprintf(d->desc, sizeof d->desc, "%.120s (cc %d.%d, %.1f GiB), %d visible per node, one per rank",
             prop.name, prop.major, prop.minor, (double)prop.totalGlobalMem / (1 << 30),
             d->gpus_visible);
    if (kind == BK_NCCL) {
        int v = 0;
        CHECK_NCCL(ncclGetVersion(&v));
        version_str(v, 1, buf, sizeof buf);
        sysinfo_set_version(si, "nccl", buf);
        ncclUniqueId id;
        if (c->rank == 0) CHECK_NCCL(ncclGetUniqueId(&id));
        CHECK_MPI(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, c->world));
        ncclComm_t comm;
        CHECK_NCCL(ncclCommInitRank(&comm, c->size, id, c->rank));
        cudaStream_t s;
        CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        d->nccl_comm = comm;
        d->stream = s;
    }
    return 0;
#else
    (void)si;
    snprintf(err, errlen, "internal: backend %s without CUDA", coll_backend_names[kind]);
    return 1;
#endif
}

void coll_dev_close(coll_dev_t *d)
{
#if EXADL_GPU
    if (d->nccl_comm) ncclCommDestroy((ncclComm_t)d->nccl_comm);
    if (d->stream) cudaStreamDestroy((cudaStream_t)d->stream);
#endif
    d->nccl_comm = d->stream = NULL;
}

void *coll_dev_alloc(coll_dev_t *d, size_t bytes)
{
    if (bytes == 0) bytes = 1;
#if EXADL_GPU
    if (d->on_device) {
        void *p = NULL;
        CHECK_CUDA(cudaMalloc(&p, bytes));
        return p;
    }
#endif
    (void)d;
    void *p = NULL;
    int rc = posix_memalign(&p, 4096, bytes);
    CHECK(rc == 0, "cannot allocate %zu bytes of buffer", bytes);
    return p;
}

void coll_dev_free(coll_dev_t *d, void *p)
{
#if EXADL_GPU
    if (d->on_device) {
        if (p) CHECK_CUDA(cudaFree(p));
        return;
    }
#endif
    (void)d;
    free(p);
}

void coll_dev_upload(coll_dev_t *d, void *dst, const void *src, size_t bytes)
{
#if EXADL_GPU
    if (d->on_device) {
        CHECK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
        return;
    }
#endif
    (void)d;
    if (dst != src) memcpy(dst, src, bytes);
}

void coll_dev_download(coll_dev_t *d, void *dst, const void *src, size_t bytes)
{
#if EXADL_GPU
    if (d->on_device) {
        CHECK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
        return;
    }
#endif
    (void)d;
    if (dst != src) memcpy(dst, src, bytes);
}

void coll_dev_sync(coll_dev_t *d)
{
#if EXADL_GPU
    if (d->stream) CHECK_CUDA(cudaStreamSynchronize((cudaStream_t)d->stream));
#else
    (void)d;
#endif
}
