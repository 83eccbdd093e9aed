/* The inside of gsync, shared by gsync.c (set-up), gsync_step.c (the main
 * thread's calls of a step) and gsync_engine.c (the background thread). */
#ifndef EXADL_TRAIN_GSYNC_IMPL_H
#define EXADL_TRAIN_GSYNC_IMPL_H

#include <pthread.h>

#include "benchmarks/common/mpi/orch.h"
#include "benchmarks/train/gsync/gsync.h"

struct gsync {
    gsync_cfg cfg;
    comm_t *comm;
    gsync_transport tr;
    int builtin_mpi;         /* tr has no allreduce: gsync reduces with MPI itself */
    gsync_exchange xchg;     /* run set: exchanged instead of summed (gsync_set_exchange) */
    float *grad;
    int T, G, nlayers;
    gsync_tensor *tensors;   /* T, backward order */
    int *group_of;           /* T */
    int *layer_first, *layer_n; /* tensors of each layer: [first, first + n) */
    char (*labels)[48];      /* G */
    int64_t *group_bytes;    /* G */
    orch_t *orch;            /* NULL on one rank */
    MPI_Comm rcomm;          /* the built-in transport's reductions */
    int drop_layer;          /* test hook: this rank never reports it (-1: none) */

    /* main thread <-> engine, under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int thread_up, quit, active, done;
    int inline_up;           /* cfg.inline_engine with more than one rank: cycles run
                                from the caller's thread (gsync_progress, gsync_finish) */
    int *pending, npending;  /* tensors reported ready, not yet handed to orch */
    char error[768];         /* the engine's failure, reported by gsync_finish */

    /* the step: written by the main thread before `active`, by the engine while
     * active, read by the main thread after `done` */
    double t0;               /* gsync_begin, timer_now_s() */
    double *tensor_ready;    /* T: seconds from t0 */
    gsync_group_time *gt;    /* G */
    gsync_step step;
    int ncalls;              /* transport allreduce calls in this step */
    int *group_call0, *group_call1; /* G: each group's first and last call (-1: none) */

    /* the engine's working lists (one engine per gsync: thread or inline) */
    int *released, *local;   /* G, T */
    float **b_bufs;          /* T: the fused batch being built */
    int64_t *b_counts;
    int *b_slots;
    int b_n;
    int64_t b_bytes;
    double next_cycle;       /* timer_now_s() when the next cycle may start */

    /* the built-in MPI transport's fusion buffer */
    float *fusion;
    int64_t fusion_cap;      /* floats */
};

/* The engine thread's body. */
void *gsync_engine_main(void *arg);
/* One step of the engine, in pieces the thread and the inline mode share:
 * begin (the orchestration's step, the first cycle due now), one cycle (the
 * ready tensors handed over, a negotiation, the released groups reduced;
 * returns 1 when the step is over: every group reduced, or g->error set),
 * end (the transport's queued reductions waited for). */
void gsync_engine_begin(gsync_t *g);
int gsync_engine_cycle(gsync_t *g);
void gsync_engine_end(gsync_t *g);
/* Sleep until timer_now_s() reaches t (SMPI: simulated time passes). */
void gsync_sleep_until(double t);

#endif
