/* kern_cuda_conv3d.cu: the 3D convolutions of the CUDA set (kern.h "3D
 * kernels", docs/cosmoflow.md): k x k x k valid convolutions through cuDNN's
 * Nd descriptors (5-D tensors with the views' own strides, so channels-last
 * activations and sub-boxes of halo-padded buffers go in as they are).
 *
 *   conv3d fwd          cudnnConvolutionForward, no padding
 *   conv3d bwd_data     cudnnConvolutionBackwardData with padding k-1: the
 *                       halo-padded dy is the output of a convolution of dx
 *                       padded by k-1, which is exactly "dy carries the halo"
 *   conv3d bwd_weights  cudnnConvolutionBackwardFilter, no padding; in bf16
 *                       and fp16 through a 16-bit buffer widened to fp32
 *
 * The 2D path's rules (kern_cuda_conv.cu; the pure parts in
 * kern_cuda_policy.h, unit-tested without a GPU): algorithms from cuDNN's
 * heuristics, the first that fits the workspace cap and the precision's
 * math rule (fp32 FMA only: DEFAULT would be TF32 on sm80+), once per
 * problem, and the next of its ranking when one fails at run time; views
 * past cuDNN's 2^31-element indexing cut into sample chunks.  The filter
 * goes in the data's layout (NHWC for channels-last activations, through a
 * transposed copy of the weights; NCHW where cuDNN offers nothing for it).
 * Operands cuDNN would get misaligned go through a dense aligned copy.
 *
 * Compiled wherever CUDA is found; run only on a GPU (tests skip elsewhere). */
#include <algorithm>
#include <climits>

#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"
#include "benchmarks/train/kernels/cuda/kern_cuda_policy.h"

enum { C3_FWD = 0, C3_BWD_DATA = 1, C3_BWD_FILTER = 2 };

static const char *c3_name(int op)
{
    return op == C3_FWD ? "forward" : op == C3_BWD_DATA ? "data-gradient" : "weight-gradient";
}

struct Conv3 {
    int op, k, n, xc, yc, x[3], y[3], layout;
    long long xs[5], ys[5];
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    std::vector<kcu_algo_cand> cands;   /* cuDNN's ranking (kern_cuda_policy.h) */
    std::vector<cudnnMathType_t> maths; /* each candidate's math mode */
    int cur;                            /* the candidate in use */
};

enum { ST_X, ST_Y, ST_W, ST_WA, ST_DW, ST_N };
struct Cuda3d {
    std::vector<Conv3 *> convs;
    void *stage[ST_N];         /* stand-ins: x, y (aligned dense), w (NHWC), w (NCHW aligned), dw */
    size_t stage_bytes[ST_N];
};

static Cuda3d *state(Ctx *C)
{
    if (!C->c3d) C->c3d = new Cuda3d();
    return C->c3d;
}

static int to_int(long long v, const char *what)
{
    CHECK(v >= 0 && v <= INT_MAX, "%s %lld does not fit cuDNN's int descriptors", what, v);
    return (int)v;
}

static void set_nd(const Ctx *C, cudnnTensorDescriptor_t d, const t3view *t)
{
    int dims[5] = {t->n, t->c, t->d, t->h, t->w};
    int str[5] = {to_int(t->sn, "stride"), to_int(t->sc, "stride"), to_int(t->sd, "stride"),
                  to_int(t->sh, "stride"), to_int(t->sw, "stride")};
    CK_DNN(cudnnSetTensorNdDescriptor(d, C->dt, 5, dims, str));
}

/* cuDNN's ranking as kern_cuda_policy.h's candidates. */
template <typename Perf> static void take(Conv3 *cv, const Perf *perf, int n)
{
    for (int i = 0; i < n; i++) {
        kcu_algo_cand c = {(int)perf[i].algo, perf[i].status == CUDNN_STATUS_SUCCESS, policy_math(perf[i].mathType),
                           perf[i].memory};
        cv->cands.push_back(c);
        cv->maths.push_back(perf[i].mathType);
    }
}

/* The problem of (op, X = cuDNN's x, Y = cuDNN's y, k, filter layout):
 * created and given its ranked algorithms at the first call (cur -1 when
 * none is usable).  The math rule is the 2D path's (kcu_math_allowed: fp32
 * FMA only, never DEFAULT, which is TF32 on sm80+). */
