/* net_pass: the FC-DenseNet's forward and backward passes over the buffers
 * net.c allocates (net_impl.h).  Split from net.c, which keeps the
 * instance's lifetime (buffers, creation, release) and its parameters: the
 * two passes stay together in this file because backward walks forward's
 * order in reverse (the same levels, prev_block, the shuffles at level K),
 * and reading them side by side is how the pair is checked.  Where a
 * spatial split differs, both call net_split.c (nsp_*). */
#include "benchmarks/networks/fcdensenet/net.h"

#include "benchmarks/networks/fcdensenet/net_impl.h"

/* ---- views ------------------------------------------------------------------ */

static const plan_layer *layer(const net_t *n, int i) { return &n->plan->layers[i]; }

static void *weights(const net_t *n, int i)
{
    if (!n->wc) return NULL;
    return (char *)n->wc + (size_t)layer(n, i)->off_w * n->ops->act_bytes;
}

static void *bias(const net_t *n, int i)
{
    if (!n->wc) return NULL;
    return (char *)n->wc + (size_t)layer(n, i)->off_b * n->ops->act_bytes;
}

static float *gw(const net_t *n, int i) { return n->grads ? n->grads + layer(n, i)->off_w : NULL; }
static float *gb(const net_t *n, int i) { return n->grads ? n->grads + layer(n, i)->off_b : NULL; }

/* ---- forward ----------------------------------------------------------------- */

static void dense_fwd(net_t *n, kc_t *kc, nbuf *b, int c0, int layers, int first)
{
    int g = n->plan->cfg.growth, k = n->plan->cfg.k;
    tview xin = net_view(n, b, b->x, 0, c0);
    tview rin = b->sp ? nsp_sview(n, b, n->rs, c0) : net_view(n, b, b->r, 0, c0);
    kc_relu_fwd(kc, layer(n, first)->name, &xin, &rin);
    if (b->sp) nsp_pad_fill(n, kc, layer(n, first)->name, b, &rin, 0, c0);
    for (int l = 0; l < layers; l++) {
        int c = c0 + l * g;
        tview y = net_view(n, b, b->x, c, g);
        if (b->sp) {
            tview rp = nsp_pview(n, b, b->rp, 0, c);
            nsp_conv_fwd(n, kc, layer(n, first + l)->name, &rp, weights(n, first + l), k, &y);
        } else {
            tview r = net_view(n, b, b->r, 0, c);
            kc_conv_fwd(kc, layer(n, first + l)->name, &r, weights(n, first + l), k, &y);
        }
        if (l + 1 < layers) {
            /* the next layer reads these maps through its ReLU */
            tview ry = b->sp ? nsp_sview(n, b, n->rs, g) : net_view(n, b, b->r, c, g);
            kc_relu_fwd(kc, layer(n, first + l + 1)->name, &y, &ry);
            if (b->sp) nsp_pad_fill(n, kc, layer(n, first + l + 1)->name, b, &ry, c, g);
        }
    }
}

/* The new maps of the block before up level j: what transition up j reads. */
static nbuf *prev_block(net_t *n, int j, int *ch0, int *nch)
{
    const plan_t *p = n->plan;
    const cfg_t *c = &p->cfg;
    if (j == 0) {
        *ch0 = p->bott_c0;
        *nch = c->bottleneck * c->growth;
        return &n->bott;
    }
    *ch0 = p->up_c0[j - 1];
    *nch = c->up[j - 1] * c->growth;
    return &n->up[j - 1];
}

void net_load(net_t *n, const float *input, const float *target)
{
    if (n->dry) return;
    const cfg_t *c = &n->plan->cfg;
    tview in = net_view(n, &n->in, n->in.x, 0, c->c_in);
    tview tg = net_view(n, &n->target, n->target.x, 0, c->c_out);
    if (n->S > 1) {
        nsp_load(n, input, target);
        return;
    }
    n->ops->put_f32(n->ctx, &in, input);
    n->ops->put_f32(n->ctx, &tg, target);
}

