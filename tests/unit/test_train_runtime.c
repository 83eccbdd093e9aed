/* The training runtime with a second network: a two-layer conv net defined
 * here, through benchmarks/train/network.h only, trains in the same
 * train_run loop as the FC-DenseNet (loss falls, ranks agree), its FLOPs are
 * counted kernel by kernel (the dry count equals the formulas of flops.h and
 * the count of real steps), and the runtime's record parts take it.  This is
 * the proof that a network plugs in without copying the loop. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/common/ytree.h"
#include "benchmarks/train/backend.h"
#include "benchmarks/train/kernels/flops.h"
#include "benchmarks/train/network.h"
#include "benchmarks/train/runcfg.h"
#include "benchmarks/train/train.h"
#include "benchmarks/train/trec.h"
#include "tests/unit/tap.h"

/* ---- the network: conv 3x3 (c_in -> mid) + bias + ReLU, conv 1x1 (mid -> 1)
 * + bias, L1 loss against a target that is a local function of the input ---- */

typedef struct {
    int c_in, mid, h, w;
    int64_t off_w1, off_b1, off_w2, off_b2, params; /* [w1 b1][w2 b2]: one slice per layer */
} tiny_model;

static void tiny_model_init(tiny_model *m, int c_in, int mid, int h, int w)
{
    m->c_in = c_in, m->mid = mid, m->h = h, m->w = w;
    m->off_w1 = 0;
    m->off_b1 = m->off_w1 + (int64_t)mid * c_in * 9;
    m->off_w2 = m->off_b1 + mid;
    m->off_b2 = m->off_w2 + mid;
    m->params = m->off_b2 + 1;
}

typedef struct {
    const tiny_model *m;
    const kern_ops *ops;
    void *ctx;
    int batch, dry;
    size_t bytes;
    void *in, *hid, *hr, *out, *tg, *dhid, *dhr, *dout; /* activations, act_bytes each */
    float *params, *grads;
    void *wc; /* weights in the compute type (== params where that is fp32) */
} tiny_inst;

static void *grab(tiny_inst *n, size_t bytes, int *failed)
{
    n->bytes += bytes;
    if (n->dry || *failed) return NULL;
    void *p = n->ops->alloc(n->ctx, bytes);
    if (!p) *failed = 1;
    return p;
}

static tview view(const tiny_inst *n, void *p, int c)
{
    return (tview){.p = p, .n = n->batch, .c = c, .h = n->m->h, .w = n->m->w,
                   .sstride = (int64_t)c * n->m->h * n->m->w};
}

static void tiny_release(void *inst)
{
    tiny_inst *n = inst;
    if (!n) return;
    void *all[] = {n->in, n->hid, n->hr, n->out, n->tg, n->dhid, n->dhr, n->dout, n->params, n->grads};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (all[i]) n->ops->release(n->ctx, all[i]);
    if (n->wc && n->wc != (void *)n->params) n->ops->release(n->ctx, n->wc);
    free(n);
}

static void *tiny_create(const void *model, const kern_ops *ops, void *ctx, int batch, int dry,
                         char *err, size_t errlen)
{
    const tiny_model *m = model;
    tiny_inst *n = XCALLOC(1, sizeof *n, "tiny network");
    n->m = m, n->ops = ops, n->ctx = ctx, n->batch = batch, n->dry = dry;
    size_t plane = (size_t)batch * m->h * m->w * ops->act_bytes, pb = (size_t)m->params * sizeof(float);
    int failed = 0;
    n->in = grab(n, plane * m->c_in, &failed);
    n->hid = grab(n, plane * m->mid, &failed);
    n->hr = grab(n, plane * m->mid, &failed);
    n->out = grab(n, plane, &failed);
    n->tg = grab(n, plane, &failed);
    n->dhid = grab(n, plane * m->mid, &failed);
    n->dhr = grab(n, plane * m->mid, &failed);
    n->dout = grab(n, plane, &failed);
    n->params = grab(n, pb, &failed);
    n->grads = grab(n, pb, &failed);
    n->wc = ops->act_bytes == sizeof(float) ? n->params
                                             : grab(n, (size_t)m->params * ops->act_bytes, &failed);
    if (failed) {
        snprintf(err, errlen, "a buffer of the tiny network could not be allocated");
        tiny_release(n);
        return NULL;
    }
    return n;
}

static size_t tiny_bytes(const void *inst) { return ((const tiny_inst *)inst)->bytes; }

