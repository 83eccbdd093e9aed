#define _GNU_SOURCE
#include "benchmarks/collectives/device.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchmarks/collectives/coll_gpu.h"
#include "benchmarks/common/check.h"
#include "benchmarks/common/watchdog.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#if EXADL_GPU
/* ncclCommInitRank's deadline (EXADL_NCCL_INIT_TIMEOUT_S overrides): NCCL's
 * set-up takes seconds on a node and can take a minute on thousands of
 * ranks; five minutes is only ever a rank that is not coming */
#define COLL_NCCL_INIT_TIMEOUT_S 300.0

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
const coll_gpu_api *coll_gpu_fn;

int coll_gpu_load(char *err, size_t errlen)
{
    static char why[512];
    static int tried;
    if (!tried) {
        tried = 1;
        /* RTLD_LOCAL: the module's CUDA and NCCL symbols stay its own */
        void *h = dlopen(COLL_GPU_MODULE_FILE, RTLD_NOW | RTLD_LOCAL);
        const char *e = h ? NULL : dlerror();
        if (!h)
            snprintf(why, sizeof why,
                     "cannot load the GPU module %s: %s (the CUDA runtime and NCCL must be found by "
                     "the loader: LD_LIBRARY_PATH, docs/collectives.md)",
                     COLL_GPU_MODULE_FILE, e ? e : "unknown error");
        else if (!(coll_gpu_fn = dlsym(h, COLL_GPU_SYMBOL)))
            snprintf(why, sizeof why, "%s has no %s: not an ExaDL GPU module", COLL_GPU_MODULE_FILE,
                     COLL_GPU_SYMBOL);
    }
    if (!coll_gpu_fn) snprintf(err, errlen, "%s", why);
    return coll_gpu_fn ? 0 : -1;
}

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

/* 0; COLL_EXIT_UNAVAILABLE with the reason when this host has no GPU (no
 * device, or no NVIDIA driver at all); 1 when there is a driver but CUDA
 * does not start (a driver older than the runtime): that is a failure, not
 * "no GPU". */
static int pick_gpu(coll_dev_t *d, const comm_t *c, char *err, size_t errlen)
{
    if (coll_gpu_load(err, errlen)) return COLL_EXIT_UNAVAILABLE;
    int n = 0, drv = -1;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) (void)cudaGetLastError();
    if (e == cudaSuccess && n == 0) e = cudaErrorNoDevice;
    if (e == cudaErrorNoDevice ||
        (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&drv) == cudaSuccess && drv == 0)) {
        snprintf(err, errlen, "backend %s needs a GPU and this host (%s) has none: cudaGetDeviceCount: %s%s",
                 coll_backend_names[d->kind], check_host(), cudaGetErrorString(e),
                 drv == 0 ? " (no NVIDIA driver is installed)" : "");
        return COLL_EXIT_UNAVAILABLE;
    }
    if (e != cudaSuccess) {
        snprintf(err, errlen, "backend %s: CUDA cannot start on %s: cudaGetDeviceCount: %s (error %d)",
                 coll_backend_names[d->kind], check_host(), cudaGetErrorString(e), (int)e);
        return 1;
    }
    d->gpus_visible = n;
    d->gpu = c->local_rank % n;
    CHECK_CUDA(cudaSetDevice(d->gpu));
    return 0;
}

/* Ranks on one physical GPU, by the devices' UUIDs (a launcher that binds
 * ranks to GPUs shows each rank only its own, so counting the visible GPUs
 * says nothing): NCCL cannot run so, CUDA-aware MPI can (slowly).  0, or
 * 1 with the reason for nccl; a warning from rank 0 for mpi-cuda. */
static int shared_gpu(const coll_dev_t *d, const comm_t *c, const unsigned char uuid[16], char *err,
                      size_t errlen)
{
    if (c->size == 1) return 0;
    unsigned char *all = XMALLOC((size_t)c->size * 16, "GPU ids");
    CHECK_MPI(MPI_Allgather(uuid, 16, MPI_BYTE, all, 16, MPI_BYTE, c->world));
    int a = -1, b = -1;
    for (int i = 0; i < c->size && a < 0; i++)
        for (int j = i + 1; j < c->size; j++)
            if (!memcmp(all + 16 * (size_t)i, all + 16 * (size_t)j, 16)) {
                a = i, b = j;
                break;
            }
    free(all);
    if (a < 0) return 0;
    if (d->kind == BK_NCCL) {
        snprintf(err, errlen,
                 "backend nccl: ranks %d and %d would share one GPU (%d rank(s) on this node, %d GPU(s) "
                 "visible to rank %d): NCCL needs one GPU per rank",
                 a, b, c->local_size, d->gpus_visible, c->rank);
        return 1;
    }
    if (c->rank == 0)
        fprintf(stderr, "collectives: warning: ranks %d and %d share one GPU\n", a, b);
    return 0;
}
#endif

