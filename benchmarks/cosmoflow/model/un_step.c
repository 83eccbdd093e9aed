/* un_step: the 3D U-Net's training step (un_train.h): the synthetic batch,
 * the halo exchange along D, forward, the loss, backward, the gradients'
 * sum over the ranks splitting D and the SGD update; un_train.c makes the
 * buffers this walks (un_impl.h). */
#include "benchmarks/cosmoflow/model/un_train.h"

#include <string.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/cosmoflow/model/un_impl.h"
#include "benchmarks/cosmoflow/model/un_kern.h"

static void load(un_net *n, int64_t t)
{
    const un_cfg *c = &n->p->cfg;
    /* every rank draws the whole sample and keeps its planes of D */
    int64_t plane = (int64_t)c->size * c->size, per = plane * n->in.d;
    int64_t first = plane * n->in.d * n->rank, last = first + per;
    float xv[64];
    for (int g = 0; g < c->batch; g++) {
        uint64_t st = c->seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(t * 1048576 + g + 1));
        for (int64_t v = 0; v < plane * c->size; v++) {
            for (int k = 0; k < c->channels; k++) xv[k] = un_unif(&st);
            if (v < first || v >= last) continue;
            float *x = n->in.p + ((int64_t)g * per + v - first) * c->channels;
            memcpy(x, xv, sizeof(float) * (size_t)c->channels);
            int cls = (int)((x[0] + 1.0f) * 0.5f * (float)c->classes);
            n->label[(int64_t)g * per + v - first] =
                (uint8_t)(cls < c->classes ? cls : c->classes - 1);
        }
    }
}

static void zero(const un_t *t)
{
    if (!t->p) return;
    int64_t nv = (int64_t)t->n * t->d * t->e * t->e;
    for (int64_t i = 0; i < nv; i++) memset(t->p + i * t->ld, 0, sizeof(float) * t->c);
}

/* Plane z of sample s of a dense padded tensor */
static float *plane_at(const un_t *P, int s, int z)
{
    return P->p + ((int64_t)s * P->d + z) * P->e * P->e * P->c;
}

/* x (a view) into the interior of xp, and xp's halo planes from the
 * neighbours along D (those at the volume's edges stay zero: never
 * written). */
