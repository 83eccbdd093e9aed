#include "benchmarks/networks/fcdensenet/fd_split.h"

#include <stdio.h>
#include <string.h>

int fd_split_of(const cfg_t *c)
{
    int s[2];
    if (cfg_parse_spatial(c->spatial, s)) return 1;
    return s[0] * s[1];
}

void fd_split_hw(const cfg_t *c, int s[2])
{
    if (cfg_parse_spatial(c->spatial, s)) s[0] = s[1] = 1;
}

static char plan_letter(const cfg_t *c, int level)
{
    size_t n = strlen(c->spatial_plan);
    if (n == 0) return 'h';
    return c->spatial_plan[(size_t)level < n ? (size_t)level : n - 1];
}

int fd_plan_level(const cfg_t *c)
{
    int L = c->levels;
    if (fd_split_of(c) <= 1) return L + 1;
    for (int l = 0; l <= L; l++)
        if (plan_letter(c, l) == 's') return l;
    return L + 1;
}

int fd_layer_level(const plan_t *p, int layer)
{
    const cfg_t *c = &p->cfg;
    int L = c->levels;
    if (layer == p->conv_init || layer == p->conv_fin) return 0;
    if (layer >= p->bott_first && layer < p->bott_first + c->bottleneck) return L;
    for (int i = 0; i < L; i++) {
        if (layer == p->td[i] || (layer >= p->down_first[i] && layer < p->down_first[i] + c->down[i]))
            return i;
        if (layer == p->tu[i] || (layer >= p->up_first[i] && layer < p->up_first[i] + c->up[i]))
            return L - 1 - i;
    }
    return 0;
}

/* The plan's letters: 0, or -1 with one line in err. */
static int plan_check(const plan_t *p, int S, int Sw, char *err, size_t errlen)
{
    const cfg_t *c = &p->cfg;
    const char *t = c->spatial_plan;
    int L = c->levels, n = (int)strlen(t);
    if (n == 0 || strcmp(t, "h") == 0) return 0;
    if (S <= 1)
        return snprintf(err, errlen, "--spatial-plan %s needs --spatial N with N > 1 (there is "
                        "nothing to decompose)", t), -1;
    if (n > L + 1)
        return snprintf(err, errlen, "--spatial-plan %s: %d letters for the %d levels of the "
                        "network (0, the full size, to %d, the bottleneck)", t, n, L + 1, L), -1;
    if (t[0] != 'h')
        return snprintf(err, errlen, "--spatial-plan %s: level 0 must be h (whole samples at "
                        "every level is data parallelism: --spatial 1)", t), -1;
    for (int l = 1; l < n; l++)
        if (t[l] == 'h' && t[l - 1] == 's')
            return snprintf(err, errlen, "--spatial-plan %s: level %d is split along H after "
                            "level %d's whole samples (a plan is H levels, then sample levels)",
                            t, l, l - 1), -1;
    int K = fd_plan_level(c);
    if (K <= L && c->run.batch % S)
        return snprintf(err, errlen, "--spatial-plan %s: --batch %d does not give the %d ranks "
                        "of a group whole samples at level %d (a multiple of %d)",
                        t, c->run.batch, S, K, S), -1;
    int Sh = S / Sw;
    if (K <= L && (p->level_h[K] % Sh || p->level_w[K] % Sw))
        return snprintf(err, errlen, "--spatial-plan %s: level %d's %d x %d does not split "
                        "into %d x %d equal tiles for the shuffle", t, K, p->level_h[K],
                        p->level_w[K], Sh, Sw), -1;
    return 0;
}

int fd_split_check(const plan_t *p, char *err, size_t errlen)
{
    const cfg_t *c = &p->cfg;
    int s[2];
    if (cfg_parse_spatial(c->spatial, s))
        return snprintf(err, errlen, "--spatial %s: not N or HxW", c->spatial), -1;
    int S = s[0] * s[1], Sh = s[0], Sw = s[1];
    if (plan_check(p, S, Sw, err, errlen)) return -1;
    if (S == 1) return 0;
    int K = fd_plan_level(c);
    if (strcmp(c->run.exchange, "grad") != 0)
        return snprintf(err, errlen,
                        "--spatial %s with --exchange %s: the ranks of a group hold parts of one "
                        "gradient, whose signs cannot be voted on apart (use --exchange grad)",
                        c->spatial, c->run.exchange),
               -1;
    for (int i = 0; i < p->n; i++) {
        const plan_layer *l = &p->layers[i];
        if (fd_layer_level(p, i) >= K) continue; /* whole samples: any size */
        int h = l->h_in % Sh ? l->h_in : l->h_out;
        if (l->h_in % Sh || l->h_out % Sh)
            return snprintf(err, errlen,
                            "--spatial %s: layer %s's height %d does not split into %d equal "
                            "tiles (every layer's height, after each pooling, must be a "
                            "multiple of the H split)",
                            c->spatial, l->name, h, Sh),
                   -1;
        int w = l->w_in % Sw ? l->w_in : l->w_out;
        if (l->w_in % Sw || l->w_out % Sw)
            return snprintf(err, errlen,
                            "--spatial %s: layer %s's width %d does not split into %d equal "
                            "tiles (every layer's width, after each pooling, must be a "
                            "multiple of the W split)",
                            c->spatial, l->name, w, Sw),
                   -1;
        int tile = l->h_in / Sh, halo = l->k / 2;
        if (l->kind == PLAN_CONV && Sh > 1 && tile < halo)
            return snprintf(err, errlen,
                            "--spatial %s: layer %s's tiles of %d rows are thinner than its halo "
                            "of %d rows (a halo from beyond the next rank is not implemented)",
                            c->spatial, l->name, tile, halo),
                   -1;
        tile = l->w_in / Sw;
        if (l->kind == PLAN_CONV && Sw > 1 && tile < halo)
            return snprintf(err, errlen,
                            "--spatial %s: layer %s's tiles of %d columns are thinner than its "
                            "halo of %d columns (a halo from beyond the next rank is not "
                            "implemented)",
                            c->spatial, l->name, tile, halo),
                   -1;
    }
    return 0;
}

