#include "benchmarks/train/train_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"

void teval_add_check(train_result *r, const char *check, int pass, int decides, const char *fmt,
                     ...)
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

/* The validation checks of a finished run (train_result.checks). */
void teval_validate(const train_job *j, void *n, int64_t params, train_result *r)
{
    comm_t *comm = j->comm;
    int finite = 1;
    for (int i = 0; i < r->steps; i++) finite &= isfinite(r->loss[i]);
    teval_add_check(r, "loss_finite", finite, 1, "%s",
                    finite ? "every step's loss is a finite number"
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
        teval_add_check(r, "weights_identical_across_ranks", 1, 1,
                        "FNV-1a hash of all %lld weights equal on %d rank(s): %016llx",
                        (long long)params, comm->size, (unsigned long long)mine);
    else
        teval_add_check(r, "weights_identical_across_ranks", 0, 1,
                        "rank %d holds different weights than rank 0 after %d steps", first_bad,
                        r->steps + r->warmup);
    teval_add_check(r, "weights_finite", wfinite, 1, "%s",
                    wfinite ? "every weight is finite" : "a weight is NaN or infinite");

    /* informative only: a short benchmark run need not lower the loss */
    int q = r->steps / 4 > 0 ? r->steps / 4 : 1;
    double first = 0, last = 0;
    for (int i = 0; i < q; i++) first += r->loss[i], last += r->loss[r->steps - 1 - i];
    teval_add_check(r, "loss_trend", last < first, 0,
                    "mean loss of the first %d timed steps %.6g, of the last %d %.6g", q,
                    first / q, q, last / q);
}

/* Raw fp32 weights of this rank, for tests that compare ranks and runs bit for bit. */
int teval_dump_weights(const train_job *j, void *n, int64_t params, int world_rank, char *err,
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

/* The trained weights' mean loss over the ranks on the held-out batch: the
 * samples of step 0 of a seed of its own (training draws the run's seed), so
 * every model of the same data shapes meets the same batch (train_job.holdout). */
double teval_holdout_loss(const train_job *j, void *n, kc_t *kc, int64_t first, float *input,
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
 * positions past the split wrap around.  The MAE (network.h forward_mae)
 * comes from the same forwards and is averaged the same way. */
double teval_loss(const train_job *j, void *n, float *input, float *target,
                  const net_facts *f, int groups, int g, double *mae)
{
    const runcfg_t *c = j->run;
    int64_t per = (int64_t)groups * c->batch, nb = (f->eval_samples + per - 1) / per;
    ktab_t tab;
    ktab_init(&tab, tsetup_table_rows(f));
    kc_t kc = {.ops = j->backend->ops, .ctx = j->backend->ctx, .tab = &tab, .timing = 0};
    double sum[2] = {0, 0}, all[2];
    for (int64_t k = 0; k < nb; k++) {
        j->net->generate_eval(j->model, k * per + (int64_t)g * c->batch, c->batch, input, target);
        j->net->load(n, input, target);
        sum[0] += j->net->forward(n, &kc);
        j->backend->ops->sync(j->backend->ctx);
        if (j->net->forward_mae) sum[1] += j->net->forward_mae(n);
        ktab_reset(&tab);
    }
    ktab_free(&tab);
    sum[0] /= (double)nb;
    sum[1] /= (double)nb;
    CHECK_MPI(MPI_Allreduce(sum, all, 2, MPI_DOUBLE, MPI_SUM, j->comm->world));
    *mae = j->net->forward_mae ? all[1] / j->comm->size : NAN;
    return all[0] / j->comm->size;
}
