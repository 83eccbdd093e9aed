/* tpower: the energy of a training run's timed steps (docs/energy.md): one
 * rank per node (local rank 0 of the job) reads its node's power sources
 * (benchmarks/common/power/) from the barrier before the first timed step to
 * the end of the last; the node leaders' numbers are gathered on world rank 0
 * and written as the record's `energy` block (docs/record.md "energy").
 *
 * defines: tpower_node_t, tpower_t, tpower_check_env, tpower_help, tpower_open,
 *   tpower_begin, tpower_end, tpower_gather, tpower_write, tpower_print, tpower_free */
#ifndef EXADL_TRAIN_TPOWER_H
#define EXADL_TRAIN_TPOWER_H

#include <stdint.h>
#include <stdio.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/power/power.h"
#include "benchmarks/common/record/record.h"

#define TPOWER_POINTS 256 /* the power-over-time series of a node in the record, at most */

/* One node's window, as world rank 0 receives it (plain bytes: no pointers). */
typedef struct {
    char host[64];
    char basis[16];           /* meter | components | n/a */
    char why[256];
    double window_s, energy_j, peak_w;
    int nsrc, nabsent, npts, truncated;
    power_src_t src[POWER_MAX_SOURCES];
    power_absent_t absent[POWER_MAX_ABSENT];
    float t_s[TPOWER_POINTS], w[TPOWER_POINTS];
} tpower_node_t;

typedef struct {
    int lead;                 /* this rank reads its node */
    int on;                   /* a session is open (lead, not simulated) */
    int begun, ended;         /* the window started, ended */
    double interval_s;
    power_sess_t s;
    int nnodes;               /* world rank 0, after tpower_gather */
    tpower_node_t *nodes;
} tpower_t;

/* The power settings of the environment checked: a bad value is a usage
 * error naming the variable (exit 2), at the command line's check. */
void tpower_check_env(void);
/* The settings' lines of a training program's --help. */
void tpower_help(FILE *f);

/* Every rank: the configuration from the environment (a bad value is a
 * usage error, exit 2), and on the node's leader the sources found. */
void tpower_open(tpower_t *p, const comm_t *world);
void tpower_begin(tpower_t *p);
void tpower_end(tpower_t *p);
/* Collective over world: the leaders' windows to world rank 0. */
void tpower_gather(tpower_t *p, const comm_t *world);
/* The `energy` block (world rank 0): per node and in all, with the run's
 * samples and FLOPs of the window (executed and convention) for J per
 * sample and FLOP/s per W. */
void tpower_write(const tpower_t *p, double samples, double exec_flops, double conv_flops,
                  rec_t *w);
/* The human summary's line (world rank 0): the energy, J per sample,
 * average power and FLOP/s per W, or n/a and why. */
void tpower_print(const tpower_t *p, double samples, double exec_flops, FILE *f);
void tpower_free(tpower_t *p);

#endif
