/* Records: the collectives kind (docs/collectives.md "The record"): one row
 * per operation, data type, size and placement. */
#define _GNU_SOURCE
#include "harness/records/kinds.h"

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

int record_read_coll(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *rs;
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
