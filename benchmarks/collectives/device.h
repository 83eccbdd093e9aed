/* device: where the collectives' buffers live and how a backend starts:
 * host memory for mpi; one GPU per rank (by rank on the node) for mpi-cuda
 * and nccl, with the NCCL communicator set up over MPI. */
#ifndef EXADL_COLL_DEVICE_H
#define EXADL_COLL_DEVICE_H

#include <stddef.h>

#include "benchmarks/collectives/coll.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/sysinfo.h"

/* Exit status of a run whose backend cannot work on this machine. */
#define COLL_EXIT_UNAVAILABLE 3

typedef struct {
    coll_backend_t kind;
    int on_device;      /* buffers are GPU memory */
    int gpu;            /* CUDA device of this rank, -1 without */
    int gpus_visible;
    void *nccl_comm;    /* ncclComm_t */
    void *stream;       /* cudaStream_t */
    char desc[256];     /* rank 0's device, for the table header */
} coll_dev_t;

/* Collective over c->world.  0 when the backend is ready; otherwise every rank
 * gets COLL_EXIT_UNAVAILABLE (the backend cannot run here: no GPU, MPI not
 * CUDA-aware, built without CUDA) or 1 (a failure), and err holds the lowest
 * failing rank's reason.  Fills the GPU and version entries of si. */
int coll_dev_open(coll_dev_t *d, coll_backend_t kind, const comm_t *c, sysinfo_t *si,
                  char *err, size_t errlen);
void coll_dev_close(coll_dev_t *d);

void *coll_dev_alloc(coll_dev_t *d, size_t bytes);
void coll_dev_free(coll_dev_t *d, void *p);
void coll_dev_upload(coll_dev_t *d, void *dst, const void *src, size_t bytes);
void coll_dev_download(coll_dev_t *d, void *dst, const void *src, size_t bytes);
/* Wait for the backend's stream (nccl); no-op otherwise. */
void coll_dev_sync(coll_dev_t *d);

/* Whether this build and this MPI can run backend kind at all, without
 * touching a GPU: 1, or 0 with the reason. */
int coll_dev_built_for(coll_backend_t kind, char *why, size_t len);

#endif
