#include "benchmarks/cosmoflow/model/cf_geom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/count.h"

/* Counts through count.h (cf_validate keeps valid configurations far
 * below its limits; a failure here is a bug, not bad input). */
static int64_t cmul(int64_t a, int64_t b) { return COUNT_PROD("cosmoflow count", a, b); }
static int64_t cadd(int64_t a, int64_t b)
{
    int64_t r;
    CHECK(count_add(a, b, &r) == 0, "cosmoflow count overflows 64 bits: %lld + %lld",
          (long long)a, (long long)b);
    return r;
}

static void add_layer(cf_plan *p, const char *name, int kind, int ci, int co, int ext, int kk)
{
    cf_layer *l = &p->layers[p->nlayers++];
    int64_t k = kk;
    snprintf(l->name, sizeof l->name, "%s", name);
    l->kind = kind, l->ci = ci, l->co = co, l->ext = ext;
    l->k = kk, l->halo = kk / 2;
    if (l->halo > p->halo) p->halo = l->halo;
    l->nw = kind == CF_CONV ? cmul(cmul(cmul(ci, co), k), k * k) : cmul(ci, co);
    l->off_w = p->params;
    l->off_b = cadd(l->off_w, l->nw);
    p->params = cadd(l->off_b, co);
    p->biases += co;
    int64_t per_out = cmul(2, kind == CF_CONV ? cmul(cmul(ci, co), k * k * k) : cmul(ci, co));
    int64_t vox = kind == CF_CONV ? cmul(cmul(ext, ext), ext) : 1;
    l->fwd_flops = cmul(per_out, vox);
    if (kind == CF_CONV) {
        p->conv_weights = cadd(p->conv_weights, l->nw);
        p->fwd_conv_flops = cadd(p->fwd_conv_flops, l->fwd_flops);
    } else {
        p->dense_weights = cadd(p->dense_weights, l->nw);
        p->fwd_dense_flops = cadd(p->fwd_dense_flops, l->fwd_flops);
    }
}

void cf_plan_build(cf_plan *p, const cf_cfg *c)
{
    memset(p, 0, sizeof *p);
    p->cfg = *c;
    /* blocks 0 (LBANN's rule) resolved here: the plan's copy says how
     * many blocks ran */
    p->cfg.blocks = cf_blocks(c);
    CHECK(p->cfg.blocks >= 1, "blocks unresolved for size %d", c->size);
    p->units = c->size >> p->cfg.blocks;
    int ci = c->channels, ext = c->size;
    char name[16];
    for (int i = 0; i < p->cfg.blocks; i++, ext /= 2) {
        int co = cf_block_filters(c, i);
        snprintf(name, sizeof name, "conv%d", i);
        add_layer(p, name, CF_CONV, ci, co, ext, cf_block_kernel(c, i));
        ci = co;
    }
    p->feat_c = ci;
    p->flat = cmul(ci, cmul(cmul(p->units, p->units), p->units));
    CHECK(p->flat <= 0x7fffffff, "%lld features into the dense head", (long long)p->flat);
    add_layer(p, "fc1", CF_DENSE, (int)p->flat, c->dense1, 1, 1);
    add_layer(p, "fc2", CF_DENSE, c->dense1, c->dense2, 1, 1);
    add_layer(p, "fc3", CF_DENSE, c->dense2, c->targets, 1, 1);
}

/* Units of rank coordinate r among s: as even as possible, the first ones
 * one more. */
static void deal(int units, int s, int r, int *count, int *first)
{
    int base = units / s, rem = units % s;
    *count = base + (r < rem);
    *first = r * base + (r < rem ? r : rem);
}

void cf_part_for(const cf_plan *p, const int split[3], int srank, cf_part *pt)
{
    memset(pt, 0, sizeof *pt);
    memcpy(pt->split, split, sizeof pt->split);
    pt->ranks_per_sample = split[0] * split[1] * split[2];
    pt->groups = 1;
    pt->srank = srank;
    pt->coord[2] = srank % split[2];
    pt->coord[1] = srank / split[2] % split[1];
    pt->coord[0] = srank / (split[1] * split[2]);
    for (int a = 0; a < 3; a++) deal(p->units, split[a], pt->coord[a], &pt->units[a], &pt->unit_off[a]);
}

int cf_part_extent(const cf_plan *p, const cf_part *pt, int a, int level)
{
    return pt->units[a] << (p->cfg.blocks - level);
}

int cf_part_offset(const cf_plan *p, const cf_part *pt, int a, int level)
{
    return pt->unit_off[a] << (p->cfg.blocks - level);
}

int64_t cf_halo_face_elems(const cf_plan *p, const cf_part *pt, int a, int level)
{
    int h = p->layers[level].halo;
    int64_t e[3];
    for (int b = 0; b < 3; b++) e[b] = cf_part_extent(p, pt, b, level);
    /* phases run W (a = 2), H (1), D (0): axes already exchanged carry their halo */
    int64_t n = h;
    for (int b = 0; b < 3; b++)
        if (b != a) n *= e[b] + (b > a ? 2 * h : 0);
    return n;
}

