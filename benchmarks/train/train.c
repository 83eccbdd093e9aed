#include "benchmarks/train/train.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/ensemble.h"
#include "benchmarks/train/gsync/gsync.h"
#include "benchmarks/train/lionx.h"
#include "benchmarks/train/optim.h"

/* Rows of a kernel table: each layer uses a handful of kernels. */
static int table_rows(const net_facts *f) { return 16 * f->layers + 64; }

void train_facts(const network_t *net, const void *model, net_facts *f)
{
    memset(f, 0, sizeof *f);
    net->facts(model, f);
}

int train_replica_ranks(const net_facts *f) { return f->replica_ranks > 1 ? f->replica_ranks : 1; }

int64_t train_dry_flops(const network_t *net, const void *model, int batch, ktab_t *table)
{
    char err[256];
    ktab_t own;
    ktab_t *t = table ? table : &own;
    net_facts f;
    train_facts(net, model, &f);
    ktab_init(t, table_rows(&f));
    void *n = net->create(model, kern_ref_ops(), NULL, batch, 1, err, sizeof err);
    CHECK(n != NULL, "%s", err);
    optim_t *opt = optim_create(net, model, n, kern_ref_ops(), NULL, 1, err, sizeof err);
    /* Adam's FLOPs (--describe); a run counts those of its own optimizer */
    CHECK(opt != NULL, "%s", err);
    kc_t kc = {.ops = kern_ref_ops(), .tab = t, .dry = 1};
    adam_hyper h = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .step = 1, .grad_scale = 1};
    net->forward(n, &kc);
    net->backward(n, &kc, NULL, NULL);
    optim_step(opt, &kc, &h);
    int64_t flops = ktab_total_flops(t);
    optim_free(opt);
    net->release(n);
    if (!table) ktab_free(&own);
    return flops;
}

static void add_check(train_result *r, const char *check, int pass, int decides, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void add_check(train_result *r, const char *check, int pass, int decides, const char *fmt, ...)
{
    CHECK(r->nchecks < TRAIN_MAX_CHECKS, "too many validation checks");
    train_check *c = &r->checks[r->nchecks++];
    snprintf(c->check, sizeof c->check, "%s", check);
    snprintf(c->outcome, sizeof c->outcome, "%s", pass ? "pass" : "fail");
    c->decides = decides;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof c->detail, fmt, ap);
    va_end(ap);
    if (!pass && decides) r->invalid = 1;
}

/* FNV-1a over the bytes of the weights: equal hashes on all ranks mean the
 * ranks hold the same model, bit for bit (up to a 2^-64 collision). */
static uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

static void validate(const train_job *j, void *n, int64_t params, train_result *r)
{
    comm_t *comm = j->comm;
    int finite = 1;
    for (int i = 0; i < r->steps; i++) finite &= isfinite(r->loss[i]);
    add_check(r, "loss_finite", finite, 1, "%s", finite ? "every step's loss is a finite number"
                                                       : "a step's loss is NaN or infinite");

    float *w = XMALLOC((size_t)params * sizeof *w, "weights for validation");
    j->net->get_params(n, w);
    uint64_t mine = hash_bytes(w, (size_t)params * sizeof *w);
    int wfinite = 1;
    for (int64_t i = 0; i < params; i++) wfinite &= isfinite(w[i]);
    free(w);
    uint64_t *all = XMALLOC((size_t)comm->size * sizeof *all, "weight hashes");
    CHECK_MPI(MPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, comm->world));
    int same = 1, first_bad = -1;
    for (int i = 1; i < comm->size; i++)
        if (all[i] != all[0] && first_bad < 0) same = 0, first_bad = i;
    free(all);
    if (same)
        add_check(r, "weights_identical_across_ranks", 1, 1,
                  "FNV-1a hash of all %lld weights equal on %d rank(s): %016llx",
                  (long long)params, comm->size, (unsigned long long)mine);
    else
        add_check(r, "weights_identical_across_ranks", 0, 1,
                  "rank %d holds different weights than rank 0 after %d steps", first_bad,
                  r->steps + r->warmup);
    add_check(r, "weights_finite", wfinite, 1, "%s",
              wfinite ? "every weight is finite" : "a weight is NaN or infinite");

    /* informative only: a short benchmark run need not lower the loss */
    int q = r->steps / 4 > 0 ? r->steps / 4 : 1;
    double first = 0, last = 0;
    for (int i = 0; i < q; i++) first += r->loss[i], last += r->loss[r->steps - 1 - i];
    add_check(r, "loss_trend", last < first, 0,
              "mean loss of the first %d timed steps %.6g, of the last %d %.6g", q, first / q, q,
              last / q);
}

