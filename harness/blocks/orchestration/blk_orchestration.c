/* Block orchestration (blk_orchestration.h): the orchestration record's
 * `results` (docs/collectives.md "The orchestration benchmark"): one row per
 * mode and grouping. */
#define _GNU_SOURCE
#include "harness/blocks/orchestration/blk_orchestration.h"

#include <math.h>

const orchinfo_t orchestration_none = {NULL, 0};

static int read_orch(const rd_t *c, const ytnode *root, record_t *rec)
{
    const ytnode *rs;
    orchinfo_t *r = rd_alloc(c, sizeof *r);
    *r = orchestration_none;
    rec->blk[BLOCK_orchestration] = r;
    if (rd_list(c, root, "results", &rs)) return -1;
    if (!rs) return 0;
    r->o = rd_alloc(c, (rs->n + 1) * sizeof *r->o);
    for (size_t i = 0; i < rs->n; i++) {
        const ytnode *row = rs->items[i];
        if (row->kind != YT_MAP) return rd_err(c, row, "results: each row must be a mapping");
        orow_t *o = &r->o[r->no++];
        if (rd_str(c, row, "mode", NULL, &o->mode) ||
            rd_str(c, row, "grouping", NULL, &o->grouping) ||
            rd_int(c, row, "groups", -1, &o->groups) || rd_int(c, row, "ranks", -1, &o->ranks) ||
            rd_int(c, row, "tensors", -1, &o->tensors) ||
            rd_num(c, row, "cycles", RD_ANY, &o->cycles) ||
            rd_num(c, row, "median_s", RD_ANY, &o->median_s) ||
            rd_num(c, row, "per_cycle_s", RD_ANY, &o->per_cycle_s) ||
            rd_num(c, row, "requests", RD_ANY, &o->requests))
            return -1;
        if (!o->mode) return rd_err(c, row, "results: an orchestration row has no mode");
        if (o->ranks < 1) o->ranks = rec->ranks;
        if (isnan(o->per_cycle_s) && o->cycles > 0) o->per_cycle_s = o->median_s / o->cycles;
    }
    return 0;
}

/* no rows and no section of its own: what it measures reaches results.yaml and
 * report.md through the scaling model it feeds */
const block_t block_orchestration = {
    .name = "orchestration", .key = "results", .read = read_orch,
    .no_catalog = "its rows are the scaling model's negotiation costs (harness/model/), whose "
               "rows model_efficiency and model_speedup are the gradient_reduction block's",
    .no_derive = "the scaling model reads its rows as they are (harness/model/model_measured.c)",
    .no_section = "no table of its own: the gradient_reduction section shows the model it feeds"};