static Conv3 *conv3_for(Ctx *C, int op, const t3view *X, const t3view *Y, int k, int layout)
{
    Cuda3d *S = state(C);
    Conv3 key{};
    key.op = op, key.k = k, key.n = X->n, key.xc = X->c, key.yc = Y->c, key.layout = layout;
    key.x[0] = X->d, key.x[1] = X->h, key.x[2] = X->w;
    key.y[0] = Y->d, key.y[1] = Y->h, key.y[2] = Y->w;
    long long xs[5] = {X->sn, X->sc, X->sd, X->sh, X->sw}, ys[5] = {Y->sn, Y->sc, Y->sd, Y->sh, Y->sw};
    memcpy(key.xs, xs, sizeof xs);
    memcpy(key.ys, ys, sizeof ys);
    for (Conv3 *cv : S->convs)
        if (cv->op == key.op && cv->k == k && cv->n == key.n && cv->xc == key.xc && cv->yc == key.yc &&
            cv->layout == layout && !memcmp(cv->x, key.x, sizeof key.x) && !memcmp(cv->y, key.y, sizeof key.y) &&
            !memcmp(cv->xs, key.xs, sizeof key.xs) && !memcmp(cv->ys, key.ys, sizeof key.ys))
            return cv;
    Conv3 *cv = new Conv3(key);
    CK_DNN(cudnnCreateTensorDescriptor(&cv->xd));
    CK_DNN(cudnnCreateTensorDescriptor(&cv->yd));
    CK_DNN(cudnnCreateFilterDescriptor(&cv->wd));
    CK_DNN(cudnnCreateConvolutionDescriptor(&cv->cd));
    set_nd(C, cv->xd, X);
    set_nd(C, cv->yd, Y);
    int wdims[5] = {Y->c, X->c, k, k, k};
    CK_DNN(cudnnSetFilterNdDescriptor(cv->wd, C->dt, layout == KCU_LAYOUT_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                      5, wdims));
    int p = op == C3_BWD_DATA ? k - 1 : 0;
    int pad[3] = {p, p, p}, one[3] = {1, 1, 1};
    CK_DNN(cudnnSetConvolutionNdDescriptor(cv->cd, 3, pad, one, one, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CK_DNN(cudnnSetConvolutionMathType(cv->cd, C->math_req));
    /* a query cuDNN refuses (a layout it does not take for this problem)
     * leaves the problem without candidates: conv3_one tries the other
     * filter layout before giving up */
    const int kMax = 32;
    int found = 0;
    cudnnStatus_t q;
    if (op == C3_FWD) {
        cudnnConvolutionFwdAlgoPerf_t perf[kMax];
        q = cudnnGetConvolutionForwardAlgorithm_v7(C->dnn, cv->xd, cv->wd, cv->cd, cv->yd, kMax, &found, perf);
        if (q == CUDNN_STATUS_SUCCESS) take(cv, perf, found);
    } else if (op == C3_BWD_DATA) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[kMax];
        q = cudnnGetConvolutionBackwardDataAlgorithm_v7(C->dnn, cv->wd, cv->yd, cv->cd, cv->xd, kMax, &found, perf);
        if (q == CUDNN_STATUS_SUCCESS) take(cv, perf, found);
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[kMax];
        q = cudnnGetConvolutionBackwardFilterAlgorithm_v7(C->dnn, cv->xd, cv->yd, cv->cd, cv->wd, kMax, &found, perf);
        if (q == CUDNN_STATUS_SUCCESS) take(cv, perf, found);
    }
    cv->cur = kcu_next_algo(cv->cands.data(), (int)cv->cands.size(), 0, policy_prec(C->prec), C->ws_cap);
    if (cv->cur >= 0) CK_DNN(cudnnSetConvolutionMathType(cv->cd, cv->maths[cv->cur]));
    S->convs.push_back(cv);
    return cv;
}

/* One call with the problem's current algorithm; cuDNN's status back. */
static cudnnStatus_t conv3_exec(Ctx *C, Conv3 *cv, const t3view *X, const t3view *Y, const void *w, void *dw,
                                float beta)
{
    const kcu_algo_cand &a = cv->cands[cv->cur];
    if (a.ws_bytes) kcu_ensure(C, &C->ws, &C->ws_bytes, a.ws_bytes, "cuDNN workspace");
    float one = 1.0f;
    if (cv->op == C3_FWD)
        return cudnnConvolutionForward(C->dnn, &one, cv->xd, X->p, cv->wd, w, cv->cd, (cudnnConvolutionFwdAlgo_t)a.algo,
                                       C->ws, a.ws_bytes, &beta, cv->yd, Y->p);
    if (cv->op == C3_BWD_DATA)
        return cudnnConvolutionBackwardData(C->dnn, &one, cv->wd, w, cv->yd, Y->p, cv->cd,
                                            (cudnnConvolutionBwdDataAlgo_t)a.algo, C->ws, a.ws_bytes, &beta, cv->xd,
                                            X->p);
    return cudnnConvolutionBackwardFilter(C->dnn, &one, cv->xd, X->p, cv->yd, Y->p, cv->cd,
                                          (cudnnConvolutionBwdFilterAlgo_t)a.algo, C->ws, a.ws_bytes, &beta, cv->wd,
                                          dw);
}

/* The call; when the algorithm cuDNN ranked first fails at run time, the
 * next usable one in its ranking (kcu_next_algo), kept for later calls;
 * fatal only when none is left. */
static void conv3_run(Ctx *C, Conv3 *cv, const t3view *X, const t3view *Y, const void *w, void *dw, float beta)
{
    for (;;) {
        cudnnStatus_t st = conv3_exec(C, cv, X, Y, w, dw, beta);
        if (st == CUDNN_STATUS_SUCCESS) return;
        (void)cudaGetLastError(); /* a failed launch leaves its (non-sticky) error behind */
        int failed = cv->cur;
        cv->cur = kcu_next_algo(cv->cands.data(), (int)cv->cands.size(), failed + 1, policy_prec(C->prec), C->ws_cap);
        CHECK(cv->cur >= 0,
              "cuDNN 3D %s, %d -> %d channels, k %d, %s: algorithm %d failed (%s) and no other usable "
              "algorithm is left of %zu",
              c3_name(cv->op), cv->xc, cv->yc, cv->k, prec_name(C->prec), cv->cands[failed].algo,
              cudnnGetErrorString(st), cv->cands.size());
        fprintf(stderr, "%s: cuDNN 3D %s, %d -> %d channels, k %d: algorithm %d failed (%s); falling back to %d\n",
                check_program(), c3_name(cv->op), cv->xc, cv->yc, cv->k, cv->cands[failed].algo,
                cudnnGetErrorString(st), cv->cands[cv->cur].algo);
        CK_DNN(cudnnSetConvolutionMathType(cv->cd, cv->maths[cv->cur]));
    }
}

static bool aligned16(const void *p) { return ((uintptr_t)p % 16) == 0; }

/* A dense channels-last copy of v in stand-in `which` (values copied when in). */
static t3view stage(Ctx *C, const t3view *v, int which, bool in)
{
    Cuda3d *S = state(C);
    t3view d = *v;
    d.sc = 1, d.sw = v->c, d.sh = (int64_t)v->c * v->w, d.sd = d.sh * v->h, d.sn = d.sd * v->d;
    kcu_ensure(C, &S->stage[which], &S->stage_bytes[which], (size_t)t3view_elems(v) * C->esz, "aligned 3D stand-in");
    d.p = S->stage[which];
    if (in) kcu_op_copy3d(C, v, &d);
    return d;
}

/* The weights [co][ci][k][k][k] (kern.h) as a 5-D view, in the filter
 * layout: NCHW is the array as it is, NHWC is [co][k][k][k][ci]. */
static t3view wview(const void *p, int co, int ci, int k, int layout)
{
    int64_t k3 = (int64_t)k * k * k;
    t3view v = {(void *)p, co, ci, k, k, k, (int64_t)ci * k3, k3, (int64_t)k * k, k, 1};
    if (layout == KCU_LAYOUT_NHWC) v.sc = 1, v.sd = (int64_t)k * k * ci, v.sh = (int64_t)k * ci, v.sw = ci;
    return v;
}

/* The weights of one conv3 call in the layout each chunk's problem takes:
 * w as given, or an aligned copy in that layout made on first need; the
 * weight gradient in the layout of the first chunk (the later ones add into
 * it), copied back into dw at the end when it is not dw itself. */
struct W3 {
    const void *w;
    void *dw;
    int co, ci, k;
    const void *w_in[2]; /* per layout; NULL until asked */
    void *dw_in;         /* where cuDNN writes the gradient; NULL until asked */
    int dw_layout;
};

static const void *w_for(Ctx *C, W3 *W, int layout)
{
    if (W->w_in[layout]) return W->w_in[layout];
    if (layout == KCU_LAYOUT_NCHW && aligned16(W->w)) return W->w_in[layout] = W->w;
    Cuda3d *S = state(C);
    int slot = layout == KCU_LAYOUT_NHWC ? ST_W : ST_WA;
    kcu_ensure(C, &S->stage[slot], &S->stage_bytes[slot], (size_t)W->co * W->ci * W->k * W->k * W->k * C->esz,
               "3D weights in the filter layout");
    t3view from = wview(W->w, W->co, W->ci, W->k, KCU_LAYOUT_NCHW), to = wview(S->stage[slot], W->co, W->ci, W->k, layout);
    kcu_op_copy3d(C, &from, &to);
    return W->w_in[layout] = S->stage[slot];
}

static void *dw_for(Ctx *C, W3 *W, int layout)
{
    if (W->dw_in) return W->dw_in;
    W->dw_layout = layout;
    if (layout == KCU_LAYOUT_NCHW && aligned16(W->dw)) return W->dw_in = W->dw;
    Cuda3d *S = state(C);
    kcu_ensure(C, &S->stage[ST_DW], &S->stage_bytes[ST_DW], (size_t)W->co * W->ci * W->k * W->k * W->k * C->esz,
               "3D weight gradient in the filter layout");
    return W->dw_in = S->stage[ST_DW];
}

static void dw_done(Ctx *C, W3 *W)
{
    if (!W->dw_in || W->dw_in == W->dw) return;
    t3view from = wview(W->dw_in, W->co, W->ci, W->k, W->dw_layout), to = wview(W->dw, W->co, W->ci, W->k, KCU_LAYOUT_NCHW);
    kcu_op_copy3d(C, &from, &to);
}

/* One cuDNN call on X (cuDNN's x) and Y (its y), views cuDNN can index;
 * misaligned views go through dense aligned stand-ins.  The filter layout
 * is `layout` where cuDNN offers a usable algorithm for it, else NCHW; the
 * weight gradient's chunks keep the first chunk's. */
static void conv3_one(Ctx *C, int op, const t3view *Xv, const t3view *Yv, W3 *W, float beta, int layout)
{
    bool x_out = op == C3_BWD_DATA, y_out = op == C3_FWD;
    bool xs = !aligned16(Xv->p), ys = !aligned16(Yv->p);
    t3view X = xs ? stage(C, Xv, ST_X, !x_out || beta != 0.0f) : *Xv;
    t3view Y = ys ? stage(C, Yv, ST_Y, !y_out || beta != 0.0f) : *Yv;
    if (op == C3_BWD_FILTER && W->dw_in) layout = W->dw_layout;
    Conv3 *cv = conv3_for(C, op, &X, &Y, W->k, layout);
    if (cv->cur < 0 && layout != KCU_LAYOUT_NCHW && !(op == C3_BWD_FILTER && W->dw_in))
        cv = conv3_for(C, op, &X, &Y, W->k, KCU_LAYOUT_NCHW);
    CHECK(cv->cur >= 0, "cuDNN offers no usable 3D %s algorithm (%zu candidates) for %d -> %d channels, k %d, %s",
          c3_name(op), cv->cands.size(), X.c, Y.c, W->k, prec_name(C->prec));
    const void *w = op == C3_BWD_FILTER ? NULL : w_for(C, W, cv->layout);
    void *dw = op == C3_BWD_FILTER ? dw_for(C, W, cv->layout) : NULL;
    conv3_run(C, cv, &X, &Y, w, dw, beta);
    if (xs && x_out) kcu_op_copy3d(C, &X, Xv);
    if (ys && y_out) kcu_op_copy3d(C, &Y, Yv);
}

/* A 3D convolution: X is cuDNN's x, Y its y (the directions as in
 * kern_cuda_conv.cu's conv_call).  The filter goes to cuDNN in the data's
 * layout (kcu_filter_layout: channels-last data, an NHWC filter, through a
 * transposed copy of w, and of dw back); views spanning more elements than
 * cuDNN indexes are cut into calls over fewer samples (kcu_chunk_samples
 * over kcu_span3), the weight gradient summing the chunks'; a sample that
 * alone spans more is refused in one line naming the limit. */
static void conv3(Ctx *C, int op, const t3view *Xv, const t3view *Yv, const void *w, void *dw, int k)
{
    if (t3view_elems(Xv) == 0 || t3view_elems(Yv) == 0) return;
    CHECK(Xv->n == Yv->n, "3D convolution: %d samples in, %d out", Xv->n, Yv->n);
    int64_t xspan = kcu_span3(Xv->c, Xv->d, Xv->h, Xv->w, Xv->sc, Xv->sd, Xv->sh, Xv->sw);
    int64_t yspan = kcu_span3(Yv->c, Yv->d, Yv->h, Yv->w, Yv->sc, Yv->sd, Yv->sh, Yv->sw);
    int m = kcu_chunk_samples(Xv->n, Xv->sn, xspan, Yv->sn, yspan, C->dnn_max_elems);
    CHECK(m > 0,
          "3D convolution: one sample of x (%d x %dx%dx%d, %lld elements from first to last) or y (%d x %dx%dx%d, "
          "%lld) spans more than the %lld elements cuDNN's convolutions index (2^31 - 1 at most): split the volume "
          "over more ranks (--spatial)",
          Xv->c, Xv->d, Xv->h, Xv->w, (long long)xspan, Yv->c, Yv->d, Yv->h, Yv->w, (long long)yspan,
          (long long)C->dnn_max_elems);
    int layout = kcu_filter_layout(Xv->c, Xv->sc, Yv->c, Yv->sc);
    W3 W = {w, dw, Yv->c, Xv->c, k, {NULL, NULL}, NULL, KCU_LAYOUT_NCHW};
    for (int s0 = 0; s0 < Xv->n; s0 += m) {
        t3view Xc = *Xv, Yc = *Yv;
        Xc.n = Yc.n = std::min(m, Xv->n - s0);
        Xc.p = (char *)Xv->p + (size_t)s0 * (size_t)Xv->sn * C->esz;
        Yc.p = (char *)Yv->p + (size_t)s0 * (size_t)Yv->sn * C->esz;
        /* one sample: its stride is never used, and may not fit an int */
        if (Xc.n == 1) Xc.sn = xspan, Yc.sn = yspan;
        conv3_one(C, op, &Xc, &Yc, &W, op == C3_BWD_FILTER && s0 > 0 ? 1.0f : 0.0f, layout);
    }
    if (op == C3_BWD_FILTER) dw_done(C, &W);
}

static void op_conv3d_fwd(void *c, const t3view *x, const void *w, int k, const t3view *y)
{
    conv3(ctx_of(c), C3_FWD, x, y, w, NULL, k);
}

static void op_conv3d_bwd_data(void *c, const t3view *dy, const void *w, int k, const t3view *dx)
{
    conv3(ctx_of(c), C3_BWD_DATA, dx, dy, w, NULL, k);
}

/* fp32 straight into the gradient; 16 bits through dw16 widened (as 2D). */
static void op_conv3d_bwd_weights(void *c, const t3view *x, const t3view *dy, int k, void *dw)
{
    Ctx *C = ctx_of(c);
    int64_t n = (int64_t)x->c * dy->c * k * k * k;
    if (C->elem == E_F32) {
        conv3(C, C3_BWD_FILTER, x, dy, NULL, dw, k);
        return;
    }
    kcu_ensure(C, &C->dw16, &C->dw16_bytes, (size_t)n * C->esz, "16-bit weight gradient");
    conv3(C, C3_BWD_FILTER, x, dy, NULL, C->dw16, k);
    kcu_to_f32(C, C->dw16, (float *)dw, n);
}

void kcu_fill_conv3d(kern_ops *o)
{
    o->conv3d_fwd = op_conv3d_fwd;
    o->conv3d_bwd_data = op_conv3d_bwd_data;
    o->conv3d_bwd_weights = op_conv3d_bwd_weights;
}

void kcu_release_3d(Ctx *C)
{
    Cuda3d *S = C->c3d;
    if (!S) return;
    for (Conv3 *cv : S->convs) {
        CK_DNN(cudnnDestroyTensorDescriptor(cv->xd));
        CK_DNN(cudnnDestroyTensorDescriptor(cv->yd));
        CK_DNN(cudnnDestroyFilterDescriptor(cv->wd));
        CK_DNN(cudnnDestroyConvolutionDescriptor(cv->cd));
        delete cv;
    }
    for (void *p : S->stage) kcu_dev_free(C, p);
    delete S;
    C->c3d = NULL;
}
