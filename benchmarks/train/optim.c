#include "benchmarks/train/optim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"

struct optim {
    int lion;          /* 0: Adam */
    runcfg_t run;      /* optim_create_run: the hyper-parameters */
    const kern_ops *ops;
    void *ctx;
    net_params p;
    int64_t params;
    net_slice *slices;
    int nslices;
    float *m, *v;
};

size_t optim_bytes(int64_t params) { return 2 * (size_t)params * sizeof(float); }

static optim_t *create(int lion, const network_t *net, const void *model, void *inst,
                       const kern_ops *ops, void *ctx, int dry, char *err, size_t errlen)
{
    optim_t *o = XCALLOC(1, sizeof *o, "optimizer");
    o->lion = lion;
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
    o->v = o->m && !lion ? ops->alloc(ctx, pb) : NULL;
    if (!o->m || (!lion && !o->v)) {
        snprintf(err, errlen, "a buffer of %.3g GB could not be allocated", (double)pb / 1e9);
        optim_free(o);
        return NULL;
    }
    return o;
}

optim_t *optim_create(const network_t *net, const void *model, void *inst, const kern_ops *ops,
                      void *ctx, int dry, char *err, size_t errlen)
{
    return create(0, net, model, inst, ops, ctx, dry, err, errlen);
}

optim_t *optim_create_run(const runcfg_t *c, const network_t *net, const void *model, void *inst,
                          const kern_ops *ops, void *ctx, int dry, char *err, size_t errlen)
{
    int lion = !strcmp(c->optimizer, "lion");
    if (lion && !ops->lion) {
        snprintf(err, errlen, "the %s kernel set has no Lion kernels", ops->name);
        return NULL;
    }
    optim_t *o = create(lion, net, model, inst, ops, ctx, dry, err, errlen);
    if (o) o->run = *c;
    return o;
}

size_t optim_bytes_run(const runcfg_t *c, int64_t params)
{
    return strcmp(c->optimizer, "lion") ? optim_bytes(params) : (size_t)params * sizeof(float);
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
    CHECK(!o->lion, "optim_step: Adam's step on a Lion optimizer");
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

lion_hyper optim_lion_hyper(const optim_t *o)
{
    lion_hyper h = {.lr = o->run.lr, .beta1 = o->run.beta1, .beta2 = o->run.beta2,
                    .weight_decay = o->run.weight_decay, .grad_scale = 1, .tie_seed = 0};
    return h;
}

float *optim_moment(const optim_t *o) { return o->m; }

int64_t optim_state(const optim_t *o, float **m, float **v)
{
    *m = o->m, *v = o->v;
    return o->params;
}

int optim_slices(const optim_t *o, const net_slice **slices)
{
    *slices = o->slices;
    return o->nslices;
}

void optim_step_run(optim_t *o, kc_t *kc, int64_t step, double grad_scale, lionx_t *x)
{
    if (!o->lion) {
        adam_hyper h = {.lr = o->run.lr, .beta1 = o->run.beta1, .beta2 = o->run.beta2,
                        .eps = o->run.eps, .step = step, .grad_scale = grad_scale};
        optim_step(o, kc, &h);
        return;
    }
    const net_params *p = &o->p;
    if (x) {
        lionx_apply(x, kc, p->master, p->compute, o->ops->act_bytes);
        lionx_momentum_sync(x, kc, step);
        return;
    }
    if (o->ops->grad_check) kc_grad_check(kc, "loss_scale", p->grads, o->params);
    lion_hyper h = optim_lion_hyper(o);
    h.grad_scale = grad_scale;
    int copy = p->compute && p->compute != (void *)p->master;
    for (int i = 0; i < o->nslices; i++) {
        const net_slice *s = &o->slices[i];
        int64_t off = s->off;
        void *wc = copy ? (char *)p->compute + (size_t)off * o->ops->act_bytes : NULL;
        kc_lion(kc, s->name, p->master ? p->master + off : NULL, wc, p->grads ? p->grads + off : NULL,
                o->m ? o->m + off : NULL, s->count, &h);
    }
}
