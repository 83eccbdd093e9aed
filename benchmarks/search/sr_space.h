/* sr_space: the search space, FC-DenseNet configurations of two levels (the
 * STEMDL family at the size of the `tiny` preset, benchmarks/networks/
 * fcdensenet/): growth, the dense and first kernels, the layers of each dense
 * block (the up path mirrors the down path) and of the bottleneck, and the
 * first features.  A candidate is a genome, one index per gene into that
 * gene's values; its code (a mixed-radix number below sr_space_size) names it
 * and marks it visited.  Also the planted fitness: a known optimum drawn from
 * the seed, fitness 0 there and a separable bowl around it.
 * defines: SR_GENES, sr_genome, sr_space_size, sr_code, sr_decode, sr_random, sr_mutate,
 *   sr_cross, sr_planted_optimum, sr_planted_fitness, sr_to_cfg, sr_gene_name, sr_gene_value,
 *   sr_gene_count, sr_format */
#ifndef EXADL_SEARCH_SR_SPACE_H
#define EXADL_SEARCH_SR_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/networks/fcdensenet/config.h"

#define SR_GENES 7

typedef struct {
    int g[SR_GENES]; /* index into each gene's values */
} sr_genome;

/* How many configurations the space holds (49,152). */
int64_t sr_space_size(void);
int sr_gene_count(int gene);              /* values of a gene */
const char *sr_gene_name(int gene);       /* "growth", "k", ... */
int sr_gene_value(int gene, int index);   /* the configuration's value */

int64_t sr_code(const sr_genome *x);
void sr_decode(int64_t code, sr_genome *x);
void sr_random(rng_t *r, sr_genome *x);
/* Each gene changes with probability 1/SR_GENES (at least one does): to a
 * neighbouring value mostly, to any value sometimes. */
void sr_mutate(rng_t *r, sr_genome *x);
/* Uniform crossover: each gene from a or b. */
void sr_cross(rng_t *r, const sr_genome *a, const sr_genome *b, sr_genome *child);

/* The planted optimum of a seed, and the fitness of x against it: the sum
 * over genes of the squared distance in indices over the gene's range
 * (0 at the optimum only; lower is better, as a loss). */
void sr_planted_optimum(uint64_t seed, sr_genome *opt);
double sr_planted_fitness(const sr_genome *x, const sr_genome *opt);

/* The configuration of x over base (a `tiny` preset with the run's
 * parameters): the genes' values replace the network's keys. */
void sr_to_cfg(const sr_genome *x, const cfg_t *base, cfg_t *c);
/* "growth=5 k=3 k0=3 down=1,2 bottleneck=2 f0=8" */
void sr_format(const sr_genome *x, char *buf, size_t len);

#endif
