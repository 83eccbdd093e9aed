#include "benchmarks/train/optim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/kernels/flops.h"

struct optim {
    int lion;          /* 0: Adam (or SGD); 1: Lion */
    int sgd;           /* SGD with momentum: m is its velocity, no v */
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
    o->lion = lion == 1;
    o->sgd = lion == 2;
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
    o->v = o->m && !lion && !o->sgd ? ops->alloc(ctx, pb) : NULL;
    if (!o->m || (!lion && !o->sgd && !o->v)) {
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
    int lion = !strcmp(c->optimizer, "lion"), sgd = !strcmp(c->optimizer, "sgd");
    if (lion && !ops->lion) {
        snprintf(err, errlen, "the %s kernel set has no Lion kernels", ops->name);
        return NULL;
    }
    /* SGD's loop runs on the host: the CPU sets' memory (runcfg_validate
     * keeps it off the cuda backend) */
    optim_t *o = create(sgd ? 2 : lion, net, model, inst, ops, ctx, dry, err, errlen);
    if (o) o->run = *c;
    return o;
}

size_t optim_bytes_run(const runcfg_t *c, int64_t params)
{
    int one_moment = !strcmp(c->optimizer, "lion") || !strcmp(c->optimizer, "sgd");
    return one_moment ? (size_t)params * sizeof(float) : optim_bytes(params);
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

/* SGD with momentum in Keras' form, per element: g' = g s; v = mu v - lr g';
 * w = w + v (5 FLOPs, flops_sgd); one "sgd" row per slice. */
static void sgd_step(optim_t *o, kc_t *kc, double lr, double grad_scale)
{
    const net_params *p = &o->p;
    float mu = (float)o->run.momentum, fl = (float)lr, gs = (float)grad_scale;
    for (int i = 0; i < o->nslices; i++) {
        const net_slice *s = &o->slices[i];
        ktab_row *row = ktab_row_for(kc->tab, "sgd", s->name);
        row->calls++;
        row->flops += flops_sgd(s->count);
        if (kc->dry) continue;
        double t0 = timer_now_s();
        float *w = p->master + s->off, *v = o->m + s->off;
        const float *g = p->grads + s->off;
        for (int64_t j = 0; j < s->count; j++) {
            v[j] = mu * v[j] - fl * (g[j] * gs);
            w[j] += v[j];
        }
        row->time_s += timer_now_s() - t0;
    }
    /* a separate compute copy (bf16) gets the updated weights */
    if (!kc->dry && p->compute && p->compute != (void *)p->master)
        o->ops->cast_params(o->ctx, p->master, p->compute, o->params);
}

void optim_step_run(optim_t *o, kc_t *kc, int64_t step, double grad_scale, lionx_t *x)
{
    if (o->sgd) {
        sgd_step(o, kc, runcfg_lr_at(&o->run, step), grad_scale);
        return;
    }
    if (!o->lion) {
        adam_hyper h = {.lr = runcfg_lr_at(&o->run, step), .beta1 = o->run.beta1, .beta2 = o->run.beta2,
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
