/* trec: the runtime's parts of a training record (docs/record.md) and of the
 * human summary, for any network: how the run ran (ranks, GPUs, backend,
 * kernels, precision and the backend's own blocks), and what it measured
 * (timing, summary, FLOPs, gradient reduction, kernel table, loss, memory,
 * validation).  The workload writes the header, its `config` block and its
 * network's block (network_t.write_record) around them.
 *
 * defines: trec_write_run, trec_write_results, trec_print_summary, trec_si */
#ifndef TRAIN_TREC_H
#define TRAIN_TREC_H

#include <stddef.h>

#include "benchmarks/common/record/record.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/train/train.h"

/* ranks, gpus, backend, kernels_impl, threads_per_rank, precision, and the
 * backend's blocks (backend_write_record); j->backend may be NULL. */
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
