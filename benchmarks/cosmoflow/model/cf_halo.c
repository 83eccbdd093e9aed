#include "benchmarks/cosmoflow/model/cf_halo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"

int cf_comm_open(cf_comm *c, const cf_part *pt, MPI_Comm world, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->cart = MPI_COMM_NULL;
    c->size = pt->ranks_per_sample;
    for (int a = 0; a < 3; a++) c->nbr[a][0] = c->nbr[a][1] = MPI_PROC_NULL;
    if (pt->ranks_per_sample == 1) return 0;
    MPI_Comm group;
    CHECK_MPI(MPI_Comm_split(world, pt->group, pt->srank, &group));
    int dims[3] = {pt->split[0], pt->split[1], pt->split[2]}, periods[3] = {0, 0, 0};
    /* no reordering: rank srank of the group is at coord (row-major), as cf_part_for says */
    CHECK_MPI(MPI_Cart_create(group, 3, dims, periods, 0, &c->cart));
    CHECK_MPI(MPI_Comm_free(&group));
    int coords[3], me;
    CHECK_MPI(MPI_Comm_rank(c->cart, &me));
    CHECK_MPI(MPI_Cart_coords(c->cart, me, 3, coords));
    if (me != pt->srank || memcmp(coords, pt->coord, sizeof coords)) {
        snprintf(err, errlen,
                 "spatial group: MPI placed rank %d at (%d,%d,%d), the decomposition expects "
                 "rank %d at (%d,%d,%d)",
                 me, coords[0], coords[1], coords[2], pt->srank, pt->coord[0], pt->coord[1],
                 pt->coord[2]);
        return -1;
    }
    CHECK_MPI(MPI_Comm_set_errhandler(c->cart, MPI_ERRORS_RETURN));
    for (int a = 0; a < 3; a++) CHECK_MPI(MPI_Cart_shift(c->cart, a, 1, &c->nbr[a][0], &c->nbr[a][1]));
    return 0;
}

void cf_comm_close(cf_comm *c)
{
    if (c->cart != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&c->cart));
    c->cart = MPI_COMM_NULL;
}

int cf_halo_init(cf_halo *h, const cf_comm *c, const kern_ops *ops, void *ctx, int host, int halo,
                 int64_t max_face_elems, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    h->comm = c, h->ops = ops, h->ctx = ctx, h->host = host, h->halo = halo;
    if (c->cart == MPI_COMM_NULL) return 0;
    h->cap = (size_t)max_face_elems * ops->act_bytes;
    for (int s = 0; s < 2; s++) {
        h->sbuf[s] = host ? ops->alloc(ctx, h->cap) : malloc(h->cap ? h->cap : 1);
        h->rbuf[s] = host ? ops->alloc(ctx, h->cap) : malloc(h->cap ? h->cap : 1);
        if (!host) h->stage[s] = ops->alloc(ctx, h->cap);
        if (!h->sbuf[s] || !h->rbuf[s] || (!host && !h->stage[s])) {
            snprintf(err, errlen, "halo buffers of %zu bytes", h->cap);
            cf_halo_free(h);
            return -1;
        }
    }
    return 0;
}

void cf_halo_free(cf_halo *h)
{
    for (int s = 0; s < 2; s++) {
        if (h->host) {
            if (h->sbuf[s]) h->ops->release(h->ctx, h->sbuf[s]);
            if (h->rbuf[s]) h->ops->release(h->ctx, h->rbuf[s]);
        } else {
            free(h->sbuf[s]);
            free(h->rbuf[s]);
            if (h->stage[s]) h->ops->release(h->ctx, h->stage[s]);
        }
        h->sbuf[s] = h->rbuf[s] = NULL;
        h->stage[s] = NULL;
    }
}

/* The sub-box of P along axis a: planes [p0, p0 + h) of a; the axes
 * exchanged before a (b > a: W before H before D) whole, the later ones'
 * interior only.  esz: bytes per element. */
static t3view face_at(const t3view *P, int a, int p0, int halo, size_t esz)
{
    t3view v = *P;
    int64_t st[3] = {P->sd, P->sh, P->sw};
    int *ext[3] = {&v.d, &v.h, &v.w};
    int64_t off = 0;
    for (int b = 0; b < 3; b++) {
        if (b == a) {
            off += p0 * st[b];
            *ext[b] = halo;
        } else if (b < a) {
            off += halo * st[b];
            *ext[b] -= 2 * halo;
        }
    }
    v.p = (char *)P->p + off * (int64_t)esz;
    return v;
}

/* A dense channels-last view of f's shape at p. */
static t3view dense(const t3view *f, void *p)
{
    t3view d = *f;
    d.p = p;
    d.sc = 1, d.sw = f->c, d.sh = (int64_t)f->c * f->w, d.sd = d.sh * f->h, d.sn = d.sd * f->d;
    return d;
}

