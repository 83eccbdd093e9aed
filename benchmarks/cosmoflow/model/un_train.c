#include "benchmarks/cosmoflow/model/un_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Per layer: its input (a view), conv output z, output a (UN_CBR; down*b's
 * a is the skip slice of its level's concatenation buffer) and their
 * gradients; BN statistics. */
typedef struct {
    un_t x, z, a, dx, dz, da;
    float *m, *s;
} un_lbuf;

struct un_net {
    const un_plan *p;
    float *params, *grads, *mom;
    un_lbuf L[UN_MAX_LAYERS];
    un_t in, pool[UN_LEVELS], dpool[UN_LEVELS];
    uint8_t *label;
    void *allocs[8 * UN_MAX_LAYERS + 16];
    int nallocs, failed;
    int64_t bytes;
};

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

/* A dense tensor of c channels; with dry (n NULL buffers) only counted. */
static un_t dense(un_net *n, int dry, int batch, int e, int c)
{
    un_t t = {.n = batch, .e = e, .c = c, .ld = c};
    int64_t fl = (int64_t)batch * e * e * e * c;
    if (dry) n->bytes += fl * (int64_t)sizeof(float);
    else t.p = get(n, fl);
    return t;
}

static un_t slice(const un_t *t, int first, int c)
{
    un_t v = *t;
    v.p = t->p ? t->p + first : NULL, v.c = c;
    return v;
}

static void build(un_net *n, const un_plan *p, int dry)
{
    int b = p->cfg.batch;
    n->p = p;
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
        B->z = dense(n, dry, b, ly->ext, ly->co), B->dz = dense(n, dry, b, ly->ext, ly->co);
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
            n->dpool[lev] = dense(n, dry, b, ly->ext / 2, ly->co);
            cur = n->pool[lev], dcur = n->dpool[lev];
        } else {
            B->a = dense(n, dry, b, ly->ext, ly->co), B->da = dense(n, dry, b, ly->ext, ly->co);
            cur = B->a, dcur = B->da;
        }
    }
    int64_t vox = (int64_t)b * p->cfg.size * p->cfg.size * p->cfg.size;
    if (dry) n->bytes += vox;
    else n->label = (uint8_t *)get(n, (vox + 3) / 4);
}

int64_t un_net_bytes(const un_plan *p)
{
    un_net n;
    memset(&n, 0, sizeof n);
    build(&n, p, 1);
    return n.bytes;
}

void un_net_free(un_net *n)
{
    if (!n) return;
    for (int i = 0; i < n->nallocs; i++) free(n->allocs[i]);
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

un_net *un_net_create(const un_plan *p)
{
    un_net *n = calloc(1, sizeof *n);
    if (!n) return NULL;
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
    int64_t per = (int64_t)c->size * c->size * c->size;
    for (int g = 0; g < c->batch; g++) {
        uint64_t st = c->seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(t * 1048576 + g + 1));
        for (int64_t v = 0; v < per; v++) {
            float *x = n->in.p + ((int64_t)g * per + v) * c->channels;
            for (int k = 0; k < c->channels; k++) x[k] = unif(&st);
            int cls = (int)((x[0] + 1.0f) * 0.5f * (float)c->classes);
            n->label[(int64_t)g * per + v] = (uint8_t)(cls < c->classes ? cls : c->classes - 1);
        }
    }
}

static void zero(const un_t *t)
{
    if (!t->p) return;
    int64_t nv = (int64_t)t->n * t->e * t->e * t->e;
    for (int64_t i = 0; i < nv; i++) memset(t->p + i * t->ld, 0, sizeof(float) * t->c);
}

double un_net_grad(un_net *n, int64_t t, int64_t *flops)
{
    const un_plan *p = n->p;
    int64_t f = 0;
    load(n, t);
    for (int l = 0; l < p->nlayers; l++) {
        const un_layer *ly = &p->layers[l];
        un_lbuf *B = &n->L[l];
        float *w = n->params + ly->off;
        if (ly->kind == UN_TCONV) {
            f += un_tconv(UN_FWD, &B->x, w, &B->a);
            continue;
        }
        f += un_conv(UN_FWD, &B->x, w, ly->k, &B->z);
        if (ly->kind == UN_LAST) break;
        f += un_bnrelu_fwd(&B->z, w + ly->nw, w + ly->nw + ly->co, B->m, B->s, &B->a);
        if (l < 2 * UN_LEVELS && l % 2 == 1) f += un_pool_fwd(&B->a, &n->pool[l / 2]);
    }
    un_lbuf *last = &n->L[p->nlayers - 1];
    int64_t xf;
    double loss = un_xent(&last->z, n->label, &last->dz, &xf);
    f += xf;
    /* backward: every gradient accumulates, so all start at zero */
    memset(n->grads, 0, sizeof(float) * (size_t)p->params);
    for (int l = 0; l < p->nlayers - 1; l++) zero(&n->L[l].da), zero(&n->L[l].dx);
    zero(&n->L[p->nlayers - 1].dx);
    for (int l = p->nlayers - 1; l >= 0; l--) {
        const un_layer *ly = &p->layers[l];
        un_lbuf *B = &n->L[l];
        float *w = n->params + ly->off, *dw = n->grads + ly->off;
        if (ly->kind == UN_TCONV) {
            f += un_tconv(UN_BWD_WEIGHTS, &B->x, dw, &B->da);
            f += un_tconv(UN_BWD_DATA, &B->dx, w, &B->da);
            continue;
        }
        if (ly->kind == UN_CBR) {
            if (l < 2 * UN_LEVELS && l % 2 == 1)
                f += un_pool_bwd(&B->a, &n->dpool[l / 2], &B->da);
            f += un_bnrelu_bwd(&B->z, w + ly->nw, w + ly->nw + ly->co, B->m, B->s, &B->a,
                               &B->da, &B->dz, dw + ly->nw, dw + ly->nw + ly->co);
        }
        f += un_conv(UN_BWD_WEIGHTS, &B->x, dw, ly->k, &B->dz);
        if (l > 0) f += un_conv(UN_BWD_DATA, &B->dx, w, ly->k, &B->dz);
    }
    *flops = f;
    return loss;
}

double un_net_step(un_net *n, int64_t t, int64_t *flops)
{
    const un_plan *p = n->p;
    double loss = un_net_grad(n, t, flops);
    /* SGD with momentum 0.9 */
    for (int64_t i = 0; i < p->params; i++) {
        n->mom[i] = 0.9f * n->mom[i] + n->grads[i];
        n->params[i] -= (float)p->cfg.lr * n->mom[i];
    }
    *flops += 4 * p->params;
    return loss;
}

float *un_net_params(un_net *n) { return n->params; }
const float *un_net_grads(const un_net *n) { return n->grads; }
