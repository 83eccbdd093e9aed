/* summary_coll: the collectives' own rows of the summary (summary.c prints
 * the training benchmarks): per benchmark and scale, allreduce's latency at
 * its smallest size and its busbw at its largest (out of place), the best
 * busbw of any operation with its name, and the checks.
 * defines: summary_coll_print */
#ifndef EXADL_HARNESS_SUMMARY_COLL_H
#define EXADL_HARNESS_SUMMARY_COLL_H

#include <stdio.h>

#include "harness/checks/refcheck.h"

/* Prints nothing and returns 0 when the table has no collectives rows;
 * else the number of rows printed. */
int summary_coll_print(FILE *f, const mtable_t *t, const checks_t *ck, int md);

#endif
