/* backend: picks the kernel set and the gradient transport for a run:
 * cpu/reference, cpu/fast (+ MPI), or cuda (cuDNN kernels + NCCL). */
#ifndef EXADL_TRAIN_BACKEND_H
#define EXADL_TRAIN_BACKEND_H

#include <stddef.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/train/gsync/gsync.h"
#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/runcfg.h"

typedef struct {
    const kern_ops *ops;
    void *ctx;
    gsync_transport transport;
    int gpus;          /* GPUs used by the job (0 on the CPU) */
    int threads;       /* CPU threads per rank */
    char library[256]; /* what computes: "reference loops", "OpenBLAS 0.3.21 ...", "cuDNN 9.19" */
    void (*close)(void *ctx);
    int fast;          /* 1: the fast CPU set (ctx is its context) */
    /* CUDA (cuda = 1, ctx is the kern_cuda context): the device's dense GEMM
     * rate measured at start-up (FLOP/s, 0 where not measured) for the run's
     * precision, and for bf16 and fp16 */
    int cuda;
    double peak_flops, peak_bf16_flops, peak_fp16_flops;
    /* 1: the kernel set chooses its algorithms at a kernel's first call
     * (cudnnFind): train_run gives it one untimed forward and backward of its
     * own before the first step, with no gradient exchange (docs/stemdl-gpu.md) */
    int tune_pass;
} backend_t;

/* Open the backend the run parameters name (backend, kernels, threads,
 * precision); fills the system block's GPU and version fields.  0, or -1
 * with one line in err. */
int backend_open(backend_t *b, const runcfg_t *c, comm_t *comm, sysinfo_t *si, char *err,
                 size_t errlen);
void backend_close(backend_t *b);

/* The backend's own blocks of the record (inside its top-level mapping):
 * for CUDA `device_peak_flops`, `device` (peak probe, memory, cuDNN's
 * choices) and `precision_detail`; nothing for the CPU backend. */
void backend_write_record(const backend_t *b, rec_t *w);

#endif
