#include "benchmarks/cosmoflow/model/un_kern.h"

#include <limits.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/timer.h"

/* A host tensor as the sets' view: channels-last, ld floats between voxels. */
static t3view tv(const un_t *t)
{
    int64_t ld = t->ld, e = t->e;
    t3view v = {.p = t->p, .n = t->n, .c = t->c, .d = t->d, .h = t->e, .w = t->e,
                .sn = t->d * e * e * ld, .sc = 1, .sd = e * e * ld, .sh = e * ld, .sw = ld};
    return v;
}

/* b samples of d x e x e voxels of c dense channels at p */
static t3view dense3(float *p, int b, int d, int e, int c)
{
    un_t t = {.p = p, .n = b, .d = d, .e = e, .c = c, .ld = c};
    return tv(&t);
}

/* nv rows of c floats, ld apart, as the 2D sets' view (for add) */
static tview rows(float *p, int64_t nv, int c, int ld)
{
    CHECK(nv <= INT_MAX, "unet3d: %lld voxels in one view (at most %d)", (long long)nv, INT_MAX);
    tview v = {.p = p, .n = (int)nv, .c = c, .h = 1, .w = 1, .sstride = ld};
    return v;
}

static int64_t voxels(const un_t *t) { return (int64_t)t->n * t->d * t->e * t->e; }

void uk_host_row(un_net *n, const char *kernel, const char *layer, int64_t flops, double t0_s)
{
    ktab_row *r = ktab_row_for(&n->tab, kernel, layer);
    r->calls++;
    r->flops += flops;
    r->time_s += timer_now_s() - t0_s;
}

void uk_table_reset(un_net *n)
{
    if (n->ops) ktab_reset(&n->tab);
}

int64_t uk_scratch_floats(const un_plan *p, int S)
{
    int64_t b = p->cfg.batch, most = 0;
    for (int l = 0; l < p->nlayers; l++) {
        const un_layer *ly = &p->layers[l];
        int64_t e = ly->ext, v = 0, c = ly->ci > ly->co ? ly->ci : ly->co;
        if (ly->kind == UN_TCONV) v = b * (e / 2 / S) * (e / 2) * (e / 2) * (ly->ci + ly->co);
        else if (ly->k == 3) v = b * (e / S + 2) * (e + 2) * (e + 2) * c;
        most = v > most ? v : most;
    }
    return most;
}

/* Weights of layer ly between un_plan's layout (taps, ci, co) and the
 * sets' ([co][ci][taps] for conv3d, [tap][co][ci] for the dense taps of
 * the transposed convolution). */
static void convert(const un_layer *ly, const float *src, float *dst, int to_sets)
{
    int ci = ly->ci, co = ly->co, tc = ly->kind == UN_TCONV;
    int64_t taps = tc ? 8 : (int64_t)ly->k * ly->k * ly->k;
    for (int64_t t = 0; t < taps; t++)
        for (int i = 0; i < ci; i++)
            for (int o = 0; o < co; o++) {
                int64_t h = (t * ci + i) * co + o;
                int64_t g = tc ? (t * co + o) * ci + i : ((int64_t)o * ci + i) * taps + t;
                if (to_sets) dst[g] = src[h];
                else dst[h] = src[g];
            }
}

void uk_weights_in(un_net *n)
{
    for (int l = 0; l < n->p->nlayers; l++) {
        const un_layer *ly = &n->p->layers[l];
        convert(ly, n->params + ly->off, n->wk + ly->off, 1);
    }
}

void uk_grads_out(un_net *n)
{
    for (int l = 0; l < n->p->nlayers; l++) {
        const un_layer *ly = &n->p->layers[l];
        convert(ly, n->gk + ly->off, n->grads + ly->off, 0);
    }
}

/* Zero the faces of a padded view: the D planes 0 and d-1 whole, the H and
 * W borders of the others (the scratch holds another layer's data). */