/* Raw fp32 weights of this rank, for tests that compare ranks and runs bit for bit. */
static int dump_weights(const train_job *j, void *n, int64_t params, int world_rank, char *err,
                        size_t errlen)
{
    char name[4096];
    snprintf(name, sizeof name, "%s.%d", j->dump_weights, world_rank);
    float *w = XMALLOC((size_t)params * sizeof *w, "weights to dump");
    j->net->get_params(n, w);
    FILE *f = fopen(name, "wb");
    int ok = f && fwrite(w, sizeof *w, (size_t)params, f) == (size_t)params;
    if (f && fclose(f) != 0) ok = 0;
    free(w);
    if (!ok) snprintf(err, errlen, "--dump-weights: cannot write %s", name);
    return ok ? 0 : -1;
}

/* The gradient-reduction engine of the configuration; its description and
 * room for its per-step times go into r. */
static gsync_t *open_gsync(const train_job *j, void *n, int nlayers, train_result *r, char *err,
                           size_t errlen)
{
    gsync_cfg g;
    runcfg_gsync(j->run, &g);
    r->gcfg = g;
    gsync_tensor *t;
    int nt = j->net->tensors(j->model, &t);
    net_params np;
    j->net->params(n, &np);
    gsync_t *gs = gsync_create(&g, j->comm, j->backend->transport, t, nt, nlayers, np.grads, err,
                               errlen);
    if (!gs) {
        free(t);
        return NULL;
    }
    r->ntensors = nt;
    r->tensors = t;
    r->ngroups = gsync_ngroups(gs);
    r->tensor_group = XMALLOC((size_t)nt * sizeof(int), "tensor groups");
    for (int i = 0; i < nt; i++) r->tensor_group[i] = gsync_group_of(gs, i);
    r->group_label = XMALLOC((size_t)r->ngroups * sizeof *r->group_label, "group labels");
    r->group_bytes = XMALLOC((size_t)r->ngroups * sizeof *r->group_bytes, "group sizes");
    r->group_reductions = XCALLOC((size_t)r->ngroups, sizeof(int), "group reductions");
    for (int k = 0; k < r->ngroups; k++) {
        snprintf(r->group_label[k], sizeof r->group_label[k], "%s", gsync_group_label(gs, k));
        r->group_bytes[k] = gsync_group_bytes(gs, k);
    }
    size_t steps = (size_t)j->run->steps;
    r->exposed_s = XCALLOC(steps, sizeof(double), "exposed times");
    r->negotiation_s = XCALLOC(steps, sizeof(double), "negotiation times");
    r->backward_end_s = XCALLOC(steps, sizeof(double), "backward times");
    r->cycles = XCALLOC(steps, sizeof(int), "cycles");
    r->timeline = XCALLOC(steps * (size_t)r->ngroups * 3, sizeof(double), "timeline");
    return gs;
}

/* The step's reductions in the kernel table: one row per group, the span
 * from its first reduction's start to its last one's end (0 FLOPs: the sums
 * are MPI's or NCCL's; the span overlaps backward, see docs/gsync.md). */
static void add_reduction_rows(const gsync_t *gs, ktab_t *tab, const char *kernel)
{
    const gsync_step *st = gsync_last_step(gs);
    for (int k = 0; k < gsync_ngroups(gs); k++) {
        const gsync_group_time *x = &st->groups[k];
        if (x->reductions == 0) continue;
        ktab_row *row = ktab_row_for(tab, kernel, gsync_group_label(gs, k));
        row->calls += x->reductions;
        row->time_s += x->end_s - x->start_s;
    }
}

