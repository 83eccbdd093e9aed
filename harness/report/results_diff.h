/* results_diff: everything that differs between two runs before their numbers
 * are compared: the exadl version and commit, the machine, the system block
 * (CPU, GPUs, libraries, hosts) and each benchmark's workload config.  A
 * workload whose config differs is not comparable: `exadl compare` refuses
 * its rows (or marks them, --allow-config-diff). */
#ifndef EXADL_HARNESS_RESULTS_DIFF_H
#define EXADL_HARNESS_RESULTS_DIFF_H

#include <stdio.h>

#include "harness/report/results.h"

typedef struct {
    const char *what;   /* "exadl commit", "system cpu.model", "config stemdl.preset" */
    const char *a, *b;  /* the values; "(absent)" where one side lacks it */
    const char *bench;  /* a config difference: the benchmark, else NULL */
} rdiff_t;

typedef struct {
    rdiff_t *d;
    size_t n, cap;
} rdiffs_t;

void results_diff(arena_t *a, const results_t *x, const results_t *y, rdiffs_t *out);
/* 1 when the workload config of benchmark `bench` differs */
int results_config_differs(const rdiffs_t *d, const char *bench);
/* "Differences between A and B:" and one line each (or "none"). */
void results_diff_print(FILE *f, const rdiffs_t *d);

#endif
