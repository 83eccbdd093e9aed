#include "benchmarks/modelpar/mp_geom.h"

#include <stdio.h>
#include <string.h>

#include "benchmarks/common/count.h"
#include "benchmarks/train/optim.h"

/* The grid of M tiles closest to square (GY <= GX) that divides the image;
 * 0 when none does. */
static int auto_grid(int M, int size, int g[2])
{
    for (int gy = 1; (int64_t)gy * gy <= M; gy++)
        if (M % gy == 0 && size % gy == 0 && size % (M / gy) == 0) g[0] = gy, g[1] = M / gy;
    return g[0] > 0;
}

int mp_geom_make(mp_geom *g, const mp_cfg *c, int ranks, int rank, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    g->cfg = *c;
    /* model_ranks 0: one model group of every rank of the job (a suite entry
     * whose scales are its model groups' sizes) */
    int M = c->model_ranks > 0 ? c->model_ranks : ranks, S = c->size;
    g->cfg.model_ranks = M;
    g->positions = (int64_t)S * S;
    if (M > g->positions)
        return snprintf(err, errlen,
                        "model-ranks %d: more model ranks than the %d x %d = %lld positions", M, S,
                        S, (long long)g->positions),
               -1;
    int gr[2] = {0, 0};
    mp_parse_grid(c->grid, gr);
    if (gr[0] == 0 && !auto_grid(M, S, gr))
        return snprintf(err, errlen,
                        "model-ranks %d: no grid of %d tiles divides the %d x %d positions "
                        "(give --grid GYxGX)",
                        M, M, S, S),
               -1;
    if ((int64_t)gr[0] * gr[1] != M)
        return snprintf(err, errlen, "grid %dx%d has %lld tiles, not model-ranks %d", gr[0], gr[1],
                        (long long)gr[0] * gr[1], M),
               -1;
    if (S % gr[0] || S % gr[1])
        return snprintf(err, errlen, "grid %dx%d does not divide the %d x %d positions", gr[0],
                        gr[1], S, S),
               -1;
    g->M = M, g->gy = gr[0], g->gx = gr[1];
    g->th = S / g->gy, g->tw = S / g->gx;
    g->tile = (int64_t)g->th * g->tw;
    int pad = (c->kernel - 1) / 2;
    if (M > 1 && (g->th < pad || g->tw < pad))
        return snprintf(err, errlen,
                        "grid %dx%d: tiles of %d x %d positions are narrower than the halo of %d "
                        "(kernel %d)",
                        g->gy, g->gx, g->th, g->tw, pad, c->kernel),
               -1;
    if (c->dense > 0 && c->dense % M)
        return snprintf(err, errlen, "dense %d: not divisible by model-ranks %d (the pair's "
                                     "hidden units are split evenly)", c->dense, M),
               -1;
    if (ranks % M)
        return snprintf(err, errlen, "%d ranks do not form model groups of %d (model-ranks)", ranks,
                        M),
               -1;
    g->ranks = ranks, g->groups = ranks / M;
    g->shard = rank % M;
    g->ty = g->shard / g->gx, g->tx = g->shard % g->gx;
    const int ch[MP_LAYERS + 1] = {c->channels, c->hidden1, c->hidden2, c->channels};
    int64_t off = 0;
    for (int l = 0; l < MP_LAYERS; l++) {
        mp_layer *L = &g->layer[l];
        snprintf(L->name, sizeof L->name, "lc%d", l + 1);
        L->ci = ch[l], L->co = ch[l + 1], L->pad = pad;
        L->in = (int)COUNT_PROD("receptive field", L->ci, c->kernel, c->kernel);
        L->params_rank = COUNT_PROD("weights", g->tile, L->co, L->in + 1);
        L->params_total = COUNT_PROD("weights", g->positions, L->co, L->in + 1);
        L->off_w = off;
        L->off_b = off + COUNT_PROD("weights", g->tile, L->co, L->in);
        off += L->params_rank;
        g->params_rank += L->params_rank;
        g->params_total += L->params_total;
    }
    if (c->dense > 0) {
        g->dslice = c->dense / M;
        g->tp_params_rank = COUNT_PROD("weights", 2, g->dslice, c->hidden2);
        g->off_tp1 = off;
        g->off_tp2 = off + g->tp_params_rank / 2;
        g->params_rank += g->tp_params_rank;
        g->params_total += COUNT_PROD("weights", 2, c->dense, c->hidden2);
    }
    return 0;
}

