/* ensemble: many models trained at once (docs/ensembles.md).  The world is
 * split into K trainers of P = ranks / K consecutive ranks (MPI_Comm_split);
 * each trainer is one data-parallel training run with its own gradient
 * engine (train.c runs the loop on the trainer's communicator).  With a
 * tournament (LBANN's LTFB) every E steps the trainers are paired by a
 * permutation drawn from the seed and the round; the two leaders (trainer
 * rank 0) swap their weights, each broadcasts the partner's inside its
 * trainer, every trainer evaluates both models on a held-out batch of its
 * own and keeps the one of lower loss.  Only weights travel: each trainer
 * keeps its own optimizer state (LTFB as published also keeps its own).
 *
 * defines: ens_t, ens_round_t, ens_result, ens_open, ens_close, ens_first_sample,
 *   ens_seed, ens_round, ens_gather, ens_write_record, ens_result_free */
#ifndef EXADL_TRAIN_ENSEMBLE_H
#define EXADL_TRAIN_ENSEMBLE_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/network.h"

typedef struct {
    int trainers;      /* K */
    int trainer;       /* this rank's trainer, 0..K-1 */
    int per_trainer;   /* P ranks */
    const comm_t *world;
    comm_t comm;       /* the trainer: rank and size inside it; world = its communicator */
} ens_t;

/* One tournament round as this trainer saw it. */
typedef struct {
    int step;          /* after this many steps (warm-up included) */
    int partner;       /* trainer index, -1: sat out (odd K) */
    double own_loss, partner_loss; /* on this trainer's held-out batch, mean over its ranks */
    int adopted;       /* kept the partner's model */
    double exchange_s; /* leaders' swap + broadcast inside the trainer, max over its ranks */
    double eval_s;     /* both evaluations, max over its ranks */
    int64_t bytes;     /* weights the leader sent to its partner */
    uint64_t hash_before, hash_after; /* FNV-1a of the trainer's weights */
} ens_round_t;

/* What world rank 0 keeps of every trainer (ens_gather). */
typedef struct {
    int trainers, per_trainer, tournament_every;
    int steps;             /* timed steps of each trainer */
    double *step_s;        /* [trainer][step]: max over the trainer's ranks */
    double *final_loss;    /* [trainer]: loss of the last timed step */
    int invalid_trainers;  /* trainers with a failed deciding check */
    int nrounds;
    ens_round_t *rounds;   /* [round][trainer] */
    /* this rank's own rounds (every rank), before the gather */
    int own_n, own_cap;
    ens_round_t *own;
} ens_result;

/* Split comm into k trainers; -1 with err when k does not divide the ranks. */
int ens_open(const comm_t *world, int k, ens_t *e, char *err, size_t errlen);
void ens_close(ens_t *e);

/* The first global sample of this rank's part of step s: trainers take
 * consecutive slices, so K trainers of P ranks see the samples one trainer of
 * K x P ranks sees (group: the rank's spatial group inside its trainer). */
int64_t ens_first_sample(const ens_t *e, int group, int groups, int batch);
/* The initial-weight seed of this trainer (K = 1: the run's seed). */
uint64_t ens_seed(const ens_t *e, uint64_t seed);

/* What a round needs of the model being trained. */
typedef struct {
    const network_t *net;
    const void *model;
    void *inst;
    const kern_ops *ops;
    void *ctx;
    int batch, groups, replica_ranks;
    int table_rows;    /* kernel-table rows of one step (a scratch table for evaluation) */
    uint64_t seed;
    int64_t params;
    const char *dump;  /* write each rank's weights before the round to DUMP.pre.<rank> */
} ens_model_t;

/* One tournament round after `step` steps (every rank of the world). */
void ens_round(ens_t *e, const ens_model_t *m, int step, int round, ens_result *res);

/* Per-trainer step times and losses, rounds and validity to world rank 0. */
void ens_gather(const ens_t *e, const double *step_s, int steps, double final_loss, int invalid,
                int tournament_every, ens_result *res);

/* The `ensemble` block of the record (world rank 0). */
void ens_write_record(const ens_result *res, int batch, int replica_ranks, rec_t *w);
void ens_result_free(ens_result *res);

#endif