static size_t tiny_bytes_needed(const void *model, const kern_ops *ops, int batch)
{
    char err[64];
    tiny_inst *n = tiny_create(model, ops, NULL, batch, 1, err, sizeof err);
    size_t b = n->bytes;
    tiny_release(n);
    return b;
}

static void *wt(const tiny_inst *n, int64_t off)
{
    return n->wc ? (char *)n->wc + (size_t)off * n->ops->act_bytes : NULL;
}
static float *gr(const tiny_inst *n, int64_t off) { return n->grads ? n->grads + off : NULL; }

static double tiny_forward(void *inst, kc_t *kc)
{
    tiny_inst *n = inst;
    const tiny_model *m = n->m;
    tview in = view(n, n->in, m->c_in), hid = view(n, n->hid, m->mid), hr = view(n, n->hr, m->mid);
    tview out = view(n, n->out, 1), tg = view(n, n->tg, 1);
    kc_conv_fwd(kc, "conv1", &in, wt(n, m->off_w1), 3, &hid);
    kc_bias_fwd(kc, "conv1", &hid, wt(n, m->off_b1));
    kc_relu_fwd(kc, "conv1", &hid, &hr);
    kc_conv_fwd(kc, "conv2", &hr, wt(n, m->off_w2), 1, &out);
    kc_bias_fwd(kc, "conv2", &out, wt(n, m->off_b2));
    return kc_l1_fwd(kc, "loss", &out, &tg);
}

static void tiny_backward(void *inst, kc_t *kc, net_grad_ready_fn ready, void *user)
{
    tiny_inst *n = inst;
    const tiny_model *m = n->m;
    tview in = view(n, n->in, m->c_in), hid = view(n, n->hid, m->mid), hr = view(n, n->hr, m->mid);
    tview out = view(n, n->out, 1), tg = view(n, n->tg, 1), dout = view(n, n->dout, 1);
    tview dhid = view(n, n->dhid, m->mid), dhr = view(n, n->dhr, m->mid);
    /* data gradients accumulate ("+="): their buffers start at zero */
    kc_zero(kc, "grad_zero", &dhid);
    kc_zero(kc, "grad_zero", &dhr);
    kc_l1_bwd(kc, "loss", &out, &tg, &dout);
    kc_bias_bwd(kc, "conv2", &dout, gr(n, m->off_b2));
    kc_conv_bwd_weights(kc, "conv2", &hr, &dout, 1, gr(n, m->off_w2));
    if (ready) ready(user, 1, gr(n, m->off_w2), m->mid + 1);
    kc_conv_bwd_data(kc, "conv2", &dout, wt(n, m->off_w2), 1, &dhr);
    kc_relu_bwd(kc, "conv1", &hid, &dhr, &dhid);
    kc_bias_bwd(kc, "conv1", &dhid, gr(n, m->off_b1));
    kc_conv_bwd_weights(kc, "conv1", &in, &dhid, 3, gr(n, m->off_w1));
    if (ready) ready(user, 0, gr(n, m->off_w1), m->off_w2);
}

static void tiny_facts(const void *model, net_facts *f)
{
    const tiny_model *m = model;
    f->layers = 2;
    f->params = m->params;
    f->fwd_conv_flops =
        flops_conv_fwd(1, m->c_in, m->mid, 3, m->h, m->w) + flops_conv_fwd(1, m->mid, 1, 1, m->h, m->w);
    f->convention_flops = 3 * f->fwd_conv_flops;
}

static int tiny_slices(const void *model, net_slice **out)
{
    const tiny_model *m = model;
    net_slice *s = XCALLOC(2, sizeof *s, "slices");
    s[0] = (net_slice){.name = "conv1", .off = m->off_w1, .count = m->off_w2 - m->off_w1};
    s[1] = (net_slice){.name = "conv2", .off = m->off_w2, .count = m->params - m->off_w2};
    *out = s;
    return 2;
}

static int tiny_tensors(const void *model, gsync_tensor **out)
{
    const tiny_model *m = model;
    gsync_tensor *t = XCALLOC(4, sizeof *t, "tensors");
    t[0] = (gsync_tensor){.name = "conv2.b", .layer = 1, .off = m->off_b2, .count = 1};
    t[1] = (gsync_tensor){.name = "conv2.w", .layer = 1, .off = m->off_w2, .count = m->mid};
    t[2] = (gsync_tensor){.name = "conv1.b", .layer = 0, .off = m->off_b1, .count = m->mid};
    t[3] = (gsync_tensor){.name = "conv1.w", .layer = 0, .off = m->off_w1, .count = m->off_b1};
    *out = t;
    return 4;
}

