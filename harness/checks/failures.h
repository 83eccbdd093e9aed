/* failures: what a reader of the terminal needs about a check that failed
 * (its measured value, bound and margin) and about one that may not hold on
 * the next run (a threshold resting on one launch, a CI across the bound). */
#ifndef EXADL_HARNESS_FAILURES_H
#define EXADL_HARNESS_FAILURES_H

#include <stdio.h>

#include "harness/checks/refcheck.h"

/* "-3.2% under the lower bound" / "nothing measured"; into buf. */
const char *check_margin(const check_t *c, char *buf, size_t len);
/* Why the verdict of c may not hold on the next identical run; NULL: none. */
const char *check_warning(const check_t *c, char *buf, size_t len);
/* "FAILED checks (N):" with one line each, then "warnings:"; nothing when
 * there is nothing to say. */
void checks_print_failures(FILE *f, const checks_t *c);

#endif
