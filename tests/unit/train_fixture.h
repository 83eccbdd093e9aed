/* What the training runtime's unit tests share: an arena of float buffers
 * freed together (a failed T_ASSERT jumps out of a test). */
#ifndef EXADL_TRAIN_FIXTURE_H
#define EXADL_TRAIN_FIXTURE_H

#include <stdlib.h>

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

#endif
