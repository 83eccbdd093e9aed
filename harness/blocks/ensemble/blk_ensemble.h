/* blk_ensemble: a training record's ensemble block (docs/ensembles.md): K
 * trainers, each trainer's step times, and the tournament's rounds.
 * defines: entrainer_t, eninfo_t, rec_ensemble */
#ifndef EXADL_HARNESS_BLK_ENSEMBLE_H
#define EXADL_HARNESS_BLK_ENSEMBLE_H

#include "harness/blocks/block.h"

typedef struct {
    double *step_s;         /* the trainer's timed steps (max over its ranks) */
    size_t nstep;
    double samples_per_s, final_loss;
} entrainer_t;

typedef struct {
    long long trainers, ranks_per_trainer, invalid_trainers, tournament_every;
    double samples_per_trainer_step, aggregate_samples_per_s;
    entrainer_t *t;         /* trainers of them */
    double *exchange_s, *exchange_bytes, *adopted; /* per round; adopted: trainers that
                                                      took their partner's model */
    size_t nrounds;
} eninfo_t;

/* the record's ensemble block; NULL: one trainer, no ensemble block */
static inline const eninfo_t *rec_ensemble(const record_t *r) { return r->blk[BLOCK_ensemble]; }

/* its derived half (der_ensemble.h) */
block_derive_fn ensemble_derive;
block_rows_fn ensemble_rows;

#endif
