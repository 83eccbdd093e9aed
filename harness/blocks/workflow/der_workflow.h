/* der_workflow: the workflow block's derived numbers (docs/workflow.md):
 * every launch's workflow block (each repetition one run of the workflow)
 * and, per entry and scale, its first record's, whose rows are
 * workflow_consumed_per_s, workflow_produced_per_s, workflow_stall_fraction,
 * workflow_latency_s (with its CI) and workflow_lost_to_failure (param
 * mode).  The report section workflow (harness/report/sections/workflow.c)
 * shows them.
 * defines: wflaunch_t, wfrow_t, wfrun_t */
#ifndef EXADL_HARNESS_DER_WORKFLOW_H
#define EXADL_HARNESS_DER_WORKFLOW_H

#include "harness/blocks/derive.h"
#include "harness/blocks/workflow/blk_workflow.h"

typedef struct {
    const char *bench;         /* its suite entry */
    const wfinfo_t *m;
} wflaunch_t;

typedef struct {
    const bres_t *b;
    int scale;
    const wfinfo_t *m;
} wfrow_t;

typedef struct {
    wflaunch_t *l;             /* every launch with a record that has one, in launch order */
    size_t nl;
    wfrow_t *r;
    size_t nr;
} wfrun_t;

#endif