int64_t mp_geom_flops(const mp_geom *g, int64_t n, int whole)
{
    int64_t T = whole ? g->positions : g->tile, f = 0;
    if (g->dslice) {
        /* every position of the group on every rank, its D/M hidden units:
         * 6 GEMMs (2 forward, 4 backward) and the leaky ReLU both ways */
        int64_t ds = whole ? g->cfg.dense : g->dslice;
        int64_t rows = COUNT_PROD("FLOPs", g->positions, n);
        f += COUNT_PROD("FLOPs", 12, rows, g->cfg.hidden2, ds) + COUNT_PROD("FLOPs", 4, rows, ds);
    }
    for (int l = 0; l < MP_LAYERS; l++) {
        const mp_layer *L = &g->layer[l];
        int64_t gemm = COUNT_PROD("FLOPs", 2, T, n, L->in, L->co);
        int64_t outs = COUNT_PROD("FLOPs", T, n, L->co);
        f += gemm + outs;                       /* forward: dense + bias */
        f += gemm + outs;                       /* backward: weights + bias */
        if (l > 0) f += gemm + COUNT_PROD("FLOPs", T, n, L->in); /* data + scatter-add */
        if (l < MP_LAYERS - 1) f += 2 * outs + 2 * outs;         /* leaky ReLU both ways */
    }
    int64_t c0 = g->cfg.channels;
    f += T * (3 * n * c0 + 1) + T * 2 * n * c0; /* MSE per position, both ways */
    if (g->cfg.sparsity > 0) /* L1 over the tile's code: forward, sign, scale, add */
        f += 8 * COUNT_PROD("FLOPs", T, n, g->cfg.hidden2) + 1;
    return f;
}

int64_t mp_geom_halo_bytes(const mp_geom *g, int64_t n, int64_t *rank_bytes)
{
    int64_t group = 0, mine = 0;
    int nx = (g->tx > 0) + (g->tx < g->gx - 1), ny = (g->ty > 0) + (g->ty < g->gy - 1);
    for (int l = 1; l < MP_LAYERS; l++) {
        const mp_layer *L = &g->layer[l];
        int64_t xmsg = COUNT_PROD("halo bytes", L->pad, g->th, L->ci, n, 4);
        int64_t ymsg = COUNT_PROD("halo bytes", L->pad, g->tw + 2 * L->pad, L->ci, n, 4);
        /* forward and backward: the same messages, the other way */
        group += 2 * (COUNT_PROD("halo bytes", 2 * (g->gx - 1), g->gy, xmsg) +
                      COUNT_PROD("halo bytes", 2 * (g->gy - 1), g->gx, ymsg));
        mine += 2 * (nx * xmsg + ny * ymsg);
    }
    if (rank_bytes) *rank_bytes = mine;
    return group;
}

int64_t mp_geom_tp_bytes(const mp_geom *g, int64_t n)
{
    if (!g->dslice) return 0;
    return COUNT_PROD("tensor-parallel bytes", 4, g->M - 1, g->tile, n, g->cfg.hidden2, 4);
}

int64_t mp_geom_stage_floats(const mp_geom *g, int64_t n)
{
    int64_t m = 0;
    for (int l = 1; l < MP_LAYERS; l++) {
        const mp_layer *L = &g->layer[l];
        int64_t side = g->th > g->tw + 2 * L->pad ? g->th : g->tw + 2 * L->pad;
        int64_t f = COUNT_PROD("halo floats", L->pad, side, L->ci, n);
        if (f > m) m = f;
    }
    return m;
}

int64_t mp_geom_bytes(const mp_geom *g, int64_t n)
{
    int64_t fl = 2 * g->params_rank; /* master weights, gradients */
    int64_t maxco = 0, maxin = 0;
    for (int l = 0; l < MP_LAYERS; l++) {
        const mp_layer *L = &g->layer[l];
        int64_t a = COUNT_PROD("activations", n, g->th + 2 * L->pad, g->tw + 2 * L->pad, L->ci);
        fl += a * (l > 0 ? 2 : 1);                       /* A_l and (l > 0) its gradient */
        fl += COUNT_PROD("activations", g->tile, n, L->co); /* Z_l */
        if (L->co > maxco) maxco = L->co;
        if (L->in > maxin) maxin = L->in;
    }
    fl += COUNT_PROD("activations", g->tile, n, g->cfg.channels); /* target */
    fl += COUNT_PROD("activations", g->tile, n, maxco);           /* dZ */
    fl += 2 * COUNT_PROD("patches", n, maxin);                     /* patch, its gradient */
    fl += 2 * mp_geom_stage_floats(g, n);                          /* send, receive */
    if (g->cfg.sparsity > 0) /* zeros, the sign and its scaled copy; lambda */
        fl += 3 * COUNT_PROD("sparsity", g->tile, n, g->cfg.hidden2) + 1;
    if (g->dslice) /* the pair: its input and output over the group, hidden and its gradient,
                      this tile's output */
        fl += COUNT_PROD("tensor-parallel", n, g->positions, 2 * (g->cfg.hidden2 + g->dslice)) +
              COUNT_PROD("tensor-parallel", n, g->tile, g->cfg.hidden2);
    return COUNT_PROD("bytes", fl, 4);
}

int64_t mp_geom_rank_bytes(const mp_geom *g, int64_t n)
{
    int64_t copy = COUNT_PROD("bytes", g->params_rank, 4);
    return mp_geom_bytes(g, n) + (int64_t)optim_bytes_run(&g->cfg.run, g->params_rank) + copy;
}
