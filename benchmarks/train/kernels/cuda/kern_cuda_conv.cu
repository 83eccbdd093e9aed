/* kern_cuda_conv.cu: the convolutions of the CUDA kernel set (kern_cuda.h,
 * docs/stemdl-gpu.md).
 *
 * Convolutions (k x k SAME, 1x1, the 1x1 stride-2 transposed convolution, and
 * the segmentation set's dilated and grouped ones of any stride and padding:
 * every call carries a kern_dconv geometry) are cuDNN's legacy convolution
 * API on strided NCHW descriptors: a channel window of a dense block's
 * buffer is described by its strides (n: sstride,
 * c: h*w, h: w, w: 1), so layers read the concatenation in place.  The
 * transposed convolution is expressed through a 1x1 stride-2 convolution
 * "C2" whose input is the transposed convolution's output:
 *     tconv forward        = C2 backward-data   (beta 0: the odd pixels become 0)
 *     tconv data gradient  = C2 forward          (beta 1: accumulates)
 *     tconv weight gradient= C2 backward-filter  (C2's filter [K=c_in][C=c_out] is
 *                                                 the tconv's [c_in][c_out] layout)
 * Every distinct problem (shape, strides, direction) gets its algorithm once,
 * at its first call (kern_cuda_algo.cu); the choice is cached with the rest
 * of the ranked list, whose next usable algorithm replaces the choice when a
 * call fails at run time (here: conv_run; kcu_next_algo, kern_cuda_policy.h).
 * Operands cuDNN cannot take as they are (misaligned, or spanning more than
 * it indexes) go through aligned stand-ins or chunks of samples (conv_call).
 * One workspace serves every call; it is sized to the largest choice once the
 * step that made the choices ends. */
#include <algorithm>

#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"
#include "benchmarks/train/kernels/cuda/kern_cuda_policy.h"

/* ---- convolutions through cuDNN ---------------------------------------------------- */

/* cuDNN wants its operands aligned (16 bytes serves its vector loads; it
 * documents 4 at the least).  A channel window of a 16-bit buffer with an odd
 * plane, or a layer's weights at an odd offset of the flat parameter array,
 * is not: such an operand goes through an aligned copy.  gb2019's
 * activations are always aligned (planes of 4096 to 262144 pixels); its
 * weights mostly are not, which costs a copy of the weights per call (about
 * 1 GB of device traffic per step, a fraction of a millisecond). */
enum { AL_X, AL_Y, AL_W, AL_DW };
static const size_t kAlign = 16;

static bool misaligned(const void *p) { return ((uintptr_t)p % kAlign) != 0; }

static bool view_misaligned(const Ctx *C, const tview *t)
{
    return misaligned(t->p) || (t->n > 1 && ((size_t)t->sstride * C->esz) % kAlign != 0);
}

/* A dense, aligned copy of a view's shape in stand-in buffer `which`, holding
 * the view's values when copy_in. */
static tview stage_view(Ctx *C, const tview *t, int which, bool copy_in)
{
    tview d = *t;
    int64_t per = (int64_t)(kAlign / C->esz), len = (int64_t)t->c * t->h * t->w;
    d.sstride = (len + per - 1) / per * per;
    kcu_ensure(C, &C->al[which], &C->al_bytes[which], (size_t)d.sstride * t->n * C->esz, "aligned stand-in");
    d.p = C->al[which];
    if (copy_in)
        kcu_copy_rows(C, d.p, (size_t)d.sstride * C->esz, t->p, (size_t)t->sstride * C->esz, (size_t)len * C->esz,
                      (size_t)t->n, cudaMemcpyDeviceToDevice);
    return d;
}

static void unstage_view(Ctx *C, const tview *staged, const tview *t)
{
    size_t len = (size_t)t->c * t->h * t->w;
    kcu_copy_rows(C, t->p, (size_t)t->sstride * C->esz, staged->p, (size_t)staged->sstride * C->esz, len * C->esz,
                  (size_t)t->n, cudaMemcpyDeviceToDevice);
}

static void conv_run(Ctx *C, int op, const tview *X, const tview *Y, const void *w, void *dw,
                     const kern_dconv *cg, float beta);

