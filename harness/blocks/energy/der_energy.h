/* der_energy: the energy block's derived numbers (docs/energy.md): per entry
 * and scale, every ok launch's J per sample, FLOP/s per W (executed and
 * convention), average and peak power, each as the median over the launches
 * with its 95% CI (stats.h), and the first record's block for the report's
 * table of sources and its power-over-time plot.  The report section energy
 * (harness/report/sections/energy.c) shows them.
 * defines: enrow_t, enrun_t */
#ifndef EXADL_HARNESS_DER_ENERGY_H
#define EXADL_HARNESS_DER_ENERGY_H

#include "benchmarks/common/stats.h"
#include "harness/blocks/derive.h"
#include "harness/blocks/energy/blk_energy.h"

typedef struct {
    const bres_t *b;
    int scale;
    const eninfo_t *first;     /* the first ok record's block */
    int nlaunch, nmeasured;    /* launches with a block, with an energy (not n/a) */
    stats_summary_t j_per_sample, flops_per_w, conv_flops_per_w, avg_w, peak_w;
} enrow_t;

typedef struct {
    enrow_t *r;
    size_t n;
} enrun_t;

#endif
