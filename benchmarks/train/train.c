#include "benchmarks/train/train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/ensemble.h"
#include "benchmarks/train/gsync/gsync.h"
#include "benchmarks/train/lionx.h"
#include "benchmarks/train/mllog.h"
#include "benchmarks/train/optim.h"
/* the step loop stays here whole; what it calls before, after and between
 * its steps is in tsetup.c, tkeep.c and teval.c (train_impl.h says why) */
#include "benchmarks/train/train_impl.h"

void train_facts(const network_t *net, const void *model, net_facts *f)
{
    memset(f, 0, sizeof *f);
    net->facts(model, f);
}

int train_replica_ranks(const net_facts *f) { return f->replica_ranks > 1 ? f->replica_ranks : 1; }

int train_table_rows(const network_t *net, const void *model)
{
    net_facts f;
    train_facts(net, model, &f);
    return tsetup_table_rows(&f);
}

int64_t train_dry_flops(const network_t *net, const void *model, int batch, ktab_t *table)
{
    char err[256];
    ktab_t own;
    ktab_t *t = table ? table : &own;
    net_facts f;
    train_facts(net, model, &f);
    ktab_init(t, tsetup_table_rows(&f));
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

/* One trainer's run: the whole job when there is one trainer (ensemble.h). */
static int run_trainer(const train_job *j, ens_t *e, train_result *r, char *err, size_t errlen)
{
    const network_t *net = j->net;
    const runcfg_t *c = j->run;
    backend_t *be = j->backend;
    comm_t *comm = j->comm;
    net_facts f;
    train_facts(net, j->model, &f);
    tsetup_alloc_result(c, &f, r);
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
        if (r->ttt.print) {
            /* a rank drives one GPU on the cuda backend (bound by local rank) */
            mllog_hyper_in h = {.run = c, .global_batch = (int64_t)groups * c->batch,
                                .train_samples = f.train_samples,
                                .nodes = comm->nhosts > 0 ? comm->nhosts : 1,
                                .accelerators_per_node =
                                    strcmp(c->backend, "cuda") ? 0 : comm->local_size,
                                .batchnorm_group_size = f.bn_group_ranks};
            mllog_hyper(&h);
        }
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
    int bad = tsetup_open_instance(&jr, &f, ens_seed(e, c->seed), &n, &opt, err, errlen) != 0,
        any = bad;
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
    ktab_init(&step_tab, tsetup_table_rows(&f));
    kc_t kc = {.ops = be->ops, .ctx = be->ctx, .tab = &step_tab, .timing = c->kernel_timing};
    gsync_t *gs = tsetup_open_gsync(&jr, n, f.layers, r, err, errlen);
    if (!gs) {
        ktab_free(&step_tab);
        free(input);
        free(target);
        optim_free(opt);
        net->release(n);
        if (jr.comm != comm) CHECK_MPI(MPI_Comm_free(&replicas.world));
        return -1;
    }
    lionx_t *lx = tsetup_open_exchange(&jr, opt, gs, r);
    if (be->tune_pass) tsetup_tune_pass(j, n, input, target, &f);
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
        tkeep_reduction_rows(gs, &step_tab, lx ? "sign_exchange" : "allreduce");
        if (s >= c->warmup) tkeep_update(&jr, lx, f.params, s - base, r);
        double in6[6] = {dt, data_s, gst->reduce_s, gst->exposed_s, gst->negotiation_s, 0}, mx[6],
               gloss;
        CHECK_MPI(MPI_Allreduce(in6, mx, 5, MPI_DOUBLE, MPI_MAX, comm->world));
        CHECK_MPI(MPI_Allreduce(&loss, &gloss, 1, MPI_DOUBLE, MPI_SUM, comm->world));
        gloss /= comm->size;
        if (s >= c->warmup) tkeep_rank_times(j, r, s - base, dt, compute_s);
        if (s < c->warmup) {
            r->warm_s[s] = mx[0];
            r->warm_loss[s] = gloss;
        } else {
            tkeep_step(r, s - base, mx, gst, gloss, &step_tab);
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
                              .replica_ranks = R, .table_rows = tsetup_table_rows(&f),
                              .seed = c->seed,
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
            double mae;
            double vl = teval_loss(j, n, input, target, &f, groups, comm->rank / R, &mae);
            int hit = ttt_eval_point(&r->ttt, s, vl, mae, timer_now_s() - te);
            if (comm->rank == 0 && !j->quiet) {
                char ms[48] = "";
                if (isfinite(mae)) snprintf(ms, sizeof ms, ", MAE %.5g", mae);
                printf("  eval after step %d: validation loss %.5g%s%s\n", s + 1, vl, ms,
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
            ckpt_write(j->ckpt, comm, net, n, opt, be->ops, be->ctx, s + 1, f.fwd_conv_flops,
                       &r->ckpt, err, errlen)) {
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
            r->holdout_loss = teval_holdout_loss(
                j, n, &kc, ens_first_sample(e, comm->rank / R, groups, c->batch), input, target);
        teval_validate(&jr, n, f.params, r);
        rc = j->dump_weights ? teval_dump_weights(j, n, f.params, e->world->rank, err, errlen) : 0;
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
        tsetup_alloc_result(j->run, &f, r);
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
                teval_add_check(r, "every_trainer_valid", r->ens.invalid_trainers == 0, 1,
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