/* The instance and its optimizer on every rank, all ranks starting from rank
 * 0's weights; -1 with err when some rank runs out of memory. */
static int open_instance(const train_job *j, const net_facts *f, uint64_t seed, void **inst,
                         optim_t **opt, char *err, size_t errlen)
{
    const network_t *net = j->net;
    const runcfg_t *c = j->run;
    backend_t *be = j->backend;
    char why[256] = "";
    *opt = NULL;
    *inst = net->create(j->model, be->ops, be->ctx, c->batch, 0, why, sizeof why);
    if (*inst)
        *opt = optim_create_run(c, net, j->model, *inst, be->ops, be->ctx, 0, why, sizeof why);
    int ok = *opt != NULL, all_ok;
    CHECK_MPI(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, j->comm->world));
    if (!all_ok) {
        if (ok) {
            snprintf(err, errlen, "another rank ran out of memory allocating the network");
        } else {
            size_t need =
                net->bytes_needed(j->model, be->ops, c->batch) + optim_bytes_run(c, f->params);
            snprintf(err, errlen, "out of memory: %s; the network needs %.3g GB at batch %d (%s)", why,
                     (double)need / 1e9, c->batch, net->oom_hint);
        }
        optim_free(*opt);
        if (*inst) net->release(*inst);
        return -1;
    }
    net->init_params(*inst, seed);
    /* every rank starts from rank 0's weights, whatever its arithmetic */
    float *w0 = XMALLOC((size_t)f->params * sizeof *w0, "initial weights");
    net->get_params(*inst, w0);
    for (int64_t off = 0; off < f->params; off += 1 << 28) {
        int cnt = (int)(f->params - off < (1 << 28) ? f->params - off : (1 << 28));
        CHECK_MPI(MPI_Bcast(w0 + off, cnt, MPI_FLOAT, 0, j->comm->world));
    }
    net->set_params(*inst, w0);
    free(w0);
    return 0;
}

/* A kernel set that chooses its algorithms at a kernel's first call
 * (cudnnFind) gets a forward and backward pass of its own before the first
 * step: untimed, with no gradient exchange (no reduction runs beside the
 * timings, the engine's timeout does not count the search) and no optimizer
 * step (the weights stay as they are, on every rank).  The ranks then meet,
 * however long each one searched. */
static void tune_pass(const train_job *j, void *n, float *input, float *target, const net_facts *f)
{
    const runcfg_t *c = j->run;
    ktab_t tab;
    ktab_init(&tab, table_rows(f));
    kc_t kc = {.ops = j->backend->ops, .ctx = j->backend->ctx, .tab = &tab, .timing = 0};
    j->net->generate(j->model, c->seed, 0, (int64_t)j->comm->rank * c->batch, c->batch, input, target);
    j->net->load(n, input, target);
    (void)j->net->forward(n, &kc);
    j->net->backward(n, &kc, NULL, NULL);
    j->backend->ops->sync(j->backend->ctx);
    ktab_free(&tab);
    CHECK_MPI(MPI_Barrier(j->comm->world));
}

static void alloc_result(const runcfg_t *c, const net_facts *f, train_result *r)
{
    memset(r, 0, sizeof *r);
    r->steps = c->steps;
    r->warmup = c->warmup;
    r->step_s = XCALLOC((size_t)c->steps, sizeof(double), "step times");
    r->data_s = XCALLOC((size_t)c->steps, sizeof(double), "data times");
    r->comm_s = XCALLOC((size_t)c->steps, sizeof(double), "reduction times");
    r->loss = XCALLOC((size_t)c->steps, sizeof(double), "losses");
    r->warm_s = XCALLOC((size_t)c->warmup + 1, sizeof(double), "warm-up times");
    r->warm_loss = XCALLOC((size_t)c->warmup + 1, sizeof(double), "warm-up losses");
    r->holdout_loss = NAN;
    train_update *u = &r->up;
    size_t n = (size_t)c->steps;
    u->wire_bytes = XCALLOC(n, sizeof(int64_t), "exchange bytes");
    u->sync_bytes = XCALLOC(n, sizeof(int64_t), "momentum-sync bytes");
    u->synced = XCALLOC(n, sizeof(int), "momentum-sync layers");
    u->kernel_s = XCALLOC(n, sizeof(double), "exchange kernel times");
    u->collective_s = XCALLOC(n, sizeof(double), "exchange collective times");
    u->disagreement = XCALLOC(n, sizeof(double), "sign disagreement");
    ktab_init(&r->kernels, table_rows(f));
}

