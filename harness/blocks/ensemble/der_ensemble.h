/* der_ensemble: the ensemble block's derived numbers (docs/ensembles.md): one
 * row per training entry and scale whose first record carries an ensemble
 * block (K trainers of P ranks): the trainers' aggregate rate, set against
 * one trainer alone (an entry of the same work at P ranks: efficiency,
 * interference) and one trainer of the same size (at K x P ranks: ratio),
 * and the tournament's exchange.  Its rows: ensemble_aggregate_samples_per_s,
 * ensemble_efficiency, ensemble_vs_one_trainer, tournament_exchange_s.  The
 * report section ensembles (harness/report/sections/ensembles.c) shows them.
 * defines: enrow_t, ensembles_t */
#ifndef EXADL_HARNESS_DER_ENSEMBLE_H
#define EXADL_HARNESS_DER_ENSEMBLE_H

#include "harness/blocks/derive.h"
#include "harness/blocks/ensemble/blk_ensemble.h"

typedef struct {
    const bres_t *b;
    const sres_t *s;
    const eninfo_t *en;
    double agg, agg_lo, agg_hi;     /* samples/s */
    double slowest_med;             /* the slowest trainer's median step */
    const sres_t *alone, *whole;    /* one trainer of P ranks; one of K x P ranks */
    double eff, eff_lo, eff_hi, ratio, ratio_lo, ratio_hi, interference;
    double exch, bytes, best_loss;
    int adopted;
} enrow_t;

typedef struct {
    enrow_t *r;
    size_t n;
} ensembles_t;

#endif
