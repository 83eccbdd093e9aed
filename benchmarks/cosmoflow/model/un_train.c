/* un_train: the 3D U-Net's buffers (un_train.h): every layer's tensors and
 * the gradients' shared buffers, counted (un_net_bytes) or allocated, and
 * the initial weights; the step that walks them is un_step.c's. */
#include "benchmarks/cosmoflow/model/un_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/mpi/comm.h"
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
        for (int64_t i = 0; i < ly->nw; i++) n->params[ly->off + i] = (float)(lim * un_unif(&st));
        for (int c = 0; c < ly->nbn / 2; c++) n->params[ly->off + ly->nw + c] = 1;
    }
    return n;
}

float *un_net_params(un_net *n) { return n->params; }
const ktab_t *un_net_ktab(const un_net *n) { return n->ops ? &n->tab : NULL; }
int64_t un_net_halo_bytes(const un_net *n) { return n->halo_bytes; }
const float *un_net_grads(const un_net *n) { return n->grads; }
