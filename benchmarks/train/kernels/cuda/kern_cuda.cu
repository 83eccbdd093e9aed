/* kern_cuda.cu: the training runtime's CUDA kernel set (kern_cuda.h, docs/stemdl-gpu.md):
 * its context (streams, library handles, small buffers), the kern_ops table,
 * the kernel timers and the end of a step.  The other parts are listed in
 * kern_cuda_impl.h. */
#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"
#include "benchmarks/train/kernels/cuda/kern_cuda_policy.h"

/* ---- timers (CUDA events) ----------------------------------------------------- */

static cudaEvent_t ev_get(Ctx *C)
{
    if (!C->evpool.empty()) {
        cudaEvent_t e = C->evpool.back();
        C->evpool.pop_back();
        return e;
    }
    cudaEvent_t e;
    CK_CUDA(cudaEventCreate(&e));
    return e;
}

static void *cu_timer_start(void *c)
{
    Ctx *C = ctx_of(c);
    Pending p = {ev_get(C), ev_get(C), NULL, NULL};
    CK_CUDA(cudaEventRecord(p.a, C->s));
    C->pend.push_back(p);
    return (void *)(intptr_t)C->pend.size(); /* index + 1: never NULL */
}

static void cu_timer_stop(void *c, void *token, double *accum_s)
{
    Ctx *C = ctx_of(c);
    size_t i = (size_t)(intptr_t)token - 1;
    CHECK(i < C->pend.size(), "bad timer token");
    C->pend[i].acc = accum_s;
    CK_CUDA(cudaEventRecord(C->pend[i].b, C->s));
}

static void cu_timer_flush(void *c)
{
    Ctx *C = ctx_of(c);
    CK_CUDA(cudaStreamSynchronize(C->s));
    if (C->cs) CK_CUDA(cudaStreamSynchronize(C->cs));
    for (const Pending &p : C->pend) {
        if (p.acc || p.acc2) {
            float ms = 0;
            CK_CUDA(cudaEventElapsedTime(&ms, p.a, p.b));
            if (p.acc) *p.acc += ms * 1e-3;
            if (p.acc2) *p.acc2 += ms * 1e-3;
        }
        C->evpool.push_back(p.a);
        C->evpool.push_back(p.b);
    }
    C->pend.clear();
    for (cudaEvent_t e : C->evdone) C->evpool.push_back(e);
    C->evdone.clear();
}

/* A table going away unflushed: its pending timers forget where to write
 * (tokens are indexes into pend, so entries stay; the next flush recycles
 * their events without reading them). */
static void cu_timer_discard(void *c, const void *lo, const void *hi)
{
    Ctx *C = ctx_of(c);
    auto in = [&](const double *p) { return p && (const void *)p >= lo && (const void *)p < hi; };
    for (Pending &p : C->pend) {
        if (in(p.acc)) p.acc = NULL;
        if (in(p.acc2)) p.acc2 = NULL;
    }
}

/* End of a step: wait for the device; settle the loss scale; after the step
 * that chose convolution algorithms, give back the timing scratch and trim the
 * workspace to the largest choice; note the memory in use. */
static void cu_sync(void *c)
{
    Ctx *C = ctx_of(c);
    CK_CUDA(cudaStreamSynchronize(C->s));
    if (C->cs) CK_CUDA(cudaStreamSynchronize(C->cs));
    if (C->check_pending) {
        C->check_pending = 0;
        C->checked++;
        if (*C->h_flag) {
            C->skipped++;
            C->scale *= C->backoff;
            C->good_steps = 0;
        } else if (++C->good_steps >= C->growth_interval) {
            C->scale *= C->growth;
            C->good_steps = 0;
        }
    }
    if (C->tuned_since_sync) {
        C->tuned_since_sync = 0;
        kcu_dev_free(C, C->tscratch);
        C->tscratch = NULL;
        C->tscratch_bytes = 0;
        if (C->ws && C->ws_bytes > C->ws_need) {
            kcu_dev_free(C, C->ws);
            C->ws = NULL;
            C->ws_bytes = 0;
            if (C->ws_need) {
                C->ws = kcu_dev_alloc(C, C->ws_need);
                CHECK(C->ws, "out of device memory for the %.3g GB cuDNN workspace", (double)C->ws_need / 1e9);
                C->ws_bytes = C->ws_need;
            }
        }
    }
    size_t fr = 0, tot = 0;
    CK_CUDA(cudaMemGetInfo(&fr, &tot));
    if (tot - fr > C->used_peak) C->used_peak = tot - fr;
}

