#include "benchmarks/networks/fcdensenet/validate.h"

#include <stdint.h>
#include <stdio.h>

#include "benchmarks/common/count.h"
#include "benchmarks/networks/fcdensenet/fd_split.h"
#include "benchmarks/networks/fcdensenet/plan.h"

/* the ranges of config.c's key table: a cfg_t filled in by code gets the
 * same bounds as one set from text */
#define CH CFG_MAX_CHANNELS
#define PX CFG_MAX_PIXELS
#define LY CFG_MAX_LAYERS

/* Every FLOP count a run makes fits 64 bits: the plan's weights and forward
 * FLOPs (plan_build_checked), and a bound on a rank's executed FLOPs summed
 * over the timed steps (the kernel table's totals): per sample 3 x forward
 * (forward, data and weight gradients) plus 16 per element of each layer's
 * input and output (bias, ReLU, pooling, loss, copies), per step 32 per
 * parameter (optimizer, reductions). */
static int step_counts_fit(const cfg_t *c, char *err, size_t errlen)
{
    plan_t p;
    if (plan_build_checked(&p, c, err, errlen)) return -1;
    if (fd_split_check(&p, err, errlen)) {
        plan_free(&p);
        return -1;
    }
    int64_t per_sample = 0, t, bound;
    int bad = 0;
    for (int i = 0; i < p.n && !bad; i++) {
        const plan_layer *l = &p.layers[i];
        int64_t elems;
        bad = count_prod((const int64_t[]){16, (int64_t)l->c_in + l->c_out, l->h_out, l->w_out}, 4,
                         &elems) ||
              count_mul(3, l->fwd_flops, &t) || count_add(t, elems, &t) ||
              count_add(per_sample, t, &per_sample);
    }
    bad = bad || count_mul(per_sample, c->run.batch, &bound) || count_mul(32, p.params, &t) ||
          count_add(bound, t, &bound) || count_mul(bound, c->run.steps, &t);
    plan_free(&p);
    if (bad)
        return snprintf(err, errlen, "network too large: the FLOPs of %d steps at batch %d do not "
                        "fit a 64-bit count (a smaller network, batch or steps)",
                        c->run.steps, c->run.batch),
               -1;
    return 0;
}

int cfg_validate(const cfg_t *c, char *err, size_t errlen)
{
    /* cfg_set checks ranges; a cfg_t filled in by code must pass the same */
    const struct { const char *name; int v, max; } pos[] = {
        {"c_in", c->c_in, CH},   {"height", c->height, PX},         {"width", c->width, PX},
        {"f0", c->f0, CH},       {"k0", c->k0, 99},                 {"growth", c->growth, CH},
        {"k", c->k, 99},         {"bottleneck", c->bottleneck, LY}, {"c_out", c->c_out, CH},
    };
    for (size_t i = 0; i < sizeof pos / sizeof *pos; i++)
        if (pos[i].v < 1 || pos[i].v > pos[i].max)
            return snprintf(err, errlen, "%s must be from 1 to %d, not %d", pos[i].name,
                            pos[i].max, pos[i].v),
                   -1;
    if (runcfg_validate(&c->run, err, errlen)) return -1;
    if (c->ndown < 1) return snprintf(err, errlen, "down: at least one level is needed"), -1;
    if (c->nup != c->ndown || c->ntd != c->ndown || c->ntu != c->ndown)
        return snprintf(err, errlen,
                        "list lengths disagree: down has %d entries, up %d, td %d, tu %d "
                        "(one entry per level each)",
                        c->ndown, c->nup, c->ntd, c->ntu),
               -1;
    if (c->ndown > CFG_MAX_LEVELS || c->levels != c->ndown)
        return snprintf(err, errlen, "levels %d: must equal the length of down (%d), at most %d",
                        c->levels, c->ndown, CFG_MAX_LEVELS),
               -1;
    for (int i = 0; i < c->ndown; i++)
        if (c->down[i] < 1 || c->up[i] < 1 || c->td[i] < 1 || c->tu[i] < 1 || c->down[i] > LY ||
            c->up[i] > LY || c->td[i] > CH || c->tu[i] > CH)
            return snprintf(err, errlen, "level %d: down and up must be from 1 to %d, td and tu "
                            "from 1 to %d", i, LY, CH),
                   -1;
    if (c->k % 2 == 0 || c->k0 % 2 == 0)
        return snprintf(err, errlen, "kernel sizes must be odd for SAME padding (k=%d, k0=%d)", c->k,
                        c->k0),
               -1;
    int levels = c->ndown;
    if (c->height % (1 << levels) || c->width % (1 << levels))
        return snprintf(err, errlen,
                        "image %dx%d is not divisible by 2^levels = %d (%d levels of 2x2 pooling)",
                        c->height, c->width, 1 << levels, levels),
               -1;
    /* the layer count first: describing a network (the dry step's kernel
     * table) grows with its square, and it bounds every channel count below */
    int layers = 2 + 2 * levels + c->bottleneck;
    for (int i = 0; i < levels; i++) layers += c->down[i] + c->up[i];
    if (layers > CFG_MAX_LAYERS)
        return snprintf(err, errlen, "the network has %d layers; at most %d are allowed (down, up "
                        "and bottleneck layers, plus 2 per level and 2)", layers, CFG_MAX_LAYERS),
               -1;
    /* keep every buffer's element count well inside 64 bits */
    double widest = (double)c->c_in + c->f0 + c->td[0] + c->tu[0];
    for (int i = 0; i < levels; i++)
        widest += (double)c->growth * (c->down[i] + c->up[i]) + c->td[i] + c->tu[i];
    widest += (double)c->growth * c->bottleneck;
    if (widest * c->height * c->width * c->run.batch > 1e17)
        return snprintf(err, errlen, "network too large: buffers would exceed 1e17 elements"), -1;
    return step_counts_fit(c, err, errlen);
}
