/* wf: the simulation-to-training workflow (docs/workflow.md, Merlin):
 * producers run a small deterministic simulation (2D diffusion) and emit
 * samples; one trainer consumes them as they appear and trains a small dense
 * regression on them with the training runtime's kernels.  Two transports:
 *   mpi    rank 0 trains, ranks 1..R-1 produce and send samples;
 *   files  ranks 1..R-1 each start their producer as a separate process
 *          (the same program, --as-producer), which writes sample files
 *          atomically (temp + rename) into DIR/pP/; the trainer lists them.
 * Back-pressure: each producer holds queue / producers credits; a sample
 * costs one, the trainer gives it back once the sample has been trained on
 * (mpi: a credit message; files: the file removed), so at most `queue`
 * samples wait for the trainer and producers block when it is behind.
 * Every sample carries (producer, sequence, checksum) and is accounted for
 * once consumed (wf_ledger.h).
 *
 * defines: wf_cfg, wf_hdr, wf_modes, wf_fail_hows, WF_MAGIC */
#ifndef EXADL_WORKFLOW_WF_H
#define EXADL_WORKFLOW_WF_H

#include <stddef.h>
#include <stdint.h>

extern const char *const wf_modes[];     /* mpi, files; NULL-ended */
extern const char *const wf_fail_hows[]; /* stop, exit, abort, hang; NULL-ended */
extern const char *const wf_kernel_sets[]; /* ref, fast */
enum { WF_MPI, WF_FILES };
enum { WF_STOP, WF_EXIT, WF_ABORT, WF_HANG };

typedef struct {
    int mode;
    int samples;         /* per producer */
    int grid;            /* the simulation's grid: grid x grid cells */
    int sim_steps;       /* diffusion steps from a sample's input to its target */
    int queue;           /* samples waiting for the trainer, at most (all producers) */
    int batch;           /* samples per training step */
    int hidden;          /* the regression's hidden width */
    int kernels;         /* index into wf_kernel_sets */
    int poll_us;         /* sleep between polls of a waiting side */
    double lr;
    uint64_t seed;
    int fail_producer;   /* -1: none; else this producer fails after fail_after samples */
    int fail_after, fail_how;
    int corrupt_seq;     /* tests: producer 0's sample of this sequence is damaged after its
                            checksum (-1: none) */
    int duplicate_seq;   /* tests: producer 0 emits this sample twice (-1: none) */
    char dir[480];       /* files mode: the shared folder ("" : made under $TMPDIR) */
    int dir_given;
    const char *record;
    int as_producer;     /* files mode, the producer process: its id; -1 otherwise */
} wf_cfg;

/* A sample on the wire and on disk: this header, then `cells` input floats
 * (the field) and `cells` target floats (the field sim_steps later). */
typedef struct {
    uint32_t magic;
    int32_t producer;
    int64_t seq;
    double made_s;       /* CLOCK_REALTIME when its simulation finished */
    uint64_t checksum;   /* FNV-1a 64 of the bytes above and the payload */
} wf_hdr;

#define WF_MAGIC 0x45574631u /* "1FWE" */

static inline size_t wf_cells(const wf_cfg *c) { return (size_t)c->grid * (size_t)c->grid; }
static inline size_t wf_sample_bytes(const wf_cfg *c)
{
    return sizeof(wf_hdr) + 2 * wf_cells(c) * sizeof(float);
}
/* credits of each producer: queue / producers */
static inline int wf_credits(const wf_cfg *c, int producers) { return c->queue / producers; }

#endif
