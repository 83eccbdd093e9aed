/* gsync_pick: which engine runs a rank's gradient reductions (the run
 * option `engine`, docs/gsync.md "Which engine runs").
 *
 * The background thread (gsync_engine.c) overlaps the reductions with
 * backward, but only where it has a core of its own: on a CPU rank whose
 * compute threads already fill the cores it may use, the thread and the
 * compute take turns on them, MPI's non-blocking allreduce progresses only
 * when the thread is scheduled, and the step gets slower than with no
 * overlap at all.  There the inline engine (gsync_cfg.inline_engine, the
 * cycles in gsync_finish, blocking waits) is faster.  `auto` decides by the
 * rule below; `thread` and `inline` are what they say.
 *
 * defines: gsync_engine_kind, gsync_pick_in, gsync_pick_auto,
 *          gsync_pick_engine, gsync_pick_apply, gsync_engine_name */
#ifndef EXADL_TRAIN_GSYNC_PICK_H
#define EXADL_TRAIN_GSYNC_PICK_H

#include <stddef.h>

#include "benchmarks/train/gsync/gsync.h"

typedef enum {
    GS_ENGINE_NONE = 0,   /* one rank: nothing is reduced, no engine runs */
    GS_ENGINE_THREAD = 1, /* the background thread (the GPU default) */
    GS_ENGINE_INLINE = 2  /* the caller's thread, in gsync_finish, MPI_Wait */
} gsync_engine_kind;

/* The facts auto decides on. */
typedef struct {
    int cuda;          /* the cuda backend: the compute runs on the device */
    int threads;       /* compute threads per rank (the resolved --threads) */
    int affinity_cpus; /* CPUs in this rank's sched_getaffinity mask */
    int online_cpus;   /* CPUs online on the node */
    int node_ranks;    /* ranks of the job on this node (MPI_COMM_TYPE_SHARED) */
} gsync_pick_in;

/* auto's rule, pure: the cuda backend keeps the thread; on the cpu backend
 * the cores this rank may use are min(affinity_cpus, online_cpus /
 * node_ranks), and when threads + 1 (the engine's thread) is more than
 * that, the engine runs inline, otherwise on its thread.  Returns
 * GS_ENGINE_INLINE or GS_ENGINE_THREAD; reason gets one line that says why,
 * with the numbers. */
gsync_engine_kind gsync_pick_auto(const gsync_pick_in *in, char *reason, size_t len);

/* The engine of a run of `ranks` reducing ranks (1: GS_ENGINE_NONE) for
 * the option value asked ("auto", "thread", "inline"): auto reads this
 * process's affinity mask and the online CPUs (every call checked).
 * reason gets one line. */
gsync_engine_kind gsync_pick_engine(const char *asked, int ranks, int cuda, int threads,
                                    int node_ranks, char *reason, size_t len);

/* The engine's settings in g: inline runs the cycles on the caller's
 * thread with blocking waits (poll_us 0: MPI_Wait; nothing else needs the
 * core while the caller waits). */
void gsync_pick_apply(gsync_engine_kind e, gsync_cfg *g);

/* "none", "thread", "inline". */
const char *gsync_engine_name(gsync_engine_kind e);

#endif
