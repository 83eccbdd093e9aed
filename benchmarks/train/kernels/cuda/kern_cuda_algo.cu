/* kern_cuda_algo.cu: a convolution problem's descriptors and its cuDNN
 * algorithm (kern_cuda_conv.cu calls; kern_cuda.h, docs/stemdl-gpu.md).
 *
 * Every distinct problem (shape, strides, direction) gets its descriptors and
 * its algorithm once, at its first call: cudnnFind*Ex over the real operands
 * (outputs that accumulate are replaced by a scratch copy while timing), or
 * cuDNN's heuristics.  The ranked list is kept with the choice, so that
 * kern_cuda_conv.cu can fall back on the next usable algorithm when a call
 * fails at run time (kcu_next_algo, kern_cuda_policy.h). */
#include <algorithm>
#include <chrono>
#include <climits>

#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"
#include "benchmarks/train/kernels/cuda/kern_cuda_policy.h"

static int to_int(int64_t v, const char *what)
{
    CHECK(v >= 0 && v <= INT_MAX, "%s %lld does not fit cuDNN's int descriptors", what, (long long)v);
    return (int)v;
}

static void set_tensor(const Ctx *C, cudnnTensorDescriptor_t d, const tview *t)
{
    CK_DNN(cudnnSetTensor4dDescriptorEx(d, C->dt, t->n, t->c, t->h, t->w, to_int(t->sstride, "sample stride"),
                                        to_int((int64_t)t->h * t->w, "plane"), t->w, 1));
}

/* Bytes a view spans from its first element to its last. */
static size_t span_bytes(const Ctx *C, const tview *t)
{
    return ((size_t)(t->n - 1) * (size_t)t->sstride + (size_t)t->c * t->h * t->w) * C->esz;
}

/* A view like t over another buffer (same strides). */
static tview moved(const tview *t, void *p)
{
    tview r = *t;
    r.p = p;
    return r;
}

size_t kcu_conv_ws_size(Ctx *C, Conv *cv)
{
    size_t b = 0;
    if (cv->g.op == OP_FWD)
        CK_DNN(cudnnGetConvolutionForwardWorkspaceSize(C->dnn, cv->xd, cv->wd, cv->cd, cv->yd,
                                                       (cudnnConvolutionFwdAlgo_t)cv->algo, &b));
    else if (cv->g.op == OP_BWD_DATA)
        CK_DNN(cudnnGetConvolutionBackwardDataWorkspaceSize(C->dnn, cv->wd, cv->yd, cv->cd, cv->xd,
                                                            (cudnnConvolutionBwdDataAlgo_t)cv->algo, &b));
    else
        CK_DNN(cudnnGetConvolutionBackwardFilterWorkspaceSize(C->dnn, cv->xd, cv->yd, cv->cd, cv->wd,
                                                              (cudnnConvolutionBwdFilterAlgo_t)cv->algo, &b));
    return b;
}

/* Workspace for cudnnFind: as much as the cap allows and memory permits. */
static size_t find_workspace(Ctx *C)
{
    size_t fr = 0, tot = 0;
    CK_CUDA(cudaStreamSynchronize(C->s));
    CK_CUDA(cudaMemGetInfo(&fr, &tot));
    size_t avail = fr + C->ws_bytes;
    size_t margin = (size_t)512 << 20;
    size_t want = std::min(C->ws_cap, avail > margin ? (avail - margin) / 2 : 0);
    if (C->ws_bytes >= want) return C->ws_bytes;
    while (want >= ((size_t)1 << 20)) {
        kcu_dev_free(C, C->ws);
        C->ws = kcu_dev_alloc(C, want);
        if (C->ws) {
            C->ws_bytes = want;
            return want;
        }
        C->ws_bytes = 0;
        want /= 2;
    }
    return 0;
}

/* Keep cuDNN's ranked list and take the first result that succeeded, fits
 * the cap and uses a math mode the precision allows (kcu_next_algo over
 * kcu_math_allowed: fp32 is FMA only, tf32 is TF32, nothing converts to
 * fp16 behind our back). */
