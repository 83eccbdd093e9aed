#include "benchmarks/train/train_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/train/gsync/gsync_pick.h"

/* Rows of a kernel table: each layer uses a handful of kernels. */
int tsetup_table_rows(const net_facts *f) { return 16 * f->layers + 64; }

/* The engine that runs the reductions (gsync_pick.h): auto decides on each
 * rank's own cores, and the job runs one engine, inline where any rank
 * asks for it (one rank short of cores would slow every step). */
static int pick_engine(const train_job *j, char *reason, size_t len)
{
    const comm_t *c = j->comm;
    int e = gsync_pick_engine(j->run->engine, c->size, j->backend->cuda, j->backend->threads,
                              c->local_size, reason, len);
    if (c->size <= 1 || strcmp(j->run->engine, "auto")) return e;
    int all;
    CHECK_MPI(MPI_Allreduce(&e, &all, 1, MPI_INT, MPI_MAX, c->world));
    if (all != e) {
        size_t n = strlen(reason);
        snprintf(reason + n, len - n, "; another rank has no core to spare: %s on every rank",
                 gsync_engine_name(all));
    }
    return all;
}

/* The gradient-reduction engine of the configuration; its description and
 * room for its per-step times go into r. */
gsync_t *tsetup_open_gsync(const train_job *j, void *n, int nlayers, train_result *r, char *err,
                           size_t errlen)
{
    gsync_cfg g;
    runcfg_gsync(j->run, &g);
    r->engine = pick_engine(j, r->engine_reason, sizeof r->engine_reason);
    gsync_pick_apply(r->engine, &g);
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

/* The instance and its optimizer on every rank, all ranks starting from rank
 * 0's weights; -1 with err when some rank runs out of memory. */
int tsetup_open_instance(const train_job *j, const net_facts *f, uint64_t seed, void **inst,
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
void tsetup_tune_pass(const train_job *j, void *n, float *input, float *target, const net_facts *f)
{
    const runcfg_t *c = j->run;
    ktab_t tab;
    ktab_init(&tab, tsetup_table_rows(f));
    kc_t kc = {.ops = j->backend->ops, .ctx = j->backend->ctx, .tab = &tab, .timing = 0};
    j->net->generate(j->model, c->seed, 0, (int64_t)j->comm->rank * c->batch, c->batch, input, target);
    j->net->load(n, input, target);
    (void)j->net->forward(n, &kc);
    j->net->backward(n, &kc, NULL, NULL);
    j->backend->ops->sync(j->backend->ctx);
    ktab_free(&tab);
    CHECK_MPI(MPI_Barrier(j->comm->world));
}

/* train_result's arrays (train_result_free, train.c, frees them). */
void tsetup_alloc_result(const runcfg_t *c, const net_facts *f, train_result *r)
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
    ktab_init(&r->kernels, tsetup_table_rows(f));
}

/* Lion with a compressed exchange (1bit, pbit): the gradient engine exchanges
 * signs instead of summing gradients (lionx.h).  NULL otherwise. */
lionx_t *tsetup_open_exchange(const train_job *j, optim_t *opt, gsync_t *gs, train_result *r)
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
