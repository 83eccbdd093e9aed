/* The search space (benchmarks/search/sr_space.h): codes name every
 * configuration once, the operators stay inside the space and change what
 * they should, the planted fitness is 0 at its optimum only, and every
 * configuration of the space is a valid FC-DenseNet (docs/search.md). */
#include <stdint.h>
#include <stdlib.h>

#include "benchmarks/networks/fcdensenet/validate.h"
#include "benchmarks/search/sr_space.h"
#include "tests/unit/tap.h"

static int inside(const sr_genome *x)
{
    for (int g = 0; g < SR_GENES; g++)
        if (x->g[g] < 0 || x->g[g] >= sr_gene_count(g)) return 0;
    return 1;
}

static void test_codes(void)
{
    int64_t n = sr_space_size(), bad = 0;
    T_ASSERT(n == 49152, "space size %lld", (long long)n);
    for (int64_t c = 0; c < n; c++) {
        sr_genome x;
        sr_decode(c, &x);
        bad += !inside(&x) || sr_code(&x) != c;
    }
    T_ASSERT(bad == 0, "%lld codes do not round-trip", (long long)bad);
}

static void test_operators(void)
{
    rng_t r = rng_stream(1, 2, 3, 4);
    int same = 0, outside = 0, far = 0, mixed = 0;
    for (int i = 0; i < 20000; i++) {
        sr_genome a, b, c;
        sr_random(&r, &a);
        sr_random(&r, &b);
        c = a;
        sr_mutate(&r, &c);
        outside += !inside(&c);
        same += sr_code(&c) == sr_code(&a);
        int changed = 0;
        for (int g = 0; g < SR_GENES; g++) changed += c.g[g] != a.g[g];
        far += changed > 3;
        sr_cross(&r, &a, &b, &c);
        for (int g = 0; g < SR_GENES; g++) mixed += c.g[g] != a.g[g] && c.g[g] != b.g[g];
    }
    T_ASSERT(outside == 0, "%d mutants outside the space", outside);
    T_ASSERT(same == 0, "%d mutants equal to their parent", same);
    /* each gene changes with probability 1/7: more than 3 of 7 about 1.3% of the time */
    T_ASSERT(far < 500, "%d of 20000 mutants changed more than 3 genes", far);
    T_ASSERT(mixed == 0, "%d crossed genes from neither parent", mixed);
}

static void test_planted(void)
{
    sr_genome opt, o2;
    sr_planted_optimum(42, &opt);
    sr_planted_optimum(42, &o2);
    T_ASSERT(sr_code(&opt) == sr_code(&o2) && inside(&opt), "the optimum depends on the seed only");
    int64_t zeros = 0;
    for (int64_t c = 0; c < sr_space_size(); c++) {
        sr_genome x;
        sr_decode(c, &x);
        double f = sr_planted_fitness(&x, &opt);
        zeros += f == 0;
        T_ASSERT(f >= 0, "negative fitness");
    }
    T_ASSERT(zeros == 1, "%lld configurations at fitness 0", (long long)zeros);
}

/* every configuration of the space (at the corners of each gene) is valid */
static void test_valid(void)
{
    cfg_t base, c;
    T_ASSERT(cfg_preset(&base, "tiny") == 0, "tiny preset");
    char err[256];
    int bad = 0;
    for (int64_t code = 0; code < sr_space_size(); code += 97) {
        sr_genome x;
        sr_decode(code, &x);
        sr_to_cfg(&x, &base, &c);
        if (cfg_validate(&c, err, sizeof err)) bad++;
    }
    sr_genome hi;
    for (int g = 0; g < SR_GENES; g++) hi.g[g] = sr_gene_count(g) - 1;
    sr_to_cfg(&hi, &base, &c);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == 0, "the largest configuration: %s", err);
    T_ASSERT(bad == 0, "%d sampled configurations invalid", bad);
}

int main(void)
{
    T_RUN(test_codes);
    T_RUN(test_operators);
    T_RUN(test_planted);
    T_RUN(test_valid);
    T_DONE();
}