static void tiny_describe(const void *model, FILE *f, int64_t executed_per_step, int batch)
{
    const tiny_model *m = model;
    fprintf(f, "tiny: %d -> %d -> 1 maps, %dx%d, %lld FLOPs per step at batch %d\n", m->c_in, m->mid,
            m->h, m->w, (long long)executed_per_step, batch);
}

static void tiny_write_record(const void *model, rec_t *w)
{
    rec_key(w, "network");
    rec_flow_map_begin(w);
    rec_kv_int(w, "parameters", ((const tiny_model *)model)->params);
    rec_map_end(w);
}

static void tiny_batch_floats(const void *model, int batch, size_t *input, size_t *target)
{
    const tiny_model *m = model;
    *input = (size_t)batch * m->c_in * m->h * m->w;
    *target = (size_t)batch * m->h * m->w;
}

/* Input: noise; target: 0.5 x0 - 0.3 x1 + 0.2 at each pixel (learnable). */
static void tiny_generate(const void *model, uint64_t seed, int64_t step, int64_t first, int batch,
                          float *input, float *target)
{
    const tiny_model *m = model;
    size_t hw = (size_t)m->h * m->w;
    for (int s = 0; s < batch; s++) {
        rng_t r = rng_stream(seed, 0x54494e59ULL /* "TINY" */, (uint64_t)step, (uint64_t)(first + s));
        float *x = input + (size_t)s * m->c_in * hw, *t = target + (size_t)s * hw;
        for (size_t i = 0; i < (size_t)m->c_in * hw; i++) x[i] = (float)rng_normal(&r);
        for (size_t i = 0; i < hw; i++) t[i] = 0.5f * x[i] - 0.3f * x[hw + i] + 0.2f;
    }
}

static void tiny_set_params(void *inst, const float *host)
{
    tiny_inst *n = inst;
    if (n->dry) return;
    n->ops->h2d(n->ctx, n->params, host, (size_t)n->m->params * sizeof(float));
    n->ops->cast_params(n->ctx, n->params, n->wc, n->m->params);
}

static void tiny_init_params(void *inst, uint64_t seed)
{
    tiny_inst *n = inst;
    const tiny_model *m = n->m;
    float *w = XCALLOC((size_t)m->params, sizeof *w, "weights");
    rng_t r = rng_stream(seed, 1, 2, 3);
    for (int64_t i = m->off_w1; i < m->off_b1; i++) w[i] = (float)(rng_normal(&r) / sqrt(9.0 * m->c_in));
    for (int64_t i = m->off_w2; i < m->off_b2; i++)
        w[i] = (float)(rng_normal(&r) / sqrt((double)m->mid));
    tiny_set_params(n, w);
    free(w);
}

static void tiny_get_params(const void *inst, float *host)
{
    const tiny_inst *n = inst;
    if (!n->dry) n->ops->d2h(n->ctx, host, n->params, (size_t)n->m->params * sizeof(float));
}

static void tiny_params(const void *inst, net_params *p)
{
    const tiny_inst *n = inst;
    *p = (net_params){.master = n->params, .compute = n->wc, .grads = n->grads};
}

static void tiny_load(void *inst, const float *input, const float *target)
{
    tiny_inst *n = inst;
    if (n->dry) return;
    tview in = view(n, n->in, n->m->c_in), tg = view(n, n->tg, 1);
    n->ops->put_f32(n->ctx, &in, input);
    n->ops->put_f32(n->ctx, &tg, target);
}

static const network_t tiny_network = {
    .name = "tiny two-layer conv net",
    .oom_hint = "try a smaller --batch",
    .facts = tiny_facts,
    .slices = tiny_slices,
    .tensors = tiny_tensors,
    .describe = tiny_describe,
    .write_record = tiny_write_record,
    .batch_floats = tiny_batch_floats,
    .generate = tiny_generate,
    .create = tiny_create,
    .release = tiny_release,
    .bytes = tiny_bytes,
    .bytes_needed = tiny_bytes_needed,
    .init_params = tiny_init_params,
    .get_params = tiny_get_params,
    .set_params = tiny_set_params,
    .params = tiny_params,
    .load = tiny_load,
    .forward = tiny_forward,
    .backward = tiny_backward,
};

/* ---- the tests ----------------------------------------------------------- */

