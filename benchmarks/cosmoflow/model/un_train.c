#include "benchmarks/cosmoflow/model/un_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/cosmoflow/model/un_impl.h"
#include "benchmarks/cosmoflow/model/un_kern.h"

static float *get(un_net *n, int64_t floats)
{
    n->bytes += floats * (int64_t)sizeof(float);
    float *q = n->nallocs < (int)(sizeof n->allocs / sizeof n->allocs[0])
                   ? calloc((size_t)(floats > 0 ? floats : 1), sizeof(float))
                   : NULL;
    if (!q) n->failed = 1;
    else n->allocs[n->nallocs++] = q;
    return q;
}

/* A dense tensor of c channels, d planes of e^2; with dry (NULL buffers)
 * only counted. */
static un_t dense_d(un_net *n, int dry, int batch, int d, int e, int c)
{
    un_t t = {.n = batch, .d = d, .e = e, .c = c, .ld = c};
    int64_t fl = (int64_t)batch * d * e * e * c;
    if (dry) n->bytes += fl * (int64_t)sizeof(float);
    else t.p = get(n, fl);
    return t;
}

/* This rank's part of a level of extent e */
static un_t dense(un_net *n, int dry, int batch, int e, int c)
{
    return dense_d(n, dry, batch, e / n->S, e, c);
}

static un_t slice(const un_t *t, int first, int c)
{
    un_t v = *t;
    v.p = t->p ? t->p + first : NULL, v.c = c;
    return v;
}

/* A view of c channels, d planes of e^2 at the start of a shared buffer */
static un_t shared_d(float *base, int batch, int d, int e, int c)
{
    un_t t = {.p = base, .n = batch, .d = d, .e = e, .c = c, .ld = c};
    return t;
}

/* Gradients share buffers by lifetime: backward at a conv + BN + ReLU
 * layer reads its output's gradient da, writes dz, then the input's
 * gradient dx, which is the previous layer's da (or a pooling's dy); so
 * every da, dx and dpool of the chain is one buffer, GA, and every dz
 * another, GZ, each as large as the largest layer's.  Only the
 * concatenations' gradients (their skip halves live from the decoder's
 * backward to the encoder's) keep buffers of their own, and split on the
 * host loops one padded data gradient serves every layer.  Floats of GA
 * (= GZ) and of the padded one. */
static void shared_sizes(const un_plan *p, int S, int64_t *g, int64_t *dxp)
{
    *g = *dxp = 0;
    for (int l = 0; l < p->nlayers; l++) {
        const un_layer *ly = &p->layers[l];
        int64_t e = ly->ext, v = p->cfg.batch * (e / S) * e * e;
        if (ly->kind == UN_TCONV) continue;
        if (v * ly->co > *g) *g = v * ly->co;
        int64_t d = p->cfg.batch * (e / S + 2) * e * e * ly->ci;
        if (ly->k == 3 && d > *dxp) *dxp = d;
    }
}

