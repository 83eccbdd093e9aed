/* What several STEMDL unit tests share: an arena of float buffers freed
 * together (a failed T_ASSERT jumps out of a test), and the small odd member
 * of the network family that exercises every layer kind. */
#ifndef EXADL_STEMDL_FIXTURE_H
#define EXADL_STEMDL_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/networks/fcdensenet/validate.h"
#include "tests/unit/tap.h"

#define FIXTURE_ARENA 512
static float *arena[FIXTURE_ARENA];
static size_t arena_len[FIXTURE_ARENA];
static int narena;

static inline float *talloc(size_t n)
{
    float *p = calloc(n ? n : 1, sizeof *p);
    if (!p || narena == FIXTURE_ARENA) abort();
    arena_len[narena] = n;
    arena[narena++] = p;
    return p;
}

static inline void arena_free(void)
{
    while (narena > 0) free(arena[--narena]);
}

/* Every layer kind, rectangular images, odd channel counts, a 5x5 CONV_INIT
 * and 3x3 dense kernels, batch 2: fast to differentiate. */
static inline void small_cfg(cfg_t *c)
{
    T_ASSERT(cfg_preset(c, "tiny") == 0, "tiny preset missing");
    c->c_in = 3;
    c->height = 8;
    c->width = 12;
    c->f0 = 5;
    c->k0 = 5;
    c->growth = 3;
    c->run.batch = 2;
    int down[] = {1, 2}, up[] = {2, 1}, td[] = {7, 6}, tu[] = {4, 5};
    memcpy(c->down, down, sizeof down);
    memcpy(c->up, up, sizeof up);
    memcpy(c->td, td, sizeof td);
    memcpy(c->tu, tu, sizeof tu);
    char err[256];
    T_ASSERT(cfg_validate(c, err, sizeof err) == 0, "%s", err);
}

#endif