template <typename Perf> static bool pick(const Ctx *C, const Perf *perf, int n, Conv *cv, bool timed)
{
    cv->cands.clear(), cv->maths.clear(), cv->times.clear();
    for (int i = 0; i < n; i++) {
        kcu_algo_cand c = {(int)perf[i].algo, perf[i].status == CUDNN_STATUS_SUCCESS, policy_math(perf[i].mathType),
                           perf[i].memory};
        cv->cands.push_back(c);
        cv->maths.push_back(perf[i].mathType);
        cv->times.push_back(timed ? perf[i].time : -1.0f);
    }
    cv->cur = kcu_next_algo(cv->cands.data(), n, 0, policy_prec(C->prec), C->ws_cap);
    if (cv->cur < 0) return false;
    cv->algo = cv->cands[cv->cur].algo;
    cv->math = cv->maths[cv->cur];
    cv->ws = cv->cands[cv->cur].ws_bytes;
    cv->time_ms = cv->times[cv->cur];
    return true;
}

/* Choose the algorithm of a new problem.  x, w, y are the operands of the
 * call (cuDNN's names); out is whichever of them the direction writes (dw for
 * the filter gradient), and accumulate says whether the call adds into it
 * (then Find writes a scratch). */
void kcu_conv_tune(Ctx *C, Conv *cv, const tview *X, const void *w, const tview *Y, void *dw, bool accumulate)
{
    auto t0 = std::chrono::steady_clock::now();
    const int kMax = 32;
    int found = 0;
    bool ok = false;
    CK_DNN(cudnnSetConvolutionMathType(cv->cd, C->math_req));
    if (C->find) {
        size_t wsb = find_workspace(C);
        tview x = *X, y = *Y;
        if (accumulate && cv->g.op == OP_BWD_FILTER) {
            /* a filter gradient summed over sample chunks (conv_call) */
            size_t wb = (size_t)cv->g.yc * (cv->g.xc / cv->g.groups) * cv->g.k * cv->g.k * C->esz;
            kcu_ensure(C, &C->tscratch, &C->tscratch_bytes, wb, "algorithm-timing scratch");
            dw = C->tscratch;
        } else if (accumulate) {
            const tview *out = cv->g.op == OP_FWD ? Y : X;
            kcu_ensure(C, &C->tscratch, &C->tscratch_bytes, span_bytes(C, out), "algorithm-timing scratch");
            if (cv->g.op == OP_FWD) y = moved(Y, C->tscratch);
            else x = moved(X, C->tscratch);
        }
        if (cv->g.op == OP_FWD) {
            cudnnConvolutionFwdAlgoPerf_t perf[kMax];
            CK_DNN(cudnnFindConvolutionForwardAlgorithmEx(C->dnn, cv->xd, x.p, cv->wd, w, cv->cd, cv->yd, y.p,
                                                          kMax, &found, perf, C->ws, wsb));
            ok = pick(C, perf, found, cv, true);
        } else if (cv->g.op == OP_BWD_DATA) {
            cudnnConvolutionBwdDataAlgoPerf_t perf[kMax];
            CK_DNN(cudnnFindConvolutionBackwardDataAlgorithmEx(C->dnn, cv->wd, w, cv->yd, y.p, cv->cd, cv->xd,
                                                               x.p, kMax, &found, perf, C->ws, wsb));
            ok = pick(C, perf, found, cv, true);
        } else {
            cudnnConvolutionBwdFilterAlgoPerf_t perf[kMax];
            CK_DNN(cudnnFindConvolutionBackwardFilterAlgorithmEx(C->dnn, cv->xd, x.p, cv->yd, y.p, cv->cd, cv->wd,
                                                                 dw, kMax, &found, perf, C->ws, wsb));
            ok = pick(C, perf, found, cv, true);
        }
    } else {
        if (cv->g.op == OP_FWD) {
            cudnnConvolutionFwdAlgoPerf_t perf[kMax];
            CK_DNN(cudnnGetConvolutionForwardAlgorithm_v7(C->dnn, cv->xd, cv->wd, cv->cd, cv->yd, kMax, &found, perf));
            ok = pick(C, perf, found, cv, false);
        } else if (cv->g.op == OP_BWD_DATA) {
            cudnnConvolutionBwdDataAlgoPerf_t perf[kMax];
            CK_DNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(C->dnn, cv->wd, cv->yd, cv->cd, cv->xd, kMax, &found, perf));
            ok = pick(C, perf, found, cv, false);
        } else {
            cudnnConvolutionBwdFilterAlgoPerf_t perf[kMax];
            CK_DNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(C->dnn, cv->xd, cv->yd, cv->cd, cv->wd, kMax, &found, perf));
            ok = pick(C, perf, found, cv, false);
        }
    }
    CHECK(ok,
          "cuDNN offers no usable %s algorithm (%d candidates) for x %dx%dx%dx%d, y %dx%dx%dx%d, "
          "k %d, stride %d, pad %d, dilation %d, groups %d, %s within a %.3g GB workspace",
          op_name(cv->g.op), found, cv->g.n, cv->g.xc, cv->g.xh, cv->g.xw, cv->g.n, cv->g.yc,
          cv->g.yh, cv->g.yw, cv->g.k, cv->g.stride, cv->g.pad, cv->g.dil, cv->g.groups,
          prec_name(C->prec), (double)C->ws_cap / 1e9);
    CK_DNN(cudnnSetConvolutionMathType(cv->cd, cv->math));
    cv->ws = std::max(cv->ws, kcu_conv_ws_size(C, cv));
    C->ws_need = std::max(C->ws_need, cv->ws);
    C->tuned_since_sync = 1;
    C->tune_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (getenv("EXADL_CUDA_VERBOSE"))
        fprintf(stderr,
                "stemdl: cuDNN %s x %dx%dx%dx%d y %dx%dx%dx%d k %d s %d: algo %d, math %s, "
                "workspace %zu B, %.3f ms\n",
                op_name(cv->g.op), cv->g.n, cv->g.xc, cv->g.xh, cv->g.xw, cv->g.n, cv->g.yc, cv->g.yh,
                cv->g.yw, cv->g.k, cv->g.stride, cv->algo, math_name(cv->math), cv->ws, cv->time_ms);
}

