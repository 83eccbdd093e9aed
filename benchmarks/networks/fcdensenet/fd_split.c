#include "benchmarks/networks/fcdensenet/fd_split.h"

#include <stdio.h>
#include <string.h>

int fd_split_of(const cfg_t *c)
{
    int s[2];
    if (cfg_parse_spatial(c->spatial, s)) return 1;
    return s[0];
}

int fd_split_check(const plan_t *p, char *err, size_t errlen)
{
    const cfg_t *c = &p->cfg;
    int s[2];
    if (cfg_parse_spatial(c->spatial, s))
        return snprintf(err, errlen, "--spatial %s: not N or HxW", c->spatial), -1;
    if (s[1] != 1)
        return snprintf(err, errlen,
                        "--spatial %s: splitting W is not implemented yet (H splits only: use "
                        "%dx1; issue 38)",
                        c->spatial, s[0] * s[1]),
               -1;
    int S = s[0];
    if (S == 1) return 0;
    if (strcmp(c->run.exchange, "grad") != 0)
        return snprintf(err, errlen,
                        "--spatial %s with --exchange %s: the ranks of a group hold parts of one "
                        "gradient, whose signs cannot be voted on apart (use --exchange grad)",
                        c->spatial, c->run.exchange),
               -1;
    for (int i = 0; i < p->n; i++) {
        const plan_layer *l = &p->layers[i];
        int h = l->h_in % S ? l->h_in : l->h_out;
        if (l->h_in % S || l->h_out % S)
            return snprintf(err, errlen,
                            "--spatial %s: layer %s's height %d does not split into %d equal "
                            "tiles (every layer's height, after each pooling, must be a "
                            "multiple of the H split)",
                            c->spatial, l->name, h, S),
                   -1;
        int tile = l->h_in / S, halo = l->k / 2;
        if (l->kind == PLAN_CONV && tile < halo)
            return snprintf(err, errlen,
                            "--spatial %s: layer %s's tiles of %d rows are thinner than its halo "
                            "of %d rows (a halo from beyond the next rank is not implemented)",
                            c->spatial, l->name, tile, halo),
                   -1;
    }
    return 0;
}

int64_t fd_split_halo_bytes(const plan_t *p, int elem_bytes)
{
    int S = fd_split_of(&p->cfg);
    if (S <= 1) return 0;
    const cfg_t *c = &p->cfg;
    int hk = c->k / 2, g = c->growth;
    /* rows of one channel sent to both neighbours: 2 * halo * width */
    int64_t total = 0;
    /* conv_init's input, forward only (no data gradient of the input) */
    total += 2LL * (c->k0 / 2) * c->width * c->c_in;
    int L = c->levels;
    for (int b = 0; b <= 2 * L; b++) {
        /* the blocks in forward order: down 0..L-1, the bottleneck, up 0..L-1 */
        int c0, layers, w;
        if (b < L) c0 = p->down_c0[b], layers = c->down[b], w = p->level_w[b];
        else if (b == L) c0 = p->bott_c0, layers = c->bottleneck, w = p->level_w[L];
        else c0 = p->up_c0[b - L - 1], layers = c->up[b - L - 1], w = p->level_w[2 * L - b];
        /* forward: the block input, then each new layer's maps but the last's;
         * backward: the same channels' data-gradient halos */
        int64_t ch = c0 + (int64_t)(layers - 1) * g;
        total += 2 * (2LL * hk * w * ch);
    }
    return total * elem_bytes;
}
