/* What the unit tests that train the FC-DenseNet share: the arena of
 * train_fixture.h, and the small odd member of the network family that
 * exercises every layer kind. */
#ifndef EXADL_STEMDL_FIXTURE_H
#define EXADL_STEMDL_FIXTURE_H

#include <string.h>

#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/networks/fcdensenet/validate.h"
#include "tests/unit/tap.h"
#include "tests/unit/train_fixture.h"

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
