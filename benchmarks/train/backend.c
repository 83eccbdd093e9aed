#include "benchmarks/train/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#if EXADL_GPU
#include "benchmarks/train/kernels/cuda/kern_cuda.h"
#endif

static void fast_close(void *ctx) { kern_fast_release(ctx); }

#if EXADL_GPU
/* Every rank learns whether any rank failed, and the lowest failing rank's
 * reason (msg, in and out): -1 when one did. */
static int any_failed(comm_t *comm, int failed, char *msg, size_t len)
{
    int mine = failed ? comm->rank : comm->size, first = comm->size;
    CHECK_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm->world));
    if (first == comm->size) return 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", msg);
    CHECK_MPI(MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, first, comm->world));
    snprintf(msg, len, "%s", buf);
    return -1;
}

/* The peak probe's shape: an 8192^3 GEMM runs about a millisecond on a
 * current GPU, long enough to reach full clocks and short enough to repeat. */
enum { PEAK_SIZE = 8192, PEAK_WARMUP = 3, PEAK_REPS = 10 };

/* --backend cuda: one rank per GPU (local rank % devices), the CUDA kernel
 * set, NCCL between ranks, the device's facts and measured peak. */
static int cuda_open(backend_t *b, const runcfg_t *c, comm_t *comm, sysinfo_t *si, char *err,
                     size_t errlen)
{
    char why[256] = "", msg[512] = "";
    int ndev = kcu_device_count(why, sizeof why), failed = 0;
    if (ndev <= 0) {
        failed = 1;
        snprintf(msg, sizeof msg, "--backend cuda: no CUDA GPU on %s (%s)", check_host(), why);
    } else if (comm->size > 1 && comm->local_size > ndev) {
        failed = 1;
        snprintf(msg, sizeof msg,
                 "--backend cuda: %d ranks on %s but %d GPU(s) there: start one rank per GPU",
                 comm->local_size, check_host(), ndev);
    }
    if (any_failed(comm, failed, msg, sizeof msg)) {
        snprintf(err, errlen, "%s", msg);
        return -1;
    }
    int dev = comm->local_rank % ndev;
    kcu_opts o = {.precision = c->precision, .device = dev};
    void *ctx = kcu_create(&o, msg, sizeof msg);
    if (any_failed(comm, ctx == NULL, msg, sizeof msg)) {
        if (ctx) kcu_release(ctx);
        snprintf(err, errlen, "--backend cuda: %s", msg);
        return -1;
    }
    b->cuda = 1;
    b->ops = kcu_ops(ctx);
    b->ctx = ctx;
    b->close = kcu_release;
    b->gpus = comm->size;
    b->threads = 1;

    kcu_device_info d;
    kcu_device_describe(dev, &d);
    snprintf(si->gpu_model, sizeof si->gpu_model, "%s", d.model);
    snprintf(si->gpu_cc, sizeof si->gpu_cc, "%d.%d", d.cc_major, d.cc_minor);
    snprintf(si->gpu_driver, sizeof si->gpu_driver, "%s", d.driver);
    si->gpu_memory_bytes = d.memory_bytes;
    si->gpu_count = comm->size;
    sysinfo_set_version(si, "cuda_runtime", d.cuda_runtime);
    sysinfo_set_version(si, "cuda_driver", d.cuda_driver);
    sysinfo_set_version(si, "cudnn", d.cudnn);
    sysinfo_set_version(si, "cublas", d.cublas);

    if (comm->size > 1) {
        char id[KCU_NCCL_ID_BYTES];
        if (comm->rank == 0) kcu_nccl_unique_id(id);
        CHECK_MPI(MPI_Bcast(id, KCU_NCCL_ID_BYTES, MPI_BYTE, 0, comm->world));
        kcu_nccl_init(ctx, id, comm->size, comm->rank);
        sysinfo_set_version(si, "nccl", d.nccl);
        b->transport = (gsync_transport){.name = "nccl",
                                         .prepare = kcu_gs_prepare,
                                         .mark = kcu_gs_mark,
                                         .thread_init = kcu_gs_thread_init,
                                         .allreduce = kcu_gs_allreduce,
                                         .ctx = ctx};
    } else {
        b->transport = (gsync_transport){.name = "none"}; /* one rank: nothing is reduced */
    }

    const char *probe = getenv("EXADL_PEAK_PROBE");
    if (!probe || strcmp(probe, "0") != 0) {
        b->peak_bf16_flops = kcu_gemm_peak(ctx, "bf16", PEAK_SIZE, PEAK_WARMUP, PEAK_REPS);
        b->peak_fp16_flops = kcu_gemm_peak(ctx, "fp16", PEAK_SIZE, PEAK_WARMUP, PEAK_REPS);
        if (!strcmp(c->precision, "bf16")) b->peak_flops = b->peak_bf16_flops;
        else if (!strcmp(c->precision, "fp16")) b->peak_flops = b->peak_fp16_flops;
        else b->peak_flops = kcu_gemm_peak(ctx, c->precision, PEAK_SIZE, PEAK_WARMUP, PEAK_REPS);
    }
    snprintf(b->library, sizeof b->library, "cuDNN %s (convolutions) + own CUDA kernels, %s%s",
             d.cudnn, c->precision, comm->size > 1 ? ", NCCL allreduce" : "");
    sysinfo_set_version(si, "kernels", b->library);
    return 0;
}
#endif