/* A timed step's numbers (max over ranks, the engine's step on rank 0) into r. */
static void keep_step(train_result *r, int i, const double *mx, const gsync_step *gst, double gloss,
                      const ktab_t *step_tab)
{
    r->step_s[i] = mx[0];
    r->data_s[i] = mx[1];
    r->comm_s[i] = mx[2];
    r->exposed_s[i] = mx[3];
    r->negotiation_s[i] = mx[4];
    r->backward_end_s[i] = gst->backward_end_s;
    r->cycles[i] = gst->cycles;
    for (int k = 0; k < r->ngroups; k++) {
        double *x = r->timeline + ((size_t)i * r->ngroups + k) * 3;
        x[0] = gst->groups[k].ready_s, x[1] = gst->groups[k].start_s, x[2] = gst->groups[k].end_s;
        r->group_reductions[k] = gst->groups[k].reductions;
    }
    r->loss[i] = gloss;
    ktab_accumulate(&r->kernels, step_tab);
}

/* Each rank's own step and compute time of timed step i, gathered on rank 0
 * (the straggler term of the model needs the spread, not only the max). */
static void keep_rank_times(const train_job *j, train_result *r, int i, double step_s,
                            double compute_s)
{
    int n = j->comm->size;
    if (!r->rank_step_s && j->comm->rank == 0) {
        r->rank_step_s = XCALLOC((size_t)r->steps * (size_t)n, sizeof(double), "per-rank steps");
        r->rank_compute_s = XCALLOC((size_t)r->steps * (size_t)n, sizeof(double), "per-rank compute");
    }
    r->nranks = n;
    double mine[2] = {step_s, compute_s}, *all = NULL;
    if (j->comm->rank == 0) all = XCALLOC((size_t)n * 2, sizeof *all, "per-rank times");
    CHECK_MPI(MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, j->comm->world));
    if (j->comm->rank == 0) {
        for (int k = 0; k < n; k++) {
            r->rank_step_s[(size_t)i * n + k] = all[2 * k];
            r->rank_compute_s[(size_t)i * n + k] = all[2 * k + 1];
        }
        free(all);
    }
}

/* Lion with a compressed exchange (1bit, pbit): the gradient engine exchanges
 * signs instead of summing gradients (lionx.h).  NULL otherwise. */
static lionx_t *open_exchange(const train_job *j, optim_t *opt, gsync_t *gs, train_result *r)
{
    const runcfg_t *c = j->run;
    int compressed = strcmp(c->exchange, "grad") != 0;
    r->up.bits = 32;
    if (!compressed) return NULL;
    lionx_cfg xc = {
        .pbit = !strcmp(c->exchange, "pbit"),
        .sync = !strcmp(c->momentum_sync, "every")       ? LX_SYNC_EVERY
                : !strcmp(c->momentum_sync, "selective") ? LX_SYNC_SELECTIVE
                                                         : LX_SYNC_NONE,
        .sync_every = c->momentum_sync_every,
        .sync_threshold = c->momentum_sync_threshold,
        .seed = c->seed,
        .poll_us = r->gcfg.poll_us,
        .timing = c->kernel_timing,
    };
    const net_slice *sl;
    int ns = optim_slices(opt, &sl);
    lionx_t *lx = lionx_create(&xc, j->comm, j->backend->ops, j->backend->ctx, r->tensors,
                               r->ntensors, sl, ns, optim_moment(opt));
    gsync_set_exchange(gs, lionx_exchange(lx));
    r->up.bits = lionx_bits(lx);
    return lx;
}

/* A timed step's exchange numbers: bytes of rank 0 (every rank sends the
 * same), times and disagreement the max over ranks. */