static void halo_fill(un_net *n, const un_t *x, const un_t *xp)
{
    int64_t pv = (int64_t)x->e * x->e;
    for (int s = 0; s < x->n; s++)
        for (int z = 0; z < x->d; z++)
            for (int64_t v = 0; v < pv; v++)
                memcpy(plane_at(xp, s, z + 1) + v * xp->c,
                       x->p + (((int64_t)s * x->d + z) * pv + v) * x->ld, sizeof(float) * x->c);
    int lo = n->rank > 0 ? n->rank - 1 : MPI_PROC_NULL;
    int hi = n->rank < n->S - 1 ? n->rank + 1 : MPI_PROC_NULL;
    int cnt = (int)(pv * xp->c), d = x->d;
    for (int s = 0; s < x->n; s++) {
        CHECK_MPI(MPI_Sendrecv(plane_at(xp, s, 1), cnt, MPI_FLOAT, lo, 11, plane_at(xp, s, d + 1),
                               cnt, MPI_FLOAT, hi, 11, n->comm, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Sendrecv(plane_at(xp, s, d), cnt, MPI_FLOAT, hi, 12, plane_at(xp, s, 0), cnt,
                               MPI_FLOAT, lo, 12, n->comm, MPI_STATUS_IGNORE));
    }
}

/* The reverse: dxp's halo planes go back to the neighbours that own those
 * planes and are added there; then dxp's interior is added to dx. */
static void halo_return(un_net *n, const un_t *dxp, const un_t *dx)
{
    int64_t pv = (int64_t)dx->e * dx->e;
    int lo = n->rank > 0 ? n->rank - 1 : MPI_PROC_NULL;
    int hi = n->rank < n->S - 1 ? n->rank + 1 : MPI_PROC_NULL;
    int cnt = (int)(pv * dxp->c), d = dx->d;
    for (int s = 0; s < dx->n; s++) {
        for (int dir = 0; dir < 2; dir++) {
            int to = dir ? hi : lo, from = dir ? lo : hi;
            float *send = plane_at(dxp, s, dir ? d + 1 : 0), *into = plane_at(dxp, s, dir ? 1 : d);
            CHECK_MPI(MPI_Sendrecv(send, cnt, MPI_FLOAT, to, 13 + dir, n->scratch, cnt, MPI_FLOAT,
                                   from, 13 + dir, n->comm, MPI_STATUS_IGNORE));
            if (from != MPI_PROC_NULL)
                for (int i = 0; i < cnt; i++) into[i] += n->scratch[i];
        }
        for (int z = 0; z < d; z++)
            for (int64_t v = 0; v < pv; v++) {
                const float *src = plane_at(dxp, s, z + 1) + v * dxp->c;
                float *dst = dx->p + (((int64_t)s * d + z) * pv + v) * dx->ld;
                for (int c = 0; c < dx->c; c++) dst[c] += src[c];
            }
    }
}

/* A host loop of the step: its FLOPs, and on a kernel set its row */
#define HOST(KERNEL, LAYER, CALL)                                      \
    do {                                                               \
        double t0_ = timer_now_s();                                    \
        int64_t f_ = (CALL);                                           \
        f += f_;                                                       \
        if (n->ops) uk_host_row(n, (KERNEL), (LAYER), f_, t0_);        \
    } while (0)

static void forward(un_net *n, int64_t *fl)
{
    const un_plan *p = n->p;
    int64_t f = 0;
    for (int l = 0; l < p->nlayers; l++) {
        const un_layer *ly = &p->layers[l];
        un_lbuf *B = &n->L[l];
        float *w = n->params + ly->off;
        if (ly->kind == UN_TCONV) {
            if (n->ops) uk_tconv_fwd(n, l);
            else f += un_tconv(UN_FWD, &B->x, w, &B->a);
            continue;
        }
        if (n->ops) {
            uk_conv_fwd(n, l);
        } else {
            if (B->xp.p) halo_fill(n, &B->x, &B->xp);
            f += un_conv(UN_FWD, B->xp.p ? &B->xp : &B->x, w, ly->k, &B->z);
        }
        if (ly->kind == UN_LAST) break;
        HOST("bn_relu_fwd", ly->name,
             un_bnrelu_fwd(&B->z, w + ly->nw, w + ly->nw + ly->co, B->m, B->s, &B->a, n->comm,
                           n->sums));
        if (l < 2 * UN_LEVELS && l % 2 == 1) {
            if (n->ops) uk_pool_fwd(n, l / 2, &B->a);
            else f += un_pool_fwd(&B->a, &n->pool[l / 2]);
        }
    }
    *fl += f;
}

static void backward(un_net *n, int64_t *fl)
{
    const un_plan *p = n->p;
    int64_t f = 0;
    /* the host loops add into the parameters' gradients (and into each
     * data gradient, zeroed just before: the buffers are shared, build) */
    memset(n->grads, 0, sizeof(float) * (size_t)p->params);
    for (int l = p->nlayers - 1; l >= 0; l--) {
        const un_layer *ly = &p->layers[l];
        un_lbuf *B = &n->L[l];
        float *w = n->params + ly->off, *dw = n->grads + ly->off;
        if (ly->kind == UN_TCONV) {
            if (n->ops) {
                uk_tconv_bwd(n, l);
            } else {
                f += un_tconv(UN_BWD_WEIGHTS, &B->x, dw, &B->da);
                zero(&B->dx);  /* a shared buffer (build): the loops add */
                f += un_tconv(UN_BWD_DATA, &B->dx, w, &B->da);
            }
            continue;
        }
        if (ly->kind == UN_CBR) {
            if (l < 2 * UN_LEVELS && l % 2 == 1) {
                if (n->ops) uk_pool_bwd(n, l / 2, &B->a, &B->da);
                else f += un_pool_bwd(&B->a, &n->dpool[l / 2], &B->da);
            }
            HOST("bn_relu_bwd", ly->name,
                 un_bnrelu_bwd(&B->z, w + ly->nw, B->m, B->s, &B->a, &B->da, &B->dz,
                               dw + ly->nw, dw + ly->nw + ly->co, n->comm, n->sums));
        }
        if (n->ops) {
            uk_conv_bwd(n, l);
            continue;
        }
        f += un_conv(UN_BWD_WEIGHTS, B->xp.p ? &B->xp : &B->x, dw, ly->k, &B->dz);
        if (l == 0) continue;
        zero(&B->dx);  /* a shared buffer, or a concatenation's gradient: the loops add */
        if (B->xp.p) {
            zero(&B->dxp);
            f += un_conv(UN_BWD_DATA, &B->dxp, w, ly->k, &B->dz);
            halo_return(n, &B->dxp, &B->dx);
        } else {
            f += un_conv(UN_BWD_DATA, &B->dx, w, ly->k, &B->dz);
        }
    }
    if (n->ops) uk_grads_out(n);
    *fl += f;
}

double un_net_grad(un_net *n, int64_t t, int64_t *flops)
{
    const un_plan *p = n->p;
    int64_t f = 0, k0 = n->ops ? ktab_total_flops(&n->tab) : 0;
    n->halo_bytes = 0;
    load(n, t);
    if (n->ops) uk_weights_in(n);
    forward(n, &f);
    un_lbuf *last = &n->L[p->nlayers - 1];
    double loss = 0;
    int64_t xf = 0;
    HOST("xent", "loss", (loss = un_xent(&last->z, n->label, &last->dz, n->comm, &xf), xf));
    backward(n, &f);
    /* each rank holds its planes' part of every gradient: the sum is the
     * sample's */
    if (n->comm != MPI_COMM_NULL) {
        double t0 = timer_now_s();
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, n->grads, (int)p->params, MPI_FLOAT, MPI_SUM,
                                n->comm));
        if (n->ops) uk_host_row(n, "allreduce", "gradients", 0, t0);
    }
    /* on a kernel set the table holds every FLOP, the host loops' too */
    *flops = n->ops ? ktab_total_flops(&n->tab) - k0 : f;
    return loss;
}

double un_net_step(un_net *n, int64_t t, int64_t *flops)
{
    const un_plan *p = n->p;
    double loss = un_net_grad(n, t, flops);
    /* SGD with momentum 0.9 */
    double t0 = timer_now_s();
    for (int64_t i = 0; i < p->params; i++) {
        n->mom[i] = 0.9f * n->mom[i] + n->grads[i];
        n->params[i] -= (float)p->cfg.lr * n->mom[i];
    }
    *flops += 4 * p->params;
    if (n->ops) uk_host_row(n, "sgd", "all", 4 * p->params, t0);
    return loss;
}