double net_forward(net_t *n, kc_t *kc, const float *input, const float *target)
{
    const plan_t *p = n->plan;
    const cfg_t *c = &p->cfg;
    int L = c->levels;
    tview in = net_view(n, &n->in, n->in.x, 0, c->c_in);
    tview tg = net_view(n, &n->target, n->target.x, 0, c->c_out);
    if (input) net_load(n, input, target);

    /* CONV_INIT: conv, bias, ReLU, written into the first block's input slice */
    tview y0 = net_view(n, &n->down[0], n->down[0].x, 0, c->f0);
    if (n->S > 1) {
        nsp_init_fwd(n, kc, &in, weights(n, p->conv_init), &y0);
    } else {
        kc_conv_fwd(kc, "conv_init", &in, weights(n, p->conv_init), c->k0, &y0);
    }
    kc_bias_fwd(kc, "conv_init", &y0, bias(n, p->conv_init));
    kc_relu_fwd(kc, "conv_init", &y0, &y0);

    for (int i = 0; i < L; i++) {
        nbuf *b = &n->down[i];
        dense_fwd(n, kc, b, p->down_c0[i], c->down[i], p->down_first[i]);
        tview x = net_view(n, b, b->x, 0, b->c);
        tview t = net_view(n, &n->tdpre[i], n->tdpre[i].x, 0, c->td[i]);
        const char *name = layer(n, p->td[i])->name;
        kc_conv_fwd(kc, name, &x, weights(n, p->td[i]), 1, &t);
        nbuf *next = i + 1 < L ? &n->down[i + 1] : &n->bott;
        tview pooled = net_view(n, next, next->x, 0, c->td[i]);
        if (i + 1 == n->K) {
            /* the plan's shuffle: the pooled tiles become whole samples */
            tview tiles = net_view(n, &n->shin, n->shin.x, 0, c->td[i]);
            kc_pool_fwd(kc, name, &t, &tiles);
            fd_shuffle(&n->sh, kc, name, &tiles, &pooled, 1);
        } else {
            kc_pool_fwd(kc, name, &t, &pooled);
        }
    }
    dense_fwd(n, kc, &n->bott, p->bott_c0, c->bottleneck, p->bott_first);

    for (int j = 0; j < L; j++) {
        int ch0, nch;
        nbuf *src = prev_block(n, j, &ch0, &nch), *b = &n->up[j];
        const char *name = layer(n, p->tu[j])->name;
        tview s = net_view(n, src, src->x, ch0, nch), y = net_view(n, b, b->x, 0, c->tu[j]);
        if (L - j == n->K) {
            /* the plan's shuffle back: the maps the transition reads, as tiles */
            tview tiles = net_view(n, &n->shup, n->shup.x, 0, nch);
            fd_shuffle(&n->sh, kc, name, &tiles, &s, 0);
            s = tiles;
        }
        kc_tconv_fwd(kc, name, &s, weights(n, p->tu[j]), &y);
        /* concatenation: the skip connection is copied next to the upsampled maps */
        nbuf *skip = &n->down[L - 1 - j];
        tview sk = net_view(n, skip, skip->x, 0, skip->c), dst = net_view(n, b, b->x, c->tu[j], skip->c);
        kc_copy(kc, name, &sk, &dst);
        dense_fwd(n, kc, b, p->up_c0[j], c->up[j], p->up_first[j]);
    }

    nbuf *last = &n->up[L - 1];
    tview x = net_view(n, last, last->x, 0, last->c), out = net_view(n, &n->out, n->out.x, 0, c->c_out);
    kc_conv_fwd(kc, "conv_fin", &x, weights(n, p->conv_fin), 1, &out);
    kc_bias_fwd(kc, "conv_fin", &out, bias(n, p->conv_fin));
    return kc_l1_fwd(kc, "loss", &out, &tg);
}

/* ---- backward ---------------------------------------------------------------- */

static int64_t layer_params(const plan_layer *l) { return l->weights + (l->bias ? l->c_out : 0); }

static void notify(net_t *n, net_grad_ready_fn ready, void *user, int i)
{
    if (ready) ready(user, i, gw(n, i), layer_params(layer(n, i)));
}

/* Gradients of a dense block: on entry dx of the block's output maps holds
 * everything its consumers outside the block sent; on exit dx of the block
 * input [0, c0) is complete. */
