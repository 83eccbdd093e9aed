/* analysis_parts: the parts of analysis_run (analysis.h), one file each:
 * training benchmarks (analysis_train.c) and collectives (analysis_coll.c).
 * Internal to harness/analysis; everything else uses analysis.h.
 * defines: analysis_train_scale, analysis_train_efficiency, analysis_coll_rows */
#ifndef EXADL_HARNESS_ANALYSIS_PARTS_H
#define EXADL_HARNESS_ANALYSIS_PARTS_H

#include <stddef.h>

#include "harness/analysis/analysis.h"

/* The stemdl-like records of benchmark `name` at scale s->scale; peak: the
 * device (or, per_core, the per-core fp32) peak; bf16_peak: the per-core bf16
 * peak, for CPU records that ran precision bf16 when per_core. */
void analysis_train_scale(arena_t *a, sres_t *s, const outcome_t *o, size_t n, const char *name,
                          double peak, double bf16_peak, int per_core);
/* Weak or strong scaling efficiency of every scale against the smallest
 * measured one. */
void analysis_train_efficiency(bres_t *b);
/* The collective rows of benchmark b, sorted by operation, scale, variant, size. */
void analysis_coll_rows(arena_t *a, bres_t *b, const outcome_t *o, size_t n);

#endif
