/* results_impl: what results.c and results_blocks.c share (private to the
 * two files).  results.c writes results.yaml as a document: the run block,
 * the harness cost, the device peak, the system, the metric rows, and calls
 * results_blocks.c for the entries that repeat (a launch, the allocation, a
 * benchmark's scales, collectives and config, the checks).  Split where the
 * document's order ends and an entry's fields begin; one private header, as
 * train_impl.h, because both files write values through the same typed
 * helpers and a header of each would make a module circle.
 *
 * defines: results_kv_num, results_kv_scale, results_write_launch,
 *   results_write_slurm, results_write_scale, results_write_coll,
 *   results_write_params, results_write_checks */
#ifndef EXADL_HARNESS_RESULTS_IMPL_H
#define EXADL_HARNESS_RESULTS_IMPL_H

#include <stddef.h>

#include "harness/report/results.h"
#include "harness/report/runctx.h"

/* ---- results.c: values as typed YAML ---- */
/* key: v, or null where v is not finite */
void results_kv_num(rec_t *w, const char *k, double v);
/* a metric row's or a check's scale: null for one of a configuration, not per scale */
void results_kv_scale(rec_t *w, int scale);

/* ---- results_blocks.c: the entries that repeat ---- */
void results_write_launch(rec_t *w, const outcome_t *o);
/* the allocation: job, partition, nodes, time limit, srun's --mpi; null
 * outside Slurm */
void results_write_slurm(rec_t *w, const runinfo_t *ri);
void results_write_scale(rec_t *w, const sres_t *s);
void results_write_coll(rec_t *w, const cres_t *c);
void results_write_params(rec_t *w, const char *key, const kv_t *p, size_t n);
void results_write_checks(rec_t *w, const checks_t *ck);

#endif
