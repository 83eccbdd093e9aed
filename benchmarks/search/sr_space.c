/* sr_space: the FC-DenseNet search space and its planted fitness (sr_space.h). */
#include "benchmarks/search/sr_space.h"

#include <stdio.h>
#include <string.h>

/* Each gene's values: small enough that a candidate trains in seconds on
 * one core at the `tiny` preset's 16x16 images, varied enough that the
 * networks differ by two orders of magnitude in FLOPs. */
static const int growth_v[] = {2, 3, 4, 5, 6, 8, 10, 12};
static const int kern_v[] = {1, 3, 5, 7};
static const int layers_v[] = {1, 2, 3, 4};
static const int f0_v[] = {4, 6, 8, 12, 16, 24};

static const struct {
    const char *name;
    const int *v;
    int n;
} genes[SR_GENES] = {
    {"growth", growth_v, 8}, {"k", kern_v, 4},         {"k0", kern_v, 4},  {"down0", layers_v, 4},
    {"down1", layers_v, 4},  {"bottleneck", layers_v, 4}, {"f0", f0_v, 6},
};

int sr_gene_count(int gene) { return genes[gene].n; }
const char *sr_gene_name(int gene) { return genes[gene].name; }
int sr_gene_value(int gene, int index) { return genes[gene].v[index]; }

int64_t sr_space_size(void)
{
    int64_t n = 1;
    for (int i = 0; i < SR_GENES; i++) n *= genes[i].n;
    return n;
}

int64_t sr_code(const sr_genome *x)
{
    int64_t c = 0;
    for (int i = 0; i < SR_GENES; i++) c = c * genes[i].n + x->g[i];
    return c;
}

void sr_decode(int64_t code, sr_genome *x)
{
    for (int i = SR_GENES - 1; i >= 0; i--) {
        x->g[i] = (int)(code % genes[i].n);
        code /= genes[i].n;
    }
}

static int pick(rng_t *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }

void sr_random(rng_t *r, sr_genome *x)
{
    for (int i = 0; i < SR_GENES; i++) x->g[i] = pick(r, genes[i].n);
}

void sr_mutate(rng_t *r, sr_genome *x)
{
    int changed = 0;
    while (!changed)
        for (int i = 0; i < SR_GENES; i++) {
            if (pick(r, SR_GENES)) continue;
            int n = genes[i].n, v = x->g[i];
            if (pick(r, 4)) v += pick(r, 2) ? 1 : -1; /* a neighbour, 3 times in 4 */
            else v = pick(r, n);
            if (v < 0) v = 1;
            if (v >= n) v = n - 2;
            changed |= v != x->g[i];
            x->g[i] = v;
        }
}

void sr_cross(rng_t *r, const sr_genome *a, const sr_genome *b, sr_genome *child)
{
    for (int i = 0; i < SR_GENES; i++) child->g[i] = pick(r, 2) ? a->g[i] : b->g[i];
}

void sr_planted_optimum(uint64_t seed, sr_genome *opt)
{
    rng_t r = rng_stream(seed, 0x706c616e746564ULL, 0, 0);
    sr_random(&r, opt);
}

double sr_planted_fitness(const sr_genome *x, const sr_genome *opt)
{
    double f = 0;
    for (int i = 0; i < SR_GENES; i++) {
        double d = (double)(x->g[i] - opt->g[i]) / (genes[i].n - 1);
        f += d * d;
    }
    return f;
}

void sr_to_cfg(const sr_genome *x, const cfg_t *base, cfg_t *c)
{
    *c = *base;
    c->growth = growth_v[x->g[0]];
    c->k = kern_v[x->g[1]];
    c->k0 = kern_v[x->g[2]];
    c->down[0] = c->up[1] = layers_v[x->g[3]];
    c->down[1] = c->up[0] = layers_v[x->g[4]];
    c->bottleneck = layers_v[x->g[5]];
    c->f0 = f0_v[x->g[6]];
}

void sr_format(const sr_genome *x, char *buf, size_t len)
{
    snprintf(buf, len, "growth=%d k=%d k0=%d down=%d,%d bottleneck=%d f0=%d", growth_v[x->g[0]],
             kern_v[x->g[1]], kern_v[x->g[2]], layers_v[x->g[3]], layers_v[x->g[4]],
             layers_v[x->g[5]], f0_v[x->g[6]]);
}
