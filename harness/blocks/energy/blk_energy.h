/* blk_energy: the training programs' `energy` block (docs/record.md
 * "energy", docs/energy.md): the energy of the timed steps per node and in
 * all, how the nodes were combined, J per sample and FLOP/s per W, each
 * power source with its accuracy or why it is n/a, and each node's power over
 * time.
 * defines: ensrc_t, ennode_t, eninfo_t, rec_energy */
#ifndef EXADL_HARNESS_BLK_ENERGY_H
#define EXADL_HARNESS_BLK_ENERGY_H

#include "harness/blocks/block.h"

typedef struct {
    long long node;
    const char *name, *source, *domain, *reads, *status, *reason, *accuracy_note;
    double energy_j, peak_w, accuracy;   /* NaN: n/a, unknown */
} ensrc_t;

typedef struct {
    long long node;
    const char *host, *basis, *how;
    double energy_j, window_s, avg_w, peak_w;
    double *t_s, *w;                     /* power over time */
    size_t npts;
} ennode_t;

typedef struct {
    const char *basis, *reason, *combine, *window;
    long long nodes;
    double interval_s, energy_j, window_s, avg_w, peak_w, samples, j_per_sample;
    double flops_per_w, conv_flops_per_w;  /* NaN: energy n/a */
    ennode_t *n;
    size_t nn;
    ensrc_t *s;
    size_t ns;
    const char **absent;                 /* "node N: SOURCE: REASON" */
    size_t nabsent;
} eninfo_t;

/* the record's energy block; NULL: none */
static inline const eninfo_t *rec_energy(const record_t *r) { return r->blk[BLOCK_energy]; }

/* its derived half (der_energy.h) */
block_derive_fn energy_derive;
block_rows_fn energy_rows;

#endif