/* One convolution call.  X is cuDNN's x (the convolution's input), Y its y.
 *   OP_FWD:        Y = conv(X, w)      (+ beta * Y)
 *   OP_BWD_DATA:   X = conv_T(Y, w)    (+ beta * X)
 *   OP_BWD_FILTER: dw = X (*) Y        (+ beta * dw)
 * Views spanning more elements than cuDNN indexes are cut into calls over
 * fewer samples (kern_cuda_policy.h); the filter gradient sums the chunks'
 * (in the data's type: in bf16/fp16 one more rounding per chunk). */
static void conv_call(Ctx *C, int op, const tview *X, const tview *Y, const void *w, void *dw,
                      const kern_dconv *cg, float beta)
{
    int k = cg->k, G = kern_dconv_groups(cg);
    CHECK(X->n == Y->n, "convolution: %d samples in, %d out", X->n, Y->n);
    CHECK(k >= 1 && cg->stride >= 1 && cg->dil >= 1 && cg->pad >= 0,
          "convolution: kernel %d, stride %d, dilation %d, padding %d", k, cg->stride, cg->dil, cg->pad);
    CHECK(X->c % G == 0 && Y->c % G == 0, "convolution: %d and %d channels in %d groups", X->c, Y->c, G);
    CHECK(Y->h == kern_dconv_out(X->h, cg) && Y->w == kern_dconv_out(X->w, cg),
          "convolution: image %dx%d in, %dx%d out (k %d, stride %d, pad %d, dilation %d)", X->h, X->w, Y->h,
          Y->w, k, cg->stride, cg->pad, cg->dil);
    if (tview_elems(X) == 0 || tview_elems(Y) == 0) return;
    int64_t xlen = (int64_t)X->c * X->h * X->w, ylen = (int64_t)Y->c * Y->h * Y->w;
    int m = kcu_chunk_samples(X->n, X->sstride, xlen, Y->sstride, ylen, C->dnn_max_elems);
    CHECK(m > 0,
          "convolution: one sample of x (%lld elements) or y (%lld) spans more than the %lld "
          "elements cuDNN can index",
          (long long)xlen, (long long)ylen, (long long)C->dnn_max_elems);
    if (m < X->n) {
        for (int s0 = 0; s0 < X->n; s0 += m) {
            tview Xc = *X, Yc = *Y;
            Xc.n = Yc.n = std::min(m, X->n - s0);
            Xc.p = (char *)X->p + (size_t)s0 * (size_t)X->sstride * C->esz;
            Yc.p = (char *)Y->p + (size_t)s0 * (size_t)Y->sstride * C->esz;
            float b = op == OP_BWD_FILTER && s0 > 0 ? 1.0f : beta;
            conv_call(C, op, &Xc, &Yc, w, dw, cg, b);
        }
        return;
    }
    bool x_out = op == OP_BWD_DATA, y_out = op == OP_FWD;
    bool xs = view_misaligned(C, X), ys = view_misaligned(C, Y);
    bool wst = w && misaligned(w), dwst = op == OP_BWD_FILTER && misaligned(dw);
    if (!xs && !ys && !wst && !dwst) {
        conv_run(C, op, X, Y, w, dw, cg, beta);
        return;
    }
    tview Xa = xs ? stage_view(C, X, AL_X, !x_out || beta != 0.0f) : *X;
    tview Ya = ys ? stage_view(C, Y, AL_Y, !y_out || beta != 0.0f) : *Y;
    size_t wbytes = (size_t)Y->c * (X->c / G) * k * k * C->esz;
    const void *wa = w;
    if (wst) {
        kcu_ensure(C, &C->al[AL_W], &C->al_bytes[AL_W], wbytes, "aligned stand-in");
        CK_CUDA(cudaMemcpyAsync(C->al[AL_W], w, wbytes, cudaMemcpyDeviceToDevice, C->s));
        wa = C->al[AL_W];
    }
    void *dwa = dw;
    if (dwst) {
        kcu_ensure(C, &C->al[AL_DW], &C->al_bytes[AL_DW], wbytes, "aligned stand-in");
        dwa = C->al[AL_DW];
        if (beta != 0.0f) CK_CUDA(cudaMemcpyAsync(dwa, dw, wbytes, cudaMemcpyDeviceToDevice, C->s));
    }
    conv_run(C, op, &Xa, &Ya, wa, dwa, cg, beta);
    if (xs && x_out) unstage_view(C, &Xa, X);
    if (ys && y_out) unstage_view(C, &Ya, Y);
    if (dwst) CK_CUDA(cudaMemcpyAsync(dw, dwa, wbytes, cudaMemcpyDeviceToDevice, C->s));
}

