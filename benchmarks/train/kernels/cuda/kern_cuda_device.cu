/* kern_cuda_device.cu: the facts about a CUDA device for the record and the
 * peak probe (a cuBLAS GEMM). */
#include <algorithm>

#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"

/* Deterministic pseudo-random values in [-1, 1) for the peak probe. */
template <typename T> __global__ void k_fill(T *p, int64_t n, uint32_t seed)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t x = (uint32_t)i * 2654435761u ^ seed;
        x ^= x >> 15;
        x *= 2246822519u;
        x ^= x >> 13;
        p[i] = fromf<T>((float)(x >> 8) * (2.0f / 16777216.0f) - 1.0f);
    }
}

/* ---- the public interface ------------------------------------------------------------ */

extern "C" int kcu_device_count(char *why, size_t len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess) {
        if (n <= 0) snprintf(why, len, "cudaGetDeviceCount: 0 devices");
        return n > 0 ? n : 0;
    }
    (void)cudaGetLastError();
    if (e == cudaErrorNoDevice) {
        snprintf(why, len, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        return 0;
    }
    /* the runtime says "insufficient driver" both when the driver is too old
     * and when there is none: only the second means no GPU here */
    int drv = -1;
    if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&drv) == cudaSuccess && drv == 0) {
        snprintf(why, len, "cudaGetDeviceCount: %s; no NVIDIA driver is installed (cudaDriverGetVersion: 0)",
                 cudaGetErrorString(e));
        return 0;
    }
    (void)cudaGetLastError();
    if (drv > 0)
        snprintf(why, len, "cudaGetDeviceCount: %s (error %d; the driver supports CUDA %d.%d, this runtime is %d.%d)",
                 cudaGetErrorString(e), (int)e, drv / 1000, (drv % 1000) / 10, CUDART_VERSION / 1000,
                 (CUDART_VERSION % 1000) / 10);
    else
        snprintf(why, len, "cudaGetDeviceCount: %s (error %d)", cudaGetErrorString(e), (int)e);
    return -1;
}

