/* mpar_input: the model-parallel model's inputs (mpar.h) from what a run
 * measured: the workload from its modelpar records (the base: the launch
 * with the fewest model ranks and no replicas, preferring one rank), the
 * links from a machine file, else the run's allreduce sweep, else the
 * run's own halo and tensor-parallel exchanges (their time over their
 * bytes: an effective link); and each measured point, to be predicted
 * beside its median step.  Each with a sentence saying where it came from.
 *
 * defines: mppoint_t, mpin_t, mpar_inputs_from_run, mpar_point_config */
#ifndef EXADL_HARNESS_MPAR_INPUT_H
#define EXADL_HARNESS_MPAR_INPUT_H

#include <stddef.h>

#include "harness/model/model_input.h"
#include "harness/model/mpar.h"

/* One measured (entry, scale) of the run: its first record and median step. */
typedef struct {
    const char *bench;
    int scale;
    const record_t *rec;
    double step_s;       /* median over the timed steps of its launches */
} mppoint_t;

typedef struct {
    mpw_t w;
    mnet_t net;
    mnet_t ar_net;             /* the allreduce's (have_ar: measured apart) */
    int have_ar;
    const char *base_bench;
    int base_scale;
    double base_step_s;
    const char *work_source, *net_source;
    mppoint_t *pt;
    size_t npt;
} mpin_t;

/* 0, or -1 with err (no modelpar record with its model_parallel block and
 * kernel-free timing; a record without the network's config keys). */
int mpar_inputs_from_run(arena_t *a, const outcome_t *o, size_t n, const mfile_t *mf,
                         mpin_t *in, char *err, size_t errlen);

/* The configuration a record ran (model ranks, grid, replicas, batch). */
void mpar_point_config(const record_t *r, mpc_t *c);

#endif
