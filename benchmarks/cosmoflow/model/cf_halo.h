/* cf_halo: the communication of spatial parallelism: the group's Cartesian
 * communicator, the halo exchange of a padded activation with the face
 * neighbours, and the gather of the last block's features for the dense
 * head (docs/cosmoflow.md "Decomposition").
 *
 * Exchange: three phases, W, then H, then D; a phase sends each face
 * neighbour the h planes next to it and receives its h planes into the halo.
 * A face spans the padded extent of the axes exchanged before it, so edge
 * and corner voxels reach diagonal neighbours through two or three face
 * hops: 6 neighbours, no 26-way exchange.  W and H run to completion in
 * cf_halo_start; the D phase is only posted there, so that the caller can
 * compute the planes that need no D halo meanwhile (cf_halo_progress between
 * bands keeps MPI moving), and completes in cf_halo_finish.
 *
 * Faces are packed with the kernel set's copy3d: into the MPI buffers
 * directly where the set's memory is host memory, else into device staging
 * and over d2h/h2d.  Messages are bytes (elements of the set's type).
 *
 * The MPI calls come from the main thread while the gradient engine's
 * thread makes its own (other communicators): the program asks for
 * MPI_THREAD_MULTIPLE (cosmoflow's main.c).
 *
 * defines: cf_comm, cf_comm_open, cf_comm_close, cf_halo, cf_halo_init,
 *          cf_halo_free, cf_halo_start, cf_halo_progress, cf_halo_finish,
 *          cf_gather */
#ifndef COSMOFLOW_CF_HALO_H
#define COSMOFLOW_CF_HALO_H

#include <mpi.h>
#include <stdint.h>

#include "benchmarks/cosmoflow/model/cf_geom.h"
#include "benchmarks/train/kernels/kern.h"

typedef struct {
    MPI_Comm cart;       /* the group's Cartesian communicator; MPI_COMM_NULL: one spatial rank */
    int size;            /* its ranks */
    int nbr[3][2];       /* face neighbours along D, H, W: low, high (MPI_PROC_NULL: none) */
} cf_comm;

/* Split world into groups of the part's spatial ranks and give each a
 * Cartesian grid (collective over world).  0, or -1 with err. */
int cf_comm_open(cf_comm *c, const cf_part *pt, MPI_Comm world, char *err, size_t errlen);
void cf_comm_close(cf_comm *c);

typedef struct {
    const cf_comm *comm;
    const kern_ops *ops;
    void *ctx;
    int host;            /* the kernel set's buffers are host memory */
    int halo;            /* planes per face */
    char *sbuf[2], *rbuf[2];  /* host: send and receive, low and high side */
    void *stage[2];      /* device staging (not host) */
    size_t cap;          /* bytes of each */
    /* the posted D phase */
    t3view pending;      /* the padded view it fills */
    MPI_Request req[4];
    int nreq;
    int64_t bytes, messages; /* sent since cf_halo_init or the caller's reset */
} cf_halo;

/* Buffers for faces of up to max_face_elems elements; -1 with err when out
 * of memory. */
int cf_halo_init(cf_halo *h, const cf_comm *c, const kern_ops *ops, void *ctx, int host, int halo,
                 int64_t max_face_elems, char *err, size_t errlen);
void cf_halo_free(cf_halo *h);

/* Exchange the halo of the padded view P (extents interior + 2 halo): W and
 * H now, D posted.  Neighbourless sides keep their zeros. */
void cf_halo_start(cf_halo *h, const t3view *P);
/* Let MPI progress the posted phase; 1 when it has completed. */
int cf_halo_progress(cf_halo *h);
/* Complete the D phase and unpack it. */
void cf_halo_finish(cf_halo *h);

/* The dense head's input: every rank of the group gets the global features
 * (n x feat_c x units^3, channels last, global order) from the ranks' local
 * ones (local: dense, channels last).  host_tmp: room for the whole global
 * array in host memory; dev_tmp: the same in the set's memory (unused when
 * host).  Bytes sent go to *bytes. */
void cf_gather(const cf_comm *c, const cf_plan *p, const cf_part *pt, const kern_ops *ops, void *ctx,
               int host, const t3view *local, const t3view *global, char *host_tmp, void *dev_tmp,
               int64_t *bytes);

#endif
