#include "benchmarks/train/optim.h"

#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"

struct optim {
    const kern_ops *ops;
    void *ctx;
    net_params p;
    int64_t params;
    net_slice *slices;
    int nslices;
    float *m, *v;
};

size_t optim_bytes(int64_t params) { return 2 * (size_t)params * sizeof(float); }

optim_t *optim_create(const network_t *net, const void *model, void *inst, const kern_ops *ops,
                      void *ctx, int dry, char *err, size_t errlen)
{
    optim_t *o = XCALLOC(1, sizeof *o, "optimizer");
    net_facts f;
    net->facts(model, &f);
    o->ops = ops;
    o->ctx = ctx;
    o->params = f.params;
    net->params(inst, &o->p);
    o->nslices = net->slices(model, &o->slices);
    if (dry) return o;
    size_t pb = (size_t)f.params * sizeof(float);
    /* alloc is zero-filled: Adam starts from zero moments */
    o->m = ops->alloc(ctx, pb);
    o->v = o->m ? ops->alloc(ctx, pb) : NULL;
    if (!o->v) {
        snprintf(err, errlen, "a buffer of %.3g GB could not be allocated", (double)pb / 1e9);
        optim_free(o);
        return NULL;
    }
    return o;
}

void optim_free(optim_t *o)
{
    if (!o) return;
    if (o->m) o->ops->release(o->ctx, o->m);
    if (o->v) o->ops->release(o->ctx, o->v);
    free(o->slices);
    free(o);
}

void optim_step(optim_t *o, kc_t *kc, const adam_hyper *h)
{
    const net_params *p = &o->p;
    if (o->ops->grad_check) kc_grad_check(kc, "loss_scale", p->grads, o->params);
    /* a separate compute copy gets the updated weights from the kernel */
    int copy = p->compute && p->compute != (void *)p->master;
    for (int i = 0; i < o->nslices; i++) {
        const net_slice *s = &o->slices[i];
        int64_t off = s->off;
        void *wc = copy ? (char *)p->compute + (size_t)off * o->ops->act_bytes : NULL;
        kc_adam(kc, s->name, p->master ? p->master + off : NULL, wc, p->grads ? p->grads + off : NULL,
                o->m ? o->m + off : NULL, o->v ? o->v + off : NULL, s->count, h);
    }
}