static void build(un_net *n, const un_plan *p, int dry)
{
    int b = p->cfg.batch;
    n->p = p;
    int64_t gfl, dxpfl;
    shared_sizes(p, n->S, &gfl, &dxpfl);
    if (!(n->S > 1 && !n->ops)) dxpfl = 0;
    float *GA = NULL, *GZ = NULL, *GD = NULL;
    if (dry) n->bytes += (2 * gfl + dxpfl) * (int64_t)sizeof(float);
    else GA = get(n, gfl), GZ = get(n, gfl), GD = dxpfl ? get(n, dxpfl) : NULL;
    if (dry) n->bytes += 3 * p->params * (int64_t)sizeof(float);
    else n->params = get(n, p->params), n->grads = get(n, p->params), n->mom = get(n, p->params);
    n->in = dense(n, dry, b, p->cfg.size, p->cfg.channels);
    un_t cat[UN_LEVELS], dcat[UN_LEVELS];
    /* the concatenation buffers: level i's is [deconv (L-1-i)'s output, skip i] */
    for (int i = 0; i < UN_LEVELS; i++) {
        const un_layer *tc = &p->layers[2 * UN_LEVELS + 2 + 3 * (UN_LEVELS - 1 - i)];
        cat[i] = dense(n, dry, b, tc->ext, tc[1].ci);  /* tc[1]: the up*a after it */
        dcat[i] = dense(n, dry, b, cat[i].e, cat[i].c);
    }
    un_t cur = n->in, dcur = {0};
    for (int l = 0; l < p->nlayers; l++) {
        const un_layer *ly = &p->layers[l];
        un_lbuf *B = &n->L[l];
        B->x = cur, B->dx = dcur;
        int enc = l < 2 * UN_LEVELS, lev = l / 2;
        if (ly->kind == UN_TCONV) {
            int i = UN_LEVELS - 1 - (l - 2 * UN_LEVELS - 2) / 3;  /* its concatenation */
            B->a = slice(&cat[i], 0, ly->co), B->da = slice(&dcat[i], 0, ly->co);
            cur = cat[i], dcur = dcat[i];
            continue;
        }
        int ld = ly->ext / n->S;  /* this rank's planes */
        B->z = dense(n, dry, b, ly->ext, ly->co), B->dz = shared_d(GZ, b, ld, ly->ext, ly->co);
        if (n->S > 1 && ly->k == 3 && !n->ops) {
            B->xp = dense_d(n, dry, b, ld + 2, ly->ext, ly->ci);
            B->dxp = shared_d(GD, b, ld + 2, ly->ext, ly->ci);
        }
        if (ly->kind == UN_LAST) {
            B->a = B->z, B->da = B->dz;
            break;
        }
        if (dry) n->bytes += 2 * ly->co * (int64_t)sizeof(float);
        else B->m = get(n, ly->co), B->s = get(n, ly->co);
        if (enc && l % 2 == 1) {  /* down*b: its output is the skip, inside cat[lev] */
            int t = cat[lev].c - ly->co;
            B->a = slice(&cat[lev], t, ly->co), B->da = slice(&dcat[lev], t, ly->co);
            n->pool[lev] = dense(n, dry, b, ly->ext / 2, ly->co);
            n->dpool[lev] = shared_d(GA, b, ld / 2, ly->ext / 2, ly->co);
            cur = n->pool[lev], dcur = n->dpool[lev];
        } else {
            B->a = dense(n, dry, b, ly->ext, ly->co), B->da = shared_d(GA, b, ld, ly->ext, ly->co);
            cur = B->a, dcur = B->da;
        }
    }
    int64_t vox = (int64_t)b * p->cfg.size * p->cfg.size * p->cfg.size / n->S, plane = 0;
    for (int l = 0; l < p->nlayers; l++) {
        int64_t pl = (int64_t)p->layers[l].ext * p->layers[l].ext * p->layers[l].ci;
        plane = pl > plane ? pl : plane;
    }
    if (n->ops) plane = 0;  /* the kernel path's halos travel in its padded scratch */
    if (dry) {
        n->bytes += vox + (plane + 6 * 1024) * (int64_t)sizeof(float);
    } else {
        n->label = (uint8_t *)get(n, (vox + 3) / 4);
        n->scratch = get(n, plane);
        n->sums = (double *)get(n, 2 * 4 * 1024 + 2);
    }
    if (!n->ops) return;
    /* the sets' weight layouts and one padded / tap scratch (un_kern.h) */
    n->pad_floats = uk_scratch_floats(p, n->S);
    if (dry) n->bytes += (2 * p->params + n->pad_floats) * (int64_t)sizeof(float);
    else n->wk = get(n, p->params), n->gk = get(n, p->params), n->pad = get(n, n->pad_floats);
}

int64_t un_net_bytes(const un_plan *p, int S, const kern_ops *ops)
{
    un_net n;
    memset(&n, 0, sizeof n);
    n.S = S > 0 ? S : 1, n.ops = ops;
    build(&n, p, 1);
    return n.bytes;
}

void un_net_free(un_net *n)
{
    if (!n) return;
    for (int i = 0; i < n->nallocs; i++) free(n->allocs[i]);
    if (n->ops) ktab_free(&n->tab);
    free(n);
}

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float unif(uint64_t *s) { return (float)((mix(s) >> 40) * (2.0 / 16777216.0) - 1.0); }

un_net *un_net_create(const un_plan *p, MPI_Comm comm, const kern_ops *ops, void *ctx)
{
    un_net *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->comm = comm, n->S = 1, n->ops = ops;
    if (ops) {
        ktab_init(&n->tab, 512);
        n->kc = (kc_t){.ops = ops, .ctx = ctx, .tab = &n->tab, .timing = 1};
    }
    if (comm != MPI_COMM_NULL) {
        CHECK_MPI(MPI_Comm_rank(comm, &n->rank));
        CHECK_MPI(MPI_Comm_size(comm, &n->S));
    }
    build(n, p, 0);
    if (n->failed) {
        un_net_free(n);
        return NULL;
    }
    /* He-uniform weights from the seed, BN scale 1 and shift 0 */
    uint64_t st = p->cfg.seed * 0x2545F4914F6CDD1Dull + 1;
    for (int l = 0; l < p->nlayers; l++) {
        const un_layer *ly = &p->layers[l];
        double lim = sqrt(6.0 / ((double)ly->k * ly->k * ly->k * ly->ci));
        for (int64_t i = 0; i < ly->nw; i++) n->params[ly->off + i] = (float)(lim * unif(&st));
        for (int c = 0; c < ly->nbn / 2; c++) n->params[ly->off + ly->nw + c] = 1;
    }
    return n;
}

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
            for (int k = 0; k < c->channels; k++) xv[k] = unif(&st);
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

float *un_net_params(un_net *n) { return n->params; }
const ktab_t *un_net_ktab(const un_net *n) { return n->ops ? &n->tab : NULL; }
int64_t un_net_halo_bytes(const un_net *n) { return n->halo_bytes; }
const float *un_net_grads(const un_net *n) { return n->grads; }
