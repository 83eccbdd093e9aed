/* der_spatial: the spatial block's derived numbers (docs/cosmoflow.md "The
 * model"): per suite entry whose records carry a spatial block, the spatial
 * model's inputs from the run (its one-rank cosmoflow record and allreduce
 * sweep) and, per measured scale, the prediction for the split and groups
 * that ran beside the measured halo and gather times, the predicted
 * efficiency and the split the model would pick.  No metric rows.  The
 * entry's report section spatial (harness/report/sections/spatial.c) shows
 * them.
 * defines: spscale_t, spentry_t, sprun_t, spatial_of */
#ifndef EXADL_HARNESS_DER_SPATIAL_H
#define EXADL_HARNESS_DER_SPATIAL_H

#include "harness/blocks/derive.h"
#include "harness/blocks/spatial/blk_spatial.h"
#include "harness/model/spatial_input.h"

/* a measured scale with a prediction */
typedef struct {
    const sres_t *s;
    const spinfo_t *sp;        /* its first record's spatial block */
    int batch;                 /* samples per group per step (config batch, else 1) */
    msp_t p;                   /* the prediction for the configuration it ran */
    double pred_eff;           /* predicted efficiency against the first such scale */
    double halo_s, gather_s;   /* measured: rank 0's kernel rows halo, gather per step (0: none) */
    int have_best;
    msp_t best;                /* the model's best split for these ranks and samples */
} spscale_t;

typedef struct {
    int active;                /* a record of the entry has a spatial block */
    const char *why;           /* why there is no prediction (NULL: inputs found) */
    mspin_t in;
    spscale_t *sc;
    size_t nsc;
} spentry_t;

typedef struct {
    spentry_t *e;              /* one per entry of the analysis, in its order */
    size_t n;
} sprun_t;

/* The derived numbers of entry b of analysis an (NULL: none). */
static inline const spentry_t *spatial_of(const sprun_t *S, const analysis_t *an,
                                          const bres_t *b)
{
    size_t i = (size_t)(b - an->b);
    return S && i < S->n && i < an->nb ? &S->e[i] : NULL;
}

#endif