static void keep_update(const train_job *j, lionx_t *lx, int64_t params, int i, train_result *r)
{
    train_update *u = &r->up;
    int n = j->comm->size;
    if (!lx) {
        /* a bandwidth-optimal allreduce of the fp32 gradients: 2 (n-1)/n of them */
        u->wire_bytes[i] = (int64_t)(2.0 * (n - 1) / n * (double)params * sizeof(float));
        u->disagreement[i] = NAN;
        return;
    }
    const lionx_step *st = lionx_last(lx);
    u->wire_bytes[i] = st->wire_bytes;
    u->sync_bytes[i] = st->sync_bytes;
    u->synced[i] = st->synced;
    /* NaN (not measured) stays NaN: -1 travels through the max instead */
    double in[3] = {st->kernel_s, st->collective_s, isnan(st->disagreement) ? -1 : st->disagreement},
           mx[3];
    CHECK_MPI(MPI_Allreduce(in, mx, 3, MPI_DOUBLE, MPI_MAX, j->comm->world));
    u->kernel_s[i] = mx[0];
    u->collective_s[i] = mx[1];
    u->disagreement[i] = mx[2] < 0 ? NAN : mx[2];
}

/* The trained weights' mean loss over the ranks on the held-out batch: the
 * samples of step 0 of a seed of its own (training draws the run's seed), so
 * every model of the same data shapes meets the same batch (train_job.holdout). */
static double holdout_loss(const train_job *j, void *n, kc_t *kc, int64_t first, float *input,
                           float *target)
{
    const runcfg_t *c = j->run;
    j->net->generate(j->model, c->seed ^ 0x76616c6964617465ULL, 0, first, c->batch, input, target);
    j->net->load(n, input, target);
    double loss = j->net->forward(n, kc), sum;
    j->backend->ops->sync(j->backend->ctx);
    CHECK_MPI(MPI_Allreduce(&loss, &sum, 1, MPI_DOUBLE, MPI_SUM, j->comm->world));
    return sum / j->comm->size;
}

/* The validation loss (ttt.h): every group's share of the val split through
 * forward passes (no gradients, no update), the mean over batches and ranks;
 * positions past the split wrap around. */
static double evaluate(const train_job *j, void *n, float *input, float *target,
                       const net_facts *f, int groups, int g)
{
    const runcfg_t *c = j->run;
    int64_t per = (int64_t)groups * c->batch, nb = (f->eval_samples + per - 1) / per;
    ktab_t tab;
    ktab_init(&tab, table_rows(f));
    kc_t kc = {.ops = j->backend->ops, .ctx = j->backend->ctx, .tab = &tab, .timing = 0};
    double sum = 0, all;
    for (int64_t k = 0; k < nb; k++) {
        j->net->generate_eval(j->model, k * per + (int64_t)g * c->batch, c->batch, input, target);
        j->net->load(n, input, target);
        sum += j->net->forward(n, &kc);
        j->backend->ops->sync(j->backend->ctx);
        ktab_reset(&tab);
    }
    ktab_free(&tab);
    sum /= (double)nb;
    CHECK_MPI(MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, j->comm->world));
    return all / j->comm->size;
}

