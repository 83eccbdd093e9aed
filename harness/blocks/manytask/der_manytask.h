/* der_manytask: the manytask block's derived numbers (docs/ensembles.md):
 * every launch's tasks block (each repetition is one measurement of N tasks)
 * and, per entry and scale, its first record's, whose rows are tasks_per_s,
 * task_latency_p50_s, task_latency_p99_s (param launcher).  The report
 * section manytask (harness/report/sections/manytask.c) shows them.
 * defines: mtlaunch_t, mtrow_t, mtrun_t */
#ifndef EXADL_HARNESS_DER_MANYTASK_H
#define EXADL_HARNESS_DER_MANYTASK_H

#include "harness/blocks/derive.h"
#include "harness/blocks/manytask/blk_manytask.h"

/* a launch's tasks block */
typedef struct {
    const char *bench;         /* its suite entry */
    const mtinfo_t *m;
} mtlaunch_t;

/* an entry's first record at a scale */
typedef struct {
    const bres_t *b;
    int scale;
    const mtinfo_t *m;
} mtrow_t;

typedef struct {
    mtlaunch_t *l;             /* every launch with a record that has one, in launch order */
    size_t nl;
    mtrow_t *r;
    size_t nr;
} mtrun_t;

#endif
