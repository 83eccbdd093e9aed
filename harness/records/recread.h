/* recread: a benchmark's result record (docs/record.md) read into numbers the
 * analysis needs.  record_load reads the common header, then the blocks of
 * the record's kind with that kind's reader (harness/records/kinds.def lists
 * them, read_<kind>.c reads one kind).  Read defensively: a missing block
 * leaves NaN or nothing; a value of the wrong type is an error naming
 * FILE:LINE:COL; numbers follow the one rule of benchmarks/common/record/read.h.
 *
 * defines: record_t (and its rows krow_t, crow_t, orow_t, grinfo_t, uxinfo_t, spinfo_t,
 *          siminfo_t), record_load, record_config, record_simulated. */
#ifndef EXADL_HARNESS_RECREAD_H
#define EXADL_HARNESS_RECREAD_H

#include <stddef.h>

#include "benchmarks/common/ytree.h"
#include "harness/util/util.h"

typedef struct {
    const char *kernel, *layer;
    double calls, flops, time_s;
} krow_t;

typedef struct {
    const char *op, *dtype, *redop;
    long long root;
    int inplace;
    double bytes, count;
    double *time_s;   /* raw per-iteration samples (may be empty) */
    size_t ntime;
    double median_s, ci_lo_s, ci_hi_s, min_s, max_s;
    double algbw, busbw, latency_us;
    double factor;    /* busbw_factor: busbw / algbw as the benchmark used it (required) */
    long long wrong;
} crow_t;

/* stemdl's gradient_reduction block (docs/record.md), read by read_stemdl_gr.c */
typedef struct {
    const char *name;
    double bytes;
    long long group;
} grtensor_t;

typedef struct {
    const char *transport, *orchestration, *grouping;
    long long groups, cache_capacity;
    double fusion_bytes, cycle_ms;
    grtensor_t *t;          /* backward order */
    size_t nt;
    const char **labels;    /* group labels (groups of them; NULL entries when absent) */
    double *exposed_s, *negotiation_s, *reduce_s, *backward_end_s, *cycles;
    size_t nsteps;
    double *timeline;       /* ntl x groups x 3: ready, start, end */
    size_t ntl;
} grinfo_t;

/* stemdl's update_exchange block (docs/record.md, docs/lioncub.md), read by
 * read_stemdl_ux.c: the optimizer, how the ranks agree on its update, and
 * per timed step what that cost (lists of nsteps; disagreement may be NaN) */
typedef struct {
    const char *optimizer, *exchange, *momentum_sync;
    long long bits, sync_every;
    double sync_threshold;
    double *exchange_s, *exposed_s, *kernel_s, *collective_s;
    double *wire_bytes, *sync_bytes, *synced, *disagreement;
    size_t nsteps;
} uxinfo_t;
/* cosmoflow's spatial block (docs/record.md "cosmoflow", read_cosmoflow.c):
 * the decomposition, the per-layer geometry, rank 0's halo traffic */
typedef struct {
    const char *name;
    double extent, c_in, c_out, fwd_flops;
} splayer_t;

typedef struct {
    long long split[3], ranks_per_sample, groups, size, units, halo, kernel;
    int overlap;
    long long rank0_units[3];
    double halo_bytes_per_sample, halo_messages_per_step, gather_bytes_per_sample;
    splayer_t *l;           /* conv layers, forward order */
    size_t nl;
} spinfo_t;

/* a training record's ensemble block (docs/ensembles.md, read_stemdl_ens.c):
 * K trainers, each trainer's step times, and the tournament's rounds */
typedef struct {
    double *step_s;         /* the trainer's timed steps (max over its ranks) */
    size_t nstep;
    double samples_per_s, final_loss;
} entrainer_t;

typedef struct {
    long long trainers, ranks_per_trainer, invalid_trainers, tournament_every;
    double samples_per_trainer_step, aggregate_samples_per_s;
    entrainer_t *t;         /* trainers of them */
    double *exchange_s, *exchange_bytes, *adopted; /* per round; adopted: trainers that
                                                      took their partner's model */
    size_t nrounds;
} eninfo_t;

