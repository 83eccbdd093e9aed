/* ttt: time to train, the MLPerf HPC way (docs/data.md "Time to quality"):
 * evaluation on the validation split every N steps, a target loss that ends
 * the run when reached (else the step budget runs out), the quality curve,
 * and `:::MLLOG` lines in MLPerf's logging format on rank 0's stdout (the
 * launch log): submission_*, cache_clear, init_start/stop, run_start/stop,
 * epoch_start/stop, eval_start/stop, eval_accuracy (minus the validation
 * loss: higher is better, as CosmoFlow's -MAE), eval_error (the validation
 * MAE, where the network reports one: network.h forward_mae), global_batch_size,
 * train_samples, eval_samples (the hyper-parameter keys: mllog_hyper).
 *
 * The training loop (train.c) calls ttt_begin before its first step,
 * ttt_step before each, ttt_eval_point after each evaluation (1: target
 * reached, stop) and ttt_end; the record gets the `time_to_train` block.
 *
 * defines: ttt_cfg, ttt_result, ttt_begin, ttt_step, ttt_eval_due,
 *          ttt_eval_point, ttt_end, ttt_write_record, ttt_free, ttt_mllog */
#ifndef EXADL_TRAIN_TTT_H
#define EXADL_TRAIN_TTT_H

#include <stdint.h>

#include "benchmarks/common/record/record.h"

typedef struct {
    int eval_every;        /* steps between evaluations (warm-up included); 0: none */
    double target_loss;    /* stop when the validation loss is at most this; 0: never */
    int mllog;             /* print :::MLLOG lines (rank 0) */
    const char *benchmark; /* submission_benchmark */
} ttt_cfg;

typedef struct {
    int enabled, mllog, print;     /* print: this rank prints the MLLOG lines */
    int eval_every;
    double target_loss, lr;
    const char *benchmark;
    int64_t global_batch, train_samples, eval_samples;
    double t_init, t_run;          /* clocks: init_start, run_start */
    int epoch;                     /* the epoch in progress (1-based), 0: none yet */
    int n, cap;                    /* evaluations */
    int *step;                     /* steps done at each evaluation */
    double *loss, *mae, *epochs, *time_s; /* mae: NAN where the network has none */
    int has_mae;                   /* an evaluation measured the MAE */
    int reached, steps_done, step_reached;
    int64_t samples_to_target;
    double epochs_to_target, time_to_train_s, init_s, eval_s;
} ttt_result;

/* The submission lines (init_start, with the program's start time, unless
 * printed already: mllog.h): call at the start of the run (before the
 * model's instance is made).  init_s runs from the program's start. */
void ttt_begin(ttt_result *t, const ttt_cfg *c, int print, int64_t global_batch,
               int64_t train_samples, int64_t eval_samples, const char *optimizer, double lr);
/* init_stop, run_start (unless staging printed them first, mllog.h): the
 * clock of the record's time to train starts. */
void ttt_run_start(ttt_result *t);
/* before step s (0-based): epoch lines when an epoch begins */
void ttt_step(ttt_result *t, int s);
/* 1 when an evaluation is due after step s of total */
int ttt_eval_due(const ttt_result *t, int s, int total);
/* after step s: the evaluation's loss, its MAE (NAN: none) and its time; 1
 * when the target is reached */
int ttt_eval_point(ttt_result *t, int s, double loss, double mae, double eval_s);
/* run_stop: the end of the run after steps_done steps */
void ttt_end(ttt_result *t, int steps_done);
void ttt_write_record(const ttt_result *t, rec_t *w);
void ttt_free(ttt_result *t);

/* One :::MLLOG line: key, event type (POINT_IN_TIME, INTERVAL_START,
 * INTERVAL_END), value as JSON text, metadata members as JSON text (may be
 * NULL), and the line of the call. */
void ttt_mllog(const char *key, const char *event, const char *value, const char *meta, int line);

#endif