static comm_t comm;
static sysinfo_t si;
static tiny_model model;

/* Every kernel of one step by its flops.h formula: what the dry step must count. */
static int64_t expected_step_flops(const tiny_model *m, int batch)
{
    int64_t n = batch, hw = (int64_t)m->h * m->w, hid = n * m->mid * hw, out = n * hw;
    int64_t fwd = flops_conv_fwd(n, m->c_in, m->mid, 3, m->h, m->w) + flops_bias_fwd(hid) +
                  flops_relu_fwd(hid) + flops_conv_fwd(n, m->mid, 1, 1, m->h, m->w) +
                  flops_bias_fwd(out) + flops_l1_fwd(out);
    int64_t bwd = flops_l1_bwd(out) + flops_bias_bwd(out) +
                  flops_conv_bwd_weights(n, m->mid, 1, 1, m->h, m->w) +
                  flops_conv_bwd_data(n, m->mid, 1, 1, m->h, m->w) + flops_relu_bwd(hid) +
                  flops_bias_bwd(hid) + flops_conv_bwd_weights(n, m->c_in, m->mid, 3, m->h, m->w);
    return fwd + bwd + flops_adam(m->params);
}

static void test_dry_count_is_the_formulas(void)
{
    ktab_t dry;
    int64_t f = train_dry_flops(&tiny_network, &model, 3, &dry);
    int64_t want = expected_step_flops(&model, 3);
    int adam_rows = 0;
    for (int i = 0; i < dry.n; i++) adam_rows += !strcmp(dry.rows[i].kernel, "adam");
    ktab_free(&dry);
    T_ASSERT(f == want, "dry step %lld FLOPs, formulas %lld", (long long)f, (long long)want);
    T_ASSERT(adam_rows == 2, "%d adam rows, one per slice expected", adam_rows);
}

/* train_run on a kernel set: loss falls, checks pass, the real steps count
 * what the dry step counts, row for row; the record parts take the network. */
static void train_case(const char *kernels)
{
    runcfg_t run;
    runcfg_default(&run);
    run.batch = 2;
    run.steps = 40;
    run.warmup = 1;
    run.lr = 2e-2;
    run.threads = 1;
    run.cycle_ms = 0;
    snprintf(run.kernels, sizeof run.kernels, "%s", kernels);
    char err[512];
    T_ASSERT(runcfg_validate(&run, err, sizeof err) == 0, "%s", err);
    backend_t be;
    T_ASSERT(backend_open(&be, &run, &comm, &si, err, sizeof err) == 0, "%s", err);
    train_job job = {.net = &tiny_network, .model = &model, .run = &run, .backend = &be, .comm = &comm,
                     .quiet = 1};
    train_result r;
    int rc = train_run(&job, &r, err, sizeof err);
    if (rc) {
        train_result_free(&r);
        backend_close(&be);
        T_ASSERT(0, "train_run: %s", err);
    }
    ktab_t dry;
    int64_t dry_flops = train_dry_flops(&tiny_network, &model, run.batch, &dry);
    int bad_row = -1;
    for (int i = 0; i < dry.n; i++) {
        ktab_row *x = ktab_row_for(&r.kernels, dry.rows[i].kernel, dry.rows[i].layer);
        if (x->calls != dry.rows[i].calls * run.steps || x->flops != dry.rows[i].flops * run.steps)
            bad_row = i;
    }
    char bad[96] = "";
    if (bad_row >= 0)
        snprintf(bad, sizeof bad, "%s/%s", dry.rows[bad_row].kernel, dry.rows[bad_row].layer);
    ktab_free(&dry);

    /* the runtime's record parts with this network */
    /* in a folder of its own (a fixed /tmp name could be a planted link) */
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "%s/exadl-runtime.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    T_ASSERT(mkdtemp(dir), "mkdtemp %s", dir);
    snprintf(path, sizeof path, "%s/r.yaml", dir);
    rec_t *w = rec_open(path, err, sizeof err);
    T_ASSERT(w, "%s", err);
    rec_map_begin(w);
    trec_write_run(&job, w);
    tiny_network.write_record(&model, w);
    trec_write_results(&job, &r, w);
    rec_map_end(w);
    T_ASSERT(rec_close(w, err, sizeof err) == 0, "%s", err);
    ytdoc *d = yt_load_file(path, err, sizeof err);
    remove(path);
    rmdir(dir);
    T_ASSERT(d, "%s", err);
    const ytnode *fl = yt_get(d->root, "flops"), *ex = fl ? yt_get(fl, "executed_per_rank_step") : NULL;
    const ytnode *cv = fl ? yt_get(fl, "forward_conv_per_sample") : NULL;
    long long rec_exec = ex ? atoll(ex->str) : -1, rec_fwd = cv ? atoll(cv->str) : -1;
    yt_free(d);

    int q = run.steps / 4;
    double first = 0, last = 0;
    for (int i = 0; i < q; i++) first += r.loss[i], last += r.loss[run.steps - 1 - i];
    int invalid = r.invalid, nchecks = r.nchecks;
    int64_t real = r.flops_rank_step;
    train_result_free(&r);
    backend_close(&be);
    net_facts f;
    tiny_network.facts(&model, &f);
    T_ASSERT(!invalid && nchecks >= 3, "%s: the run's checks failed", kernels);
    T_ASSERT(last < 0.7 * first, "%s: loss %.4g -> %.4g: did not fall", kernels, first / q, last / q);
    T_ASSERT(real == dry_flops, "%s: real step %lld FLOPs, dry step %lld", kernels, (long long)real,
             (long long)dry_flops);
    T_ASSERT(bad_row < 0, "%s: kernel row %s differs from steps x the dry step", kernels, bad);
    T_ASSERT(rec_exec == dry_flops, "%s: record says %lld executed FLOPs per rank step", kernels,
             rec_exec);
    T_ASSERT(rec_fwd == f.fwd_conv_flops, "%s: record forward conv %lld", kernels, rec_fwd);
}