/* Every rank learns whether any rank failed (the largest code) and the
 * lowest failing rank's reason (into err). */
static int any_failed(const comm_t *c, int code, const char *why, char *err, size_t errlen)
{
    int worst = 0, first = c->size;
    int mine = code ? c->rank : c->size;
    CHECK_MPI(MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, c->world));
    CHECK_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c->world));
    if (!worst) return 0;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", why);
    CHECK_MPI(MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, c->world));
    snprintf(err, errlen, "%s", msg);
    return worst;
}

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
    int worst = any_failed(c, code, why, err, errlen);
    if (worst) return worst;
    if (kind == BK_MPI) return 0;
#if EXADL_GPU
    d->on_device = 1;
    struct cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, d->gpu));
    code = shared_gpu(d, c, (const unsigned char *)prop.uuid.bytes, why, sizeof why);
    if (code) {
        snprintf(err, errlen, "%s", why);
        return code;
    }
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
    /* every transfer and every NCCL call goes on this one stream: in order */
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    d->stream = s;
    if (kind == BK_NCCL) {
        int v = 0;
        CHECK_NCCL(ncclGetVersion(&v));
        version_str(v, 1, buf, sizeof buf);
        sysinfo_set_version(si, "nccl", buf);
        ncclUniqueId id;
        if (c->rank == 0) CHECK_NCCL(ncclGetUniqueId(&id));
        CHECK_MPI(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, c->world));
        ncclComm_t comm;
        /* ncclCommInitRank waits for every rank with no limit of its own: a
         * rank that never joins ends the run here, naming this one */
        char what[128];
        snprintf(what, sizeof what, "ncclCommInitRank (rank %d of %d)", c->rank, c->size);
        wd_t *w = wd_arm(wd_timeout_s("EXADL_NCCL_INIT_TIMEOUT_S", COLL_NCCL_INIT_TIMEOUT_S, 0), what,
                         "a rank did not join (it failed or hangs before this call, or the network "
                         "between the nodes is blocked); EXADL_NCCL_INIT_TIMEOUT_S sets the limit");
        CHECK_NCCL(ncclCommInitRank(&comm, c->size, id, c->rank));
        wd_disarm(w);
        d->nccl_comm = comm;
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
    if (d->nccl_comm) CHECK_NCCL(ncclCommDestroy((ncclComm_t)d->nccl_comm));
    if (d->stream) CHECK_CUDA(cudaStreamDestroy((cudaStream_t)d->stream));
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
        /* on the benchmark's stream, complete on return: a plain cudaMemcpy
         * from pageable memory may return before its DMA is done, and runs on
         * the legacy stream, unordered with the non-blocking one */
        CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)d->stream));
        coll_dev_sync(d);
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
        CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)d->stream));
        coll_dev_sync(d);
        return;
    }
#endif
    (void)d;
    if (dst != src) memcpy(dst, src, bytes);
}

void coll_dev_sync(coll_dev_t *d)
{
#if EXADL_GPU
    if (!d->stream) return;
    /* polled, with NCCL's asynchronous error: a dead peer fails the run
     * instead of hanging it in cudaStreamSynchronize.  A spin, no sleep:
     * nccl-tests spins on cudaStreamQuery, and a sleep (its wake-up slack is
     * tens of us) would be counted in every batch's time */
    for (;;) {
        cudaError_t e = cudaStreamQuery((cudaStream_t)d->stream);
        if (e == cudaSuccess) return;
        if (e != cudaErrorNotReady) CHECK_CUDA(e);
        if (d->nccl_comm) {
            ncclResult_t a = ncclSuccess;
            CHECK_NCCL(ncclCommGetAsyncError((ncclComm_t)d->nccl_comm, &a));
            if (a != ncclSuccess && a != ncclInProgress) {
                const char *last = ncclGetLastError((ncclComm_t)d->nccl_comm);
                /* the communicator is dead: abort it (its result does not matter) */
                (void)ncclCommAbort((ncclComm_t)d->nccl_comm);
                d->nccl_comm = NULL;
                check_fail("ncclCommGetAsyncError", __FILE__, __LINE__, "%s (%s)", ncclGetErrorString(a),
                           last);
            }
        }
    }
#else
    (void)d;
#endif
}
