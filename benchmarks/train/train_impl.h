/* train_impl: what train.c's step loop calls, split from train.c into three
 * files by when it runs (private to the training runtime: nothing outside
 * train.c, tsetup.c, tkeep.c and teval.c includes it).  The loop itself stays
 * whole in train.c, so that a step's order of calls reads in one place:
 *
 *   tsetup.c  before the first step, once: the result's arrays, the network
 *             instance and optimizer (every rank from rank 0's weights), the
 *             gradient-reduction engine, Lion's compressed exchange, the tuning
 *             pass of a kernel set that searches its algorithms;
 *   tkeep.c   after each step: what the loop measured into train_result (with
 *             the gathers across ranks that storing needs); it decides nothing;
 *   teval.c   between and after the steps, never timed with one: the validation
 *             loss of an evaluation (ttt.h), the held-out loss, the validation
 *             checks of a finished run, the weights dump.
 *
 * One header for the three (not one each): they all take train.h's job and
 * result, and train.c includes them, so headers of their own would make
 * module circles with train (tests/it/layout.sh).
 *
 * defines: tsetup_table_rows, tsetup_alloc_result, tsetup_open_instance,
 *   tsetup_open_gsync, tsetup_open_exchange, tsetup_tune_pass, tkeep_reduction_rows,
 *   tkeep_step, tkeep_rank_times, tkeep_update, teval_add_check, teval_validate,
 *   teval_dump_weights, teval_holdout_loss, teval_loss */
#ifndef EXADL_TRAIN_TRAIN_IMPL_H
#define EXADL_TRAIN_TRAIN_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/train/counted.h"
#include "benchmarks/train/gsync/gsync.h"
#include "benchmarks/train/lionx.h"
#include "benchmarks/train/optim.h"
#include "benchmarks/train/train.h"

/* ---- tsetup.c: before the first step ---- */
/* Rows of a kernel table for the network of f. */
int tsetup_table_rows(const net_facts *f);
/* Zero r and allocate its per-step arrays (train_result_free frees them). */
void tsetup_alloc_result(const runcfg_t *c, const net_facts *f, train_result *r);
/* The instance and its optimizer, rank 0's weights on every rank of j->comm;
 * 0, or -1 with err (some rank ran out of memory; nothing stays allocated). */
int tsetup_open_instance(const train_job *j, const net_facts *f, uint64_t seed, void **inst,
                         optim_t **opt, char *err, size_t errlen);
/* The run's gradient-reduction engine, its groups and per-step arrays in r;
 * NULL with err. */
gsync_t *tsetup_open_gsync(const train_job *j, void *n, int nlayers, train_result *r, char *err,
                           size_t errlen);
/* Lion's compressed exchange attached to gs, or NULL (--exchange grad). */
lionx_t *tsetup_open_exchange(const train_job *j, optim_t *opt, gsync_t *gs, train_result *r);
/* One untimed forward and backward pass (backend_t.tune_pass), then a barrier. */
void tsetup_tune_pass(const train_job *j, void *n, float *input, float *target,
                      const net_facts *f);

/* ---- tkeep.c: a step's numbers into train_result ---- */
/* The last step's reductions as rows of tab, one per group, named kernel. */
void tkeep_reduction_rows(const gsync_t *gs, ktab_t *tab, const char *kernel);
/* Timed step i: mx (max over ranks: step, data, reduce, exposed and
 * negotiation seconds), the engine's step, the mean loss, the kernel rows. */
void tkeep_step(train_result *r, int i, const double *mx, const gsync_step *gst, double gloss,
                const ktab_t *step_tab);
/* Timed step i's own step and compute time of every rank, on rank 0
 * (collective: every rank of j->comm calls it). */
void tkeep_rank_times(const train_job *j, train_result *r, int i, double step_s,
                      double compute_s);
/* Timed step i's exchange numbers (lx NULL: the fp32 allreduce's bytes);
 * collective when lx is not NULL. */
void tkeep_update(const train_job *j, lionx_t *lx, int64_t params, int i, train_result *r);

/* ---- teval.c: losses and checks outside the timed steps ---- */
/* Append a check to r (a deciding one that fails makes the run invalid). */
void teval_add_check(train_result *r, const char *check, int pass, int decides, const char *fmt,
                     ...) __attribute__((format(printf, 5, 6)));
/* The finished run's checks: finite losses and weights, the same weights on
 * every rank of j->comm (collective), the loss trend (informative). */
void teval_validate(const train_job *j, void *n, int64_t params, train_result *r);
/* This rank's fp32 weights to j->dump_weights.<world_rank>; 0, or -1 with err. */
int teval_dump_weights(const train_job *j, void *n, int64_t params, int world_rank, char *err,
                       size_t errlen);
/* The mean loss over the ranks on the held-out batch (collective). */
double teval_holdout_loss(const train_job *j, void *n, kc_t *kc, int64_t first, float *input,
                          float *target);
/* The validation loss of group g of groups over the val split (collective);
 * *mae the mean absolute error of the same forwards (NAN where the network
 * has no forward_mae). */
double teval_loss(const train_job *j, void *n, float *input, float *target, const net_facts *f,
                  int groups, int g, double *mae);

#endif
