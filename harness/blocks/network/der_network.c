/* Block network, its derived half (blk_network.h): each entry's
 * per-configuration rows, the counts per sample the analysis took from the
 * entry's first ok record (bres_t). */
#define _GNU_SOURCE
#include <math.h>

#include "harness/blocks/derive.h"
#include "harness/blocks/network/blk_network.h"

void network_rows(const blkctx_t *c, const void *self, size_t entry, mtable_t *t)
{
    (void)self;
    const bres_t *b = &c->an->b[entry];
    double nan = NAN;
    kv_t *p = b->params;
    size_t np = b->nparams;
    blocks_put(c->a, t, b, 0, "executed_flops_per_sample", b->exec_per_sample, nan, nan, nan, p,
               np);
    blocks_put(c->a, t, b, 0, "convention_flops_per_sample", b->conv_per_sample, nan, nan, nan, p,
               np);
    blocks_put(c->a, t, b, 0, "forward_conv_flops_per_sample", b->fwd_conv_per_sample, nan, nan,
               nan, p, np);
    blocks_put(c->a, t, b, 0, "conv_weights", b->conv_weights, nan, nan, nan, p, np);
    blocks_put(c->a, t, b, 0, "parameters", b->parameters, nan, nan, nan, p, np);
}