Conv *kcu_conv_for(Ctx *C, int op, const tview *X, const tview *Y, const kern_dconv *cg)
{
    int k = cg->k, stride = cg->stride, groups = kern_dconv_groups(cg);
    Geo g;
    memset(&g, 0, sizeof g);
    g.op = op;
    g.n = X->n;
    g.xc = X->c, g.xh = X->h, g.xw = X->w, g.xss = X->sstride;
    g.yc = Y->c, g.yh = Y->h, g.yw = Y->w, g.yss = Y->sstride;
    g.k = k;
    g.stride = stride;
    g.pad = cg->pad;
    g.dil = cg->dil;
    g.groups = groups;
    for (Conv *cv : C->convs)
        if (cv->g == g) return cv;
    Conv *cv = new Conv();
    cv->g = g;
    CK_DNN(cudnnCreateTensorDescriptor(&cv->xd));
    CK_DNN(cudnnCreateTensorDescriptor(&cv->yd));
    CK_DNN(cudnnCreateFilterDescriptor(&cv->wd));
    CK_DNN(cudnnCreateConvolutionDescriptor(&cv->cd));
    set_tensor(C, cv->xd, X);
    set_tensor(C, cv->yd, Y);
    CK_DNN(cudnnSetFilter4dDescriptor(cv->wd, C->dt, CUDNN_TENSOR_NCHW, Y->c, X->c / groups, k, k));
    CK_DNN(cudnnSetConvolution2dDescriptor(cv->cd, g.pad, g.pad, stride, stride, g.dil, g.dil,
                                           CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CK_DNN(cudnnSetConvolutionGroupCount(cv->cd, groups));
    cv->algo = -1;
    C->convs.push_back(cv);
    return cv;
}