/* Sides a rank exchanges along an axis of n tiles: 2 in the middle, 1 for
 * the busiest rank of 2 tiles, 0 when the axis is not split. */
static int sides(int n, int busiest) { return n <= 1 ? 0 : busiest && n == 2 ? 1 : 2; }

/* Elements per channel and sample one exchange sends at a level, and its
 * messages: rows over the padded width (H), columns over the own rows (W). */
static void exchange(const plan_t *p, int level, int k, int busiest, int64_t *elems, int64_t *msgs)
{
    int s[2];
    fd_split_hw(&p->cfg, s);
    int half = k / 2, ph = s[0] > 1 ? half : 0, pw = s[1] > 1 ? half : 0;
    int64_t th = p->level_h[level] / s[0], tw = p->level_w[level] / s[1];
    int nh = ph ? sides(s[0], busiest) : 0, nw = pw ? sides(s[1], busiest) : 0;
    *elems = nh * ph * (tw + 2 * pw) + nw * pw * th;
    *msgs = nh + nw;
}

/* The halo bytes and messages of one step per sample (see the header). */
static void halo_counts(const plan_t *p, int elem_bytes, int busiest, int64_t *bytes, int64_t *msgs)
{
    const cfg_t *c = &p->cfg;
    *bytes = *msgs = 0;
    if (fd_split_of(c) <= 1) return;
    int g = c->growth, L = c->levels, K = fd_plan_level(c);
    int64_t e, m;
    /* conv_init's input, forward only (no data gradient of the input) */
    exchange(p, 0, c->k0, busiest, &e, &m);
    *bytes += e * c->c_in;
    *msgs += m;
    for (int b = 0; b <= 2 * L; b++) {
        /* the blocks in forward order: down 0..L-1, the bottleneck, up 0..L-1 */
        int c0, layers, level = b <= L ? b : 2 * L - b;
        if (level >= K) continue; /* whole samples: no halos */
        if (b < L) c0 = p->down_c0[b], layers = c->down[b];
        else if (b == L) c0 = p->bott_c0, layers = c->bottleneck;
        else c0 = p->up_c0[b - L - 1], layers = c->up[b - L - 1];
        /* forward: the block input, then each new layer's maps but the last's;
         * backward: the same channels' data-gradient halos */
        exchange(p, level, c->k, busiest, &e, &m);
        *bytes += 2 * e * (c0 + (int64_t)(layers - 1) * g);
        *msgs += 2 * m * layers;
    }
    *bytes *= elem_bytes;
}

int64_t fd_split_halo_bytes(const plan_t *p, int elem_bytes)
{
    int64_t b, m;
    halo_counts(p, elem_bytes, 0, &b, &m);
    return b;
}

int64_t fd_split_shuffle_bytes(const plan_t *p, int batch, int elem_bytes)
{
    const cfg_t *c = &p->cfg;
    int S = fd_split_of(c), K = fd_plan_level(c), L = c->levels;
    if (S <= 1 || K > L) return 0;
    /* into level K: the pooled maps of transition down K-1; out of it: the
     * new maps of its block (the bottleneck's, or up block L-1-K's), which
     * transition up L-K reads */
    int64_t ch = c->td[K - 1] + (int64_t)(K == L ? c->bottleneck : c->up[L - 1 - K]) * c->growth;
    int hw[2];
    fd_split_hw(c, hw);
    int64_t tile = (int64_t)(p->level_h[K] / hw[0]) * (p->level_w[K] / hw[1]);
    /* each all-to-all: a rank keeps 1/S of its batch x tile, sends the rest;
     * forward and backward: 2 of each */
    return 2 * ch * tile * ((int64_t)batch / S) * (S - 1) * elem_bytes;
}

void fd_split_rank_counts(const plan_t *p, int batch, int elem_bytes, int busiest,
                          fd_rank_counts *r)
{
    int S = fd_split_of(&p->cfg), K = fd_plan_level(&p->cfg);
    halo_counts(p, elem_bytes, busiest, &r->halo_bytes, &r->halo_msgs);
    r->halo_bytes *= batch;
    r->shuffle_bytes = fd_split_shuffle_bytes(p, batch, elem_bytes);
    r->shuffle_msgs = S > 1 && K <= p->cfg.levels ? 4LL * (S - 1) : 0;
}