int64_t cf_part_halo_bytes(const cf_plan *p, const cf_part *pt, int elem_bytes, int64_t *messages)
{
    int64_t bytes = 0, msgs = 0;
    for (int l = 0; l < p->cfg.blocks; l++) {
        const cf_layer *L = &p->layers[l];
        /* forward: the input (ci channels); backward: dy (co), not for the first layer */
        int64_t chans = L->ci + (l > 0 ? L->co : 0);
        for (int a = 0; a < 3; a++) {
            int nb = (pt->coord[a] > 0) + (pt->coord[a] < pt->split[a] - 1);
            bytes += nb * chans * cf_halo_face_elems(p, pt, a, l) * elem_bytes;
            msgs += nb * (l > 0 ? 2 : 1);
        }
    }
    if (messages) *messages = msgs;
    return bytes;
}

/* Whether a split fits the units and the halo; else why, in err. */
static int split_fits(const cf_plan *p, const int s[3], char *err, size_t errlen)
{
    static const char axis[] = "DHW";
    for (int a = 0; a < 3; a++) {
        if (s[a] > p->units) {
            snprintf(err, errlen,
                     "--spatial %dx%dx%d: %c is split %d ways but has %d unit%s of %d voxels "
                     "(size %d / 2^blocks): at most %d ranks along it",
                     s[0], s[1], s[2], axis[a], s[a], p->units, p->units == 1 ? "" : "s",
                     1 << p->cfg.blocks, p->cfg.size, p->units);
            return 0;
        }
        /* the thinnest sub-volume of block l: units / s of 2^(blocks - l) voxels */
        for (int l = 0; s[a] > 1 && l < p->cfg.blocks; l++) {
            int thinnest = (p->units / s[a]) << (p->cfg.blocks - l);
            const cf_layer *L = &p->layers[l];
            if (thinnest >= L->halo) continue;
            snprintf(err, errlen,
                     "--spatial %dx%dx%d: along %c the %s block's sub-volumes are %d voxel%s "
                     "thick, thinner than the halo of %d (kernel %d): split %c fewer ways",
                     s[0], s[1], s[2], axis[a], l == p->cfg.blocks - 1 ? "last" : L->name,
                     thinnest, thinnest == 1 ? "" : "s", L->halo, L->k, axis[a]);
            return 0;
        }
    }
    return 1;
}

/* The halo volume of the busiest rank of a split, per sample: faces
 * counted without the padding the phase order adds (which would favour
 * splitting W, exchanged first), so that equal surfaces tie and the tie
 * goes to D. */
static int64_t split_cost(const cf_plan *p, const int s[3])
{
    int64_t worst = 0;
    for (int r = 0; r < s[0] * s[1] * s[2]; r++) {
        cf_part pt;
        cf_part_for(p, s, r, &pt);
        int64_t b = 0;
        for (int l = 0; l < p->cfg.blocks; l++) {
            int64_t e[3], chans = p->layers[l].ci + (l > 0 ? p->layers[l].co : 0);
            for (int a = 0; a < 3; a++) e[a] = cf_part_extent(p, &pt, a, l);
            for (int a = 0; a < 3; a++) {
                int nb = (pt.coord[a] > 0) + (pt.coord[a] < s[a] - 1);
                b += nb * chans * p->layers[l].halo * e[(a + 1) % 3] * e[(a + 2) % 3];
            }
        }
        if (b > worst) worst = b;
    }
    return worst;
}

int cf_split_choose(const cf_plan *p, int ranks, int s[3])
{
    int found = 0;
    int64_t best = 0;
    char why[256];
    for (int a = ranks; a >= 1; a--) {
        if (ranks % a) continue;
        for (int b = ranks / a; b >= 1; b--) {
            if ((ranks / a) % b) continue;
            int t[3] = {a, b, ranks / a / b};
            if (!split_fits(p, t, why, sizeof why)) continue;
            int64_t cost = split_cost(p, t);
            if (!found || cost < best) {
                found = 1;
                best = cost;
                memcpy(s, t, sizeof t);
            }
        }
    }
    return found ? 0 : -1;
}

int cf_part_make(const cf_plan *p, int world, int rank, cf_part *pt, char *err, size_t errlen)
{
    int s[3];
    CHECK(cf_parse_spatial(p->cfg.spatial, s) == 0, "spatial '%s'", p->cfg.spatial);
    /* auto: every rank on one sample when it splits that many ways, else the
     * largest divisor of the ranks that it does (1 always does), the rest
     * as data-parallel groups */
    if (s[0] == 0) {
        int found = 0;
        for (int S = world; S >= 1 && !found; S--)
            found = world % S == 0 && cf_split_choose(p, S, s) == 0;
        CHECK(found, "--spatial auto found no split, not even 1x1x1");
    }
    int S = s[0] * s[1] * s[2];
    if (world % S) {
        snprintf(err, errlen,
                 "--spatial %dx%dx%d: %d rank%s do not form groups of %d spatial ranks (the job's "
                 "ranks must be a multiple of Sd x Sh x Sw)",
                 s[0], s[1], s[2], world, world == 1 ? "" : "s", S);
        return -1;
    }
    if (!split_fits(p, s, err, errlen)) return -1;
    cf_part_for(p, s, rank % S, pt);
    pt->groups = world / S;
    pt->group = rank / S;
    return 0;
}
