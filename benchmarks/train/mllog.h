/* mllog: the process's `:::MLLOG` clock (MLPerf's logging format,
 * docs/data.md "Time to quality and MLLOG"): the events whose place MLPerf
 * HPC's rules fix across a whole launch, not one training loop:
 *   init_start  at program start, before MPI and the network are set up (the
 *               time of mllog_program_start; printed then where the program
 *               can tell that it logs and is rank 0, else with that time when
 *               ttt_begin prints it);
 *   init_stop, run_start   once, by whichever comes first: the training's
 *               first step (ttt_run_start) or staging;
 *   staging_start, staging_stop   around the copy of the data set to
 *               node-local storage, after run_start: MLPerf HPC counts
 *               staging in the timed run (hpc_1.0.0 common.yaml requires
 *               run_start before staging_start).
 * Only the process that prints (rank 0 with --mllog true) writes lines; the
 * state is per process.
 *
 * The hyper-parameter keys (mllog_hyper) are those MLPerf HPC's closed rules
 * require of CosmoFlow and DeepCAM (mlcommons/logging compliance_checker
 * hpc_*: closed_common, closed_cosmoflow, closed_deepcam*), each from the
 * run's own configuration; a key the configuration cannot fill truthfully is
 * left out (docs/data.md "Hyper-parameter keys").
 *
 * defines: mllog_program_start, mllog_line, mllog_init_start, mllog_run_start,
 *          mllog_run_started, mllog_staging, mllog_hyper_in, mllog_hyper */
#ifndef EXADL_TRAIN_MLLOG_H
#define EXADL_TRAIN_MLLOG_H

#include <stdint.h>

#include "benchmarks/train/runcfg.h"

/* The first call of main: the time of init_start.  When argv asks for
 * `--mllog true` and the launcher's environment says rank 0
 * (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID; none: one
 * process), init_start is printed now. */
void mllog_program_start(int argc, char **argv);

/* One :::MLLOG line: key, event type (POINT_IN_TIME, INTERVAL_START,
 * INTERVAL_END), value as JSON text, metadata members as JSON text (may be
 * NULL), the source file and line; time_ms < 0: now. */
void mllog_line(const char *key, const char *event, const char *value, const char *meta,
                const char *file, int line, long long time_ms);

/* init_start, once (print: this process prints); the monotonic time of
 * program start (now when mllog_program_start was not called). */
double mllog_init_start(int print);
/* init_stop and run_start, once. */
void mllog_run_start(int print);
int mllog_run_started(void);
/* staging_start (start 1, after run_start: printed first if not yet) or
 * staging_stop (start 0). */
void mllog_staging(int print, int start);

typedef struct {
    const runcfg_t *run;        /* optimizer, learning rate and its schedule, seed */
    int64_t global_batch;       /* samples per step, all ranks */
    int64_t train_samples;      /* the training split; 0: samples made in memory (no epochs) */
    int nodes;                  /* distinct hosts of the job */
    int accelerators_per_node;  /* GPUs driven per node; 0 on the cpu backend */
    int batchnorm_group_size;   /* ranks sharing batch-norm statistics; 0: no batch norm */
} mllog_hyper_in;

/* The hyper-parameter lines (POINT_IN_TIME): seed, gradient accumulation,
 * nodes and accelerators, opt_name (Adam, Lion, SGD), the learning rate and
 * its schedule in CosmoFlow's form (opt_base_learning_rate = the peak, warm-up
 * epochs and factor, decay boundary epochs and factor) and in DeepCAM's
 * (opt_lr, scheduler_* of a multistep schedule), the optimizer's own
 * (opt_betas, opt_eps, opt_adam_*, opt_momentum, opt_weight_decay).  Call
 * on the printing process only. */
void mllog_hyper(const mllog_hyper_in *h);

#endif