static void version3(int v, char *buf, size_t len) /* 91900 -> 9.19.0 */
{
    snprintf(buf, len, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
}

static void version_cuda(int v, char *buf, size_t len) /* 13000 -> 13.0 */
{
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  ..." -> 580.65.06 */
static int kernel_driver(char *buf, size_t len)
{
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f) return -1;
    char line[512];
    int rc = -1;
    if (fgets(line, sizeof line, f)) {
        char *save = NULL;
        for (char *tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
            int dots = 0, digits = 1;
            for (const char *p = tok; *p; p++) {
                if (*p == '.') dots++;
                else if (*p < '0' || *p > '9') digits = 0;
            }
            if (digits && dots >= 1 && tok[0] != '.') {
                snprintf(buf, len, "%s", tok);
                rc = 0;
                break;
            }
        }
    }
    fclose(f);
    return rc;
}

extern "C" void kcu_device_describe(int device, kcu_device_info *d)
{
    memset(d, 0, sizeof *d);
    cudaDeviceProp p;
    CK_CUDA(cudaGetDeviceProperties(&p, device));
    snprintf(d->model, sizeof d->model, "%s", p.name);
    const unsigned char *u = (const unsigned char *)p.uuid.bytes;
    snprintf(d->uuid, sizeof d->uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->memory_bytes = (long long)p.totalGlobalMem;
    d->sm_count = p.multiProcessorCount;
    int rt = 0, drv = 0;
    CK_CUDA(cudaRuntimeGetVersion(&rt));
    CK_CUDA(cudaDriverGetVersion(&drv));
    version_cuda(rt, d->cuda_runtime, sizeof d->cuda_runtime);
    version_cuda(drv, d->cuda_driver, sizeof d->cuda_driver);
    if (kernel_driver(d->driver, sizeof d->driver))
        snprintf(d->driver, sizeof d->driver, "CUDA driver API %s", d->cuda_driver);
    version3((int)cudnnGetVersion(), d->cudnn, sizeof d->cudnn);
    int ma = 0, mi = 0, pa = 0;
    CK_BLAS(cublasGetProperty(MAJOR_VERSION, &ma));
    CK_BLAS(cublasGetProperty(MINOR_VERSION, &mi));
    CK_BLAS(cublasGetProperty(PATCH_LEVEL, &pa));
    snprintf(d->cublas, sizeof d->cublas, "%d.%d.%d", ma, mi, pa);
    int nv = 0;
    CK_NCCL(ncclGetVersion(&nv));
    version3(nv, d->nccl, sizeof d->nccl);
}

/* ---- peak probe ------------------------------------------------------------------------ */

extern "C" double kcu_gemm_peak(void *ctx, const char *dtype, int size, int warmup, int reps)
{
    Ctx *C = ctx_of(ctx);
    cudaDataType_t ab, cd;
    cublasComputeType_t ct;
    size_t esz;
    if (!strcmp(dtype, "bf16")) ab = cd = CUDA_R_16BF, ct = CUBLAS_COMPUTE_32F, esz = 2;
    else if (!strcmp(dtype, "fp16")) ab = cd = CUDA_R_16F, ct = CUBLAS_COMPUTE_32F, esz = 2;
    else if (!strcmp(dtype, "tf32")) ab = cd = CUDA_R_32F, ct = CUBLAS_COMPUTE_32F_FAST_TF32, esz = 4;
    else if (!strcmp(dtype, "fp32")) ab = cd = CUDA_R_32F, ct = CUBLAS_COMPUTE_32F, esz = 4;
    else return 0;
    CHECK(size > 0 && reps > 0 && warmup >= 0, "peak probe: bad size or repetitions");
    int64_t n2 = (int64_t)size * size;
    void *m[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        cudaError_t e = cudaMalloc(&m[i], (size_t)n2 * esz);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            for (int j = 0; j < i; j++) CK_CUDA(cudaFree(m[j]));
            return 0; /* no room for the probe: the record says null */
        }
        if (esz == 2 && ab == CUDA_R_16BF)
            k_fill<__nv_bfloat16><<<blocks_for(C, n2), kThreads, 0, C->s>>>((__nv_bfloat16 *)m[i], n2, 17u + i);
        else if (esz == 2)
            k_fill<__half><<<blocks_for(C, n2), kThreads, 0, C->s>>>((__half *)m[i], n2, 17u + i);
        else
            k_fill<float><<<blocks_for(C, n2), kThreads, 0, C->s>>>((float *)m[i], n2, 17u + i);
        CK_LAUNCH("k_fill");
    }
    float alpha = 1.0f, beta = 0.0f;
    auto gemm = [&]() {
        CK_BLAS(cublasGemmEx(C->blas, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &alpha, m[0], ab, size,
                             m[1], ab, size, &beta, m[2], cd, size, ct, CUBLAS_GEMM_DEFAULT));
    };
    for (int i = 0; i < warmup; i++) gemm();
    std::vector<cudaEvent_t> ev(2 * (size_t)reps);
    for (auto &e : ev) CK_CUDA(cudaEventCreate(&e));
    for (int i = 0; i < reps; i++) {
        CK_CUDA(cudaEventRecord(ev[2 * i], C->s));
        gemm();
        CK_CUDA(cudaEventRecord(ev[2 * i + 1], C->s));
    }
    CK_CUDA(cudaStreamSynchronize(C->s));
    std::vector<double> t((size_t)reps);
    for (int i = 0; i < reps; i++) {
        float ms = 0;
        CK_CUDA(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        t[i] = ms * 1e-3;
    }
    for (auto &e : ev) CK_CUDA(cudaEventDestroy(e));
    for (int i = 0; i < 3; i++) CK_CUDA(cudaFree(m[i]));
    std::sort(t.begin(), t.end());
    double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    return med > 0 ? 2.0 * (double)size * size * size / med : 0;
}