static void dense_bwd(net_t *n, kc_t *kc, nbuf *b, int c0, int layers, int first,
                      net_grad_ready_fn ready, void *user)
{
    int g = n->plan->cfg.growth, k = n->plan->cfg.k;
    for (int l = layers - 1; l >= 0; l--) {
        int c = c0 + l * g;
        const char *name = layer(n, first + l)->name;
        tview dy = net_view(n, b, b->dx, c, g);
        if (l + 1 < layers) {
            /* what later layers sent through these maps' ReLU */
            tview x = net_view(n, b, b->x, c, g), dr = net_view(n, b, b->dr, c, g);
            if (b->sp) {
                dr = nsp_sview(n, b, n->drs, g);
                nsp_fold_dr(n, kc, layer(n, first + l + 1)->name, b, c, g, &dr);
            }
            kc_relu_bwd(kc, layer(n, first + l + 1)->name, &x, &dr, &dy);
        }
        tview r = net_view(n, b, b->r, 0, c), dr_in = net_view(n, b, b->dr, 0, c), dyc = dy;
        if (b->sp) {
            r = nsp_pview(n, b, b->rp, 0, c);
            dr_in = nsp_pview(n, b, b->drp, 0, c);
            dyc = nsp_pad_dy(n, kc, name, &dy, n->hk);
        }
        kc_conv_bwd_weights(kc, name, &r, &dyc, k, gw(n, first + l));
        notify(n, ready, user, first + l);
        kc_conv_bwd_data(kc, name, &dyc, weights(n, first + l), k, &dr_in);
    }
    tview x = net_view(n, b, b->x, 0, c0), dr = net_view(n, b, b->dr, 0, c0), dx = net_view(n, b, b->dx, 0, c0);
    if (b->sp) {
        dr = nsp_sview(n, b, n->drs, c0);
        nsp_fold_dr(n, kc, layer(n, first)->name, b, 0, c0, &dr);
    }
    kc_relu_bwd(kc, layer(n, first)->name, &x, &dr, &dx);
}

/* Gradients accumulate ("+="), so the buffers that collect them start at zero. */
static void zero_grads(net_t *n, kc_t *kc, nbuf *b, int with_relu_twin)
{
    tview t = net_view(n, b, b->dx, 0, b->c);
    kc_zero(kc, "grad_zero", &t);
    if (with_relu_twin) {
        /* a split accumulates into the padded twin (dr is not allocated) */
        tview tr = b->sp ? nsp_pview(n, b, b->drp, 0, b->c) : net_view(n, b, b->dr, 0, b->c);
        kc_zero(kc, "grad_zero", &tr);
    }
}