int backend_open(backend_t *b, const runcfg_t *c, comm_t *comm, sysinfo_t *si, char *err,
                 size_t errlen)
{
    memset(b, 0, sizeof *b);
    char mpi[256];
    comm_library_version(mpi, sizeof mpi);
    sysinfo_set_version(si, "mpi", mpi);
    if (!strcmp(c->backend, "cuda")) {
#if EXADL_GPU
        return cuda_open(b, c, comm, si, err, errlen);
#else
        snprintf(err, errlen,
                 "--backend cuda: this stemdl was built without the CUDA path "
                 "(build where the CUDA toolkit, cuDNN and NCCL are found: docs/stemdl-gpu.md)");
        return -1;
#endif
    }
    b->transport = (gsync_transport){.name = comm->size > 1 ? "mpi" : "none"};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int per_rank = (int)(cores / (comm->local_size > 0 ? comm->local_size : 1));
    b->threads = c->threads > 0 ? c->threads : (per_rank > 0 ? per_rank : 1);
    if (!strcmp(c->kernels, "reference")) {
        b->ops = kern_ref_ops();
        snprintf(b->library, sizeof b->library, "reference loops (benchmarks/train/kernels/ref/kern_ref.c)");
        b->threads = 1;
    } else {
        b->ops = kern_fast_ops();
        b->ctx = kern_fast_create(b->threads);
        b->close = fast_close;
        snprintf(b->library, sizeof b->library, "%s", kern_fast_library());
    }
    sysinfo_set_version(si, "kernels", b->library);
    return 0;
}

void backend_close(backend_t *b)
{
    if (b->close) b->close(b->ctx);
    b->close = NULL;
}

#if EXADL_GPU
static void kv_flops(rec_t *w, const char *key, double v)
{
    rec_key(w, key);
    if (v > 0) rec_double(w, v);
    else rec_null(w);
}

