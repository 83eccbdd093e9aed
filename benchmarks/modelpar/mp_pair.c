#include "benchmarks/modelpar/mp_pair.h"

#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"

/* The collectives of the pair over the model group (counted, timed): the
 * tiles' [tile][n][hidden2] blocks gathered to every rank (TP_GATHER, src
 * a tile, dst the whole) or the whole's partial sums summed and scattered
 * back (TP_SCATTER, src the whole, dst a tile); with one model rank the
 * whole is the tile. */
enum { TP_GATHER, TP_SCATTER };

static void tp_collective(mp_net *n, kc_t *kc, int kind, const float *src, float *dst)
{
    const mp_geom *g = &n->m->g;
    int64_t cnt = g->tile * n->n * g->cfg.hidden2;
    if (kc->dry) return;
    double t0 = timer_now_s();
    if (g->M == 1)
        memcpy(dst, src, (size_t)cnt * sizeof *dst);
    else if (kind == TP_GATHER)
        CHECK_MPI(MPI_Allgather(src, (int)cnt, MPI_FLOAT, dst, (int)cnt, MPI_FLOAT, n->m->group));
    else
        CHECK_MPI(MPI_Reduce_scatter_block(src, dst, (int)cnt, MPI_FLOAT, MPI_SUM, n->m->group));
    n->tp_bytes += (g->M - 1) * cnt * (int64_t)sizeof(float);
    n->tp_s += timer_now_s() - t0;
}

static float *at(float *p, int64_t off) { return p ? p + off : NULL; }

/* The dense pair on the tile's lc2 output z ([tile][n][hidden2]) into n->U:
 * the group's positions gathered, this rank's D/M hidden units, its partial
 * output summed over the group and scattered back to the tiles. */
void mp_pair_forward(mp_net *n, kc_t *kc, const float *z)
{
    const mp_geom *g = &n->m->g;
    int rows = (int)(g->positions * n->n), h2 = g->cfg.hidden2, ds = g->dslice;
    tp_collective(n, kc, TP_GATHER, z, n->X);
    kc_dense_fwd(kc, "tp1", n->X, at(n->master, g->off_tp1), rows, h2, ds, n->H);
    t3view hv = {.p = n->H, .n = rows, .c = ds, .d = 1, .h = 1, .w = 1, .sn = ds, .sc = 1,
                 .sd = ds, .sh = ds, .sw = ds};
    kc_lrelu_fwd(kc, "tp1", &hv, &hv, (float)g->cfg.slope);
    kc_dense_fwd(kc, "tp2", n->H, at(n->master, g->off_tp2), rows, ds, h2, n->Yp);
    tp_collective(n, kc, TP_SCATTER, n->Yp, n->U);
}

/* Its backward: du ([tile][n][hidden2]) in, the gradient of its input into du. */
void mp_pair_backward(mp_net *n, kc_t *kc, float *du, net_grad_ready_fn ready, void *user)
{
    const mp_geom *g = &n->m->g;
    int rows = (int)(g->positions * n->n), h2 = g->cfg.hidden2, ds = g->dslice;
    float *dY = n->Yp; /* the output is not needed any more */
    tp_collective(n, kc, TP_GATHER, du, dY);
    kc_dense_bwd_weights(kc, "tp2", n->H, dY, rows, ds, h2, at(n->grads, g->off_tp2));
    if (ready && n->grads) ready(user, 3, n->grads + g->off_tp2, g->tp_params_rank / 2);
    kc_dense_bwd_data(kc, "tp2", dY, at(n->master, g->off_tp2), rows, ds, h2, n->dH);
    t3view hv = {.p = n->H, .n = rows, .c = ds, .d = 1, .h = 1, .w = 1, .sn = ds, .sc = 1,
                 .sd = ds, .sh = ds, .sw = ds};
    t3view dv = hv;
    dv.p = n->dH;
    kc_lrelu_bwd(kc, "tp1", &hv, &dv, &dv, (float)g->cfg.slope);
    kc_dense_bwd_weights(kc, "tp1", n->X, n->dH, rows, h2, ds, at(n->grads, g->off_tp1));
    if (ready && n->grads) ready(user, 2, n->grads + g->off_tp1, g->tp_params_rank / 2);
    kc_dense_bwd_data(kc, "tp1", n->dH, at(n->master, g->off_tp1), rows, h2, ds, dY);
    tp_collective(n, kc, TP_SCATTER, dY, du);
}

/* The sparsity term on the tile's code z ([tile][n][hidden2], post-activation):
 * lambda x the sum over positions of mean |z| = lambda x tile x the tile's
 * mean (every position has n x hidden2 values). */
static tview code_view(const mp_net *n, float *p)
{
    int64_t e = n->m->g.tile * n->n * n->m->g.cfg.hidden2;
    return (tview){.p = p, .n = 1, .c = 1, .h = 1, .w = (int)e, .sstride = e};
}

double mp_sparsity_forward(mp_net *n, kc_t *kc, float *z)
{
    if (!(n->m->g.cfg.sparsity > 0)) return 0;
    tview y = code_view(n, z), t = code_view(n, n->zeros);
    return n->m->g.cfg.sparsity * (double)n->m->g.tile * kc_l1_fwd(kc, "sparsity", &y, &t);
}

/* Its gradient added into dz: sign(z) / count, times lambda x tile (a 1 x 1
 * dense layer: the kernel sets have no scale), added. */
void mp_sparsity_backward(mp_net *n, kc_t *kc, float *z, float *dz)
{
    if (!(n->m->g.cfg.sparsity > 0)) return;
    tview y = code_view(n, z), t = code_view(n, n->zeros), s = code_view(n, n->sg);
    tview s2 = code_view(n, n->sg2), d = code_view(n, dz);
    kc_l1_bwd(kc, "sparsity", &y, &t, &s);
    kc_dense_fwd(kc, "sparsity", n->sg, n->lam, s.w, 1, 1, n->sg2);
    kc_add(kc, "sparsity", &s2, &d);
}