/* a strategy of the data distribution benchmark (read_datadist.c) */
typedef struct {
    const char *strategy;
    double held_bytes, delivered_bytes, median_s, ci_lo_s, ci_hi_s, file_GBps, delivered_GBps;
    double wrong;
    double *first_batch_s; /* per rank */
    size_t nranks;
} ddrow_t;

/* the many-task benchmark's numbers (read_manytask.c; NULL in other kinds) */
typedef struct {
    const char *launcher;
    double tasks, concurrency, retries, done, failed, attempts, failed_attempts;
    double wall_s, tasks_per_s, p50_s, p90_s, p99_s, max_s;
} mtinfo_t;

/* a row of the orchestration benchmark (read_orch.c) */
typedef struct {
    const char *mode, *grouping;
    long long groups, ranks, tensors;
    double cycles, median_s, per_cycle_s;
    double requests;        /* per step, all ranks together (NaN: not said) */
} orow_t;

/* the simulation block harness/launchers/smpi.sh appends (read_sim.c,
 * docs/simulate.md): the record's times are SimGrid's simulated seconds */
typedef struct {
    int simulated;
    const char *simulator, *platform, *hostfile, *collectives; /* NULL: not said */
    long long ranks;          /* -1: not said */
    double wall_s;            /* this machine's time for the simulation (NaN: not said) */
    double peak_memory_bytes; /* its peak resident memory (NaN: not said) */
} siminfo_t;

typedef struct {
    const char *path;
    ytdoc *doc;
    long long version;
    const char *benchmark, *status, *error, *started_utc, *backend, *precision;
    long long ranks, gpus;
    /* stemdl */
    double *step_s;
    size_t nstep;
    double *rank_compute_s;  /* [rank_steps][rank_cols]: each rank's forward + backward */
    size_t rank_steps, rank_cols;
    double *warmup_s;
    size_t nwarmup;
    double samples_per_step;
    double exec_per_step, exec_per_sample, conv_per_sample, conv_per_step, fwd_conv_per_sample;
    double conv_weights, parameters, memory_bytes;
    double device_peak_flops; /* a measured device peak the benchmark may record (NaN) */
    double threads_per_rank;  /* CPU threads each rank used (NaN: not said) */
    double kernels_steps;
    krow_t *k;
    size_t nk;
    /* collectives */
    crow_t *c;
    size_t nc;
    /* stemdl's gradient reduction (NULL without the block) */
    grinfo_t *gr;
    /* stemdl's update exchange (NULL without the block) and the loss of each timed step */
    uxinfo_t *ux;
    double *loss;
    size_t nloss;
    /* a training record's trainers (NULL: one trainer, no ensemble block) */
    eninfo_t *en;
    /* the data distribution benchmark: the file's bytes and one row per strategy */
    double dd_bytes;
    ddrow_t *dd;
    size_t ndd;
    /* the many-task benchmark (NULL without its block) */
    mtinfo_t *mt;
    /* the orchestration benchmark */
    orow_t *o;
    size_t no;
    /* cosmoflow's decomposition (NULL without the block) */
    spinfo_t *sp;
    /* the simulation block, any kind (NULL: none; the record was measured) */
    siminfo_t *sim;
    /* blocks kept as they are */
    const ytnode *system, *config, *validation;
} record_t;

/* 0, or -1 with "FILE:LINE:COL: problem" (or "FILE: problem") in err.  The
 * document stays alive as long as the arena. */
int record_load(arena_t *a, const char *path, record_t *r, char *err, size_t errlen);

/* 1 when the record says its times were simulated (simulation.simulated). */
int record_simulated(const record_t *r);

/* A scalar of the config block as text (NULL when absent). */
const char *record_config(const record_t *r, const char *key);

#endif
