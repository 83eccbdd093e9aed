/* wf_sample: one sample of the workflow (wf.h): its simulation (a 2D
 * diffusion on a periodic grid from a random field of (seed, producer,
 * sequence): input the field, target the field sim_steps explicit steps
 * later), its checksum, its check on arrival, and the real-time clock its
 * latency is measured on.
 * defines: wf_sample_make, wf_sample_check, wf_realtime_s, wf_checksum */
#ifndef EXADL_WORKFLOW_WF_SAMPLE_H
#define EXADL_WORKFLOW_WF_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/workflow/wf.h"

/* Seconds of CLOCK_REALTIME: a time two processes on one node agree on (on
 * several nodes their clocks' offset adds to the latency, docs/workflow.md). */
double wf_realtime_s(void);
/* FNV-1a 64 over a sample's header (up to the checksum) and payload. */
uint64_t wf_checksum(const void *sample, size_t bytes);
/* Simulate sample `seq` of `producer` into buf (wf_sample_bytes): header
 * stamped and checksummed.  work: 2 x cells floats of scratch. */
void wf_sample_make(const wf_cfg *c, int producer, int64_t seq, void *buf, float *work);
/* 0 when buf (bytes long) is a whole sample whose checksum holds, its header
 * in *h; -1 otherwise (wrong size, magic or checksum). */
int wf_sample_check(const wf_cfg *c, const void *buf, size_t bytes, wf_hdr *h);

#endif