/* One call with the problem's current algorithm; cuDNN's status back. */
static cudnnStatus_t conv_exec(Ctx *C, Conv *cv, const tview *X, const tview *Y, const void *w, void *dw, float beta)
{
    if (cv->ws) kcu_ensure(C, &C->ws, &C->ws_bytes, cv->ws, "cuDNN workspace");
    float one = 1.0f;
    if (cv->g.op == OP_FWD)
        return cudnnConvolutionForward(C->dnn, &one, cv->xd, X->p, cv->wd, w, cv->cd, (cudnnConvolutionFwdAlgo_t)cv->algo,
                                       C->ws, cv->ws, &beta, cv->yd, Y->p);
    if (cv->g.op == OP_BWD_DATA)
        return cudnnConvolutionBackwardData(C->dnn, &one, cv->wd, w, cv->yd, Y->p, cv->cd,
                                            (cudnnConvolutionBwdDataAlgo_t)cv->algo, C->ws, cv->ws, &beta, cv->xd,
                                            X->p);
    return cudnnConvolutionBackwardFilter(C->dnn, &one, cv->xd, X->p, cv->yd, Y->p, cv->cd,
                                          (cudnnConvolutionBwdFilterAlgo_t)cv->algo, C->ws, cv->ws, &beta, cv->wd, dw);
}

/* conv_call on operands cuDNN can take as they are.  When the chosen
 * algorithm fails at run time (cuDNN returns a status: unsupported here, a
 * launch that fails), the next usable one of the problem's ranked list is
 * taken and kept (kcu_next_algo), with one line on stderr; only an
 * exhausted list is fatal.  A failed call has written nothing the retry
 * depends on: beta applies to the output as it was. */
static void conv_run(Ctx *C, int op, const tview *X, const tview *Y, const void *w, void *dw,
                     const kern_dconv *cg, float beta)
{
    Conv *cv = kcu_conv_for(C, op, X, Y, cg);
    if (cv->algo < 0) kcu_conv_tune(C, cv, X, w, Y, dw, beta != 0.0f);
    for (;;) {
        cudnnStatus_t st = conv_exec(C, cv, X, Y, w, dw, beta);
        if (st == CUDNN_STATUS_SUCCESS) return;
        (void)cudaGetLastError(); /* a failed launch leaves its (non-sticky) error behind */
        int failed = cv->cur, n = (int)cv->cands.size();
        cv->cur = kcu_next_algo(cv->cands.data(), n, failed + 1, policy_prec(C->prec), C->ws_cap);
        CHECK(cv->cur >= 0,
              "cuDNN %s x %dx%dx%dx%d y %dx%dx%dx%d k %d s %d, %s: algorithm %d failed (%s) and no other "
              "usable algorithm is left of %d",
              op_name(op), cv->g.n, cv->g.xc, cv->g.xh, cv->g.xw, cv->g.n, cv->g.yc, cv->g.yh, cv->g.yw, cv->g.k,
              cv->g.stride, prec_name(C->prec), cv->algo, cudnnGetErrorString(st), n);
        fprintf(stderr, "%s: cuDNN %s x %dx%dx%dx%d k %d: algorithm %d failed (%s); falling back to %d\n",
                check_program(), op_name(op), cv->g.n, cv->g.xc, cv->g.xh, cv->g.xw, cv->g.k, cv->algo,
                cudnnGetErrorString(st), cv->cands[cv->cur].algo);
        cv->algo = cv->cands[cv->cur].algo;
        cv->math = cv->maths[cv->cur];
        cv->time_ms = cv->times[cv->cur];
        CK_DNN(cudnnSetConvolutionMathType(cv->cd, cv->math));
        cv->ws = std::max(cv->cands[cv->cur].ws_bytes, kcu_conv_ws_size(C, cv));
        C->ws_need = std::max(C->ws_need, cv->ws);
    }
}

