/* trec: the record of a training run (docs/record.md) and its human summary,
 * for any network: the common header (benchmarks/common/record/header.h), how
 * the run ran (kernels, threads and the backend's own blocks), the network's
 * block (network_t.write_record) and what it measured (timing, summary,
 * FLOPs, gradient reduction, kernel table, loss, memory, validation).  The
 * workload gives its record kind and its `config` block.
 *
 * defines: trec_meta_t, trec_write, trec_write_run, trec_write_results,
 *   trec_print_summary, trec_si */
#ifndef EXADL_TRAIN_TREC_H
#define EXADL_TRAIN_TREC_H

#include <stddef.h>

#include "benchmarks/common/record/header.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/train/train.h"

/* What the workload adds to the runtime's record. */
typedef struct {
    const char *benchmark;   /* the record kind ("stemdl") */
    const char *error;       /* the run failed before or during training: why (NULL: it ran) */
    const char *started_utc;
    int argc;
    char *const *argv;
    const sysinfo_t *system;
    void (*config)(rec_t *w, const void *arg); /* writes `config:` and its mapping */
    const void *config_arg;
} trec_meta_t;

/* The whole record at path: header (status ok, invalid with the first
 * deciding check that failed, or failed with m->error), trec_write_run, the
 * network's block, and trec_write_results when r is not NULL.  0, or -1 with
 * err. */
int trec_write(const char *path, const train_job *j, const train_result *r, const trec_meta_t *m,
               char *err, size_t errlen);

/* kernels_impl, threads_per_rank and the backend's blocks
 * (backend_write_record); j->backend may be NULL. */
void trec_write_run(const train_job *j, rec_t *w);

/* timing, summary, flops, gradient_reduction, kernels_steps, kernels, loss,
 * memory, validation. */
void trec_write_results(const train_job *j, const train_result *r, rec_t *w);

/* The short human summary on stdout: "PROGRAM: TITLE, ranks x batch, ...",
 * step time, throughput, FLOPs, FLOP/s, device peak, loss, checks, record. */
void trec_print_summary(const train_job *j, const train_result *r, const sysinfo_t *si,
                        const char *program, const char *title, const char *record_path);

/* Human-readable count with an SI prefix: "17.17 T". */
void trec_si(double v, char *buf, size_t len);

#endif