static void zero_faces(const t3view *P)
{
    size_t c = (size_t)P->c, E = (size_t)P->h;
    for (int s = 0; s < P->n; s++)
        for (int z = 0; z < P->d; z++) {
            float *pl = (float *)P->p + s * P->sn + z * P->sd;
            if (z == 0 || z == P->d - 1) {
                memset(pl, 0, E * E * c * sizeof(float));
                continue;
            }
            memset(pl, 0, E * c * sizeof(float));
            memset(pl + (E - 1) * E * c, 0, E * c * sizeof(float));
            for (size_t y = 1; y + 1 < E; y++) {
                memset(pl + y * E * c, 0, c * sizeof(float));
                memset(pl + (y * E + E - 1) * c, 0, c * sizeof(float));
            }
        }
}

/* The padded planes 1 and d-2 of each sample to the neighbours along D,
 * theirs into planes d-1 and 0 (the volume's faces stay zero). */
static void exchange(un_net *n, const char *layer, const t3view *P)
{
    double t0 = timer_now_s();
    int lo = n->rank > 0 ? n->rank - 1 : MPI_PROC_NULL;
    int hi = n->rank < n->S - 1 ? n->rank + 1 : MPI_PROC_NULL;
    int d = P->d - 2;
    CHECK(P->sd <= INT_MAX, "unet3d: a halo plane of %lld floats", (long long)P->sd);
    int cnt = (int)P->sd;
    for (int s = 0; s < P->n; s++) {
        float *b = (float *)P->p + s * P->sn;
        CHECK_MPI(MPI_Sendrecv(b + P->sd, cnt, MPI_FLOAT, lo, 21, b + (d + 1) * P->sd, cnt,
                               MPI_FLOAT, hi, 21, n->comm, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Sendrecv(b + d * P->sd, cnt, MPI_FLOAT, hi, 22, b, cnt, MPI_FLOAT, lo, 22,
                               n->comm, MPI_STATUS_IGNORE));
        n->halo_bytes += ((lo != MPI_PROC_NULL) + (hi != MPI_PROC_NULL)) * (int64_t)cnt * 4;
    }
    uk_host_row(n, "halo", layer, 0, t0);
}

/* src into the interior of the padded scratch, zero faces, D halos. */
static t3view pack(un_net *n, const char *layer, const un_t *src)
{
    int64_t E = src->e + 2, D = src->d + 2;
    CHECK((int64_t)src->n * D * E * E * src->c <= n->pad_floats, "unet3d: padded scratch too small");
    t3view P = {.p = n->pad, .n = src->n, .c = src->c, .d = (int)D, .h = (int)E, .w = (int)E,
                .sn = D * E * E * src->c, .sc = 1, .sd = E * E * src->c, .sh = E * src->c,
                .sw = src->c};
    double t0 = timer_now_s();
    zero_faces(&P);
    uk_host_row(n, "pad_faces", layer, 0, t0);
    t3view in = P, s = tv(src);
    in.p = n->pad + P.sd + P.sh + P.sw, in.d -= 2, in.h -= 2, in.w -= 2;
    kc_copy3d(&n->kc, "halo_pack", layer, &s, &in);
    if (n->S > 1) exchange(n, layer, &P);
    return P;
}

void uk_conv_fwd(un_net *n, int l)
{
    const un_layer *ly = &n->p->layers[l];
    un_lbuf *B = &n->L[l];
    float *w = n->wk + ly->off;
    t3view y = tv(&B->z);
    if (ly->k == 1) {
        t3view x = tv(&B->x);
        kc_conv3d_fwd(&n->kc, ly->name, &x, w, 1, &y);
        return;
    }
    t3view P = pack(n, ly->name, &B->x);
    kc_conv3d_fwd(&n->kc, ly->name, &P, w, ly->k, &y);
}

void uk_conv_bwd(un_net *n, int l)
{
    const un_layer *ly = &n->p->layers[l];
    un_lbuf *B = &n->L[l];
    float *w = n->wk + ly->off, *dw = n->gk + ly->off;
    t3view dz = tv(&B->dz), dx = tv(&B->dx);
    if (ly->k == 1) {
        t3view x = tv(&B->x);
        kc_conv3d_bwd_weights(&n->kc, ly->name, &x, &dz, 1, dw);
        if (l > 0) kc_conv3d_bwd_data(&n->kc, ly->name, &dz, w, 1, &dx);
        return;
    }
    /* the scratch held another layer's input since the forward: packed again */
    t3view P = pack(n, ly->name, &B->x);
    kc_conv3d_bwd_weights(&n->kc, ly->name, &P, &dz, ly->k, dw);
    if (l == 0) return;  /* the input's gradient is not needed */
    t3view Q = pack(n, ly->name, &B->dz);
    kc_conv3d_bwd_data(&n->kc, ly->name, &Q, w, ly->k, &dx);
}

/* Tap q's outputs (2z + q_z, 2y + q_y, 2x + q_x) of a (extent 2e) for the
 * input x (extent e) */
static t3view tap(const un_t *a, int q, const un_t *x)
{
    t3view v = tv(a);
    int64_t E = a->e, ld = a->ld;
    v.p = a->p + (((q >> 2) * E + ((q >> 1) & 1)) * E + (q & 1)) * ld;
    v.d = x->d, v.h = x->e, v.w = x->e;
    v.sd *= 2, v.sh *= 2, v.sw *= 2;
    return v;
}

static int dense_rows(const un_t *x, const char *what)
{
    CHECK(x->ld == x->c, "unet3d: the transposed convolution's %s is not dense", what);
    int64_t nv = voxels(x);
    CHECK(nv <= INT_MAX, "unet3d: %lld voxels in one GEMM (at most %d)", (long long)nv, INT_MAX);
    return (int)nv;
}

void uk_tconv_fwd(un_net *n, int l)
{
    const un_layer *ly = &n->p->layers[l];
    un_lbuf *B = &n->L[l];
    int ci = ly->ci, co = ly->co, nv = dense_rows(&B->x, "input");
    CHECK((int64_t)nv * co <= n->pad_floats, "unet3d: tap scratch too small");
    t3view ys = dense3(n->pad, B->x.n, B->x.d, B->x.e, co);
    for (int q = 0; q < 8; q++) {
        kc_dense_fwd(&n->kc, ly->name, B->x.p, n->wk + ly->off + (int64_t)q * co * ci, nv, ci, co,
                     n->pad);
        t3view dst = tap(&B->a, q, &B->x);
        kc_copy3d(&n->kc, "gather", ly->name, &ys, &dst);
    }
}

void uk_tconv_bwd(un_net *n, int l)
{
    const un_layer *ly = &n->p->layers[l];
    un_lbuf *B = &n->L[l];
    int ci = ly->ci, co = ly->co, nv = dense_rows(&B->x, "input");
    dense_rows(&B->dx, "input gradient");
    CHECK((int64_t)nv * (ci + co) <= n->pad_floats, "unet3d: tap scratch too small");
    float *G = n->pad, *DX = n->pad + (int64_t)nv * co;
    t3view gs = dense3(G, B->x.n, B->x.d, B->x.e, co);
    tview part = rows(DX, nv, ci, ci), whole = rows(B->dx.p, nv, ci, ci);
    for (int q = 0; q < 8; q++) {
        t3view src = tap(&B->da, q, &B->x);
        kc_copy3d(&n->kc, "gather", ly->name, &src, &gs);
        int64_t wq = ly->off + (int64_t)q * co * ci;
        kc_dense_bwd_weights(&n->kc, ly->name, B->x.p, G, nv, ci, co, n->gk + wq);
        kc_dense_bwd_data(&n->kc, ly->name, G, n->wk + wq, nv, ci, co, q ? DX : B->dx.p);
        if (q) kc_add(&n->kc, ly->name, &part, &whole);
    }
}

void uk_pool_fwd(un_net *n, int lev, const un_t *a)
{
    char name[16];
    snprintf(name, sizeof name, "pool%d", lev + 1);
    t3view x = tv(a), y = tv(&n->pool[lev]);
    kc_pool3d_fwd(&n->kc, name, &x, &y);
}

void uk_pool_bwd(un_net *n, int lev, const un_t *a, const un_t *da)
{
    char name[16];
    snprintf(name, sizeof name, "pool%d", lev + 1);
    int64_t nv = voxels(a);
    CHECK(nv * a->c <= n->pad_floats, "unet3d: pooling scratch too small");
    t3view x = tv(a), dy = tv(&n->dpool[lev]), g = dense3(n->pad, a->n, a->d, a->e, a->c);
    kc_pool3d_bwd(&n->kc, name, &x, &dy, &g);
    tview s = rows(n->pad, nv, a->c, a->c), d = rows(da->p, nv, a->c, da->ld);
    kc_add(&n->kc, name, &s, &d);
}
