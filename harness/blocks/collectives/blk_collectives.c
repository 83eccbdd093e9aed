/* Block collectives (blk_collectives.h): the collectives record's `results`
 * (docs/collectives.md "The record"): one row per operation, data type, size
 * and placement; the rows of bandwidth and latency per size.  The derived
 * numbers: harness/analysis/analysis_coll.c. */
#define _GNU_SOURCE
#include "harness/blocks/collectives/blk_collectives.h"

/* inplace: true/false, or 0/1 */
static int read_inplace(const rd_t *c, const ytnode *row, int *out)
{
    const ytnode *ip = yt_get(row, "inplace");
    *out = 0;
    if (!ip || yt_is_null(ip) || !rd_bool_node(c, ip, out)) return 0;
    long long v;
    if (rd_int_node(c, ip, &v)) return -1;
    *out = v != 0;
    return 0;
}

/* One row of `results`: every key the harness reads of it. */
static int read_coll_row(const rd_t *c, const ytnode *row, crow_t *x)
{
    if (read_inplace(c, row, &x->inplace) || rd_str(c, row, "op", NULL, &x->op) ||
        rd_str(c, row, "dtype", "", &x->dtype) || rd_str(c, row, "redop", "", &x->redop) ||
        rd_int(c, row, "root", -1, &x->root) || rd_num(c, row, "bytes", RD_COUNT, &x->bytes) ||
        rd_num(c, row, "count", RD_ANY, &x->count) ||
        rd_nums(c, row, "time_s", RD_FINITE, &x->time_s, &x->ntime) ||
        rd_num(c, row, "median_s", RD_ANY, &x->median_s) ||
        rd_num(c, row, "ci_lo_s", RD_ANY, &x->ci_lo_s) ||
        rd_num(c, row, "ci_hi_s", RD_ANY, &x->ci_hi_s) ||
        rd_num(c, row, "min_s", RD_ANY, &x->min_s) || rd_num(c, row, "max_s", RD_ANY, &x->max_s) ||
        rd_num(c, row, "algbw_GBps", RD_ANY, &x->algbw) ||
        rd_num(c, row, "busbw_GBps", RD_ANY, &x->busbw) ||
        rd_num(c, row, "latency_us", RD_ANY, &x->latency_us) ||
        rd_int(c, row, "wrong", 0, &x->wrong))
        return -1;
    if (!x->op) return rd_err(c, row, "results: a row has no op");
    /* the factor comes from the benchmark, never from the operation's name */
    const ytnode *f = yt_get(row, "busbw_factor");
    if (!f || yt_is_null(f))
        return rd_err(c, row, "results: the %s row has no busbw_factor (docs/record.md)", x->op);
    if (rd_num_node(c, f, RD_FINITE, &x->factor)) return -1;
    if (!(x->factor >= 0))
        return rd_err(c, f, "results: busbw_factor must be a number >= 0 (got %s)", f->str);
    if (!(x->bytes >= 0)) return rd_err(c, row, "results: a row has no bytes");
    return 0;
}

const collinfo_t collectives_none = {NULL, 0};

static int read_coll(const rd_t *c, const ytnode *root, record_t *rec)
{
    const ytnode *rs;
    collinfo_t *r = rd_alloc(c, sizeof *r);
    *r = collectives_none;
    rec->blk[BLOCK_collectives] = r;
    if (rd_list(c, root, "results", &rs)) return -1;
    if (!rs) return 0;
    r->c = rd_alloc(c, (rs->n + 1) * sizeof *r->c);
    for (size_t i = 0; i < rs->n; i++) {
        const ytnode *row = rs->items[i];
        if (row->kind != YT_MAP) return rd_err(c, row, "results: each row must be a mapping");
        if (read_coll_row(c, row, &r->c[r->nc++])) return -1;
    }
    return 0;
}

/* per scale and message size (params op, bytes, dtype, inplace) */
static const metric_info_t catalog[] = {
    {"busbw_GBps", "GB/s", 1, 1, "bus bandwidth, nccl-tests factors (1e9 bytes per GB)"},
    {"algbw_GBps", "GB/s", 1, 1, "bytes / median time"},
    {"latency_us", "us", -1, 1, "median time per call"},
    {"wrong", "", -1, 1, "wrong elements found by validation (must be 0)"},
    {"busbw_max_GBps", "GB/s", 1, 1, "the largest busbw of an operation over all sizes"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_collectives = {.name = "collectives", .key = "results",
                                   .read = read_coll, .catalog = catalog, .section = "collectives",
                                   .no_derive = "its rows pooled over launches are the "
                                                "analysis' (cres_t, harness/analysis/"
                                                "analysis_coll.c), made with the grouping",
                                   .rows = collectives_rows, .rows_at = BLOCK_ROWS_ENTRY};
