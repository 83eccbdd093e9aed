#include "benchmarks/train/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/watchdog.h"
#include "benchmarks/train/kernels/cuda/kern_cuda.h"

static void fast_close(void *ctx) { kern_fast_release(ctx); }

/* Every rank learns whether any rank failed, and the lowest failing rank's
 * reason (msg, in and out): -1 when one did.  Without MPI (--sysinfo and
 * --describe start none: comm_init_self) there is one rank and nothing to
 * tell the others. */
static int any_failed(comm_t *comm, int failed, char *msg, size_t len)
{
    if (!comm->mpi) return failed ? -1 : 0;
    int mine = failed ? comm->rank : comm->size, first = comm->size;
    CHECK_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm->world));
    if (first == comm->size) return 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", msg);
    CHECK_MPI(MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, first, comm->world));
    snprintf(msg, len, "%s", buf);
    return -1;
}

/* Two ranks on one physical GPU: NCCL cannot reduce between them, so the run
 * is refused.  Decided by the devices' UUIDs, not by counting the GPUs a
 * rank sees: a launcher that binds each rank to its GPU (`exadl bind`,
 * Slurm's --gpus-per-task=1) shows every rank one GPU, its own.  Collective;
 * every rank gets the same answer.  -1 with msg when some ranks share. */
static int shared_gpu(comm_t *comm, const char *uuid, int visible, char *msg, size_t len)
{
    if (!comm->mpi || comm->size == 1) return 0;
    enum { U = sizeof(((kcu_device_info *)0)->uuid) };
    char mine[U];
    memset(mine, 0, sizeof mine);
    snprintf(mine, sizeof mine, "%s", uuid);
    char *all = XMALLOC((size_t)comm->size * U, "GPU ids");
    CHECK_MPI(MPI_Allgather(mine, U, MPI_CHAR, all, U, MPI_CHAR, comm->world));
    int a = -1, b = -1;
    for (int i = 0; i < comm->size && a < 0; i++)
        for (int j = i + 1; j < comm->size; j++)
            if (!strncmp(all + (size_t)i * U, all + (size_t)j * U, U)) {
                a = i, b = j;
                break;
            }
    if (a >= 0)
        snprintf(msg, len,
                 "--backend cuda: ranks %d and %d would share GPU %.*s (this node has %d rank(s); "
                 "rank %d sees %d GPU(s)): start one rank per GPU",
                 a, b, U, all + (size_t)a * U, comm->local_size, comm->rank, visible);
    free(all);
    return a >= 0 ? -1 : 0;
}

/* The peak probe's shape: an 8192^3 GEMM runs about a millisecond on a
 * current GPU, long enough to reach full clocks and short enough to repeat. */
enum { PEAK_SIZE = 8192, PEAK_WARMUP = 3, PEAK_REPS = 10 };

/* --backend cuda: the CUDA module (opened here, kern_cuda.h), one rank per
 * GPU (local rank % the GPUs this rank sees), the CUDA kernel set, NCCL
 * between ranks, the device's facts and measured peak. */
