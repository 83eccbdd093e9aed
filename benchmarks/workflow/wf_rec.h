/* wf_rec: the workflow's numbers from the trainer's ledger, its summary
 * line and its record (`benchmark: workflow`, the `workflow` block,
 * docs/record.md "workflow", docs/workflow.md).
 * defines: wf_result, wf_result_make, wf_print, wf_write_record */
#ifndef EXADL_WORKFLOW_WF_REC_H
#define EXADL_WORKFLOW_WF_REC_H

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/stats.h"
#include "benchmarks/workflow/wf_trainer.h"

typedef struct {
    int producers, failed_producers, partial_files;
    int64_t expected, produced, consumed, duplicates, corrupt, lost_to_failure, unaccounted;
    double wall_s, produced_per_s, consumed_per_s, stall_s, blocked_s, depth_mean;
    stats_summary_t lat;                  /* simulation to gradient, s */
    int ok;                               /* every sample once, none damaged, queue bound kept */
} wf_result;

void wf_result_make(const wf_cfg *c, const wf_tr *T, int producers, double wall_s, int partial,
                    wf_result *r);
void wf_print(const wf_cfg *c, const wf_tr *T, const wf_result *r);
/* 0, or -1 with the error printed */
int wf_write_record(const wf_cfg *c, const comm_t *comm, const wf_tr *T, const wf_result *r,
                    int argc, char **argv, const char *started);

#endif