/* Pack both faces along a, post the receives and sends. */
static void post(cf_halo *h, const t3view *P, int a)
{
    int hl = h->halo, e = (a == 0 ? P->d : a == 1 ? P->h : P->w) - 2 * hl;
    size_t esz = h->ops->act_bytes;
    for (int s = 0; s < 2; s++) {
        int nb = h->comm->nbr[a][s];
        if (nb == MPI_PROC_NULL) continue;
        /* send my planes next to side s; receive into the halo of side s */
        t3view sf = face_at(P, a, s == 0 ? hl : e, hl, esz);
        size_t bytes = (size_t)t3view_elems(&sf) * esz;
        CHECK(bytes <= h->cap, "halo face of %zu bytes over the %zu-byte buffers", bytes, h->cap);
        int tag_in = 10 * (s == 0 ? 1 : 2) + a, tag_out = 10 * (s == 0 ? 2 : 1) + a;
        CHECK_MPI(MPI_Irecv(h->rbuf[s], (int)bytes, MPI_BYTE, nb, tag_in, h->comm->cart,
                            &h->req[h->nreq++]));
        if (h->host) {
            t3view d = dense(&sf, h->sbuf[s]);
            h->ops->copy3d(h->ctx, &sf, &d);
        } else {
            t3view d = dense(&sf, h->stage[s]);
            h->ops->copy3d(h->ctx, &sf, &d);
            h->ops->d2h(h->ctx, h->sbuf[s], h->stage[s], bytes);
        }
        CHECK_MPI(MPI_Isend(h->sbuf[s], (int)bytes, MPI_BYTE, nb, tag_out, h->comm->cart,
                            &h->req[h->nreq++]));
        h->bytes += (int64_t)bytes;
        h->messages++;
    }
}

/* Wait for the posted phase along a and unpack it into P's halo. */
static void complete(cf_halo *h, const t3view *P, int a)
{
    if (h->nreq) CHECK_MPI(MPI_Waitall(h->nreq, h->req, MPI_STATUSES_IGNORE));
    h->nreq = 0;
    int hl = h->halo, e = (a == 0 ? P->d : a == 1 ? P->h : P->w) - 2 * hl;
    size_t esz = h->ops->act_bytes;
    for (int s = 0; s < 2; s++) {
        if (h->comm->nbr[a][s] == MPI_PROC_NULL) continue;
        t3view rf = face_at(P, a, s == 0 ? 0 : e + hl, hl, esz);
        if (h->host) {
            t3view d = dense(&rf, h->rbuf[s]);
            h->ops->copy3d(h->ctx, &d, &rf);
        } else {
            size_t bytes = (size_t)t3view_elems(&rf) * esz;
            h->ops->h2d(h->ctx, h->stage[s], h->rbuf[s], bytes);
            t3view d = dense(&rf, h->stage[s]);
            h->ops->copy3d(h->ctx, &d, &rf);
        }
    }
}

void cf_halo_start(cf_halo *h, const t3view *P)
{
    if (h->comm->cart == MPI_COMM_NULL) return;
    CHECK(h->nreq == 0, "a halo exchange is still pending");
    for (int a = 2; a >= 1; a--) {
        post(h, P, a);
        complete(h, P, a);
    }
    post(h, P, 0);
    h->pending = *P;
}

int cf_halo_progress(cf_halo *h)
{
    if (!h->nreq) return 1;
    int done = 0;
    CHECK_MPI(MPI_Testall(h->nreq, h->req, &done, MPI_STATUSES_IGNORE));
    return done;
}

void cf_halo_finish(cf_halo *h)
{
    if (h->comm->cart == MPI_COMM_NULL) return;
    complete(h, &h->pending, 0);
}

void cf_gather(const cf_comm *c, const cf_plan *p, const cf_part *pt, const kern_ops *ops, void *ctx,
               int host, const t3view *local, const t3view *global, char *host_tmp, void *dev_tmp,
               int64_t *bytes)
{
    int S = c->size, n = local->n, C = local->c;
    size_t esz = ops->act_bytes;
    int *counts = XMALLOC((size_t)S * sizeof *counts, "gather counts");
    int *displs = XMALLOC((size_t)S * sizeof *displs, "gather displacements");
    cf_part *parts = XMALLOC((size_t)S * sizeof *parts, "gather parts");
    int64_t at = 0;
    for (int r = 0; r < S; r++) {
        cf_part_for(p, pt->split, r, &parts[r]);
        int64_t e = (int64_t)n * C * parts[r].units[0] * parts[r].units[1] * parts[r].units[2];
        int64_t b = e * (int64_t)esz;
        CHECK(b <= 0x7fffffff && at <= 0x7fffffff, "feature gather of %lld bytes", (long long)b);
        counts[r] = (int)b;
        displs[r] = (int)at;
        at += b;
    }
    /* my block at its place, then everyone's in place */
    char *mine = host_tmp + displs[pt->srank];
    if (host) {
        t3view d = dense(local, mine);
        ops->copy3d(ctx, local, &d);
    } else {
        ops->d2h(ctx, mine, local->p, (size_t)counts[pt->srank]);
    }
    CHECK_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, host_tmp, counts, displs, MPI_BYTE, c->cart));
    if (!host) ops->h2d(ctx, dev_tmp, host_tmp, (size_t)at);
    char *src = host ? host_tmp : dev_tmp;
    for (int r = 0; r < S; r++) {
        t3view blk = *global;
        blk.d = parts[r].units[0], blk.h = parts[r].units[1], blk.w = parts[r].units[2];
        blk.p = (char *)global->p + (parts[r].unit_off[0] * global->sd +
                                     parts[r].unit_off[1] * global->sh +
                                     parts[r].unit_off[2] * global->sw) * (int64_t)esz;
        t3view s = dense(&blk, src + displs[r]);
        ops->copy3d(ctx, &s, &blk);
    }
    *bytes = (int64_t)counts[pt->srank] * (S - 1);
    free(counts);
    free(displs);
    free(parts);
}