static int cuda_open(backend_t *b, const runcfg_t *c, comm_t *comm, sysinfo_t *si, char *err,
                     size_t errlen)
{
    char why[512] = "", msg[512] = "";
    const kcu_api *K = kcu_load(why, sizeof why);
    int ndev = 0, failed = 0;
    if (!K) {
        failed = 1;
        snprintf(msg, sizeof msg, "--backend cuda: %s", why);
    } else if ((ndev = K->device_count(why, sizeof why)) == 0) {
        failed = 1;
        snprintf(msg, sizeof msg, "--backend cuda: no CUDA GPU on %s (%s)", check_host(), why);
    } else if (ndev < 0) {
        /* a driver is there but CUDA does not start: not "no GPU" */
        failed = 1;
        snprintf(msg, sizeof msg, "--backend cuda: CUDA cannot start on %s: %s", check_host(), why);
    }
    if (any_failed(comm, failed, msg, sizeof msg)) {
        snprintf(err, errlen, "%s", msg);
        return -1;
    }
    int dev = comm->local_rank % ndev;
    kcu_device_info d;
    K->device_describe(dev, &d);
    if (shared_gpu(comm, d.uuid, ndev, msg, sizeof msg)) {
        snprintf(err, errlen, "%s", msg);
        return -1;
    }
    kcu_opts o = {.precision = c->precision, .device = dev};
    void *ctx = K->create(&o, msg, sizeof msg);
    if (any_failed(comm, ctx == NULL, msg, sizeof msg)) {
        if (ctx) K->release(ctx);
        snprintf(err, errlen, "--backend cuda: %s", msg);
        return -1;
    }
    b->cuda = 1;
    b->ops = K->ops(ctx);
    b->ctx = ctx;
    b->close = K->release;
    b->gpus = comm->size;
    b->threads = 1;
    /* cudnnFind chooses each convolution's algorithm at its first call: in a
     * pass of its own, before the gradient engine and its timeout start and
     * while no reduction runs beside it (tsetup.c) */
    b->tune_pass = 1;

    snprintf(si->gpu_model, sizeof si->gpu_model, "%s", d.model);
    snprintf(si->gpu_cc, sizeof si->gpu_cc, "%d.%d", d.cc_major, d.cc_minor);
    snprintf(si->gpu_driver, sizeof si->gpu_driver, "%s", d.driver);
    si->gpu_memory_bytes = d.memory_bytes;
    si->gpu_count = comm->size;
    sysinfo_set_version(si, "cuda_runtime", d.cuda_runtime);
    sysinfo_set_version(si, "cuda_driver", d.cuda_driver);
    sysinfo_set_version(si, "cudnn", d.cudnn);
    sysinfo_set_version(si, "cublas", d.cublas);

    /* the gradients' device times (begin, mark, settle) on one rank too */
    b->transport = (gsync_transport){.name = "none",
                                     .prepare = K->gs_prepare,
                                     .begin = K->gs_begin,
                                     .mark = K->gs_mark,
                                     .settle = K->gs_settle,
                                     .ctx = ctx};
    if (comm->size > 1) {
        char id[KCU_NCCL_ID_BYTES];
        if (comm->rank == 0) K->nccl_unique_id(id);
        CHECK_MPI(MPI_Bcast(id, KCU_NCCL_ID_BYTES, MPI_BYTE, 0, comm->world));
        /* ncclCommInitRank waits for every rank with no limit of its own: a
         * rank that never joins ends the run here, naming this one; the
         * limit is at least --comm-timeout and five minutes (NCCL's set-up
         * can take a minute on thousands of ranks) */
        char what[128];
        snprintf(what, sizeof what, "ncclCommInitRank (rank %d of %d)", comm->rank, comm->size);
        wd_t *w = wd_arm(wd_timeout_s("EXADL_NCCL_INIT_TIMEOUT_S", 300, c->comm_timeout), what,
                         "a rank did not join (it failed or hangs before this call, or the network "
                         "between the nodes is blocked); EXADL_NCCL_INIT_TIMEOUT_S sets the limit");
        K->nccl_init(ctx, id, comm->size, comm->rank);
        wd_disarm(w);
        sysinfo_set_version(si, "nccl", d.nccl);
        b->transport.name = "nccl";
        b->transport.thread_init = K->gs_thread_init;
        b->transport.allreduce = K->gs_allreduce;
        b->transport.wait = K->gs_wait;
    }

    const char *probe = getenv("EXADL_PEAK_PROBE");
    if (!probe || strcmp(probe, "0") != 0) {
        b->peak_bf16_flops = K->gemm_peak(ctx, "bf16", PEAK_SIZE, PEAK_WARMUP, PEAK_REPS);
        b->peak_fp16_flops = K->gemm_peak(ctx, "fp16", PEAK_SIZE, PEAK_WARMUP, PEAK_REPS);
        if (!strcmp(c->precision, "bf16")) b->peak_flops = b->peak_bf16_flops;
        else if (!strcmp(c->precision, "fp16")) b->peak_flops = b->peak_fp16_flops;
        else b->peak_flops = K->gemm_peak(ctx, c->precision, PEAK_SIZE, PEAK_WARMUP, PEAK_REPS);
    }
    snprintf(b->library, sizeof b->library, "cuDNN %s (convolutions) + own CUDA kernels, %s%s",
             d.cudnn, c->precision, comm->size > 1 ? ", NCCL allreduce" : "");
    sysinfo_set_version(si, "kernels", b->library);
    return 0;
}

int backend_open(backend_t *b, const runcfg_t *c, comm_t *comm, sysinfo_t *si, char *err,
                 size_t errlen)
{
    memset(b, 0, sizeof *b);
    char mpi[256];
    comm_library_version(mpi, sizeof mpi);
    sysinfo_set_version(si, "mpi", mpi);
    if (!strcmp(c->backend, "cuda")) return cuda_open(b, c, comm, si, err, errlen);
    b->transport = (gsync_transport){.name = comm->size > 1 ? "mpi" : "none"};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int per_rank = (int)(cores / (comm->local_size > 0 ? comm->local_size : 1));
    b->threads = c->threads > 0 ? c->threads : (per_rank > 0 ? per_rank : 1);
    if (!strcmp(c->kernels, "reference")) {
        b->ops = kern_ref_ops();
        snprintf(b->library, sizeof b->library, "reference loops (benchmarks/train/kernels/ref/kern_ref.c)");
        b->threads = 1;
    } else {
        /* bf16 where oneDNN runs it on the CPU's own bf16 instructions only:
         * emulated bf16 is slower than fp32 and would measure nothing */
        int bf16 = !strcmp(c->precision, "bf16");
        if (bf16 && kern_fast_bf16_missing(err, errlen)) return -1;
        b->ops = kern_fast_ops();
        b->ctx = kern_fast_create(b->threads);
        b->close = fast_close;
        b->fast = 1;
        if (bf16) kern_fast_set_bf16(b->ctx, 1);
        snprintf(b->library, sizeof b->library, "%s%s", kern_fast_library(),
                 bf16 ? ", bf16 convolutions and GEMMs (fp32 accumulation)" : "");
    }
    sysinfo_set_version(si, "kernels", b->library);
    return 0;
}

void backend_close(backend_t *b)
{
    if (b->close) b->close(b->ctx);
    b->close = NULL;
}

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
               !strcmp(p, "fp32")   ? "cuDNN FMA math only (no tensor cores, so no TF32)"
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

void backend_write_record(const backend_t *b, rec_t *w)
{
    if (!b || !b->cuda) return;
    char why[512];
    const kcu_api *K = kcu_load(why, sizeof why);
    CHECK(K != NULL, "%s", why);
    kcu_stats st;
    K->get_stats(b->ctx, &st);
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
    for (int i = 0; K->conv_choice_get(b->ctx, i, &cc) == 0; i++) {
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
}