/* The weight gradient into the fp32 gradient array: directly in fp32/tf32;
 * through a 16-bit buffer widened to fp32 in bf16/fp16 (cuDNN's filter
 * gradient has the data's type). */
static void filter_grad(Ctx *C, const tview *X, const tview *Y, const kern_dconv *cg, void *dw)
{
    if (C->elem == E_F32) {
        conv_call(C, OP_BWD_FILTER, X, Y, NULL, dw, cg, 0.0f);
        return;
    }
    int64_t n = (int64_t)(X->c / kern_dconv_groups(cg)) * Y->c * cg->k * cg->k;
    kcu_ensure(C, &C->dw16, &C->dw16_bytes, (size_t)n * C->esz, "16-bit weight gradient");
    conv_call(C, OP_BWD_FILTER, X, Y, NULL, C->dw16, cg, 0.0f);
    kcu_to_f32(C, C->dw16, (float *)dw, n);
}

/* k x k SAME (stride 1, padding k/2) and the stride-2 1x1 "C2" */
static kern_dconv same_geom(int k) { return kern_dconv{k, 1, k / 2, 1, 1}; }
static const kern_dconv kC2 = {1, 2, 0, 1, 1};

void kcu_op_conv_fwd(void *c, const tview *x, const void *w, int k, const tview *y)
{
    kern_dconv g = same_geom(k);
    conv_call(ctx_of(c), OP_FWD, x, y, w, NULL, &g, 0.0f);
}

void kcu_op_conv_bwd_data(void *c, const tview *dy, const void *w, int k, const tview *dx)
{
    kern_dconv g = same_geom(k);
    conv_call(ctx_of(c), OP_BWD_DATA, dx, dy, w, NULL, &g, 1.0f);
}

void kcu_op_conv_bwd_weights(void *c, const tview *x, const tview *dy, int k, void *dw)
{
    kern_dconv g = same_geom(k);
    filter_grad(ctx_of(c), x, dy, &g, dw);
}

/* The transposed convolution through the stride-2 convolution C2 whose input
 * is the tconv's output (see the top of the file). */
void kcu_op_tconv_fwd(void *c, const tview *x, const void *w, const tview *y)
{
    conv_call(ctx_of(c), OP_BWD_DATA, y, x, w, NULL, &kC2, 0.0f);
}

void kcu_op_tconv_bwd_data(void *c, const tview *dy, const void *w, const tview *dx)
{
    conv_call(ctx_of(c), OP_FWD, dy, dx, w, NULL, &kC2, 1.0f);
}

void kcu_op_tconv_bwd_weights(void *c, const tview *x, const tview *dy, void *dw)
{
    filter_grad(ctx_of(c), dy, x, &kC2, dw);
}

/* The segmentation set's convolutions (kern.h "dconv"): any stride, padding,
 * dilation (cudnnSetConvolution2dDescriptor's dilation) and group count
 * (cudnnSetConvolutionGroupCount); all three overwrite (beta 0), unlike
 * conv_bwd_data above, which accumulates. */
void kcu_op_dconv_fwd(void *c, const tview *x, const void *w, const kern_dconv *g, const tview *y)
{
    conv_call(ctx_of(c), OP_FWD, x, y, w, NULL, g, 0.0f);
}

void kcu_op_dconv_bwd_data(void *c, const tview *dy, const void *w, const kern_dconv *g, const tview *dx)
{
    conv_call(ctx_of(c), OP_BWD_DATA, dx, dy, w, NULL, g, 0.0f);
}

void kcu_op_dconv_bwd_weights(void *c, const tview *x, const tview *dy, const kern_dconv *g, void *dw)
{
    filter_grad(ctx_of(c), x, dy, g, dw);
}