/* One trainer's run: the whole job when there is one trainer (ensemble.h). */
static int run_trainer(const train_job *j, ens_t *e, train_result *r, char *err, size_t errlen)
{
    const network_t *net = j->net;
    const runcfg_t *c = j->run;
    backend_t *be = j->backend;
    comm_t *comm = j->comm;
    net_facts f;
    train_facts(net, j->model, &f);
    alloc_result(c, &f, r);
    tpower_open(&r->power, e->world);
    /* spatial parallelism: groups of R ranks share their samples (network.h) */
    int R = train_replica_ranks(&f);
    if (comm->size % R) {
        snprintf(err, errlen,
                 "%d ranks%s do not form groups of %d ranks sharing each sample (spatial "
                 "parallelism)%s",
                 comm->size, e->trainers > 1 ? " per trainer" : "", R,
                 e->trainers > 1 ? ": make ranks / trainers a multiple of the spatial group" : "");
        return -1;
    }
    int groups = comm->size / R;
    if (j->quality) {
        if (e->trainers > 1) {
            snprintf(err, errlen, "evaluations and a target loss need one trainer (trainers %d)",
                     e->trainers);
            return -1;
        }
        if (j->quality->eval_every > 0 && (f.eval_samples <= 0 || !net->generate_eval)) {
            snprintf(err, errlen, "evaluations need validation samples: a data set with a val "
                     "split (docs/data.md)");
            return -1;
        }
        ttt_begin(&r->ttt, j->quality, comm->rank == 0, (int64_t)groups * c->batch,
                  f.train_samples, f.eval_samples, c->optimizer, c->lr);
    }
    /* model parallelism (facts.sharded, network.h): the ranks of a group hold
     * different shards, so the first weights, the gradient sums and the
     * identity check run among the replicas of each shard (jr) only */
    train_job jr = *j;
    comm_t replicas = *comm;
    if (f.sharded && R > 1) {
        CHECK_MPI(MPI_Comm_split(comm->world, comm->rank % R, comm->rank, &replicas.world));
        CHECK_MPI(MPI_Comm_rank(replicas.world, &replicas.rank));
        CHECK_MPI(MPI_Comm_size(replicas.world, &replicas.size));
        jr.comm = &replicas;
    }

    void *n;
    optim_t *opt;
    int bad = open_instance(&jr, &f, ens_seed(e, c->seed), &n, &opt, err, errlen) != 0, any = bad;
    if (jr.comm != comm) CHECK_MPI(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm->world));
    if (any && !bad) {
        snprintf(err, errlen, "a rank of another shard ran out of memory allocating the network");
        optim_free(opt);
        net->release(n);
    }
    if (any) {
        if (jr.comm != comm) CHECK_MPI(MPI_Comm_free(&replicas.world));
        return -1;
    }
    r->bytes = net->bytes(n) + optim_bytes_run(c, f.params);

    size_t in_n, tg_n;
    net->batch_floats(j->model, c->batch, &in_n, &tg_n);
    float *input = XMALLOC(in_n * sizeof *input, "input batch");
    float *target = XMALLOC(tg_n * sizeof *target, "target batch");
    ktab_t step_tab;
    ktab_init(&step_tab, table_rows(&f));
    kc_t kc = {.ops = be->ops, .ctx = be->ctx, .tab = &step_tab, .timing = c->kernel_timing};
    gsync_t *gs = open_gsync(&jr, n, f.layers, r, err, errlen);
    if (!gs) {
        ktab_free(&step_tab);
        free(input);
        free(target);
        optim_free(opt);
        net->release(n);
        if (jr.comm != comm) CHECK_MPI(MPI_Comm_free(&replicas.world));
        return -1;
    }
    lionx_t *lx = open_exchange(&jr, opt, gs, r);
    if (be->tune_pass) tune_pass(j, n, input, target, &f);
    int total = c->warmup + c->steps, done = total;
    /* a restored run continues at the step its checkpoint had done (ckpt.h);
     * its steps are all timed (no warm-up), from there to the budget */
    int s0 = 0;
    if (j->ckpt && j->ckpt->restore) {
        int refused = 0;
        if (c->warmup > 0 || e->trainers > 1 || f.sharded) {
            snprintf(err, errlen, "a restored run takes --warmup 0, one trainer and replicated weights");
            refused = 1;
        } else if (ckpt_restore(j->ckpt, comm, net, n, opt, be->ops, be->ctx, &s0, &r->ckpt, err,
                                errlen)) {
            refused = 1;
        } else if (s0 >= total) {
            snprintf(err, errlen, "%s: the checkpoint has done %d steps; --steps %d leaves none",
                     j->ckpt->restore, s0, c->steps);
            refused = 1;
        }
        if (refused) {
            gsync_free(gs);
            lionx_free(lx);
            ktab_free(&step_tab);
            free(input);
            free(target);
            optim_free(opt);
            net->release(n);
            return -1;
        }
        r->steps = total - s0;
    }
    int base = c->warmup + s0; /* timed step i is step base + i */
    ttt_run_start(&r->ttt);
    double t_start = timer_now_s();
    for (int s = s0; s < total; s++) {
        ttt_step(&r->ttt, s);
        double t0 = timer_now_s();
        net->generate(j->model, c->seed, s, ens_first_sample(e, comm->rank / R, groups, c->batch),
                      c->batch, input, target);
        /* the batch's upload (and conversion to the compute type) belongs to
         * data preparation, not to the step: on a GPU it is a host-to-device
         * copy of the whole input (1 GB for gb2019) */
        net->load(n, input, target);
        double data_s = timer_now_s() - t0;
        ktab_reset(&step_tab);
        CHECK_MPI(MPI_Barrier(comm->world));
        /* the energy window opens with the first timed step (tpower.h) */
        if (s == c->warmup) tpower_begin(&r->power);
        t0 = timer_now_s();
        if (lx) {
            lion_hyper lh = optim_lion_hyper(opt);
            lionx_begin(lx, &lh, s + 1);
        }
        gsync_begin(gs);
        double loss = net->forward(n, &kc);
        net->backward(n, &kc, gsync_ready, gs);
        double compute_s = timer_now_s() - t0; /* this rank's forward + backward */
        gsync_finish(gs);
        optim_step_run(opt, &kc, s + 1, 1.0 / groups, lx);
        be->ops->sync(be->ctx);
        double dt = timer_now_s() - t0;
        if (be->ops->timer_flush) be->ops->timer_flush(be->ctx);
        gsync_settle(gs);
        const gsync_step *gst = gsync_last_step(gs);
        if (lx) lionx_take_rows(lx, &step_tab);
        add_reduction_rows(gs, &step_tab, lx ? "sign_exchange" : "allreduce");
        if (s >= c->warmup) keep_update(&jr, lx, f.params, s - base, r);
        double in6[6] = {dt, data_s, gst->reduce_s, gst->exposed_s, gst->negotiation_s, 0}, mx[6],
               gloss;
        CHECK_MPI(MPI_Allreduce(in6, mx, 5, MPI_DOUBLE, MPI_MAX, comm->world));
        CHECK_MPI(MPI_Allreduce(&loss, &gloss, 1, MPI_DOUBLE, MPI_SUM, comm->world));
        gloss /= comm->size;
        if (s >= c->warmup) keep_rank_times(j, r, s - base, dt, compute_s);
        if (s < c->warmup) {
            r->warm_s[s] = mx[0];
            r->warm_loss[s] = gloss;
        } else {
            keep_step(r, s - base, mx, gst, gloss, &step_tab);
        }
        if (s == s0) {
            /* ranks may differ (uneven spatial splits): the step's total is their sum */
            r->flops_rank_step = ktab_total_flops(&step_tab);
            CHECK_MPI(MPI_Allreduce(&r->flops_rank_step, &r->flops_step, 1, MPI_INT64_T, MPI_SUM,
                                    comm->world));
        }
        if (c->tournament_every > 0 && e->trainers > 1 && (s + 1) % c->tournament_every == 0) {
            ens_model_t em = {.net = net, .model = j->model, .inst = n, .ops = be->ops,
                              .ctx = be->ctx, .batch = c->batch, .groups = groups,
                              .replica_ranks = R, .table_rows = table_rows(&f), .seed = c->seed,
                              .params = f.params, .dump = j->dump_weights};
            ens_round(e, &em, s + 1, (s + 1) / c->tournament_every - 1, &r->ens);
        }
        double elapsed = timer_now_s() - t_start;
        if (comm->rank == 0 && !j->quiet && (mx[0] >= 0.5 || elapsed > 5.0)) {
            double eta = elapsed / (s + 1) * (total - s - 1);
            printf("  step %d/%d%s  %.3f s  loss %.5g  elapsed %.0f s  ETA %.0f s\n", s + 1, total,
                   s < c->warmup ? " (warm-up)" : "", mx[0], gloss, elapsed, eta);
            fflush(stdout);
        }
        if (ttt_eval_due(&r->ttt, s, total)) {
            double te = timer_now_s();
            double vl = evaluate(j, n, input, target, &f, groups, comm->rank / R);
            int hit = ttt_eval_point(&r->ttt, s, vl, timer_now_s() - te);
            if (comm->rank == 0 && !j->quiet) {
                printf("  eval after step %d: validation loss %.5g%s\n", s + 1, vl,
                       hit ? " (target reached)" : "");
                fflush(stdout);
            }
            /* the ranks agree (one loss): they stop together, after a timed step */
            if (hit && s >= c->warmup) {
                done = s + 1;
                break;
            }
        }
        if (j->ckpt && j->ckpt->every > 0 && (s + 1) % j->ckpt->every == 0 &&
            ckpt_write(j->ckpt, comm, net, n, opt, be->ops, be->ctx, s + 1, &r->ckpt, err,
                       errlen)) {
            done = -1;
            break;
        }
    }
    tpower_end(&r->power);
    int rc = -1; /* done < 0: a checkpoint could not be written, the run fails saying where */
    if (done >= 0) {
        if (done < total) r->steps = done - base;
        ttt_end(&r->ttt, done);
        if (j->holdout)
            r->holdout_loss = holdout_loss(j, n, &kc, ens_first_sample(e, comm->rank / R, groups,
                                                                       c->batch), input, target);
        validate(&jr, n, f.params, r);
        rc = j->dump_weights ? dump_weights(j, n, f.params, e->world->rank, err, errlen) : 0;
    }
    gsync_free(gs);
    lionx_free(lx);
    ktab_free(&step_tab);
    free(input);
    free(target);
    optim_free(opt);
    net->release(n);
    if (jr.comm != comm) CHECK_MPI(MPI_Comm_free(&replicas.world));
    return rc;
}

