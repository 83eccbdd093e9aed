/* mp_stats: what the record's model_parallel block states beyond the
 * formulas: each rank's halo traffic and time as run, and its memory high
 * water mark (VmHWM of /proc/self/status, less its VmRSS before the
 * instance's buffers), gathered onto world rank 0 after the last step.
 *
 * defines: mp_stats_rss_bytes, mp_stats_step, mp_stats_write */
#ifndef MODELPAR_MP_STATS_H
#define MODELPAR_MP_STATS_H

#include <stdint.h>

#include "benchmarks/common/record/record.h"
#include "benchmarks/modelpar/mp_model.h"

/* The value of a /proc/self/status line ("VmRSS:", "VmHWM:") in bytes; -1
 * where there is none. */
int64_t mp_stats_rss_bytes(const char *key);

/* After each backward pass (every rank): this step's halo time, bytes and
 * messages, the dense pair's collectives' time and bytes; after the last
 * one, the gather (a collective over the job). */
void mp_stats_step(const mp_model *m, double halo_s, int64_t bytes, int64_t msgs, double tp_s,
                   int64_t tp_bytes);

/* The model_parallel block (world rank 0; docs/record.md "modelpar"). */
void mp_stats_write(const mp_model *m, rec_t *w);

#endif
