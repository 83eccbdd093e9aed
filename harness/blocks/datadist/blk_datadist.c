/* Block datadist (blk_datadist.h): the datadist record (docs/record.md
 * "datadist", docs/ensembles.md): the file's size and one row per strategy
 * (times, GB/s, the time to the first batch of every rank, wrong words found
 * by the checksums). */
#define _GNU_SOURCE
#include "harness/blocks/datadist/blk_datadist.h"

const ddinfo_t datadist_none = {0, NULL, 0};

static int read_datadist(const rd_t *c, const ytnode *root, record_t *rec)
{
    const ytnode *cfg, *l;
    ddinfo_t *r = rd_alloc(c, sizeof *r);
    *r = datadist_none;
    rec->blk[BLOCK_datadist] = r;
    if (rd_map(c, root, "config", &cfg) || (cfg && rd_num(c, cfg, "bytes", RD_COUNT, &r->bytes)) ||
        rd_list(c, root, "strategies", &l))
        return -1;
    if (!l) return 0;
    r->dd = rd_alloc(c, (l->n + 1) * sizeof *r->dd);
    for (size_t i = 0; i < l->n; i++) {
        const ytnode *x = l->items[i];
        if (x->kind != YT_MAP) return rd_err(c, x, "strategies: each must be a mapping");
        ddrow_t *d = &r->dd[r->ndd++];
        if (rd_str_req(c, x, "strategy", &d->strategy) ||
            rd_num_req(c, x, "held_bytes_per_rank", RD_COUNT, &d->held_bytes) ||
            rd_num(c, x, "delivered_bytes", RD_COUNT, &d->delivered_bytes) ||
            rd_num_req(c, x, "median_s", RD_COUNT, &d->median_s) ||
            rd_num(c, x, "ci_lo_s", RD_COUNT, &d->ci_lo_s) ||
            rd_num(c, x, "ci_hi_s", RD_COUNT, &d->ci_hi_s) ||
            rd_num(c, x, "file_GBps", RD_ANY, &d->file_GBps) ||
            rd_num(c, x, "delivered_GBps", RD_ANY, &d->delivered_GBps) ||
            rd_num(c, x, "wrong_words", RD_COUNT, &d->wrong) ||
            rd_nums(c, x, "first_batch_s", RD_COUNT, &d->first_batch_s, &d->nranks))
            return -1;
    }
    return 0;
}

/* per scale (param strategy; docs/ensembles.md) */
static const metric_info_t catalog[] = {
    {"datadist_file_GBps", "GB/s", 1, 1, "dataset file bytes / median time to deliver it"},
    {"datadist_first_batch_s", "s", -1, 1, "time until the slowest rank holds its first chunk"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_datadist = {.name = "datadist", .key = "strategies, config.bytes",
                                .read = read_datadist, .catalog = catalog, .section = "datadist",
                                .derive = datadist_derive, .rows = datadist_rows,
                                .rows_at = BLOCK_ROWS_RUN};