/* The job as K trainers (ensemble.h): each runs the loop above on its own
 * communicator; world rank 0 (trainer 0's leader) keeps trainer 0's result
 * and every trainer's step times, losses and tournament rounds. */
int train_run(const train_job *j, train_result *r, char *err, size_t errlen)
{
    ens_t e;
    if (ens_open(j->comm, j->run->trainers, &e, err, errlen)) {
        net_facts f;
        train_facts(j->net, j->model, &f);
        alloc_result(j->run, &f, r);
        return -1;
    }
    train_job tj = *j;
    tj.comm = &e.comm;
    int rc = run_trainer(&tj, &e, r, err, errlen);
    if (e.trainers > 1) {
        /* a trainer that failed alone must not leave the others waiting */
        int bad = rc != 0, any;
        CHECK_MPI(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, j->comm->world));
        if (any && !bad) {
            snprintf(err, errlen, "another trainer failed (its ranks said why)");
            rc = -1;
        }
        if (!any) {
            ens_gather(&e, r->step_s, r->steps, r->loss[r->steps - 1], r->invalid,
                       j->run->tournament_every, &r->ens);
            r->flops_step *= e.trainers; /* trainers are alike: the job's step is K of theirs */
            if (j->comm->rank == 0)
                add_check(r, "every_trainer_valid", r->ens.invalid_trainers == 0, 1,
                          "%d of %d trainer(s) failed a deciding check (weights identical "
                          "within each trainer, finite loss and weights)",
                          r->ens.invalid_trainers, e.trainers);
        }
    }
    /* every rank of the job reaches here, a failed trainer's too */
    tpower_gather(&r->power, j->comm);
    ens_close(&e);
    return rc;
}

void train_result_free(train_result *r)
{
    ttt_free(&r->ttt);
    ckpt_free(&r->ckpt);
    ens_result_free(&r->ens);
    tpower_free(&r->power);
    free(r->up.wire_bytes);
    free(r->up.sync_bytes);
    free(r->up.synced);
    free(r->up.kernel_s);
    free(r->up.collective_s);
    free(r->up.disagreement);
    free(r->exposed_s);
    free(r->negotiation_s);
    free(r->backward_end_s);
    free(r->cycles);
    free(r->timeline);
    free(r->group_reductions);
    free(r->group_label);
    free(r->group_bytes);
    free(r->tensors);
    free(r->tensor_group);
    free(r->step_s);
    free(r->rank_step_s);
    free(r->rank_compute_s);
    free(r->warm_s);
    free(r->data_s);
    free(r->comm_s);
    free(r->loss);
    free(r->warm_loss);
    ktab_free(&r->kernels);
}