static void test_trains_on_reference_kernels(void) { train_case("reference"); }
static void test_trains_on_fast_kernels(void) { train_case("fast"); }

/* A backend with tune_pass (the CUDA one: cudnnFind at a kernel's first
 * call) gets one forward and backward before the first step, with no
 * optimizer step and no gradient exchange: the training is the same, loss
 * for loss, bit for bit. */
static int l1_calls;
static double (*ref_l1)(void *, const tview *, const tview *);
static double count_l1(void *ctx, const tview *y, const tview *t)
{
    l1_calls++;
    return ref_l1(ctx, y, t);
}

static void tune_run(int pass, double *loss, int *calls)
{
    runcfg_t run;
    runcfg_default(&run);
    run.batch = 2;
    run.steps = 3;
    run.warmup = 1;
    run.threads = 1;
    run.cycle_ms = 0;
    snprintf(run.kernels, sizeof run.kernels, "reference");
    char err[512];
    T_ASSERT(runcfg_validate(&run, err, sizeof err) == 0, "%s", err);
    backend_t be;
    T_ASSERT(backend_open(&be, &run, &comm, &si, err, sizeof err) == 0, "%s", err);
    kern_ops o = *be.ops;
    ref_l1 = o.l1_fwd;
    o.l1_fwd = count_l1;
    be.ops = &o;
    be.tune_pass = pass;
    l1_calls = 0;
    train_job job = {.net = &tiny_network, .model = &model, .run = &run, .backend = &be, .comm = &comm,
                     .quiet = 1};
    train_result r;
    int rc = train_run(&job, &r, err, sizeof err);
    if (!rc) memcpy(loss, r.loss, 3 * sizeof *loss);
    train_result_free(&r);
    backend_close(&be);
    T_ASSERT(rc == 0, "train_run: %s", err);
    *calls = l1_calls;
}

static void test_tune_pass_changes_nothing(void)
{
    double a[3], b[3];
    int ca, cb;
    tune_run(0, a, &ca);
    tune_run(1, b, &cb);
    T_ASSERT(ca == 4 && cb == 5, "forward passes: %d without the tuning pass, %d with (expected 4, 5)", ca, cb);
    T_ASSERT(!memcmp(a, b, sizeof a), "losses differ: %.9g %.9g %.9g vs %.9g %.9g %.9g", a[0], a[1], a[2], b[0],
             b[1], b[2]);
}

int main(int argc, char **argv)
{
    check_set_program("test_train_runtime");
    comm_init(&argc, &argv, &comm);
    sysinfo_collect(&si);
    tiny_model_init(&model, 2, 4, 8, 10);
    T_RUN(test_dry_count_is_the_formulas);
    T_RUN(test_trains_on_reference_kernels);
    T_RUN(test_trains_on_fast_kernels);
    T_RUN(test_tune_pass_changes_nothing);
    comm_finalize(&comm);
    T_DONE();
}
