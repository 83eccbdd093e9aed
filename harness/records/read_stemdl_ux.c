/* Records: stemdl's update_exchange block (docs/record.md), part of the
 * STEMDL kind's reader: the optimizer, the exchange mode and its momentum
 * sync, the per-step costs; and the loss of every timed step. */
#define _GNU_SOURCE
#include "harness/records/kinds.h"

static int steps_block(const rd_t *c, const ytnode *st, uxinfo_t *u)
{
    struct {
        const char *key;
        rd_domain dom;
        double **out;
    } lists[] = {
        {"exchange_s", RD_FINITE, &u->exchange_s},
        {"exposed_s", RD_FINITE, &u->exposed_s},
        {"sign_kernel_s", RD_FINITE, &u->kernel_s},
        {"collective_s", RD_FINITE, &u->collective_s},
        {"wire_bytes", RD_COUNT, &u->wire_bytes},
        {"momentum_sync_bytes", RD_COUNT, &u->sync_bytes},
        {"momentum_synced_layers", RD_COUNT, &u->synced},
        {"disagreement", RD_ANY, &u->disagreement}, /* NaN: not measured */
    };
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        size_t n;
        if (rd_nums(c, st, lists[i].key, lists[i].dom, lists[i].out, &n)) return -1;
        if (i == 0) u->nsteps = n;
        else if (n != u->nsteps)
            return rd_err(c, st, "update_exchange.steps: %s has %zu entries, exchange_s %zu",
                          lists[i].key, n, u->nsteps);
    }
    return 0;
}

int record_read_ux(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *b, *st, *loss;
    if (rd_map(c, root, "loss", &loss) ||
        (loss && rd_nums(c, loss, "steps", RD_ANY, &r->loss, &r->nloss)))
        return -1;
    if (rd_map(c, root, "update_exchange", &b)) return -1;
    if (!b) return 0;
    uxinfo_t *u = rd_alloc(c, sizeof *u);
    if (rd_str(c, b, "optimizer", NULL, &u->optimizer) ||
        rd_str(c, b, "exchange", NULL, &u->exchange) ||
        rd_str(c, b, "momentum_sync", NULL, &u->momentum_sync) ||
        rd_int(c, b, "bits_per_weight", -1, &u->bits) ||
        rd_int(c, b, "momentum_sync_every", -1, &u->sync_every) ||
        rd_num(c, b, "momentum_sync_threshold", RD_ANY, &u->sync_threshold))
        return -1;
    if (!u->optimizer || !u->exchange)
        return rd_err(c, b, "update_exchange: optimizer and exchange are required");
    if (rd_map(c, b, "steps", &st) || (st && steps_block(c, st, u))) return -1;
    r->ux = u;
    return 0;
}
