/* rng: a counter-based random generator (splitmix64), so that any rank can
 * reproduce any sample from (seed, rank, step, index) without shared state. */
#ifndef EXADL_RNG_H
#define EXADL_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t state;
} rng_t;

static inline uint64_t rng_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A stream keyed by up to four integers (seed, rank, step, item). */
static inline rng_t rng_stream(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    rng_t r;
    r.state = rng_mix(rng_mix(rng_mix(rng_mix(a) ^ b) ^ c) ^ d);
    return r;
}

static inline uint64_t rng_next(rng_t *r)
{
    r->state += 0x9e3779b97f4a7c15ULL;
    return rng_mix(r->state);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double rng_uniform(rng_t *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* Standard normal (Box-Muller; one value per call keeps the stream simple). */
double rng_normal(rng_t *r);

#endif