static void fill_ops(Ctx *C)
{
    kern_ops *o = &C->ops;
    memset(o, 0, sizeof *o);
    o->name = "cuda";
    o->conv_fwd = kcu_op_conv_fwd;
    o->conv_bwd_data = kcu_op_conv_bwd_data;
    o->conv_bwd_weights = kcu_op_conv_bwd_weights;
    o->tconv_fwd = kcu_op_tconv_fwd;
    o->tconv_bwd_data = kcu_op_tconv_bwd_data;
    o->tconv_bwd_weights = kcu_op_tconv_bwd_weights;
    o->bias_fwd = kcu_op_bias_fwd;
    o->bias_bwd = kcu_op_bias_bwd;
    o->relu_fwd = kcu_op_relu_fwd;
    o->relu_bwd = kcu_op_relu_bwd;
    o->pool_fwd = kcu_op_pool_fwd;
    o->pool_bwd = kcu_op_pool_bwd;
    o->l1_fwd = kcu_op_l1_fwd;
    o->l1_bwd = kcu_op_l1_bwd;
    o->adam = kcu_op_adam;
    o->lion = kcu_op_lion;
    o->lion_sign = kcu_op_lion_sign;
    o->lion_apply = kcu_op_lion_apply;
    o->copy = kcu_op_copy;
    o->add = kcu_op_add;
    o->zero = kcu_op_zero;
    o->act_bytes = C->esz;
    o->alloc = kcu_op_alloc;
    o->release = kcu_op_release;
    o->h2d = kcu_op_h2d;
    o->d2h = kcu_op_d2h;
    o->put_f32 = kcu_op_put_f32;
    o->get_f32 = kcu_op_get_f32;
    o->cast_params = kcu_op_cast_params;
    o->sync = cu_sync;
    o->timer_start = cu_timer_start;
    o->timer_stop = cu_timer_stop;
    o->timer_flush = cu_timer_flush;
    o->timer_discard = cu_timer_discard;
    o->grad_check = C->prec == P_FP16 ? kcu_op_grad_check : NULL;
    kcu_fill_3d(o);
    kcu_fill_lc(o);
    kcu_fill_seg(o);
}

extern "C" void *kcu_create(const kcu_opts *o, char *err, size_t errlen)
{
    Prec prec;
    if (!strcmp(o->precision, "fp32")) prec = P_FP32;
    else if (!strcmp(o->precision, "tf32")) prec = P_TF32;
    else if (!strcmp(o->precision, "bf16")) prec = P_BF16;
    else if (!strcmp(o->precision, "fp16")) prec = P_FP16;
    else {
        snprintf(err, errlen, "--precision %s: the cuda backend runs fp32, tf32, bf16 or fp16", o->precision);
        return NULL;
    }
    const char *algo = o->algo ? o->algo : getenv("EXADL_CUDNN_ALGO");
    if (!algo || !*algo) algo = "find";
    if (strcmp(algo, "find") && strcmp(algo, "heuristic")) {
        snprintf(err, errlen, "EXADL_CUDNN_ALGO=%s: expected find or heuristic", algo);
        return NULL;
    }
    size_t cap = o->workspace_limit;
    if (!cap) {
        const char *mb = getenv("EXADL_CUDNN_WS_MB");
        if (mb && *mb) {
            char *end = NULL;
            long long v = strtoll(mb, &end, 10);
            if (*end || v < 0 || v > (1LL << 24)) {
                snprintf(err, errlen, "EXADL_CUDNN_WS_MB=%s: expected a number of MiB (0 to 16777216)", mb);
                return NULL;
            }
            cap = (size_t)v << 20;
        } else {
            cap = (size_t)8 << 30; /* gb2019 needs 12 GB for itself: an 80 GB GPU has room */
        }
    }
    /* test hook: a small limit makes small convolutions go in sample chunks */
    int64_t dnn_max = KCU_DNN_MAX_ELEMS;
    const char *me = getenv("EXADL_CUDNN_MAX_ELEMS");
    if (me && *me) {
        char *end = NULL;
        long long v = strtoll(me, &end, 10);
        if (*end || v < 1 || v > KCU_DNN_MAX_ELEMS) {
            snprintf(err, errlen, "EXADL_CUDNN_MAX_ELEMS=%s: expected 1 to %lld", me, (long long)KCU_DNN_MAX_ELEMS);
            return NULL;
        }
        dnn_max = v;
    }
    Ctx *C = new Ctx();
    C->dnn_max_elems = dnn_max;
    C->prec = prec;
    C->find = !strcmp(algo, "find");
    C->ws_cap = cap;
    C->device = o->device;
    switch (prec) {
    case P_FP32:
        /* fp32 means fp32: cuDNN's FMA math only (kern_cuda_algo.cu refuses
         * any other), cuBLAS's plain fp32 compute type.  Not through
         * NVIDIA_TF32_OVERRIDE: read once per process, it would also take
         * TF32 from a tf32 context made later in the same process. */
        C->elem = E_F32, C->dt = CUDNN_DATA_FLOAT, C->math_req = CUDNN_FMA_MATH;
        C->tf32_disabled = 1;
        break;
    case P_TF32: C->elem = E_F32, C->dt = CUDNN_DATA_FLOAT, C->math_req = CUDNN_TENSOR_OP_MATH; break;
    case P_BF16: C->elem = E_BF16, C->dt = CUDNN_DATA_BFLOAT16, C->math_req = CUDNN_TENSOR_OP_MATH; break;
    case P_FP16: C->elem = E_F16, C->dt = CUDNN_DATA_HALF, C->math_req = CUDNN_TENSOR_OP_MATH; break;
    }
    C->esz = C->elem == E_F32 ? 4 : 2;
    /* PyTorch's GradScaler defaults */
    C->scale = C->scale_init = 65536.0;
    C->growth = 2.0;
    C->backoff = 0.5;
    C->growth_interval = 2000;

    CK_CUDA(cudaSetDevice(o->device));
    CK_CUDA(cudaFree(0)); /* create the context now, not inside the first timed call */
    cudaDeviceProp p;
    CK_CUDA(cudaGetDeviceProperties(&p, o->device));
    C->sm_count = p.multiProcessorCount;
    C->max_pitch = p.memPitch;
    C->total_mem = p.totalGlobalMem;
    CK_CUDA(cudaStreamCreateWithFlags(&C->s, cudaStreamNonBlocking));
    CK_DNN(cudnnCreate(&C->dnn));
    CK_DNN(cudnnSetStream(C->dnn, C->s));
    CK_BLAS(cublasCreate(&C->blas));
    CK_BLAS(cublasSetStream(C->blas, C->s));
    CK_CUDA(cudaMallocHost((void **)&C->h_loss, sizeof(double)));
    CK_CUDA(cudaMallocHost((void **)&C->h_flag, sizeof(int)));
    *C->h_flag = 0;
    C->d_part = (double *)kcu_dev_alloc(C, kPartials * sizeof(double));
    C->d_loss = (double *)kcu_dev_alloc(C, sizeof(double));
    C->d_flag = (int *)kcu_dev_alloc(C, sizeof(int));
    CHECK(C->d_part && C->d_loss && C->d_flag, "out of device memory at start-up");
    CK_CUDA(cudaMemsetAsync(C->d_flag, 0, sizeof(int), C->s));
    CK_CUDA(cudaStreamSynchronize(C->s));
    fill_ops(C);
    return C;
}