void net_backward(net_t *n, kc_t *kc, net_grad_ready_fn ready, void *user)
{
    const plan_t *p = n->plan;
    const cfg_t *c = &p->cfg;
    int L = c->levels;

    for (int i = 0; i < L; i++) zero_grads(n, kc, &n->down[i], 1);
    zero_grads(n, kc, &n->bott, 1);
    for (int j = 0; j < L; j++) zero_grads(n, kc, &n->up[j], 1);
    zero_grads(n, kc, &n->dinit, 0);

    tview out = net_view(n, &n->out, n->out.x, 0, c->c_out);
    tview dout = net_view(n, &n->out, n->out.dx, 0, c->c_out);
    tview tg = net_view(n, &n->target, n->target.x, 0, c->c_out);
    if (n->S > 1) {
        /* the tile's mean is over 1/S of the sample: its part of the
         * sample's gradient is 1/S of the tile's */
        tview lg = net_view(n, &n->lossg, n->lossg.x, 0, c->c_out);
        kc_l1_bwd(kc, "loss", &out, &tg, &lg);
        kc_conv_fwd(kc, "loss", &lg, n->scale_w, 1, &dout);
    } else {
        kc_l1_bwd(kc, "loss", &out, &tg, &dout);
    }

    nbuf *last = &n->up[L - 1];
    tview x = net_view(n, last, last->x, 0, last->c), dx = net_view(n, last, last->dx, 0, last->c);
    kc_bias_bwd(kc, "conv_fin", &dout, gb(n, p->conv_fin));
    kc_conv_bwd_weights(kc, "conv_fin", &x, &dout, 1, gw(n, p->conv_fin));
    notify(n, ready, user, p->conv_fin);
    kc_conv_bwd_data(kc, "conv_fin", &dout, weights(n, p->conv_fin), 1, &dx);

    for (int j = L - 1; j >= 0; j--) {
        nbuf *b = &n->up[j];
        dense_bwd(n, kc, b, p->up_c0[j], c->up[j], p->up_first[j], ready, user);
        const char *name = layer(n, p->tu[j])->name;
        nbuf *skip = &n->down[L - 1 - j];
        tview dsk = net_view(n, b, b->dx, c->tu[j], skip->c), dskip = net_view(n, skip, skip->dx, 0, skip->c);
        kc_add(kc, name, &dsk, &dskip);
        int ch0, nch;
        nbuf *src = prev_block(n, j, &ch0, &nch);
        tview s = net_view(n, src, src->x, ch0, nch), ds = net_view(n, src, src->dx, ch0, nch);
        tview dy = net_view(n, b, b->dx, 0, c->tu[j]);
        int shuffled = L - j == n->K;
        tview ds_whole = ds;
        if (shuffled) {
            /* on the tiles the forward shuffle made; the data gradient goes
             * back to whole samples (the transition is the maps' only reader
             * outside their block, so it may overwrite) */
            s = net_view(n, &n->shup, n->shup.x, 0, nch);
            ds = net_view(n, &n->shup, n->shup.dx, 0, nch);
            kc_zero(kc, "grad_zero", &ds);
        }
        kc_tconv_bwd_weights(kc, name, &s, &dy, gw(n, p->tu[j]));
        notify(n, ready, user, p->tu[j]);
        kc_tconv_bwd_data(kc, name, &dy, weights(n, p->tu[j]), &ds);
        if (shuffled) fd_shuffle(&n->sh, kc, name, &ds, &ds_whole, 1);
    }
    dense_bwd(n, kc, &n->bott, p->bott_c0, c->bottleneck, p->bott_first, ready, user);

    for (int i = L - 1; i >= 0; i--) {
        nbuf *b = &n->down[i], *next = i + 1 < L ? &n->down[i + 1] : &n->bott;
        const char *name = layer(n, p->td[i])->name;
        tview dpooled = net_view(n, next, next->dx, 0, c->td[i]);
        if (i + 1 == n->K) {
            /* the shuffle back: the whole samples' gradient as the pooled tiles' */
            tview tiles = net_view(n, &n->shin, n->shin.dx, 0, c->td[i]);
            fd_shuffle(&n->sh, kc, name, &tiles, &dpooled, 0);
            dpooled = tiles;
        }
        tview dt = net_view(n, &n->tdpre[i], n->tdpre[i].dx, 0, c->td[i]);
        kc_pool_bwd(kc, name, &dpooled, &dt);
        tview bx = net_view(n, b, b->x, 0, b->c), bdx = net_view(n, b, b->dx, 0, b->c);
        kc_conv_bwd_weights(kc, name, &bx, &dt, 1, gw(n, p->td[i]));
        notify(n, ready, user, p->td[i]);
        kc_conv_bwd_data(kc, name, &dt, weights(n, p->td[i]), 1, &bdx);
        dense_bwd(n, kc, b, p->down_c0[i], c->down[i], p->down_first[i], ready, user);
    }

    /* CONV_INIT: through its ReLU; the data gradient of the input is never needed */
    tview y0 = net_view(n, &n->down[0], n->down[0].x, 0, c->f0);
    tview dy0 = net_view(n, &n->down[0], n->down[0].dx, 0, c->f0);
    tview dpre = net_view(n, &n->dinit, n->dinit.dx, 0, c->f0);
    tview in = net_view(n, &n->in, n->in.x, 0, c->c_in);
    kc_relu_bwd(kc, "conv_init", &y0, &dy0, &dpre);
    kc_bias_bwd(kc, "conv_init", &dpre, gb(n, p->conv_init));
    if (n->S > 1) {
        nsp_init_bwd(n, kc, &dpre, gw(n, p->conv_init));
    } else {
        kc_conv_bwd_weights(kc, "conv_init", &in, &dpre, c->k0, gw(n, p->conv_init));
    }
    notify(n, ready, user, p->conv_init);
}