static void write_precision(rec_t *w, const kcu_stats *st)
{
    const char *p = st->precision;
    int half = !strcmp(p, "bf16") || !strcmp(p, "fp16");
    rec_key(w, "precision_detail");
    rec_map_begin(w);
    rec_kv_str(w, "activations", half ? p : "fp32");
    rec_kv_str(w, "compute_weights", half ? p : "fp32 (the master weights)");
    rec_kv_str(w, "master_weights", "fp32");
    rec_kv_str(w, "optimizer_state", "fp32 (Adam m, v)");
    rec_kv_str(w, "gradients", half ? "fp32 (cuDNN's 16-bit weight gradient widened; bias gradients summed in fp64)"
                                    : "fp32");
    rec_kv_str(w, "gradient_reduction", "fp32 sum (NCCL where ranks > 1)");
    rec_kv_str(w, "convolutions",
               !strcmp(p, "fp32")   ? "cuDNN FMA math, no TF32 (NVIDIA_TF32_OVERRIDE=0)"
               : !strcmp(p, "tf32") ? "cuDNN tensor-op math on fp32 data (TF32)"
                                    : "cuDNN tensor-op math, fp32 accumulation");
    if (st->loss_scaling) {
        rec_key(w, "loss_scaling");
        rec_map_begin(w);
        rec_kv_str(w, "kind", "dynamic");
        rec_kv_double(w, "initial_scale", st->scale_init);
        rec_kv_double(w, "final_scale", st->scale_final);
        rec_kv_double(w, "growth_factor", st->growth_factor);
        rec_kv_double(w, "backoff_factor", st->backoff_factor);
        rec_kv_int(w, "growth_interval", st->growth_interval);
        rec_kv_int(w, "checked_steps", st->checked_steps);
        rec_kv_int(w, "skipped_steps", st->skipped_steps);
        rec_map_end(w);
    } else {
        rec_kv_str(w, "loss_scaling", "none");
    }
    rec_map_end(w);
}
#endif

void backend_write_record(const backend_t *b, rec_t *w)
{
#if EXADL_GPU
    if (!b || !b->cuda) return;
    kcu_stats st;
    kcu_get_stats(b->ctx, &st);
    kv_flops(w, "device_peak_flops", b->peak_flops);
    rec_key(w, "device");
    rec_map_begin(w);
    char probe[160];
    snprintf(probe, sizeof probe,
             "cuBLAS GEMM %dx%dx%d on random data: %d warm-up, median of %d timed (CUDA events)",
             PEAK_SIZE, PEAK_SIZE, PEAK_SIZE, PEAK_WARMUP, PEAK_REPS);
    rec_kv_str(w, "peak_probe", b->peak_flops > 0 ? probe : "not run (EXADL_PEAK_PROBE=0, or no memory for it)");
    rec_kv_str(w, "peak_dtype", st.precision);
    kv_flops(w, "peak_flops", b->peak_flops);
    kv_flops(w, "peak_bf16_flops", b->peak_bf16_flops);
    kv_flops(w, "peak_fp16_flops", b->peak_fp16_flops);
    rec_kv_int(w, "memory_total_bytes", (int64_t)st.total_bytes);
    rec_kv_int(w, "memory_used_peak_bytes", (int64_t)st.used_peak_bytes);
    rec_kv_int(w, "memory_allocated_peak_bytes", (int64_t)st.alloc_peak_bytes);
    rec_kv_int(w, "cudnn_workspace_bytes", (int64_t)st.workspace_bytes);
    rec_kv_int(w, "cudnn_workspace_limit_bytes", (int64_t)st.workspace_limit);
    rec_kv_str(w, "cudnn_algo_select", st.algo);
    rec_kv_double(w, "cudnn_tune_s", st.tune_s);
    rec_key(w, "cudnn_choices");
    rec_seq_begin(w);
    kcu_conv_choice cc;
    for (int i = 0; kcu_conv_choice_get(b->ctx, i, &cc) == 0; i++) {
        char x[64], y[64];
        snprintf(x, sizeof x, "%dx%dx%dx%d", cc.n, cc.xc, cc.xh, cc.xw);
        snprintf(y, sizeof y, "%dx%dx%dx%d", cc.n, cc.yc, cc.yh, cc.yw);
        rec_flow_map_begin(w);
        rec_kv_str(w, "op", cc.op);
        rec_kv_str(w, "x", x);
        rec_kv_str(w, "y", y);
        rec_kv_int(w, "k", cc.k);
        rec_kv_int(w, "stride", cc.stride);
        rec_kv_int(w, "algo", cc.algo);
        rec_kv_str(w, "math", cc.math);
        rec_kv_int(w, "workspace_bytes", (int64_t)cc.ws_bytes);
        rec_key(w, "time_ms");
        if (cc.time_ms >= 0) rec_double(w, cc.time_ms);
        else rec_null(w);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_map_end(w);
    write_precision(w, &st);
#else
    (void)b;
    (void)w;
#endif
}