extern "C" const kern_ops *kcu_ops(void *ctx) { return &ctx_of(ctx)->ops; }

extern "C" void kcu_release(void *ctx)
{
    Ctx *C = ctx_of(ctx);
    if (!C) return;
    CK_CUDA(cudaDeviceSynchronize());
    for (Conv *cv : C->convs) {
        CK_DNN(cudnnDestroyTensorDescriptor(cv->xd));
        CK_DNN(cudnnDestroyTensorDescriptor(cv->yd));
        CK_DNN(cudnnDestroyFilterDescriptor(cv->wd));
        CK_DNN(cudnnDestroyConvolutionDescriptor(cv->cd));
        delete cv;
    }
    kcu_release_3d(C);
    kcu_release_seg(C);
    for (const Pending &p : C->pend) {
        C->evpool.push_back(p.a);
        C->evpool.push_back(p.b);
    }
    for (cudaEvent_t e : C->evdone) C->evpool.push_back(e);
    for (cudaEvent_t e : C->evpool) CK_CUDA(cudaEventDestroy(e));
    for (cudaEvent_t e : C->gs_ev) CK_CUDA(cudaEventDestroy(e));
    for (cudaEvent_t e : C->gs_call_ev) CK_CUDA(cudaEventDestroy(e));
    if (C->gs_base) CK_CUDA(cudaEventDestroy(C->gs_base));
    if (C->gs_fusion) CK_CUDA(cudaFree(C->gs_fusion));
    /* whatever the network did not give back */
    for (auto &a : C->allocs) CK_CUDA(cudaFree(a.first));
    CK_CUDA(cudaFreeHost(C->h_loss));
    CK_CUDA(cudaFreeHost(C->h_flag));
    if (C->has_nccl) CK_NCCL(ncclCommDestroy(C->nccl));
    CK_BLAS(cublasDestroy(C->blas));
    CK_DNN(cudnnDestroy(C->dnn));
    if (C->cs) CK_CUDA(cudaStreamDestroy(C->cs));
    CK_CUDA(cudaStreamDestroy(C->s));
    delete C;
}
