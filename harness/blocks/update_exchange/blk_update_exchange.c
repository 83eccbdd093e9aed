/* Block update_exchange (blk_update_exchange.h): a training record's
 * update_exchange block (docs/record.md): the optimizer, the exchange mode
 * and its momentum sync, the per-step costs. */
#define _GNU_SOURCE
#include "harness/blocks/update_exchange/blk_update_exchange.h"

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

static int read_ux(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *b, *st;
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
    r->blk[BLOCK_update_exchange] = u;
    return 0;
}

/* per scale (params exchange, rate; docs/lioncub.md) */
static const metric_info_t catalog[] = {
    {"exchange_s", "s", -1, 1, "the gradient engine's time in the update exchange (or the "
                               "gradient allreduce): median per timed step (max over ranks)"},
    {"wire_bytes_per_step", "B", -1, 1, "bytes each rank sends per step in the exchange "
                                        "(bandwidth-optimal count): median"},
    {"speedup_over_grad", "", 1, 1, "median step time of exchange grad at the same rate and "
                                    "scale / this entry's"},
    {"final_loss", "", -1, 1, "loss after the last timed step (first record at the scale)"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_update_exchange = {.name = "update_exchange", .key = "update_exchange",
                                       .read = read_ux, .catalog = catalog, .section = "lioncub",
                                       .derive = update_exchange_derive,
                                       .rows = update_exchange_rows, .rows_at = BLOCK_ROWS_RUN};
